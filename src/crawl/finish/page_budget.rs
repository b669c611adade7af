//! `PageBudgetAF`: stops once the page budget (`PageBudget`) is spent — every fetch it allows
//! recorded, none under way (SPEC §5). The dispatcher never starts a fetch past the budget, so
//! the crawl spends exactly the budget.

use super::{Finisher, Tick};
use crate::base::stop::StopReason;

/// Stops when the budget is spent.
#[derive(Debug, Clone, Copy, Default)]
pub struct PageBudget;

impl Finisher for PageBudget {
    fn check(&mut self, tick: &Tick) -> Option<StopReason> {
        tick.budget
            .is_some_and(|(spent, under_way, limit)| spent >= limit && under_way == 0)
            .then_some(StopReason::BudgetSpent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn only_when_all_of_it_is_spent_and_nothing_is_under_way() {
        let t = |budget| Tick {
            now: Instant::now(),
            pending: 5,
            robots_pending: 0,
            budget,
        };
        assert_eq!(PageBudget.check(&t(None)), None);
        assert_eq!(PageBudget.check(&t(Some((9, 1, 10)))), None);
        assert_eq!(PageBudget.check(&t(Some((10, 1, 10)))), None);
        assert_eq!(
            PageBudget.check(&t(Some((10, 0, 10)))),
            Some(StopReason::BudgetSpent)
        );
    }
}

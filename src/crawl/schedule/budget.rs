//! The page budget (`PageBudget`, SPEC §5): how many fetches the crawl may still start. A
//! fetch is reserved when its task is handed out and spent when its outcome is recorded
//! (whatever it was: a page, a failure, a redirect away); a task given back unfetched (a
//! stop, a retry) returns its reservation. So the crawl never starts more fetches than the
//! budget has left, and stopping and continuing spends exactly what an uninterrupted crawl
//! spends.

use crate::crawl::data::coord::BudgetGrant;

/// What is left of the budget.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Budget {
    /// The budget (`None`: no limit).
    limit: Option<u64>,
    /// Fetches recorded, this run and earlier ones.
    spent: u64,
    /// Fetches handed out and not recorded yet.
    reserved: u64,
    /// A budget shared with other processes (`PgDM`), granted in blocks: the whole crawl's
    /// budget while more may come. `None` once no more will (or for a budget of its own).
    pool: Option<u64>,
}

impl Budget {
    /// A budget of `limit` fetches (0: none).
    pub fn new(limit: u64) -> Self {
        Budget {
            limit: (limit > 0).then_some(limit),
            spent: 0,
            reserved: 0,
            pool: None,
        }
    }

    /// A share of a budget of `total` fetches spread over several processes: nothing may
    /// start until [`Self::grant`] allows it.
    pub fn shared(total: u64) -> Self {
        Budget {
            limit: Some(0),
            spent: 0,
            reserved: 0,
            pool: (total > 0).then_some(total),
        }
    }

    /// Fetches that may still start before more must be granted, while more may come.
    pub fn room(&self) -> Option<u64> {
        self.pool?;
        let l = self.limit.unwrap_or(0);
        Some(l.saturating_sub(self.spent + self.reserved))
    }

    /// More fetches granted.
    pub fn grant(&mut self, grant: BudgetGrant) {
        let (n, last) = match grant {
            BudgetGrant::More(n) => (n, false),
            BudgetGrant::Last(n) => (n, true),
        };
        if let Some(l) = self.limit.as_mut() {
            *l += n;
        }
        if last {
            self.pool = None;
        }
    }

    /// Whether another fetch may start.
    pub fn allows_another(&self) -> bool {
        self.limit.is_none_or(|l| self.spent + self.reserved < l)
    }

    /// A fetch starts.
    pub fn reserve(&mut self) {
        self.reserved += 1;
    }

    /// A started fetch is recorded.
    pub fn spend(&mut self) {
        self.reserved = self.reserved.saturating_sub(1);
        self.spent += 1;
    }

    /// A started fetch was given back unfetched.
    pub fn give_back(&mut self) {
        self.reserved = self.reserved.saturating_sub(1);
    }

    /// Fetches recorded by earlier runs of the crawl, or by another process in scopes this
    /// one takes over (of a shared budget: already paid for). Adds to what was restored.
    pub fn restore(&mut self, spent: u64) {
        if self.pool.is_some() {
            self.limit = Some(self.limit.unwrap_or(0) + spent);
        }
        self.spent += spent;
    }

    /// (spent, reserved, limit) when there is a limit; while a shared budget may still grant
    /// more, its limit is the whole crawl's (so it is not spent yet).
    pub fn state(&self) -> Option<(u64, u64, u64)> {
        match self.pool {
            Some(total) => Some((self.spent, self.reserved, total.max(self.spent + 1))),
            None => self.limit.map(|l| (self.spent, self.reserved, l)),
        }
    }

    /// Whether the whole budget is spent and nothing is under way.
    pub fn is_spent(&self) -> bool {
        self.pool.is_none()
            && self
                .limit
                .is_some_and(|l| self.spent >= l && self.reserved == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_count_until_recorded_or_given_back() {
        let mut b = Budget::new(2);
        b.reserve();
        b.reserve();
        assert!(!b.allows_another());
        b.give_back();
        assert!(b.allows_another());
        b.spend();
        b.reserve();
        b.spend();
        assert!(!b.allows_another() && b.is_spent());
        assert_eq!(b.state(), Some((2, 0, 2)));
        let mut shared = Budget::shared(10);
        shared.restore(3);
        assert_eq!(
            shared.room(),
            Some(0),
            "fetches already paid for grant nothing"
        );
        assert!(!shared.allows_another() && !shared.is_spent());
        shared.grant(BudgetGrant::More(2));
        shared.reserve();
        assert_eq!(shared.room(), Some(1));
        shared.spend();
        shared.reserve();
        shared.spend();
        assert!(
            !shared.allows_another() && !shared.is_spent(),
            "more may come"
        );
        shared.grant(BudgetGrant::Last(0));
        assert!(shared.is_spent() && shared.room().is_none());
        assert_eq!(shared.state(), Some((5, 0, 5)));
        // Scopes taken over from another process: their fetches add to what was restored,
        // and grant nothing more.
        let mut taken = Budget::shared(10);
        taken.restore(2);
        taken.grant(BudgetGrant::More(1));
        taken.restore(3);
        assert_eq!(taken.room(), Some(1));
        assert_eq!(taken.state(), Some((5, 0, 10)));
        let free = Budget::new(0);
        assert!(free.allows_another() && !free.is_spent() && free.state().is_none());
    }
}

//! `WorkIsDoneAF`: nothing is queued or being fetched, and every robots.txt is known.
//! "Pending" is a counter the data manager keeps in the same critical section as each commit
//! (a URL stays pending until its page's links are recorded), so zero cannot be seen while a
//! page that might add work is still being parsed.

use super::{Finisher, Tick};
use crate::base::stop::StopReason;

/// Stops when the work is done.
#[derive(Debug, Clone, Copy, Default)]
pub struct WorkIsDone;

impl Finisher for WorkIsDone {
    fn check(&mut self, tick: &Tick) -> Option<StopReason> {
        (tick.pending == 0 && tick.robots_pending == 0).then_some(StopReason::WorkDone)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn only_when_nothing_is_left() {
        let t = |pending, robots_pending| Tick {
            now: Instant::now(),
            pending,
            robots_pending,
            budget: None,
        };
        assert_eq!(WorkIsDone.check(&t(1, 0)), None);
        assert_eq!(WorkIsDone.check(&t(0, 1)), None);
        assert_eq!(WorkIsDone.check(&t(0, 0)), Some(StopReason::WorkDone));
    }
}

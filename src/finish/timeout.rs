//! `TimeoutAF`: stops after `TimeoutSeconds`.

use std::time::{Duration, Instant};

use super::{Finisher, Tick};
use crate::stop::StopReason;

/// Stops at a deadline.
#[derive(Debug, Clone, Copy)]
pub struct Timeout {
    deadline: Instant,
}

impl Timeout {
    /// Stops `after` from `started`.
    pub fn new(started: Instant, after: Duration) -> Self {
        Timeout {
            deadline: started + after,
        }
    }
}

impl Finisher for Timeout {
    fn check(&mut self, tick: &Tick) -> Option<StopReason> {
        (tick.now >= self.deadline).then_some(StopReason::Timeout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fires_at_the_deadline() {
        let start = Instant::now();
        let mut f = Timeout::new(start, Duration::from_secs(10));
        let at = |s| Tick {
            now: start + Duration::from_secs(s),
            pending: 5,
            robots_pending: 0,
        };
        assert_eq!(f.check(&at(9)), None);
        assert_eq!(f.check(&at(10)), Some(StopReason::Timeout));
    }
}

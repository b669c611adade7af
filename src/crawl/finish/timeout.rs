//! `TimeoutAF`: stops after `TimeoutSeconds`.

use std::time::{Duration, Instant};

use super::{Finisher, FinisherError, Tick};
use crate::base::stop::StopReason;

/// Stops at a deadline.
#[derive(Debug, Clone, Copy)]
pub struct Timeout {
    after: Duration,
    deadline: Option<Instant>,
}

impl Timeout {
    /// Stops `after` from the start of the run.
    pub fn new(after: Duration) -> Self {
        Timeout {
            after,
            deadline: None,
        }
    }
}

impl Finisher for Timeout {
    fn start(&mut self, started: Instant) -> Result<(), FinisherError> {
        self.deadline = Some(started + self.after);
        Ok(())
    }

    fn check(&mut self, tick: &Tick) -> Option<StopReason> {
        self.deadline
            .is_some_and(|d| tick.now >= d)
            .then_some(StopReason::Timeout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fires_at_the_deadline() {
        let start = Instant::now();
        let mut f = Timeout::new(Duration::from_secs(10));
        f.start(start).unwrap();
        let at = |s| Tick {
            now: start + Duration::from_secs(s),
            pending: 5,
            robots_pending: 0,
            budget: None,
        };
        assert_eq!(f.check(&at(9)), None);
        assert_eq!(f.check(&at(10)), Some(StopReason::Timeout));
    }
}

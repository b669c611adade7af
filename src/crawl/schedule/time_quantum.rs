//! `TimeQuantum`: each site in turn for a time quantum (`TimeQuantumSeconds`) — the paper's
//! planner for a target set whose sizes are unknown: every site gets crawled a little before
//! any is crawled to the end.

use std::time::{Duration, Instant};

use super::{Candidate, Scheduler};
use crate::base::ids::SiteId;

/// Round robin with a time slice.
#[derive(Debug)]
pub struct TimeQuantum {
    quantum: Duration,
    current: Option<(SiteId, Instant)>,
}

impl TimeQuantum {
    /// Slices of `quantum`.
    pub fn new(quantum: Duration) -> Self {
        TimeQuantum {
            quantum,
            current: None,
        }
    }
}

impl Scheduler for TimeQuantum {
    fn choose(&mut self, candidates: &[Candidate], now: Instant) -> Option<SiteId> {
        let find = |s: SiteId| candidates.iter().find(|c| c.site == s);
        match self.current {
            // Keep the current site while its quantum lasts and it has work, even while it
            // waits for its delay.
            Some((site, since))
                if now.duration_since(since) < self.quantum && find(site).is_some() =>
            {
                return find(site).filter(|c| c.ready).map(|c| c.site);
            }
            _ => {}
        }
        // Next site in order after the current one (wrapping), with work.
        let after = self.current.map(|(s, _)| s);
        let next = candidates
            .iter()
            .find(|c| after.is_none_or(|a| c.site > a))
            .or_else(|| candidates.first())?;
        self.current = Some((next.site, now));
        next.ready.then_some(next.site)
    }

    fn wake_at(&self) -> Option<Instant> {
        self.current.map(|(_, since)| since + self.quantum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawl::schedule::tests::cands;

    #[test]
    fn slices_of_time_in_turn() {
        let t0 = Instant::now();
        let mut q = TimeQuantum::new(Duration::from_secs(10));
        let all = cands(&[(0, true), (1, true), (2, true)]);
        assert_eq!(q.choose(&all, t0), Some(SiteId(0)));
        assert_eq!(
            q.choose(
                &cands(&[(0, false), (1, true)]),
                t0 + Duration::from_secs(1)
            ),
            None,
            "0 keeps its slice"
        );
        assert_eq!(
            q.choose(&all, t0 + Duration::from_secs(11)),
            Some(SiteId(1))
        );
        assert_eq!(
            q.choose(
                &cands(&[(0, true), (2, true)]),
                t0 + Duration::from_secs(12)
            ),
            Some(SiteId(2)),
            "1 ran out of work"
        );
        assert_eq!(
            q.choose(&all, t0 + Duration::from_secs(30)),
            Some(SiteId(0)),
            "wraps around"
        );
        assert_eq!(q.wake_at(), Some(t0 + Duration::from_secs(40)));
    }
}

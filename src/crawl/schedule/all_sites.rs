//! `AllSites`: every site with work and a free slot proceeds, in turn (round robin), so no
//! site starves and each runs as fast as its own limits allow.

use std::time::Instant;

use super::{Candidate, Scheduler};
use crate::base::ids::SiteId;

/// Round robin over the ready sites.
#[derive(Debug, Default)]
pub struct RoundRobin {
    last: Option<SiteId>,
}

impl Scheduler for RoundRobin {
    fn choose(&mut self, candidates: &[Candidate], _now: Instant) -> Option<SiteId> {
        let ready = || candidates.iter().filter(|c| c.ready).map(|c| c.site);
        let next = match self.last {
            Some(last) => ready().find(|&s| s > last).or_else(|| ready().next()),
            None => ready().next(),
        }?;
        self.last = Some(next);
        Some(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawl::schedule::tests::cands;

    #[test]
    fn takes_turns_among_ready_sites() {
        let mut r = RoundRobin::default();
        let now = Instant::now();
        let c = cands(&[(0, true), (1, false), (2, true), (5, true)]);
        let picks: Vec<_> = (0..5).map(|_| r.choose(&c, now).unwrap().0).collect();
        assert_eq!(picks, vec![0, 2, 5, 0, 2]);
        assert_eq!(r.choose(&cands(&[(1, false)]), now), None);
    }
}

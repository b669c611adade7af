//! `Sequential`: one site after another, in hosts.txt order — the paper's simplest planner.
//! The next site starts only when the current one has nothing queued or in flight.

use std::time::Instant;

use super::{Candidate, Scheduler};
use crate::base::ids::SiteId;

/// One site at a time.
#[derive(Debug, Default)]
pub struct Sequential;

impl Scheduler for Sequential {
    fn choose(&mut self, candidates: &[Candidate], _now: Instant) -> Option<SiteId> {
        // Candidates come in site order; the first is the current site. If it is waiting
        // for its delay or a free slot, everyone waits.
        let current = candidates.first()?;
        current.ready.then_some(current.site)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawl::schedule::tests::cands;

    #[test]
    fn the_first_site_until_it_is_done() {
        let now = Instant::now();
        let mut s = Sequential;
        assert_eq!(
            s.choose(&cands(&[(0, true), (1, true)]), now),
            Some(SiteId(0))
        );
        assert_eq!(
            s.choose(&cands(&[(0, false), (1, true)]), now),
            None,
            "site 0 is still busy"
        );
        assert_eq!(s.choose(&cands(&[(1, true)]), now), Some(SiteId(1)));
    }
}

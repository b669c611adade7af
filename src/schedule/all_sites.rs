//! `AllSites`: every site with work and a free slot proceeds, in turn (round robin), so no
//! site starves and each runs as fast as its own limits allow.

use super::Scheduler;
use crate::data::SiteId;

/// Round robin over the ready sites.
#[derive(Debug, Default)]
pub struct RoundRobin {
    last: Option<SiteId>,
}

impl Scheduler for RoundRobin {
    fn choose(&mut self, ready: &[SiteId]) -> SiteId {
        let next = match self.last {
            Some(last) => ready
                .iter()
                .copied()
                .find(|&s| s > last)
                .unwrap_or(ready[0]),
            None => ready[0],
        };
        self.last = Some(next);
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_turns() {
        let mut r = RoundRobin::default();
        let ready = [SiteId(0), SiteId(2), SiteId(5)];
        let picks: Vec<_> = (0..5).map(|_| r.choose(&ready).0).collect();
        assert_eq!(picks, vec![0, 2, 5, 0, 2]);
        assert_eq!(r.choose(&[SiteId(1)]).0, 1);
    }
}

//! A budget rule (`crate::bandit`) as the live crawl's scheduler. The dispatcher offers the
//! sites that may start a request now (politeness first); the rule picks one. Rewards arrive later than choices — a page is downloaded,
//! parsed and recorded before its links are known — so the scheduler declares how late:
//! at most as many fetches as there are downloaders may be chosen and not yet observed. With
//! one downloader every choice is made knowing every earlier reward, exactly as in a replay
//! of the crawl's yields; with D downloaders a choice may miss the rewards of the D − 1
//! fetches still under way.

use std::time::Instant;

use super::{Candidate, Scheduler, Yield};
use crate::bandit::{Policy, RewardKind};
use crate::ids::SiteId;

/// A budget rule scheduling a live crawl.
#[derive(Debug)]
pub struct BanditScheduler {
    policy: Box<dyn Policy>,
    reward: RewardKind,
    /// Fetches that may be chosen and not yet observed (the downloaders).
    in_flight: usize,
    arms: Vec<usize>,
}

impl BanditScheduler {
    /// Runs `policy` (whose arms are the site ids), paid by `reward`, with `downloaders`
    /// fetches under way at most.
    pub fn new(policy: Box<dyn Policy>, reward: RewardKind, downloaders: usize) -> Self {
        BanditScheduler {
            policy,
            reward,
            in_flight: downloaders.max(1),
            arms: Vec::new(),
        }
    }
}

impl Scheduler for BanditScheduler {
    fn choose(&mut self, candidates: &[Candidate], _now: Instant) -> Option<SiteId> {
        self.arms.clear();
        self.arms.extend(
            candidates
                .iter()
                .filter(|c| c.ready)
                .map(|c| c.site.0 as usize),
        );
        if self.arms.is_empty() {
            return None;
        }
        Some(SiteId(self.policy.select(&self.arms) as u32))
    }

    fn started(&mut self, site: SiteId) {
        self.policy.chosen(site.0 as usize);
    }

    fn observe(&mut self, site: SiteId, yielded: Yield) {
        let reward = match self.reward {
            RewardKind::NewExternal => yielded.new_external,
            RewardKind::AllExternal => yielded.external,
        };
        self.policy.update(site.0 as usize, f64::from(reward));
    }

    fn max_unobserved(&self) -> Option<usize> {
        Some(self.in_flight)
    }
}

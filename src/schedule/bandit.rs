//! A budget rule (`crate::bandit`) as the live crawl's scheduler. An arm is a crawl scope —
//! a site of hosts.txt, or with a multi-host filter all the hosts of its scope (SPEC §6). The
//! rule picks among every scope with a URL waiting, whether or not its sites may start a
//! request now, and the scope's ready sites take turns. When the chosen scope must wait
//! (its crawl delay has not passed, its downloads at a time are all taken), the crawl waits
//! for it rather than give the page to whichever site is free: politeness decides *when*, the
//! rule decides *which*. Otherwise, under a crawl delay, every rule would become round robin
//! (each site is ready once per delay, and the free one always gets the page).
//!
//! Rewards arrive later than choices — a page is downloaded, parsed and recorded before its
//! links are known — so the scheduler declares how late: at most as many fetches as there
//! are downloaders may be chosen and not yet observed. With one downloader every choice is
//! made knowing every earlier reward, exactly as in a replay of the crawl's yields; with D
//! downloaders a choice may miss the rewards of the D − 1 fetches still under way.

use std::collections::HashMap;
use std::time::Instant;

use super::{Candidate, Scheduler};
use crate::bandit::{Policy, RewardKind, Yield};
use crate::ids::{ScopeId, SiteId};

/// A budget rule scheduling a live crawl.
#[derive(Debug)]
pub struct BanditScheduler {
    policy: Box<dyn Policy>,
    reward: RewardKind,
    /// Fetches that may be chosen and not yet observed (the downloaders).
    in_flight: usize,
    arms: Vec<usize>,
    /// The site of each scope chosen last (a scope's sites take turns).
    last_site: HashMap<ScopeId, SiteId>,
}

impl BanditScheduler {
    /// Runs `policy` (whose arms are the scope ids), paid by `reward`, with `downloaders`
    /// fetches under way at most.
    pub fn new(policy: Box<dyn Policy>, reward: RewardKind, downloaders: usize) -> Self {
        BanditScheduler {
            policy,
            reward,
            in_flight: downloaders.max(1),
            arms: Vec::new(),
            last_site: HashMap::new(),
        }
    }
}

impl Scheduler for BanditScheduler {
    fn choose(&mut self, candidates: &[Candidate], _now: Instant) -> Option<SiteId> {
        self.arms.clear();
        self.arms.extend(
            candidates
                .iter()
                .filter(|c| c.has_work || c.ready)
                .map(|c| c.scope.0 as usize),
        );
        self.arms.sort_unstable();
        self.arms.dedup();
        let top = *self.arms.last()?;
        self.policy.grow(top + 1);
        let scope = ScopeId(self.policy.select(&self.arms) as u32);
        let mut ready = candidates
            .iter()
            .filter(|c| c.ready && c.scope == scope)
            .map(|c| c.site);
        let first = ready.clone().next()?;
        let after = self.last_site.get(&scope).copied();
        Some(
            ready
                .find(|s| after.is_some_and(|a| s.0 > a.0))
                .unwrap_or(first),
        )
    }

    fn started(&mut self, site: SiteId, scope: ScopeId) {
        self.last_site.insert(scope, site);
        self.policy.grow(scope.0 as usize + 1);
        self.policy.chosen(scope.0 as usize);
    }

    fn observe(&mut self, _site: SiteId, scope: ScopeId, yielded: Yield) {
        let reward = yielded.reward(self.reward);
        self.policy.grow(scope.0 as usize + 1);
        self.policy.update(scope.0 as usize, f64::from(reward));
    }

    fn max_unobserved(&self) -> Option<usize> {
        Some(self.in_flight)
    }
}

//! A budget rule (`crate::model::bandit`) as the live crawl's scheduler. An arm is a crawl scope —
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
//!
//! Those fetches are not ignored: the rule is asked with the pulls under way and the ones the
//! dispatcher reserved (picks waiting for their site's turn) believed to pay nothing until
//! their rewards come ([`crate::model::bandit::believer`]). With one downloader nothing is ever under
//! way when the rule chooses, so the choices are exactly a replay's.

use std::collections::HashMap;
use std::time::Instant;

use super::{Candidate, Scheduler};
use crate::base::ids::{ScopeId, SiteId};
use crate::model::bandit::believer::Believer;
use crate::model::bandit::{Policy, RewardKind, Yield};

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
    /// The pulls under way and reserved.
    believer: Believer,
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
            believer: Believer::default(),
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
        let scope = ScopeId(self.believer.select(&*self.policy, &self.arms) as u32);
        // A ready site of the scope, the sites taking turns; else one with work, for the
        // dispatcher to wait for (or reserve).
        let after = self.last_site.get(&scope).copied();
        let pick = |ok: &dyn Fn(&Candidate) -> bool| {
            let mut sites = candidates
                .iter()
                .filter(|c| c.scope == scope && ok(c))
                .map(|c| c.site);
            let first = sites.clone().next()?;
            Some(
                sites
                    .find(|s| after.is_some_and(|a| s.0 > a.0))
                    .unwrap_or(first),
            )
        };
        pick(&|c| c.ready).or_else(|| pick(&|c| c.has_work))
    }

    fn started(&mut self, site: SiteId, scope: ScopeId) {
        self.last_site.insert(scope, site);
        self.believer.started(scope.0 as usize);
        self.policy.grow(scope.0 as usize + 1);
        self.policy.chosen(scope.0 as usize);
    }

    fn reserve(&mut self, _site: SiteId, scope: ScopeId) {
        self.believer.reserve(scope.0 as usize);
    }

    fn unreserve(&mut self, _site: SiteId, scope: ScopeId) {
        self.believer.unreserve(scope.0 as usize);
    }

    fn given_back(&mut self, _site: SiteId, scope: ScopeId) {
        self.believer.settled(scope.0 as usize);
        self.policy.unchosen(scope.0 as usize);
    }

    fn observe(&mut self, _site: SiteId, scope: ScopeId, yielded: Yield) {
        let reward = f64::from(yielded.reward(self.reward));
        let arm = scope.0 as usize;
        self.believer.settled(arm);
        self.policy.grow(arm + 1);
        self.policy.update(arm, reward);
    }

    fn max_unobserved(&self) -> Option<usize> {
        Some(self.in_flight)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::bandit::guard::GuardedUcb;
    use crate::model::bandit::winsor::WinsorUcb;

    fn has_work(n: u32) -> Vec<Candidate> {
        (0..n)
            .map(|i| Candidate {
                site: SiteId(i),
                ready: true,
                has_work: true,
                scope: ScopeId(i),
            })
            .collect()
    }

    fn paid(n: u32) -> Yield {
        Yield {
            new_external: n,
            external: n,
        }
    }

    /// See: asked as it was, a rule waiting for the reward of a page under way chose that
    /// site again for every downloader (a site no one has heard from has an infinite index,
    /// and a pull under way changed nothing), and a budgeted crawl of many slow sites
    /// fetched one page at a time.
    #[test]
    fn pulls_under_way_are_believed_to_pay_nothing_until_their_rewards_come() {
        let now = Instant::now();
        for policy in [
            Box::new(WinsorUcb::new(3, 10, 5.0, 0.3)) as Box<dyn Policy>,
            Box::new(GuardedUcb::new(3, 100, (10, 5.0, 0.3), 10, 10)),
        ] {
            let mut s = BanditScheduler::new(policy, RewardKind::NewExternal, 4);
            let c = has_work(3);
            assert_eq!(s.choose(&c, now), Some(SiteId(0)));
            s.started(SiteId(0), ScopeId(0));
            assert_eq!(s.choose(&c, now), Some(SiteId(1)), "not site 0 again");
            s.reserve(SiteId(1), ScopeId(1));
            assert_eq!(
                s.choose(&c, now),
                Some(SiteId(2)),
                "nor the reserved site 1"
            );
            // Rewards in, nothing under way: the rule itself, unchanged by what was believed.
            s.unreserve(SiteId(1), ScopeId(1));
            s.observe(SiteId(0), ScopeId(0), paid(3));
            assert_eq!(s.believer.outstanding(), 0);
            assert_eq!(
                s.choose(&c, now),
                Some(SiteId(s.policy.select(&[0, 1, 2]) as u32))
            );
        }
    }
}

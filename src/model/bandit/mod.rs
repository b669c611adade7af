//! Splitting a page budget across sites (SPEC §5, the BeeBot paper): "which site gets the
//! next page" as a multi-armed bandit. Arm = site; a pull = the site's next page in
//! breadth-first order; reward = the external links that page reveals.
//!
//! The rules here are pure: no clock, no threads, no randomness that is not a function of
//! their seed and the pull count. The same [`Policy`] value decides a live crawl (through
//! `schedule::BanditScheduler`) and a replay of recorded sequences ([`replay`]), so a replay
//! of a crawl made with one downloader makes exactly the live crawl's choices.
//!
//! - [`paper`] — R1, R2 and R3 exactly as the paper writes them.
//! - [`winsor`] — `WinsorUcb`: recent yields with a site's one largest page
//!   counted at its second largest, pooled with the crawl's own.
//! - [`guard`] — `GuardedUcb` (the default until 2026-11-27): WinsorUcb, R2, R1 and R3
//!   replayed on the crawl's own pages, the one ahead followed.
//! - [`pooled`] — `PooledUcb`: recent yields pooled with the crawl's own, fading while idle.
//! - [`ucb`] — sliding-window and discounted UCB with a Poisson-shaped bonus; `DiscountedUcb`
//!   is the default, its discount from the budget and the sites ([`Params::discount`]).
//! - [`thompson`] — windowed Gamma–Poisson Thompson sampling, seeded.
//! - [`baseline`] — round robin, sequential, and time slices counted in pages.
//! - [`believer`] — choosing while rewards are on their way (a live crawl's downloaders).
//! - [`oracle`] — the exact best split of a budget over breadth-first prefixes.
//! - [`replay`] — rules run offline on recorded sequences, against the oracle.

pub mod baseline;
pub mod believer;
pub mod guard;
pub mod oracle;
pub mod paper;
pub mod pooled;
mod ranked;
pub mod replay;
pub mod thompson;
pub mod ucb;
pub mod winsor;

use std::fmt::Debug;

/// A rule that chooses which arm (site, numbered in hosts.txt order) to pull next. A pull
/// goes `select` → `chosen` → (later)
/// `update`; a continued crawl restores a rule by `chosen` + `update` of every recorded
/// pull, in order, so everything a rule remembers must change in those two.
pub trait Policy: Send + Debug {
    /// Proposes one of `arms` (those that may be pulled now, by ascending index; never
    /// empty), without changing the rule. Ties go to the lowest index, so rules are
    /// deterministic.
    fn select(&self, arms: &[usize]) -> usize;
    /// `arm` is pulled (what `select` proposed, or a recorded pull being restored).
    fn chosen(&mut self, _arm: usize) {}
    /// A pull of `arm` that was `chosen` went back unfetched and no reward will come for it
    /// (its page is retried later, or the crawl stopped): a continued crawl restores only the
    /// pulls recorded, so a rule that counts its chosen pulls takes this one back.
    fn unchosen(&mut self, _arm: usize) {}
    /// Learns the reward of one pull of `arm`. Pulls are reported in the order they were
    /// chosen.
    fn update(&mut self, arm: usize, reward: f64);
    /// There are at least `arms` arms now (a live crawl's arms are its scopes, numbered as
    /// its saved state numbers them; a rule sized for fewer grows, new arms unknown).
    fn grow(&mut self, arms: usize);
    /// Its parameters, for the console of a budgeted crawl (empty: none).
    fn parameters(&self) -> String {
        String::new()
    }
    /// A copy of the rule as it is now. A live crawl with several downloaders asks a copy
    /// what the rule would choose if the pulls under way paid what their sites paid so far
    /// (`schedule::BanditScheduler`), so that it does not choose the same site again and
    /// again while the rewards it waits for are on their way. `None`: the rule is asked as
    /// it is.
    fn snapshot(&self) -> Option<Box<dyn Policy>> {
        None
    }
    /// Makes `into` what [`Self::snapshot`] would give, in place, reusing its memory: `false`
    /// when it cannot (`into` is another kind of rule, or the rule has no snapshot), and then
    /// the caller takes a snapshot. A budgeted crawl asks a copy for every choice made while
    /// pages are under way: with thousands of sites a fresh copy of every rule's per-site
    /// tables each time (0.7 MB at 4,000 sites, for `GuardedUcb`) cost more in allocating,
    /// page faults and freeing than in copying.
    fn snapshot_over(&self, _into: &mut dyn Policy) -> bool {
        false
    }
    /// The rule as [`Any`](std::any::Any), for [`Self::snapshot_over`] to recognise a copy of
    /// its own kind (`None`: it does not copy in place).
    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        None
    }
    /// [`believer::Believer`]'s question answered without a copy: the choice among `arms` if
    /// each `(arm, pulls)` of `believed` (ascending arms) had been updated that many times
    /// with a reward of 0, in that order, after the pulls were `chosen` — exactly what a copy
    /// told so would select. `None`: the rule cannot say (the caller asks a copy). With 4,000
    /// sites a copy per choice was two tables of 32 KB made, filled and freed at every fetch.
    fn select_believing(&self, _believed: &[(usize, u32)], _arms: &[usize]) -> Option<usize> {
        None
    }
    /// A copy is done with (its choice made) and kept to be copied over again: it lets go of
    /// what it shares with the rule it was copied from, so that the rule's own lists are not
    /// held shared between choices.
    fn release(&mut self) {}
}

/// The three copy methods of a rule whose snapshot is its clone ([`Policy::snapshot`],
/// [`Policy::snapshot_over`] in place, [`Policy::as_any_mut`]), written once: put
/// `copies_by_clone!();` in the rule's `impl Policy`.
macro_rules! copies_by_clone {
    () => {
        fn snapshot(&self) -> Option<Box<dyn $crate::model::bandit::Policy>> {
            Some(Box::new(self.clone()))
        }

        fn snapshot_over(&self, into: &mut dyn $crate::model::bandit::Policy) -> bool {
            $crate::model::bandit::clone_over(self, into)
        }

        fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
            Some(self)
        }
    };
}
pub(crate) use copies_by_clone;

/// [`Policy::snapshot_over`] for a rule whose snapshot is its clone: `into`, if it is a `T`,
/// becomes `rule`'s copy by [`Clone::clone_from`] (which keeps `into`'s vectors' memory).
pub(crate) fn clone_over<T: Clone + 'static>(rule: &T, into: &mut dyn Policy) -> bool {
    match into.as_any_mut().and_then(|a| a.downcast_mut::<T>()) {
        Some(copy) => {
            copy.clone_from(rule);
            true
        }
        None => false,
    }
}

/// What one fetch yielded (SPEC §5): the external URLs it revealed. Recorded with every fetch
/// (`data`), written to yield.csv, and what the budget rules are paid.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Yield {
    /// External URLs its site's crawl had not seen before.
    pub new_external: u32,
    /// Distinct external URLs on the page (or the other site a redirect led to).
    pub external: u32,
}

impl Yield {
    /// The reward a rule is paid for it.
    pub fn reward(self, kind: RewardKind) -> u32 {
        match kind {
            RewardKind::NewExternal => self.new_external,
            RewardKind::AllExternal => self.external,
        }
    }
}

/// What rewards count (`BanditReward`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RewardKind {
    /// External URLs the crawl of that site had not seen before (the default).
    NewExternal,
    /// Every external URL on the page (the paper's X(i, j)).
    AllExternal,
}

/// The rules' parameters settings.ini sets (`[Budget]`): the live crawl's
/// `settings::BanditSettings` holds them, and every [`Params`] a rule is built with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tuning {
    /// R2's step n (`R2Step`).
    pub r2_step: usize,
    /// R3's initial pages m (`R3Initial`).
    pub r3_initial: usize,
    /// Sliding window in pages (`BanditWindow`; 0: N/K).
    pub window: usize,
    /// Discount per pull (`BanditDiscount`; 0: a memory of max(N/K, K) pulls).
    pub discount: f64,
    /// Pages of the crawl's average yield `WinsorUcb` and `PooledUcb` pool each site's
    /// estimate with (`BanditPrior`).
    pub prior_pages: f64,
    /// Exploration constant c of the UCB bonus (`BanditExploration`; 0: each rule's own,
    /// [`UCB_EXPLORATION`], [`WINSOR_EXPLORATION`] or [`POOLED_EXPLORATION`]).
    pub exploration: f64,
    /// Seed of Thompson sampling (`BanditSeed`).
    pub seed: u64,
}

/// What a rule is built with: the sites, the budget, and settings.ini's [`Tuning`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Arms (sites).
    pub arms: usize,
    /// The page budget N (`PageBudget`; 0: none, the rules plan for 100 pages a site).
    pub budget: usize,
    /// The rest, from settings.ini.
    pub tuning: Tuning,
}

impl Params {
    /// The budget the rules plan for: `PageBudget`, or 100 pages a site without one.
    pub fn planned_budget(&self) -> usize {
        if self.budget > 0 {
            self.budget
        } else {
            100 * self.arms.max(1)
        }
    }

    /// The window in pages: `BanditWindow`, or one fair share N/K (at least 2).
    pub fn window(&self) -> usize {
        if self.tuning.window > 0 {
            self.tuning.window
        } else {
            (self.planned_budget() / self.arms.max(1)).max(2)
        }
    }

    /// The exploration constant: `BanditExploration`, or `default`, the rule's own.
    pub fn exploration(&self, default: f64) -> f64 {
        if self.tuning.exploration > 0.0 {
            self.tuning.exploration
        } else {
            default
        }
    }

    /// The discount per pull: `BanditDiscount`, or 1 − 1/m for a memory of m = max(N/K, K)
    /// pulls. Discounted UCB's own choice, m = N/K (γ = 1 − K/N), forgets every site within
    /// one round of the sites once K² > N (many sites, a small budget), and the rule becomes
    /// round robin: 101 sections at N = 2,000 got 0.436 of the oracle where R3 got 0.830
    /// (`bench/yield_protocol.sh`, tuning set). PooledUcb's fade had the same floor for the
    /// same reason. Where K² ≤ N nothing changes.
    pub fn discount(&self) -> f64 {
        if self.tuning.discount > 0.0 {
            self.tuning.discount
        } else {
            let k = self.arms.max(1) as f64;
            let memory = (self.planned_budget().max(1) as f64 / k).max(k);
            (1.0 - 1.0 / memory).clamp(0.5, 0.99999)
        }
    }
}

/// The exploration constant of sliding-window and discounted UCB: c = 1, as the bound's
/// theory has it and as measured best for them (`../shared/research/bandits.md`).
pub const UCB_EXPLORATION: f64 = 1.0;

/// `PooledUcb`'s exploration constant: pooling toward the crawl's yield already explores, so
/// the bound needs less; 0.2 was best on every data set of bench/yields.sh (0.803 / 0.855 /
/// 0.905 of the oracle at N = 500 / 2,000 / 10,000 against 0.796 / 0.854 / 0.901 with c = 1).
pub const POOLED_EXPLORATION: f64 = 0.2;

/// `WinsorUcb`'s exploration constant, chosen on the tuning sets of bench/yield_protocol.sh
/// (0.2 to 0.5 move its worst tuning cell by less than 0.03; 0.3 was best on the documentation
/// counted with every external link, where a smaller bound stops looking too early).
pub const WINSOR_EXPLORATION: f64 = 0.3;

/// Makes a rule for a crawl or replay with these parameters (the registry keeps one per
/// rule name, `Registry::replay_rules`).
pub type PolicyCtor = std::sync::Arc<dyn Fn(&Params) -> Box<dyn Policy> + Send + Sync>;

/// The lowest-index arm with the largest `score` (NaN never wins).
pub(crate) fn argmax(arms: &[usize], mut score: impl FnMut(usize) -> f64) -> usize {
    let mut best = arms[0];
    let mut best_score = f64::NEG_INFINITY;
    for &a in arms {
        let s = score(a);
        if s > best_score {
            best_score = s;
            best = a;
        }
    }
    best
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn discounted_ucb_remembers_a_fair_share_and_never_less_than_a_round_of_the_sites() {
        let params = |arms, budget, discount| Params {
            arms,
            budget,
            tuning: Tuning {
                r2_step: 10,
                r3_initial: 10,
                window: 0,
                discount,
                prior_pages: 5.0,
                exploration: 0.0,
                seed: 1,
            },
        };
        // K = 10, N = 10,000: K² ≤ N, the textbook 1 − K/N.
        assert!((params(10, 10_000, 0.0).discount() - 0.999).abs() < 1e-12);
        // 101 sections at N = 2,000: a memory of 101 pulls, not 20.
        assert!((params(101, 2_000, 0.0).discount() - (1.0 - 1.0 / 101.0)).abs() < 1e-12);
        // BanditDiscount set: as set.
        assert_eq!(params(101, 2_000, 0.9).discount(), 0.9);
    }

    /// Runs a policy over fixed per-arm reward sequences for `budget` pulls; the pages each
    /// arm got and the total.
    pub(crate) fn run(p: &mut dyn Policy, seqs: &[Vec<f64>], budget: usize) -> (Vec<usize>, f64) {
        let mut taken = vec![0; seqs.len()];
        let mut total = 0.0;
        for _ in 0..budget {
            let arms: Vec<usize> = (0..seqs.len())
                .filter(|&i| taken[i] < seqs[i].len())
                .collect();
            if arms.is_empty() {
                break;
            }
            let i = p.select(&arms);
            p.chosen(i);
            let r = seqs[i][taken[i]];
            taken[i] += 1;
            total += r;
            p.update(i, r);
        }
        (taken, total)
    }
}

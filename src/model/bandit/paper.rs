//! The BeeBot paper's three rules (Pechnikov & Chernobrovkin 2012, section 3), as written:
//!
//! - **R1**: the first [N/K] pages of every site; the rest of the budget to the site whose
//!   first [N/K] pages paid most.
//! - **R2** ("Gittins index"): n pages of every site; then, repeatedly, n pages of the site
//!   with the best mean so far.
//! - **R3** (UCB1): m pages of every site; then one page at a time of the site maximising
//!   X̄(i)/Xmax + sqrt(2 ln n / t(i)), Xmax the largest single-page reward seen, n the pages
//!   crawled so far.
//!
//! Where the paper is silent (docs/budget.md): [·] rounds to the nearest integer;
//! the first phase of each rule goes through the sites in turns (the paper's "on each site";
//! the total is the same in any order, and turns keep the live crawl polite); a site that runs
//! out of pages leaves the arm set and its share goes on to the rule's next choice; ties go to
//! the lowest site number; with Xmax = 0 the mean term of R3 is 0.

use super::{Policy, argmax};

/// Per-arm sums.
#[derive(Debug, Default)]
struct Stats {
    pulls: Vec<usize>,
    sums: Vec<f64>,
    /// The fewest pulls of any arm, and the lowest arm with that many: the next in turn
    /// whenever it may be pulled. A rule in its first phase over thousands of sites looked
    /// through all of them for every page (and `GuardedUcb` asks R1, R2 and R3 for every page
    /// it learns of, `bandit::believer` for every page under way too).
    floor: usize,
    first_at_floor: usize,
}

impl Clone for Stats {
    fn clone(&self) -> Self {
        Stats {
            pulls: self.pulls.clone(),
            sums: self.sums.clone(),
            floor: self.floor,
            first_at_floor: self.first_at_floor,
        }
    }

    /// In place, keeping the vectors' memory (see [`Policy::snapshot_over`]).
    fn clone_from(&mut self, from: &Self) {
        self.pulls.clone_from(&from.pulls);
        self.sums.clone_from(&from.sums);
        self.floor = from.floor;
        self.first_at_floor = from.first_at_floor;
    }
}

impl Stats {
    fn new(k: usize) -> Self {
        Stats {
            pulls: vec![0; k],
            sums: vec![0.0; k],
            floor: 0,
            first_at_floor: 0,
        }
    }

    fn grow(&mut self, arms: usize) {
        let had = self.pulls.len();
        if had < arms {
            self.pulls.resize(arms, 0);
            self.sums.resize(arms, 0.0);
            // The new arms have no pull: the floor is 0, at the first of them unless an
            // older arm is there already.
            if had == 0 || self.floor > 0 {
                self.floor = 0;
                self.first_at_floor = had;
            }
        }
    }

    fn add(&mut self, arm: usize, reward: f64) {
        self.pulls[arm] += 1;
        self.sums[arm] += reward;
        if arm == self.first_at_floor {
            let next = (arm + 1..self.pulls.len()).find(|&a| self.pulls[a] == self.floor);
            match next {
                Some(a) => self.first_at_floor = a,
                // Every arm is past the floor: it rises (once per round of the arms).
                None => {
                    self.floor = self.pulls.iter().copied().min().unwrap_or(0);
                    self.first_at_floor = self
                        .pulls
                        .iter()
                        .position(|&p| p == self.floor)
                        .unwrap_or(0);
                }
            }
        }
    }

    fn mean(&self, arm: usize) -> f64 {
        if self.pulls[arm] == 0 {
            0.0
        } else {
            self.sums[arm] / self.pulls[arm] as f64
        }
    }

    /// The arm with the fewest pulls below `quota`, if any (turns through the sites); ties go
    /// to the lowest arm. `arms` ascends.
    fn next_in_turn(&self, arms: &[usize], quota: usize) -> Option<usize> {
        if self.floor >= quota {
            return None;
        }
        // No arm has fewer pulls, and none lower has as few.
        if arms.binary_search(&self.first_at_floor).is_ok() {
            return Some(self.first_at_floor);
        }
        let mut best: Option<(usize, usize)> = None;
        for &a in arms {
            let p = self.pulls[a];
            if p < quota && best.is_none_or(|(fewest, _)| p < fewest) {
                best = Some((p, a));
            }
        }
        best.map(|(_, a)| a)
    }
}

/// R1, the trivial rule.
#[derive(Debug)]
pub struct R1 {
    quota: usize,
    stats: Stats,
    /// Sum of each site's first `quota` rewards.
    first: Vec<f64>,
}

impl Clone for R1 {
    fn clone(&self) -> Self {
        R1 {
            quota: self.quota,
            stats: self.stats.clone(),
            first: self.first.clone(),
        }
    }

    fn clone_from(&mut self, from: &Self) {
        self.quota = from.quota;
        self.stats.clone_from(&from.stats);
        self.first.clone_from(&from.first);
    }
}

impl R1 {
    /// For `k` sites and a budget of `budget` pages.
    pub fn new(k: usize, budget: usize) -> Self {
        let quota = ((budget as f64 / k.max(1) as f64).round() as usize).max(1);
        R1 {
            quota,
            stats: Stats::new(k),
            first: vec![0.0; k],
        }
    }
}

impl Policy for R1 {
    super::copies_by_clone!();

    fn parameters(&self) -> String {
        format!(
            "{} pages of each site first, then the best first pages",
            self.quota
        )
    }

    fn select(&self, arms: &[usize]) -> usize {
        if let Some(i) = self.stats.next_in_turn(arms, self.quota) {
            return i;
        }
        argmax(arms, |a| self.first[a])
    }

    fn grow(&mut self, arms: usize) {
        self.stats.grow(arms);
        if self.first.len() < arms {
            self.first.resize(arms, 0.0);
        }
    }

    fn update(&mut self, arm: usize, reward: f64) {
        if self.stats.pulls[arm] < self.quota {
            self.first[arm] += reward;
        }
        self.stats.add(arm, reward);
    }
}

/// R2, the "Gittins index" rule with step n.
#[derive(Debug)]
pub struct R2 {
    step: usize,
    stats: Stats,
    /// The site of the current batch of n pages, and pages left in it.
    batch: Option<(usize, usize)>,
}

impl Clone for R2 {
    fn clone(&self) -> Self {
        R2 {
            step: self.step,
            stats: self.stats.clone(),
            batch: self.batch,
        }
    }

    fn clone_from(&mut self, from: &Self) {
        self.step = from.step;
        self.stats.clone_from(&from.stats);
        self.batch = from.batch;
    }
}

impl R2 {
    /// For `k` sites with step `step`.
    pub fn new(k: usize, step: usize) -> Self {
        R2 {
            step,
            stats: Stats::new(k),
            batch: None,
        }
    }
}

impl Policy for R2 {
    super::copies_by_clone!();

    fn parameters(&self) -> String {
        format!("batches of {} pages", self.step)
    }

    fn select(&self, arms: &[usize]) -> usize {
        if let Some(i) = self.stats.next_in_turn(arms, self.step) {
            return i;
        }
        if let Some((site, left)) = self.batch
            && left > 0
            && arms.contains(&site)
        {
            return site;
        }
        argmax(arms, |a| self.stats.mean(a))
    }

    fn chosen(&mut self, arm: usize) {
        let continues = self
            .batch
            .is_some_and(|(site, left)| site == arm && left > 0);
        if self.stats.pulls[arm] >= self.step && !continues {
            // A new batch of n pages of this site.
            self.batch = Some((arm, self.step));
        }
    }

    fn grow(&mut self, arms: usize) {
        self.stats.grow(arms);
    }

    fn update(&mut self, arm: usize, reward: f64) {
        if let Some((site, left)) = &mut self.batch
            && *site == arm
        {
            *left = left.saturating_sub(1);
        }
        self.stats.add(arm, reward);
    }
}

/// R3, UCB1 with the paper's normalisation by Xmax, after m pages of every site.
#[derive(Debug)]
pub struct R3 {
    initial: usize,
    stats: Stats,
    x_max: f64,
    total: usize,
}

impl Clone for R3 {
    fn clone(&self) -> Self {
        R3 {
            initial: self.initial,
            stats: self.stats.clone(),
            x_max: self.x_max,
            total: self.total,
        }
    }

    fn clone_from(&mut self, from: &Self) {
        self.initial = from.initial;
        self.stats.clone_from(&from.stats);
        self.x_max = from.x_max;
        self.total = from.total;
    }
}

impl R3 {
    /// For `k` sites with `initial` pages of each first.
    pub fn new(k: usize, initial: usize) -> Self {
        R3 {
            initial,
            stats: Stats::new(k),
            x_max: 0.0,
            total: 0,
        }
    }
}

impl Policy for R3 {
    super::copies_by_clone!();

    fn parameters(&self) -> String {
        format!("{} pages of each site first", self.initial)
    }

    fn select(&self, arms: &[usize]) -> usize {
        if let Some(i) = self.stats.next_in_turn(arms, self.initial) {
            return i;
        }
        let ln_n = (self.total.max(1) as f64).ln();
        argmax(arms, |a| {
            let t = self.stats.pulls[a].max(1) as f64;
            let mean = if self.x_max > 0.0 {
                self.stats.mean(a) / self.x_max
            } else {
                0.0
            };
            mean + (2.0 * ln_n / t).sqrt()
        })
    }

    fn grow(&mut self, arms: usize) {
        self.stats.grow(arms);
    }

    fn update(&mut self, arm: usize, reward: f64) {
        self.stats.add(arm, reward);
        self.x_max = self.x_max.max(reward);
        self.total += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::run;
    use super::*;

    /// A small deterministic generator for the tests' random cases.
    fn lcg(state: &mut u64) -> usize {
        *state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (*state >> 33) as usize
    }

    #[test]
    fn the_next_in_turn_is_the_fewest_pulled_lowest_site_however_asked() {
        let naive = |s: &Stats, arms: &[usize], quota: usize| {
            arms.iter()
                .copied()
                .filter(|&a| s.pulls[a] < quota)
                .min_by_key(|&a| (s.pulls[a], a))
        };
        let mut rng = 7u64;
        let mut s = Stats::new(5);
        for step in 0..3_000 {
            if step % 700 == 0 {
                s.grow(s.pulls.len() + 3);
            }
            let k = s.pulls.len();
            // Every site offered, or a random part of them.
            let arms: Vec<usize> = if step % 3 == 0 {
                (0..k).collect()
            } else {
                (0..k)
                    .filter(|_| !lcg(&mut rng).is_multiple_of(3))
                    .collect()
            };
            for quota in [1, 3, 10, usize::MAX] {
                assert_eq!(
                    s.next_in_turn(&arms, quota),
                    naive(&s, &arms, quota),
                    "step {step}"
                );
            }
            // Pull the site in turn, or now and then another.
            let a = match naive(&s, &(0..k).collect::<Vec<_>>(), usize::MAX) {
                Some(a) if step % 5 != 0 => a,
                _ => lcg(&mut rng) % k,
            };
            s.add(a, 1.0);
        }
    }

    /// Three sites' reward sequences for the hand-computed checks.
    fn seqs() -> Vec<Vec<f64>> {
        vec![
            vec![1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            vec![0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            vec![0.0, 0.0, 5.0, 1.0, 1.0, 1.0, 1.0, 1.0],
        ]
    }

    #[test]
    fn r1_by_hand() {
        // N = 10, K = 3: [10/3] = 3 pages each (9), the 10th to the best first-3 sum:
        // site 0: 1, site 1: 2, site 2: 5 -> site 2 gets its 4th page (reward 1).
        let (taken, total) = run(&mut R1::new(3, 10), &seqs(), 10);
        assert_eq!(taken, vec![3, 3, 4]);
        assert_eq!(total, 1.0 + 2.0 + 5.0 + 1.0);
    }

    #[test]
    fn r2_by_hand() {
        // n = 2: first 2 pages each: sums 1, 2, 0 -> means 0.5, 1, 0. Site 1 gets 2 pages
        // (0, 0): mean 2/4 = 0.5. Then site 0 (0.5, lower index than site 1's 0.5) gets 2:
        // mean 1/4. Then site 1 (0.5) gets 2 more -> 10 pages: site 0 4, site 1 6, site 2 2.
        let (taken, total) = run(&mut R2::new(3, 2), &seqs(), 12);
        assert_eq!(taken, vec![4, 6, 2]);
        assert_eq!(
            total, 3.0,
            "site 2's 5 is never found: R2 starves a late starter"
        );
    }

    #[test]
    fn r3_by_hand() {
        // m = 1: one page each: rewards 1, 0, 0; Xmax = 1, n = 3.
        // Indices: 1/1 + sqrt(2 ln 3 / 1) for site 0, 0 + the same for sites 1 and 2 -> 0.
        // Site 0 (0 reward): n = 4, means 0.5, 0, 0, t = 2, 1, 1:
        // 0.5 + sqrt(2 ln4 / 2) = 0.5 + 1.177 = 1.677; sites 1, 2: sqrt(2 ln 4) = 1.665 -> 0.
        let mut p = R3::new(3, 1);
        let (taken, _) = run(&mut p, &seqs(), 5);
        assert_eq!(taken, vec![3, 1, 1]);
        // n = 5: site 0: 1/3 + sqrt(2 ln5 / 3) = 0.333 + 1.036 = 1.369;
        // sites 1, 2: sqrt(2 ln 5) = 1.794 -> site 1.
        assert_eq!(p.select(&[0, 1, 2]), 1);
    }

    #[test]
    fn r3_with_no_reward_at_all_is_pure_exploration() {
        let zeros = vec![vec![0.0; 10]; 3];
        let (taken, total) = run(&mut R3::new(3, 1), &zeros, 9);
        assert_eq!((taken, total), (vec![3, 3, 3], 0.0));
    }
}

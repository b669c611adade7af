//! `WinsorUcb`, the default budget rule before `GuardedUcb` (which runs it beside the paper's
//! rules and follows the one ahead; `DiscountedUcb` is the default now): a site's recent yield with its one largest page
//! counted at the second largest, pooled with the crawl's own yield, under a Poisson-shaped
//! upper bound.
//!
//! Why each part (`bench/yield_protocol.sh` chose it on its tuning sets; docs/budget.md):
//! - **A burst counts once a second one confirms it** (winsorising: the largest reward a site
//!   has paid is counted at its second largest). A section's "all items" page pays 3,000
//!   links once and the pages after it pay one each; a home page carries the whole
//!   navigation once. Counted in full, one such page keeps a site's mean above every other
//!   site for hundreds of pages (the rules that lost to round robin on the documentation
//!   split into sections lost there). A site that keeps paying has a second large page
//!   soon, and from then on its bursts count; one page of 3,000 alone says little about the
//!   next page.
//! - **Recent, in the site's own pages.** A site's yield rots as *that site* is crawled
//!   (footers are new once, hubs sit near the root), so its statistics decay by 1 − 1/w per
//!   page of the site, w = `BanditWindow` (one fair share N/K by default). A site left alone
//!   keeps what it knew: nothing changed there.
//! - **Pooled toward the crawl's exchange rate.** A site's estimate counts q = `BanditPrior`
//!   extra pages paying what the whole crawl has paid per page so far (bursts included),
//!   so a site known by a few pages is worth another look while the crawl finds links, and
//!   not when most sites are barren.
//! - **A bound on the scale of link counts**, mean + sqrt(2·mean·L/n) + L/n with
//!   L = c·ln t (the Poisson form of KL-UCB), never divided by a largest reward.

use super::Policy;
use super::argmax;
use super::pooled::Pool;
use super::ranked::Ranked;

/// A site's winsorised recent yield pooled with the crawl's (see the module documentation).
#[derive(Debug)]
pub struct WinsorUcb {
    pool: Pool,
    sites: Vec<SiteStats>,
    /// Every site below it has been pulled: a site never pulled has an infinite index, so the
    /// first such site offered is the choice, found without scoring thousands of others.
    first_unpulled: usize,
    /// The pulled sites by pulls and winsorised sum: the best index without scoring them all.
    ranked: Ranked,
}

/// What the rule knows of one site.
#[derive(Debug, Clone, Copy, Default)]
struct SiteStats {
    /// Decayed reward sum and page count.
    sum: f64,
    count: f64,
    /// Pages pulled.
    pulls: u64,
    /// The largest reward, the pull (0-based, of this site) that paid it, and the second
    /// largest reward.
    largest: f64,
    largest_at: u64,
    second: f64,
    /// The decayed sum with the largest reward counted at the second largest: what the index
    /// scores. It changes only when the site is pulled, so it is made then, not at every
    /// choice for every site (`powi` was a sixth of a choice over thousands of sites).
    winsorised: f64,
}

impl Clone for WinsorUcb {
    fn clone(&self) -> Self {
        WinsorUcb {
            pool: self.pool.clone(),
            sites: self.sites.clone(),
            first_unpulled: self.first_unpulled,
            ranked: self.ranked.clone(),
        }
    }

    /// In place, keeping the sites' table's memory (see [`Policy::snapshot_over`]).
    fn clone_from(&mut self, from: &Self) {
        self.pool = from.pool.clone();
        self.sites.clone_from(&from.sites);
        self.first_unpulled = from.first_unpulled;
        self.ranked.clone_from(&from.ranked);
    }
}

impl WinsorUcb {
    /// For `k` sites, a window of `window` pages, `prior_pages` pages of pooling and
    /// exploration constant `exploration`.
    pub fn new(k: usize, window: usize, prior_pages: f64, exploration: f64) -> Self {
        WinsorUcb {
            pool: Pool::new(window, prior_pages, exploration),
            sites: vec![SiteStats::default(); k],
            first_unpulled: 0,
            ranked: Ranked::default(),
        }
    }

    /// The index of `arm` (infinite for a site never pulled) when the crawl pays `rate` a
    /// page.
    #[cfg(test)]
    fn index(&self, arm: usize, rate: f64) -> f64 {
        self.index_with(arm, rate, self.pool.log_term())
    }

    /// A site's index (its estimate plus its bonus) with the crawl's exploration term `l`
    /// given (one for every site).
    fn index_with(&self, arm: usize, rate: f64, l: f64) -> f64 {
        let s = &self.sites[arm];
        if s.pulls == 0 {
            return f64::INFINITY;
        }
        self.pool
            .bound_with(s.winsorised.max(0.0), s.count, rate, l)
    }
}

impl Policy for WinsorUcb {
    super::copies_by_clone!();

    fn parameters(&self) -> String {
        format!(
            "{}, a site's largest page counted at its second largest",
            self.pool.describe()
        )
    }

    fn select(&self, arms: &[usize]) -> usize {
        // `argmax` would keep the first infinite index (ties go to the lowest arm).
        let from = arms.partition_point(|&a| a < self.first_unpulled);
        if let Some(&a) = arms[from..].iter().find(|&&a| self.sites[a].pulls == 0) {
            return a;
        }
        let (rate, l) = (self.pool.rate(), self.pool.log_term());
        // Every site offered has been pulled. Many of them: one scored per group of equal
        // pulls (`Ranked`); a few of many pulled: scored each (finding them in the groups
        // would cost more). The same choice either way.
        if arms.len() >= 64 && arms.len() * 4 >= self.ranked.len() {
            return self
                .ranked
                .argmax(arms, |a| self.index_with(a, rate, l))
                .unwrap_or(arms[0]);
        }
        argmax(arms, |a| self.index_with(a, rate, l))
    }

    fn grow(&mut self, arms: usize) {
        if self.sites.len() < arms {
            self.sites.resize(arms, SiteStats::default());
        }
    }

    fn update(&mut self, arm: usize, reward: f64) {
        let s = &mut self.sites[arm];
        self.ranked.remove(arm, s.pulls, s.winsorised);
        let keep = self.pool.keep;
        s.sum = keep * s.sum + reward;
        s.count = keep * s.count + 1.0;
        if reward > s.largest {
            s.second = s.largest;
            s.largest = reward;
            s.largest_at = s.pulls;
        } else if reward > s.second {
            s.second = reward;
        }
        s.pulls += 1;
        // The largest reward's weight in the decayed sum is keep^(pages since it).
        let age = (s.pulls - 1 - s.largest_at).min(i32::MAX as u64) as i32;
        s.winsorised = s.sum - keep.powi(age) * (s.largest - s.second);
        self.ranked.insert(arm, s.pulls, s.winsorised);
        self.pool.record(reward);
        if arm == self.first_unpulled {
            self.first_unpulled = (arm + 1..self.sites.len())
                .find(|&a| self.sites[a].pulls == 0)
                .unwrap_or(self.sites.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::run;
    use super::*;

    /// A fixed stream of pseudo-random numbers (a linear congruential generator).
    fn numbers(mut state: u64) -> impl FnMut() -> usize {
        move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) as usize
        }
    }

    #[test]
    fn a_site_never_pulled_is_chosen_as_the_scores_would_choose_it() {
        let mut p = WinsorUcb::new(40, 10, 5.0, 0.3);
        let mut next = numbers(11u64);
        for step in 0..400 {
            if step == 200 {
                p.grow(50);
            }
            let k = p.sites.len();
            let arms: Vec<usize> = (0..k).filter(|_| !next().is_multiple_of(4)).collect();
            if arms.is_empty() {
                continue;
            }
            let rate = p.pool.rate();
            assert_eq!(
                p.select(&arms),
                argmax(&arms, |a| p.index(a, rate)),
                "step {step}"
            );
            // Mostly the rule's own choice, sometimes any site.
            let a = if step % 3 == 0 {
                next() % k
            } else {
                p.select(&arms)
            };
            p.update(a, (next() % 5) as f64);
        }
    }

    #[test]
    fn the_choice_among_many_sites_is_the_first_best_index_as_a_scan_finds_it() {
        // 600 sites, rewards mostly 0 (many sites share pulls and sums: ties everywhere),
        // offered in random subsets, dense and sparse: the grouped choice (`Ranked`) is the
        // plain scan's.
        let mut p = WinsorUcb::new(600, 3, 5.0, 0.3);
        let mut next = numbers(5u64);
        for a in 0..600 {
            p.update(a, [0.0, 0.0, 0.0, 1.0, 7.0][next() % 5]);
        }
        for step in 0..4000 {
            let keep = [2, 3, 40][step % 3];
            let arms: Vec<usize> = (0..600).filter(|_| !next().is_multiple_of(keep)).collect();
            let rate = p.pool.rate();
            let chosen = p.select(&arms);
            assert_eq!(chosen, argmax(&arms, |a| p.index(a, rate)), "step {step}");
            let a = if step % 2 == 0 { chosen } else { next() % 600 };
            p.update(a, [0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 40.0][next() % 7]);
        }
        // A copy made over another chooses as the rule.
        let mut copy = WinsorUcb::new(1, 3, 5.0, 0.3);
        copy.clone_from(&p);
        let arms: Vec<usize> = (0..600).collect();
        assert_eq!(copy.select(&arms), p.select(&arms));
    }

    #[test]
    fn the_index_counts_the_largest_page_at_the_second_largest() {
        let mut p = WinsorUcb::new(2, 4, 2.0, 1.0);
        p.update(0, 1.0);
        p.update(0, 9.0);
        p.update(0, 3.0);
        p.update(1, 0.0);
        // keep = 3/4. Site 0: sum 0.75²·1 + 0.75·9 + 3 = 10.3125, count 0.5625 + 0.75 + 1;
        // its 9 (one page ago) counts as 3: minus 0.75·6 = 4.5 -> 5.8125. Crawl rate 13/4.
        let (sum, n) = (10.3125 - 4.5, 2.3125 + 2.0);
        let mean = (sum + 2.0 * 3.25) / n;
        let l = 4f64.ln();
        let want = mean + (2.0 * mean * l / n).sqrt() + l / n;
        assert!((p.index(0, 3.25) - want).abs() < 1e-12);
        assert_eq!(p.select(&[0, 1]), 0);
    }

    #[test]
    fn one_huge_page_does_not_hold_the_rule() {
        // Site 0's first page lists 3,000 links, then each page pays 1 (a section's index);
        // site 1 pays 4 a page. Counted in full, the 3,000 keeps site 0's mean above 4 for
        // most of its window (PooledUcb, which counts it, stays there).
        let mut burst = vec![3000.0];
        burst.extend(vec![1.0; 400]);
        let seqs = vec![burst, vec![4.0; 400]];
        let (taken, total) = run(&mut WinsorUcb::new(2, 100, 5.0, 0.3), &seqs, 200);
        assert!(taken[0] < 40, "{taken:?}");
        assert!(total > 3000.0 + 4.0 * 150.0, "{total}");
        let pooled = super::super::pooled::PooledUcb::new(2, 100, 5.0, 0.3);
        let (taken, _) = run(&mut pooled.clone(), &seqs, 200);
        assert!(
            taken[0] > 100,
            "the same rule counting the burst: {taken:?}"
        );
    }

    #[test]
    fn a_site_that_keeps_paying_large_pages_keeps_the_budget() {
        const PERIOD: usize = 3;
        // Site 0 pays a link list of 50 every fifth page; site 1 pays 2 a page. Site 0 is
        // worth 10 a page: once its second list is seen, it is crawled.
        let list: Vec<f64> = (0..400)
            .map(|i| if i % PERIOD == 0 { 50.0 } else { 0.0 })
            .collect();
        let seqs = vec![list, vec![2.0; 400]];
        let (taken, total) = run(&mut WinsorUcb::new(2, 100, 5.0, 0.3), &seqs, 200);
        eprintln!("list {taken:?} {total}");
        assert!(taken[0] > 150, "{taken:?}");
        assert!(total > 0.8 * 10.0 * 200.0, "{total}");
    }

    #[test]
    fn it_moves_on_when_a_site_rots() {
        // Site 0: 20 pages of 5, then nothing; site 1: 1 a page.
        let mut rotting = vec![5.0; 20];
        rotting.extend(vec![0.0; 200]);
        let seqs = vec![rotting, vec![1.0; 220]];
        let (taken, total) = run(&mut WinsorUcb::new(2, 10, 5.0, 0.3), &seqs, 200);
        assert!(taken[0] < 60, "{taken:?}");
        assert!(total > 100.0 + 150.0 * 0.9, "{total}");
    }

    #[test]
    fn a_rule_restored_from_its_pulls_chooses_as_the_original() {
        let seqs = vec![
            vec![3.0, 0.0, 0.0, 7.0, 1.0, 0.0, 2.0, 0.0],
            vec![0.0, 5.0, 5.0, 0.0, 0.0, 1.0, 0.0, 0.0],
            vec![1.0; 8],
        ];
        let mut a = WinsorUcb::new(3, 4, 5.0, 0.3);
        let (taken, _) = run(&mut a, &seqs, 12);
        let mut b = WinsorUcb::new(1, 4, 5.0, 0.3);
        b.grow(3);
        for (arm, &t) in taken.iter().enumerate() {
            for &r in &seqs[arm][..t] {
                b.chosen(arm);
                b.update(arm, r);
            }
        }
        // Per-site statistics do not depend on how pulls of different sites interleave.
        for arm in 0..3 {
            assert!((a.index(arm, 1.0) - b.index(arm, 1.0)).abs() < 1e-9);
        }
    }
}

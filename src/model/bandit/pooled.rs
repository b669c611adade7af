//! `PooledUcb`, the default budget rule before `WinsorUcb` (which keeps its pooling and bound,
//! both built on `Pool`): a site's recent yield, pooled with what the whole crawl yields per page,
//! under a Poisson-shaped upper bound.
//!
//! Why each part (measured with `bench/yields.sh`; docs/budget.md):
//! - **Recent, in the site's own pages.** A site's yield rots as *that site* is crawled
//!   (footers are new once, hubs sit near the root), so its statistics decay by 1 − 1/w per
//!   page of the site, w = `BanditWindow` (one fair share N/K by default).
//! - **Fading while idle.** Link lists hide a few pages deeper than a first look goes (a
//!   crate's index pays nothing, its item pages do), so what a rule knows about a site it
//!   left fades with every page fetched elsewhere, over max(w, K) pages: a site left alone
//!   long enough is looked at again. This is discounted UCB's strength, without its
//!   weakness: with many sites and a small budget, a fade over N/K pulls forgets every site
//!   within one round and degenerates into round robin.
//! - **Pooled toward the crawl's exchange rate.** A site's estimate counts q = `BanditPrior`
//!   extra pages paying what the crawl has paid per page so far. Where link lists are common,
//!   little-known sites are worth a look; where most sites are barren, they are not — the
//!   data say which, not a constant. A site's few pages alone are no estimate under heavy
//!   tails: one page of 0 says little, one page of 600 says little more.
//! - **A bound on the scale of link counts**, mean + sqrt(2·mean·L/n) + L/n with
//!   L = c·ln t (the Poisson form of KL-UCB), never divided by a largest reward: it keeps a
//!   site whose one page paid well in play without letting one burst decide for a thousand
//!   pages, and it is what breaks a tie between a steady site and sites that all started
//!   with nothing.

use super::Policy;
use super::argmax;
use super::ucb::{log_term, poisson_ucb_with};

/// What `PooledUcb` and `WinsorUcb` share: the per-page decay of a site's own statistics,
/// the crawl's yield each site's estimate is pooled with, and the Poisson-shaped bound.
#[derive(Debug, Clone)]
pub(crate) struct Pool {
    /// Per-page decay of a site's own statistics, 1 − 1/w.
    pub(crate) keep: f64,
    /// Pages of the crawl's average yield each estimate is pooled with.
    prior_pages: f64,
    exploration: f64,
    /// Reward and pulls of the whole crawl.
    reward: f64,
    pub(crate) total: u64,
}

impl Pool {
    /// A memory of `window` pages, `prior_pages` pages of pooling, exploration constant
    /// `exploration`.
    pub(crate) fn new(window: usize, prior_pages: f64, exploration: f64) -> Self {
        Pool {
            keep: 1.0 - 1.0 / window.max(2) as f64,
            prior_pages: prior_pages.max(0.0),
            exploration,
            reward: 0.0,
            total: 0,
        }
    }

    /// What the crawl has paid per page so far.
    pub(crate) fn rate(&self) -> f64 {
        if self.total > 0 {
            self.reward / self.total as f64
        } else {
            0.0
        }
    }

    /// The bound of a site whose own (decayed) reward sum and page count are `sum` and
    /// `count`, pooled with `prior_pages` pages paying `rate`.
    pub(crate) fn bound(&self, sum: f64, count: f64, rate: f64) -> f64 {
        self.bound_with(sum, count, rate, self.log_term())
    }

    /// The exploration term of [`Self::bound`] now, the same for every site.
    pub(crate) fn log_term(&self) -> f64 {
        log_term(self.total as f64, self.exploration)
    }

    /// [`Self::bound`] with its exploration term `l` ([`Self::log_term`]) given.
    pub(crate) fn bound_with(&self, sum: f64, count: f64, rate: f64, l: f64) -> f64 {
        let n = count + self.prior_pages;
        let mean = (sum + self.prior_pages * rate) / n;
        poisson_ucb_with(mean, n, l)
    }

    /// A pull of the crawl paid `reward`.
    pub(crate) fn record(&mut self, reward: f64) {
        self.reward += reward;
        self.total += 1;
    }

    /// The parameters, for the console.
    pub(crate) fn describe(&self) -> String {
        format!(
            "memory {:.0} pages, prior {} pages, exploration {}",
            1.0 / (1.0 - self.keep),
            self.prior_pages,
            self.exploration
        )
    }
}

/// The default budget rule before `WinsorUcb` (see the module documentation).
#[derive(Debug, Clone)]
pub struct PooledUcb {
    pool: Pool,
    /// Pages fetched elsewhere over which a site's statistics fade by 1/e.
    idle_memory: f64,
    /// Per site: decayed reward sum and page count, and the crawl's pull count when it was
    /// last pulled.
    sums: Vec<f64>,
    counts: Vec<f64>,
    pulls: Vec<u64>,
    last: Vec<u64>,
}

impl PooledUcb {
    /// For `k` sites, a window of `window` pages, `prior_pages` pages of pooling and
    /// exploration constant `exploration`.
    pub fn new(k: usize, window: usize, prior_pages: f64, exploration: f64) -> Self {
        PooledUcb {
            pool: Pool::new(window, prior_pages, exploration),
            idle_memory: (window.max(2) as f64).max(k as f64),
            sums: vec![0.0; k],
            counts: vec![0.0; k],
            pulls: vec![0; k],
            last: vec![0; k],
        }
    }

    /// The index of `arm` (infinite for a site never pulled).
    fn index(&self, arm: usize, rate: f64) -> f64 {
        if self.pulls[arm] == 0 {
            return f64::INFINITY;
        }
        let idle = (self.pool.total - self.last[arm]) as f64;
        let fade = (-idle / self.idle_memory).exp();
        self.pool
            .bound(self.sums[arm] * fade, self.counts[arm] * fade, rate)
    }
}

impl Policy for PooledUcb {
    fn snapshot(&self) -> Option<Box<dyn Policy>> {
        Some(Box::new(self.clone()))
    }

    fn parameters(&self) -> String {
        self.pool.describe()
    }

    fn select(&self, arms: &[usize]) -> usize {
        let rate = self.pool.rate();
        argmax(arms, |a| self.index(a, rate))
    }

    fn grow(&mut self, arms: usize) {
        if self.sums.len() < arms {
            self.sums.resize(arms, 0.0);
            self.counts.resize(arms, 0.0);
            self.pulls.resize(arms, 0);
            self.last.resize(arms, 0);
        }
    }

    fn update(&mut self, arm: usize, reward: f64) {
        let keep = self.pool.keep;
        self.sums[arm] = keep * self.sums[arm] + reward;
        self.counts[arm] = keep * self.counts[arm] + 1.0;
        self.pulls[arm] += 1;
        self.pool.record(reward);
        self.last[arm] = self.pool.total;
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::run;
    use super::*;

    #[test]
    fn the_index_is_the_pooled_mean_under_the_poisson_bound() {
        let mut p = PooledUcb::new(2, 4, 2.0, 1.0);
        p.update(0, 6.0);
        p.update(1, 0.0);
        // Crawl rate 3 a page. Site 1 was pulled last: no fade; one page of 0 with two pages
        // at 3: mean 2, n 3, L = ln 2.
        let l = 2f64.ln();
        let want = 2.0 + (2.0 * 2.0 * l / 3.0).sqrt() + l / 3.0;
        assert!((p.index(1, 3.0) - want).abs() < 1e-12);
        // Site 0 faded over one pull elsewhere (idle memory max(4, 2) = 4 pages).
        let f = (-0.25f64).exp();
        let (n, mean) = (f + 2.0, (6.0 * f + 6.0) / (f + 2.0));
        let want = mean + (2.0 * mean * l / n).sqrt() + l / n;
        assert!((p.index(0, 3.0) - want).abs() < 1e-12);
        assert_eq!(p.select(&[0, 1]), 0);
    }

    #[test]
    fn a_steady_site_does_not_starve_sites_that_started_with_nothing() {
        // Every site's first page pays nothing; site 0 then pays 1 a page forever, site 2
        // pays 5 a page from its third page. A pure pooled mean would keep site 0: the crawl's
        // rate is its rate, and every other site is pooled toward it from below.
        let mut seqs = vec![vec![0.0; 300]; 4];
        seqs[0][1..].fill(1.0);
        seqs[2][2..].fill(5.0);
        let (taken, total) = run(&mut PooledUcb::new(4, 50, 5.0, 1.0), &seqs, 200);
        assert!(taken[2] > 150, "{taken:?}");
        assert!(total > 0.8 * (5.0 * 198.0), "{total}");
    }

    #[test]
    fn a_site_left_alone_is_looked_at_again() {
        // Site 1's link list sits at its 6th page, behind five empty ones; site 0 pays 2 a
        // page. Without the fade, five zeros would retire site 1 for good.
        let mut seqs = vec![vec![2.0; 400], vec![0.0; 400]];
        seqs[1][5] = 300.0;
        let (taken, total) = run(&mut PooledUcb::new(2, 100, 5.0, 1.0), &seqs, 200);
        assert!(taken[1] >= 6, "{taken:?}");
        assert!(total >= 300.0, "{total}");
    }

    #[test]
    fn it_moves_on_when_a_site_rots() {
        // Site 0: 20 pages of 5, then nothing; site 1: 1 a page.
        let mut rotting = vec![5.0; 20];
        rotting.extend(vec![0.0; 200]);
        let seqs = vec![rotting, vec![1.0; 220]];
        let (taken, total) = run(&mut PooledUcb::new(2, 10, 5.0, 1.0), &seqs, 200);
        assert!(taken[0] < 60, "{taken:?}");
        assert!(total > 100.0 + 150.0 * 0.9, "{total}");
    }
}

//! `FrontierUcb`: sliding-window UCB that also knows what it is about to fetch — the level of
//! each site's next page, which the crawl knows before fetching it (the next URL of the
//! site's breadth-first frontier; a replay reads it from yield.csv).
//!
//! Why it helps: a site's yield is not one rotting rate but a profile by depth — home and
//! section pages carry the footers and partner lists, deeper pages repeat them — and a
//! breadth-first crawl moves through the levels in order. When a site's next page is at a new
//! level, its recent pages (all from the level before) say little; what its pages at that
//! level paid, when it has some, says more.

use std::collections::VecDeque;

use super::ucb::poisson_ucb;
use super::{Arm, Policy, argmax};

/// Sliding-window UCB with estimates by level.
#[derive(Debug, Clone)]
pub struct FrontierUcb {
    window: usize,
    exploration: f64,
    /// Per site: its last `window` pages as (level, reward).
    recent: Vec<VecDeque<(u32, f64)>>,
    /// The level of each site's page being fetched (set when chosen, read on update).
    chosen_level: Vec<u32>,
    total: usize,
}

impl FrontierUcb {
    /// For `k` sites, a window of `window` pages and exploration constant `exploration`.
    pub fn new(k: usize, window: usize, exploration: f64) -> Self {
        FrontierUcb {
            window: window.max(1),
            exploration,
            recent: vec![VecDeque::new(); k],
            chosen_level: vec![0; k],
            total: 0,
        }
    }

    /// The estimate for a page of `arm` at `level`: the mean of its recent pages at that
    /// level when there are a few, else of all its recent pages; and how many pages it rests
    /// on.
    fn estimate(&self, arm: usize, level: u32) -> (f64, f64) {
        let recent = &self.recent[arm];
        let (mut sum_at, mut n_at, mut sum, mut n) = (0.0, 0.0, 0.0, 0.0);
        for &(l, r) in recent {
            sum += r;
            n += 1.0;
            if l == level {
                sum_at += r;
                n_at += 1.0;
            }
        }
        if n_at >= 3.0 {
            (sum_at / n_at, n_at)
        } else if n > 0.0 {
            (sum / n, n)
        } else {
            (0.0, 0.0)
        }
    }
}

impl Policy for FrontierUcb {
    fn select(&self, arms: &[Arm]) -> usize {
        let t = self.total as f64;
        argmax(arms, |a| {
            let (mean, n) = self.estimate(a.index, a.level);
            poisson_ucb(mean, n, t, self.exploration)
        })
    }

    fn chosen(&mut self, arm: Arm) {
        self.chosen_level[arm.index] = arm.level;
    }

    fn update(&mut self, arm: usize, reward: f64) {
        let recent = &mut self.recent[arm];
        recent.push_back((self.chosen_level[arm], reward));
        if recent.len() > self.window {
            recent.pop_front();
        }
        self.total += 1;
    }
}

//! The sites a rule has pulled, ordered so that its best index is found without scoring every
//! site: for a rule whose index is a function of (pulls, sum) that grows with the sum, rounding
//! included, when the number of pulls is held (`WinsorUcb`: the decayed page count is a
//! function of the pulls alone, and each step of its bound is monotone in the sum).
//!
//! Why: a budgeted crawl of thousands of sites scores every site at every choice, and its
//! guard replays `WinsorUcb` page by page beside the crawl, in copies made for every choice
//! while pages are under way: on 4,000 sites, `WinsorUcb::select` was 30 % of a live
//! budgeted crawl's CPU and 98 % of `rccrawler replay --in-flight 16`. With the sites grouped by
//! pulls and ordered by sum in each group, a choice scores one site a group — a few dozen
//! groups, since the group sizes sum to the pages fetched. The replay went from 351 s to 16 s
//! (4,000 synthetic sites, N = 10,000) and the live crawl from the start to its last page from
//! 3.9 s to 2.8 s (medians of 4 alternating rounds), with the same choices.

use std::collections::{BTreeMap, BTreeSet};

/// Pulled sites by pulls, then (sum descending, site ascending) in each group.
#[derive(Debug, Clone, Default)]
pub(crate) struct Ranked {
    groups: BTreeMap<u64, BTreeSet<(u64, u32)>>,
    len: usize,
}

/// `sum`'s place in a group: larger sums first. Sums are clamped at 0 (as the index scores
/// them) and -0 counts as 0, so the bits of a non-negative float order as the floats do.
fn key(sum: f64) -> u64 {
    let sum = if sum > 0.0 { sum } else { 0.0 };
    u64::MAX - sum.to_bits()
}

impl Ranked {
    /// Site `arm` had (`pulls`, `sum`); forget that (no-op for a site never pulled).
    pub(crate) fn remove(&mut self, arm: usize, pulls: u64, sum: f64) {
        if let Some(group) = self.groups.get_mut(&pulls)
            && group.remove(&(key(sum), arm as u32))
        {
            self.len -= 1;
            if group.is_empty() {
                self.groups.remove(&pulls);
            }
        }
    }

    /// Site `arm` has (`pulls` ≥ 1, `sum`).
    pub(crate) fn insert(&mut self, arm: usize, pulls: u64, sum: f64) {
        if self
            .groups
            .entry(pulls)
            .or_default()
            .insert((key(sum), arm as u32))
        {
            self.len += 1;
        }
    }

    /// Sites pulled.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The first of `arms` (ascending, all pulled) with the largest `index`, as a scan of
    /// `arms` keeping the first strict improvement finds it; `None` if no index is a number.
    /// `index(site)` must grow with the sum within a group (see the module documentation).
    pub(crate) fn argmax(&self, arms: &[usize], index: impl Fn(usize) -> f64) -> Option<usize> {
        let offered = |&&(_, a): &&(u64, u32)| arms.binary_search(&(a as usize)).is_ok();
        let mut best: Option<(f64, usize)> = None;
        for group in self.groups.values() {
            // The group's first offered site has its largest offered sum, so its best index.
            // Sites with the same sum after it score the same and lose the tie (skipped); a
            // smaller sum scores at most that, and one scoring the same (rounding) ties, which
            // the lower site wins.
            let mut top = None;
            let mut next = group.iter().find(offered);
            while let Some(&(sum_key, a)) = next {
                let (a, score) = (a as usize, index(a as usize));
                match top {
                    None => top = Some(score),
                    Some(t) if score != t => break,
                    Some(_) => {}
                }
                if !score.is_nan() {
                    best = match best {
                        Some((s, b)) if s > score || (s == score && b < a) => Some((s, b)),
                        _ => Some((score, a)),
                    };
                }
                next = match sum_key.checked_add(1) {
                    Some(k) => group.range((k, 0)..).find(offered),
                    None => None,
                };
            }
        }
        best.map(|(_, a)| a)
    }
}

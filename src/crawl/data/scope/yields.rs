//! A scope's yields (SPEC §5, `yield.csv`): its fetches in the order a one-thread
//! breadth-first crawl makes them, each with the external links it revealed — the reward
//! sequence the budget rules are replayed on.
//!
//! Computed from the recorded outcomes, like the graph, so concurrency does not change it:
//! the home page first, then URLs in the order their links were found, level by level; a URL
//! already decided by an earlier fetch's redirect chain is not fetched again, and URLs known
//! without a request (robots, extension) or beyond `maxCrawlLevel` are never fetched. A
//! fetch's reward is what the live crawl's scheduler is told: the distinct external URLs its
//! page links to (or the other site a redirect led to), all of them and those the scope had
//! not seen before.

use std::collections::VecDeque;

use super::traps::TrapWalk;
use crate::model::bandit::Yield;

use super::{LinkKind, NO_LEVEL, STATIC_BIT, ScopeGraph, UrlState};

/// One fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct YieldRow<'a> {
    /// The URL the fetch ended on (after its redirects): for a page, its address.
    pub url: &'a str,
    /// Its breadth-first level.
    pub level: u32,
    /// The external URLs it revealed: all distinct ones, and those the scope had not seen
    /// before.
    pub yielded: Yield,
}

impl ScopeGraph {
    /// The scope's fetches in breadth-first order, with their rewards.
    pub(crate) fn yields(&self) -> Vec<YieldRow<'_>> {
        let n = self.recs.len();
        let mut queued = vec![false; n];
        let mut decided = vec![false; n];
        let mut seen = vec![false; n];
        let mut rows = Vec::new();
        let mut queue = VecDeque::new();
        let mut externals: Vec<u32> = Vec::new();
        // Content keys met so far in breadth-first order: a page that has one is another
        // address of a page fetched before (SPEC §14) and pays nothing.
        let mut known = super::contents::Contents::default();
        let mut traps = TrapWalk::new(self);
        for home in self.homes() {
            if !std::mem::replace(&mut queued[home as usize], true) {
                traps.reached(home, 0);
                queue.push_back((home, 0u32));
            }
        }
        while let Some((u, level)) = queue.pop_front() {
            let rec = self.recs[u as usize];
            if decided[u as usize] || rec.state.is_open() {
                // Fetched within an earlier fetch, or not fetched (a stopped crawl).
                continue;
            }
            // Follow the recorded hops of this fetch. A hop to another site of the scope ends
            // it: that site fetches the target itself, at this level (SPEC §6).
            let mut cur = u;
            decided[cur as usize] = true;
            for _ in 0..16 {
                let r = self.recs[cur as usize];
                if !r.state.is_hop() {
                    break;
                }
                if self.recs[r.data as usize].site != r.site {
                    let t = r.data as usize;
                    if !queued[t] {
                        queued[t] = true;
                        traps.reached(r.data, level);
                        queue.push_back((r.data, level));
                    }
                    break;
                }
                cur = r.data;
                decided[cur as usize] = true;
                traps.reached(cur, level);
            }
            let end = self.recs[cur as usize];
            externals.clear();
            let mut alias = false;
            match end.state {
                UrlState::Page => {
                    let page = self.pages[end.data as usize];
                    // As the live commit decides it: folded by a digest, not equal bytes.
                    alias = known.folds_into_known(&page.meta);
                    known.add(&page.meta);
                    for l in self.page_links(&page) {
                        if l.kind() == Some(LinkKind::External) {
                            externals.push(l.id());
                        } else if l.is_internal() && level < self.max_level {
                            let t = l.id() as usize;
                            let r = self.recs[t];
                            let without_request =
                                r.state == UrlState::Failed && r.data & STATIC_BIT != 0;
                            if !queued[t] && !without_request && r.level != NO_LEVEL {
                                traps.reached(l.id(), level + 1);
                                if traps.admits(l.id(), level + 1) {
                                    queued[t] = true;
                                    queue.push_back((l.id(), level + 1));
                                }
                            }
                        }
                    }
                }
                UrlState::OffSite => externals.push(end.data),
                _ => {}
            }
            externals.sort_unstable();
            externals.dedup();
            let mut new_external = 0;
            for &e in &externals {
                if !std::mem::replace(&mut seen[e as usize], true) {
                    new_external += 1;
                }
            }
            rows.push(YieldRow {
                url: self.url(cur),
                level,
                yielded: if alias {
                    Yield::default()
                } else {
                    Yield {
                        external: externals.len() as u32,
                        new_external,
                    }
                },
            });
        }
        rows
    }
}

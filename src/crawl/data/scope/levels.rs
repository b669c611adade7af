//! Levels and queues: the shortest known level of every URL, lowered along stored links and
//! redirects when a shorter path appears, and the frontiers fed by it.

use super::{NO_LEVEL, ScopeGraph, UrlState};
use crate::base::ids::SiteId;

impl ScopeGraph {
    /// Lowers `start`'s level to `level` if that is shorter, and everything reachable from it
    /// accordingly; queues URLs that come within `maxCrawlLevel`. Returns the sites woken.
    pub(super) fn relax(&mut self, start: u32, level: u32) -> Vec<SiteId> {
        self.worklist.push((start, level));
        self.drain()
    }

    /// Processes the worklist of `(url, level)` improvements; returns the sites woken.
    pub(super) fn drain(&mut self) -> Vec<SiteId> {
        let mut woke = Vec::new();
        while let Some((id, level)) = self.worklist.pop() {
            let rec = self.recs[id as usize];
            if level >= rec.level {
                continue;
            }
            self.recs[id as usize].level = level;
            self.shapes.lowered(id, rec.level, level);
            match rec.state {
                UrlState::Seen if self.within_limits(id, level) => {
                    self.queue(id);
                    let site = self.sites[usize::from(rec.site)];
                    if !woke.contains(&site) {
                        woke.push(site);
                    }
                }
                UrlState::Queued => self.frontiers[usize::from(rec.site)].push(level, id),
                UrlState::Page | UrlState::Redirect | UrlState::Refresh => {
                    self.push_successors(id, level)
                }
                _ => {}
            }
        }
        woke
    }

    /// Whether URL `id` at `level` may be fetched: within `maxCrawlLevel`, and not left out
    /// by the trap rule ([`super::traps`]).
    fn within_limits(&self, id: u32, level: u32) -> bool {
        level <= self.max_level && self.shapes.admits(id, level, self.traps)
    }

    /// Seen → Queued; or → InFlight when a redirect chain under way took it before it was
    /// queued (`hop_claims`, `new_hop_claims`): that chain fetches it.
    pub(super) fn queue(&mut self, id: u32) {
        self.pending += 1;
        let taken = self.hop_claims.contains_key(&id)
            || (!self.new_hop_claims.is_empty() && {
                let task = self.new_hop_claims.remove(self.urls.get(id));
                task.is_some_and(|t| self.hop_claims.insert(id, t).is_none())
            });
        if taken {
            self.recs[id as usize].state = UrlState::InFlight;
            self.in_flight += 1;
            return;
        }
        let rec = &mut self.recs[id as usize];
        rec.state = UrlState::Queued;
        let site = usize::from(rec.site);
        self.frontiers[site].push(rec.level, id);
        self.queued[site] += 1;
    }

    /// Puts what `id` leads to on the worklist, one level further for a page's links.
    pub(super) fn push_successors(&mut self, id: u32, level: u32) {
        let rec = self.recs[id as usize];
        match rec.state {
            UrlState::Redirect | UrlState::Refresh => self.worklist.push((rec.data, level)),
            UrlState::Page => {
                let p = self.pages[rec.data as usize];
                let obey = self.obey_nofollow;
                if obey && self.says_nofollow(&p.meta) {
                    return;
                }
                let child = level.saturating_add(1);
                // The worklist is a stack: pushed last to first, the links are queued in
                // document order — a site's breadth-first order (SPEC §5), and the order a
                // continued crawl rebuilds its frontier in.
                let from = self.worklist.len();
                for l in self.links.records(p.links) {
                    if l.is_internal() && l.follows(obey) {
                        self.worklist.push((l.id(), child));
                    }
                }
                self.worklist[from..].reverse();
            }
            _ => {}
        }
    }

    /// Whether a page's robots directives say `nofollow` (`FollowNofollow = no` then gives
    /// its links' targets no level).
    pub(super) fn says_nofollow(&self, meta: &crate::crawl::data::records::PageMeta) -> bool {
        meta.robots()
            .is_some_and(|t| crate::model::link_attrs::is_nofollow(self.texts.get(t)))
    }

    /// Records the final state of an open URL, keeping the counters right.
    pub(super) fn finish(&mut self, id: u32, state: UrlState, data: u32) {
        let rec = self.recs[id as usize];
        if !rec.state.is_open() {
            return;
        }
        match rec.state {
            UrlState::Queued => {
                self.queued[usize::from(rec.site)] -= 1;
                self.pending -= 1;
            }
            UrlState::InFlight => {
                self.pending -= 1;
                self.in_flight -= 1;
            }
            _ => {}
        }
        let r = &mut self.recs[id as usize];
        r.state = state;
        r.data = data;
    }

    /// Changes `maxCrawlLevel`, the trap rules and `FollowNofollow` (hosts.txt or
    /// settings.ini edited between runs): URLs now within them are queued, queued URLs now
    /// beyond them wait again. Links now followed give their targets levels; links no longer
    /// followed take none back (levels only fall): the result files, built breadth-first
    /// again, follow the new setting, and pages fetched only through such links are left out.
    pub(super) fn set_level_limits(
        &mut self,
        max_level: u32,
        traps: super::traps::TrapRules,
        obey_nofollow: bool,
    ) {
        self.max_level = max_level;
        self.traps = traps;
        if self.obey_nofollow && !obey_nofollow {
            self.obey_nofollow = false;
            for id in 0..self.recs.len() as u32 {
                let level = self.recs[id as usize].level;
                if level != NO_LEVEL && self.recs[id as usize].state == UrlState::Page {
                    self.push_successors(id, level);
                }
            }
            self.drain();
        }
        self.obey_nofollow = obey_nofollow;
        for id in 0..self.recs.len() as u32 {
            let rec = self.recs[id as usize];
            let within = rec.level != NO_LEVEL && self.within_limits(id, rec.level);
            if rec.state == UrlState::Seen && within {
                self.queue(id);
            } else if rec.state == UrlState::Queued && !within {
                self.recs[id as usize].state = UrlState::Seen;
                self.queued[usize::from(rec.site)] -= 1;
                self.pending -= 1;
            }
        }
    }

    /// Rebuilds the URLs' shapes and their shallowest levels (after loading a snapshot, which
    /// does not keep them: they follow from the URLs).
    pub(super) fn rebuild_shapes(&mut self) {
        self.shapes = super::traps::Shapes::default();
        for id in 0..self.recs.len() as u32 {
            let rec = self.recs[id as usize];
            let internal = rec.state != UrlState::External;
            self.shapes.push(internal.then(|| self.urls.get(id)));
            if rec.level != NO_LEVEL {
                self.shapes.lowered(id, NO_LEVEL, rec.level);
            }
        }
    }

    /// Rebuilds frontiers and counters from the URL records (after loading saved state):
    /// in-flight URLs of the saved run are queued again.
    pub(crate) fn rebuild_frontiers(&mut self) {
        self.frontiers = (0..self.sites.len()).map(|_| Default::default()).collect();
        self.queued = vec![0; self.sites.len()];
        self.pending = 0;
        self.in_flight = 0;
        for id in 0..self.recs.len() as u32 {
            let state = self.recs[id as usize].state;
            let level = self.recs[id as usize].level;
            let waiting = matches!(state, UrlState::Queued | UrlState::InFlight);
            if waiting
                || (state == UrlState::Seen && level != NO_LEVEL && self.within_limits(id, level))
            {
                self.queue(id);
            }
        }
    }
}

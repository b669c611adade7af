//! Trap detection (SPEC §1, §9): calendars and numbered pages that never end. Every internal
//! URL with digits has a *shape* (the URL with each run of digits made one `0`,
//! `url_rules::trap_shape`); a URL is not fetched when it lies more than `TrapLevels` levels
//! below the shallowest URL of its shape. Legitimate numbered pages (`/news/12345`) sit a few
//! levels deep; a calendar's next month is always one level deeper than this one.
//!
//! The rule is one of levels, so it can be replayed: the written graph ([`super::graph`]) and
//! the yields ([`super::yields`]) apply it in breadth-first order with [`TrapReplay`], where
//! the first URL of a shape met is its shallowest. The live crawl ([`Shapes`]) only needs to
//! fetch at least what the replay keeps: it compares with the shallowest level known so far,
//! which can only fall as the crawl goes on, and a URL left out is queued after all if its
//! own level falls within reach.

use std::collections::HashMap;

use super::{NO_LEVEL, ScopeGraph};
use crate::url_rules::{trap_pattern, trap_shape};

/// The shape id of a URL without digits (never cut) or of an external URL.
pub(super) const NO_SHAPE: u32 = u32::MAX;

/// The shapes of a scope's URLs as the live crawl knows them.
#[derive(Debug, Default)]
pub(super) struct Shapes {
    /// Per URL id, its shape id (or [`NO_SHAPE`]).
    of: Vec<u32>,
    /// Shape hash → shape id.
    ids: HashMap<u64, u32>,
    /// Per shape id, the shallowest level of its URLs known so far.
    min_level: Vec<u32>,
    /// How many of the URLs are internal (what `MaxUrlsPerSite` counts).
    internal: u32,
}

impl Shapes {
    /// A URL was interned (its id is the next one): `Some(url)` for an internal URL.
    pub(super) fn push(&mut self, internal_url: Option<&str>) {
        self.internal += u32::from(internal_url.is_some());
        let shape = internal_url.and_then(trap_shape).map_or(NO_SHAPE, |hash| {
            let next = self.min_level.len() as u32;
            let id = *self.ids.entry(hash).or_insert(next);
            if id == next {
                self.min_level.push(NO_LEVEL);
            }
            id
        });
        self.of.push(shape);
    }

    /// URL `id` is now known at `level`.
    pub(super) fn lowered(&mut self, id: u32, level: u32) {
        if let Some(&s) = self.of.get(id as usize)
            && s != NO_SHAPE
        {
            let m = &mut self.min_level[s as usize];
            *m = (*m).min(level);
        }
    }

    /// Whether URL `id` at `level` is within `trap_levels` of its shape's shallowest URL (0:
    /// the rule is off).
    pub(super) fn admits(&self, id: u32, level: u32, trap_levels: u32) -> bool {
        if trap_levels == 0 {
            return true;
        }
        match self.of.get(id as usize) {
            Some(&s) if s != NO_SHAPE => {
                level <= self.min_level[s as usize].saturating_add(trap_levels)
            }
            _ => true,
        }
    }

    /// The shape id of URL `id`.
    pub(super) fn shape(&self, id: u32) -> u32 {
        self.of.get(id as usize).copied().unwrap_or(NO_SHAPE)
    }

    /// How many internal URLs there are.
    pub(super) fn internal_urls(&self) -> u32 {
        self.internal
    }

    /// How many shapes there are.
    pub(super) fn count(&self) -> usize {
        self.min_level.len()
    }

    /// Approximate heap use.
    pub(super) fn heap_bytes(&self) -> usize {
        self.of.capacity() * 4 + self.min_level.capacity() * 4 + self.ids.capacity() * 16
    }
}

/// A pattern the trap rule cut, for summary.csv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrapCut {
    /// The pattern (`/calendar/N/N/`).
    pub pattern: String,
    /// The deepest level kept.
    pub deepest_kept: u32,
    /// Distinct URLs left out.
    pub urls: u32,
}

/// The trap rule applied during a breadth-first replay of a scope.
pub(super) struct TrapReplay<'g> {
    g: &'g ScopeGraph,
    /// Per shape, the level its first URL was met at.
    first: Vec<u32>,
    /// Per shape: a URL left out (an example of the pattern) and how many distinct ones.
    cut: HashMap<u32, (u32, u32)>,
    /// URLs counted as left out already.
    counted: Vec<bool>,
}

impl<'g> TrapReplay<'g> {
    pub(super) fn new(g: &'g ScopeGraph) -> Self {
        TrapReplay {
            g,
            first: vec![NO_LEVEL; g.shapes.count()],
            cut: HashMap::new(),
            counted: Vec::new(),
        }
    }

    /// The replay reached URL `id` at `level`: the first URL of its shape sets the shape's
    /// level.
    pub(super) fn reached(&mut self, id: u32, level: u32) {
        let s = self.g.shapes.shape(id);
        if s != NO_SHAPE && self.first[s as usize] == NO_LEVEL {
            self.first[s as usize] = level;
        }
    }

    /// Whether the replay may go on to URL `id` at `level` (it reached it: [`Self::reached`]
    /// first). A URL left out is counted once.
    pub(super) fn admits(&mut self, id: u32, level: u32) -> bool {
        let trap = self.g.trap_levels;
        let s = self.g.shapes.shape(id);
        if trap == 0 || s == NO_SHAPE {
            return true;
        }
        if level <= self.first[s as usize].saturating_add(trap) {
            return true;
        }
        if self.counted.len() <= id as usize {
            self.counted.resize(self.g.recs.len(), false);
        }
        if !std::mem::replace(&mut self.counted[id as usize], true) {
            self.cut.entry(s).or_insert((id, 0)).1 += 1;
        }
        false
    }

    /// The patterns left out, most URLs first.
    pub(super) fn cuts(&self) -> Vec<TrapCut> {
        let mut out: Vec<TrapCut> = self
            .cut
            .iter()
            .map(|(&s, &(example, urls))| TrapCut {
                pattern: trap_pattern(self.g.url(example)),
                deepest_kept: self.first[s as usize].saturating_add(self.g.trap_levels),
                urls,
            })
            .collect();
        out.sort_by(|a, b| b.urls.cmp(&a.urls).then_with(|| a.pattern.cmp(&b.pattern)));
        out
    }
}

//! Trap detection (SPEC §1, §9): calendars and numbered pages that never end. Every internal
//! URL with digits has a *shape* (the URL with each run of digits made one `0`,
//! `url_rules::trap_shape`); a URL is not fetched when it lies more than `TrapLevels` levels
//! below the shallowest URL of its shape. Legitimate numbered pages (`/news/12345`) sit a few
//! levels deep; a calendar's next month is always one level deeper than this one.
//!
//! That rule bounds a chain, not a tree: a calendar whose every day links to the next and
//! previous day, month and year holds 19,000 URLs within 30 levels, 730 more each level. So
//! a shape is also cut by its size (`TrapPatternUrls`): its URLs are not fetched more than
//! [`BRANCH_LEVELS`] levels below the level where it passed that many URLs. A real site, even
//! a big one of numbered pages, is finite: once it has thousands of URLs known, the rest of it
//! lies a few levels further (a random web of 100,000 pages with two to eight links a page:
//! about six, its last stragglers included), while a trap keeps growing; and a large archive
//! at one level (thousands of numbered articles on one page) is never cut.
//!
//! Both rules are ones of levels, so they can be replayed: the written graph ([`super::graph`]) and
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

/// How many levels below the level where a shape passed `TrapPatternUrls` URLs its URLs are
/// still fetched.
pub(super) const BRANCH_LEVELS: u32 = 10;

/// The trap rules of a scope (`TrapLevels`, `TrapPatternUrls`; 0 turns either off); saved
/// with the scope, so that a replay cuts what the crawl cut.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TrapRules {
    /// A shape's URLs more than this many levels below its shallowest are cut.
    pub levels: u32,
    /// A shape's URLs more than 10 levels (`BRANCH_LEVELS`) below the level where it passed this
    /// many URLs are cut.
    pub pattern_urls: u32,
}

impl TrapRules {
    /// Whether a URL at `level`, of a shape whose shallowest URL is at `first`, of which
    /// `total` URLs are known, `up_to(l)` of them at levels `0..=l`, is kept.
    fn keeps(self, level: u32, first: u32, total: u32, up_to: impl Fn(u32) -> u32) -> bool {
        if self.levels > 0 && level > first.saturating_add(self.levels) {
            return false;
        }
        self.pattern_urls == 0
            || total <= self.pattern_urls
            || level
                .checked_sub(BRANCH_LEVELS)
                .is_none_or(|above| up_to(above) <= self.pattern_urls)
    }
}

/// How many URLs of one shape lie at each level.
#[derive(Debug, Default, Clone)]
struct Histogram {
    at: Vec<u32>,
    total: u32,
}

impl Histogram {
    fn add(&mut self, level: u32) {
        let l = level as usize;
        if self.at.len() <= l {
            self.at.resize(l + 1, 0);
        }
        self.at[l] += 1;
        self.total += 1;
    }

    fn remove(&mut self, level: u32) {
        if let Some(n) = self.at.get_mut(level as usize) {
            *n = n.saturating_sub(1);
            self.total = self.total.saturating_sub(1);
        }
    }

    /// URLs at levels `0..=level`.
    fn up_to(&self, level: u32) -> u32 {
        let end = (level as usize + 1).min(self.at.len());
        self.at[..end].iter().sum()
    }
}

/// The shapes of a scope's URLs as the live crawl knows them.
#[derive(Debug, Default)]
pub(super) struct Shapes {
    /// Per URL id, its shape id (or [`NO_SHAPE`]).
    of: Vec<u32>,
    /// Shape hash → shape id.
    ids: HashMap<u64, u32>,
    /// Per shape id, the shallowest level of its URLs known so far.
    min_level: Vec<u32>,
    /// Per shape id, how many of its URLs lie at each level known so far (levels only fall,
    /// so the count down to any level only grows: the cut only rises, as the replay's).
    levels: Vec<Histogram>,
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
                self.levels.push(Histogram::default());
            }
            id
        });
        self.of.push(shape);
    }

    /// URL `id`, known at level `from` ([`NO_LEVEL`]: unknown), is now known at `to`.
    pub(super) fn lowered(&mut self, id: u32, from: u32, to: u32) {
        if let Some(&s) = self.of.get(id as usize)
            && s != NO_SHAPE
        {
            let m = &mut self.min_level[s as usize];
            *m = (*m).min(to);
            let h = &mut self.levels[s as usize];
            if from != NO_LEVEL {
                h.remove(from);
            }
            h.add(to);
        }
    }

    /// Whether URL `id` at `level` is kept by the trap `rules`.
    pub(super) fn admits(&self, id: u32, level: u32, rules: TrapRules) -> bool {
        if rules == TrapRules::default() {
            return true;
        }
        match self.of.get(id as usize) {
            Some(&s) if s != NO_SHAPE => {
                let h = &self.levels[s as usize];
                rules.keeps(level, self.min_level[s as usize], h.total, |l| h.up_to(l))
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
        self.of.capacity() * 4
            + self.min_level.capacity() * 4
            + self.ids.capacity() * 16
            + self
                .levels
                .iter()
                .map(|h| std::mem::size_of::<Histogram>() + h.at.capacity() * 4)
                .sum::<usize>()
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
    /// Whether the pattern was cut for its size (`TrapPatternUrls`), not only its depth.
    pub branching: bool,
}

/// The trap rule applied during a breadth-first replay of a scope.
pub(super) struct TrapReplay<'g> {
    g: &'g ScopeGraph,
    /// Per shape, the level its first URL was met at.
    first: Vec<u32>,
    /// Per shape, how many of its URLs were met at each level.
    levels: Vec<Histogram>,
    /// Per shape cut: a URL left out (an example of the pattern), how many distinct ones,
    /// the shallowest level cut, and whether the size rule cut it.
    cut: HashMap<u32, Cut>,
    /// Per URL: 1 once met, 2 once counted as left out.
    marks: Vec<u8>,
}

/// What the replay left out of one shape.
struct Cut {
    example: u32,
    urls: u32,
    shallowest: u32,
    branching: bool,
}

impl<'g> TrapReplay<'g> {
    pub(super) fn new(g: &'g ScopeGraph) -> Self {
        let shapes = g.shapes.count();
        TrapReplay {
            g,
            first: vec![NO_LEVEL; shapes],
            levels: vec![Histogram::default(); shapes],
            cut: HashMap::new(),
            marks: vec![0; g.recs.len()],
        }
    }

    /// The replay reached URL `id` at `level` (breadth-first, so the first time is at its
    /// level): the first URL of its shape sets the shape's level, and each URL counts once
    /// at its level.
    pub(super) fn reached(&mut self, id: u32, level: u32) {
        let s = self.g.shapes.shape(id);
        if s == NO_SHAPE || self.marks[id as usize] != 0 {
            return;
        }
        self.marks[id as usize] = 1;
        if self.first[s as usize] == NO_LEVEL {
            self.first[s as usize] = level;
        }
        self.levels[s as usize].add(level);
    }

    /// Whether the replay may go on to URL `id` at `level` (it reached it: [`Self::reached`]
    /// first). A URL left out is counted once. Breadth-first, every URL two levels up or more
    /// is met before the first URL at `level` is asked about, as the size rule needs.
    pub(super) fn admits(&mut self, id: u32, level: u32) -> bool {
        let rules = self.g.traps;
        let s = self.g.shapes.shape(id);
        if rules == TrapRules::default() || s == NO_SHAPE {
            return true;
        }
        let first = self.first[s as usize];
        let h = &self.levels[s as usize];
        if rules.keeps(level, first, h.total, |l| h.up_to(l)) {
            return true;
        }
        let by_depth = rules.levels > 0 && level > first.saturating_add(rules.levels);
        if self.marks[id as usize] != 2 {
            self.marks[id as usize] = 2;
            let c = self.cut.entry(s).or_insert(Cut {
                example: id,
                urls: 0,
                shallowest: level,
                branching: false,
            });
            c.urls += 1;
            c.shallowest = c.shallowest.min(level);
            c.branching |= !by_depth;
        }
        false
    }

    /// The patterns left out, most URLs first.
    pub(super) fn cuts(&self) -> Vec<TrapCut> {
        let mut out: Vec<TrapCut> = self
            .cut
            .values()
            .map(|c| TrapCut {
                pattern: trap_pattern(self.g.url(c.example)),
                deepest_kept: c.shallowest.saturating_sub(1),
                urls: c.urls,
                branching: c.branching,
            })
            .collect();
        out.sort_by(|a, b| b.urls.cmp(&a.urls).then_with(|| a.pattern.cmp(&b.pattern)));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIZE: TrapRules = TrapRules {
        levels: 0,
        pattern_urls: 100,
    };

    #[test]
    fn the_size_rule_cuts_ten_levels_below_the_level_where_the_shape_passed_its_bound() {
        let mut h = Histogram::default();
        // 30 URLs at each of levels 3 to 40: more than 100 down to level 6.
        for level in 3..=40 {
            for _ in 0..30 {
                h.add(level);
            }
        }
        let keeps = |level| SIZE.keeps(level, 3, h.total, |l| h.up_to(l));
        assert!((0..=6 + BRANCH_LEVELS - 1).all(keeps));
        assert!(!keeps(6 + BRANCH_LEVELS));
        assert!(!keeps(40));
        // A shape with few URLs is never cut by its size, at any depth.
        let mut small = Histogram::default();
        (0..100).for_each(|l| small.add(l));
        assert!(SIZE.keeps(99, 0, small.total, |l| small.up_to(l)));
        // 100 URLs down to some level is not more than the bound.
        let mut at_bound = Histogram::default();
        (0..100).for_each(|_| at_bound.add(1));
        at_bound.add(40);
        assert!(SIZE.keeps(40, 1, at_bound.total, |l| at_bound.up_to(l)));
        at_bound.add(1);
        assert!(!SIZE.keeps(40, 1, at_bound.total, |l| at_bound.up_to(l)));
        // Off: nothing is cut.
        let off = TrapRules::default();
        assert!(off.keeps(1_000, 0, h.total, |l| h.up_to(l)));
    }

    #[test]
    fn a_large_archive_at_one_level_is_never_cut() {
        let mut h = Histogram::default();
        (0..50_000).for_each(|_| h.add(2));
        assert!(SIZE.keeps(2, 2, h.total, |l| h.up_to(l)));
        // Its pages' own numbered links, further down, are kept within ten levels.
        assert!(SIZE.keeps(2 + BRANCH_LEVELS - 1, 2, h.total, |l| h.up_to(l)));
    }

    #[test]
    fn the_depth_rule_applies_beside_the_size_rule() {
        let both = TrapRules {
            levels: 5,
            pattern_urls: 100,
        };
        let h = Histogram::default();
        assert!(both.keeps(7, 2, 0, |l| h.up_to(l)));
        assert!(!both.keeps(8, 2, 0, |l| h.up_to(l)));
    }

    #[test]
    fn live_counts_follow_levels_that_fall() {
        let mut s = Shapes::default();
        let rules = TrapRules {
            levels: 0,
            pattern_urls: 3,
        };
        for i in 0..5 {
            s.push(Some(&format!("http://a.test/c/{i}")));
        }
        // Four URLs at level 1, one at level 30: cut (more than 3 down to level 20).
        for id in 0..4 {
            s.lowered(id, NO_LEVEL, 1);
        }
        s.lowered(4, NO_LEVEL, 30);
        assert!(!s.admits(4, 30, rules));
        // Its level falls to within ten levels of level 1: kept, and counted once.
        s.lowered(4, 30, 10);
        assert!(s.admits(4, 10, rules));
        assert_eq!(s.levels[0].total, 5);
        assert_eq!(s.levels[0].up_to(9), 4);
        assert_eq!(s.levels[0].up_to(10), 5);
        // A URL without digits has no shape and is never cut.
        s.push(Some("http://a.test/about"));
        s.lowered(5, NO_LEVEL, 500);
        assert!(s.admits(5, 500, rules));
    }
}

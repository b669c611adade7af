//! Trap detection (SPEC §1, §9): calendars and numbered pages that never end. Every internal
//! URL with digits has a *shape* (the URL with each run of digits made one `0`,
//! `url_rules::trap_shape`); a URL is not fetched when it lies more than `TrapLevels` levels
//! below the shallowest URL of its shape. Legitimate numbered pages (`/news/12345`) sit a few
//! levels deep; a calendar's next month is always one level deeper than this one.
//!
//! That rule bounds a chain, not a tree: a calendar whose every day links to the next and
//! previous day, month and year holds 19,000 URLs within 30 levels, 730 more each level. So
//! a shape is also cut by its size and its *flatness* (`TrapPatternUrls`): once it has more
//! than that many URLs two levels up, and its URLs per level have stayed flat — each level's
//! count within a tenth of the one before, for [`FLAT_LEVELS`] levels of 16 URLs or more, and
//! not shrinking over them — its deeper URLs are not fetched. A trap is a lattice: its count per level stays the same (730 days a level) or
//! grows slowly, without end. A real site of numbered pages, however many, is a random graph
//! that doubles its count level after level, then runs out within a few levels (a generated
//! web of 100,000 pages with one to three links a page: 2,293, 4,306, 7,388, 11,481, 14,787,
//! 14,737, 10,949, 6,239 … pages a level — never flat for long); an archive at one level has
//! one level. A first rule, "ten levels below the level that passed 1,000 URLs", cut that web
//! (79,631 pages to 74,569).
//!
//! Both rules are ones of levels, so they can be walked again: the written graph ([`super::graph`]) and
//! the yields ([`super::yields`]) apply it in breadth-first order with [`TrapWalk`], where
//! the first URL of a shape met is its shallowest. The live crawl ([`Shapes`]) only needs to
//! fetch at least what the walk keeps: it compares with the shallowest level known so far,
//! which can only fall as the crawl goes on, and a URL left out is queued after all if its
//! own level falls within reach.

use std::collections::HashMap;

use super::{NO_LEVEL, ScopeGraph};
use crate::base::storage::codec::{Corrupt, Put, Reader};
use crate::model::url_rules::{trap_pattern, trap_shape};

/// The shape id of a URL without digits (never cut) or of an external URL.
pub(super) const NO_SHAPE: u32 = u32::MAX;

/// How many levels in a row a shape's count per level must have stayed flat (each within a
/// tenth of the level before) to be cut: a random site's count peaks over two or three such
/// levels (267, 270, 282, 267 on a site of one or two links a page, after growing a third a
/// level), a lattice stays flat for ever.
pub(super) const FLAT_LEVELS: u32 = 6;

/// The fewest URLs a level of a flat shape holds.
const FLAT_MIN: u64 = 16;

/// The trap rules of a scope (`TrapLevels`, `TrapPatternUrls`; 0 turns either off); saved
/// with the scope, so that a walk cuts what the crawl cut.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TrapRules {
    /// A shape's URLs more than this many levels below its shallowest are cut.
    pub levels: u32,
    /// A shape with more than this many URLs two levels up, whose count per level has stayed
    /// flat ([`FLAT_LEVELS`]), is cut.
    pub pattern_urls: u32,
}

impl TrapRules {
    /// Whether a URL at `level`, of a shape whose shallowest URL is at `first`, of which
    /// `total` URLs are known, `levels` of them per level, is kept. Only levels two up or more
    /// are looked at (all known when a level is decided breadth-first), and for flatness three
    /// up or more (a live crawl may still be parsing pages of the level before).
    fn keeps(self, level: u32, first: u32, total: u32, levels: &Histogram) -> bool {
        if self.levels > 0 && level > first.saturating_add(self.levels) {
            return false;
        }
        if self.pattern_urls == 0 || total <= self.pattern_urls {
            return true;
        }
        let (Some(two_up), Some(last)) = (level.checked_sub(2), level.checked_sub(3)) else {
            return true;
        };
        if levels.up_to(two_up) <= self.pattern_urls || last < FLAT_LEVELS {
            return true;
        }
        // Flat: each level within a tenth of the one before, at least `FLAT_MIN` URLs each
        // (a random site's last levels hold a few stragglers each, 5, 5, 3, 2, 2), and not
        // shrinking over the window (a sparse site's tail shrinks slowly, a tenth a level).
        let first_flat = last + 1 - FLAT_LEVELS;
        let steady = (first_flat..=last).all(|l| {
            let (before, now) = (u64::from(levels.at(l - 1)), u64::from(levels.at(l)));
            before >= FLAT_MIN && 11 * now >= 10 * before && 10 * now <= 11 * before
        });
        let (start, end) = (
            u64::from(levels.at(first_flat - 1)),
            u64::from(levels.at(last)),
        );
        if steady && 20 * end >= 19 * start {
            return false;
        }
        !growing_longer(levels, last)
    }
}

/// Levels in a row over which a shape must have grown by half or more a level, its numbers
/// one digit longer or more each level, to be cut as a tree that grows without end.
pub(super) const GROWING_LEVELS: u32 = 4;

/// The fewest URLs a level before a growing one holds.
const GROWING_MIN: u64 = 8;

/// Whether a shape grows like a tree of numbered pages that never ends — every page linking
/// deeper ones whose numbers are its own with digits appended (`/calendar/N` → `/calendar/N1`,
/// `/calendar/N2`: 4,096, 8,192, 16,384 … a level) — over the [`GROWING_LEVELS`] levels ending
/// at `last`: each level at least half again the one before ([`GROWING_MIN`] URLs or more), and
/// every URL of a level the same number of digits, longer by the same step (one or more)
/// than the level before. A site of numbered pages grows too, but its numbers are not longer
/// by exactly one digit per level for four levels in a row: random webs (page numbers of any
/// length at any level), an archive (dates of one length) never are.
fn growing_longer(levels: &Histogram, last: u32) -> bool {
    let Some(first) = (last + 1).checked_sub(GROWING_LEVELS) else {
        return false;
    };
    let Some(before) = first.checked_sub(1) else {
        return false;
    };
    let (Some(l0), Some(l1)) = (levels.length_at(before), levels.length_at(first)) else {
        return false;
    };
    let Some(step) = l1.checked_sub(l0).filter(|&s| s >= 1) else {
        return false;
    };
    (first..=last).all(|l| {
        let (was, now) = (u64::from(levels.at(l - 1)), u64::from(levels.at(l)));
        let longer = match (levels.length_at(l - 1), levels.length_at(l)) {
            (Some(a), Some(b)) => b.checked_sub(a) == Some(step),
            _ => false,
        };
        was >= GROWING_MIN && 2 * now >= 3 * was && longer
    })
}

/// How many URLs of one shape lie at each level. Most shapes have one URL (a word and a
/// number seen once): while a shape has one, its level is kept in place and nothing is
/// allocated for it.
#[derive(Debug, Default, Clone)]
struct Histogram {
    /// Per level, its URLs; empty while the shape has at most one URL.
    at: Vec<u32>,
    /// Per level, the fewest and most digits of its URLs met there (a URL whose level falls
    /// leaves its length behind: the range only widens, and a live crawl cuts no more than
    /// the walk).
    lengths: Vec<(u8, u8)>,
    total: u32,
    /// The level of the one URL, while `at` is empty.
    single: u32,
    /// Its digits.
    single_digits: u8,
}

impl Histogram {
    fn bump(&mut self, level: u32, digits: u8) {
        let l = level as usize;
        if self.at.len() <= l {
            self.at.resize(l + 1, 0);
            self.lengths.resize(l + 1, (u8::MAX, 0));
        }
        self.at[l] += 1;
        let r = &mut self.lengths[l];
        *r = (r.0.min(digits), r.1.max(digits));
    }

    fn add(&mut self, level: u32, digits: u8) {
        if self.total == 0 {
            self.single = level;
            self.single_digits = digits;
        } else {
            if self.at.is_empty() {
                self.bump(self.single, self.single_digits);
            }
            self.bump(level, digits);
        }
        self.total += 1;
    }

    /// The one digit count every URL met at `level` has, if they all have the same.
    fn length_at(&self, level: u32) -> Option<u8> {
        if self.at.is_empty() {
            return (self.total == 1 && self.single == level).then_some(self.single_digits);
        }
        let &(lo, hi) = self.lengths.get(level as usize)?;
        (lo == hi).then_some(lo)
    }

    fn remove(&mut self, level: u32) {
        if self.at.is_empty() {
            if self.total == 1 && self.single == level {
                self.total = 0;
            }
        } else if let Some(n) = self.at.get_mut(level as usize)
            && *n > 0
        {
            *n -= 1;
            self.total -= 1;
        }
    }

    /// URLs at `level`.
    fn at(&self, level: u32) -> u32 {
        if self.at.is_empty() {
            return u32::from(self.total == 1 && self.single == level);
        }
        self.at.get(level as usize).copied().unwrap_or(0)
    }

    /// URLs at levels `0..=level`.
    fn up_to(&self, level: u32) -> u32 {
        if self.at.is_empty() {
            return u32::from(self.total == 1 && self.single <= level);
        }
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
    /// so the count down to any level only grows: the cut only rises, as the walk's).
    levels: Vec<Histogram>,
    /// How many of the URLs are internal (what `MaxUrlsPerSite` counts).
    internal: u32,
    /// Per URL id, the digits in it (at most 255; 0 for a URL without a shape).
    digits: Vec<u8>,
}

/// The digits of `url` (at most 255).
fn digits_of(url: &str) -> u8 {
    u8::try_from(url.bytes().filter(u8::is_ascii_digit).count()).unwrap_or(u8::MAX)
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
        self.digits.push(if shape == NO_SHAPE {
            0
        } else {
            internal_url.map_or(0, digits_of)
        });
        self.of.push(shape);
    }

    /// The digits of URL `id`.
    pub(super) fn digits(&self, id: u32) -> u8 {
        self.digits.get(id as usize).copied().unwrap_or(0)
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
            h.add(to, self.digits.get(id as usize).copied().unwrap_or(0));
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
                rules.keeps(level, self.min_level[s as usize], h.total, h)
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
            + self.digits.capacity()
            + self.min_level.capacity() * 4
            + self.ids.capacity() * 16
            + self
                .levels
                .iter()
                .map(|h| {
                    std::mem::size_of::<Histogram>()
                        + h.at.capacity() * 4
                        + h.lengths.capacity() * 2
                })
                .sum::<usize>()
    }
}

impl Shapes {
    /// Encodes the shapes as they are, histories included (a level fallen leaves its digit
    /// range behind, which a rebuild from the URLs would not): a parked scope cuts after
    /// thawing exactly what it would have cut ([`super::park`]).
    pub(super) fn put(&self, out: &mut impl Put) {
        out.put_var(u64::from(self.internal));
        out.put_var(self.of.len() as u64);
        for (&s, &d) in self.of.iter().zip(&self.digits) {
            out.put_var(u64::from(s.wrapping_add(1)));
            out.put_u8(d);
        }
        out.put_var(self.ids.len() as u64);
        for (&hash, &id) in &self.ids {
            out.put_var(hash);
            out.put_var(u64::from(id));
        }
        out.put_var(self.levels.len() as u64);
        for (h, &min) in self.levels.iter().zip(&self.min_level) {
            out.put_var(u64::from(min));
            out.put_var(u64::from(h.total));
            out.put_var(u64::from(h.single));
            out.put_u8(h.single_digits);
            out.put_var(h.at.len() as u64);
            for (&n, &(lo, hi)) in h.at.iter().zip(&h.lengths) {
                out.put_var(u64::from(n));
                out.put_u8(lo);
                out.put_u8(hi);
            }
        }
    }

    /// Decodes what [`Self::put`] wrote.
    pub(super) fn read(r: &mut Reader<'_>) -> Result<Self, Corrupt> {
        let mut s = Shapes {
            internal: r.var32()?,
            ..Shapes::default()
        };
        let n = r.var()? as usize;
        s.of.reserve_exact(n.min(1 << 24));
        s.digits.reserve_exact(n.min(1 << 24));
        for _ in 0..n {
            s.of.push(r.var32()?.wrapping_sub(1));
            s.digits.push(r.u8()?);
        }
        for _ in 0..r.var()? {
            let hash = r.var()?;
            s.ids.insert(hash, r.var32()?);
        }
        for _ in 0..r.var()? {
            s.min_level.push(r.var32()?);
            let mut h = Histogram {
                total: r.var32()?,
                single: r.var32()?,
                single_digits: r.u8()?,
                ..Histogram::default()
            };
            for _ in 0..r.var()? {
                h.at.push(r.var32()?);
                h.lengths.push((r.u8()?, r.u8()?));
            }
            s.levels.push(h);
        }
        let shapes = s.levels.len() as u32;
        if s.ids.values().any(|&id| id >= shapes)
            || s.of.iter().any(|&id| id != NO_SHAPE && id >= shapes)
        {
            return Err(Corrupt("a shape of an unknown id"));
        }
        Ok(s)
    }
}

#[cfg(test)]
impl Shapes {
    /// The shapes in a fixed order ([`ScopeGraph::state_text`]).
    pub(super) fn state_text(&self) -> String {
        let mut ids: Vec<_> = self.ids.iter().collect();
        ids.sort();
        format!(
            "{} {:?} {:?} {ids:?} {:?} {:?}",
            self.internal, self.of, self.digits, self.min_level, self.levels
        )
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

/// The trap rule applied during a breadth-first walk of a scope.
pub(super) struct TrapWalk<'g> {
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

/// What the walk left out of one shape.
struct Cut {
    example: u32,
    urls: u32,
    shallowest: u32,
    branching: bool,
}

impl<'g> TrapWalk<'g> {
    pub(super) fn new(g: &'g ScopeGraph) -> Self {
        let shapes = g.shapes.count();
        TrapWalk {
            g,
            first: vec![NO_LEVEL; shapes],
            levels: vec![Histogram::default(); shapes],
            cut: HashMap::new(),
            marks: vec![0; g.recs.len()],
        }
    }

    /// The walk reached URL `id` at `level` (breadth-first, so the first time is at its
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
        let digits = self.g.shapes.digits(id);
        self.levels[s as usize].add(level, digits);
    }

    /// Whether the walk may go on to URL `id` at `level` (it reached it: [`Self::reached`]
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
        if rules.keeps(level, first, h.total, h) {
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

    /// A histogram with `counts[l]` URLs at level `l`.
    fn levels(counts: &[u32]) -> Histogram {
        let mut h = Histogram::default();
        for (l, &n) in counts.iter().enumerate() {
            (0..n).for_each(|_| h.add(l as u32, 3));
        }
        h
    }

    #[test]
    fn a_flat_shape_past_its_bound_is_cut_two_levels_below() {
        // A lattice: 30 new URLs a level from level 3 on. More than 100 down to level 6.
        let mut counts = vec![0, 0, 0];
        counts.extend([30; 38]);
        let h = levels(&counts);
        let keeps = |level| SIZE.keeps(level, 3, h.total, &h);
        // Level 12: 300 URLs down to level 10 (two up); flat from level 3 to 9 (three up: six
        // levels each within a tenth of the one before).
        assert!((0..=11).all(keeps));
        assert!(!keeps(12));
        assert!(!keeps(40));
        // Off: nothing is cut.
        assert!(TrapRules::default().keeps(1_000, 0, h.total, &h));
        // At the bound is not past it.
        let mut at_bound = vec![0];
        at_bound.extend([20; 5]);
        let h = levels(&at_bound);
        assert!(SIZE.keeps(7, 1, h.total, &h));
    }

    #[test]
    fn a_growing_site_that_runs_out_is_never_cut() {
        // The generated web of one to three links a page (module docs), its shape per level.
        let web = [
            0, 2, 5, 7, 10, 22, 37, 74, 152, 298, 591, 1190, 2293, 4306, 7388, 11481, 14787, 14737,
            10949, 6239, 2800, 900, 300, 90, 30, 10, 3, 1, 1,
        ];
        let h = levels(&web);
        let rules = TrapRules {
            levels: 0,
            pattern_urls: 1_000,
        };
        assert!((0..=30).all(|l| rules.keeps(l, 1, h.total, &h)));
        // One or two links a page: a plateau near the peak, a long thin tail.
        let sparse = [
            0, 1, 2, 4, 6, 7, 10, 14, 20, 28, 38, 56, 76, 102, 134, 182, 231, 267, 270, 282, 267,
            238, 186, 150, 106, 67, 48, 27, 18, 15, 10, 10, 7, 5, 5, 5, 3, 2, 2, 2, 2, 2, 4,
        ];
        let h = levels(&sparse);
        assert!((0..=45).all(|l| SIZE.keeps(l, 1, h.total, &h)));
        // An archive at one level, and what its pages link a level further.
        let h = levels(&[0, 1, 50_000, 5_000]);
        assert!((0..=5).all(|l| SIZE.keeps(l, 1, h.total, &h)));
    }

    #[test]
    fn a_histogram_of_one_url_allocates_nothing_and_counts_the_same() {
        let mut h = Histogram::default();
        h.add(4, 1);
        assert!(h.at.is_empty());
        assert_eq!((h.at(4), h.up_to(3), h.up_to(4), h.total), (1, 0, 1, 1));
        h.remove(4);
        h.add(2, 1);
        assert_eq!((h.at(2), h.at(4), h.total), (1, 0, 1));
        h.add(5, 1);
        assert_eq!(
            (h.at(2), h.at(5), h.up_to(4), h.up_to(5), h.total),
            (1, 1, 1, 2, 2)
        );
        h.remove(2);
        h.remove(2);
        assert_eq!((h.at(2), h.at(5), h.total), (0, 1, 1));
    }

    #[test]
    fn the_depth_rule_applies_beside_the_size_rule() {
        let both = TrapRules {
            levels: 5,
            pattern_urls: 100,
        };
        let h = Histogram::default();
        assert!(both.keeps(7, 2, 0, &h));
        assert!(!both.keeps(8, 2, 0, &h));
    }

    #[test]
    fn live_counts_follow_levels_that_fall() {
        let mut s = Shapes::default();
        let rules = TrapRules {
            levels: 0,
            pattern_urls: 3,
        };
        // 16 URLs at each of levels 1 to 10, one at level 11: cut (more than 3 two levels up,
        // flat from level 3 to 8).
        for l in 1..=10 {
            for k in 0..16 {
                s.push(Some(&format!("http://a.test/c/{l}/{k}")));
                s.lowered(s.of.len() as u32 - 1, NO_LEVEL, l);
            }
        }
        s.push(Some("http://a.test/c/11/0"));
        let deep = s.of.len() as u32 - 1;
        s.lowered(deep, NO_LEVEL, 11);
        assert!(!s.admits(deep, 11, rules));
        // Its level falls to 3: too few levels above it to be flat; kept, and counted once.
        s.lowered(deep, 11, 3);
        assert!(s.admits(deep, 3, rules));
        assert_eq!(s.levels[0].total, 161);
        assert_eq!(s.levels[0].at(3), 17);
        assert_eq!(s.levels[0].at(11), 0);
        // A URL without digits has no shape and is never cut.
        s.push(Some("http://a.test/about"));
        let about = s.of.len() as u32 - 1;
        s.lowered(about, NO_LEVEL, 500);
        assert!(s.admits(about, 500, rules));
    }

    #[test]
    fn a_tree_whose_numbers_grow_a_digit_a_level_is_cut() {
        // /calendar/N → N1, N2: 2^(L-1) URLs of L digits at level L.
        let mut h = Histogram::default();
        for l in 1..=16u32 {
            for _ in 0..(1u32 << (l - 1)) {
                h.add(l, l as u8);
            }
        }
        let rules = TrapRules {
            levels: 0,
            pattern_urls: 1_000,
        };
        let keeps = |l| rules.keeps(l, 1, h.total, &h);
        // Past 1,000 URLs two levels up at level 12, growing a digit a level from level 5 to 9.
        assert!((0..=11).all(keeps));
        assert!(!keeps(12));
        // The same counts with numbers of any length at each level (a random web): kept.
        let mut random = Histogram::default();
        for l in 1..=16u32 {
            for k in 0..(1u32 << (l - 1)) {
                random.add(l, 1 + (k % 6) as u8);
            }
        }
        assert!((0..=16).all(|l| rules.keeps(l, 1, random.total, &random)));
        // One length for every level (dates): kept.
        let mut dated = Histogram::default();
        for l in 1..=16u32 {
            for _ in 0..(1u32 << (l - 1)) {
                dated.add(l, 8);
            }
        }
        assert!((0..=16).all(|l| rules.keeps(l, 1, dated.total, &dated)));
    }
}

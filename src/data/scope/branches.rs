//! The branching-trap rule (SPEC §9, issue 49): a URL pattern whose URLs keep appearing level
//! after level — a calendar whose days, months and years each link the next and the previous
//! one, a listing whose page × sort × view links every combination — grows with every level,
//! where `TrapLevels` bounds only how deep a numbered chain goes. Each internal URL has a
//! *branch shape* (`url_rules::branch_pattern`: the path's numbers and the query's values
//! generalised); a URL of a shape is not fetched when it lies more than [`FREE_LEVELS`] levels
//! below the shape's shallowest URL and the shape already has [`BRANCH_URLS`] URLs at least two
//! levels above it.
//!
//! An archive of thousands of dated articles linked from one page sits within the free
//! levels: it is never cut. The rule counts levels, not fetch order, so it is replayed like
//! the `TrapLevels` rule ([`super::traps::TrapReplay`]): in breadth-first order every URL two
//! levels up is known before a URL is decided. The live crawl counts the URLs it queued, at
//! their level now (levels only fall): it cuts at a level only where the replay does too.

use std::collections::HashMap;

use super::NO_LEVEL;
use super::traps::NO_SHAPE;
use crate::url_rules::branch_shape;

/// Levels below a shape's shallowest URL where it may have any number of URLs.
pub(super) const FREE_LEVELS: u32 = 2;

/// URLs of a shape, two levels up or more, past which deeper ones are not fetched.
pub(super) const BRANCH_URLS: u32 = 1_000;

/// The branch shapes of a scope's URLs as the live crawl knows them.
#[derive(Debug, Default)]
pub(super) struct Branches {
    /// Per URL id, its branch shape id (or [`NO_SHAPE`]).
    of: Vec<u32>,
    /// Shape hash → shape id.
    ids: HashMap<u64, u32>,
    /// Per shape id, the shallowest level of its URLs known so far.
    min_level: Vec<u32>,
    /// Per shape id, its queued URLs by level: (level, URLs), by level.
    counts: Vec<Vec<(u32, u32)>>,
    /// Per URL id, the level it is counted at ([`NO_LEVEL`]: not counted).
    counted: Vec<u32>,
}

impl Branches {
    /// A URL was interned (its id is the next one): `Some(url)` for an internal URL.
    pub(super) fn push(&mut self, internal_url: Option<&str>) {
        let shape = internal_url
            .and_then(branch_shape)
            .map_or(NO_SHAPE, |hash| {
                let next = self.min_level.len() as u32;
                let id = *self.ids.entry(hash).or_insert(next);
                if id == next {
                    self.min_level.push(NO_LEVEL);
                    self.counts.push(Vec::new());
                }
                id
            });
        self.of.push(shape);
        self.counted.push(NO_LEVEL);
    }

    /// URL `id` is now known at `level` (lower than before): the shape's shallowest level, and
    /// where it is counted.
    pub(super) fn lowered(&mut self, id: u32, level: u32) {
        let s = self.shape(id);
        if s == NO_SHAPE {
            return;
        }
        let m = &mut self.min_level[s as usize];
        *m = (*m).min(level);
        let at = self.counted[id as usize];
        if at != NO_LEVEL && level < at {
            add(&mut self.counts[s as usize], at, -1);
            add(&mut self.counts[s as usize], level, 1);
            self.counted[id as usize] = level;
        }
    }

    /// URL `id` was queued at `level`: it counts for its shape.
    pub(super) fn queued(&mut self, id: u32, level: u32) {
        let s = self.shape(id);
        if s == NO_SHAPE || level == NO_LEVEL {
            return;
        }
        match self.counted[id as usize] {
            NO_LEVEL => {
                add(&mut self.counts[s as usize], level, 1);
                self.counted[id as usize] = level;
            }
            at if level < at => self.lowered(id, level),
            _ => {}
        }
    }

    /// URL `id` waits again (a limit lowered between runs): it no longer counts.
    pub(super) fn withdrawn(&mut self, id: u32) {
        let s = self.shape(id);
        let at = self.counted.get(id as usize).copied().unwrap_or(NO_LEVEL);
        if s != NO_SHAPE && at != NO_LEVEL {
            add(&mut self.counts[s as usize], at, -1);
            self.counted[id as usize] = NO_LEVEL;
        }
    }

    /// Whether URL `id` at `level` may be fetched under the rule.
    pub(super) fn admits(&self, id: u32, level: u32) -> bool {
        let s = self.shape(id);
        if s == NO_SHAPE {
            return true;
        }
        admits(self.min_level[s as usize], &self.counts[s as usize], level)
    }

    /// The branch shape id of URL `id`.
    pub(super) fn shape(&self, id: u32) -> u32 {
        self.of.get(id as usize).copied().unwrap_or(NO_SHAPE)
    }

    /// How many shapes there are.
    pub(super) fn count(&self) -> usize {
        self.min_level.len()
    }

    /// Approximate heap use.
    pub(super) fn heap_bytes(&self) -> usize {
        self.of.capacity() * 4
            + self.counted.capacity() * 4
            + self.min_level.capacity() * 4
            + self.ids.capacity() * 16
            + self
                .counts
                .iter()
                .map(|c| c.capacity() * 8 + 24)
                .sum::<usize>()
    }
}

/// The rule for a URL at `level` of a shape whose shallowest URL is at `min` and whose URLs
/// are `counts` (level, URLs) by level.
pub(super) fn admits(min: u32, counts: &[(u32, u32)], level: u32) -> bool {
    if min == NO_LEVEL || level <= min.saturating_add(FREE_LEVELS) {
        return true;
    }
    let above: u32 = counts
        .iter()
        .take_while(|(l, _)| l.saturating_add(2) <= level)
        .map(|(_, n)| *n)
        .sum();
    above < BRANCH_URLS
}

/// Adds `n` URLs at `level` to a shape's counts (kept by level).
pub(super) fn add(counts: &mut Vec<(u32, u32)>, level: u32, n: i32) {
    match counts.binary_search_by_key(&level, |(l, _)| *l) {
        Ok(i) => {
            counts[i].1 = counts[i].1.saturating_add_signed(n);
            if counts[i].1 == 0 {
                counts.remove(i);
            }
        }
        Err(i) if n > 0 => counts.insert(i, (level, n.unsigned_abs())),
        Err(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shape_is_free_near_its_top_and_bounded_below_it() {
        // Thousands at the shape's first levels: all admitted, at any level near the top.
        let wide = vec![(3, 5 * BRANCH_URLS)];
        assert!(admits(3, &wide, 3));
        assert!(admits(3, &wide, 5));
        // Two levels below those thousands: cut.
        assert!(!admits(3, &wide, 6));
        // A level below them only: the level just above is not counted yet.
        let half = BRANCH_URLS / 2;
        let mut counts = vec![(3, 10), (4, half + 100), (5, half)];
        assert!(
            admits(3, &counts, 6),
            "half and a few two levels up or more"
        );
        assert!(!admits(3, &counts, 7), "more than the bound");
        add(&mut counts, 4, -((half + 100) as i32));
        assert_eq!(counts, vec![(3, 10), (5, half)]);
        assert!(admits(3, &counts, 7));
    }

    #[test]
    fn urls_are_counted_once_at_their_lowest_level() {
        let mut b = Branches::default();
        b.push(Some("http://a.test/calendar/2024/05/01"));
        b.push(Some("http://a.test/calendar/2024/05/02"));
        b.push(Some("http://a.test/about"));
        assert_eq!(b.count(), 1);
        assert_eq!(b.shape(2), NO_SHAPE);
        b.lowered(0, 4);
        b.queued(0, 4);
        b.queued(0, 4);
        b.lowered(1, 6);
        b.queued(1, 6);
        assert_eq!(b.counts[0], vec![(4, 1), (6, 1)]);
        b.lowered(1, 5);
        assert_eq!(b.counts[0], vec![(4, 1), (5, 1)]);
        b.withdrawn(0);
        assert_eq!(b.counts[0], vec![(5, 1)]);
        assert!(b.admits(2, 100));
    }
}

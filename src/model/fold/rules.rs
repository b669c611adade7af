//! What a site's pages change from one response to the next, learned by fetching a page twice
//! ([`super::learn`]) and applied to every digest of the site's pages ([`super::digest()`]).
//!
//! A rule names a place and a shape, never a value: "a word shaped like `99:99:99` after
//! `at` in the footer's `<span>`", "the `value` of this form's hidden input", "the items of
//! the `<ul class="related">` in any order". Two pages that differ in a word of another shape,
//! or at another place — a price, a name, a date in the text — stay two pages.

use std::collections::BTreeSet;

use hashbrown::HashSet;
use xxhash_rust::xxh3::xxh3_64;

use crate::base::storage::codec::{Corrupt, Put, Reader};

/// Most rules kept per site: a site whose every word changed would otherwise learn the page.
pub(crate) const MAX_RULES: usize = 256;

/// One site's learned rules.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SiteRules {
    /// (place, shape) of words that change per response; a place is an element path and the
    /// word before.
    pub(crate) words: HashSet<(u64, u64)>,
    /// Element paths that have word rules (most text is at places without).
    pub(crate) word_paths: HashSet<u64>,
    /// (element path and attribute name, shape) of attribute values that change.
    pub(crate) values: HashSet<(u64, u64)>,
    /// Element paths whose children come in an order that changes per response.
    pub(crate) unordered: HashSet<u64>,
    /// Query parameters found to be session ids (lower case): every internal link carries
    /// one value, and the page's second copy another ([`super::session`]).
    pub session_params: BTreeSet<String>,
}

impl SiteRules {
    /// Whether it holds no rule.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
            && self.values.is_empty()
            && self.unordered.is_empty()
            && self.session_params.is_empty()
    }

    /// How many rules it holds.
    pub fn len(&self) -> usize {
        self.words.len() + self.values.len() + self.unordered.len() + self.session_params.len()
    }

    /// Adds `other`'s rules (up to `MAX_RULES`); whether any was new.
    pub fn absorb(&mut self, other: &SiteRules) -> bool {
        let before = self.len();
        for &w in &other.words {
            if self.len() < MAX_RULES {
                self.words.insert(w);
            }
        }
        self.word_paths.extend(other.word_paths.iter().copied());
        for &v in &other.values {
            if self.len() < MAX_RULES {
                self.values.insert(v);
            }
        }
        for &u in &other.unordered {
            if self.len() < MAX_RULES {
                self.unordered.insert(u);
            }
        }
        for p in &other.session_params {
            if self.len() < MAX_RULES {
                self.session_params.insert(p.clone());
            }
        }
        self.len() != before
    }

    /// A word rule at element path `path` (`place` is [`place`] of it).
    pub(crate) fn add_word_at(&mut self, path: u64, place: u64, shape: u64) {
        self.words.insert((place, shape));
        self.word_paths.insert(path);
    }

    /// Its bytes, sorted so that equal rules give equal bytes.
    pub(crate) fn put(&self, out: &mut impl Put) {
        let mut words: Vec<_> = self.words.iter().copied().collect();
        words.sort_unstable();
        let mut paths: Vec<_> = self.word_paths.iter().copied().collect();
        paths.sort_unstable();
        let mut values: Vec<_> = self.values.iter().copied().collect();
        values.sort_unstable();
        let mut unordered: Vec<_> = self.unordered.iter().copied().collect();
        unordered.sort_unstable();
        out.put_var(words.len() as u64);
        for (a, b) in words {
            out.put_var(a);
            out.put_var(b);
        }
        out.put_var(paths.len() as u64);
        for p in paths {
            out.put_var(p);
        }
        out.put_var(values.len() as u64);
        for (a, b) in values {
            out.put_var(a);
            out.put_var(b);
        }
        out.put_var(unordered.len() as u64);
        for u in unordered {
            out.put_var(u);
        }
        out.put_var(self.session_params.len() as u64);
        for p in &self.session_params {
            out.put_bytes(p.as_bytes());
        }
    }

    /// Reads what [`Self::put`] wrote.
    pub(crate) fn read(r: &mut Reader<'_>) -> Result<Self, Corrupt> {
        let mut rules = SiteRules::default();
        for _ in 0..r.var()?.min(MAX_RULES as u64 * 4) {
            rules.words.insert((r.var()?, r.var()?));
        }
        for _ in 0..r.var()?.min(MAX_RULES as u64 * 4) {
            rules.word_paths.insert(r.var()?);
        }
        for _ in 0..r.var()?.min(MAX_RULES as u64 * 4) {
            rules.values.insert((r.var()?, r.var()?));
        }
        for _ in 0..r.var()?.min(MAX_RULES as u64 * 4) {
            rules.unordered.insert(r.var()?);
        }
        for _ in 0..r.var()?.min(MAX_RULES as u64) {
            rules.session_params.insert(r.str()?.to_owned());
        }
        Ok(rules)
    }
}

/// A word's shape: digits, lower- and upper-case letters each as a class, runs collapsed, other
/// characters kept; a long mix of letters and digits (a token, an id) is one class of its own.
pub(crate) fn shape(word: &str) -> u64 {
    let letters = word.bytes().filter(u8::is_ascii_alphabetic).count();
    let digits = word.bytes().filter(u8::is_ascii_digit).count();
    if letters > 0 && digits > 0 && letters + digits >= 12 {
        return xxh3_64(b"\x01token");
    }
    let mut s = Vec::with_capacity(word.len());
    for c in word.bytes() {
        let class = match c {
            b'0'..=b'9' => b'9',
            b'a'..=b'z' => b'a',
            b'A'..=b'Z' => b'A',
            other => other,
        };
        if s.last() != Some(&class) || !matches!(class, b'9' | b'a' | b'A') {
            s.push(class);
        }
    }
    xxh3_64(&s)
}

/// The place of a word: its element path and the word before it in the same text (its shape
/// when it holds a digit, so that "at 2026-11-27 15:40:12" names the time's place the same on
/// every day).
pub(crate) fn place(path: u64, previous: Option<&str>) -> u64 {
    let key = match previous {
        None => 0,
        Some(w) if w.bytes().any(|b| b.is_ascii_digit()) => shape(w),
        Some(w) => xxh3_64(w.to_lowercase().as_bytes()),
    };
    xxh3_64(&[path.to_le_bytes(), key.to_le_bytes()].concat())
}

/// The key of an attribute's place: the element path and the attribute's name.
pub(crate) fn value_place(path: u64, attr: &str) -> u64 {
    xxh3_64(
        &[
            path.to_le_bytes(),
            xxh3_64(attr.to_ascii_lowercase().as_bytes()).to_le_bytes(),
        ]
        .concat(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_tell_a_time_from_a_price_but_not_two_times() {
        assert_eq!(shape("15:40:12"), shape("09:01:59"));
        assert_ne!(shape("15:40:12"), shape("19.99"));
        assert_eq!(shape("8f3a9c0d11e2"), shape("a1b2c3d4e5f6a7"));
        assert_ne!(shape("Alice"), shape("alice"));
    }

    #[test]
    fn rules_round_trip_in_a_stable_order() {
        let mut r = SiteRules::default();
        r.add_word_at(7, place(7, Some("at")), shape("12:00:00"));
        r.values.insert((value_place(3, "value"), shape("abc")));
        r.unordered.insert(99);
        r.session_params.insert("visit".into());
        let mut a = Vec::new();
        r.put(&mut a);
        let back = SiteRules::read(&mut Reader::new(&a)).unwrap_or_default();
        assert_eq!(back, r);
        let mut b = Vec::new();
        back.put(&mut b);
        assert_eq!(a, b);
    }
}

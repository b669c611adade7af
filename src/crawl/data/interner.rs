//! A string interner: each distinct string stored once, in one contiguous arena, named by a
//! dense `u32`. Per string the overhead is 4 bytes of end offset plus one hash-table slot —
//! this is what keeps millions of URLs and anchors small (issue: "keep each URL string once").

use std::hash::BuildHasher;

use hashbrown::DefaultHashBuilder;
use hashbrown::HashTable;

use crate::base::storage::codec::Corrupt;

/// The arena would pass 4 GiB: more text than one in-memory scope is built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("more than 4 GiB of distinct strings in one crawl scope")]
pub struct InternerFull;

/// Strings ↔ dense ids.
#[derive(Default)]
pub struct Interner {
    arena: String,
    /// `ends[i]` is where string `i` ends in `arena`; it starts where `i - 1` ends.
    ends: Vec<u32>,
    table: HashTable<u32>,
    hasher: DefaultHashBuilder,
}

impl std::fmt::Debug for Interner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interner")
            .field("len", &self.ends.len())
            .field("bytes", &self.arena.len())
            .finish()
    }
}

impl Interner {
    /// Number of strings.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether no string was interned.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The string with id `id`.
    pub fn get(&self, id: u32) -> &str {
        let i = id as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.arena[start..self.ends[i] as usize]
    }

    /// The id of `s`, if interned.
    pub fn lookup(&self, s: &str) -> Option<u32> {
        let hash = self.hasher.hash_one(s);
        self.table.find(hash, |&id| self.get(id) == s).copied()
    }

    /// The id of `s`, interning it if new; the flag says whether it was new.
    pub fn intern(&mut self, s: &str) -> Result<(u32, bool), InternerFull> {
        let hash = self.hasher.hash_one(s);
        if let Some(&id) = self.table.find(hash, |&id| self.get(id) == s) {
            return Ok((id, false));
        }
        let end = u32::try_from(self.arena.len() + s.len()).map_err(|_| InternerFull)?;
        let id = u32::try_from(self.ends.len()).map_err(|_| InternerFull)?;
        self.arena.push_str(s);
        self.ends.push(end);
        let (arena, ends, hasher) = (&self.arena, &self.ends, &self.hasher);
        self.table.insert_unique(hash, id, |&other| {
            let i = other as usize;
            let start = if i == 0 { 0 } else { ends[i - 1] as usize };
            hasher.hash_one(&arena[start..ends[i] as usize])
        });
        Ok((id, true))
    }

    /// The arena and end offsets, for saving.
    pub(crate) fn parts(&self) -> (&str, &[u32]) {
        (&self.arena, &self.ends)
    }

    /// Rebuilds an interner from saved parts, checking them.
    pub(crate) fn from_parts(arena: String, ends: Vec<u32>) -> Result<Self, Corrupt> {
        let mut prev = 0u32;
        for &e in &ends {
            if e < prev || e as usize > arena.len() || !arena.is_char_boundary(e as usize) {
                return Err(Corrupt("interner offsets"));
            }
            prev = e;
        }
        if prev as usize != arena.len() {
            return Err(Corrupt("interner length"));
        }
        let mut i = Interner {
            arena,
            ends,
            table: HashTable::with_capacity(0),
            hasher: DefaultHashBuilder::default(),
        };
        i.table.reserve(i.ends.len(), |_| 0);
        for id in 0..i.ends.len() as u32 {
            let s = i.get(id);
            let hash = i.hasher.hash_one(s);
            if i.table.find(hash, |&other| i.get(other) == s).is_some() {
                return Err(Corrupt("interner holds a string twice"));
            }
            let (arena, ends, hasher) = (&i.arena, &i.ends, &i.hasher);
            i.table.insert_unique(hash, id, |&other| {
                let k = other as usize;
                let start = if k == 0 { 0 } else { ends[k - 1] as usize };
                hasher.hash_one(&arena[start..ends[k] as usize])
            });
        }
        Ok(i)
    }

    /// Bytes held (arena, offsets and table), for memory reports.
    pub fn heap_bytes(&self) -> usize {
        self.arena.capacity() + self.ends.capacity() * 4 + self.table.capacity() * 5
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intern_lookup_roundtrip() {
        let mut i = Interner::default();
        assert_eq!(i.intern("a").unwrap(), (0, true));
        assert_eq!(i.intern("").unwrap(), (1, true));
        assert_eq!(i.intern("bc").unwrap(), (2, true));
        assert_eq!(i.intern("a").unwrap(), (0, false));
        assert_eq!((i.get(0), i.get(1), i.get(2)), ("a", "", "bc"));
        assert_eq!(i.lookup("bc"), Some(2));
        assert_eq!(i.lookup("zz"), None);
        for n in 0..10_000 {
            i.intern(&format!("http://x.test/{n}")).unwrap();
        }
        assert_eq!(i.lookup("http://x.test/9999"), Some(10_002));
        assert_eq!(i.get(10_002), "http://x.test/9999");
    }
}

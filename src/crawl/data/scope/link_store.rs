//! A scope's link records, packed (issue 19): the largest structure of a crawl of a big site
//! (2.4 million links on the Rust documentation) was a vector of 8-byte [`LinkRec`]s. A
//! page's records are stored as variable-length integers instead, each id as the difference
//! from the page's previous id of the same kind of table (URLs or texts): links to the next
//! URLs of a listing differ by one, and most internal links carry no anchor text (0). The
//! records read back are exactly the ones written; only [`ScopeGraph`](super::ScopeGraph)'s
//! memory changes.
//!
//! One record: `varint(zigzag(id − previous id) << 2 | kind)` then `varint(text id)`; a repeat
//! record is `varint(count << 2 | 3)` alone. A link with `rel` qualifiers (few are) is preceded
//! by the byte `3` (a repeat of no copies, never written otherwise) and `varint(rel)`: the
//! qualifiers cost those links two bytes and every other link nothing (kept in the text id's
//! varint, three more bits on every record grew the Rust documentation's peak by 1.5 MB).

use super::{ID_MASK, LinkRec, REPEAT};
use crate::crawl::data::error::DataError;
use crate::crawl::data::records::LinkKind;

/// The head of a record that only says the next record's `rel` qualifiers.
const REL_PREFIX: u64 = REPEAT as u64;

/// Every page's link records, packed one page after another.
#[derive(Debug, Default)]
pub(super) struct LinkStore {
    bytes: Vec<u8>,
}

/// Where a page's records are: a byte range of the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct LinkRange {
    pub(super) start: u32,
    pub(super) len: u32,
}

/// The previous ids of a page's records, per table (URL ids or text ids).
#[derive(Debug, Clone, Copy, Default)]
struct Previous {
    url: u32,
    text: u32,
}

impl Previous {
    fn of(&mut self, kind: LinkKind) -> &mut u32 {
        match kind {
            LinkKind::Bad => &mut self.text,
            LinkKind::Internal | LinkKind::External => &mut self.url,
        }
    }
}

impl LinkStore {
    /// Appends one page's records; where they are.
    pub(super) fn append(&mut self, recs: &[LinkRec]) -> Result<LinkRange, DataError> {
        let start = self.bytes.len();
        let mut prev = Previous::default();
        for r in recs {
            match r.kind() {
                None => put_var(
                    &mut self.bytes,
                    u64::from(r.repeats()) << 2 | u64::from(REPEAT),
                ),
                Some(kind) => {
                    let last = prev.of(kind);
                    let delta = i64::from(r.id()) - i64::from(*last);
                    *last = r.id();
                    let rel = r.rel().bits();
                    if rel != 0 {
                        put_var(&mut self.bytes, REL_PREFIX);
                        put_var(&mut self.bytes, u64::from(rel));
                    }
                    put_var(&mut self.bytes, zigzag(delta) << 2 | u64::from(kind.code()));
                    put_var(&mut self.bytes, u64::from(r.text()));
                }
            }
        }
        // Ranges are u32 byte offsets: when the end fits, the start and length do too.
        if u32::try_from(self.bytes.len()).is_err() {
            self.bytes.truncate(start);
            return Err(DataError::inconsistent(
                "more than 4 GiB of link records in one crawl scope",
            ));
        }
        Ok(LinkRange {
            start: start as u32,
            len: (self.bytes.len() - start) as u32,
        })
    }

    /// The records of one page, in the order they were appended.
    pub(super) fn records(&self, range: LinkRange) -> LinkIter<'_> {
        let start = range.start as usize;
        let end = start
            .saturating_add(range.len as usize)
            .min(self.bytes.len());
        LinkIter {
            bytes: self.bytes.get(start..end).unwrap_or(&[]),
            prev: Previous::default(),
        }
    }

    /// Bytes held, for memory reports.
    pub(super) fn capacity(&self) -> usize {
        self.bytes.capacity()
    }
}

/// A page's records, decoded one at a time.
#[derive(Debug, Clone)]
pub(super) struct LinkIter<'a> {
    bytes: &'a [u8],
    prev: Previous,
}

impl Iterator for LinkIter<'_> {
    type Item = LinkRec;

    fn next(&mut self) -> Option<LinkRec> {
        let mut head = take_var(&mut self.bytes)?;
        let mut rel = crate::model::link_attrs::Rel::NONE;
        if head == REL_PREFIX {
            rel = crate::model::link_attrs::Rel::from_bits(
                u32::try_from(take_var(&mut self.bytes)?).ok()?,
            );
            head = take_var(&mut self.bytes)?;
        }
        let code = (head & 3) as u32;
        let Some(kind) = LinkKind::from_code(code) else {
            let n = u32::try_from(head >> 2).unwrap_or(ID_MASK).min(ID_MASK);
            return Some(LinkRec::repeat(n));
        };
        let last = self.prev.of(kind);
        let id = (i64::from(*last) + unzigzag(head >> 2)).clamp(0, i64::from(ID_MASK)) as u32;
        *last = id;
        let text = u32::try_from(take_var(&mut self.bytes)?).unwrap_or(u32::MAX);
        Some(LinkRec::new(kind, id, text, rel))
    }
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

fn put_var(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The next variable-length integer, or `None` at the end (or on a truncated one: the store
/// only holds what [`LinkStore::append`] wrote).
fn take_var(bytes: &mut &[u8]) -> Option<u64> {
    let mut v = 0u64;
    for (i, &b) in bytes.iter().enumerate().take(10) {
        v |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            *bytes = &bytes[i + 1..];
            return Some(v);
        }
    }
    *bytes = &[];
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::link_attrs::Rel;

    #[test]
    fn records_read_back_as_written_and_take_a_few_bytes() {
        let none = Rel::NONE;
        let all = Rel::parse("nofollow ugc sponsored");
        let recs = [
            LinkRec::new(LinkKind::Internal, 1000, 0, none),
            LinkRec::repeat(2),
            LinkRec::new(LinkKind::Internal, 1001, 0, Rel::UGC),
            LinkRec::new(LinkKind::Internal, 3, 77, none),
            LinkRec::new(
                LinkKind::External,
                ID_MASK,
                super::super::TEXT_LIMIT - 1,
                all,
            ),
            LinkRec::new(LinkKind::Bad, 5, 6, none),
            LinkRec::new(LinkKind::Bad, 2, 6, none),
            LinkRec::repeat(ID_MASK),
            LinkRec::new(LinkKind::Internal, 0, 0, Rel::NOFOLLOW),
        ];
        assert_eq!(recs[4].rel(), all);
        assert_eq!(recs[4].text(), super::super::TEXT_LIMIT - 1);
        assert_eq!((recs[8].rel(), recs[8].text()), (Rel::NOFOLLOW, 0));
        let mut store = LinkStore::default();
        let first = store.append(&recs[..4]).unwrap();
        let second = store.append(&recs[4..]).unwrap();
        assert_eq!(store.records(first).collect::<Vec<_>>(), &recs[..4]);
        assert_eq!(store.records(second).collect::<Vec<_>>(), &recs[4..]);
        // A first record: its id from 0 (two bytes here) and its text (one), after its `ugc`
        // (two); the next URL of a listing without anchor is one byte of id difference and
        // one of text.
        assert_eq!(store.append(&recs[2..3]).unwrap().len, 2 + 3);
        let next = [
            LinkRec::new(LinkKind::Internal, 1000, 0, none),
            LinkRec::new(LinkKind::Internal, 1001, 0, none),
        ];
        let r = store.append(&next).unwrap();
        assert_eq!(r.len, 3 + 2, "{r:?}");
        // A link with qualifiers costs two bytes more; one without, none.
        let next = [
            LinkRec::new(LinkKind::Internal, 1000, 0, Rel::NOFOLLOW),
            LinkRec::new(LinkKind::Internal, 1001, 9, all),
        ];
        let r = store.append(&next).unwrap();
        assert_eq!(r.len, 3 + 2 + 2 + 2);
        assert_eq!(store.records(r).collect::<Vec<_>>(), next);
        let wide = [LinkRec::new(LinkKind::External, 5, 100, Rel::NONE)];
        assert_eq!(
            store.append(&wide).unwrap().len,
            1 + 1,
            "a text id below 128: one byte"
        );
        assert_eq!(store.records(LinkRange::default()).count(), 0);
    }

    #[test]
    fn zigzag_round_trips_at_the_edges() {
        for v in [
            0i64,
            1,
            -1,
            63,
            -64,
            i64::from(ID_MASK),
            -i64::from(ID_MASK),
        ] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
    }
}

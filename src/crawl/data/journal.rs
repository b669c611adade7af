//! Journal records as bytes: the only place that writes or reads them. A record is the entries
//! of one commit (or one scope-level change), framed by `storage::frames` with its scope
//! number in front. Entries introduce each string the first time it is interned, in interning
//! order, then say what happened in ids ([`Entry`]). Re-applying (`scope/reapply.rs`) interns
//! the new strings — each must get exactly the next id, or the journal does not belong to the
//! state — and applies the rest with the same code as a live commit.

use super::records::{
    Entry, LinkKind, PageMeta, Pull, Resolved, ResolvedHop, ResolvedKind, ResolvedLink,
};
use crate::base::storage::codec::{Corrupt, Put, Reader};
use crate::base::storage::frames;
use crate::crawl::message::{Decided, HopKind};
use crate::model::bandit::Yield;
use crate::model::site::Origin;

const NEW_URL: u8 = 1;
const NEW_EXTERNAL: u8 = 2;
const NEW_TEXT: u8 = 3;
const COMMIT: u8 = 4;
const SET_LEVEL_LIMITS: u8 = 5;
const NEW_SITE: u8 = 6;
const ADD_SCOPE: u8 = 7;
const ADD_SEED: u8 = 8;
const RETIRED: u8 = 9;
const REVIVED: u8 = 10;
const LEARNED: u8 = 11;
const COOKIES: u8 = 12;
const ORPHAN: u8 = 13;

/// One scope's journal records not yet handed to the state store, the record being
/// assembled last, in place.
#[derive(Debug)]
pub(crate) struct JournalBuf {
    scope: u32,
    pending: Vec<u8>,
    /// Where the record being assembled starts in `pending` (`None`: none is).
    open: Option<usize>,
}

impl JournalBuf {
    /// An empty buffer for scope number `scope`.
    pub(crate) fn new(scope: u32) -> Self {
        JournalBuf {
            scope,
            pending: Vec::new(),
            open: None,
        }
    }

    /// The start of the record being assembled, opening one if none is.
    fn record(&mut self) -> usize {
        *self
            .open
            .get_or_insert_with(|| frames::open_frame(&mut self.pending, self.scope))
    }

    /// Frames records for scope number `scope` from now on.
    pub(crate) fn set_scope(&mut self, scope: u32) {
        self.scope = scope;
    }

    /// Adds one entry to the record being assembled.
    pub(crate) fn put(&mut self, entry: &Entry<'_>) {
        self.record();
        encode(&mut self.pending, entry);
    }

    /// Ends the record being assembled with the outcome of its commit (encoded straight from
    /// the reference: a commit is on the crawl's hot path).
    pub(crate) fn end_commit(&mut self, outcome: &Resolved) {
        self.record();
        encode_commit(&mut self.pending, outcome);
        self.end_record();
    }

    /// Closes the record being assembled: it becomes a pending record.
    pub(crate) fn end_record(&mut self) {
        let start = self.record();
        frames::close_frame(&mut self.pending, start);
        self.open = None;
    }

    /// Drops the record being assembled (its commit failed).
    pub(crate) fn abandon_record(&mut self) {
        if let Some(start) = self.open.take() {
            self.pending.truncate(start);
        }
    }

    /// Moves the pending records (whole ones: not a record being assembled) to the end of
    /// `out`: into an empty `out` by handing it the buffer itself, which then leaves with the
    /// records instead of staying behind at its largest.
    pub(crate) fn take_into(&mut self, out: &mut Vec<u8>) {
        let whole = self.open.unwrap_or(self.pending.len());
        if whole == self.pending.len() && out.is_empty() {
            // `out` was empty: `pending` now is.
            std::mem::swap(out, &mut self.pending);
        } else {
            out.extend_from_slice(&self.pending[..whole]);
            self.pending.drain(..whole);
            if let Some(start) = self.open.as_mut() {
                *start = 0;
            }
        }
        // Once its records are handed over a buffer keeps no allocation: a burst of big
        // pages' records (3.7 MB within 100 ms on the Rust documentation) stayed resident for
        // the rest of the crawl (issue 19), and a budgeted crawl keeps thousands of scopes
        // open, each holding what its last records took (8 MB for 4,000 sites, issue 69).
        if self.pending.is_empty() {
            self.pending = Vec::new();
        }
    }

    /// The records not handed over yet (and the open one), as bytes.
    #[cfg(test)]
    pub(crate) fn pending_bytes(&self) -> &[u8] {
        &self.pending
    }

    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.pending.capacity()
    }
}

fn encode(j: &mut Vec<u8>, entry: &Entry<'_>) {
    match entry {
        Entry::AddScope { origin, max_level } => {
            j.put_u8(ADD_SCOPE);
            j.put_bytes(origin.to_string().as_bytes());
            j.put_var(u64::from(*max_level));
        }
        Entry::NewUrl { site, url } => {
            j.put_u8(NEW_URL);
            j.put_var(u64::from(*site));
            j.put_bytes(url.as_bytes());
        }
        Entry::NewExternal { url } => {
            j.put_u8(NEW_EXTERNAL);
            j.put_bytes(url.as_bytes());
        }
        Entry::NewText { text } => {
            j.put_u8(NEW_TEXT);
            j.put_bytes(text.as_bytes());
        }
        Entry::NewSite { origin } => {
            j.put_u8(NEW_SITE);
            j.put_bytes(origin.to_string().as_bytes());
        }
        Entry::SetLevelLimits {
            max_level,
            traps,
            obey_nofollow,
        } => {
            j.put_u8(SET_LEVEL_LIMITS);
            j.put_var(u64::from(traps.levels));
            j.put_var(u64::from(*max_level));
            j.put_var(u64::from(traps.pattern_urls));
            j.put_u8(u8::from(*obey_nofollow));
        }
        Entry::AddSeed { origin } => {
            j.put_u8(ADD_SEED);
            j.put_bytes(origin.to_string().as_bytes());
        }
        Entry::Commit(r) => encode_commit(j, r),
        Entry::Retired(r) => {
            j.put_u8(RETIRED);
            r.put(j);
        }
        Entry::Revived { data } => {
            j.put_u8(REVIVED);
            j.put_bytes(data);
        }
        Entry::Learned { site, rules } => {
            j.put_u8(LEARNED);
            j.put_var(u64::from(*site));
            rules.put(j);
        }
        Entry::Cookies { site, jar } => {
            j.put_u8(COOKIES);
            j.put_var(u64::from(*site));
            j.put_var(jar.generation);
            j.put_bytes(&jar.bytes);
        }
        Entry::Orphan { site, url } => {
            j.put_u8(ORPHAN);
            j.put_var(u64::from(*site));
            j.put_bytes(url.as_bytes());
        }
    }
}

fn encode_commit(j: &mut Vec<u8>, r: &Resolved) {
    j.put_u8(COMMIT);
    j.put_var(r.pull.seq);
    j.put_var(u64::from(r.pull.yielded.new_external));
    j.put_var(u64::from(r.pull.yielded.external));
    j.put_var(u64::from(r.pull.extra));
    j.put_var(u64::from(r.task));
    j.put_var(r.chain.len() as u64);
    for h in &r.chain {
        // The hop's kind in the low bit.
        j.put_var(u64::from(h.url) << 1 | u64::from(h.kind == HopKind::MetaRefresh));
    }
    match &r.kind {
        ResolvedKind::Page { meta, links, probe } => {
            // 4: a page that asks for a soft-404 probe (its URL id after the links).
            j.put_u8(if probe.is_some() { 4 } else { 0 });
            meta.put(j);
            j.put_var(links.len() as u64);
            for l in links {
                // The kind in the low two bits, the `rel` qualifiers above.
                j.put_u8((l.kind.code() | l.rel.bits() << 2) as u8);
                j.put_var(u64::from(l.target));
                j.put_var(u64::from(l.aux));
                j.put_var(l.failure.map_or(0, |f| u64::from(f) + 1));
            }
            if let Some(p) = probe {
                j.put_var(u64::from(*p));
            }
        }
        ResolvedKind::OffSite(t) => {
            j.put_u8(1);
            j.put_var(u64::from(*t));
        }
        ResolvedKind::Failed { reason, decided } => {
            j.put_u8(2);
            j.put_var(u64::from(*reason));
            j.put_u8(u8::from(*decided == Decided::WithoutRequest));
        }
        ResolvedKind::Elsewhere { url, kind } => {
            j.put_u8(3);
            j.put_var(u64::from(*url));
            j.put_u8(u8::from(*kind == HopKind::MetaRefresh));
        }
    }
}

/// A record saying that scope `index` was written and released.
pub(crate) fn retired_record(out: &mut Vec<u8>, retired: &super::RetiredScope) {
    let mut entries = Vec::new();
    encode(&mut entries, &Entry::Retired(retired.clone()));
    frames::frame(out, retired.index, &entries);
}

/// A record saying that retired scope `index` is crawled again from `data` (its retired
/// data, as a snapshot holds it): until then the saved state named its file as its data,
/// which its next retirement replaces.
pub(crate) fn revived_record(out: &mut Vec<u8>, index: u32, data: &[u8]) {
    let mut entries = Vec::new();
    encode(&mut entries, &Entry::Revived { data });
    frames::frame(out, index, &entries);
}

/// The scope number a record payload is for, and its entries.
pub(crate) fn split_scope(payload: &[u8]) -> Result<(u32, &[u8]), Corrupt> {
    let mut r = Reader::new(payload);
    let scope = r.var32()?;
    Ok((scope, &payload[r.position()..]))
}

/// Decodes the entries of one record, stopping at the first that does not decode.
pub(crate) fn decode(entries: &[u8]) -> impl Iterator<Item = Result<Entry<'_>, Corrupt>> {
    let mut r = Reader::new(entries);
    let mut failed = false;
    std::iter::from_fn(move || {
        if failed || r.is_empty() {
            return None;
        }
        let entry = decode_one(&mut r);
        failed = entry.is_err();
        Some(entry)
    })
}

fn origin(text: &str) -> Result<Origin, Corrupt> {
    Origin::parse(text).ok_or(Corrupt("bad origin"))
}

fn decode_one<'a>(r: &mut Reader<'a>) -> Result<Entry<'a>, Corrupt> {
    Ok(match r.u8()? {
        ADD_SCOPE => Entry::AddScope {
            origin: origin(r.str()?)?,
            max_level: r.var32()?,
        },
        NEW_URL => Entry::NewUrl {
            site: u16::try_from(r.var()?).map_err(|_| Corrupt("site out of range"))?,
            url: r.str()?,
        },
        NEW_EXTERNAL => Entry::NewExternal { url: r.str()? },
        NEW_TEXT => Entry::NewText { text: r.str()? },
        NEW_SITE => Entry::NewSite {
            origin: origin(r.str()?)?,
        },
        SET_LEVEL_LIMITS => {
            let levels = r.var32()?;
            let max_level = r.var32()?;
            Entry::SetLevelLimits {
                max_level,
                traps: super::TrapRules {
                    levels,
                    pattern_urls: r.var32()?,
                },
                obey_nofollow: r.u8()? != 0,
            }
        }
        ADD_SEED => Entry::AddSeed {
            origin: origin(r.str()?)?,
        },
        COMMIT => Entry::Commit(decode_commit(r)?),
        RETIRED => Entry::Retired(super::RetiredScope::read(r)?),
        REVIVED => Entry::Revived { data: r.bytes()? },
        LEARNED => Entry::Learned {
            site: u16::try_from(r.var()?).map_err(|_| Corrupt("site out of range"))?,
            rules: crate::model::fold::SiteRules::read(r)?,
        },
        COOKIES => Entry::Cookies {
            site: u16::try_from(r.var()?).map_err(|_| Corrupt("site out of range"))?,
            jar: crate::model::cookies::SavedJar {
                generation: r.var()?,
                bytes: r.bytes()?.to_vec(),
            },
        },
        ORPHAN => Entry::Orphan {
            site: u16::try_from(r.var()?).map_err(|_| Corrupt("site out of range"))?,
            url: r.str()?,
        },
        _ => return Err(Corrupt("unknown journal entry")),
    })
}

fn decode_commit(r: &mut Reader<'_>) -> Result<Resolved, Corrupt> {
    let pull = Pull {
        seq: r.var()?,
        yielded: Yield {
            new_external: r.var32()?,
            external: r.var32()?,
        },
        extra: r.var32()?,
    };
    let task = r.var32()?;
    let n = r.var()?;
    let mut chain = Vec::new();
    for _ in 0..n {
        let v = r.var()?;
        let url = u32::try_from(v >> 1).map_err(|_| Corrupt("value out of range"))?;
        let kind = if v & 1 == 1 {
            HopKind::MetaRefresh
        } else {
            HopKind::Http
        };
        chain.push(ResolvedHop { url, kind });
    }
    let kind = match r.u8()? {
        code @ (0 | 4) => {
            let meta = PageMeta::read(r)?;
            let n = r.var()?;
            let mut links = Vec::new();
            for _ in 0..n {
                let code = u32::from(r.u8()?);
                let kind = LinkKind::from_code(code & 3).ok_or(Corrupt("unknown link kind"))?;
                let rel = crate::model::link_attrs::Rel::from_bits(code >> 2);
                let target = r.var32()?;
                let aux = r.var32()?;
                let failure = match r.var32()? {
                    0 => None,
                    f => Some(f - 1),
                };
                links.push(ResolvedLink {
                    kind,
                    target,
                    aux,
                    failure,
                    rel,
                });
            }
            let probe = if code == 4 { Some(r.var32()?) } else { None };
            ResolvedKind::Page { meta, links, probe }
        }
        1 => ResolvedKind::OffSite(r.var32()?),
        2 => ResolvedKind::Failed {
            reason: r.var32()?,
            decided: if r.u8()? != 0 {
                Decided::WithoutRequest
            } else {
                Decided::ByRequest
            },
        },
        3 => ResolvedKind::Elsewhere {
            url: r.var32()?,
            kind: if r.u8()? != 0 {
                HopKind::MetaRefresh
            } else {
                HopKind::Http
            },
        },
        _ => return Err(Corrupt("unknown outcome kind")),
    };
    Ok(Resolved {
        task,
        chain,
        kind,
        pull,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_round_trips() {
        let o = origin("http://a.test:81").unwrap();
        let entries = vec![
            Entry::AddScope {
                origin: o.clone(),
                max_level: 7,
            },
            Entry::NewUrl {
                site: 3,
                url: "http://a.test:81/x",
            },
            Entry::NewExternal {
                url: "https://b.test/",
            },
            Entry::NewText { text: "héllo" },
            Entry::NewSite { origin: o },
            Entry::SetLevelLimits {
                max_level: 2,
                traps: crate::crawl::data::TrapRules {
                    levels: 30,
                    pattern_urls: 10_000,
                },
                obey_nofollow: true,
            },
            Entry::Learned {
                site: 1,
                rules: crate::model::fold::learn::learn(
                    "<p>A page at 10:00:01 with words that stay</p>",
                    "<p>A page at 10:00:02 with words that stay</p>",
                ),
            },
            Entry::Cookies {
                site: 1,
                jar: crate::model::cookies::SavedJar {
                    generation: 7,
                    bytes: br#"{"cookies":[]}"#.to_vec(),
                },
            },
            Entry::Commit(Resolved {
                pull: Pull {
                    seq: 41,
                    yielded: Yield {
                        new_external: 2,
                        external: 3,
                    },
                    extra: 1,
                },
                task: 1,
                chain: vec![
                    ResolvedHop {
                        url: 2,
                        kind: HopKind::Http,
                    },
                    ResolvedHop {
                        url: 3,
                        kind: HopKind::MetaRefresh,
                    },
                ],
                kind: ResolvedKind::Page {
                    meta: PageMeta::new(1 << 100, 5, 0, Some(7)),
                    links: vec![ResolvedLink {
                        kind: LinkKind::Bad,
                        target: 4,
                        aux: 0,
                        failure: Some(9),
                        rel: crate::model::link_attrs::Rel::NONE,
                    }],
                    probe: Some(3),
                },
            }),
            Entry::Commit(Resolved {
                pull: Pull {
                    seq: 42,
                    yielded: Yield::default(),
                    extra: 0,
                },
                task: 0,
                chain: Vec::new(),
                kind: ResolvedKind::Failed {
                    reason: 6,
                    decided: Decided::WithoutRequest,
                },
            }),
        ];
        let mut buf = JournalBuf::new(4);
        for e in &entries {
            buf.put(e);
        }
        buf.end_record();
        let mut out = Vec::new();
        buf.take_into(&mut out);
        let payloads: Vec<&[u8]> = frames::frames(&out).collect();
        assert_eq!(payloads.len(), 1);
        let (scope, rest) = split_scope(payloads[0]).unwrap();
        assert_eq!(scope, 4);
        let back: Vec<Entry<'_>> = decode(rest).collect::<Result<_, _>>().unwrap();
        assert_eq!(back, entries);
        assert!(decode(&[99]).next().unwrap().is_err());
    }

    fn text(t: &str) -> Entry<'_> {
        Entry::NewText { text: t }
    }

    #[test]
    fn records_built_in_place_are_the_framed_bytes_and_an_abandoned_one_leaves_nothing() {
        let mut buf = JournalBuf::new(7);
        buf.put(&text("a"));
        buf.put(&text("bb"));
        buf.end_record();
        buf.put(&text("failed commit"));
        buf.abandon_record();
        buf.end_record(); // a record with no entries
        let mut out = Vec::new();
        buf.take_into(&mut out);
        let mut want = Vec::new();
        let mut entries = Vec::new();
        encode(&mut entries, &text("a"));
        encode(&mut entries, &text("bb"));
        frames::frame(&mut want, 7, &entries);
        frames::frame(&mut want, 7, &[]);
        assert_eq!(out, want);
    }

    #[test]
    fn a_record_being_assembled_stays_until_it_ends_and_a_burst_keeps_no_buffer() {
        let mut buf = JournalBuf::new(1);
        buf.put(&text("whole"));
        buf.end_record();
        buf.put(&text("half"));
        let mut out = Vec::new();
        buf.take_into(&mut out);
        assert_eq!(
            frames::frames(&out).count(),
            1,
            "only the whole record goes"
        );
        buf.put(&text("done"));
        buf.end_record();
        buf.take_into(&mut out);
        let texts: Vec<Entry<'_>> = frames::frames(&out)
            .flat_map(|p| decode(split_scope(p).unwrap().1).map(Result::unwrap))
            .collect();
        assert_eq!(texts, [text("whole"), text("half"), text("done")]);
        // Records handed over leave the buffer holding no allocation.
        let big = "x".repeat(1 << 20);
        for _ in 0..4 {
            buf.put(&text(&big));
            buf.end_record();
        }
        let mut taken = Vec::new();
        buf.take_into(&mut taken);
        assert_eq!(frames::frames(&taken).count(), 4);
        assert_eq!(buf.heap_bytes(), 0);
        // Into a buffer that already holds records, the same.
        for _ in 0..4 {
            buf.put(&text(&big));
            buf.end_record();
        }
        buf.take_into(&mut taken);
        assert_eq!(frames::frames(&taken).count(), 8);
        assert_eq!(buf.heap_bytes(), 0);
    }
}

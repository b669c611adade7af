//! Journal records: how a scope's commits are written and replayed.
//!
//! A record is one commit (or one scope-level change), framed by `journal_frames`. Entries introduce each string the first
//! time it is interned (`NewUrl`, `NewExternal`, `NewText`, `NewSite`, in interning order),
//! then say what happened in ids (`Commit`, `SetMaxLevel`). Replaying interns the new
//! strings — each must get exactly the next id, or the journal does not belong to this state —
//! and applies the rest with the same code as a live commit.

use super::codec::{Corrupt, Put, Reader};
use super::resolve::{Resolved, ResolvedKind, ResolvedLink};
use super::scope::{
    DataError, LINK_BAD, LINK_EXTERNAL, LINK_INTERNAL, ScopeGraph, UNBOUND, UrlState,
};
use crate::site::Origin;

const NEW_URL: u8 = 1;
const NEW_EXTERNAL: u8 = 2;
const NEW_TEXT: u8 = 3;
const COMMIT: u8 = 4;
const SET_MAX_LEVEL: u8 = 5;
const NEW_SITE: u8 = 6;
const ADD_SCOPE: u8 = 7;

pub(crate) fn put_new_url(j: &mut Vec<u8>, site: u16, url: &str) {
    j.put_u8(NEW_URL);
    j.put_var(u64::from(site));
    j.put_bytes(url.as_bytes());
}

pub(crate) fn put_new_external(j: &mut Vec<u8>, url: &str) {
    j.put_u8(NEW_EXTERNAL);
    j.put_bytes(url.as_bytes());
}

pub(crate) fn put_new_text(j: &mut Vec<u8>, text: &str) {
    j.put_u8(NEW_TEXT);
    j.put_bytes(text.as_bytes());
}

pub(crate) fn put_new_site(j: &mut Vec<u8>, origin: &str) {
    j.put_u8(NEW_SITE);
    j.put_bytes(origin.as_bytes());
}

pub(crate) fn put_add_scope(j: &mut Vec<u8>, origin: &str, max_level: u32) {
    j.put_u8(ADD_SCOPE);
    j.put_bytes(origin.as_bytes());
    j.put_var(u64::from(max_level));
}

/// If a record's entries create a scope: its origin and `maxCrawlLevel`.
pub(crate) fn read_add_scope(entries: &[u8]) -> Result<Option<(Origin, u32)>, Corrupt> {
    if entries.first() != Some(&ADD_SCOPE) {
        return Ok(None);
    }
    let mut r = Reader::new(&entries[1..]);
    let text = r.str()?;
    let url = url::Url::parse(text).map_err(|_| Corrupt("bad scope origin"))?;
    let origin = Origin::of(&url).ok_or(Corrupt("bad scope origin"))?;
    let max_level = r.var32()?;
    if !r.is_empty() {
        return Err(Corrupt("trailing bytes after a new scope"));
    }
    Ok(Some((origin, max_level)))
}

pub(crate) fn put_set_max_level(j: &mut Vec<u8>, level: u32) {
    j.put_u8(SET_MAX_LEVEL);
    j.put_var(u64::from(level));
}

pub(crate) fn put_commit(j: &mut Vec<u8>, r: &Resolved) {
    j.put_u8(COMMIT);
    j.put_var(u64::from(r.task));
    j.put_var(r.chain.len() as u64);
    for &h in &r.chain {
        j.put_var(u64::from(h));
    }
    match &r.kind {
        ResolvedKind::Page {
            hash,
            bytes,
            title,
            links,
        } => {
            j.put_u8(0);
            j.put_u128(*hash);
            j.put_var(u64::from(*bytes));
            j.put_var(u64::from(*title));
            j.put_var(links.len() as u64);
            for l in links {
                j.put_u8(l.kind as u8);
                j.put_var(u64::from(l.target));
                j.put_var(u64::from(l.aux));
                j.put_var(l.failure.map_or(0, |f| u64::from(f) + 1));
            }
        }
        ResolvedKind::OffSite(t) => {
            j.put_u8(1);
            j.put_var(u64::from(*t));
        }
        ResolvedKind::Failed {
            reason,
            without_request,
        } => {
            j.put_u8(2);
            j.put_var(u64::from(*reason));
            j.put_u8(u8::from(*without_request));
        }
    }
}

/// The scope number a record payload is for, and the rest.
pub(crate) fn split_scope(payload: &[u8]) -> Result<(u32, &[u8]), Corrupt> {
    let mut r = Reader::new(payload);
    let scope = r.var32()?;
    Ok((scope, &payload[r.position()..]))
}

impl ScopeGraph {
    /// Replays the entries of one record.
    pub(crate) fn replay(&mut self, entries: &[u8]) -> Result<(), DataError> {
        let corrupt = |what: &str| DataError::Corrupt(format!("journal: {what}"));
        let mut r = Reader::new(entries);
        while !r.is_empty() {
            match r.u8()? {
                NEW_URL => {
                    let site = u16::try_from(r.var()?).map_err(|_| corrupt("site out of range"))?;
                    if usize::from(site) >= self.sites.len() {
                        return Err(corrupt("URL of an unknown site"));
                    }
                    let url = r.str()?;
                    let before = self.recs.len();
                    self.intern_url(url, site)?;
                    if self.recs.len() == before {
                        return Err(corrupt("a new URL was already known"));
                    }
                }
                NEW_EXTERNAL => {
                    let url = r.str()?;
                    let before = self.recs.len();
                    let id = self.intern_url(url, 0)?;
                    if self.recs.len() == before {
                        return Err(corrupt("a new URL was already known"));
                    }
                    self.recs[id as usize].state = UrlState::External;
                }
                NEW_TEXT => {
                    let (_, new) = self.texts.intern(r.str()?)?;
                    if !new {
                        return Err(corrupt("a new text was already known"));
                    }
                }
                NEW_SITE => {
                    let text = r.str()?;
                    let url = url::Url::parse(text).map_err(|_| corrupt("bad site"))?;
                    let origin = Origin::of(&url).ok_or_else(|| corrupt("bad site"))?;
                    self.add_local_site(UNBOUND, origin);
                }
                SET_MAX_LEVEL => {
                    let level = r.var32()?;
                    self.set_max_level(level);
                }
                COMMIT => {
                    let resolved = read_commit(&mut r)?;
                    self.apply(&resolved)?;
                }
                ADD_SCOPE => return Err(corrupt("a scope created twice")),
                _ => return Err(corrupt("unknown entry")),
            }
        }
        Ok(())
    }
}

fn read_commit(r: &mut Reader<'_>) -> Result<Resolved, Corrupt> {
    let task = r.var32()?;
    let n = r.var()?;
    let mut chain = Vec::new();
    for _ in 0..n {
        chain.push(r.var32()?);
    }
    let kind = match r.u8()? {
        0 => {
            let hash = r.u128()?;
            let bytes = r.var32()?;
            let title = r.var32()?;
            let n = r.var()?;
            let mut links = Vec::new();
            for _ in 0..n {
                let kind = u32::from(r.u8()?);
                if ![LINK_INTERNAL, LINK_EXTERNAL, LINK_BAD].contains(&kind) {
                    return Err(Corrupt("unknown link kind"));
                }
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
                });
            }
            ResolvedKind::Page {
                hash,
                bytes,
                title,
                links,
            }
        }
        1 => ResolvedKind::OffSite(r.var32()?),
        2 => ResolvedKind::Failed {
            reason: r.var32()?,
            without_request: r.u8()? != 0,
        },
        _ => return Err(Corrupt("unknown outcome kind")),
    };
    Ok(Resolved { task, chain, kind })
}

//! Re-applying one journal record onto a scope: new strings are interned and must get exactly
//! the next id (otherwise the journal does not belong to this state), outcomes are applied
//! with the same code as a live commit.

use super::{DataError, ScopeGraph, UNBOUND, UrlState};
use crate::crawl::data::journal;
use crate::crawl::data::records::{Entry, LinkKind};

impl ScopeGraph {
    /// Re-applies the entries of one record.
    pub(crate) fn reapply(&mut self, entries: &[u8]) -> Result<(), DataError> {
        let corrupt = |what: &str| DataError::inconsistent(format!("journal: {what}"));
        for entry in journal::decode(entries) {
            match entry? {
                Entry::NewUrl { site, url } => {
                    if usize::from(site) >= self.sites.len() {
                        return Err(corrupt("URL of an unknown site"));
                    }
                    let before = self.recs.len();
                    self.intern_url(url, site, LinkKind::Internal)?;
                    if self.recs.len() == before {
                        return Err(corrupt("a new URL was already known"));
                    }
                }
                Entry::NewExternal { url } => {
                    let before = self.recs.len();
                    let id = self.intern_url(url, 0, LinkKind::External)?;
                    if self.recs.len() == before {
                        return Err(corrupt("a new URL was already known"));
                    }
                    self.recs[id as usize].state = UrlState::External;
                }
                Entry::NewText { text } => {
                    let (_, new) = self.texts.intern(text)?;
                    if !new {
                        return Err(corrupt("a new text was already known"));
                    }
                }
                Entry::NewSite { origin } => {
                    self.add_local_site(UNBOUND, origin)?;
                }
                Entry::SetLevelLimits {
                    max_level,
                    traps,
                    obey_nofollow,
                } => self.set_level_limits(max_level, traps, obey_nofollow),
                Entry::AddSeed { origin } => {
                    self.seed(origin, UNBOUND)?;
                }
                Entry::Commit(resolved) => {
                    self.apply(&resolved)?;
                }
                Entry::Orphan { site, url } => {
                    if usize::from(site) >= self.sites.len() {
                        return Err(corrupt("an orphan of an unknown site"));
                    }
                    self.queue_orphan(site, url);
                }
                Entry::Learned { site, rules } => {
                    if usize::from(site) >= self.sites.len() {
                        return Err(corrupt("rules of an unknown site"));
                    }
                    self.set_learned(site, rules);
                }
                Entry::Cookies { site, jar } => {
                    if usize::from(site) >= self.sites.len() {
                        return Err(corrupt("cookies of an unknown site"));
                    }
                    self.set_cookies(site, jar);
                }
                Entry::AddScope { .. } => return Err(corrupt("a scope created twice")),
                Entry::Retired(_) => return Err(corrupt("records after a scope was retired")),
                Entry::Revived { .. } => return Err(corrupt("a live scope revived")),
            }
        }
        Ok(())
    }
}

impl ScopeGraph {
    /// One scope saved on its own (a database row): its snapshot if it has one, then its
    /// journal records (framed) re-applied — the first record creates the scope when there is
    /// no snapshot. The scope comes back journaling, with its frontiers rebuilt (URLs that were
    /// in flight are queued again).
    pub(crate) fn recover(
        snapshot: Option<&[u8]>,
        journal: &[u8],
    ) -> Result<ScopeGraph, DataError> {
        let corrupt = |what: &str| DataError::inconsistent(format!("saved scope: {what}"));
        let mut graph = match snapshot {
            Some(bytes) => Some(ScopeGraph::from_bytes(bytes)?),
            None => None,
        };
        for payload in crate::base::storage::frames::frames(journal) {
            let (_, entries) = journal::split_scope(payload)?;
            match (&mut graph, added_scope(entries)?) {
                (None, Some((origin, max_level))) => {
                    graph = Some(ScopeGraph::new(
                        0,
                        origin,
                        UNBOUND,
                        max_level,
                        super::Journaling::Off,
                    )?);
                }
                (Some(g), None) => g.reapply(entries)?,
                (Some(_), Some(_)) => return Err(corrupt("a scope created twice")),
                (None, None) => return Err(corrupt("a journal for a scope never created")),
            }
        }
        let mut g = graph.ok_or_else(|| corrupt("no saved scope"))?;
        g.start_journal();
        g.rebuild_frontiers();
        Ok(g)
    }
}

/// If a record retires a scope: what is kept of it.
pub(crate) fn retired_scope(
    entries: &[u8],
) -> Result<Option<crate::crawl::data::RetiredScope>, DataError> {
    match journal::decode(entries).next() {
        Some(Ok(Entry::Retired(r))) => Ok(Some(r)),
        Some(Err(e)) => Err(e.into()),
        _ => Ok(None),
    }
}

/// If a record revives a retired scope: its data.
pub(crate) fn revived_scope(entries: &[u8]) -> Result<Option<&[u8]>, DataError> {
    match journal::decode(entries).next() {
        Some(Ok(Entry::Revived { data })) => Ok(Some(data)),
        Some(Err(e)) => Err(e.into()),
        _ => Ok(None),
    }
}

/// If a record creates a scope: its first entry, decoded.
pub(crate) fn added_scope(
    entries: &[u8],
) -> Result<Option<(crate::model::site::Origin, u32)>, DataError> {
    let mut decoded = journal::decode(entries);
    match decoded.next() {
        Some(Ok(Entry::AddScope { origin, max_level })) => {
            if decoded.next().is_some() {
                return Err(DataError::inconsistent(
                    "journal: trailing entries after a new scope",
                ));
            }
            Ok(Some((origin, max_level)))
        }
        Some(Err(e)) => Err(e.into()),
        _ => Ok(None),
    }
}

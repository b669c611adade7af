//! The first phase of a commit: every string an outcome names (redirect hops, link targets,
//! anchors, titles, reasons) is interned, and each string interned for the first time is
//! written to the scope's journal right then, in order. What remains is an outcome in ids
//! only ([`Resolved`]), which `ScopeGraph::apply` carries out and the journal records.

use super::journal;
use super::scope::{
    DataError, Effects, LINK_BAD, LINK_EXTERNAL, LINK_INTERNAL, ScopeGraph, UrlState,
};
use super::{SiteId, frontier::Frontier};
use crate::message::{LinkTarget, Outcome};
use crate::site::Origin;

/// One link in ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ResolvedLink {
    /// `LINK_INTERNAL`, `LINK_EXTERNAL` or `LINK_BAD`.
    pub(crate) kind: u32,
    /// URL id (internal, external) or raw-text id (bad).
    pub(crate) target: u32,
    /// Anchor text id (internal, external) or reason text id (bad).
    pub(crate) aux: u32,
    /// For internal links that may not be fetched: the reason's text id.
    pub(crate) failure: Option<u32>,
}

/// What became of the task URL, in ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ResolvedKind {
    Page {
        hash: u128,
        bytes: u32,
        title: u32,
        links: Vec<ResolvedLink>,
    },
    OffSite(u32),
    Failed {
        reason: u32,
        without_request: bool,
    },
}

/// An outcome in ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Resolved {
    pub(crate) task: u32,
    pub(crate) chain: Vec<u32>,
    pub(crate) kind: ResolvedKind,
}

impl ScopeGraph {
    /// Records an outcome: interns its strings, journals it, applies it.
    pub(crate) fn commit(&mut self, outcome: &Outcome) -> Result<Effects, DataError> {
        let mut entries = self
            .journal
            .is_some()
            .then(|| std::mem::take(&mut self.entries));
        let mut effects = Effects::default();
        let resolved = self.resolve(outcome, &mut entries, &mut effects);
        if let Some(mut e) = entries {
            if let (Ok(resolved), Some(buf)) = (&resolved, self.journal.as_mut()) {
                journal::put_commit(&mut e, resolved);
                super::journal_frames::frame(buf, self.index, &e);
            }
            e.clear();
            self.entries = e;
        }
        let resolved = resolved?;
        let was_limited = self.limit_reached();
        effects.woke = self.apply(&resolved)?;
        effects.page_limit_reached = !was_limited && self.limit_reached();
        Ok(effects)
    }

    fn resolve(
        &mut self,
        outcome: &Outcome,
        j: &mut Option<Vec<u8>>,
        effects: &mut Effects,
    ) -> Result<Resolved, DataError> {
        let task = outcome.task().url_id.0;
        if task as usize >= self.recs.len() {
            return Err(DataError::Corrupt("an outcome for an unknown URL".into()));
        }
        let site = self.recs[task as usize].site;
        let chain = match outcome {
            Outcome::Page { page, .. } => &page.chain,
            Outcome::OffSite { chain, .. } | Outcome::Failed { chain, .. } => chain,
        };
        let chain = chain
            .iter()
            .map(|hop| self.url_ref(hop.as_str(), site, j))
            .collect::<Result<Vec<_>, _>>()?;
        let kind = match outcome {
            Outcome::Page { page, .. } => {
                let mut links = Vec::with_capacity(page.links.len());
                for link in &page.links {
                    let r = match &link.target {
                        LinkTarget::Internal { url, site, failure } => {
                            let local = self.site_ref(*site, url.as_url(), j);
                            let target = self.url_ref(url.as_str(), local, j)?;
                            let aux = self.text_ref(&link.anchor, j)?;
                            let failure = failure
                                .as_ref()
                                .map(|f| self.text_ref(&f.reason, j))
                                .transpose()?;
                            ResolvedLink {
                                kind: LINK_INTERNAL,
                                target,
                                aux,
                                failure,
                            }
                        }
                        LinkTarget::External(url) => {
                            let target = self.external_ref(url.as_str(), j, effects)?;
                            ResolvedLink {
                                kind: LINK_EXTERNAL,
                                target,
                                aux: self.text_ref(&link.anchor, j)?,
                                failure: None,
                            }
                        }
                        LinkTarget::Bad { raw, reason } => {
                            let target = self.text_ref(raw, j)?;
                            ResolvedLink {
                                kind: LINK_BAD,
                                target,
                                aux: self.text_ref(reason, j)?,
                                failure: None,
                            }
                        }
                    };
                    links.push(r);
                }
                let title = self.text_ref(&page.title, j)?;
                let bytes = u32::try_from(page.bytes).unwrap_or(u32::MAX);
                ResolvedKind::Page {
                    hash: page.hash,
                    bytes,
                    title,
                    links,
                }
            }
            Outcome::OffSite { target, .. } => {
                ResolvedKind::OffSite(self.external_ref(target.as_str(), j, effects)?)
            }
            Outcome::Failed { failure, .. } => ResolvedKind::Failed {
                reason: self.text_ref(&failure.reason, j)?,
                without_request: failure.without_request,
            },
        };
        Ok(Resolved { task, chain, kind })
    }

    fn url_ref(&mut self, url: &str, site: u16, j: &mut Option<Vec<u8>>) -> Result<u32, DataError> {
        let before = self.recs.len();
        let id = self.intern_url(url, site)?;
        if self.recs.len() > before
            && let Some(j) = j
        {
            journal::put_new_url(j, site, url);
        }
        Ok(id)
    }

    fn external_ref(
        &mut self,
        url: &str,
        j: &mut Option<Vec<u8>>,
        effects: &mut Effects,
    ) -> Result<u32, DataError> {
        let before = self.recs.len();
        let id = self.intern_url(url, 0)?;
        if self.recs.len() > before {
            self.recs[id as usize].state = UrlState::External;
            effects.new_external += 1;
            if let Some(j) = j {
                journal::put_new_external(j, url);
            }
        }
        Ok(id)
    }

    fn text_ref(&mut self, text: &str, j: &mut Option<Vec<u8>>) -> Result<u32, DataError> {
        let (id, new) = self.texts.intern(text)?;
        if new && let Some(j) = j {
            journal::put_new_text(j, text);
        }
        Ok(id)
    }

    /// The local index of `site` (whose URLs look like `url`), adding it to the scope if new.
    fn site_ref(&mut self, site: SiteId, url: &url::Url, j: &mut Option<Vec<u8>>) -> u16 {
        if let Some(l) = self.local(site) {
            return l as u16;
        }
        let origin = Origin::of(url).unwrap_or_else(|| self.origin.clone());
        if let Some(j) = j {
            journal::put_new_site(j, &origin.to_string());
        }
        self.add_local_site(site, origin)
    }

    /// Adds a site to the scope; returns its local index.
    pub(crate) fn add_local_site(&mut self, site: SiteId, origin: Origin) -> u16 {
        self.sites.push(site);
        self.site_origins.push(origin);
        self.frontiers.push(Frontier::default());
        self.queued.push(0);
        (self.sites.len() - 1) as u16
    }
}

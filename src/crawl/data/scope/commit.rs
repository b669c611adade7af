//! Recording an outcome. First every string it names (redirect hops, link targets, anchors,
//! titles, reasons) is interned, and each string interned for the first time is journaled
//! right then, in order ([`ScopeGraph::resolve`]). What remains is the outcome in ids
//! ([`Resolved`]), journaled last and carried out by [`ScopeGraph::apply`] — which re-applying
//! a journal runs too.

use super::{
    DataError, Effects, ID_MASK, LinkRec, PageRec, PullRec, STATIC_BIT, ScopeGraph, UrlState,
};
use crate::base::ids::SiteId;
use crate::crawl::data::records::{
    Entry, LinkKind, PageMeta, Pull, Resolved, ResolvedHop, ResolvedKind, ResolvedLink,
};
use crate::crawl::message::{Decided, Hop, HopKind, LinkTarget, Outcome, PageLink, PageRecord};
use crate::model::link_attrs::Rel;
use crate::model::site::Origin;
use crate::model::url_norm::NormUrl;

/// What resolving one page's links keeps between its links.
struct LinkIds {
    /// The URL the page ended on.
    own: u32,
    /// The empty anchor's text id, once interned.
    no_anchor: Option<u32>,
    /// Each target's ids, from its first link on (interned in the same order as when every
    /// link was interned: the same ids): the target and its failure or reason text.
    known: Vec<Option<(u32, Option<u32>)>>,
}

/// The reward of an outcome: the distinct external links a page adds, one for a redirect
/// off the site, none otherwise.
fn external_yield(kind: &ResolvedKind) -> u32 {
    match kind {
        ResolvedKind::Page { links, .. } => {
            let mut ids: Vec<u32> = links
                .iter()
                .filter(|l| l.kind == LinkKind::External)
                .map(|l| l.target)
                .collect();
            ids.sort_unstable();
            ids.dedup();
            u32::try_from(ids.len()).unwrap_or(u32::MAX)
        }
        ResolvedKind::OffSite(_) => 1,
        ResolvedKind::Failed { .. } | ResolvedKind::Elsewhere { .. } => 0,
    }
}

impl ScopeGraph {
    /// Records an outcome, the crawl's fetch number `seq`: interns its strings, journals it,
    /// applies it.
    pub(crate) fn commit(&mut self, outcome: &Outcome, seq: u64) -> Result<Effects, DataError> {
        let mut effects = Effects::default();
        let resolved = self.resolve(outcome, seq, &mut effects);
        if let Some(j) = self.journal.as_mut() {
            match &resolved {
                Ok(r) => j.end_commit(r),
                Err(_) => j.abandon_record(),
            }
        }
        let resolved = resolved?;
        // The hop targets its chain took are decided here: none is taken any more (its own
        // links to them must not find them taken).
        self.forget_new_hops(resolved.task);
        let was_limited = self.limit_reached();
        effects.woke = self.apply(&resolved)?;
        // The links lead to nothing more: the sitemap's orphans come now (SitemapSeeds).
        for site in self.seed_orphans_if_idle() {
            if !effects.woke.contains(&site) {
                effects.woke.push(site);
            }
        }
        // Hop targets the chain claimed are decided by now; any that is not goes back.
        self.release_hops(resolved.task);
        effects.page_limit_reached = !was_limited && self.limit_reached();
        Ok(effects)
    }

    /// An outcome in ids: its redirect chain, then what it ended in (one function per kind
    /// of outcome), then the fetch as the page budget counts it.
    fn resolve(
        &mut self,
        outcome: &Outcome,
        seq: u64,
        effects: &mut Effects,
    ) -> Result<Resolved, DataError> {
        let task = outcome.task().url_id.0;
        if task as usize >= self.recs.len() {
            return Err(DataError::inconsistent("an outcome for an unknown URL"));
        }
        let site = self.recs[task as usize].site;
        let (chain, kind, extra) = match outcome {
            Outcome::Page { page, .. } => {
                let chain = self.resolve_chain(&page.chain, site)?;
                let own = chain.last().map_or(task, |h| h.url);
                let kind = self.resolve_page_outcome(page, own, site, effects)?;
                (chain, kind, page.extra_requests)
            }
            Outcome::OffSite { chain, target, .. } => {
                let chain = self.resolve_chain(chain, site)?;
                let kind = ResolvedKind::OffSite(self.external_ref(target.as_str(), effects)?);
                effects.yielded.external = external_yield(&kind);
                (chain, kind, 0)
            }
            Outcome::Failed { chain, failure, .. } => {
                let chain = self.resolve_chain(chain, site)?;
                let kind = ResolvedKind::Failed {
                    reason: self.text_ref(&failure.reason)?,
                    decided: failure.decided,
                };
                effects.yielded.external = 0;
                (chain, kind, 0)
            }
            Outcome::Elsewhere {
                chain,
                target,
                site: elsewhere,
                ..
            } => {
                let chain = self.resolve_chain(chain, site)?;
                let local = self.site_ref(*elsewhere, target.url.as_url())?;
                let kind = ResolvedKind::Elsewhere {
                    url: self.url_ref(target.url.as_str(), local)?,
                    kind: target.kind,
                };
                effects.yielded.external = 0;
                (chain, kind, 0)
            }
        };
        let pull = Pull {
            seq,
            yielded: effects.yielded,
            extra,
        };
        Ok(Resolved {
            task,
            chain,
            kind,
            pull,
        })
    }

    /// A redirect chain's hops in ids (every hop's URL is on `site`'s scope).
    fn resolve_chain(&mut self, chain: &[Hop], site: u16) -> Result<Vec<ResolvedHop>, DataError> {
        chain
            .iter()
            .map(|hop| {
                Ok(ResolvedHop {
                    url: self.url_ref(hop.url.as_str(), site)?,
                    kind: hop.kind,
                })
            })
            .collect()
    }

    /// A page fetched, ending on URL `own`: its links, canonical URL and title in ids, what
    /// its site was learned to change per response and its cookies (journaled and kept), and
    /// its yield.
    fn resolve_page_outcome(
        &mut self,
        page: &PageRecord,
        own: u32,
        site: u16,
        effects: &mut Effects,
    ) -> Result<ResolvedKind, DataError> {
        let kind = self.resolve_page(page, own, effects)?;
        let known_copy = matches!(&kind, ResolvedKind::Page { meta, .. } if self.contents.folds_into_known(meta));
        // Another address of a page recorded before (SPEC §14): a fetch that found no new page
        // pays nothing, whatever its own address added.
        if known_copy {
            effects.yielded.new_external = 0;
        }
        effects.yielded.external = if known_copy { 0 } else { external_yield(&kind) };
        if let Some(rules) = &page.learned {
            if let Some(j) = self.journal.as_mut() {
                j.put(&Entry::Learned {
                    site,
                    rules: rules.as_ref().clone(),
                });
            }
            self.set_learned(site, rules.as_ref().clone());
        }
        if let Some(jar) = &page.cookies {
            if let Some(j) = self.journal.as_mut() {
                j.put(&Entry::Cookies {
                    site,
                    jar: jar.as_ref().clone(),
                });
            }
            self.set_cookies(site, jar.as_ref().clone());
        }
        Ok(kind)
    }

    /// A page's links in ids, then its canonical URL and title. `own` is the URL the page
    /// ended on.
    fn resolve_page(
        &mut self,
        page: &PageRecord,
        own: u32,
        effects: &mut Effects,
    ) -> Result<ResolvedKind, DataError> {
        let mut links = Vec::with_capacity(page.links.len());
        let mut ids = LinkIds {
            own,
            no_anchor: None,
            known: vec![None; page.links.target_count()],
        };
        for link in page.links.iter() {
            let r = match link.target {
                LinkTarget::Internal { url, site, failure } => {
                    let failure = failure.as_ref().map(|f| f.reason.as_str());
                    match self.resolve_internal(&mut ids, &link, url, *site, failure)? {
                        Some(r) => r,
                        None => continue,
                    }
                }
                LinkTarget::External(url) => {
                    self.resolve_external(&mut ids, &link, url.as_str(), effects)?
                }
                LinkTarget::Ignored => continue,
                LinkTarget::Bad(bad) => {
                    let (target, aux) = match ids.known[link.target_index] {
                        Some((target, Some(aux))) => (target, aux),
                        _ => (self.text_ref(&bad.raw)?, self.text_ref(&bad.reason)?),
                    };
                    ids.known[link.target_index] = Some((target, Some(aux)));
                    ResolvedLink {
                        kind: LinkKind::Bad,
                        target,
                        aux,
                        failure: None,
                        rel: Rel::NONE,
                    }
                }
            };
            links.push(r);
        }
        let canonical = if page.canonical.is_empty() {
            None
        } else {
            Some(self.text_ref(&page.canonical)?)
        };
        let bytes = u32::try_from(page.bytes)
            .unwrap_or(u32::MAX)
            .min(crate::crawl::data::records::MAX_BYTES);
        let title = self.text_ref(&page.title)?;
        let robots = if page.robots.is_empty() {
            None
        } else {
            Some(self.text_ref(&page.robots)?)
        };
        let sketch = if page.print_sketch.is_empty() {
            None
        } else {
            Some(self.text_ref(&page.print_sketch)?)
        };
        let probe = if page.soft_404_suspect {
            self.soft_404_probe(own)?
        } else {
            None
        };
        Ok(ResolvedKind::Page {
            meta: PageMeta::new(page.hash, bytes, title, canonical)
                .with_robots(robots)
                .with_sketch(sketch)
                .with_digests(page.digests)
                .with_render(page.render)
                .with_node_type(page.node_type),
            links,
            probe,
        })
    }

    /// The soft-404 probe of the site of URL `own` (SPEC §14): a path no site has, interned
    /// when the first page that looks like a "not found" page asks for it (`None` when it is
    /// asked for already).
    fn soft_404_probe(&mut self, own: u32) -> Result<Option<u32>, DataError> {
        let url = self.url(own);
        let Some(origin) = url::Url::parse(url).ok().as_ref().and_then(Origin::of) else {
            return Ok(None);
        };
        let probe = format!(
            "{}{}",
            origin.home().as_str(),
            crate::model::fold::SOFT_404_PROBE
        );
        if self.urls.lookup(&probe).is_some() {
            return Ok(None);
        }
        let site = self.recs[own as usize].site;
        self.url_ref(&probe, site).map(Some)
    }

    /// An internal link. Its anchor is read only when the link leads off the site (a redirect
    /// away). A link to this page's own address, or to a URL already recorded as a page,
    /// never will: such links keep no anchor — a source listing's line anchors become one
    /// repeated record (`LinkRec::repeat`), and a sidebar's texts are not interned again on
    /// every page. `None`: a link to a URL beyond `MaxUrlsPerSite`, left out (it is never
    /// interned: what the limit bounds is the memory of URLs).
    fn resolve_internal(
        &mut self,
        ids: &mut LinkIds,
        link: &PageLink<'_>,
        url: &NormUrl,
        site: SiteId,
        failure: Option<&str>,
    ) -> Result<Option<ResolvedLink>, DataError> {
        let first = ids.known[link.target_index];
        let target = match first {
            Some((target, _)) => target,
            None => {
                if self.url_limit_reached() && self.urls.lookup(url.as_str()).is_none() {
                    return Ok(None);
                }
                let local = self.site_ref(site, url.as_url())?;
                self.url_ref(url.as_str(), local)?
            }
        };
        let aux = if target == ids.own || self.recs[target as usize].state == UrlState::Page {
            match ids.no_anchor {
                Some(id) => id,
                None => *ids.no_anchor.insert(self.text_ref("")?),
            }
        } else {
            self.text_ref(link.anchor)?
        };
        let failure = match first {
            Some((_, failure)) => failure,
            None => failure.map(|f| self.text_ref(f)).transpose()?,
        };
        ids.known[link.target_index] = Some((target, failure));
        Ok(Some(ResolvedLink {
            kind: LinkKind::Internal,
            target,
            aux,
            failure,
            rel: link.rel,
        }))
    }

    /// An external link: its URL, and its anchor with its context when kept.
    fn resolve_external(
        &mut self,
        ids: &mut LinkIds,
        link: &PageLink<'_>,
        url: &str,
        effects: &mut Effects,
    ) -> Result<ResolvedLink, DataError> {
        let aux = if link.context.is_empty() {
            self.text_ref(link.anchor)?
        } else {
            let both = format!(
                "{}{}{}",
                link.anchor,
                super::CONTEXT_SEPARATOR,
                link.context
            );
            self.text_ref(&both)?
        };
        let target = match ids.known[link.target_index] {
            Some((target, _)) => target,
            None => self.external_ref(url, effects)?,
        };
        ids.known[link.target_index] = Some((target, None));
        Ok(ResolvedLink {
            kind: LinkKind::External,
            target,
            aux,
            failure: None,
            rel: link.rel,
        })
    }

    pub(super) fn url_ref(&mut self, url: &str, site: u16) -> Result<u32, DataError> {
        let before = self.recs.len();
        let id = self.intern_url(url, site, LinkKind::Internal)?;
        if self.recs.len() > before
            && let Some(j) = self.journal.as_mut()
        {
            j.put(&Entry::NewUrl { site, url });
        }
        Ok(id)
    }

    fn external_ref(&mut self, url: &str, effects: &mut Effects) -> Result<u32, DataError> {
        let before = self.recs.len();
        let id = self.intern_url(url, 0, LinkKind::External)?;
        if self.recs.len() > before {
            self.recs[id as usize].state = UrlState::External;
            effects.yielded.new_external += 1;
            if let Some(j) = self.journal.as_mut() {
                j.put(&Entry::NewExternal { url });
            }
        }
        Ok(id)
    }

    pub(super) fn text_ref(&mut self, text: &str) -> Result<u32, DataError> {
        if self.texts.len() as u32 >= super::TEXT_LIMIT && self.texts.lookup(text).is_none() {
            return Err(crate::crawl::data::interner::InternerFull.into());
        }
        let (id, new) = self.texts.intern(text)?;
        if new && let Some(j) = self.journal.as_mut() {
            j.put(&Entry::NewText { text });
        }
        Ok(id)
    }

    /// The local index of `site` (whose URLs look like `url`), adding it to the scope if new.
    fn site_ref(&mut self, site: SiteId, url: &url::Url) -> Result<u16, DataError> {
        if let Some(l) = self.local(site) {
            return Ok(l as u16);
        }
        let origin = Origin::of(url).unwrap_or_else(|| self.origin.clone());
        if let Some(j) = self.journal.as_mut() {
            j.put(&Entry::NewSite {
                origin: origin.clone(),
            });
        }
        self.add_local_site(site, origin)
    }

    /// Applies a resolved outcome (all its strings already interned).
    pub(super) fn apply(&mut self, r: &Resolved) -> Result<Vec<SiteId>, DataError> {
        let n = self.recs.len() as u32;
        let valid = |id: u32| id < n;
        if !valid(r.task) || !r.chain.iter().all(|h| valid(h.url)) {
            return Err(DataError::inconsistent("an outcome names an unknown URL"));
        }
        self.outcomes += 1;
        let task = self.recs[r.task as usize];
        self.pulls.push(PullRec {
            pull: r.pull,
            site: task.site,
            url: r.task,
        });
        if let Some((_, last)) = &mut self.active {
            *last = std::time::Instant::now();
        }
        let mut ids = Vec::with_capacity(r.chain.len() + 1);
        ids.push(r.task);
        ids.extend(r.chain.iter().map(|h| h.url));
        for (from, hop) in ids.iter().zip(&r.chain) {
            if *from != hop.url {
                self.finish(*from, UrlState::hop(hop.kind), hop.url);
            }
        }
        let last = *ids.last().expect("never empty");
        match &r.kind {
            ResolvedKind::Page { meta, links, probe } => {
                if self.recs[last as usize].state.is_open() {
                    let p = self.add_page(*meta, links)?;
                    self.finish(last, UrlState::Page, p);
                }
                // The probe goes to the site's frontier at the page's level; no link leads to
                // it, so it is never a node.
                if let Some(probe) = probe {
                    if !valid(*probe) {
                        return Err(DataError::inconsistent("an outcome names an unknown URL"));
                    }
                    let level = self.recs[last as usize].level.min(self.max_level);
                    self.worklist.push((*probe, level));
                }
            }
            ResolvedKind::OffSite(target) => {
                if !valid(*target) {
                    return Err(DataError::inconsistent("an outcome names an unknown URL"));
                }
                self.finish(last, UrlState::OffSite, *target);
            }
            ResolvedKind::Failed { reason, decided } => {
                let data = match decided {
                    Decided::WithoutRequest => reason | STATIC_BIT,
                    Decided::ByRequest => *reason,
                };
                self.finish(last, UrlState::Failed, data);
            }
            ResolvedKind::Elsewhere { url, kind } => {
                if !valid(*url) {
                    return Err(DataError::inconsistent("an outcome names an unknown URL"));
                }
                if *url != last {
                    self.finish(last, UrlState::hop(*kind), *url);
                }
            }
        }
        // The task URL was in flight; if it is still open (its outcome went to another URL of
        // the chain that was already decided), close it as a hop to that URL.
        if self.recs[r.task as usize].state.is_open() && last != r.task {
            let kind = r.chain.first().map_or(HopKind::Http, |h| h.kind);
            self.finish(r.task, UrlState::hop(kind), last);
        }
        // Propagate levels along every edge this commit recorded: each redirect hop and the
        // page's links. Pushing from the task alone is not enough: when the chain ends at a
        // URL already known at that level, relaxing it improves nothing and its new links
        // would never get a level.
        for &id in &ids {
            let level = self.recs[id as usize].level;
            if level != super::NO_LEVEL {
                self.push_successors(id, level);
            }
        }
        Ok(self.drain())
    }

    pub(super) fn add_page(
        &mut self,
        meta: PageMeta,
        links: &[ResolvedLink],
    ) -> Result<u32, DataError> {
        let (n_urls, n_texts) = (self.recs.len() as u32, self.texts.len() as u32);
        if !meta.texts_known(n_texts) {
            return Err(DataError::inconsistent("a page names an unknown text"));
        }
        let mut recs = std::mem::take(&mut self.link_scratch);
        recs.clear();
        // The page's last link record that is not a repeat: a link equal to it becomes a
        // count on the repeat record after it.
        let mut last: Option<LinkRec> = None;
        for l in links {
            let ok = match l.kind {
                LinkKind::Bad => l.target < n_texts && l.aux < n_texts,
                LinkKind::Internal | LinkKind::External => l.target < n_urls && l.aux < n_texts,
            };
            if !ok || l.failure.is_some_and(|f| f >= n_texts) {
                self.link_scratch = recs;
                return Err(DataError::inconsistent(
                    "a link names an unknown URL or text",
                ));
            }
            if let Some(reason) = l.failure
                && self.recs[l.target as usize].state == UrlState::Seen
            {
                self.finish(l.target, UrlState::Failed, reason | STATIC_BIT);
            }
            let rec = LinkRec::new(l.kind, l.target, l.aux, l.rel);
            if last == Some(rec) {
                match recs.last_mut() {
                    Some(r) if r.repeats() > 0 && r.repeats() < ID_MASK => {
                        *r = LinkRec::repeat(r.repeats() + 1);
                    }
                    Some(r) if r.repeats() == ID_MASK => recs.push(rec),
                    _ => recs.push(LinkRec::repeat(1)),
                }
            } else {
                recs.push(rec);
                last = Some(rec);
            }
        }
        let range = self.links.append(&recs);
        // A big page's records do not stay in the scratch buffer.
        if recs.capacity() > 1 << 16 {
            recs = Vec::new();
        }
        self.link_scratch = recs;
        let links = range?;
        self.contents.add(&meta);
        self.pages.push(PageRec { meta, links });
        Ok(self.pages.len() as u32 - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Journaling, REPEAT};
    use super::*;

    fn link(kind: LinkKind, target: u32, aux: u32) -> ResolvedLink {
        ResolvedLink {
            kind,
            target,
            aux,
            failure: None,
            rel: Rel::NONE,
        }
    }

    #[test]
    fn equal_links_in_a_row_are_one_record_and_a_count() {
        let origin = Origin::parse("http://a.test").unwrap();
        let mut g = ScopeGraph::new(0, origin, SiteId(0), 3, Journaling::Off).unwrap();
        let x = g.url_ref("http://a.test/x", 0).unwrap();
        let (empty, t1) = (g.text_ref("").unwrap(), g.text_ref("one").unwrap());
        let i = LinkKind::Internal;
        let links = [
            link(i, 0, empty),
            link(i, 0, empty),
            link(i, 0, empty),
            link(i, x, t1),
            link(i, 0, empty),
            link(i, x, t1),
            link(i, x, t1),
            link(LinkKind::External, x, t1),
        ];
        let page = g
            .add_page(PageMeta::new(1, 1, empty, None), &links)
            .unwrap();
        let recs: Vec<LinkRec> = g.page_links(&g.pages[page as usize]).collect();
        let shape: Vec<(u32, u32)> = recs
            .iter()
            .map(|r| (r.target >> super::super::link_rec::KIND_SHIFT, r.repeats()))
            .collect();
        // home, +2, x, home, x, +1, external x.
        assert_eq!(
            shape,
            [
                (0, 0),
                (REPEAT, 2),
                (0, 0),
                (0, 0),
                (0, 0),
                (REPEAT, 1),
                (1, 0)
            ]
        );
    }
}

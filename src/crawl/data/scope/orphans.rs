//! Sitemaps in a scope (SPEC §17): what they list, kept for the result files, and with
//! `SitemapSeeds` the orphans among them — pages no link reaches — queued once the scope's
//! links lead to nothing more, one level past `maxCrawlLevel`: their own links are recorded
//! and not followed, and no link can lower them (nothing else is pending). The written graph
//! has them as nodes without a level ([`super::graph`]).

use super::{NO_LEVEL, ScopeGraph, UrlState};
use crate::base::ids::SiteId;
use crate::crawl::data::records::{Entry, LinkKind};
use crate::model::sitemap::Sitemap;

impl ScopeGraph {
    /// Keeps what a site's sitemaps list, merged with the scope's other sites'. With `seed`,
    /// its orphans are queued once nothing else is pending (now, if nothing is); returns the
    /// sites that got work.
    pub(crate) fn add_sitemap(&mut self, sitemap: Sitemap, seed: bool) -> Vec<SiteId> {
        match &mut self.sitemap {
            Some(known) => known.merge(sitemap),
            None => self.sitemap = Some(sitemap),
        }
        self.seed_orphans |= seed;
        self.seed_orphans_if_idle()
    }

    /// Queues the orphans if they are due and nothing else is pending; the sites woken.
    pub(super) fn seed_orphans_if_idle(&mut self) -> Vec<SiteId> {
        if !self.seed_orphans || self.pending > 0 {
            return Vec::new();
        }
        self.seed_orphans = false;
        let Some(sitemap) = self.sitemap.take() else {
            return Vec::new();
        };
        let mut woke = Vec::new();
        for e in sitemap.entries.iter().filter(|e| e.seed) {
            let known = self.urls.lookup(&e.url);
            if known.is_some_and(|id| !self.unreached(id)) {
                continue;
            }
            if known.is_none() && self.url_limit_reached() {
                continue;
            }
            let Some(site) = self.local_site_of(&e.url) else {
                continue;
            };
            if let Some(j) = self.journal.as_mut() {
                j.put(&Entry::Orphan { site, url: &e.url });
                j.end_record();
            }
            if self.queue_orphan(site, &e.url) {
                let global = self.sites[usize::from(site)];
                if !woke.contains(&global) {
                    woke.push(global);
                }
            }
        }
        self.sitemap = Some(sitemap);
        woke
    }

    /// No link reaches URL `id` and it is not decided.
    fn unreached(&self, id: u32) -> bool {
        let r = self.recs[id as usize];
        r.state == UrlState::Seen && r.level == NO_LEVEL
    }

    /// The local site whose origin `url` is on: a site's own, or where the scope's home page
    /// moved (`http://a.test` now at `https://www.a.test`), which is its first site's.
    fn local_site_of(&self, url: &str) -> Option<u16> {
        let url = url::Url::parse(url).ok()?;
        match self.site_origins.iter().position(|o| o.contains(&url)) {
            Some(i) => u16::try_from(i).ok(),
            None => self
                .home_origins()
                .iter()
                .any(|o| o.contains(&url))
                .then_some(0),
        }
    }

    /// Queues `url` of local site `site` as an orphan, if no link reaches it (live and in a
    /// journal's re-application alike); whether it was.
    pub(super) fn queue_orphan(&mut self, site: u16, url: &str) -> bool {
        let Ok(id) = self.intern_url(url, site, LinkKind::Internal) else {
            return false;
        };
        if !self.unreached(id) {
            return false;
        }
        let level = self.max_level.saturating_add(1);
        self.recs[id as usize].level = level;
        self.shapes.lowered(id, NO_LEVEL, level);
        self.queue(id);
        self.orphans.push(id);
        true
    }

    /// The orphans queued, in order.
    pub(crate) fn orphans(&self) -> &[u32] {
        &self.orphans
    }
}

//! The sites known to the crawl. A site (SPEC §2) is the origin listed in hosts.txt together
//! with its aliases: the same host under the other scheme on its default port, and every
//! origin the home page's redirect chain passes through or ends on. Each origin keeps its own
//! robots.txt rules; politeness is per site, across its origins.
//!
//! Read by every thread (parsers classify links by origin, downloaders check robots), written
//! when a site is added, when the home page's redirects reveal an alias, and when a robots.txt
//! arrives. Aliases are few and appear early (before the home page is parsed), so readers take
//! a snapshot of a site's origins once per page ([`SiteEntry::origins`]) rather than a lock
//! per link.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use dashmap::DashMap;
use parking_lot::{Mutex, MutexGuard, RwLock};
use url::Url;

use crate::base::ids::{ScopeId, SiteId};
use crate::model::robots::RobotsRules;
use crate::model::site::{Origin, Scheme, SiteSpec};

/// One origin of a site, with its robots.txt rules once they are known.
#[derive(Debug)]
pub struct SiteOrigin {
    /// The origin.
    pub origin: Origin,
    robots: OnceLock<Arc<dyn RobotsRules>>,
}

impl SiteOrigin {
    fn new(origin: Origin) -> Arc<Self> {
        Arc::new(SiteOrigin {
            origin,
            robots: OnceLock::new(),
        })
    }

    /// The robots.txt rules of this origin, once fetched.
    pub fn robots(&self) -> Option<&Arc<dyn RobotsRules>> {
        self.robots.get()
    }

    /// Sets the robots rules (the first call wins).
    pub fn set_robots(&self, rules: Arc<dyn RobotsRules>) {
        let _ = self.robots.set(rules);
    }
}

/// One site.
#[derive(Debug)]
pub struct SiteEntry {
    /// Its id.
    pub id: SiteId,
    /// The origin listed in hosts.txt.
    pub origin: Origin,
    /// The crawl scope its pages belong to.
    pub scope: ScopeId,
    /// Politeness and depth settings (hosts.txt; a host found by a multi-host filter takes
    /// its seed's line).
    pub spec: SiteSpec,
    /// How it came into the crawl.
    pub kind: SiteKind,
    /// The listed origin first, then the aliases in the order they were found.
    origins: RwLock<Arc<[Arc<SiteOrigin>]>>,
    /// Held while an alias's robots.txt is fetched, so it is fetched once.
    robots_fetch: Mutex<()>,
    /// What changes per response on its pages, as far as learned (SPEC §14).
    pub learning: crate::model::fold::SiteLearning,
    /// Its cookies (`Cookies = yes`, SPEC §14).
    pub cookies: crate::model::cookies::Jar,
}

impl SiteEntry {
    /// The site's origins now: the listed one first, then its aliases.
    pub fn origins(&self) -> Arc<[Arc<SiteOrigin>]> {
        Arc::clone(&self.origins.read())
    }

    /// The origin of the site that `url` is on, if it is on the site.
    pub fn origin_of(&self, url: &Url) -> Option<Arc<SiteOrigin>> {
        self.origins
            .read()
            .iter()
            .find(|o| o.origin.contains(url))
            .cloned()
    }

    /// Whether `url` is on the site (any of its origins).
    pub fn contains(&self, url: &Url) -> bool {
        self.origins.read().iter().any(|o| o.origin.contains(url))
    }

    /// The listed origin's robots.txt rules, once fetched.
    pub fn robots(&self) -> Option<Arc<dyn RobotsRules>> {
        self.origins.read()[0].robots().cloned()
    }

    /// Sets the listed origin's robots rules (first call wins).
    pub fn set_robots(&self, rules: Arc<dyn RobotsRules>) {
        self.origins.read()[0].set_robots(rules);
    }

    /// The delay between request starts: the configured one, or the listed origin's
    /// robots.txt `Crawl-delay` if larger.
    pub fn effective_delay(&self) -> Duration {
        let robots = self
            .robots()
            .and_then(|r| r.crawl_delay())
            .unwrap_or(Duration::ZERO);
        self.spec.crawl_delay.max(robots)
    }

    /// Held while an alias's robots.txt is fetched.
    pub fn robots_fetch_lock(&self) -> MutexGuard<'_, ()> {
        self.robots_fetch.lock()
    }

    fn push_origin(&self, origin: Origin) -> Arc<SiteOrigin> {
        let mut origins = self.origins.write();
        if let Some(o) = origins.iter().find(|o| o.origin == origin) {
            return Arc::clone(o);
        }
        let added = SiteOrigin::new(origin);
        let mut all: Vec<Arc<SiteOrigin>> = origins.iter().cloned().collect();
        all.push(Arc::clone(&added));
        *origins = all.into();
        added
    }
}

/// How a site came into the crawl.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SiteKind {
    /// Listed in hosts.txt.
    Listed,
    /// A host a multi-host filter found in a seed's scope (SPEC §6).
    Found,
    /// A host out of scope whose pages are kept only when they are about the topic
    /// (`TopicFilter`, SPEC §6).
    Probed,
}

impl SiteEntry {
    /// Whether hosts.txt lists it.
    pub fn is_listed(&self) -> bool {
        self.kind == SiteKind::Listed
    }

    /// Whether its pages must pass the topic score.
    pub fn is_probed(&self) -> bool {
        self.kind == SiteKind::Probed
    }
}

/// A site as one page sees it: its origins when the page was parsed (a snapshot taken once per
/// page, so that classifying its links takes no lock).
#[derive(Debug, Clone, Copy)]
pub struct SiteView<'a> {
    /// The site.
    pub entry: &'a SiteEntry,
    /// Its origins, the listed one first.
    pub origins: &'a [Arc<SiteOrigin>],
}

impl<'a> SiteView<'a> {
    /// The origin of the site that `url` is on, if it is on the site. Allocation-free: runs
    /// for every link.
    pub fn origin_of(&self, url: &Url) -> Option<&'a Arc<SiteOrigin>> {
        self.origins.iter().find(|o| o.origin.contains(url))
    }

    /// Whether `url` is on the site.
    pub fn contains(&self, url: &Url) -> bool {
        self.origin_of(url).is_some()
    }

    /// Whether `url` is on one of the site's hosts under the other scheme, without being on
    /// the site (what `OtherSchemeLinks = Ignore` leaves out).
    pub fn is_other_scheme(&self, url: &Url) -> bool {
        !self.contains(url)
            && self.origins.iter().any(|o| {
                url.host_str() == Some(o.origin.host())
                    && url.scheme() != o.origin.scheme().as_str()
            })
    }
}

/// What to do with links to the same host under the other scheme (`OtherSchemeLinks`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OtherScheme {
    /// They are internal: the other scheme on its default port is an alias (SPEC §2).
    Internal,
    /// They are ignored, as the RCCrawler paper does (its additional requirement 6).
    Ignore,
}

/// The registry of sites.
#[derive(Debug, Default)]
pub struct Sites {
    by_origin: DashMap<Origin, SiteId>,
    list: RwLock<Vec<Arc<SiteEntry>>>,
    /// `OtherSchemeLinks` (set before any site is added, [`Sites::with_listed`]).
    other_scheme: OnceLock<OtherScheme>,
    /// Every origin hosts.txt lists: none is made an alias of another site, even before its
    /// own site is added (scopes are opened a window at a time).
    listed: std::collections::HashSet<Origin>,
}

impl Sites {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty registry for a crawl of the `listed` origins (hosts.txt), giving each site the
    /// same host under the other scheme as an alias as `other` says.
    pub fn with_listed(listed: impl IntoIterator<Item = Origin>, other: OtherScheme) -> Self {
        let listed: std::collections::HashSet<Origin> = listed.into_iter().collect();
        // Room for every listed site and the other-scheme aliases it will get now, before any
        // site's data (sites on other ports get none: no room kept for them).
        let twins = match other {
            OtherScheme::Internal => listed
                .iter()
                .filter_map(Origin::other_scheme)
                .filter(|twin| !listed.contains(twin))
                .count(),
            OtherScheme::Ignore => 0,
        };
        let sites = Sites {
            by_origin: DashMap::with_capacity(listed.len() + twins),
            list: RwLock::new(Vec::with_capacity(listed.len())),
            listed,
            ..Sites::default()
        };
        let _ = sites.other_scheme.set(other);
        sites
    }

    /// Adds a site listed in hosts.txt (or returns the existing one with that origin), with
    /// its other-scheme alias.
    pub fn add(&self, spec: SiteSpec, scope: ScopeId) -> Arc<SiteEntry> {
        let entry = self.insert(spec, scope, SiteKind::Listed);
        self.alias_other_scheme(&entry);
        entry
    }

    /// With [`OtherScheme::Internal`], gives a site on a default port the same host under the
    /// other scheme as an alias — unless that origin is listed itself (both schemes listed).
    fn alias_other_scheme(&self, entry: &SiteEntry) {
        if self.other_scheme.get() != Some(&OtherScheme::Internal) {
            return;
        }
        if let Some(twin) = entry.origin.other_scheme()
            && !self.listed.contains(&twin)
        {
            let _ = self.add_alias(entry.id, twin);
        }
    }

    /// Adds a host a multi-host filter found in the scope of `like` (whose hosts.txt line it
    /// takes) as `kind` ([`SiteKind::Found`] or [`SiteKind::Probed`]), or returns the site
    /// that has its origin already.
    pub fn add_discovered(
        &self,
        origin: Origin,
        like: &SiteEntry,
        kind: SiteKind,
    ) -> Arc<SiteEntry> {
        if let Some(id) = self.by_origin.get(&origin).map(|r| *r) {
            return self.get(id);
        }
        let spec = SiteSpec {
            origin,
            ..like.spec.clone()
        };
        let entry = self.insert(spec, like.scope, kind);
        self.alias_other_scheme(&entry);
        entry
    }

    fn insert(&self, spec: SiteSpec, scope: ScopeId, kind: SiteKind) -> Arc<SiteEntry> {
        let mut list = self.list.write();
        if let Some(id) = self.by_origin.get(&spec.origin).map(|r| *r) {
            return Arc::clone(&list[id.0 as usize]);
        }
        let id = SiteId(list.len() as u32);
        let entry = Arc::new(SiteEntry {
            id,
            origin: spec.origin.clone(),
            scope,
            origins: RwLock::new(vec![SiteOrigin::new(spec.origin.clone())].into()),
            spec,
            kind,
            robots_fetch: Mutex::new(()),
            learning: crate::model::fold::SiteLearning::default(),
            cookies: crate::model::cookies::Jar::default(),
        });
        self.by_origin.insert(entry.origin.clone(), id);
        list.push(Arc::clone(&entry));
        entry
    }

    /// Makes `origin` an alias of site `site`. `Err` names the site that has it already.
    pub fn add_alias(&self, site: SiteId, origin: Origin) -> Result<Arc<SiteOrigin>, SiteId> {
        let entry = self.get(site);
        match self.by_origin.entry(origin.clone()) {
            dashmap::Entry::Occupied(o) if *o.get() != site => Err(*o.get()),
            dashmap::Entry::Occupied(_) => Ok(entry.push_origin(origin)),
            dashmap::Entry::Vacant(v) => {
                v.insert(site);
                Ok(entry.push_origin(origin))
            }
        }
    }

    /// The site with id `id`.
    pub fn get(&self, id: SiteId) -> Arc<SiteEntry> {
        Arc::clone(&self.list.read()[id.0 as usize])
    }

    /// The site `url` is on, if registered (aliases included).
    pub fn find(&self, url: &Url) -> Option<SiteId> {
        let origin = Origin::of(url)?;
        self.by_origin.get(&origin).map(|r| *r)
    }

    /// The site with origin `origin` (listed or an alias), if registered.
    pub fn site_of_origin(&self, origin: &Origin) -> Option<SiteId> {
        self.by_origin.get(origin).map(|r| *r)
    }

    /// Every site, by id.
    pub fn all(&self) -> Vec<Arc<SiteEntry>> {
        self.list.read().clone()
    }

    /// Number of sites.
    pub fn len(&self) -> usize {
        self.list.read().len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Origin {
    /// The same host under the other scheme, when this origin is on its scheme's default
    /// port (`http://x` ↔ `https://x`); `None` for other ports.
    pub fn other_scheme(&self) -> Option<Origin> {
        if self.port() != self.scheme().default_port() {
            return None;
        }
        let scheme = match self.scheme() {
            Scheme::Http => Scheme::Https,
            Scheme::Https => Scheme::Http,
        };
        Some(self.with_scheme(scheme, scheme.default_port()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(url: &str) -> SiteSpec {
        SiteSpec {
            origin: Origin::of(&Url::parse(url).unwrap()).unwrap(),
            max_downloads: 1,
            max_level: 3,
            crawl_delay: Duration::ZERO,
            rules: Default::default(),
        }
    }

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn the_other_scheme_on_the_default_port_is_an_alias() {
        let listed = ["http://x.test", "http://p.test:8080"].map(|o| spec(o).origin);
        let sites = Sites::with_listed(listed, OtherScheme::Internal);
        let x = sites.add(spec("http://x.test"), ScopeId(0));
        let p = sites.add(spec("http://p.test:8080"), ScopeId(1));
        assert!(x.contains(&u("https://x.test/a")));
        assert_eq!(sites.find(&u("https://x.test/")), Some(x.id));
        assert!(
            !x.contains(&u("https://x.test:8443/a")),
            "other ports are other sites"
        );
        assert_eq!(p.origins().len(), 1, "no alias for a non-default port");
        let ignoring = Sites::with_listed([spec("https://i.test").origin], OtherScheme::Ignore);
        let i = ignoring.add(spec("https://i.test"), ScopeId(0));
        assert!(!i.contains(&u("http://i.test/")));
    }

    #[test]
    fn both_schemes_listed_stay_two_sites_and_aliases_are_not_stolen() {
        // Opened one at a time (a window of scopes): the second is listed from the start.
        let listed = ["http://a.test", "https://a.test"].map(|o| spec(o).origin);
        let sites = Sites::with_listed(listed, OtherScheme::Internal);
        let a = sites.add(spec("http://a.test"), ScopeId(0));
        assert_eq!(
            a.origins().len(),
            1,
            "https://a.test is listed: not an alias"
        );
        let b = sites.add(spec("https://a.test"), ScopeId(1));
        assert_eq!(sites.find(&u("https://a.test/")), Some(b.id));
        assert_eq!(sites.find(&u("http://a.test/")), Some(a.id));
        let www = Origin::of(&u("https://www.a.test/")).unwrap();
        assert!(sites.add_alias(a.id, www.clone()).is_ok());
        assert_eq!(sites.add_alias(b.id, www.clone()).err(), Some(a.id));
        assert!(
            sites.add_alias(a.id, www).is_ok(),
            "adding it again is fine"
        );
        assert_eq!(a.origins().len(), 2, "http://a.test and https://www.a.test");
        assert!(a.origin_of(&u("https://www.a.test/x")).is_some());
    }
}

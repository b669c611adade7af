//! The sites known to the crawl: one entry per origin with its politeness settings, the crawl
//! scope it belongs to, and its robots.txt rules once they are known. Read by every thread
//! (parsers classify links by origin, downloaders check robots), written when a site is added
//! and when its robots.txt arrives.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use dashmap::DashMap;
use parking_lot::RwLock;
use url::Url;

use crate::ids::{ScopeId, SiteId};
use crate::robots::RobotsRules;
use crate::site::{Origin, SiteSpec};

/// One site.
#[derive(Debug)]
pub struct SiteEntry {
    /// Its id.
    pub id: SiteId,
    /// Its identity.
    pub origin: Origin,
    /// The crawl scope its pages belong to.
    pub scope: ScopeId,
    /// Politeness and depth settings (hosts.txt).
    pub spec: SiteSpec,
    robots: OnceLock<Arc<dyn RobotsRules>>,
}

impl SiteEntry {
    /// The robots.txt rules, once fetched.
    pub fn robots(&self) -> Option<&Arc<dyn RobotsRules>> {
        self.robots.get()
    }

    /// Sets the robots rules (first call wins).
    pub fn set_robots(&self, rules: Arc<dyn RobotsRules>) {
        let _ = self.robots.set(rules);
    }

    /// The delay between request starts: the configured one, or robots.txt's if larger.
    pub fn effective_delay(&self) -> Duration {
        let robots = self
            .robots()
            .and_then(|r| r.crawl_delay())
            .unwrap_or(Duration::ZERO);
        self.spec.crawl_delay.max(robots)
    }
}

/// The registry of sites.
#[derive(Debug, Default)]
pub struct Sites {
    by_origin: DashMap<Origin, SiteId>,
    list: RwLock<Vec<Arc<SiteEntry>>>,
}

impl Sites {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a site (or returns the existing one with that origin).
    pub fn add(&self, spec: SiteSpec, scope: ScopeId) -> Arc<SiteEntry> {
        let mut list = self.list.write();
        if let Some(id) = self.by_origin.get(&spec.origin).map(|r| *r) {
            return Arc::clone(&list[id.0 as usize]);
        }
        let id = SiteId(list.len() as u32);
        let entry = Arc::new(SiteEntry {
            id,
            origin: spec.origin.clone(),
            scope,
            spec,
            robots: OnceLock::new(),
        });
        self.by_origin.insert(entry.origin.clone(), id);
        list.push(Arc::clone(&entry));
        entry
    }

    /// The site with id `id`.
    pub fn get(&self, id: SiteId) -> Arc<SiteEntry> {
        Arc::clone(&self.list.read()[id.0 as usize])
    }

    /// The site `url` is on, if registered.
    pub fn find(&self, url: &Url) -> Option<SiteId> {
        let origin = Origin::of(url)?;
        self.by_origin.get(&origin).map(|r| *r)
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

//! `AllHostsUAT`: every host is in scope, bounded only by `maxCrawlLevel` — the "original
//! crawler" the domain-name filter paper measures itself against (its Table 1). All seeds
//! share one scope, so that which scope a host belongs to never depends on which seed's
//! crawl met it first.

use url::Url;

use super::{SeedPlan, UrlFilter};
use crate::base::ids::SiteId;
use crate::model::site::Origin;
use crate::model::sites::{SiteKind, SiteView, Sites};

/// Every host of every link.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct AllHosts;

impl UrlFilter for AllHosts {
    fn plan(&mut self, seeds: &[Origin]) -> Vec<SeedPlan> {
        (0..seeds.len())
            .map(|i| SeedPlan {
                scope_of: 0,
                key_domains: Vec::new(),
                shares_because: if i == 0 {
                    String::new()
                } else {
                    "AllHostsUAT crawls every seed in one scope".to_owned()
                },
            })
            .collect()
    }

    fn scope_site(&self, from: &SiteView<'_>, url: &Url, sites: &Sites) -> Option<SiteId> {
        if from.contains(url) {
            return Some(from.entry.id);
        }
        if let Some(id) = sites.find(url) {
            return (sites.get(id).scope == from.entry.scope).then_some(id);
        }
        let origin = Origin::of(url)?;
        Some(sites.add_discovered(origin, from.entry, SiteKind::Found).id)
    }

    fn spans_hosts(&self) -> bool {
        true
    }

    fn host_rule(&self) -> super::HostRule {
        super::HostRule::Every
    }
}

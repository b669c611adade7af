//! The URL filter (the paper's UrlAnalyzingThread): which links are inside a crawl's scope.
//! Called by the parser threads for every http(s) link, and by downloaders for redirects.
//!
//! - `EmptyUAT` ([`SeedSiteOnly`]): a scope is its seed site.
//! - `KeyDomainUAT` ([`KeyDomainFilter`], SPEC §6): a scope is every host that carries one of
//!   its seeds' key domains ([`key_domain`], held in a [`trie`]), and — with `TopicFilter` —
//!   pages of other hosts that are about the topic ([`topic`]).
//! - `AllHostsUAT` ([`AllHosts`]): every host, all seeds in one scope (the paper's baseline).

mod all_hosts;
mod empty;
pub(crate) mod key_domain;
mod key_domain_filter;
pub(crate) mod topic;
pub(crate) mod trie;

use std::fmt::Debug;

pub(crate) use all_hosts::AllHosts;
pub(crate) use empty::SeedSiteOnly;
pub(crate) use key_domain_filter::KeyDomainFilter;
use url::Url;

use crate::base::ids::{ScopeId, SiteId};
use crate::model::site::Origin;
use crate::model::sites::{SiteView, Sites};
use topic::Topic;

/// How a seed of hosts.txt is crawled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedPlan {
    /// The seed (hosts.txt order) whose scope this seed is crawled in: itself, or an earlier
    /// seed whose key domains meet its own.
    pub scope_of: usize,
    /// Its key domains (empty for filters without them).
    pub key_domains: Vec<String>,
    /// Why it shares the scope of another seed, for the console (empty when it does not).
    pub shares_because: String,
}

/// Which hosts beyond its sites a scope takes in: what the network of sites (SPEC §13)
/// counts as a link to a target when another target's page links there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostRule {
    /// Its sites only: the hosts of its seeds and of their aliases (`EmptyUAT`).
    SeedSites,
    /// Also every host any label of which is one of its seeds' key domains (`KeyDomainUAT`).
    KeyDomains,
    /// Every host (`AllHostsUAT`).
    Every,
}

/// Decides whether a link is internal to a crawl. Called by the parsing threads, concurrently,
/// for every http(s) link of every page.
pub trait UrlFilter: Send + Sync + Debug {
    /// Before the crawl: how each seed is crawled (in hosts.txt order). By default each seed
    /// is a scope of its own.
    fn plan(&mut self, seeds: &[Origin]) -> Vec<SeedPlan> {
        (0..seeds.len())
            .map(|i| SeedPlan {
                scope_of: i,
                key_domains: Vec::new(),
                shares_because: String::new(),
            })
            .collect()
    }

    /// Seed `seed`'s scope was opened as `scope` (called for each seed that [`Self::plan`]
    /// made a scope of its own, before the crawl or — with a store shared by several
    /// processes — while it runs).
    fn scope_opened(&self, _seed: usize, _scope: ScopeId) {}

    /// The site (of the crawl scope that the page's site `from` belongs to) that `url` is on,
    /// or `None` when the link leaves the scope (an external link). `sites` holds every site
    /// of the run; a filter whose scopes span hosts registers a host the first time it meets
    /// one ([`Sites::add_discovered`]).
    fn scope_site(&self, from: &SiteView<'_>, url: &Url, sites: &Sites) -> Option<SiteId>;

    /// Whether a scope may span several hosts (the results then name each page's host).
    fn spans_hosts(&self) -> bool {
        false
    }

    /// The topic a page of a probed site must be about (`TopicFilter`), if any.
    fn topic(&self) -> Option<&Topic> {
        None
    }

    /// Which hosts beyond its sites a scope takes in.
    fn host_rule(&self) -> HostRule {
        HostRule::SeedSites
    }
}

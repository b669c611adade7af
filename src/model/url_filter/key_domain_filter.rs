//! `KeyDomainUAT` (SPEC §6): a link is in a scope when any label of its host is one of the
//! scope's key domains. Seeds whose key domains meet share one scope. A host that carries
//! the key domains of several scopes belongs to the first of them (hosts.txt order), whatever
//! crawl meets it first, so concurrency never changes a graph. With `TopicFilter`, a host in
//! no scope's key domains is still fetched from, page by page: its pages are kept when they
//! are about the topic (the parser scores them, [`Topic`]).

use parking_lot::RwLock;
use url::Url;

use super::key_domain::KeyDomains;
use super::topic::Topic;
use super::trie::LabelTrie;
use super::{SeedPlan, UrlFilter};
use crate::base::ids::{ScopeId, SiteId};
use crate::model::site::Origin;
use crate::model::sites::{SiteKind, SiteView, Sites};

/// The domain-name link filter.
#[derive(Debug)]
pub(crate) struct KeyDomainFilter {
    domains: KeyDomains,
    /// Each planned scope's key domains, by its first seed.
    planned: Vec<(usize, LabelTrie)>,
    /// Each opened scope's key domains, in hosts.txt order of their first seeds (scopes may
    /// be opened while the crawl runs).
    scopes: RwLock<Vec<(usize, ScopeId, LabelTrie)>>,
    topic: Option<Topic>,
}

impl KeyDomainFilter {
    /// Key domains by `domains`; pages out of scope kept by `topic`, if given.
    pub(crate) fn new(domains: KeyDomains, topic: Option<Topic>) -> Self {
        KeyDomainFilter {
            domains,
            planned: Vec::new(),
            scopes: RwLock::new(Vec::new()),
            topic,
        }
    }

    /// The scope `host` belongs to by its key domains.
    fn owner(&self, host: &str) -> Option<ScopeId> {
        self.scopes
            .read()
            .iter()
            .find(|(_, _, keys)| keys.any_label_of(host))
            .map(|(_, s, _)| *s)
    }
}

impl UrlFilter for KeyDomainFilter {
    fn plan(&mut self, seeds: &[Origin]) -> Vec<SeedPlan> {
        let keys: Vec<Vec<String>> = seeds.iter().map(|o| self.domains.of(o.host())).collect();
        // Union of seeds that share a key domain: each joins the earliest seed it meets,
        // directly or through others.
        let mut scope_of: Vec<usize> = (0..seeds.len()).collect();
        fn root(p: &mut [usize], mut i: usize) -> usize {
            while p[i] != i {
                p[i] = p[p[i]];
                i = p[i];
            }
            i
        }
        for i in 0..seeds.len() {
            for j in 0..i {
                if keys[i].iter().any(|k| keys[j].contains(k)) {
                    let (a, b) = (root(&mut scope_of, i), root(&mut scope_of, j));
                    let (lo, hi) = (a.min(b), a.max(b));
                    scope_of[hi] = lo;
                }
            }
        }
        let leaders: Vec<usize> = (0..seeds.len()).map(|i| root(&mut scope_of, i)).collect();
        self.planned.clear();
        for (i, &leader) in leaders.iter().enumerate() {
            match self.planned.iter_mut().find(|(l, _)| *l == leader) {
                Some((_, trie)) => keys[i].iter().for_each(|k| trie.insert(k)),
                None => self
                    .planned
                    .push((leader, keys[i].iter().map(String::as_str).collect())),
            }
        }
        (0..seeds.len())
            .map(|i| {
                let leader = leaders[i];
                let shares_because = if leader == i {
                    String::new()
                } else {
                    // The key domains it has in common with the other seeds of its scope.
                    let mut common: Vec<&str> = keys[i]
                        .iter()
                        .filter(|k| {
                            (0..seeds.len())
                                .any(|j| j != i && leaders[j] == leader && keys[j].contains(k))
                        })
                        .map(String::as_str)
                        .collect();
                    common.dedup();
                    format!("their key domains meet ({})", common.join(", "))
                };
                SeedPlan {
                    scope_of: leader,
                    key_domains: keys[i].clone(),
                    shares_because,
                }
            })
            .collect()
    }

    fn scope_opened(&self, seed: usize, scope: ScopeId) {
        if let Some((_, keys)) = self.planned.iter().find(|(l, _)| *l == seed) {
            let mut scopes = self.scopes.write();
            let at = scopes.partition_point(|(s, _, _)| *s < seed);
            scopes.insert(at, (seed, scope, keys.clone()));
        }
    }

    fn scope_site(&self, from: &SiteView<'_>, url: &Url, sites: &Sites) -> Option<SiteId> {
        if from.contains(url) {
            return Some(from.entry.id);
        }
        if let Some(id) = sites.find(url) {
            return (sites.get(id).scope == from.entry.scope).then_some(id);
        }
        let origin = Origin::of(url)?;
        match self.owner(origin.host()) {
            Some(scope) if scope == from.entry.scope => {
                Some(sites.add_discovered(origin, from.entry, SiteKind::Found).id)
            }
            Some(_) => None,
            None if self.topic.is_some() => Some(
                sites
                    .add_discovered(origin, from.entry, SiteKind::Probed)
                    .id,
            ),
            None => None,
        }
    }

    fn spans_hosts(&self) -> bool {
        true
    }

    fn topic(&self) -> Option<&Topic> {
        self.topic.as_ref()
    }

    fn host_rule(&self) -> super::HostRule {
        super::HostRule::KeyDomains
    }
}

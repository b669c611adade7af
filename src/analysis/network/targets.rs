//! The target set: the sites of summary.csv (hosts.txt's, in its order, and those of earlier
//! runs), and which hosts each target's scope takes in (SPEC §13 rule 2): the hosts of its
//! listed site and of the origin its home page ended on, and — with a filter whose scopes span
//! hosts — every host carrying one of its seeds' key domains (`KeyDomainUAT`) or every host
//! (`AllHostsUAT`). A host several targets would take belongs to the first of them, as a
//! crawl gives it to the first scope.

use std::collections::HashMap;
use std::path::Path;

use super::NetworkError;
use crate::model::site::Origin;
use crate::model::url_filter::{HostRule, SeedPlan};

/// Which hosts the targets' scopes take in beyond their sites, from the crawl's URL filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetScopes {
    rule: HostRule,
    /// The key domains of each scope with some, by its first seed's origin (as summary.csv's
    /// `Site` names it): the union of its seeds'.
    keys: HashMap<String, Vec<String>>,
}

impl Default for TargetScopes {
    fn default() -> Self {
        TargetScopes {
            rule: HostRule::SeedSites,
            keys: HashMap::new(),
        }
    }
}

impl TargetScopes {
    /// From the filter's plan of the seeds (`plans[i]` for `seeds[i]`) and its host rule.
    pub fn from_plans(seeds: &[Origin], plans: &[SeedPlan], rule: HostRule) -> Self {
        let mut keys: HashMap<String, Vec<String>> = HashMap::new();
        if rule == HostRule::KeyDomains {
            for plan in plans {
                if plan.key_domains.is_empty() {
                    continue;
                }
                let Some(leader) = seeds.get(plan.scope_of) else {
                    continue;
                };
                let k = keys.entry(leader.to_string()).or_default();
                for d in &plan.key_domains {
                    if !k.contains(d) {
                        k.push(d.clone());
                    }
                }
            }
        }
        TargetScopes { rule, keys }
    }
}

/// One target: a row of summary.csv.
#[derive(Debug, Clone)]
pub(super) struct Target {
    /// `Site`, as summary.csv names it.
    pub(super) site: String,
    /// Its results folder.
    pub(super) folder: String,
    /// Its nodes.
    pub(super) pages: u64,
    /// The host of its listed site (its own unit is this host's).
    pub(super) host: String,
}

/// The targets and which of them takes a host in.
#[derive(Debug)]
pub(super) struct TargetSet {
    pub(super) targets: Vec<Target>,
    /// Hosts of listed sites and of home pages' last origins: the first target with each.
    by_host: HashMap<String, usize>,
    /// Key domains: the first target with each.
    by_key: HashMap<String, usize>,
    /// Every host belongs to the first target (`AllHostsUAT`).
    every: bool,
}

impl TargetSet {
    /// Reads `results/summary.csv`.
    pub(super) fn read(results: &Path, scopes: &TargetScopes) -> Result<Self, NetworkError> {
        let path = results.join("summary.csv");
        let bad = |line: u64, why: String| NetworkError::Input {
            path: path.clone(),
            line,
            why,
        };
        let mut rdr = csv::ReaderBuilder::new()
            .flexible(false)
            .from_path(&path)
            .map_err(|e| bad(0, e.to_string()))?;
        let header = rdr.headers().map_err(|e| bad(1, e.to_string()))?.clone();
        let col = |name: &str| header.iter().position(|h| h == name);
        let (Some(site), Some(folder), Some(pages)) = (col("Site"), col("Folder"), col("Pages"))
        else {
            return Err(bad(
                1,
                "not a summary.csv of rccrawler (no Site, Folder or Pages column)".into(),
            ));
        };
        let home = col("Home");
        let mut set = TargetSet::empty(scopes);
        for record in rdr.records() {
            let r = record.map_err(|e| {
                let line = e.position().map_or(0, csv::Position::line);
                bad(line, e.to_string())
            })?;
            let line = r.position().map_or(0, csv::Position::line);
            let field = |i: usize| r.get(i).unwrap_or("");
            let host = host_of(field(site))
                .ok_or_else(|| bad(line, format!("Site {:?} is not a URL", field(site))))?;
            let pages = field(pages)
                .trim()
                .parse()
                .map_err(|_| bad(line, format!("Pages {:?} is not a number", field(pages))))?;
            let home = home.and_then(|c| host_of(field(c)));
            let folder = crate::base::storage::paths::plain_name(field(folder))
                .map_err(|e| bad(line, format!("Folder: {e}")))?;
            let target = Target {
                site: field(site).to_owned(),
                folder: folder.to_owned(),
                pages,
                host,
            };
            set.push(target, home, scopes);
        }
        Ok(set)
    }

    /// The targets of a crawl still running: its scopes' first seeds (`(Site, host)`, in
    /// hosts.txt order), before any home page is known.
    pub(super) fn listed(
        sites: impl IntoIterator<Item = (String, String)>,
        scopes: &TargetScopes,
    ) -> Self {
        let mut set = TargetSet::empty(scopes);
        for (site, host) in sites {
            let target = Target {
                folder: String::new(),
                pages: 0,
                site,
                host,
            };
            set.push(target, None, scopes);
        }
        set
    }

    fn empty(scopes: &TargetScopes) -> Self {
        TargetSet {
            targets: Vec::new(),
            by_host: HashMap::new(),
            by_key: HashMap::new(),
            every: scopes.rule == HostRule::Every,
        }
    }

    /// Adds the next target; `home` is the host its home page ended on, when known.
    fn push(&mut self, target: Target, home: Option<String>, scopes: &TargetScopes) {
        let i = self.targets.len();
        self.by_host.entry(target.host.clone()).or_insert(i);
        if let Some(h) = home {
            self.by_host.entry(h).or_insert(i);
        }
        if let Some(keys) = scopes.keys.get(&target.site) {
            for k in keys {
                self.by_key.entry(k.clone()).or_insert(i);
            }
        }
        self.targets.push(target);
    }

    /// The first target whose scope takes `host` in, if any.
    pub(super) fn taking(&self, host: &str) -> Option<usize> {
        if self.every && !self.targets.is_empty() {
            return Some(0);
        }
        let exact = self.by_host.get(host).copied();
        if self.by_key.is_empty() {
            return exact;
        }
        host.split('.')
            .filter_map(|label| self.by_key.get(label).copied())
            .chain(exact)
            .min()
    }
}

/// The host of a URL as summary.csv writes it, lower case.
fn host_of(url: &str) -> Option<String> {
    let u = url::Url::parse(url.trim()).ok()?;
    u.host_str().map(str::to_ascii_lowercase)
}

//! The network's totals while a crawl runs, for the live status page (SPEC §12, §13): each
//! site's external links are counted into them once its files are written. The targets are
//! the scopes' first seeds of hosts.txt (home pages that moved are not known yet, so a link
//! to where one moved counts as an accompanying site until the end); the files of
//! `results/network/`, written at the end, are exact.

use std::collections::HashSet;
use std::path::Path;

use parking_lot::Mutex;

use super::NetworkSpec;
use super::aggregate::{Linked, classify, read_links};
use super::targets::TargetSet;

/// The network's totals so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct LiveTotals {
    /// Target sites (hosts.txt's scopes).
    pub targets: usize,
    /// Target sites whose links are counted (written so far in this run).
    pub counted: usize,
    /// Accompanying sites found so far.
    pub accompanying: usize,
    /// Arcs so far.
    pub arcs: u64,
}

/// Hands each host of a site's external links to its callback; `false`: they could not all
/// be read.
type HostReader<'r> = dyn FnMut(&mut dyn FnMut(&str)) -> bool + 'r;

/// See the module docs.
#[derive(Debug)]
pub(crate) struct LiveNetwork {
    spec: NetworkSpec,
    set: TargetSet,
    /// The targets' positions sorted by site: a site is found by binary search (a search
    /// through the list at each site written made a crawl of a million sites quadratic: 40 %
    /// of its CPU at 300,000 sites written), at 4 bytes a target.
    by_site: Box<[u32]>,
    state: Mutex<Seen>,
}

#[derive(Debug, Default)]
struct Seen {
    units: HashSet<String>,
    arcs: u64,
    counted: HashSet<usize>,
}

impl LiveNetwork {
    /// Totals over the targets `sites` (`(Site, host)` of each scope's first seed, in
    /// hosts.txt order), by `spec`.
    pub(crate) fn new(
        spec: NetworkSpec,
        sites: impl IntoIterator<Item = (String, String)>,
    ) -> Self {
        let set = TargetSet::listed(sites, &spec.scopes);
        let mut by_site: Vec<u32> = (0..set.targets.len() as u32).collect();
        // Stable: of two targets of one site (none in practice), the first is found.
        by_site.sort_by(|&a, &b| {
            set.targets[a as usize]
                .site
                .cmp(&set.targets[b as usize].site)
        });
        LiveNetwork {
            spec,
            set,
            by_site: by_site.into_boxed_slice(),
            state: Mutex::new(Seen::default()),
        }
    }

    /// The position of target `site`.
    fn target(&self, site: &str) -> Option<usize> {
        let of = |i: &u32| self.set.targets[*i as usize].site.as_str();
        let at = self.by_site.partition_point(|i| of(i) < site);
        let i = *self.by_site.get(at)?;
        (of(&i) == site).then_some(i as usize)
    }

    /// Target `site`'s files were written into `folder`: its links count from now on (once).
    /// A file that does not read leaves the totals as they were: they are a view, not a
    /// result.
    pub(crate) fn count_site(&self, site: &str, folder: &Path) {
        self.count(site, &mut |each| {
            read_links(&folder.join("external_links.csv"), &mut |_, _, host, _| {
                each(host);
            })
            .is_ok()
        });
    }

    /// [`Self::count_site`] by `hosts`, the distinct `Host`s of the external_links.csv just
    /// written into `folder` (taken from the graph it was written from); without them, or
    /// with no such file there (other result files than Gephi's), as [`Self::count_site`].
    pub(crate) fn count_written(&self, site: &str, folder: &Path, hosts: Option<Vec<String>>) {
        match hosts {
            Some(hosts) if folder.join("external_links.csv").is_file() => {
                self.count(site, &mut |each| {
                    hosts.iter().for_each(|h| each(h));
                    true
                });
            }
            _ => self.count_site(site, folder),
        }
    }

    /// Counts target `site` once by the hosts `read` hands to its callback (`false`: they
    /// could not all be read, and nothing is counted).
    fn count(&self, site: &str, read: &mut HostReader<'_>) {
        let Some(t) = self.target(site) else {
            return;
        };
        let own = self.spec.unit.of(&self.set.targets[t].host).to_owned();
        let mut targets: HashSet<usize> = HashSet::new();
        let mut units: HashSet<String> = HashSet::new();
        let whole = read(
            &mut |host| match classify(&self.set, t, &own, self.spec.unit, host) {
                Some(Linked::Target(t2)) => {
                    targets.insert(t2);
                }
                Some(Linked::Unit(u)) if !units.contains(u) => {
                    units.insert(u.to_owned());
                }
                _ => {}
            },
        );
        if !whole {
            return;
        }
        let mut seen = self.state.lock();
        if !seen.counted.insert(t) {
            return;
        }
        seen.arcs += (targets.len() + units.len()) as u64;
        seen.units.extend(units);
    }

    /// The totals so far.
    pub(crate) fn totals(&self) -> LiveTotals {
        let seen = self.state.lock();
        LiveTotals {
            targets: self.set.targets.len(),
            counted: seen.counted.len(),
            accompanying: seen.units.len(),
            arcs: seen.arcs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::network::targets::TargetScopes;
    use crate::analysis::network::unit::{Subsets, Unit};

    /// Sites not in name order, found wherever they are; each site's links counted once.
    #[test]
    fn each_target_is_found_by_its_site_and_counted_once() {
        let spec = NetworkSpec {
            unit: Unit::Host,
            subsets: Subsets::new(&[1]),
            scopes: TargetScopes::default(),
            entities: None,
        };
        let sites = ["http://c.test", "http://a.test", "http://b.test:81"];
        let live = LiveNetwork::new(
            spec,
            sites.iter().map(|s| {
                let host = s.trim_start_matches("http://").split(':').next().unwrap();
                (s.to_string(), host.to_owned())
            }),
        );
        assert_eq!(live.target("http://a.test"), Some(1));
        assert_eq!(live.target("http://b.test:81"), Some(2));
        assert_eq!(live.target("http://c.test"), Some(0));
        assert_eq!(live.target("http://b.test"), None);
        assert_eq!(live.target("http://d.test"), None);
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("external_links.csv"),
            "Source,Url,Host,Anchor,Context,Rel\n\
             1,http://c.test/,c.test,C,,\n\
             1,http://x.example/,x.example,X,,\n",
        )
        .unwrap();
        live.count_site("http://a.test", dir.path());
        live.count_site("http://a.test", dir.path());
        live.count_site("http://d.test", dir.path());
        let totals = live.totals();
        assert_eq!(
            (
                totals.targets,
                totals.counted,
                totals.arcs,
                totals.accompanying
            ),
            (3, 1, 2, 1)
        );
    }

    /// Counted by the hosts of the file just written, a site counts as read from the file;
    /// with no such file (other result files), as the file-based count (nothing linked).
    #[test]
    fn hosts_taken_from_the_graph_count_as_the_file_would() {
        let live = |sites: &[&str]| {
            let spec = NetworkSpec {
                unit: Unit::Host,
                subsets: Subsets::new(&[1]),
                scopes: TargetScopes::default(),
                entities: None,
            };
            LiveNetwork::new(
                spec,
                sites.iter().map(|s| {
                    let host = s.trim_start_matches("http://");
                    (s.to_string(), host.to_owned())
                }),
            )
        };
        let sites = ["http://a.test", "http://b.test", "http://c.test"];
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("external_links.csv"),
            "Source,Url,Host,Anchor,Rel\n\
             1,http://c.test/,c.test,C,\n\
             2,http://c.test/x,c.test,C,\n\
             1,http://x.example/,x.example,X,\n\
             2,http://y.example/,y.example,Y,nofollow\n",
        )
        .unwrap();
        let (by_file, by_hosts) = (live(&sites), live(&sites));
        by_file.count_site("http://a.test", dir.path());
        let hosts = ["c.test", "x.example", "y.example"]
            .map(str::to_owned)
            .to_vec();
        by_hosts.count_written("http://a.test", dir.path(), Some(hosts.clone()));
        by_hosts.count_written("http://a.test", dir.path(), Some(hosts.clone()));
        assert_eq!(by_hosts.totals(), by_file.totals());
        assert_eq!(by_hosts.totals().arcs, 3);
        // No external_links.csv in the folder: nothing of the hosts counts.
        let empty = tempfile::tempdir().unwrap();
        let (by_file, by_hosts) = (live(&sites), live(&sites));
        by_file.count_site("http://b.test", empty.path());
        by_hosts.count_written("http://b.test", empty.path(), Some(hosts));
        assert_eq!(by_hosts.totals(), by_file.totals());
        assert_eq!(by_hosts.totals().arcs, 0);
    }
}

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
        let Some(t) = self.target(site) else {
            return;
        };
        let own = self.spec.unit.of(&self.set.targets[t].host).to_owned();
        let mut targets: HashSet<usize> = HashSet::new();
        let mut units: HashSet<String> = HashSet::new();
        let read =
            read_links(
                &folder.join("external_links.csv"),
                &mut |_, _, host, _| match classify(&self.set, t, &own, self.spec.unit, host) {
                    Some(Linked::Target(t2)) => {
                        targets.insert(t2);
                    }
                    Some(Linked::Unit(u)) if !units.contains(u) => {
                        units.insert(u.to_owned());
                    }
                    _ => {}
                },
            );
        if read.is_err() {
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
}

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
        LiveNetwork {
            spec,
            set,
            state: Mutex::new(Seen::default()),
        }
    }

    /// Target `site`'s files were written into `folder`: its links count from now on (once).
    /// A file that does not read leaves the totals as they were: they are a view, not a
    /// result.
    pub(crate) fn count_site(&self, site: &str, folder: &Path) {
        let Some(t) = self.set.targets.iter().position(|x| x.site == site) else {
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

//! The network as its files show it: nodes in their order and with their ids (targets in
//! hosts.txt order, then accompanying sites by the number of targets linking to them, most
//! first, then by name), arcs by source then target id, the subsets of the accompanying set.

use super::aggregate::{Counts, Inbound, NodeKey};
use super::targets::TargetSet;
use super::unit::Subsets;

/// Which set a node is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Set {
    /// A site of hosts.txt.
    Target,
    /// A site a target links to.
    Accompanying,
}

impl Set {
    /// As nodes.csv writes it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Set::Target => "target",
            Set::Accompanying => "accompanying",
        }
    }
}

/// A node of the network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NodeRow {
    /// A target's `Site` (as summary.csv), an accompanying site's unit.
    pub label: String,
    /// Its set.
    pub set: Set,
    /// `target`, or the class of the accompanying set.
    pub subset: String,
    /// Links into it from targets.
    pub inbound: Inbound,
    /// A target's: distinct sites of the network it links to.
    pub out_targets: u32,
    /// A target's: its links into the network.
    pub out_links: u64,
    /// A target's nodes.
    pub pages: u64,
    /// The hosts merged into it (of its pages, of the links into it), sorted, `;`-separated.
    pub hosts: String,
}

/// An arc between node ids (1-based, as nodes.csv's `Id`). 16 bytes, as the arcs counted,
/// so that the arcs become edges in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct EdgeRow {
    /// The source's id (a target).
    pub source: u32,
    /// The target's id.
    pub target: u32,
    /// Links.
    pub weight: u32,
    /// Distinct linking pages of the source.
    pub pages: u32,
    /// Links carrying `nofollow`, `ugc` or `sponsored`.
    pub nofollow: u32,
}

impl NodeRow {
    /// Whether it can be a public web site: a host of it (its name, when it lists none) has a
    /// dot or is an IP address (an entity's name need not).
    pub(crate) fn is_public(&self) -> bool {
        if self.hosts.is_empty() {
            return super::unit::is_public_name(&self.label);
        }
        self.hosts.split(';').any(super::unit::is_public_name)
    }
}

impl EdgeRow {
    /// The share of its links that carry `nofollow`, `ugc` or `sponsored` (0 to 1).
    pub(crate) fn nofollow_share(&self) -> f64 {
        if self.weight == 0 {
            0.0
        } else {
            f64::from(self.nofollow) / f64::from(self.weight)
        }
    }
}

/// One class of the accompanying set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SubsetRow {
    /// Its name (`2-4`).
    pub name: String,
    /// Accompanying sites in it.
    pub sites: u64,
    /// Links from targets into them.
    pub links: u64,
}

/// The network: every node and subset, and arcs — all of them, or (read back for the
/// report) those between the nodes a reader keeps; the totals count them all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Network {
    /// Every node, in id order.
    pub nodes: Vec<NodeRow>,
    /// How many of them are targets (they come first).
    pub targets: usize,
    /// Arcs held, by source id then target id (none when built: they stream to the files).
    pub edges: Vec<EdgeRow>,
    /// The accompanying set's classes.
    pub subsets: Vec<SubsetRow>,
    /// Arcs in all.
    pub arcs: u64,
    /// Their links.
    pub links: u64,
}

/// The accompanying set's classes as its sites are counted in.
pub(super) struct SubsetTally {
    subsets: Subsets,
    names: Vec<String>,
    /// Each class's sites and links so far.
    pub(super) rows: Vec<SubsetRow>,
}

impl SubsetTally {
    pub(super) fn new(subsets: &Subsets) -> Self {
        let names = subsets.names();
        let rows = names
            .iter()
            .map(|name| SubsetRow {
                name: name.clone(),
                sites: 0,
                links: 0,
            })
            .collect();
        SubsetTally {
            subsets: subsets.clone(),
            names,
            rows,
        }
    }

    /// Counts an accompanying site linked as `inbound` says; its class's name (empty below
    /// the first class).
    pub(super) fn add(&mut self, inbound: Inbound) -> String {
        let class = self.subsets.class_of(inbound.targets);
        if let Some(c) = class.and_then(|c| self.rows.get_mut(c)) {
            c.sites += 1;
            c.links += inbound.links;
        }
        class.map_or_else(String::new, |c| self.names[c].clone())
    }
}

/// Each site's id from its code (`NodeKey::code`).
pub(super) struct Ids {
    /// Accompanying sites' ids, by index.
    units: Vec<u32>,
}

impl Ids {
    /// Ids of arcs spilled with final ids (a target's code is its id − 1).
    pub(super) fn identity() -> Self {
        Ids { units: Vec::new() }
    }

    /// The id of the site `code` names.
    pub(super) fn of(&self, code: u32) -> u32 {
        match NodeKey::from_code(code) {
            NodeKey::Target(t) => t + 1,
            NodeKey::Accompanying(u) => self.units[u as usize],
        }
    }
}

impl Network {
    /// Orders and numbers what `counts` found for the targets of `set`; the ids of its
    /// sites, for its arcs.
    pub(super) fn assemble(set: &TargetSet, counts: &Counts, subsets: &Subsets) -> (Network, Ids) {
        let n_targets = set.targets.len();
        // Accompanying sites: most targets linking first, then by name.
        let mut order: Vec<usize> = (0..counts.units.len()).collect();
        order.sort_by(|&a, &b| {
            counts.into_units[b]
                .targets
                .cmp(&counts.into_units[a].targets)
                .then_with(|| counts.units[a].cmp(&counts.units[b]))
        });
        let mut units = vec![0u32; counts.units.len()];
        for (rank, &u) in order.iter().enumerate() {
            units[u] = u32::try_from(n_targets + rank + 1).unwrap_or(u32::MAX);
        }
        let mut nodes: Vec<NodeRow> = set
            .targets
            .iter()
            .zip(&counts.into_targets)
            .zip(&counts.out)
            .enumerate()
            .map(|(i, ((t, inbound), &(out_targets, out_links)))| NodeRow {
                label: t.site.clone(),
                set: Set::Target,
                subset: "target".to_owned(),
                inbound: *inbound,
                out_targets,
                out_links,
                pages: t.pages,
                hosts: counts.target_hosts.get(i).cloned().unwrap_or_default(),
            })
            .collect();
        let mut classes = SubsetTally::new(subsets);
        for &u in &order {
            let inbound = counts.into_units[u];
            nodes.push(NodeRow {
                label: counts.units[u].clone(),
                set: Set::Accompanying,
                subset: classes.add(inbound),
                inbound,
                out_targets: 0,
                out_links: 0,
                pages: 0,
                hosts: counts.unit_hosts[u].join(";"),
            });
        }
        let arcs = counts.out.iter().map(|o| u64::from(o.0)).sum();
        let links = counts.out.iter().map(|o| o.1).sum();
        let net = Network {
            nodes,
            targets: n_targets,
            edges: Vec::new(),
            subsets: classes.rows,
            arcs,
            links,
        };
        (net, Ids { units })
    }

    /// Accompanying sites linked by at least `k` targets, most linked first.
    pub(crate) fn prospects(&self, k: u32) -> impl Iterator<Item = (usize, &NodeRow)> + '_ {
        self.ranked_accompanying()
            .filter(move |(_, n)| n.inbound.targets >= k)
    }

    /// The accompanying sites in their order, but names without a dot (an intranet's host, a
    /// broken link's: no one outside can crawl them) after the public ones (issue 68).
    pub(crate) fn ranked_accompanying(&self) -> impl Iterator<Item = (usize, &NodeRow)> + '_ {
        let accompanying = || self.nodes.iter().enumerate().skip(self.targets);
        let public = |n: &NodeRow| n.is_public();
        accompanying()
            .filter(move |(_, n)| public(n))
            .chain(accompanying().filter(move |(_, n)| !public(n)))
    }
}

//! The network read back from `results/network/` (the report draws it from the files, as it
//! shows everything else). `None` when the folder has no network.

use std::path::Path;

use super::NETWORK_DIR;
use super::aggregate::Inbound;
use super::model::{EdgeRow, Network, NodeRow, Set, SubsetRow};
use super::write::{EDGE_HEADER, NODE_HEADER};
use crate::gephi_csv::gephi_unescape;

/// Reads the network of results folder `results`, if it has one that reads.
pub fn read_network(results: &Path) -> Option<Network> {
    let dir = results.join(NETWORK_DIR);
    let text = |s: &str| gephi_unescape(s).unwrap_or_else(|_| s.to_owned());
    let num = |s: &str| s.trim().parse::<u64>().unwrap_or(0);
    let mut nodes = Vec::new();
    let mut targets = 0;
    let mut rdr = csv::Reader::from_path(dir.join("nodes.csv")).ok()?;
    if rdr.headers().ok()?.iter().ne(NODE_HEADER) {
        return None;
    }
    for r in rdr.records() {
        let r = r.ok()?;
        let set = if &r[2] == "target" {
            targets += 1;
            Set::Target
        } else {
            Set::Accompanying
        };
        nodes.push(NodeRow {
            label: text(&r[1]),
            set,
            subset: text(&r[3]),
            inbound: Inbound {
                targets: u32::try_from(num(&r[4])).unwrap_or(u32::MAX),
                links: num(&r[5]),
                pages: num(&r[6]),
            },
            out_targets: u32::try_from(num(&r[7])).unwrap_or(u32::MAX),
            out_links: num(&r[8]),
            pages: num(&r[9]),
        });
    }
    let mut edges = Vec::new();
    let mut rdr = csv::Reader::from_path(dir.join("edges.csv")).ok()?;
    if rdr.headers().ok()?.iter().ne(EDGE_HEADER) {
        return None;
    }
    for r in rdr.records() {
        let r = r.ok()?;
        edges.push(EdgeRow {
            source: usize::try_from(num(&r[0])).ok()?,
            target: usize::try_from(num(&r[1])).ok()?,
            weight: num(&r[3]),
            pages: num(&r[4]),
        });
    }
    let mut subsets = Vec::new();
    let mut rdr = csv::Reader::from_path(dir.join("subsets.csv")).ok()?;
    for r in rdr.records() {
        let r = r.ok()?;
        subsets.push(SubsetRow {
            name: r[0].to_owned(),
            sites: num(&r[1]),
            links: num(&r[2]),
        });
    }
    Some(Network {
        nodes,
        targets,
        edges,
        subsets,
    })
}

//! The network read back from `results/network/` (the report draws it from the files, as it
//! shows everything else): every node and subset, and of the arcs (630,000 for 4,000 sites)
//! only those between the nodes the reader keeps, with the totals of all. `None` when the
//! folder has no network that reads.

use std::path::Path;

use super::NETWORK_DIR;
use super::aggregate::Inbound;
use super::model::{EdgeRow, Network, NodeRow, Set, SubsetRow};
use super::write::{EDGE_HEADER, NODE_HEADER};
use crate::gephi_csv::gephi_unescape;

/// Reads the network of results folder `results`, if it has one that reads, keeping the arcs
/// between the nodes `keep` flags (it sees the nodes and subsets, the arcs not yet).
pub(crate) fn read_network(
    results: &Path,
    keep: &dyn Fn(&Network) -> Vec<bool>,
) -> Option<Network> {
    let dir = results.join(NETWORK_DIR);
    let text = |s: &str| gephi_unescape(s).unwrap_or_else(|_| s.to_owned());
    let num = |s: &str| s.trim().parse::<u64>().unwrap_or(0);
    let mut nodes = Vec::new();
    let mut targets = 0;
    let mut rdr = csv::Reader::from_path(dir.join("nodes.csv")).ok()?;
    // The measures after the counts are not read: a network written before them reads too.
    if rdr
        .headers()
        .ok()?
        .iter()
        .take(NODE_HEADER.len())
        .ne(NODE_HEADER)
    {
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
    let mut net = Network {
        nodes,
        targets,
        edges: Vec::new(),
        subsets,
        arcs: 0,
        links: 0,
    };
    let kept = keep(&net);
    let kept = |id: u32| {
        kept.get((id as usize).wrapping_sub(1))
            .copied()
            .unwrap_or(false)
    };
    let (mut arcs, mut links) = (0u64, 0u64);
    let mut rdr = csv::Reader::from_path(dir.join("edges.csv")).ok()?;
    // A network written before the nofollow columns has the first five.
    let header = rdr.headers().ok()?.clone();
    if header.len() < 5 || header.iter().zip(EDGE_HEADER).any(|(a, b)| a != b) {
        return None;
    }
    let with_nofollow = header.len() >= 6;
    let mut r = csv::StringRecord::new();
    while rdr.read_record(&mut r).ok()? {
        let id = |i: usize| u32::try_from(num(&r[i])).ok();
        let (source, target) = (id(0)?, id(1)?);
        let weight = num(&r[3]);
        arcs += 1;
        links += weight;
        if kept(source) && kept(target) {
            net.edges.push(EdgeRow {
                source,
                target,
                weight: u32::try_from(weight).unwrap_or(u32::MAX),
                pages: u32::try_from(num(&r[4])).unwrap_or(u32::MAX),
                nofollow: if with_nofollow {
                    u32::try_from(num(&r[5])).unwrap_or(u32::MAX)
                } else {
                    0
                },
            });
        }
    }
    net.arcs = arcs;
    net.links = links;
    Some(net)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A two-site network whose edges.csv has `edges_header` and the row `edge`.
    fn network(edges_header: &str, edge: &str) -> Option<Network> {
        let results = tempfile::tempdir().unwrap();
        let dir = results.path().join(NETWORK_DIR);
        std::fs::create_dir(&dir).unwrap();
        let nodes = format!(
            "{}\n1,a,target,target,1,2,1,1,2,3\n2,b,target,target,1,2,1,1,2,4\n",
            NODE_HEADER.join(",")
        );
        std::fs::write(dir.join("nodes.csv"), nodes).unwrap();
        std::fs::write(dir.join("subsets.csv"), "Subset,Sites,Links\n").unwrap();
        std::fs::write(dir.join("edges.csv"), format!("{edges_header}\n{edge}\n")).unwrap();
        read_network(results.path(), &|n: &Network| vec![true; n.nodes.len()])
    }

    // See: issue 53 — the report reads a network written before the nofollow columns (its
    // arcs then have none), and one written with them.
    #[test]
    fn a_network_reads_with_and_without_its_nofollow_columns() {
        let old = network("Source,Target,Type,Weight,Pages", "1,2,Directed,4,2").unwrap();
        assert_eq!((old.edges[0].weight, old.edges[0].nofollow), (4, 0));
        let new = network(&EDGE_HEADER.join(","), "1,2,Directed,4,2,3,0.75").unwrap();
        assert_eq!((new.edges[0].weight, new.edges[0].nofollow), (4, 3));
        assert_eq!(new.edges[0].nofollow_share(), 0.75);
        assert!(network("Source,Target,Type,Links,Pages", "1,2,Directed,4,2").is_none());
    }
}

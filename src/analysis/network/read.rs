//! The network read back from `results/network/` (the report draws it from the files, as it
//! shows everything else): every node and subset, and of the arcs (630,000 for 4,000 sites)
//! only those between the nodes the reader keeps, with the totals of all.

use std::path::Path;

use super::NETWORK_DIR;
use super::aggregate::Inbound;
use super::model::{EdgeRow, Network, NodeRow, Set, SubsetRow};
use super::write::{EDGE_HEADER, NODE_HEADER};
use crate::formats::gephi_csv::gephi_unescape;

/// Reads the network of results folder `results`, keeping the arcs between the nodes `keep`
/// flags (it sees the nodes and subsets, the arcs not yet). `Ok(None)` when the folder has no
/// network; an error (`file:line: what`) when its files are not what a crawl writes — a
/// network read in part would be compared or drawn wrong.
pub(crate) fn read_network(
    results: &Path,
    keep: &dyn Fn(&Network) -> Vec<bool>,
) -> Result<Option<Network>, String> {
    let dir = results.join(NETWORK_DIR);
    if !dir.join("nodes.csv").exists() {
        return Ok(None);
    }
    let (nodes, targets) = read_nodes(&dir)?;
    let mut net = Network {
        nodes,
        targets,
        edges: Vec::new(),
        subsets: read_subsets(&dir)?,
        arcs: 0,
        links: 0,
    };
    let kept = keep(&net);
    read_edges(&dir, &kept, &mut net)?;
    Ok(Some(net))
}

/// A network file opened for reading, with its header checked to start with `want`.
struct Opened {
    rdr: csv::Reader<std::fs::File>,
    path: std::path::PathBuf,
    /// Its header's length.
    columns: usize,
}

fn open(dir: &Path, name: &str, want: &[&str]) -> Result<Opened, String> {
    let path = dir.join(name);
    let mut rdr = csv::Reader::from_path(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let header = rdr.headers().map_err(|e| row_error(&path, &e))?.clone();
    if let Some(missing) = missing_column(&header, want) {
        return Err(at(&path, 1, &format!("no {missing} column")));
    }
    Ok(Opened {
        rdr,
        path,
        columns: header.len(),
    })
}

fn at(path: &Path, line: u64, why: &str) -> String {
    format!("{}:{line}: {why}", path.display())
}

fn row_error(path: &Path, e: &csv::Error) -> String {
    at(
        path,
        e.position().map_or(0, csv::Position::line),
        &e.to_string(),
    )
}

fn text(s: &str) -> String {
    gephi_unescape(s).unwrap_or_else(|_| s.to_owned())
}

fn num(s: &str) -> u64 {
    s.trim().parse::<u64>().unwrap_or(0)
}

/// nodes.csv's rows, and how many are targets. The measures after the counts are not read:
/// a network written before them reads too.
fn read_nodes(dir: &Path) -> Result<(Vec<NodeRow>, usize), String> {
    let Opened { mut rdr, path, .. } = open(dir, "nodes.csv", &NODE_HEADER)?;
    // A network written before the column has none.
    let hosts = rdr
        .headers()
        .ok()
        .and_then(|h| h.iter().position(|c| c == super::write::HOSTS_COLUMN));
    let (mut nodes, mut targets) = (Vec::new(), 0);
    for r in rdr.records() {
        let r = r.map_err(|e| row_error(&path, &e))?;
        let set = if &r[2] == "target" {
            targets += 1;
            Set::Target
        } else {
            Set::Accompanying
        };
        let label = text(&r[1]);
        // A reader needs a node's hosts only to tell whether a name without a dot (an entity's)
        // is a public site (`NodeRow::is_public`): the hosts of 4,000 sites' networks are not
        // kept for nothing.
        let hosts = match super::unit::is_public_name(&label) {
            true => String::new(),
            false => hosts.and_then(|i| r.get(i)).map(text).unwrap_or_default(),
        };
        nodes.push(NodeRow {
            label,
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
            hosts,
        });
    }
    Ok((nodes, targets))
}

fn read_subsets(dir: &Path) -> Result<Vec<SubsetRow>, String> {
    let Opened { mut rdr, path, .. } = open(dir, "subsets.csv", &["Subset", "Sites", "Links"])?;
    let mut subsets = Vec::new();
    for r in rdr.records() {
        let r = r.map_err(|e| row_error(&path, &e))?;
        subsets.push(SubsetRow {
            name: r[0].to_owned(),
            sites: num(&r[1]),
            links: num(&r[2]),
        });
    }
    Ok(subsets)
}

/// edges.csv's arcs between the nodes `kept` flags into `net`, and the totals of all. A
/// network written before the nofollow columns has the first five.
fn read_edges(dir: &Path, kept: &[bool], net: &mut Network) -> Result<(), String> {
    let Opened {
        mut rdr,
        path,
        columns,
    } = open(dir, "edges.csv", &EDGE_HEADER[..5])?;
    let with_nofollow = columns >= 6;
    let kept = |id: u32| {
        kept.get((id as usize).wrapping_sub(1))
            .copied()
            .unwrap_or(false)
    };
    let nodes = u32::try_from(net.nodes.len()).unwrap_or(u32::MAX);
    let mut r = csv::StringRecord::new();
    while rdr.read_record(&mut r).map_err(|e| row_error(&path, &e))? {
        let line = r.position().map_or(0, csv::Position::line);
        let id = |i: usize| {
            r[i].trim()
                .parse::<u32>()
                .ok()
                .filter(|id| (1..=nodes).contains(id))
                .ok_or_else(|| at(&path, line, &format!("{:?} is no Id of nodes.csv", &r[i])))
        };
        let (source, target) = (id(0)?, id(1)?);
        let weight = num(&r[3]);
        net.arcs += 1;
        net.links += weight;
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
    Ok(())
}

/// The first of `want` that `header` does not start with, in order (the reader reads columns
/// by place).
fn missing_column<'a>(header: &csv::StringRecord, want: &[&'a str]) -> Option<&'a str> {
    want.iter()
        .enumerate()
        .find(|&(i, w)| header.get(i) != Some(*w))
        .map(|(_, w)| *w)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A two-site network whose edges.csv has `edges_header` and the row `edge`.
    fn network(edges_header: &str, edge: &str) -> Result<Option<Network>, String> {
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
        let old = network("Source,Target,Type,Weight,Pages", "1,2,Directed,4,2")
            .unwrap()
            .unwrap();
        assert_eq!((old.edges[0].weight, old.edges[0].nofollow), (4, 0));
        let new = network(&EDGE_HEADER.join(","), "1,2,Directed,4,2,3,0.75")
            .unwrap()
            .unwrap();
        assert_eq!((new.edges[0].weight, new.edges[0].nofollow), (4, 3));
        assert_eq!(new.edges[0].nofollow_share(), 0.75);
        let bad = network("Source,Target,Type,Links,Pages", "1,2,Directed,4,2").unwrap_err();
        assert!(bad.ends_with("edges.csv:1: no Weight column"), "{bad}");
        // An arc to a node nodes.csv does not have is named with its line.
        let bad = network(&EDGE_HEADER.join(","), "1,9,Directed,4,2,3,0.75").unwrap_err();
        assert!(
            bad.ends_with("edges.csv:2: \"9\" is no Id of nodes.csv"),
            "{bad}"
        );
    }
}

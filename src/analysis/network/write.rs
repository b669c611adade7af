//! The network's files in `results/network/`: nodes.csv and edges.csv for Gephi's spreadsheet
//! importer, graph.gexf with every column a typed attribute, subsets.csv, and prospects.txt
//! when asked for. Each file is written whole to a temporary file and renamed into place.

use std::io::{self, Write};
use std::path::Path;

use super::NetworkError;
use super::model::{Ids, Network, NodeRow, Set};
use super::spill::Arcs;
use crate::analysis::measures::{
    Csr, MEASURE_COLUMNS, Measures, csv_cells, gexf_attributes, gexf_values,
};
use crate::base::storage::replace_file;
use crate::formats::gephi_csv::CsvOut;
use crate::formats::gexf::{Attribute, Gexf, Time};

/// The columns of nodes.csv before the measures (`PageRank,Harmonic`, SPEC §17).
pub(crate) const NODE_HEADER: [&str; 10] = [
    "Id",
    "Label",
    "Set",
    "Subset",
    "InTargets",
    "InLinks",
    "InPages",
    "OutTargets",
    "OutLinks",
    "Pages",
];

/// The columns of edges.csv.
pub(crate) const EDGE_HEADER: [&str; 7] = [
    "Source",
    "Target",
    "Type",
    "Weight",
    "Pages",
    "Nofollow",
    "NofollowShare",
];

/// Writes every file of `net` into `dir`, its arcs read back from `arcs` with their ids;
/// `prospects` lines (when asked for) into prospects.txt.
pub(super) fn write_all(
    dir: &Path,
    net: &Network,
    (arcs, ids): (&mut Arcs, &Ids),
    prospects: Option<&[String]>,
) -> Result<(), NetworkError> {
    let file = |name: &str, fill: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>| {
        let path = dir.join(name);
        replace_file(&path, fill).map_err(|source| NetworkError::Write { path, source })
    };
    let id_of = |code: u32| ids.of(code);
    let measures = measures(net, arcs, &id_of).map_err(|source| NetworkError::Write {
        path: dir.join("edges.csv"),
        source,
    })?;
    file("nodes.csv", &mut |w| write_nodes(net, &measures, w))?;
    file("edges.csv", &mut |w| write_edges(arcs, &id_of, w))?;
    file("subsets.csv", &mut |w| write_subsets(net, w))?;
    file("graph.gexf", &mut |w| {
        write_gexf(net, &measures, (arcs, &id_of), w)
    })?;
    if let Some(lines) = prospects {
        file("prospects.txt", &mut |w| {
            for l in lines {
                writeln!(w, "{l}")?;
            }
            Ok(())
        })?;
    }
    crate::base::storage::sync_dir(dir).map_err(|source| NetworkError::Write {
        path: dir.to_path_buf(),
        source,
    })
}

/// The network's PageRank and harmonic centrality (SPEC §17), its arcs weighted by their
/// links: read back from the spilled arcs once, straight into compressed rows (8 bytes an
/// arc: 5 MB for the 630,000 arcs of 4,000 sites).
fn measures(net: &Network, arcs: &mut Arcs, id_of: &dyn Fn(u32) -> u32) -> io::Result<Measures> {
    let mut csr = Csr::with_capacity(usize::try_from(arcs.count).unwrap_or(0));
    arcs.for_each_source(id_of, &mut |edges| {
        let Some(first) = edges.first() else {
            return Ok(());
        };
        let row = edges.iter().map(|e| (e.target - 1, e.weight));
        if csr.push_row(first.source as usize - 1, row) {
            Ok(())
        } else {
            Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the network's arcs are not in source order",
            ))
        }
    })?;
    Ok(Measures::of_csr(&csr.finish(net.nodes.len())))
}

/// nodes.csv's column after the counts: the hosts merged into a node (issue 68).
pub(crate) const HOSTS_COLUMN: &str = "Hosts";

fn write_nodes(net: &Network, m: &Measures, w: &mut dyn Write) -> io::Result<()> {
    let mut header = NODE_HEADER.to_vec();
    header.push(HOSTS_COLUMN);
    header.extend(MEASURE_COLUMNS.iter().map(|c| c.name));
    let mut csv = CsvOut::new(w, &header)?;
    let mut value = Vec::new();
    for (i, n) in net.nodes.iter().enumerate() {
        csv.num(i + 1)?
            .text(&n.label)?
            .text(n.set.as_str())?
            .text(&n.subset)?
            .num(n.inbound.targets)?
            .num(n.inbound.links)?
            .num(n.inbound.pages)?;
        match n.set {
            Set::Target => {
                csv.num(n.out_targets)?.num(n.out_links)?.num(n.pages)?;
            }
            Set::Accompanying => {
                csv.empty()?.empty()?.empty()?;
            }
        }
        csv.text(&n.hosts)?;
        csv_cells(&mut csv, m, i, &mut value)?;
        csv.end()?;
    }
    csv.finish()
}

fn write_edges(arcs: &mut Arcs, id_of: &dyn Fn(u32) -> u32, w: &mut dyn Write) -> io::Result<()> {
    let mut csv = CsvOut::new(w, &EDGE_HEADER)?;
    arcs.for_each_source(id_of, &mut |edges| {
        for e in edges {
            csv.num(e.source)?
                .num(e.target)?
                .text("Directed")?
                .num(e.weight)?
                .num(e.pages)?
                .num(e.nofollow)?
                .raw(&e.nofollow_share().to_string())?
                .end()?;
        }
        Ok(())
    })?;
    csv.finish()
}

fn write_subsets(net: &Network, w: &mut dyn Write) -> io::Result<()> {
    let mut csv = CsvOut::plain(w, &["Subset", "Sites", "Links"])?;
    for s in &net.subsets {
        csv.text(&s.name)?.num(s.sites)?.num(s.links)?.end()?;
    }
    csv.finish()
}

/// A node's integer attribute: its GEXF id, nodes.csv's title, and its value (`None`: empty).
type NodeNumber = (&'static str, &'static str, fn(&NodeRow) -> Option<u64>);

/// The integer attributes of a node.
const NODE_NUMBERS: [NodeNumber; 6] = [
    ("intargets", "InTargets", |n| {
        Some(u64::from(n.inbound.targets))
    }),
    ("inlinks", "InLinks", |n| Some(n.inbound.links)),
    ("inpages", "InPages", |n| Some(n.inbound.pages)),
    ("outtargets", "OutTargets", |n| {
        (n.set == Set::Target).then_some(u64::from(n.out_targets))
    }),
    ("outlinks", "OutLinks", |n| {
        (n.set == Set::Target).then_some(n.out_links)
    }),
    ("pages", "Pages", |n| {
        (n.set == Set::Target).then_some(n.pages)
    }),
];

fn write_gexf(
    net: &Network,
    m: &Measures,
    (arcs, id_of): (&mut Arcs, &dyn Fn(u32) -> u32),
    w: &mut dyn Write,
) -> io::Result<()> {
    let mut nodes = vec![
        Attribute::new("set", "Set", "string"),
        Attribute::new("subset", "Subset", "string"),
    ];
    nodes.extend(
        NODE_NUMBERS
            .iter()
            .map(|(id, title, _)| Attribute::new(id, title, "integer")),
    );
    nodes.push(Attribute::new("hosts", HOSTS_COLUMN, "string"));
    nodes.extend(gexf_attributes());
    let edges = [
        Attribute::new("pages", "Pages", "integer"),
        Attribute::new("nofollow", "Nofollow", "integer"),
        Attribute::new("nofollowshare", "NofollowShare", "double"),
    ];
    let about = format!(
        "The network of sites: {} targets, {} accompanying sites",
        net.targets,
        net.nodes.len() - net.targets
    );
    let mut g = Gexf::start(w, &about, Time::Static, &nodes, &edges)?;
    for (i, n) in net.nodes.iter().enumerate() {
        g.node(i as u64 + 1, &n.label);
        g.text("set", None, n.set.as_str());
        g.text("subset", None, &n.subset);
        for (id, _, value) in NODE_NUMBERS {
            if let Some(v) = value(n) {
                g.int(id, None, v);
            }
        }
        g.text("hosts", None, &n.hosts);
        gexf_values(&mut g, m, i);
        g.end_node(&[])?;
    }
    g.edges()?;
    arcs.for_each_source(id_of, &mut |edges| {
        for e in edges {
            g.edge(
                u64::from(e.source),
                u64::from(e.target),
                Some(u64::from(e.weight)),
            );
            g.edge_values();
            g.int("pages", None, u64::from(e.pages));
            g.int("nofollow", None, u64::from(e.nofollow));
            g.value("nofollowshare", None, |line| {
                // Infallible: writing into a Vec.
                let _ = write!(line, "{}", e.nofollow_share());
            });
            g.end_edge(true, &[])?;
        }
        Ok(())
    })?;
    g.finish()
}

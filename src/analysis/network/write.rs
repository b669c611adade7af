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
use crate::base::xml::xml_into;
use crate::formats::gephi_csv::CsvOut;

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

fn write_nodes(net: &Network, m: &Measures, w: &mut dyn Write) -> io::Result<()> {
    let mut header = NODE_HEADER.to_vec();
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
    writeln!(w, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        w,
        r#"<gexf xmlns="http://gexf.net/1.3" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://gexf.net/1.3 http://gexf.net/1.3/gexf.xsd" version="1.3">"#
    )?;
    writeln!(
        w,
        "  <meta><creator>rccrawler {}</creator><description>The network of sites: {} targets, {} accompanying sites</description></meta>",
        env!("CARGO_PKG_VERSION"),
        net.targets,
        net.nodes.len() - net.targets
    )?;
    writeln!(w, r#"  <graph mode="static" defaultedgetype="directed">"#)?;
    writeln!(w, r#"    <attributes class="node">"#)?;
    writeln!(
        w,
        r#"      <attribute id="set" title="Set" type="string"/>"#
    )?;
    writeln!(
        w,
        r#"      <attribute id="subset" title="Subset" type="string"/>"#
    )?;
    for (id, title, _) in NODE_NUMBERS {
        writeln!(
            w,
            r#"      <attribute id="{id}" title="{title}" type="integer"/>"#
        )?;
    }
    gexf_attributes(w)?;
    writeln!(w, r#"    </attributes>"#)?;
    writeln!(w, r#"    <attributes class="edge">"#)?;
    writeln!(
        w,
        r#"      <attribute id="pages" title="Pages" type="integer"/>"#
    )?;
    writeln!(
        w,
        r#"      <attribute id="nofollow" title="Nofollow" type="integer"/>"#
    )?;
    writeln!(
        w,
        r#"      <attribute id="nofollowshare" title="NofollowShare" type="double"/>"#
    )?;
    writeln!(w, r#"    </attributes>"#)?;
    writeln!(w, "    <nodes>")?;
    let mut line = Vec::with_capacity(512);
    for (i, n) in net.nodes.iter().enumerate() {
        line.clear();
        let _ = write!(line, r#"      <node id="{}" label=""#, i + 1);
        xml_into(&n.label, &mut line);
        line.extend_from_slice(br#""><attvalues><attvalue for="set" value=""#);
        line.extend_from_slice(n.set.as_str().as_bytes());
        line.extend_from_slice(br#""/><attvalue for="subset" value=""#);
        xml_into(&n.subset, &mut line);
        line.extend_from_slice(br#""/>"#);
        for (id, _, value) in NODE_NUMBERS {
            if let Some(v) = value(n) {
                let _ = write!(line, r#"<attvalue for="{id}" value="{v}"/>"#);
            }
        }
        gexf_values(&mut line, m, i);
        line.extend_from_slice(b"</attvalues></node>\n");
        w.write_all(&line)?;
    }
    writeln!(w, "    </nodes>")?;
    writeln!(w, "    <edges>")?;
    let mut i = 0u64;
    arcs.for_each_source(id_of, &mut |edges| {
        for e in edges {
            writeln!(
                w,
                r#"      <edge id="{i}" source="{}" target="{}" weight="{}"><attvalues><attvalue for="pages" value="{}"/><attvalue for="nofollow" value="{}"/><attvalue for="nofollowshare" value="{}"/></attvalues></edge>"#,
                e.source,
                e.target,
                e.weight,
                e.pages,
                e.nofollow,
                e.nofollow_share()
            )?;
            i += 1;
        }
        Ok(())
    })?;
    writeln!(w, "    </edges>")?;
    writeln!(w, "  </graph>")?;
    writeln!(w, "</gexf>")?;
    Ok(())
}

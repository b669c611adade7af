//! GEXF 1.3 (gexf.net): the same graph in one XML file, with typed attributes (level, out-degree,
//! external links and bytes as integers; title, content hash, canonical URL and host as
//! strings; PageRank and harmonic centrality as doubles), for users who open one file instead
//! of two.

use std::io::{self, Write};

use crate::analysis::measures::{Measures, gexf_attributes, gexf_values};
use crate::base::xml::xml_into;
use crate::crawl::data::SiteGraph;
use crate::crawl::data::columns::{Cell, NODE_COLUMNS};
use crate::formats::gexf::{Attribute, Gexf, Time};

/// A column's value as an attribute value's text.
fn push_value(line: &mut Vec<u8>, num: &mut itoa::Buffer, value: Cell<'_>) {
    match value {
        Cell::Empty => {}
        Cell::Int(v) => line.extend_from_slice(num.format(v).as_bytes()),
        Cell::Text(t) => xml_into(t, line),
        // Infallible: writing into a Vec.
        Cell::Hash(h) => {
            let _ = write!(line, "{h:032x}");
        }
        Cell::Digest(h) => {
            let _ = write!(line, "{h:016x}");
        }
    }
}

/// Writes the graph as GEXF 1.3, each node with the attributes of its nodes.csv row (its
/// measures `m` as doubles).
pub(crate) fn write_gexf(graph: &SiteGraph<'_>, m: &Measures, w: &mut dyn Write) -> io::Result<()> {
    // Every per-page attribute nodes.csv has, typed, in its order (SPEC §12; Gephi shows them
    // in the Data Laboratory and can size or colour nodes by the numeric ones).
    let mut nodes: Vec<Attribute<'_>> = NODE_COLUMNS
        .iter()
        .map(|c| Attribute::new(c.gexf_id, c.name, c.kind.gexf()))
        .collect();
    nodes.extend(gexf_attributes());
    // edges.csv's Nofollow; written on the arcs that have any (most have none).
    let edges = [Attribute {
        default: Some("0"),
        ..Attribute::new("nofollow", "Nofollow", "integer")
    }];
    let about = format!("Web graph of {}", graph.origin());
    let mut g = Gexf::start(w, &about, Time::Static, &nodes, &edges)?;
    let mut num = itoa::Buffer::new();
    for (i, n) in graph.nodes().iter().enumerate() {
        g.node(i as u64 + 1, graph.label(n));
        for c in NODE_COLUMNS {
            let value = (c.value)(graph, n);
            // No value: no attvalue (GEXF leaves the attribute unset).
            if value != Cell::Empty {
                g.value(c.gexf_id, None, |line| push_value(line, &mut num, value));
            }
        }
        gexf_values(&mut g, m, i);
        g.end_node(&[])?;
    }
    g.edges()?;
    let mut arcs = Vec::new();
    for (i, n) in graph.nodes().iter().enumerate() {
        graph.arcs_into(n, &mut arcs);
        for a in &arcs {
            g.edge(i as u64 + 1, u64::from(a.target), Some(u64::from(a.weight)));
            let values = a.nofollow > 0;
            if values {
                g.edge_values();
                g.int("nofollow", None, u64::from(a.nofollow));
            }
            g.end_edge(values, &[])?;
        }
    }
    g.finish()
}

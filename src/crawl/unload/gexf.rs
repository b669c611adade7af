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
/// measures `m` as doubles; `Rendered` and the arcs' `ScriptOnly` when pages may be
/// `rendered`, SPEC §18; `Type` with documents, SPEC §19).
pub(crate) fn write_gexf(
    graph: &SiteGraph<'_>,
    m: &Measures,
    extras: super::NodeExtras,
    w: &mut dyn Write,
) -> io::Result<()> {
    let rendered = extras.rendered;
    // Every per-page attribute nodes.csv has, typed, in its order (SPEC §12; Gephi shows them
    // in the Data Laboratory and can size or colour nodes by the numeric ones).
    let mut nodes: Vec<Attribute<'_>> = NODE_COLUMNS
        .iter()
        .map(|c| Attribute::new(c.gexf_id, c.name, c.kind.gexf()))
        .collect();
    nodes.extend(gexf_attributes());
    // edges.csv's Nofollow (and ScriptOnly); written on the arcs that have any.
    let mut edges = vec![Attribute {
        default: Some("0"),
        ..Attribute::new("nofollow", "Nofollow", "integer")
    }];
    if rendered {
        nodes.push(Attribute {
            default: Some("no"),
            ..Attribute::new("rendered", "Rendered", "string")
        });
        edges.push(Attribute {
            default: Some("0"),
            ..Attribute::new("scriptonly", "ScriptOnly", "integer")
        });
    }
    if extras.documents {
        nodes.push(Attribute {
            default: Some("html"),
            ..Attribute::new("type", "Type", "string")
        });
    }
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
        if rendered && graph.render_mark(n).rendered {
            g.text("rendered", None, "yes");
        }
        if extras.documents && graph.node_type(n).is_document() {
            g.text("type", None, graph.node_type(n).as_str());
        }
        g.end_node(&[])?;
    }
    g.edges()?;
    let mut arcs = Vec::new();
    for (i, n) in graph.nodes().iter().enumerate() {
        graph.arcs_into(n, &mut arcs);
        for a in &arcs {
            g.edge(i as u64 + 1, u64::from(a.target), Some(u64::from(a.weight)));
            let values = a.nofollow > 0 || a.script_only > 0;
            if values {
                g.edge_values();
                if a.nofollow > 0 {
                    g.int("nofollow", None, u64::from(a.nofollow));
                }
                if a.script_only > 0 {
                    g.int("scriptonly", None, u64::from(a.script_only));
                }
            }
            g.end_edge(values, &[])?;
        }
    }
    g.finish()
}

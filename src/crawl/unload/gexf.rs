//! GEXF 1.3 (gexf.net): the same graph in one XML file, with typed attributes (level, out-degree,
//! external links and bytes as integers; title, content hash, canonical URL and host as
//! strings; PageRank and harmonic centrality as doubles), for users who open one file instead
//! of two.

use std::io::{self, Write};

use crate::analysis::measures::{Measures, gexf_attributes, gexf_values};
use crate::base::xml::{xml, xml_into};
use crate::crawl::data::SiteGraph;
use crate::crawl::data::columns::{Cell, NODE_COLUMNS};
use crate::formats::gephi_csv::CHUNK;

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
    writeln!(w, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        w,
        r#"<gexf xmlns="http://gexf.net/1.3" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://gexf.net/1.3 http://gexf.net/1.3/gexf.xsd" version="1.3">"#
    )?;
    writeln!(
        w,
        "  <meta><creator>rccrawler {}</creator><description>Web graph of {}</description></meta>",
        env!("CARGO_PKG_VERSION"),
        xml(&graph.origin())
    )?;
    writeln!(w, r#"  <graph mode="static" defaultedgetype="directed">"#)?;
    writeln!(w, r#"    <attributes class="node">"#)?;
    // Every per-page attribute nodes.csv has, typed, in its order (SPEC §12; Gephi shows them
    // in the Data Laboratory and can size or colour nodes by the numeric ones).
    for c in NODE_COLUMNS {
        writeln!(
            w,
            r#"      <attribute id="{}" title="{}" type="{}"/>"#,
            c.gexf_id,
            c.name,
            c.kind.gexf()
        )?;
    }
    gexf_attributes(w)?;
    writeln!(w, r#"    </attributes>"#)?;
    // edges.csv's Nofollow; written on the arcs that have any (most have none).
    writeln!(w, r#"    <attributes class="edge">"#)?;
    writeln!(
        w,
        r#"      <attribute id="nofollow" title="Nofollow" type="integer"><default>0</default></attribute>"#
    )?;
    writeln!(w, r#"    </attributes>"#)?;
    writeln!(w, "    <nodes>")?;
    // Rows are assembled in a buffer written in chunks (millions of edges on big sites).
    let mut line = Vec::with_capacity(CHUNK + 4096);
    let mut num = itoa::Buffer::new();
    let mut arcs = Vec::new();
    for (i, n) in graph.nodes().iter().enumerate() {
        line.extend_from_slice(br#"      <node id=""#);
        line.extend_from_slice(num.format(i + 1).as_bytes());
        line.extend_from_slice(br#"" label=""#);
        xml_into(graph.label(n), &mut line);
        line.extend_from_slice(br#""><attvalues>"#);
        for c in NODE_COLUMNS {
            let value = (c.value)(graph, n);
            // No value: no attvalue (GEXF leaves the attribute unset).
            if value == Cell::Empty {
                continue;
            }
            line.extend_from_slice(br#"<attvalue for=""#);
            line.extend_from_slice(c.gexf_id.as_bytes());
            line.extend_from_slice(br#"" value=""#);
            push_value(&mut line, &mut num, value);
            line.extend_from_slice(br#""/>"#);
        }
        gexf_values(&mut line, m, i);
        line.extend_from_slice(b"</attvalues></node>\n");
        flush_chunk(w, &mut line, CHUNK)?;
    }
    flush_chunk(w, &mut line, 0)?;
    writeln!(w, "    </nodes>")?;
    writeln!(w, "    <edges>")?;
    let mut edge_id = 0u64;
    for (i, n) in graph.nodes().iter().enumerate() {
        graph.arcs_into(n, &mut arcs);
        for a in &arcs {
            line.extend_from_slice(br#"      <edge id=""#);
            line.extend_from_slice(num.format(edge_id).as_bytes());
            line.extend_from_slice(br#"" source=""#);
            line.extend_from_slice(num.format(i + 1).as_bytes());
            line.extend_from_slice(br#"" target=""#);
            line.extend_from_slice(num.format(a.target).as_bytes());
            line.extend_from_slice(br#"" weight=""#);
            line.extend_from_slice(num.format(a.weight).as_bytes());
            if a.nofollow > 0 {
                line.extend_from_slice(br#""><attvalues><attvalue for="nofollow" value=""#);
                line.extend_from_slice(num.format(a.nofollow).as_bytes());
                line.extend_from_slice(b"\"/></attvalues></edge>\n");
            } else {
                line.extend_from_slice(b"\"/>\n");
            }
            edge_id += 1;
        }
        flush_chunk(w, &mut line, CHUNK)?;
    }
    flush_chunk(w, &mut line, 0)?;
    writeln!(w, "    </edges>")?;
    writeln!(w, "  </graph>")?;
    writeln!(w, "</gexf>")
}

/// Writes `buf` out once it holds at least `min` bytes.
fn flush_chunk(w: &mut dyn Write, buf: &mut Vec<u8>, min: usize) -> io::Result<()> {
    if buf.len() >= min && !buf.is_empty() {
        w.write_all(buf)?;
        buf.clear();
    }
    Ok(())
}

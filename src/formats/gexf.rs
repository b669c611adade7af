//! GEXF 1.3 (gexf.net), written: the one writer of rccrawler's three GEXF files — a site's
//! graph (`graph.gexf` in its folder), the network of sites (`network/graph.gexf`) and a
//! graph over time (`rccrawler compare`, `mode="dynamic"`, a crawl's number as the time).
//!
//! A file is written front to back: [`Gexf::start`] (the head and the attributes), each node
//! ([`Gexf::node`], its values, [`Gexf::end_node`]), [`Gexf::edges`], each edge, then
//! [`Gexf::finish`]. Lines are assembled in a buffer written in chunks: a big site has
//! millions of edges, and a `write!` per attribute value cost more than the rest.

use std::io::{self, Write};

use crate::base::xml::{xml, xml_into};
use crate::formats::gephi_csv::CHUNK;

/// A typed attribute of the nodes or of the edges.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Attribute<'a> {
    /// Its id, which each value names.
    pub(crate) id: &'a str,
    /// The title Gephi shows.
    pub(crate) title: &'a str,
    /// `integer`, `double`, `string`, …
    pub(crate) kind: &'a str,
    /// The value of an element that gives none.
    pub(crate) default: Option<&'a str>,
}

impl<'a> Attribute<'a> {
    /// An attribute without a default.
    pub(crate) const fn new(id: &'a str, title: &'a str, kind: &'a str) -> Self {
        Attribute {
            id,
            title,
            kind,
            default: None,
        }
    }
}

/// Whether the graph changes over time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Time {
    /// One graph.
    Static,
    /// Integer time stamps: values and elements carry the times they hold at.
    Dynamic,
}

/// A GEXF file being written.
pub(crate) struct Gexf<'w> {
    w: &'w mut dyn Write,
    line: Vec<u8>,
    num: itoa::Buffer,
    edges: u64,
}

impl std::fmt::Debug for Gexf<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gexf").finish_non_exhaustive()
    }
}

impl<'w> Gexf<'w> {
    /// Writes the head: what the file is (`description`), whether it changes over `time`,
    /// the nodes' and the edges' attributes; then nodes may follow.
    pub(crate) fn start(
        w: &'w mut dyn Write,
        description: &str,
        time: Time,
        nodes: &[Attribute<'_>],
        edges: &[Attribute<'_>],
    ) -> io::Result<Self> {
        writeln!(w, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
        writeln!(
            w,
            r#"<gexf xmlns="http://gexf.net/1.3" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://gexf.net/1.3 http://gexf.net/1.3/gexf.xsd" version="1.3">"#
        )?;
        writeln!(
            w,
            "  <meta><creator>rccrawler {}</creator><description>{}</description></meta>",
            env!("CARGO_PKG_VERSION"),
            xml(description)
        )?;
        let mode = match time {
            Time::Static => {
                writeln!(w, r#"  <graph mode="static" defaultedgetype="directed">"#)?;
                ""
            }
            Time::Dynamic => {
                writeln!(
                    w,
                    r#"  <graph mode="dynamic" defaultedgetype="directed" timeformat="integer">"#
                )?;
                r#" mode="dynamic""#
            }
        };
        for (class, attrs) in [("node", nodes), ("edge", edges)] {
            if attrs.is_empty() {
                continue;
            }
            writeln!(w, r#"    <attributes class="{class}"{mode}>"#)?;
            for a in attrs {
                write!(
                    w,
                    r#"      <attribute id="{}" title="{}" type="{}""#,
                    a.id, a.title, a.kind
                )?;
                match a.default {
                    Some(d) => writeln!(w, "><default>{}</default></attribute>", xml(d))?,
                    None => writeln!(w, "/>")?,
                }
            }
            writeln!(w, "    </attributes>")?;
        }
        writeln!(w, "    <nodes>")?;
        Ok(Gexf {
            w,
            line: Vec::with_capacity(CHUNK + 4096),
            num: itoa::Buffer::new(),
            edges: 0,
        })
    }

    /// Opens node `id` named `label`; its values follow, then [`Self::end_node`].
    pub(crate) fn node(&mut self, id: u64, label: &str) {
        self.line.extend_from_slice(br#"      <node id=""#);
        self.line.extend_from_slice(self.num.format(id).as_bytes());
        self.line.extend_from_slice(br#"" label=""#);
        xml_into(label, &mut self.line);
        self.line.extend_from_slice(br#""><attvalues>"#);
    }

    /// A value of attribute `id`, written by `value` (escaped by it, where text needs it),
    /// holding at time `at` in a dynamic graph.
    pub(crate) fn value(&mut self, id: &str, at: Option<usize>, value: impl FnOnce(&mut Vec<u8>)) {
        self.line.extend_from_slice(br#"<attvalue for=""#);
        self.line.extend_from_slice(id.as_bytes());
        self.line.extend_from_slice(br#"" value=""#);
        value(&mut self.line);
        self.line.push(b'"');
        if let Some(t) = at {
            self.times(t);
        }
        self.line.extend_from_slice(b"/>");
    }

    /// A value of attribute `id` that is text (escaped here).
    pub(crate) fn text(&mut self, id: &str, at: Option<usize>, text: &str) {
        self.value(id, at, |line| xml_into(text, line));
    }

    /// A value of attribute `id` that is an integer.
    pub(crate) fn int(&mut self, id: &str, at: Option<usize>, v: u64) {
        let mut num = itoa::Buffer::new();
        self.value(id, at, |line| {
            line.extend_from_slice(num.format(v).as_bytes())
        });
    }

    /// ` start="t" end="t"`.
    fn times(&mut self, t: usize) {
        self.line.extend_from_slice(br#" start=""#);
        self.line.extend_from_slice(self.num.format(t).as_bytes());
        self.line.extend_from_slice(br#"" end=""#);
        self.line.extend_from_slice(self.num.format(t).as_bytes());
        self.line.push(b'"');
    }

    /// `<spells>` of the times an element is in (none: no spells).
    fn spells(&mut self, at: &[usize]) {
        if at.is_empty() {
            return;
        }
        self.line.extend_from_slice(b"<spells>");
        for &t in at {
            self.line.extend_from_slice(b"<spell");
            self.times(t);
            self.line.extend_from_slice(b"/>");
        }
        self.line.extend_from_slice(b"</spells>");
    }

    /// Closes the node, in the graph at the times `at` (dynamic graphs; empty: always).
    pub(crate) fn end_node(&mut self, at: &[usize]) -> io::Result<()> {
        self.line.extend_from_slice(b"</attvalues>");
        self.spells(at);
        self.line.extend_from_slice(b"</node>\n");
        self.flush(CHUNK)
    }

    /// Ends the nodes; edges may follow.
    pub(crate) fn edges(&mut self) -> io::Result<()> {
        self.flush(0)?;
        writeln!(self.w, "    </nodes>")?;
        writeln!(self.w, "    <edges>")
    }

    /// Opens an edge (ids counted from 0) from node `source` to `target`, with its `weight`
    /// (`None`: the values give it over time); values may follow, then [`Self::end_edge`].
    pub(crate) fn edge(&mut self, source: u64, target: u64, weight: Option<u64>) {
        self.line.extend_from_slice(br#"      <edge id=""#);
        self.line
            .extend_from_slice(self.num.format(self.edges).as_bytes());
        self.line.extend_from_slice(br#"" source=""#);
        self.line
            .extend_from_slice(self.num.format(source).as_bytes());
        self.line.extend_from_slice(br#"" target=""#);
        self.line
            .extend_from_slice(self.num.format(target).as_bytes());
        self.line.push(b'"');
        if let Some(w) = weight {
            self.line.extend_from_slice(br#" weight=""#);
            self.line.extend_from_slice(self.num.format(w).as_bytes());
            self.line.push(b'"');
        }
        self.edges += 1;
    }

    /// Opens the edge's values (only when it has some: most edges have none).
    pub(crate) fn edge_values(&mut self) {
        self.line.extend_from_slice(b"><attvalues>");
    }

    /// Closes the edge (`values`: [`Self::edge_values`] was called), in the graph at the
    /// times `at` (empty: always).
    pub(crate) fn end_edge(&mut self, values: bool, at: &[usize]) -> io::Result<()> {
        if values {
            self.line.extend_from_slice(b"</attvalues>");
        } else if at.is_empty() {
            self.line.extend_from_slice(b"/>\n");
            return self.flush(CHUNK);
        } else {
            self.line.push(b'>');
        }
        self.spells(at);
        self.line.extend_from_slice(b"</edge>\n");
        self.flush(CHUNK)
    }

    /// Ends the file.
    pub(crate) fn finish(mut self) -> io::Result<()> {
        self.flush(0)?;
        writeln!(self.w, "    </edges>")?;
        writeln!(self.w, "  </graph>")?;
        writeln!(self.w, "</gexf>")
    }

    /// Writes the buffer out once it holds at least `min` bytes.
    fn flush(&mut self, min: usize) -> io::Result<()> {
        if self.line.len() >= min && !self.line.is_empty() {
            self.w.write_all(&self.line)?;
            self.line.clear();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_static_and_a_dynamic_graph() {
        let mut out = Vec::new();
        let mut g = Gexf::start(
            &mut out,
            "a & b",
            Time::Static,
            &[Attribute::new("level", "Level", "integer")],
            &[Attribute {
                default: Some("0"),
                ..Attribute::new("nofollow", "Nofollow", "integer")
            }],
        )
        .unwrap();
        g.node(1, "http://a.test/?x=1&y=<2>");
        g.int("level", None, 0);
        g.end_node(&[]).unwrap();
        g.edges().unwrap();
        g.edge(1, 1, Some(2));
        g.end_edge(false, &[]).unwrap();
        g.edge(1, 1, Some(1));
        g.edge_values();
        g.int("nofollow", None, 1);
        g.end_edge(true, &[]).unwrap();
        g.finish().unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("<description>a &amp; b</description>"),
            "{text}"
        );
        assert!(text.contains(r#"<attribute id="nofollow" title="Nofollow" type="integer"><default>0</default></attribute>"#));
        assert!(text.contains(r#"<node id="1" label="http://a.test/?x=1&amp;y=&lt;2&gt;"><attvalues><attvalue for="level" value="0"/></attvalues></node>"#), "{text}");
        assert!(text.contains(r#"<edge id="0" source="1" target="1" weight="2"/>"#));
        assert!(text.contains(r#"<edge id="1" source="1" target="1" weight="1"><attvalues><attvalue for="nofollow" value="1"/></attvalues></edge>"#));
        assert!(text.ends_with("    </edges>\n  </graph>\n</gexf>\n"));

        let mut out = Vec::new();
        let mut g = Gexf::start(
            &mut out,
            "t",
            Time::Dynamic,
            &[Attribute::new("url", "url", "string")],
            &[],
        )
        .unwrap();
        g.node(0, "p");
        g.text("url", Some(1), "p");
        g.end_node(&[1, 2]).unwrap();
        g.edges().unwrap();
        g.finish().unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains(r#"<attributes class="node" mode="dynamic">"#),
            "{text}"
        );
        assert!(!text.contains(r#"class="edge""#));
        assert!(text.contains(r#"<attvalue for="url" value="p" start="1" end="1"/></attvalues><spells><spell start="1" end="1"/><spell start="2" end="2"/></spells></node>"#), "{text}");
    }
}

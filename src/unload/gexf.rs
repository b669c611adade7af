//! GEXF 1.3 (gexf.net): the same graph in one XML file, with typed attributes (level as an
//! integer), for users who open one file instead of two.

use std::io::{self, Write};

use crate::data::SiteGraph;

/// Writes the graph as GEXF 1.3.
pub fn write_gexf(graph: &SiteGraph<'_>, w: &mut dyn Write) -> io::Result<()> {
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
    writeln!(
        w,
        r#"      <attribute id="level" title="Level" type="integer"/>"#
    )?;
    writeln!(
        w,
        r#"      <attribute id="title" title="Title" type="string"/>"#
    )?;
    writeln!(
        w,
        r#"      <attribute id="bytes" title="Bytes" type="integer"/>"#
    )?;
    writeln!(w, r#"    </attributes>"#)?;
    writeln!(w, "    <nodes>")?;
    for (i, n) in graph.nodes().iter().enumerate() {
        writeln!(
            w,
            r#"      <node id="{}" label="{}"><attvalues><attvalue for="level" value="{}"/><attvalue for="title" value="{}"/><attvalue for="bytes" value="{}"/></attvalues></node>"#,
            i + 1,
            xml(graph.label(n)),
            n.level,
            xml(graph.title(n)),
            graph.bytes(n)
        )?;
    }
    writeln!(w, "    </nodes>")?;
    writeln!(w, "    <edges>")?;
    let mut edge_id = 0u64;
    for (i, n) in graph.nodes().iter().enumerate() {
        for a in graph.arcs(n) {
            writeln!(
                w,
                r#"      <edge id="{edge_id}" source="{}" target="{}" weight="{}"/>"#,
                i + 1,
                a.target,
                a.weight
            )?;
            edge_id += 1;
        }
    }
    writeln!(w, "    </edges>")?;
    writeln!(w, "  </graph>")?;
    writeln!(w, "</gexf>")
}

/// Escapes for an XML attribute and removes characters XML 1.0 forbids.
fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() || matches!(c, '\u{FFFE}' | '\u{FFFF}') => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::xml;

    #[test]
    fn escaping() {
        assert_eq!(
            xml("a<b & \"c\"\u{1}\u{FFFF}"),
            "a&lt;b &amp; &quot;c&quot;"
        );
    }
}

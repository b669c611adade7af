//! The report's HTML: escaping, tables, and the page around the sections (styles and the
//! few lines of script that sort the sites table, all inline: the file opens offline).

use std::fmt::Write as _;

/// Text made safe inside HTML elements and attribute values.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A cell of a table: text, a number (right-aligned, with its exact value for sorting), or
/// ready-made HTML.
#[derive(Debug, Clone)]
pub(crate) enum Cell {
    Text(String),
    Num(f64, String),
    Html(String),
}

impl Cell {
    /// An integer, written with thin thousands separators.
    pub(crate) fn int(n: u64) -> Cell {
        Cell::Num(n as f64, group(n))
    }

    /// A number with `decimals` places.
    pub(crate) fn dec(x: f64, decimals: usize) -> Cell {
        Cell::Num(x, format!("{x:.decimals$}"))
    }
}

/// `1234567` as `1 234 567` (narrow no-break spaces: the figure a reader compares stays one
/// word, and no locale decides between `,` and `.`).
pub(crate) fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 * 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('\u{202f}');
        }
        out.push(c);
    }
    out
}

/// A table with a header row; `id` names it for links and the browser test; `sortable`
/// lets a click on a header sort it.
pub(crate) fn table(id: &str, header: &[&str], rows: &[Vec<Cell>], sortable: bool) -> String {
    let mut h = String::new();
    table_start(&mut h, id, header, sortable);
    for row in rows {
        table_row(&mut h, row);
    }
    table_end(&mut h);
    h
}

/// A table's opening and header row, for tables written row by row ([`table_row`]): the
/// sites table of a crawl of thousands of sites is not built as cells first.
pub(crate) fn table_start(h: &mut String, id: &str, header: &[&str], sortable: bool) {
    let class = if sortable { " class=\"sortable\"" } else { "" };
    let _ = write!(h, "<table id=\"{}\"{class}><thead><tr>", escape(id));
    for c in header {
        let _ = write!(h, "<th>{}</th>", escape(c));
    }
    h.push_str("</tr></thead><tbody>");
}

/// One row of a table.
pub(crate) fn table_row(h: &mut String, row: &[Cell]) {
    h.push_str("<tr>");
    for c in row {
        match c {
            Cell::Text(t) => {
                let _ = write!(h, "<td>{}</td>", escape(t));
            }
            Cell::Num(v, t) => {
                let _ = write!(h, "<td class=\"n\" data-v=\"{v}\">{}</td>", escape(t));
            }
            Cell::Html(t) => {
                let _ = write!(h, "<td>{t}</td>");
            }
        }
    }
    h.push_str("</tr>");
}

/// A table's end.
pub(crate) fn table_end(h: &mut String) {
    h.push_str("</tbody></table>");
}

/// The page up to its body (styles inline: the file opens offline); [`TAIL`] after it.
pub(crate) fn head(title: &str) -> String {
    format!(
        r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 1200px; padding: 0 1em; color: #222; }}
h1 {{ font-size: 1.4em; }} h2 {{ font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }}
h3 {{ font-size: 1.05em; margin-top: 1.6em; }}
table {{ border-collapse: collapse; margin: .5em 0 1em; }}
td, th {{ padding: 2px 9px; border-bottom: 1px solid #e4e4e4; vertical-align: top; }}
th {{ text-align: left; background: #f3f3f3; position: sticky; top: 0; }}
table.sortable th {{ cursor: pointer; }} table.sortable th:hover {{ background: #e6e6e6; }}
td.n {{ text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }}
.wrap {{ max-height: 32em; overflow: auto; display: inline-block; border: 1px solid #e4e4e4; }}
.plots {{ display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }}
figure.plot {{ margin: 0; }} figcaption {{ font-size: .9em; color: #555; max-width: 520px; }}
ul.legend {{ list-style: none; padding: 0; margin: 4px 0; max-width: 620px; font-size: .85em; }}
ul.legend li {{ display: inline-block; margin-right: 12px; }}
ul.legend span {{ display: inline-block; width: 16px; height: 3px; margin-right: 4px; vertical-align: middle; }}
nav ol {{ columns: 3; }} .note {{ color: #666; }} .problem {{ color: #a00; }} .warn {{ color: #a60; font-size: 85%; border: 1px solid #a60; border-radius: 3px; padding: 0 3px; }}
td.url {{ word-break: break-all; max-width: 40em; }}
</style>
</head>
<body>
"#,
        title = escape(title)
    )
}

/// The page after its body: the script that sorts tables.
pub(crate) const TAIL: &str = r#"
<script>
"use strict";
// A drawing that pans and zooms: drag to move, the mouse wheel zooms around the pointer.
for (const svg of document.querySelectorAll("svg.pannable")) {
  const box = svg.viewBox.baseVal;
  const at = e => { const r = svg.getBoundingClientRect(); return [box.x + (e.clientX - r.left) / r.width * box.width, box.y + (e.clientY - r.top) / r.height * box.height]; };
  svg.addEventListener("wheel", e => {
    e.preventDefault();
    const [x, y] = at(e), f = e.deltaY > 0 ? 1.2 : 1 / 1.2;
    box.x = x - (x - box.x) * f; box.y = y - (y - box.y) * f; box.width *= f; box.height *= f;
  }, { passive: false });
  let from = null;
  svg.addEventListener("pointerdown", e => { from = at(e); svg.setPointerCapture(e.pointerId); });
  svg.addEventListener("pointermove", e => { if (from) { const [x, y] = at(e); box.x -= x - from[0]; box.y -= y - from[1]; } });
  svg.addEventListener("pointerup", () => { from = null; });
}
// Click a header of a sortable table: sort by that column (numbers by value), again to reverse.
for (const table of document.querySelectorAll("table.sortable")) {
  table.querySelectorAll("th").forEach((th, col) => th.addEventListener("click", () => {
    const body = table.tBodies[0];
    const rows = Array.from(body.rows);
    const down = th.dataset.dir !== "down";
    th.dataset.dir = down ? "down" : "up";
    const key = r => { const c = r.cells[col]; return c.dataset.v !== undefined ? Number(c.dataset.v) : c.textContent; };
    rows.sort((a, b) => { const x = key(a), y = key(b); const o = x < y ? -1 : x > y ? 1 : 0; return down ? -o : o; });
    body.append(...rows);
  }));
}
</script>
</body>
</html>
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_everywhere() {
        assert_eq!(
            escape(r#"<a href="x">&'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        let t = table(
            "t",
            &["<h>"],
            &[
                vec![Cell::Text("<script>".into())],
                vec![Cell::int(1234567)],
            ],
            false,
        );
        assert!(t.contains("<th>&lt;h&gt;</th>"));
        assert!(t.contains("<td>&lt;script&gt;</td>"));
        assert!(t.contains("data-v=\"1234567\">1\u{202f}234\u{202f}567</td>"));
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1000), "1\u{202f}000");
        assert_eq!(group(31564), "31\u{202f}564");
    }
}

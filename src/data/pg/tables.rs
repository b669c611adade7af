//! A finished scope's graph as SQL tables, written in bulk with `COPY` (one round trip per
//! table, never one per link): the rows of the result files, for researchers who query the
//! crawl with SQL while it runs.

use std::io::Write;

use postgres::Transaction;

use crate::bandit::RewardKind;
use crate::data::SiteGraph;

/// The graph tables.
const TABLES: [&str; 6] = [
    "rccrawler_pages",
    "rccrawler_arcs",
    "rccrawler_external_links",
    "rccrawler_bad_links",
    "rccrawler_duplicates",
    "rccrawler_yields",
];

/// One text field of a `COPY … FROM STDIN` row (text format): backslash, tab, newline and
/// carriage return escaped.
fn field(out: &mut Vec<u8>, s: &str) {
    for b in s.bytes() {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
}

/// Rows being assembled for one table.
struct Rows {
    buf: Vec<u8>,
    first: bool,
}

impl Rows {
    fn new() -> Self {
        Rows {
            buf: Vec::new(),
            first: true,
        }
    }

    fn text(&mut self, s: &str) -> &mut Self {
        self.sep();
        field(&mut self.buf, s);
        self
    }

    fn num(&mut self, n: impl std::fmt::Display) -> &mut Self {
        self.sep();
        // Writing into a Vec cannot fail.
        let _ = write!(self.buf, "{n}");
        self
    }

    fn null(&mut self) -> &mut Self {
        self.sep();
        self.buf.extend_from_slice(b"\\N");
        self
    }

    fn sep(&mut self) {
        if !self.first {
            self.buf.push(b'\t');
        }
        self.first = false;
    }

    fn end(&mut self) {
        self.buf.push(b'\n');
        self.first = true;
    }
}

/// Writes `rows` into `table` with COPY.
fn copy(tx: &mut Transaction<'_>, table: &str, rows: &Rows) -> Result<(), postgres::Error> {
    let mut w = tx.copy_in(&format!("COPY {table} FROM STDIN"))?;
    // A failed write is reported by finish().
    let _ = w.write_all(&rows.buf);
    w.finish()?;
    Ok(())
}

/// Replaces scope `scope`'s rows of every graph table with graph `g`.
pub(crate) fn write_graph(
    tx: &mut Transaction<'_>,
    scope: i64,
    g: &SiteGraph<'_>,
    reward: RewardKind,
) -> Result<(), postgres::Error> {
    for t in TABLES {
        tx.execute(&format!("DELETE FROM {t} WHERE scope = $1"), &[&scope])?;
    }
    let (mut pages, mut arcs, mut external, mut bad, mut dups, mut yields) = (
        Rows::new(),
        Rows::new(),
        Rows::new(),
        Rows::new(),
        Rows::new(),
        Rows::new(),
    );
    let mut edges = Vec::new();
    if let Some(r) = g.home_failure() {
        bad.num(scope).null().text(r.url).text(r.reason).end();
    }
    for (i, n) in g.nodes().iter().enumerate() {
        let id = i + 1;
        g.arcs_into(n, &mut edges);
        let ext = g.external_links(n);
        pages
            .num(scope)
            .num(id)
            .text(g.label(n))
            .num(n.level)
            .text(g.host(n))
            .text(g.title(n))
            .num(edges.len())
            .num(ext.len())
            .num(g.bytes(n))
            .text(&format!("{:032x}", g.content_hash(n)))
            .text(g.canonical(n))
            .end();
        for e in &edges {
            arcs.num(scope).num(id).num(e.target).num(e.weight).end();
        }
        for r in ext {
            external
                .num(scope)
                .num(id)
                .text(r.url)
                .text(r.host)
                .text(r.anchor)
                .text(r.context)
                .end();
        }
        for r in g.bad_links(n) {
            bad.num(scope).num(id).text(r.url).text(r.reason).end();
        }
    }
    for a in g.aliases() {
        dups.num(scope)
            .text(g.alias_url(a))
            .num(a.node)
            .text(a.reason.as_str())
            .end();
    }
    for (i, y) in g.yields().iter().enumerate() {
        let r = match reward {
            RewardKind::NewExternal => y.new_external,
            RewardKind::AllExternal => y.external,
        };
        yields
            .num(scope)
            .num(i + 1)
            .text(y.url)
            .num(y.level)
            .num(y.external)
            .num(r)
            .end();
    }
    for (table, rows) in TABLES
        .iter()
        .zip([&pages, &arcs, &external, &bad, &dups, &yields])
    {
        copy(tx, table, rows)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_fields_escape_what_the_text_format_reads_as_markup() {
        let mut r = Rows::new();
        r.text("a\tb\\c\nd").num(7).null().end();
        assert_eq!(r.buf, b"a\\tb\\\\c\\nd\t7\t\\N\n");
    }
}

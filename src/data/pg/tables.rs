//! A finished scope's graph as SQL tables, written in bulk with `COPY` (one round trip per
//! table, never one per link): the rows of the result files, for researchers who query the
//! crawl with SQL while it runs.

use std::io::Write;

use postgres::Transaction;

use super::db::{Db, PgError};
use super::scope_state;
use crate::bandit::RewardKind;
use crate::data::SiteGraph;
use crate::data::columns::{Cell, NODE_COLUMNS};

/// Rows are sent to the server whenever this much is assembled: memory stays bounded
/// whatever the size of the graph.
const FLUSH_BYTES: usize = 1 << 20;

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

    /// An integer array, `{1,2,3}`.
    fn nums(&mut self, ns: impl Iterator<Item = u32>) -> &mut Self {
        self.sep();
        self.buf.push(b'{');
        for (i, n) in ns.enumerate() {
            if i > 0 {
                self.buf.push(b',');
            }
            let _ = write!(self.buf, "{n}");
        }
        self.buf.push(b'}');
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

/// Sends the rows assembled so far once there are enough of them.
type Flush<'a> = dyn FnMut(&mut Rows) -> std::io::Result<()> + 'a;

/// Streams the rows `fill` writes into `table` with one COPY, sending them in blocks of
/// [`FLUSH_BYTES`].
fn copy(
    tx: &mut Transaction<'_>,
    table: &str,
    fill: &mut dyn FnMut(&mut Rows, &mut Flush<'_>) -> std::io::Result<()>,
) -> Result<(), postgres::Error> {
    let mut w = tx.copy_in(&format!("COPY {table} FROM STDIN"))?;
    let mut rows = Rows::new();
    let mut flush = |rows: &mut Rows| -> std::io::Result<()> {
        if rows.buf.len() >= FLUSH_BYTES {
            w.write_all(&rows.buf)?;
            rows.buf.clear();
        }
        Ok(())
    };
    // A failed write is reported by finish(): the server has the COPY's error.
    if fill(&mut rows, &mut flush).is_ok() {
        let _ = w.write_all(&rows.buf);
    }
    w.finish()?;
    Ok(())
}

/// The graph tables, in the groups written side by side (each on its own connection).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Table {
    PageArcs,
    Pages,
    ExternalLinks,
    BadLinks,
    Duplicates,
    Yields,
}

const GROUPS: [&[Table]; 4] = [
    &[Table::PageArcs],
    &[Table::Pages, Table::Duplicates],
    &[Table::ExternalLinks, Table::BadLinks],
    &[Table::Yields],
];

/// Replaces scope `scope`'s rows of every graph table with graph `g`, four groups of tables
/// at once on connections of their own (the largest graphs spent seconds here, one table
/// after another). Each connection first takes a share lock on the scope's row, held while owner
/// `owner` holds it: a process that lost its lease never writes over its successor's rows.
/// Returns `Ok(false)` if the lease was lost.
pub(crate) fn write_graph(
    url: &str,
    scope: i64,
    owner: &str,
    g: &SiteGraph<'_>,
    reward: RewardKind,
) -> Result<bool, PgError> {
    // Each writer: its own connection and transaction, under the share lock.
    let writer = |what: &'static str,
                  work: &(dyn Fn(&mut Transaction<'_>) -> Result<(), postgres::Error> + Sync)|
     -> Result<bool, PgError> {
        let mut db = Db::connect_later(url)?;
        db.run(what, &[("scope", &scope), ("owner", &owner)], |c| {
            let mut tx = c.transaction()?;
            if !scope_state::owned_for_share(&mut tx, scope, owner)? {
                return Ok(false);
            }
            work(&mut tx)?;
            tx.commit()?;
            Ok(true)
        })
    };
    let writer = &writer;
    let results: Vec<Result<bool, PgError>> = std::thread::scope(|s| {
        let handles: Vec<_> = GROUPS
            .iter()
            .map(|group| {
                s.spawn(move || {
                    writer("writing the graph tables", &|tx| {
                        for &t in group.iter() {
                            write_table(tx, t, scope, g, reward)?;
                        }
                        Ok(())
                    })
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    let mut all = true;
    for r in results {
        all &= r?;
    }
    Ok(all)
}

/// Saves `snapshot` as scope `scope`'s state, replacing its journal (which it includes).
pub(crate) fn write_snapshot(
    tx: &mut Transaction<'_>,
    scope: i64,
    snapshot: &[u8],
) -> Result<(), postgres::Error> {
    tx.execute(
        "INSERT INTO rccrawler_snapshots (scope, data) VALUES ($1, $2) \
         ON CONFLICT (scope) DO UPDATE SET data = excluded.data",
        &[&scope, &snapshot],
    )?;
    tx.execute("DELETE FROM rccrawler_journal WHERE scope = $1", &[&scope])?;
    Ok(())
}

/// Replaces scope `scope`'s rows of table `t` with graph `g`'s.
fn write_table(
    tx: &mut Transaction<'_>,
    t: Table,
    scope: i64,
    g: &SiteGraph<'_>,
    reward: RewardKind,
) -> Result<(), postgres::Error> {
    let name = match t {
        Table::PageArcs => "rccrawler_page_arcs",
        Table::Pages => "rccrawler_pages",
        Table::ExternalLinks => "rccrawler_external_links",
        Table::BadLinks => "rccrawler_bad_links",
        Table::Duplicates => "rccrawler_duplicates",
        Table::Yields => "rccrawler_yields",
    };
    tx.execute(&format!("DELETE FROM {name} WHERE scope = $1"), &[&scope])?;
    match t {
        Table::Pages => {
            // The per-page columns by name, in nodes.csv's order (data/columns.rs).
            let columns: Vec<&str> = NODE_COLUMNS.iter().map(|c| c.sql).collect();
            let target = format!("{name} (scope, id, url, {})", columns.join(", "));
            copy(tx, &target, &mut |rows, flush| pages(rows, flush, scope, g))
        }
        _ => copy(tx, name, &mut |rows, flush| match t {
            Table::PageArcs => page_arcs(rows, flush, scope, g),
            Table::ExternalLinks => external_links(rows, flush, scope, g),
            Table::BadLinks => bad_links(rows, flush, scope, g),
            Table::Duplicates => duplicates(rows, flush, scope, g),
            Table::Yields => yields(rows, flush, scope, g, reward),
            Table::Pages => Ok(()),
        }),
    }
}

/// One row per page with its arcs as arrays: a 50,000-page site has millions of arcs, and a
/// row each made saving it take longer than crawling it. The view rccrawler_arcs unnests
/// them.
fn page_arcs(
    rows: &mut Rows,
    flush: &mut Flush<'_>,
    scope: i64,
    g: &SiteGraph<'_>,
) -> std::io::Result<()> {
    let mut edges = Vec::new();
    for (i, n) in g.nodes().iter().enumerate() {
        g.arcs_into(n, &mut edges);
        if edges.is_empty() {
            continue;
        }
        rows.num(scope)
            .num(i + 1)
            .nums(edges.iter().map(|e| e.target))
            .nums(edges.iter().map(|e| e.weight))
            .end();
        flush(rows)?;
    }
    Ok(())
}

/// The pages: id, URL and every per-page column of nodes.csv.
fn pages(
    rows: &mut Rows,
    flush: &mut Flush<'_>,
    scope: i64,
    g: &SiteGraph<'_>,
) -> std::io::Result<()> {
    for (i, n) in g.nodes().iter().enumerate() {
        rows.num(scope).num(i + 1).text(g.label(n));
        for c in NODE_COLUMNS {
            match (c.value)(g, n) {
                Cell::Int(v) => rows.num(v),
                Cell::Text(t) => rows.text(t),
                Cell::Hash(h) => rows.text(&format!("{h:032x}")),
            };
        }
        rows.end();
        flush(rows)?;
    }
    Ok(())
}

fn external_links(
    rows: &mut Rows,
    flush: &mut Flush<'_>,
    scope: i64,
    g: &SiteGraph<'_>,
) -> std::io::Result<()> {
    for (i, n) in g.nodes().iter().enumerate() {
        for r in g.external_links(n) {
            rows.num(scope)
                .num(i + 1)
                .text(r.url)
                .text(r.host)
                .text(r.anchor)
                .text(r.context)
                .end();
        }
        flush(rows)?;
    }
    Ok(())
}

fn bad_links(
    rows: &mut Rows,
    flush: &mut Flush<'_>,
    scope: i64,
    g: &SiteGraph<'_>,
) -> std::io::Result<()> {
    if let Some(r) = g.home_failure() {
        rows.num(scope).null().text(r.url).text(r.reason).end();
    }
    for (i, n) in g.nodes().iter().enumerate() {
        for r in g.bad_links(n) {
            rows.num(scope).num(i + 1).text(r.url).text(r.reason).end();
        }
        flush(rows)?;
    }
    Ok(())
}

fn duplicates(
    rows: &mut Rows,
    flush: &mut Flush<'_>,
    scope: i64,
    g: &SiteGraph<'_>,
) -> std::io::Result<()> {
    for a in g.aliases() {
        rows.num(scope)
            .text(g.alias_url(a))
            .num(a.node)
            .text(a.reason.as_str())
            .end();
        flush(rows)?;
    }
    Ok(())
}

fn yields(
    rows: &mut Rows,
    flush: &mut Flush<'_>,
    scope: i64,
    g: &SiteGraph<'_>,
    reward: RewardKind,
) -> std::io::Result<()> {
    for (i, y) in g.yields().iter().enumerate() {
        let r = y.yielded.reward(reward);
        rows.num(scope)
            .num(i + 1)
            .text(y.url)
            .num(y.level)
            .num(y.yielded.external)
            .num(r)
            .end();
        flush(rows)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_fields_escape_what_the_text_format_reads_as_markup() {
        let mut r = Rows::new();
        r.text("a\tb\\c\nd")
            .num(7)
            .null()
            .nums([1, 2].into_iter())
            .end();
        assert_eq!(r.buf, b"a\\tb\\\\c\\nd\t7\t\\N\t{1,2}\n");
    }
}

//! A finished scope's graph as SQL tables, written in bulk with `COPY` (one round trip per
//! table, never one per link): the rows of the result files, for researchers who query the
//! crawl with SQL while it runs.

use std::io::Write;

use postgres::Transaction;

use super::db::{Db, PgError};
use super::scope_state;
use crate::crawl::data::SiteGraph;
use crate::crawl::data::columns::{Cell, NODE_COLUMNS};
use crate::model::bandit::RewardKind;

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

/// Appends journal batches `(scope, (name, data))` in one statement (a batch already there,
/// sent again after a lost connection, is not added twice): one round trip for every scope
/// being crawled, where a statement each cost hundreds a second.
pub(crate) fn write_journal<'a>(
    tx: &mut Transaction<'_>,
    batches: impl Iterator<Item = (i64, &'a (String, Vec<u8>))>,
) -> Result<(), postgres::Error> {
    let (mut ids, mut names, mut data) = (Vec::new(), Vec::new(), Vec::new());
    for (id, (name, bytes)) in batches {
        ids.push(id);
        names.push(name.as_str());
        data.push(bytes.as_slice());
    }
    if ids.is_empty() {
        return Ok(());
    }
    tx.execute(
        "INSERT INTO rccrawler_journal (scope, batch, data) \
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::bytea[]) \
         ON CONFLICT (scope, batch) DO NOTHING",
        &[&ids, &names, &data],
    )?;
    Ok(())
}

/// Saves each of `snapshots` as the state of the scope of `ids` at the same place, replacing
/// its journal (which it includes).
pub(crate) fn write_snapshots(
    tx: &mut Transaction<'_>,
    ids: &[i64],
    snapshots: &[&[u8]],
) -> Result<(), postgres::Error> {
    tx.execute(
        "INSERT INTO rccrawler_snapshots (scope, data) SELECT * FROM unnest($1::bigint[], $2::bytea[]) \
         ON CONFLICT (scope) DO UPDATE SET data = excluded.data",
        &[&ids, &snapshots],
    )?;
    tx.execute(
        "DELETE FROM rccrawler_journal WHERE scope = ANY($1)",
        &[&ids],
    )?;
    Ok(())
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

impl Table {
    /// Every table, in the order [`Encoded`] keeps them.
    const ALL: [Table; 6] = [
        Table::PageArcs,
        Table::Pages,
        Table::ExternalLinks,
        Table::BadLinks,
        Table::Duplicates,
        Table::Yields,
    ];

    fn name(self) -> &'static str {
        match self {
            Table::PageArcs => "rccrawler_page_arcs",
            Table::Pages => "rccrawler_pages",
            Table::ExternalLinks => "rccrawler_external_links",
            Table::BadLinks => "rccrawler_bad_links",
            Table::Duplicates => "rccrawler_duplicates",
            Table::Yields => "rccrawler_yields",
        }
    }

    /// What a COPY into the table names: the pages table's columns by name, in nodes.csv's
    /// order (data/columns.rs); the others' in their own.
    fn target(self) -> String {
        match self {
            Table::Pages => {
                let columns: Vec<&str> = NODE_COLUMNS.iter().map(|c| c.sql).collect();
                format!("{} (scope, id, url, {})", self.name(), columns.join(", "))
            }
            _ => self.name().to_string(),
        }
    }

    /// Assembles graph `g`'s rows of this table, as scope `scope`'s.
    fn fill(
        self,
        rows: &mut Rows,
        flush: &mut Flush<'_>,
        scope: i64,
        g: &SiteGraph<'_>,
        reward: RewardKind,
    ) -> std::io::Result<()> {
        match self {
            Table::PageArcs => page_arcs(rows, flush, scope, g),
            Table::Pages => pages(rows, flush, scope, g),
            Table::ExternalLinks => external_links(rows, flush, scope, g),
            Table::BadLinks => bad_links(rows, flush, scope, g),
            Table::Duplicates => duplicates(rows, flush, scope, g),
            Table::Yields => yields(rows, flush, scope, g, reward),
        }
    }
}

/// Replaces scope `scope`'s rows of table `t` with graph `g`'s.
fn write_table(
    tx: &mut Transaction<'_>,
    t: Table,
    scope: i64,
    g: &SiteGraph<'_>,
    reward: RewardKind,
) -> Result<(), postgres::Error> {
    tx.execute(
        &format!("DELETE FROM {} WHERE scope = $1", t.name()),
        &[&scope],
    )?;
    copy(tx, &t.target(), &mut |rows, flush| {
        t.fill(rows, flush, scope, g, reward)
    })
}

/// A small scope's rows of every graph table, assembled ahead so that many scopes go to the
/// server in one transaction (one COPY a table for all of them, one commit): written one at a
/// time, on 1,000 sites of 50 to 120 pages, each scope cost four connections and five
/// commits, and finished scopes waited seconds to be retired.
#[derive(Debug)]
pub(crate) struct Encoded {
    scope: i64,
    /// By [`Table::ALL`]'s order.
    tables: [Vec<u8>; 6],
}

impl Encoded {
    /// Scope `scope`'s rows of graph `g`.
    pub(crate) fn new(scope: i64, g: &SiteGraph<'_>, reward: RewardKind) -> Self {
        let tables = Table::ALL.map(|t| {
            let mut rows = Rows::new();
            // Assembled whole (the scope is small); writing into a Vec cannot fail.
            let _ = t.fill(&mut rows, &mut |_| Ok(()), scope, g, reward);
            rows.buf
        });
        Encoded { scope, tables }
    }

    /// A scope with one row in every table (tests of batching).
    #[cfg(test)]
    pub(crate) fn stub(scope: i64) -> Self {
        Encoded {
            scope,
            tables: std::array::from_fn(|_| format!("{scope}\n").into_bytes()),
        }
    }

    /// The scope's row.
    pub(crate) fn scope(&self) -> i64 {
        self.scope
    }

    /// The bytes assembled.
    pub(crate) fn bytes(&self) -> usize {
        self.tables.iter().map(Vec::len).sum()
    }
}

/// Replaces the rows of every scope of `parts` in every graph table with theirs, in
/// transaction `tx`.
pub(crate) fn write_encoded(
    tx: &mut Transaction<'_>,
    parts: &[Encoded],
) -> Result<(), postgres::Error> {
    let ids: Vec<i64> = parts.iter().map(|p| p.scope).collect();
    for (k, t) in Table::ALL.into_iter().enumerate() {
        tx.execute(
            &format!("DELETE FROM {} WHERE scope = ANY($1)", t.name()),
            &[&ids],
        )?;
        if parts.iter().all(|p| p.tables[k].is_empty()) {
            continue;
        }
        let mut w = tx.copy_in(&format!("COPY {} FROM STDIN", t.target()))?;
        // A failed write is reported by finish(): the server has the COPY's error.
        for p in parts {
            if w.write_all(&p.tables[k]).is_err() {
                break;
            }
        }
        w.finish()?;
    }
    Ok(())
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
            .nums(edges.iter().map(|e| e.nofollow))
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
                Cell::Digest(h) => rows.text(&format!("{h:016x}")),
                Cell::Empty => rows.null(),
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
                .text(&r.rel.to_string())
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

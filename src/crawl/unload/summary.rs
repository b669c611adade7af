//! results/summary.csv: one row per site (SPEC §4), from the scopes' [`SiteSummary`] rows.

use std::borrow::Borrow;
use std::io;
use std::path::Path;

use crate::base::storage::write_atomic;
pub use crate::crawl::data::summary::{SiteState, SiteSummary};
use crate::formats::gephi_csv::CsvOut;

/// A row's value in one column.
pub(crate) enum Cell<'a> {
    /// Quoted text.
    Text(std::borrow::Cow<'a, str>),
    /// A count.
    Count(u64),
    /// Written with one decimal (seconds, the TLP).
    Tenths(f64),
}

/// How a column's value is read off a site's row.
pub(crate) type Value = fn(&SiteSummary) -> Cell<'_>;

fn text(s: &str) -> Cell<'_> {
    Cell::Text(s.into())
}

/// summary.csv's columns, in order: the header and every row are written from this table
/// (a new column is a line here; `report::read` reads columns by these names).
pub(crate) const COLUMNS: &[(&str, Value)] = &[
    ("Site", |r| text(&r.site)),
    ("Folder", |r| text(&r.folder)),
    ("Pages", |r| Cell::Count(r.pages as u64)),
    ("Arcs", |r| Cell::Count(r.arcs as u64)),
    ("ExternalLinks", |r| Cell::Count(r.external_links as u64)),
    ("BadLinks", |r| Cell::Count(r.bad_links as u64)),
    ("Duplicates", |r| Cell::Count(r.duplicates as u64)),
    ("MaxLevel", |r| Cell::Count(u64::from(r.max_level))),
    ("Seconds", |r| Cell::Tenths(r.seconds)),
    ("State", |r| Cell::Text(r.state.to_string().into())),
    ("Home", |r| text(&r.home)),
    ("Reason", |r| text(&r.reason)),
    ("Fetched", |r| Cell::Count(r.fetched)),
    ("Reward", |r| Cell::Count(r.reward)),
    ("Hosts", |r| Cell::Count(r.hosts as u64)),
    ("TLP", |r| Cell::Tenths(r.tlp())),
    // Empty when the site's sitemaps were not read (`Sitemaps = no`).
    ("SitemapUrls", |r| sitemap_cell(r, |c| c.urls)),
    ("Orphans", |r| sitemap_cell(r, |c| c.orphans)),
    // Empty when pages are not rendered (`Render = no`, SPEC §18).
    ("Rendered", |r| render_cell(r, |c| c.rendered)),
    ("ScriptOnlyArcs", |r| render_cell(r, |c| c.script_only_arcs)),
    // Empty when documents are not nodes (`Documents = no`, SPEC §19).
    ("Documents", |r| match &r.documents {
        Some(c) => Cell::Count(c.total()),
        None => text(""),
    }),
    ("DocumentTypes", |r| match &r.documents {
        Some(c) => Cell::Text(c.types().into()),
        None => text(""),
    }),
];

fn render_cell(
    r: &SiteSummary,
    count: fn(&crate::crawl::data::summary::RenderCounts) -> u64,
) -> Cell<'_> {
    match &r.render {
        Some(c) => Cell::Count(count(c)),
        None => text(""),
    }
}

fn sitemap_cell(r: &SiteSummary, count: fn(&crate::crawl::data::SitemapCounts) -> u64) -> Cell<'_> {
    match &r.sitemap {
        Some(c) => Cell::Count(count(c)),
        None => text(""),
    }
}

/// Writes summary.csv atomically.
pub fn write_summary<R: Borrow<SiteSummary>>(path: &Path, rows: &[R]) -> io::Result<()> {
    write_summary_rows(path, rows.iter().map(Borrow::borrow))
}

/// Writes summary.csv atomically from rows made one at a time (a crawl that goes on reads
/// each finished site's row from where it is kept, not from a table of them all).
pub fn write_summary_rows<R: Borrow<SiteSummary>>(
    path: &Path,
    rows: impl IntoIterator<Item = R>,
) -> io::Result<()> {
    write_atomic(path, |w| {
        let header: Vec<&str> = COLUMNS.iter().map(|(name, _)| *name).collect();
        let mut csv = CsvOut::plain(w, &header)?;
        for r in rows {
            put_row(&mut csv, r.borrow())?;
        }
        csv.finish()
    })
}

/// One row.
fn put_row(csv: &mut CsvOut<'_>, r: &SiteSummary) -> io::Result<()> {
    for (_, value) in COLUMNS {
        match value(r) {
            Cell::Text(t) => csv.text(&t)?,
            Cell::Count(n) => csv.num(n)?,
            Cell::Tenths(x) => csv.raw(&format!("{x:.1}"))?,
        };
    }
    csv.end()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawl::data::summary::tests::sample_row;

    #[test]
    fn rows_made_one_at_a_time_make_the_same_file_as_a_table_of_them() {
        let dir = tempfile::tempdir().expect("temp dir");
        let rows = [
            sample_row("http://a.test"),
            sample_row("https://b.test:8443"),
        ];
        let from_table = dir.path().join("table.csv");
        write_summary(&from_table, &rows).expect("write rows");
        let from_iter = dir.path().join("iter.csv");
        write_summary_rows(&from_iter, rows.iter().cloned().map(std::sync::Arc::new))
            .expect("write rows one at a time");
        let (a, b) = (
            std::fs::read_to_string(&from_table).expect("read"),
            std::fs::read_to_string(&from_iter).expect("read"),
        );
        assert_eq!(a, b);
        assert_eq!(a.lines().count(), 3, "{a}");
        assert!(a.contains(r#""http://a.test/""x"",""#), "quoted: {a}");
    }
}

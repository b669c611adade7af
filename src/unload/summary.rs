//! results/summary.csv: one row per site (SPEC §4), from the scopes' [`SiteSummary`] rows.

use std::borrow::Borrow;
use std::io;
use std::path::Path;

pub use crate::data::summary::{SiteState, SiteSummary};
use crate::gephi_csv::CsvOut;
use crate::storage::write_atomic;

/// summary.csv's columns.
const HEADER: &[&str] = &[
    "Site",
    "Folder",
    "Pages",
    "Arcs",
    "ExternalLinks",
    "BadLinks",
    "Duplicates",
    "MaxLevel",
    "Seconds",
    "State",
    "Home",
    "Reason",
    "Fetched",
    "Reward",
    "Hosts",
    "TLP",
];

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
        let mut csv = CsvOut::plain(w, HEADER)?;
        for r in rows {
            put_row(&mut csv, r.borrow())?;
        }
        csv.finish()
    })
}

/// One row.
fn put_row(csv: &mut CsvOut<'_>, r: &SiteSummary) -> io::Result<()> {
    csv.text(&r.site)?
        .text(&r.folder)?
        .num(r.pages)?
        .num(r.arcs)?
        .num(r.external_links)?
        .num(r.bad_links)?
        .num(r.duplicates)?
        .num(r.max_level)?
        .raw(&format!("{:.1}", r.seconds))?
        .text(&r.state.to_string())?
        .text(&r.home)?
        .text(&r.reason)?
        .num(r.fetched)?
        .num(r.reward)?
        .num(r.hosts)?
        .raw(&format!("{:.1}", r.tlp()))?
        .end()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::summary::tests::sample_row;

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

//! results/summary.csv: one row per site (SPEC §4), from the scopes' [`SiteSummary`] rows.

use std::borrow::Borrow;
use std::io;
use std::path::Path;

use super::gephi_csv::CsvOut;
pub use crate::data::summary::{SiteState, SiteSummary};
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
    write_atomic(path, |w| {
        let mut csv = CsvOut::plain(w, HEADER)?;
        for r in rows {
            put_row(&mut csv, r.borrow())?;
        }
        csv.finish()
    })
}

/// Appends `row`'s line of summary.csv (its newline included) to `out`: the rows of finished
/// sites are kept so while a crawl goes on, and written with [`write_summary_lines`].
pub fn summary_line(row: &SiteSummary, out: &mut Vec<u8>) {
    let mut csv = CsvOut::plain_rows(out);
    // Writing into a Vec<u8> cannot fail.
    let _ = put_row(&mut csv, row).and_then(|()| csv.finish());
}

/// Writes summary.csv atomically from lines made by [`summary_line`], in the given order.
pub fn write_summary_lines<'a>(
    path: &Path,
    lines: impl IntoIterator<Item = &'a [u8]>,
) -> io::Result<()> {
    write_atomic(path, |w| {
        w.write_all(HEADER.join(",").as_bytes())?;
        w.write_all(b"\n")?;
        for line in lines {
            w.write_all(line)?;
        }
        Ok(())
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
    fn lines_kept_one_by_one_make_the_same_file_as_the_rows() {
        let dir = tempfile::tempdir().expect("temp dir");
        let rows = [
            sample_row("http://a.test"),
            sample_row("https://b.test:8443"),
        ];
        let from_rows = dir.path().join("rows.csv");
        write_summary(&from_rows, &rows).expect("write rows");
        let mut text = Vec::new();
        let mut lines = Vec::new();
        for r in &rows {
            let start = text.len();
            summary_line(r, &mut text);
            lines.push(start..text.len());
        }
        let from_lines = dir.path().join("lines.csv");
        write_summary_lines(&from_lines, lines.iter().map(|l| &text[l.clone()]))
            .expect("write lines");
        let (a, b) = (
            std::fs::read_to_string(&from_rows).expect("read"),
            std::fs::read_to_string(&from_lines).expect("read"),
        );
        assert_eq!(a, b);
        assert_eq!(a.lines().count(), 3, "{a}");
        assert!(a.contains(r#""http://a.test/""x"",""#), "quoted: {a}");
    }
}

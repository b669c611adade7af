//! results/summary.csv: one row per site (SPEC §4), from the scopes' [`SiteSummary`] rows.

use std::borrow::Borrow;
use std::io;
use std::path::Path;

use super::gephi_csv::CsvOut;
pub use crate::data::summary::{SiteState, SiteSummary};
use crate::storage::write_atomic;

/// Writes summary.csv atomically. The rows may be shared (a retired scope's row is kept once,
/// by the data manager, and written from there as sites finish).
pub fn write_summary<R: Borrow<SiteSummary>>(path: &Path, rows: &[R]) -> io::Result<()> {
    write_atomic(path, |w| {
        let mut csv = CsvOut::plain(
            w,
            &[
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
            ],
        )?;
        for r in rows {
            let r: &SiteSummary = r.borrow();
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
                .end()?;
        }
        csv.finish()
    })
}

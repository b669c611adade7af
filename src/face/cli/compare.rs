//! `rccrawler compare`: two or more results folders compared into one folder (SPEC §16).

use std::path::{Path, PathBuf};

use super::Exit;
use crate::analysis::compare::{CompareError, Compared};

/// Compares the results folders `results` (oldest first) into `out`, and says what changed.
pub fn compare(results: &[PathBuf], out: &Path) -> Exit {
    match crate::analysis::compare::compare(results, out) {
        Ok(c) => {
            print_compared(&c, out);
            Exit::Ok
        }
        Err(e) => {
            eprintln!("error: {e}");
            if e.is_bad_input() {
                if matches!(
                    e,
                    CompareError::NotResults { .. } | CompareError::NewerFormat { .. }
                ) {
                    eprintln!("nothing was written");
                }
                Exit::BadInput
            } else {
                Exit::Failure
            }
        }
    }
}

fn print_compared(c: &Compared, out: &Path) {
    for w in &c.warnings {
        eprintln!("warning: {w}");
    }
    let [added, removed, changed, renamed, moved] = c.pages;
    let [yes, unknown, no] = c.verdicts;
    println!(
        "{} compared ({yes} comparable, {no} not, {unknown} unknown): pages {added} added, {removed} removed, {changed} changed, {renamed} renamed, {moved} at another level",
        crate::base::words::count(c.sites as u64, "site")
    );
    println!(
        "written to {}: sites.csv, pages.csv, renamed.csv, arcs.csv, external.csv, report.html, a dynamic graph.gexf per site",
        out.display()
    );
}

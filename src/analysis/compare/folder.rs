//! A results folder opened for comparing: its summary.csv rows and crawl record, checked to
//! be a results folder this version reads.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::CompareError;
use crate::analysis::report::{SummaryRow, read_summary};
use crate::formats::crawl_record::{self, CrawlRecord, RESULTS_FORMAT};

/// One crawl's results.
#[derive(Debug)]
pub(crate) struct Crawl {
    /// Its folder.
    pub(crate) path: PathBuf,
    /// Its place in time, from 1.
    pub(crate) number: usize,
    /// What it was crawled with, when recorded.
    pub(crate) record: Option<CrawlRecord>,
    /// summary.csv's rows.
    pub(crate) rows: Vec<SummaryRow>,
    /// Each site's row, by `Site`.
    index: HashMap<String, usize>,
}

impl Crawl {
    /// Opens results folder `path`, crawl `number` of the comparison.
    pub(crate) fn open(path: &Path, number: usize) -> Result<Crawl, CompareError> {
        let not = |why: String| CompareError::NotResults {
            folder: path.to_owned(),
            why,
        };
        if !path.is_dir() {
            return Err(not("not a folder".into()));
        }
        let summary = path.join("summary.csv");
        if !summary.is_file() {
            let hint = results_inside(path)
                .map(|r| format!(" (a crawl's folder? its results: {})", r.display()))
                .unwrap_or_default();
            return Err(not(format!(
                "no summary.csv: not a results folder of rccrawler{hint}"
            )));
        }
        let record = crawl_record::read(path).map_err(|e| not(e.to_string()))?;
        if let Some(r) = &record
            && r.format > RESULTS_FORMAT
        {
            return Err(CompareError::NewerFormat {
                folder: path.to_owned(),
                format: r.format,
                version: r.version.clone(),
            });
        }
        let rows = read_summary(&summary).map_err(|e| not(e.to_string()))?;
        let index = rows
            .iter()
            .enumerate()
            .map(|(i, r)| (r.site.clone(), i))
            .collect();
        Ok(Crawl {
            path: path.to_owned(),
            number,
            record,
            rows,
            index,
        })
    }

    /// The summary.csv row of `site`, if this crawl has it.
    pub(crate) fn row(&self, site: &str) -> Option<&SummaryRow> {
        self.index.get(site).map(|&i| &self.rows[i])
    }

    /// Its name in messages: `crawl 2 (2026/results)`, the folder as given.
    pub(crate) fn name(&self) -> String {
        format!("crawl {} ({})", self.number, self.path.display())
    }

    /// When it started, as recorded (empty when not).
    pub(crate) fn started(&self) -> &str {
        self.record.as_ref().map_or("", |r| r.started.as_str())
    }
}

/// A results folder just inside `folder` (a crawl's folder holds `results/`): the first of its
/// subfolders, by name, with a summary.csv.
fn results_inside(folder: &Path) -> Option<std::path::PathBuf> {
    let mut found: Vec<std::path::PathBuf> = std::fs::read_dir(folder)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("summary.csv").is_file())
        .collect();
    found.sort();
    found.into_iter().next()
}

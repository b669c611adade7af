//! What a results folder says about the crawl that made it (SPEC §16): `crawl.ini` — the
//! results format, the version, when the crawl (or its last continuation) started, and every
//! setting as it ran (written or default) — and `hosts.txt`, its sites as hosts.txt lines with
//! their effective numbers and fields. `rccrawler compare` reads them to say where two crawls
//! cannot be compared (another `maxCrawlLevel`, URL filter, budget, duplicate rule, page
//! limit); a person reads them to know, a year on, how a graph was made, and can crawl the same
//! sites the same way again (`--hosts results/hosts.txt`).
//!
//! This module reads them; the crawl writes them (`settings::record`).

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use crate::formats::setting_keys as keys;

/// The crawl record's file name in a results folder.
pub const RECORD_FILE: &str = "crawl.ini";
/// The sites' file name in a results folder.
pub const HOSTS_FILE: &str = "hosts.txt";
/// The results format this version writes (and the newest it reads): raised when a result
/// file changes in a way an older reader would misread.
pub const RESULTS_FORMAT: u32 = 1;

/// One site as the record lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedSite {
    /// `maxCrawlLevel`.
    pub max_level: u32,
    /// `include=`, `exclude=` and `pages=` fields, as written.
    pub fields: Vec<String>,
}

/// A results folder's crawl record, read back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CrawlRecord {
    /// `ResultsFormat`.
    pub format: u32,
    /// The rccrawler version that wrote it.
    pub version: String,
    /// When the crawl (or its last continuation) started, UTC.
    pub started: String,
    /// Every setting, by key.
    pub settings: BTreeMap<String, String>,
    /// The sites, by origin (`http://a.test`), when hosts.txt was read.
    pub sites: BTreeMap<String, RecordedSite>,
}

impl CrawlRecord {
    /// A setting's value: as recorded, else the key's default (a key newer than the record).
    pub fn setting(&self, key: &str) -> &str {
        let text = self
            .settings
            .get(key)
            .map(String::as_str)
            .or_else(|| keys::find(key).map(|k| k.default))
            .unwrap_or("");
        // A record written before values were normalised may say `false` for `no`.
        if keys::find(key).is_some_and(|d| matches!(d.kind, keys::ValueKind::Flag)) {
            crate::formats::setting_keys::normal_flag(text)
        } else {
            text
        }
    }
}

/// Why a crawl record cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// Not a crawl record.
    #[error("{path} line {line}: {why}")]
    Format {
        /// The file.
        path: String,
        /// The line (from 1).
        line: usize,
        /// What is wrong.
        why: String,
    },
}

/// Reads the crawl record of results folder `folder`; `Ok(None)` when it has none (results of
/// a version before records).
pub fn read(folder: &Path) -> Result<Option<CrawlRecord>, RecordError> {
    let path = folder.join(RECORD_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(RecordError::Io {
                path: path.display().to_string(),
                source,
            });
        }
    };
    let mut record = parse(&text, &path.display().to_string())?;
    if let Ok(hosts) = std::fs::read_to_string(folder.join(HOSTS_FILE)) {
        record.sites = parse_hosts(&hosts);
    }
    Ok(Some(record))
}

fn parse(text: &str, path: &str) -> Result<CrawlRecord, RecordError> {
    let mut record = CrawlRecord::default();
    let mut section = String::new();
    let bad = |line: usize, why: String| RecordError::Format {
        path: path.to_owned(),
        line,
        why,
    };
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with(';') || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.trim().to_owned();
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            return Err(bad(i + 1, format!("{line:?} is not `key = value`")));
        };
        let (key, value) = (key.trim(), value.trim().to_owned());
        match (section.as_str(), key) {
            ("crawl", "ResultsFormat") => {
                record.format = value
                    .parse()
                    .map_err(|_| bad(i + 1, format!("ResultsFormat {value:?} is not a number")))?;
            }
            ("crawl", "Version") => record.version = value,
            ("crawl", "Started") => record.started = value,
            ("settings", _) => {
                record.settings.insert(key.to_owned(), value);
            }
            _ => {}
        }
    }
    if record.format == 0 {
        return Err(bad(
            1,
            "no [crawl] ResultsFormat: not a crawl record".into(),
        ));
    }
    Ok(record)
}

/// The sites of a recorded hosts.txt (lines it cannot read are skipped: the record informs,
/// it does not gate).
fn parse_hosts(text: &str) -> BTreeMap<String, RecordedSite> {
    let mut sites = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parts: Vec<&str> = line.split(';').map(str::trim).collect();
        let Some(max_level) = parts.get(2).and_then(|l| l.parse().ok()) else {
            continue;
        };
        sites.insert(
            parts[0].to_owned(),
            RecordedSite {
                max_level,
                fields: parts.iter().skip(4).map(|f| (*f).to_owned()).collect(),
            },
        );
    }
    sites
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_record_and_a_broken_one() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read(dir.path()).unwrap().is_none());
        std::fs::write(dir.path().join(RECORD_FILE), "[crawl]\nResultsFormat = x\n").unwrap();
        assert!(read(dir.path()).is_err());
        std::fs::write(dir.path().join(RECORD_FILE), "[settings]\nA = 1\n").unwrap();
        assert!(read(dir.path()).is_err());
    }
}

//! What a results folder says about the crawl that made it (SPEC §16): `crawl.ini` — the
//! results format, the version, when the crawl (or its last continuation) started, and every
//! setting as it ran (written or default) — and `hosts.txt`, its sites as hosts.txt lines with
//! their effective numbers and fields. `rccrawler compare` reads them to say where two crawls
//! cannot be compared (another `maxCrawlLevel`, URL filter, budget, duplicate rule, page
//! limit); a person reads them to know, a year on, how a graph was made, and can crawl the same
//! sites the same way again (`--hosts results/hosts.txt`).
//!
//! Written when a crawl claims its results folder, so a stopped or killed crawl's folder has
//! them too; a continued crawl writes them again (the settings of its last run); `rccrawler
//! export` writes them into the folder it exports to (its settings, the hosts.txt beside them).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write as _};
use std::path::Path;
use std::time::SystemTime;

use crate::settings::{Settings, keys};
use crate::site::SiteSpec;
use crate::storage::atomic::replace_file_with;

/// The crawl record's file name in a results folder.
pub const RECORD_FILE: &str = "crawl.ini";
/// The sites' file name in a results folder.
pub const HOSTS_FILE: &str = "hosts.txt";
/// The results format this version writes (and the newest it reads): raised when a result
/// file changes in a way an older reader would misread.
pub const RESULTS_FORMAT: u32 = 1;

/// Keys left out of the record: `Resolve` can be megabytes of addresses and changes nothing
/// in a graph.
const LEFT_OUT: &[&str] = &["Resolve"];

/// Writes `crawl.ini` and `hosts.txt` into `folder` (atomically, each).
pub fn write(folder: &Path, settings: &Settings, sites: &[SiteSpec]) -> io::Result<()> {
    let started = crate::utc::utc_timestamp(SystemTime::now());
    replace_file_with(&folder.join(RECORD_FILE), |w| {
        w.write_all(render(settings, &started).as_bytes())
    })?;
    replace_file_with(&folder.join(HOSTS_FILE), |w| {
        w.write_all(render_hosts(sites).as_bytes())
    })
}

/// The record as `warcinfo` fields (SPEC §15): `setting: Key = Value` for every setting as
/// the crawl runs it and `host: line` for every site, so that an archive says on its own how
/// it was made (`rccrawler rebuild` reads them back).
pub fn warcinfo_fields(settings: &Settings, sites: &[SiteSpec]) -> Vec<(String, String)> {
    let ini = render(settings, "");
    let settings_lines = ini
        .split_once("[settings]\n")
        .map_or("", |(_, rest)| rest)
        .lines()
        .map(|l| ("setting".to_owned(), l.to_owned()));
    let hosts = render_hosts(sites);
    let host_lines = hosts
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| ("host".to_owned(), l.to_owned()));
    settings_lines.chain(host_lines).collect()
}

fn render(settings: &Settings, started: &str) -> String {
    let mut s = format!(
        "; The crawl these results come from, written by rccrawler {v} when it (or its last\n\
         ; continuation) started: every setting as it ran, written in settings.ini or the\n\
         ; default. hosts.txt beside it lists the sites. `rccrawler compare` reads both.\n\
         [crawl]\nResultsFormat = {RESULTS_FORMAT}\nVersion = {v}\nStarted = {started}\n{rebuilt}\n[settings]\n",
        v = env!("CARGO_PKG_VERSION"),
        // A rebuild's wall-clock figures (Started, summary.csv's Seconds and TLP) are its own.
        rebuilt = settings.http.replay_from.as_ref().map_or(String::new(), |from| format!(
            "Rebuilt = from the archive {} (Started, and summary.csv's Seconds, TLP and Fetched, are the rebuild's)\n",
            from.display()
        )),
    );
    for k in keys::KEYS.iter().filter(|k| !LEFT_OUT.contains(&k.name)) {
        let value = settings.text(k.name);
        let value = if k.name == "DatabaseUrl" {
            crate::settings::redact(value)
        } else {
            value.to_owned()
        };
        // One line per key: a value never spans lines in settings.ini either.
        let _ = writeln!(s, "{} = {}", k.name, value.replace(['\n', '\r'], " "));
    }
    s
}

/// The sites as hosts.txt lines: `origin;maxDownloadsAtTime;maxCrawlLevel;crawlDelay` and the
/// line's fields.
fn render_hosts(sites: &[SiteSpec]) -> String {
    let mut s = String::from("# The sites of this crawl, with the numbers it used.\n");
    for site in sites {
        let _ = write!(
            s,
            "{};{};{};{}",
            site.origin,
            site.max_downloads,
            site.max_level,
            site.crawl_delay.as_millis()
        );
        for f in site.rules.fields() {
            let _ = write!(s, ";{f}");
        }
        s.push('\n');
    }
    s
}

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
            crate::settings::normal_flag(text)
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
    use crate::hosts::{self, SiteDefaults};

    #[test]
    fn a_record_reads_back_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let settings = Settings::defaults(dir.path());
        let defaults = SiteDefaults {
            max_downloads: 2,
            max_level: 7,
            crawl_delay: std::time::Duration::from_millis(250),
        };
        let sites = hosts::parse(
            "http://a.test;1;3;100;include=/docs/;exclude=/docs/old/;pages=50\nhttps://b.test:8443\n",
            defaults,
        )
        .unwrap();
        write(dir.path(), &settings, &sites).unwrap();
        let r = read(dir.path()).unwrap().unwrap();
        assert_eq!(r.format, RESULTS_FORMAT);
        assert_eq!(r.version, env!("CARGO_PKG_VERSION"));
        assert!(r.started.ends_with('Z'), "{}", r.started);
        assert_eq!(r.setting("Duplicates"), "fold");
        assert_eq!(r.setting("DefaultMaxCrawlLevel"), "100");
        assert!(!r.settings.contains_key("Resolve"));
        assert_eq!(r.settings.len(), keys::KEYS.len() - 1);
        assert_eq!(
            r.sites["http://a.test"],
            RecordedSite {
                max_level: 3,
                fields: vec![
                    "include=/docs/".into(),
                    "exclude=/docs/old/".into(),
                    "pages=50".into()
                ],
            }
        );
        assert_eq!(r.sites["https://b.test:8443"].max_level, 7);
        assert!(r.sites["https://b.test:8443"].fields.is_empty());
        // The recorded hosts.txt is a hosts.txt this version reads.
        let again = hosts::load(&dir.path().join(HOSTS_FILE), defaults).unwrap();
        assert_eq!(again.len(), 2);
        assert_eq!(again[0].max_level, 3);
        assert_eq!(again[0].rules.max_pages, Some(50));
    }

    #[test]
    fn no_record_and_a_broken_one() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read(dir.path()).unwrap().is_none());
        std::fs::write(dir.path().join(RECORD_FILE), "[crawl]\nResultsFormat = x\n").unwrap();
        assert!(read(dir.path()).is_err());
        std::fs::write(dir.path().join(RECORD_FILE), "[settings]\nA = 1\n").unwrap();
        assert!(read(dir.path()).is_err());
    }

    #[test]
    fn a_database_password_is_not_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let text = "DatabaseUrl = postgres://u:secret@h/db\n";
        std::fs::write(dir.path().join("settings.ini"), text).unwrap();
        let (settings, _) = Settings::load(&dir.path().join("settings.ini")).unwrap();
        write(dir.path(), &settings, &[]).unwrap();
        let written = std::fs::read_to_string(dir.path().join(RECORD_FILE)).unwrap();
        assert!(!written.contains("secret"), "{written}");
        assert!(written.contains("postgres://u:***@h/db"), "{written}");
    }
}

//! crawl.ini and hosts.txt written into a results folder (SPEC §16), and the same record as an
//! archive's warcinfo fields (SPEC §15): the crawl side of `crawl_record`, which reads them.
//!
//! Written when a crawl claims its results folder, so a stopped or killed crawl's folder has
//! them too; a continued crawl writes them again (the settings of its last run); `rccrawler
//! export` writes them into the folder it exports to (its settings, the hosts.txt beside them).

use std::fmt::Write as _;
use std::io::{self, Write as _};
use std::path::Path;
use std::time::SystemTime;

use super::Settings;
use crate::base::storage::atomic::replace_file_with;
use crate::formats::crawl_record::{HOSTS_FILE, RECORD_FILE, RESULTS_FORMAT};
use crate::formats::setting_keys as keys;
use crate::model::site::SiteSpec;

/// Keys left out of the record: `Resolve` can be megabytes of addresses and changes nothing
/// in a graph.
const LEFT_OUT: &[&str] = &["Resolve"];

/// Writes `crawl.ini` and `hosts.txt` into `folder` (atomically, each).
pub fn write(folder: &Path, settings: &Settings, sites: &[SiteSpec]) -> io::Result<()> {
    let started = crate::base::utc::utc_timestamp(SystemTime::now());
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
        rebuilt = settings.http.rebuild_from.as_ref().map_or(String::new(), |from| format!(
            "Rebuilt = from the archive {} (Started, and summary.csv's Seconds, TLP and Fetched, are the rebuild's)\n",
            from.display()
        )),
    );
    for k in keys::KEYS.iter().filter(|k| !LEFT_OUT.contains(&k.name)) {
        let value = settings.text(k.name);
        let value = if k.name == "DatabaseUrl" {
            crate::crawl::settings::redact(value)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::crawl_record::{RecordedSite, read};
    use crate::formats::hosts::{self, SiteDefaults};

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

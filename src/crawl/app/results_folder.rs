//! A results folder belongs to one crawl (issue 49). A crawl that starts afresh in a folder
//! holding another crawl's results moves them aside, into `<folder>.old-<UTC time>/` beside
//! it, and says so: otherwise the old sites' folders stayed beside the new ones, summary.csv,
//! report.html, the network of sites and the live page mixed the two crawls, and the live page
//! listed sites of the old crawl as done. A crawl that continues (its saved state, or a shared
//! crawl's database, says it wrote there) keeps its folder.
//!
//! Which crawl wrote a folder is in its [`MARKER`] file: `BMICDM` crawls are told apart by
//! when they started (a finished crawl's state folder is reused by the next), `PgDM` crawls by
//! `CrawlName`. A folder from before markers counts as the continuing crawl's.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::AppError;
use crate::base::storage::atomic::replace_file_with;
use crate::base::utc::utc_timestamp;
use crate::crawl::data::DataManager;
use crate::crawl::data::coord::Coordinator;
use crate::crawl::settings::Settings;

/// The file naming the crawl whose results a folder holds.
pub(super) const MARKER: &str = ".rccrawler-crawl";

/// What is done with the results folder before a crawl writes into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Claimed {
    /// Empty, or this crawl's already.
    Kept,
    /// Another crawl's results were moved to this folder.
    MovedAside(PathBuf),
}

/// Makes `settings`' results folder this crawl's, moving another crawl's results aside.
/// `dm` is the crawl's data manager, opened: whether the crawl continues is read from it;
/// `coordinator` says whether the crawl is shared with other processes (`PgDM`). Then records
/// the crawl in it (`crawl.ini`, `hosts.txt`: its settings and `sites`).
pub(super) fn claim(
    settings: &Settings,
    dm: &dyn DataManager,
    coordinator: &dyn Coordinator,
    sites: &[crate::model::site::SiteSpec],
) -> Result<Claimed, AppError> {
    let shared = coordinator.scopes_per_process().is_some();
    let folder = &settings.results.folder;
    claim_folder(settings, dm, shared)
        .and_then(|claimed| {
            if let Claimed::MovedAside(to) = &claimed {
                logs_aside(settings, to);
            }
            crate::crawl::settings::record::write(folder, settings, sites)?;
            Ok(claimed)
        })
        .map_err(|source| AppError::ResultsFolder {
            folder: folder.clone(),
            source,
        })
}

fn claim_folder(
    settings: &Settings,
    dm: &dyn DataManager,
    shared: bool,
) -> std::io::Result<Claimed> {
    let folder = &settings.results.folder;
    let found = std::fs::read_to_string(folder.join(MARKER)).ok();
    let continuing = if shared {
        // A shared crawl's database records which of its sites were written here.
        dm.written_before().is_ok_and(|rows| !rows.is_empty())
    } else {
        // Saved scopes, counted without copying each (100,000 sites' worth at the start).
        dm.scope_count() > 0
    };
    let (ours, identity) = if shared {
        let identity = format!("PgDM crawl {:?}\n", settings.database.crawl);
        let ours = match &found {
            Some(m) => *m == identity,
            None => continuing,
        };
        (ours, identity)
    } else if continuing {
        // The saved state decides: its results are here, whatever the marker says.
        let identity = found.clone().unwrap_or_else(|| bmicdm_identity(settings));
        (true, identity)
    } else {
        (false, bmicdm_identity(settings))
    };
    let mut claimed = Claimed::Kept;
    if !ours && (found.is_some() || holds_results(folder)) {
        let entries = outputs(folder)?;
        if !entries.is_empty() {
            let to = aside(folder);
            std::fs::create_dir_all(&to)?;
            for entry in entries {
                let name = entry.file_name().unwrap_or_default().to_owned();
                std::fs::rename(&entry, to.join(name))?;
            }
            let whose = found
                .as_deref()
                .map_or("an earlier crawl".to_owned(), |m| m.trim().to_owned());
            eprintln!(
                "{} held the results of another crawl ({whose}): moved them to {}",
                folder.display(),
                to.display()
            );
            claimed = Claimed::MovedAside(to);
        }
    }
    if found.as_deref() != Some(identity.as_str()) {
        std::fs::create_dir_all(folder)?;
        replace_file_with(&folder.join(MARKER), |w| {
            std::io::Write::write_all(w, identity.as_bytes())
        })?;
    }
    Ok(claimed)
}

/// The log files of the crawl whose results were moved to `to` go with them (into
/// `to/logs/`): the fresh crawl's logs start afresh instead of continuing another crawl's
/// (issue 68). A log that cannot be moved is left where it is, and said.
fn logs_aside(settings: &Settings, to: &Path) {
    for log in [&settings.logs.common_log, &settings.logs.error_log] {
        if !log.is_file() {
            continue;
        }
        let name = log.file_name().unwrap_or_default();
        let dest = to.join("logs").join(name);
        let moved =
            std::fs::create_dir_all(to.join("logs")).and_then(|()| std::fs::rename(log, &dest));
        if let Err(e) = moved {
            eprintln!(
                "note: {} stays, with the earlier crawl's lines ({e})",
                log.display()
            );
        }
    }
}

/// A fresh `BMICDM` crawl's name: when it started, and where its state is kept.
fn bmicdm_identity(settings: &Settings) -> String {
    let state = if settings.state.save {
        format!("state in {}", settings.state.folder.display())
    } else {
        "no saved state".to_owned()
    };
    format!(
        "BMICDM crawl started {}, {state}\n",
        utc_timestamp(SystemTime::now())
    )
}

/// Whether `folder` holds a crawl's results (from before markers): a summary.csv, or a site
/// folder with its nodes.csv. Anything else there (a file of the user's) is no crawl's, and
/// stays.
fn holds_results(folder: &Path) -> bool {
    if folder.join("summary.csv").exists() {
        return true;
    }
    std::fs::read_dir(folder).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.path().join("nodes.csv").exists())
    })
}

/// What the folder holds of a crawl's: everything but the marker and a README (the
/// repository's own results/README.md stays where it is).
fn outputs(folder: &Path) -> std::io::Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name == MARKER || name.starts_with("README") {
            continue;
        }
        found.push(entry.path());
    }
    found.sort();
    Ok(found)
}

/// `<folder>.old-<YYYYMMDD-HHMMSS>` beside `folder` (UTC), with `-2`, `-3`, … if taken.
fn aside(folder: &Path) -> PathBuf {
    let stamp = utc_timestamp(SystemTime::now());
    let stamp: String = stamp[..19]
        .chars()
        .filter_map(|c| match c {
            '-' | ':' => None,
            'T' => Some('-'),
            c => Some(c),
        })
        .collect();
    let name = folder
        .file_name()
        .map_or("results".into(), |n| n.to_string_lossy().into_owned());
    let base = folder.with_file_name(format!("{name}.old-{stamp}"));
    let mut to = base.clone();
    let mut n = 2;
    while to.exists() {
        to = PathBuf::from(format!("{}-{n}", base.display()));
        n += 1;
    }
    to
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_old_folder_is_named_after_the_time_and_never_taken_twice() {
        let dir = tempfile::tempdir().unwrap();
        let results = dir.path().join("results");
        let first = aside(&results);
        let name = first.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with("results.old-"), "{name}");
        let stamp = &name["results.old-".len()..];
        assert_eq!(stamp.len(), 15, "{stamp}");
        assert!(
            stamp.chars().enumerate().all(|(i, c)| if i == 8 {
                c == '-'
            } else {
                c.is_ascii_digit()
            }),
            "{stamp}"
        );
        std::fs::create_dir_all(&first).unwrap();
        let second = aside(&results);
        assert_ne!(second, first);
        assert!(second.to_string_lossy().ends_with("-2"), "{second:?}");
    }

    #[test]
    fn results_are_a_summary_or_a_site_folder_with_its_nodes() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!holds_results(dir.path()));
        std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        std::fs::create_dir(dir.path().join("a.test")).unwrap();
        assert!(!holds_results(dir.path()), "no nodes.csv in a.test");
        std::fs::write(dir.path().join("a.test/nodes.csv"), "Id").unwrap();
        assert!(holds_results(dir.path()));
        std::fs::remove_file(dir.path().join("a.test/nodes.csv")).unwrap();
        std::fs::write(dir.path().join("summary.csv"), "Site").unwrap();
        assert!(holds_results(dir.path()));
    }

    #[test]
    fn the_marker_and_a_readme_are_not_a_crawls_results() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(MARKER), "x").unwrap();
        std::fs::write(dir.path().join("README.md"), "x").unwrap();
        assert!(outputs(dir.path()).unwrap().is_empty());
        std::fs::write(dir.path().join("summary.csv"), "x").unwrap();
        std::fs::create_dir(dir.path().join("a.test")).unwrap();
        let found: Vec<String> = outputs(dir.path())
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(found, ["a.test", "summary.csv"]);
        assert!(outputs(&dir.path().join("none")).unwrap().is_empty());
    }
}

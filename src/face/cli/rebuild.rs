//! `rccrawler rebuild ARCHIVE_DIR [--settings FILE] [--hosts FILE] [--out DIR]` (SPEC §15):
//! a crawl whose answers come from a WARC archive instead of the network. The settings and
//! sites are the archive's own (its `warcinfo` record's `setting:` and `host:` lines) unless
//! named; whatever they are, the rebuild writes only into DIR (`results/`, and `state/` and
//! `logs/` while it runs), keeps no archive, uses the blocking downloader over the archive
//! without delays between requests, and needs no database: a crawl shared through PostgreSQL
//! is rebuilt by one process. A URL the archive lacks becomes a bad link `not in the archive`.

use std::path::Path;
use std::sync::Arc;

use crossbeam_channel::Receiver;

use super::{Exit, RebuildArgs, hosts_path, shown};
use crate::crawl::fetch::HttpDownloader;
use crate::crawl::settings::{RawSettings, Settings};
use crate::face::registry::Registry;
use crate::formats::warc::archived::ArchivedWeb;

/// The downloader reading the archive (a component registered for the rebuild).
const ARCHIVE_DT: &str = "archived";
/// The renderer a rebuild registers: rendered DOMs read from the archive (SPEC §18).
const ARCHIVE_RENDERER: &str = "archived-dom";

/// The file that marks a folder as a rebuild's (replaced by the next rebuild into it).
const MARKER: &str = ".rccrawler-rebuild";

/// Runs `rccrawler rebuild`.
pub fn rebuild(args: &RebuildArgs, ctrl_c: Receiver<()>) -> Exit {
    let archived = match ArchivedWeb::open_all(&args.archive) {
        Ok(r) => Arc::new(r),
        Err(e) => {
            eprintln!("error: not an archive rccrawler can read: {e}");
            for folder in &args.archive {
                for inside in ["results/archive", "archive"] {
                    let archive = folder.join(inside);
                    if archive.is_dir() {
                        eprintln!(
                            "note: {} holds an archive: rccrawler rebuild {}",
                            shown(folder).display(),
                            shown(&archive).display()
                        );
                        break;
                    }
                }
            }
            return Exit::BadInput;
        }
    };
    if let Some(input) = crate::base::storage::paths::overlapping(
        &args.out,
        args.archive
            .iter()
            .map(std::path::PathBuf::as_path)
            .chain(archived.folders()),
    ) {
        eprintln!(
            "error: --out {} overlaps the archive {}: a rebuild writes nothing into an archive it reads",
            shown(&args.out).display(),
            shown(input).display()
        );
        return Exit::BadInput;
    }
    if let Err(e) = claim_out(&args.out) {
        eprintln!("error: {e}");
        return Exit::BadInput;
    }
    let mut registry = Registry::builtin();
    let from = Arc::clone(&archived);
    registry.register_downloader(ARCHIVE_DT, move |s| {
        Ok(Arc::new(HttpDownloader::from_archive(
            s,
            Arc::clone(&from),
        )?))
    });
    let from = Arc::clone(&archived);
    registry.register_renderer(ARCHIVE_RENDERER, move |_| {
        Arc::new(crate::crawl::render::archived::ArchivedRenderer::new(
            Arc::clone(&from),
        ))
    });
    let Some(settings) = settings(args, &archived, &registry) else {
        return Exit::BadInput;
    };
    // A body longer than this rebuild reads is cut where its crawl would have cut it.
    archived.limit_bodies(settings.max_body_bytes());
    for p in archived.problems() {
        eprintln!("warning: archive: {p}");
    }
    let Some(sites) = sites(args, &archived, &settings) else {
        return Exit::BadInput;
    };
    let from: Vec<String> = args
        .archive
        .iter()
        .map(|a| shown(a).display().to_string())
        .collect();
    eprintln!(
        "rebuilding from {} ({} URLs archived) into {}",
        from.join(", "),
        archived.url_count(),
        shown(&args.out).display()
    );
    let exit = super::run(&registry, &settings, &sites, ctrl_c);
    // The rebuild's error log names the damage too, beside what the run met.
    if !archived.problems().is_empty()
        && let Ok(mut logs) = crate::crawl::routine::LogFiles::open(
            &settings.logs.common_log,
            &settings.logs.error_log,
        )
    {
        for p in archived.problems() {
            let _ = logs.problem("", "", &format!("archive: {p}"));
        }
        let _ = logs.flush();
    }
    let missing = archived.missing();
    if missing > 0 {
        eprintln!(
            "{missing} requests asked for URLs the archive lacks: bad links \"{}\" (nothing was fetched)",
            crate::crawl::fetch::NOT_ARCHIVED
        );
    }
    exit
}

/// DIR must be empty (or missing), or an earlier rebuild's folder: that one is emptied.
fn claim_out(out: &Path) -> Result<(), String> {
    let entries: Vec<_> = match std::fs::read_dir(out) {
        Ok(d) => d.filter_map(Result::ok).collect(),
        Err(_) => Vec::new(),
    };
    if !entries.is_empty() && !out.join(MARKER).exists() {
        return Err(format!(
            "{} is not empty and not an earlier rebuild: name another --out",
            shown(out).display()
        ));
    }
    for e in entries {
        let path = e.path();
        let removed = if path.is_dir() {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        removed.map_err(|err| format!("cannot empty {}: {err}", shown(out).display()))?;
    }
    std::fs::create_dir_all(out)
        .and_then(|()| std::fs::write(out.join(MARKER), "rccrawler rebuild\n"))
        .map_err(|e| format!("cannot write into {}: {e}", shown(out).display()))
}

/// The rebuild's settings: the file named, else the archive's; its folders in DIR, its
/// answers from `archived`.
fn settings(
    args: &RebuildArgs,
    archived: &Arc<ArchivedWeb>,
    registry: &Registry,
) -> Option<Settings> {
    let (text, path, recorded) = match &args.settings {
        Some(file) => match std::fs::read_to_string(file) {
            Ok(t) => (t, file.clone(), false),
            Err(e) => {
                eprintln!("error: {}: {e}", shown(file).display());
                return None;
            }
        },
        None => {
            let lines: Vec<&str> = archived
                .info()
                .iter()
                .filter(|(n, _)| n == "setting")
                .map(|(_, v)| v.as_str())
                .collect();
            if lines.is_empty() {
                eprintln!("error: the archive records no settings: name them with --settings");
                return None;
            }
            (
                lines.join("\n") + "\n",
                archived.folder().join("warcinfo"),
                true,
            )
        }
    };
    let loaded = RawSettings::from_ini(&text, &path).and_then(|mut raw| {
        // The archive's own record: every key is there because the crawl ran with it.
        if recorded {
            raw.mark_recorded();
        }
        Settings::from_raw(&raw, &args.out)
    });
    let (mut settings, warnings) = match loaded {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}");
            return None;
        }
    };
    for w in warnings {
        eprintln!("{w}");
    }
    // What the rebuild writes stays in DIR, whatever paths the crawl had.
    settings.results.folder = args.out.join("results");
    settings.state.folder = args.out.join("state");
    settings.logs.common_log = args.out.join("logs/common_log.csv");
    settings.logs.error_log = args.out.join("logs/error_log.csv");
    settings.stop.stop_file = args.out.join("stop.txt");
    settings.logs.status_address = None;
    settings.results.archive = false;
    settings.http.recrawl = None;
    settings.http.ca_file = None;
    settings.http.rebuild_from = Some(archived.folder().to_owned());
    // The blocking downloader's walks over the archive; the state is kept in files.
    settings.components.downloader = ARCHIVE_DT.to_owned();
    // Rendered pages' DOMs from the archive's conversion records: no browser.
    settings.components.renderer = ARCHIVE_RENDERER.to_owned();
    settings.components.data_manager = "BMICDM".to_owned();
    match registry.resolve(settings) {
        Ok((settings, more)) => {
            for w in more {
                eprintln!("{w}");
            }
            Some(settings)
        }
        Err(e) => {
            eprintln!("error: {e}");
            None
        }
    }
}

/// The rebuild's sites: the hosts.txt named, else the archive's.
fn sites(
    args: &RebuildArgs,
    archived: &ArchivedWeb,
    settings: &Settings,
) -> Option<Vec<crate::model::site::SiteSpec>> {
    let defaults = settings.sites.defaults;
    let loaded = match &args.hosts {
        Some(file) => {
            let path = hosts_path(file, Some(file));
            crate::formats::hosts::load(&path, defaults).map_err(|e| e.to_string())
        }
        None => {
            let text: String = archived
                .info()
                .iter()
                .filter(|(n, _)| n == "host")
                .map(|(_, v)| format!("{v}\n"))
                .collect();
            crate::formats::hosts::parse(&text, defaults)
                .map_err(|(line, e)| format!("the archive's host line {line}: {e}"))
        }
    };
    match loaded {
        Ok(sites) if !sites.is_empty() => Some(sites),
        Ok(_) => {
            eprintln!(
                "error: no site to rebuild (the archive records none: name them with --hosts)"
            );
            None
        }
        Err(e) => {
            eprintln!("error: {e}");
            None
        }
    }
}

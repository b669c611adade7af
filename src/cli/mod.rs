//! The command line: argument parsing, loading the input files, running a crawl and turning
//! the result into an exit code (SPEC §7: 0 finished or stopped cleanly, 1 runtime failure,
//! 2 invalid input files). `main.rs` only forwards to here.

mod args;
mod replay;

use std::process::ExitCode;

pub use args::{Command, ReplayArgs, USAGE, parse};
pub use replay::replay;

use crossbeam_channel::Receiver;

use crate::app::{AppError, RunReport};
use crate::data::coord::CoordError;
use crate::data::pg::{self, PgError};
use crate::data::{DataError, OpenScopeError, PersistError};
use crate::hosts;
use crate::registry::Registry;
use crate::settings::Settings;
use crate::site::SiteSpec;

/// Exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Finished, or stopped by a finisher or Ctrl+C, with results written.
    Ok = 0,
    /// A runtime failure.
    Failure = 1,
    /// Invalid settings.ini, hosts.txt or arguments.
    BadInput = 2,
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> Self {
        ExitCode::from(e as u8)
    }
}

/// Loads settings.ini, printing its warnings, and checks its component names against
/// `registry`. `Err` is the exit code to use.
pub fn load_settings(path: &std::path::Path, registry: &Registry) -> Result<Settings, Exit> {
    let (settings, mut warnings) = match Settings::load(path) {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("error: {e}");
            return Err(Exit::BadInput);
        }
    };
    let settings = match registry.resolve(settings) {
        Ok((settings, more)) => {
            warnings.extend(more);
            settings
        }
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            return Err(Exit::BadInput);
        }
    };
    for w in warnings {
        if w.is_note() {
            eprintln!("{}", w.0);
        } else {
            eprintln!("warning: {}", w.0);
        }
    }
    Ok(settings)
}

/// Runs a crawl from the input files with the built-in components.
pub fn crawl(
    settings_path: &std::path::Path,
    hosts_path: &std::path::Path,
    ctrl_c: Receiver<()>,
) -> Exit {
    let registry = Registry::builtin();
    let settings = match load_settings(settings_path, &registry) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let sites = match hosts::load(hosts_path, settings.sites.defaults) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::BadInput;
        }
    };
    if sites.is_empty() {
        eprintln!("{} lists no sites: nothing to crawl", hosts_path.display());
    }
    run(&registry, &settings, &sites, ctrl_c)
}

/// Runs a crawl and reports.
pub fn run(
    registry: &Registry,
    settings: &Settings,
    sites: &[SiteSpec],
    ctrl_c: Receiver<()>,
) -> Exit {
    match registry.run(settings, sites, ctrl_c) {
        Ok(report) => {
            print_report(&report);
            if report.is_failure() {
                Exit::Failure
            } else {
                Exit::Ok
            }
        }
        Err(e) if bad_input(&e) => {
            eprintln!("error: {e:#}");
            Exit::BadInput
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            Exit::Failure
        }
    }
}

/// Whether a run that could not start was given bad input (exit code 2): settings that name
/// what cannot be used — a CA file, a database URL that is not one or reaches no server — or
/// a hosts.txt that a shared crawl refuses.
fn bad_input(e: &AppError) -> bool {
    matches!(
        e,
        AppError::Settings(_)
            | AppError::CaFile(_)
            | AppError::Data(DataError::Persist(PersistError::Database(
                PgError::BadUrl { .. } | PgError::Connect { .. }
            )))
            | AppError::Coord(CoordError::Refused { .. })
            | AppError::OpenScope(OpenScopeError::Claim(CoordError::Refused { .. }))
    )
}

/// `rccrawler status`: every scope of the `PgDM` crawl settings.ini names.
pub fn status(settings_path: &std::path::Path) -> Exit {
    let settings = match load_database_settings(settings_path) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let scopes = match pg::status(&settings) {
        Ok(s) => s,
        Err(e) => return database_failure(&e),
    };
    println!(
        "crawl {:?}: {} scopes, {} done",
        settings.database.crawl,
        scopes.len(),
        scopes
            .iter()
            .filter(|s| s.state == pg::ScopeState::Done)
            .count()
    );
    println!(
        "{:<40} {:<8} {:>7} {:>7} {:>7} {:>9}  {:<20} owner (lease left)",
        "scope", "state", "pages", "queued", "fetched", "journal", "last checkpoint"
    );
    let now = std::time::SystemTime::now();
    for s in &scopes {
        let checkpoint = s
            .checkpoint
            .and_then(|t| now.duration_since(t).ok())
            .map_or_else(|| "never".to_owned(), |d| format!("{} s ago", d.as_secs()));
        let owner = match (&s.owner, s.lease_left) {
            (Some(o), Some(left)) if left < 0.0 => format!("{o} (expired {:.0} s ago)", -left),
            (Some(o), Some(left)) => format!("{o} ({left:.0} s)"),
            (Some(o), None) => o.clone(),
            (None, _) => "-".to_owned(),
        };
        println!(
            "{:<40} {:<8} {:>7} {:>7} {:>7} {:>9}  {:<20} {owner}",
            s.origin, s.state, s.pages, s.pending, s.fetched, s.journal_batches, checkpoint
        );
    }
    Exit::Ok
}

/// `rccrawler export`: the results of the `PgDM` crawl's scopes (all, or those named by seed
/// origin, host or folder name), written as a crawling process writes them.
pub fn export(
    settings_path: &std::path::Path,
    to: Option<&std::path::Path>,
    which: &[String],
) -> Exit {
    let mut settings = match load_database_settings(settings_path) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if let Some(to) = to {
        settings.results.folder = to.to_path_buf();
    }
    let (dm, scopes) = match pg::load_scopes(&settings, which) {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Failure;
        }
    };
    if scopes.is_empty() {
        eprintln!("error: no crawled scope matches: nothing to export");
        return Exit::BadInput;
    }
    let registry = Registry::builtin();
    let written = registry
        .unloaders(&settings)
        .and_then(|u| crate::app::write_results(&settings, &dm, &u, &scopes));
    match written {
        Ok(rows) => {
            for r in &rows {
                println!("{:<40} {:>7} pages  {}", r.site, r.pages, r.state);
            }
            println!(
                "{} scopes written to {}",
                rows.len(),
                settings.results.folder.display()
            );
            Exit::Ok
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            Exit::Failure
        }
    }
}

/// settings.ini for `status` and `export`: it must name a database.
fn load_database_settings(path: &std::path::Path) -> Result<Settings, Exit> {
    let settings = load_settings(path, &Registry::builtin())?;
    if settings.database.url.is_empty() {
        eprintln!(
            "error: {}: DatabaseUrl is not set: status and export read a crawl kept in PostgreSQL (DataManager = PgDM)",
            path.display()
        );
        return Err(Exit::BadInput);
    }
    Ok(settings)
}

fn database_failure(e: &PgError) -> Exit {
    eprintln!("error: {e}");
    match e {
        PgError::BadUrl { .. } | PgError::Connect { .. } => Exit::BadInput,
        _ => Exit::Failure,
    }
}

/// Prints the end-of-run summary.
pub fn print_report(r: &RunReport) {
    println!(
        "stopped: {} after {:.1} s",
        r.reason,
        r.elapsed.as_secs_f64()
    );
    println!(
        "{:<40} {:>7} {:>8} {:>8} {:>6} {:>6} {:>5}  state",
        "site", "pages", "arcs", "external", "bad", "dups", "level"
    );
    for s in &r.sites {
        let mut state = s.state.to_string();
        if let Some(to) = s.moved_to() {
            state.push_str(&format!(", moved to {to}/"));
        }
        if !s.reason.is_empty() {
            state.push_str(&format!(" ({})", s.reason));
        }
        println!(
            "{:<40} {:>7} {:>8} {:>8} {:>6} {:>6} {:>5}  {state}",
            s.site, s.pages, s.arcs, s.external_links, s.bad_links, s.duplicates, s.max_level,
        );
    }
    for p in &r.problems {
        eprintln!("result check failed: {p}");
    }
    println!(
        "results in {} (written in {:.1} s)",
        r.result_folder.display(),
        r.unload_elapsed.as_secs_f64()
    );
}

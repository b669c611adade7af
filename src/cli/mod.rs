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
    let settings = match Settings::load(path) {
        Ok((settings, warnings)) => {
            for w in warnings {
                if w.is_note() {
                    eprintln!("{}", w.0);
                } else {
                    eprintln!("warning: {}", w.0);
                }
            }
            settings
        }
        Err(e) => {
            eprintln!("error: {e}");
            return Err(Exit::BadInput);
        }
    };
    if let Err(e) = registry.check(&settings) {
        eprintln!("error: {}: {e}", path.display());
        return Err(Exit::BadInput);
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
    let sites = match hosts::load(hosts_path, settings.site_defaults) {
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
        Err(e @ (AppError::Settings(_) | AppError::CaFile(_))) => {
            eprintln!("error: {e:#}");
            Exit::BadInput
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            Exit::Failure
        }
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

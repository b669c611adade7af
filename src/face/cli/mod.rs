//! The command line: argument parsing, loading the input files, running a crawl and turning
//! the result into an exit code (SPEC §7: 0 finished or stopped cleanly, 1 runtime failure,
//! 2 invalid input files). `main.rs` only forwards to here.

mod args;
mod columns;
mod compare;
mod local_status;
mod network;
mod rebuild;
mod replay;
mod status;

use std::process::ExitCode;

pub use args::{ArgsError, Command, RebuildArgs, ReplayArgs, parse};
pub use compare::compare;
pub use network::network;
pub use rebuild::rebuild;
pub use replay::replay;
pub use status::status;

use std::path::{Path, PathBuf};

use crossbeam_channel::Receiver;

use crate::crawl::app::{AppError, RunReport};
use crate::crawl::data::coord::CoordError;
use crate::crawl::data::pg::PgError;
use crate::crawl::data::{DataError, OpenScopeError, PersistError};
use crate::crawl::settings::Settings;
use crate::face::registry::Registry;
use crate::formats::hosts;
use crate::model::site::SiteSpec;
use columns::Align;

/// Exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Finished, or stopped by a finisher or Ctrl+C, with results written.
    Ok = 0,
    /// A runtime failure.
    Failure = 1,
    /// Invalid settings.ini, hosts.txt or arguments, or folders that cannot be written:
    /// nothing was started.
    BadInput = 2,
    /// The crawl ran but crawled nothing: hosts.txt lists no site, or every site was
    /// unreachable (no page of any site was recorded).
    NothingCrawled = 3,
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
        // The error names settings.ini and its line already.
        Err(e) => {
            eprintln!("error: {e}");
            return Err(Exit::BadInput);
        }
    };
    for w in warnings {
        eprintln!("{w}");
    }
    Ok(settings)
}

/// The hosts.txt of a crawl: the one named with `--hosts`, else the one beside settings.ini.
pub fn hosts_path(settings_path: &Path, named: Option<&Path>) -> PathBuf {
    match named {
        Some(path) => path.to_owned(),
        None => settings_path
            .parent()
            .unwrap_or(Path::new(""))
            .join("hosts.txt"),
    }
}

/// A path as a user can find it: absolute.
fn shown(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_owned())
}

/// Runs a crawl from the input files with the built-in components.
pub fn crawl(
    settings_path: &Path,
    named_hosts: Option<&Path>,
    serve: bool,
    ctrl_c: Receiver<()>,
) -> Exit {
    let registry = Registry::builtin();
    let mut settings = match load_settings(settings_path, &registry) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if serve {
        // The page after the crawl is at the address the crawl's page had: a port the
        // system picks (port 0) is picked now, for both.
        match local_status::fixed_address(settings.logs.status_address) {
            Ok(addr) => settings.logs.status_address = Some(addr),
            Err(e) => {
                eprintln!("error: cannot find a port for the status page: {e}");
                return Exit::BadInput;
            }
        }
    }
    let hosts_path = hosts_path(settings_path, named_hosts);
    let elsewhere = settings_path
        .parent()
        .is_some_and(|p| !p.as_os_str().is_empty());
    if named_hosts.is_none() && elsewhere {
        eprintln!(
            "sites from {} (the hosts.txt beside settings.ini; --hosts names another)",
            hosts_path.display()
        );
    }
    let sites = match hosts::load(&hosts_path, settings.sites.defaults) {
        Ok(s) => s,
        Err(hosts::HostsError::Io { source, .. }) => {
            eprintln!("error: {}: {source}", shown(&hosts_path).display());
            return Exit::BadInput;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::BadInput;
        }
    };
    if sites.is_empty() {
        eprintln!(
            "{} lists no sites: nothing to crawl (exit code {})",
            shown(&hosts_path).display(),
            Exit::NothingCrawled as u8
        );
        return Exit::NothingCrawled;
    }
    let exit = run(&registry, &settings, &sites, ctrl_c.clone());
    if serve && exit != Exit::BadInput {
        local_status::serve_ended(&settings, "", &ctrl_c);
    }
    exit
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
            } else if report.crawled_nothing() {
                eprintln!(
                    "nothing was crawled: no page of any site was recorded (every site unreachable?); exit code {}",
                    Exit::NothingCrawled as u8
                );
                Exit::NothingCrawled
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
/// what cannot be used — a CA file, a database URL that is not one or reaches no server, a
/// state folder another running crawl holds — or a hosts.txt that a shared crawl refuses.
fn bad_input(e: &AppError) -> bool {
    match e {
        AppError::Data(DataError::Persist(PersistError::Backend(b))) => b.is_bad_setting(),
        _ => matches!(
            e,
            AppError::Settings(_)
                | AppError::CaFile(_)
                | AppError::Recrawl { .. }
                | AppError::Data(DataError::Persist(PersistError::Files(
                    crate::base::storage::StateError::Locked { .. }
                )))
                | AppError::Coord(CoordError::Refused { .. } | CoordError::OtherFormat { .. })
                | AppError::OpenScope(OpenScopeError::Claim(
                    CoordError::Refused { .. } | CoordError::OtherFormat { .. }
                ))
        ),
    }
}

/// `rccrawler export`: the results of a saved crawl's scopes (all, or those named by seed
/// origin, host or folder name), written as a crawling process writes them — from the state
/// folder (`BMICDM`) or the database (`PgDM`), whichever settings.ini's `DataManager` keeps it in.
pub fn export(settings_path: &Path, to: Option<&Path>, which: &[String]) -> Exit {
    let registry = Registry::builtin();
    let mut settings = match load_settings(settings_path, &registry) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if let Some(to) = to {
        settings.results.folder = to.to_path_buf();
    }
    let saved = match registry.read_saved(&settings, which) {
        Ok(saved) => saved,
        Err(e) => {
            eprintln!("error: {e:#}");
            return if bad_input(&e) {
                Exit::BadInput
            } else {
                Exit::Failure
            };
        }
    };
    if !saved.unmatched.is_empty() {
        let known: Vec<String> = saved.scopes.iter().map(|(_, o)| o.to_string()).collect();
        eprintln!(
            "error: no saved scope is named {} (a seed origin, its host or its folder name){}",
            saved.unmatched.join(", "),
            if which.len() > saved.unmatched.len() {
                format!("; found: {}", known.join(", "))
            } else {
                String::new()
            }
        );
        return Exit::BadInput;
    }
    if saved.scopes.is_empty() {
        if saved.finished {
            eprintln!(
                "the crawl saved in {} had finished and its results were written: the state keeps nothing to export",
                settings.state.folder.display()
            );
        } else {
            eprintln!("error: no crawled scope: nothing to export");
        }
        return Exit::NothingCrawled;
    }
    if let Err(e) = settings.check_folders() {
        eprintln!("error: {e}");
        return Exit::BadInput;
    }
    let network = match network::spec(&registry, &settings, settings_path, None) {
        Ok(spec) => spec,
        Err(code) => return code,
    };
    let written = registry.unloaders(&settings).and_then(|u| {
        crate::crawl::app::write_results(&settings, &saved.data, &u, &saved.scopes, Some(&network))
    });
    // The folder records the crawl as a crawl's does (`rccrawler compare` reads it): these
    // settings, and the sites of the hosts.txt beside them when it reads.
    let sites =
        hosts::load(&hosts_path(settings_path, None), settings.sites.defaults).unwrap_or_default();
    let written = written.and_then(|rows| {
        crate::crawl::settings::record::write(&settings.results.folder, &settings, &sites)
            .map(|()| rows)
            .map_err(|source| AppError::ResultsFolder {
                folder: settings.results.folder.clone(),
                source,
            })
    });
    match written {
        Ok(rows) => {
            let w = rows
                .iter()
                .map(|r| r.site.chars().count())
                .max()
                .unwrap_or(0);
            for r in &rows {
                println!("{:<w$} {:>7} pages  {}", r.site, r.pages, r.state);
            }
            println!(
                "{} written to {}",
                crate::base::words::count(rows.len() as u64, "scope"),
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

/// `rccrawler report`: writes report.html into `results` (or settings.ini's `ResultFolder`;
/// without settings.ini, `results`).
pub fn report(settings_path: &Path, results: Option<&Path>) -> Exit {
    let settings = if settings_path.exists() {
        match Settings::load(settings_path) {
            Ok((s, _)) => Some(s),
            Err(e) => {
                eprintln!("error: {e}");
                return Exit::BadInput;
            }
        }
    } else {
        None
    };
    let folder = match (results, &settings) {
        (Some(r), _) => r.to_path_buf(),
        (None, Some(s)) => s.results.folder.clone(),
        (None, None) => PathBuf::from("results"),
    };
    let registry = Registry::builtin();
    let options = match settings.as_ref().map(|s| (s, registry.implied(s))) {
        Some((s, Ok(implied))) => {
            crate::crawl::unload::report_options(s, implied.scopes_span_hosts)
        }
        Some((_, Err(e))) => {
            eprintln!("error: {e}");
            return Exit::BadInput;
        }
        None => Default::default(),
    };
    match crate::analysis::report::write_report(&folder, &options) {
        Ok(facts) => {
            println!(
                "report of {} site{}: {} ({:.1} MB, {:.1} s)",
                facts.sites,
                if facts.sites == 1 { "" } else { "s" },
                facts.path.display(),
                facts.bytes as f64 / 1e6,
                facts.seconds
            );
            Exit::Ok
        }
        Err(e @ crate::analysis::report::ReportError::Summary(_)) => {
            eprintln!("error: {e}");
            Exit::BadInput
        }
        Err(e) => {
            eprintln!("error: {e}");
            Exit::Failure
        }
    }
}

/// `status` of a `PgDM` crawl: settings.ini must name its database.
fn needs_database(path: &std::path::Path, settings: &Settings) -> Result<(), Exit> {
    if settings.database.url.is_empty() {
        eprintln!(
            "error: {}: DatabaseUrl is not set: DataManager = PgDM keeps the crawl in PostgreSQL",
            path.display()
        );
        return Err(Exit::BadInput);
    }
    Ok(())
}

fn database_failure(e: &PgError) -> Exit {
    eprintln!("error: {e}");
    if e.is_bad_setting() {
        Exit::BadInput
    } else {
        Exit::Failure
    }
}

/// Prints the end-of-run summary (and the result checks that failed, to stderr).
pub fn print_report(r: &RunReport) {
    // Line by line: the table of a crawl of thousands of sites is not one string in memory.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    // A closed stdout (`| head`) ends the table quietly; the results are written already.
    let _ = write_report(r, &mut out).and_then(|()| std::io::Write::flush(&mut out));
    for p in &r.problems {
        eprintln!("result check failed: {p}");
    }
}

/// The end-of-run summary: how the run ended, a table of the sites (its first column as wide
/// as the longest site name, so the columns line up whatever the names), where the results
/// are.
fn write_report(r: &RunReport, out: &mut impl std::io::Write) -> std::io::Result<()> {
    match (&r.reason, r.stopped_after) {
        (reason, _) if reason.is_complete() => {
            writeln!(out, "finished after {:.1} s", r.elapsed.as_secs_f64())
        }
        (reason, Some(at)) => writeln!(
            out,
            "stopped ({reason}) after {:.1} s; state and results saved {:.1} s after the start",
            at.as_secs_f64(),
            r.elapsed.as_secs_f64()
        ),
        (reason, None) => writeln!(
            out,
            "stopped ({reason}) after {:.1} s",
            r.elapsed.as_secs_f64()
        ),
    }?;
    if r.site_count == 0 {
        // No table of no site (issue 68): say why there is none.
        if r.shared {
            writeln!(
                out,
                "this process crawled no site: the other processes took every site"
            )?;
        }
    } else {
        write_sites(r, out)?;
        if r.site_count > r.sites.len() {
            let more = r.site_count - r.sites.len();
            writeln!(
                out,
                "… and {more} more site{} (summary.csv lists every site)",
                if more == 1 { "" } else { "s" }
            )?;
        }
    }
    writeln!(
        out,
        "results in {} (written in {:.1} s)",
        r.result_folder.display(),
        r.unload_elapsed.as_secs_f64()
    )?;
    // Only a report this run wrote (one left by an earlier run with ReportRU would mislead).
    let report = r.result_folder.join(crate::analysis::report::REPORT_FILE);
    let written_now = std::fs::metadata(&report)
        .and_then(|m| m.modified())
        .is_ok_and(|t| t.elapsed().is_ok_and(|age| age <= r.elapsed));
    if written_now {
        writeln!(out, "report: {}", report.display())?;
    }
    Ok(())
}

/// The table of the sites, its first column as wide as the longest site name.
fn write_sites(r: &RunReport, out: &mut impl std::io::Write) -> std::io::Result<()> {
    let rows: Vec<Vec<String>> = r
        .sites
        .iter()
        .map(|s| {
            let mut state = s.state.to_string();
            if let Some(to) = s.moved_to() {
                state.push_str(&format!(", moved to {to}/"));
            }
            if !s.reason.is_empty() {
                state.push_str(&format!(" ({})", s.reason));
            }
            vec![
                crate::base::words::shown_origin(&s.site).into_owned(),
                s.pages.to_string(),
                s.arcs.to_string(),
                s.external_links.to_string(),
                s.bad_links.to_string(),
                s.duplicates.to_string(),
                s.max_level.to_string(),
                state,
            ]
        })
        .collect();
    let columns = [
        ("site", Align::Left),
        ("pages", Align::Right),
        ("arcs", Align::Right),
        ("external", Align::Right),
        ("bad", Align::Right),
        ("dups", Align::Right),
        ("level", Align::Right),
        ("state", Align::Left),
    ];
    for line in columns::lines(&columns, &rows) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::stop::StopReason;
    use crate::crawl::data::summary::tests::sample_row;

    fn report(shown: usize, count: usize) -> RunReport {
        RunReport {
            reason: StopReason::WorkDone,
            sites: (0..shown)
                .map(|i| sample_row(&format!("http://s{i}.test")))
                .collect(),
            site_count: count,
            sites_with_pages: count,
            problems: Vec::new(),
            elapsed: std::time::Duration::from_secs(1),
            stopped_after: None,
            unload_elapsed: std::time::Duration::ZERO,
            result_folder: PathBuf::from("results"),
            shared: false,
        }
    }

    /// A crawl of a million sites prints the first `SHOWN_SITES` rows and says where the
    /// others are, not a million lines.
    #[test]
    fn the_console_table_lists_the_first_sites_and_counts_the_others() {
        let mut out = Vec::new();
        write_report(&report(3, 1_000_003), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.matches("http://s").count(), 3, "{text}");
        assert!(
            text.contains("… and 1000000 more sites (summary.csv lists every site)"),
            "{text}"
        );
        let mut out = Vec::new();
        write_report(&report(3, 3), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(!text.contains("more site"), "{text}");
        let mut out = Vec::new();
        write_report(&report(0, 0), &mut out).unwrap();
        assert!(!String::from_utf8(out).unwrap().contains("site "));
    }
}

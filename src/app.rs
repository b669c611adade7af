//! The application manager (`TextFileAM`): builds the crawl from settings.ini, hosts.txt and
//! the saved state, runs the threads, saves the state and unloads the results.
//!
//! ```text
//!             claim                FetchTask                 Fetched (bounded)
//! DataManager ─────▶ Dispatcher ─────────────▶ Downloader ×D ─────────────────▶ Parser ×N
//!      ▲             (politeness,   acquire()      │ non-page outcomes              │
//!      │              Scheduler)                   ▼                                │
//!      └────────────────────────────── commit(Outcome) ◀────────────────────────────┘
//!   every thread ──LogEvent (bounded)──▶ Routine (logs, progress, finishers, Ctrl+C) ──▶ Stop
//!   state saver: journal flushed every 100 ms, fsynced every second, snapshots
//! ```
//!
//! Teardown order (SPEC §8): a finisher or Ctrl+C requests the stop; downloaders finish or
//! abandon their requests, parsers drain what was fetched; every thread is joined; the state
//! is saved; then the results are written.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, bounded};
use parking_lot::Mutex;
use thiserror::Error;

use crate::context::{Context, Log};
use crate::data::{
    DataError, DataManager, InMemoryDataManager, Persist, ScopeId, ScopeLimits, SiteId,
};
use crate::fetch::{HttpClient, run_downloader};
use crate::finish::finishers_for;
use crate::logs::LogFiles;
use crate::message::Fetched;
use crate::parse::worker::run_parser;
use crate::routine::run_routine;
use crate::schedule::{Dispatcher, scheduler_for};
use crate::settings::Settings;
use crate::settings::registry::FinisherKind;
use crate::site::SiteSpec;
use crate::sites::Sites;
use crate::state::{Recovered, StateError, StateStore, run_state_saver};
use crate::stop::{Stop, StopReason};
use crate::unload::summary::{SiteState, SiteSummary, write_summary};
use crate::unload::{UnloadError, unloaders_for};
use crate::url_filter::SeedSiteOnly;

/// A run could not complete its work.
#[derive(Debug, Error)]
pub enum AppError {
    /// The log files could not be opened.
    #[error("cannot open the log files: {0}")]
    Logs(#[source] std::io::Error),
    /// The stop file could not be removed.
    #[error("cannot remove the leftover stop file {}: {source}", path.display())]
    StopFile {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The crawl's data could not be recorded or saved.
    #[error(transparent)]
    Data(#[from] DataError),
    /// The state folder cannot be used.
    #[error(transparent)]
    State(#[from] StateError),
    /// The saved state does not fit together.
    #[error("{}: {error}; move the state folder away to start afresh", dir.display())]
    Recover {
        /// The state folder.
        dir: PathBuf,
        /// What is wrong.
        error: DataError,
    },
    /// A result file could not be written.
    #[error(transparent)]
    Unload(#[from] UnloadError),
    /// A thread could not be started.
    #[error("cannot start a thread: {0}")]
    Spawn(#[source] std::io::Error),
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// Why it stopped.
    pub reason: StopReason,
    /// One row per site, as in summary.csv.
    pub sites: Vec<SiteSummary>,
    /// Wall time.
    pub elapsed: Duration,
    /// Of which writing the result files.
    pub unload_elapsed: Duration,
    /// Where results were written.
    pub result_folder: PathBuf,
}

impl RunReport {
    /// Whether the run ended because of a failure (exit code 1) rather than a finisher.
    pub fn is_failure(&self) -> bool {
        matches!(
            self.reason,
            StopReason::WorkerPanicked | StopReason::Failed(_)
        )
    }
}

/// The application manager.
#[derive(Debug)]
pub struct App {
    settings: Settings,
    hosts: Vec<SiteSpec>,
}

struct ScopeEntry {
    scope: ScopeId,
    /// Its seed site in this run (none: removed from hosts.txt, saved data only).
    site: Option<SiteId>,
    name: String,
    folder: String,
}

impl App {
    /// A crawl of `hosts` with `settings`.
    pub fn new(settings: Settings, hosts: Vec<SiteSpec>) -> Self {
        App { settings, hosts }
    }

    /// Runs the crawl until a finisher fires or `ctrl_c` receives, saves the state, then
    /// writes the results.
    pub fn run(&self, ctrl_c: Receiver<()>) -> Result<RunReport, AppError> {
        let started = Instant::now();
        let settings = &self.settings;
        self.remove_leftover_stop_file()?;
        let dm = self.open_data()?;
        let logs =
            LogFiles::open(&settings.common_log, &settings.error_log).map_err(AppError::Logs)?;
        let stop = Arc::new(Stop::new());
        let scheduler = scheduler_for(settings);
        let down_after = settings.site_down_after;
        let dispatcher = Dispatcher::new(
            Arc::clone(&dm),
            scheduler,
            Arc::clone(&stop),
            down_after,
            page_buffer(settings),
        );
        let sites = Sites::new();
        let mut scopes = Vec::new();
        for spec in &self.hosts {
            let site_id = SiteId(sites.len() as u32);
            let limits = ScopeLimits {
                max_level: spec.max_level,
                max_pages: settings.max_pages_per_site,
            };
            let (scope, _) = dm.open_scope(spec.origin.clone(), site_id, limits)?;
            let entry = sites.add(spec.clone(), scope);
            dispatcher.add_site(&entry);
            let (name, folder) = (entry.origin.to_string(), entry.origin.folder_name());
            scopes.push(ScopeEntry {
                scope,
                site: Some(entry.id),
                name,
                folder,
            });
        }
        for info in dm.scopes().into_iter().filter(|s| !s.active) {
            eprintln!(
                "{} is no longer in hosts.txt: its saved data is kept and reported as removed",
                info.origin
            );
            let (name, folder) = (info.origin.to_string(), info.origin.folder_name());
            scopes.push(ScopeEntry {
                scope: info.id,
                site: None,
                name,
                folder,
            });
        }
        dedupe_folders(&mut scopes);
        let ctx = Context {
            settings: settings.clone(),
            sites,
            dm: Arc::clone(&dm),
            dispatcher,
            client: HttpClient::new(settings),
            stop: Arc::clone(&stop),
            filter: Box::new(SeedSiteOnly),
            started,
        };
        let leftover = self.run_threads(&ctx, ctrl_c, logs, &scopes)?;
        let halted: Vec<Option<&'static str>> = scopes
            .iter()
            .map(|s| s.site.and_then(|site| ctx.dispatcher.suspended(site)))
            .collect();
        // Pages fetched but never parsed go back to their frontiers.
        for fetched in leftover {
            dm.release(&fetched.task);
        }
        let reason = stop.reason().unwrap_or(StopReason::WorkDone);
        let finished =
            reason.is_complete() && scopes.iter().all(|s| dm.progress(s.scope).pending == 0);
        dm.persist(Persist::Checkpoint { finished })?;
        let unload_started = Instant::now();
        let sites = self.unload(&*dm, &scopes, &halted)?;
        let result_folder = settings.result_folder.clone();
        Ok(RunReport {
            reason,
            sites,
            elapsed: started.elapsed(),
            unload_elapsed: unload_started.elapsed(),
            result_folder,
        })
    }

    /// The data manager, with the saved state recovered when `SaveState = 1`.
    fn open_data(&self) -> Result<Arc<dyn DataManager>, AppError> {
        let settings = &self.settings;
        if !settings.save_state {
            return Ok(Arc::new(InMemoryDataManager::new()));
        }
        let dir = &settings.state_folder;
        let (mut store, mut recovered) = StateStore::open(dir)?;
        if recovered.finished {
            eprintln!(
                "the crawl saved in {} had finished: starting a fresh crawl",
                dir.display()
            );
            store.wipe()?;
            recovered = Recovered {
                fresh: true,
                ..Recovered::default()
            };
        }
        let fresh = recovered.fresh;
        if recovered.dropped_bytes > 0 {
            eprintln!(
                "{}: the last {} bytes of the journal were unfinished or damaged (the crawl was killed); \
                 they were cut off and that work is done again",
                dir.display(),
                recovered.dropped_bytes
            );
        }
        let dm = InMemoryDataManager::with_state(store, recovered).map_err(|error| {
            AppError::Recover {
                dir: dir.clone(),
                error,
            }
        })?;
        if !fresh {
            let (mut pages, mut pending) = (0, 0);
            for info in dm.scopes() {
                let p = dm.progress(info.id);
                pages += p.pages;
                pending += p.pending;
            }
            eprintln!(
                "continuing the crawl saved in {}: {pages} pages recorded, {pending} URLs still to fetch",
                dir.display()
            );
        }
        Ok(Arc::new(dm))
    }

    fn remove_leftover_stop_file(&self) -> Result<(), AppError> {
        let path = &self.settings.stop_file;
        if self.settings.finishers.contains(&FinisherKind::StopFile) && path.exists() {
            std::fs::remove_file(path).map_err(|source| AppError::StopFile {
                path: path.clone(),
                source,
            })?;
            eprintln!(
                "removed the stop file {} left over from an earlier run",
                path.display()
            );
        }
        Ok(())
    }

    fn run_threads(
        &self,
        ctx: &Context,
        ctrl_c: Receiver<()>,
        logs: LogFiles,
        scopes: &[ScopeEntry],
    ) -> Result<Vec<Fetched>, AppError> {
        let settings = &self.settings;
        let (page_tx, page_rx) = bounded::<Fetched>(page_buffer(settings));
        let (log_tx, log_rx) = bounded(65_536);
        let finishers = finishers_for(settings, ctx.started);
        let names: Vec<(ScopeId, String)> = scopes
            .iter()
            .filter(|s| s.site.is_some())
            .map(|s| (s.scope, s.name.clone()))
            .collect();
        let leftover_rx = page_rx.clone();
        let spawned = thread::scope(|s| -> Result<(), AppError> {
            let mut handles = Vec::new();
            let names = &names;
            let routine = thread::Builder::new()
                .name("routine".into())
                .spawn_scoped(s, move || {
                    run_routine(ctx, log_rx, ctrl_c, finishers, logs, names)
                });
            handles.push(routine.map_err(|e| spawn_failed(ctx, e))?);
            if ctx.dm.saves_state() {
                let every = settings.checkpoint_interval;
                let saver = thread::Builder::new()
                    .name("state-saver".into())
                    .spawn_scoped(s, move || run_state_saver(ctx, every));
                handles.push(saver.map_err(|e| spawn_failed(ctx, e))?);
            }
            for i in 0..settings.downloading_threads.get() {
                let (tx, log) = (page_tx.clone(), Log(log_tx.clone()));
                let h = thread::Builder::new()
                    .name(format!("downloader-{i}"))
                    .spawn_scoped(s, move || run_downloader(ctx, tx, log));
                handles.push(h.map_err(|e| spawn_failed(ctx, e))?);
            }
            for i in 0..settings.parsing_threads.get() {
                let (rx, log) = (page_rx.clone(), Log(log_tx.clone()));
                let h = thread::Builder::new()
                    .name(format!("parser-{i}"))
                    .spawn_scoped(s, move || run_parser(ctx, rx, log));
                handles.push(h.map_err(|e| spawn_failed(ctx, e))?);
            }
            drop((page_tx, page_rx, log_tx));
            for h in handles {
                if h.join().is_err() {
                    ctx.stop.request(StopReason::WorkerPanicked);
                }
            }
            Ok(())
        });
        spawned?;
        Ok(leftover_rx.try_iter().collect())
    }

    /// Writes every scope's results, several scopes at once: a crawl of hundreds of small
    /// sites otherwise spent a third of its time waiting for one site's files to reach the
    /// disk after another. A scope whose files cannot be written does not stop the others;
    /// the first such error is returned once all are done.
    fn unload(
        &self,
        dm: &dyn DataManager,
        scopes: &[ScopeEntry],
        halted: &[Option<&'static str>],
    ) -> Result<Vec<SiteSummary>, AppError> {
        let unloaders = unloaders_for(&self.settings);
        let rows: Mutex<Vec<Option<SiteSummary>>> = Mutex::new(vec![None; scopes.len()]);
        let failed: Mutex<Option<UnloadError>> = Mutex::new(None);
        let next = AtomicUsize::new(0);
        let work = || {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let (Some(info), Some(&halt)) = (scopes.get(i), halted.get(i)) else {
                    break;
                };
                let folder = self.settings.result_folder.join(&info.folder);
                let progress = dm.progress(info.scope);
                let mut result = Ok(());
                dm.with_graph(info.scope, &mut |g| {
                    for u in &unloaders {
                        if result.is_ok() {
                            result = u.unload(g, &folder);
                        }
                    }
                    let seconds = progress.active.as_secs_f64();
                    let mut row =
                        SiteSummary::of(g, info.folder.clone(), progress.pending, seconds);
                    if info.site.is_none() {
                        row.state = SiteState::Removed;
                    } else if row.state == SiteState::Stopped {
                        row.state = match halt {
                            Some("down") => SiteState::Down,
                            Some("page limit") => SiteState::PageLimit,
                            _ => SiteState::Stopped,
                        };
                    }
                    rows.lock()[i] = Some(row);
                });
                if let Err(e) = result {
                    failed.lock().get_or_insert(e);
                }
            }
        };
        thread::scope(|s| {
            for _ in 1..unload_workers(scopes.len()) {
                // A worker that cannot start leaves its share to the others.
                let _ = thread::Builder::new()
                    .name("unload-scopes".into())
                    .spawn_scoped(s, work);
            }
            work();
        });
        if let Some(e) = failed.into_inner() {
            return Err(e.into());
        }
        let rows: Vec<SiteSummary> = rows.into_inner().into_iter().flatten().collect();
        let path = self.settings.result_folder.join("summary.csv");
        write_summary(&path, &rows).map_err(|source| UnloadError { path, source })?;
        Ok(rows)
    }
}

/// Scopes written at once: writing results waits on the disk more than on the CPU (each
/// file is synced), so more than the cores, but no more than there are scopes.
fn unload_workers(scopes: usize) -> usize {
    let cores = thread::available_parallelism().map_or(1, usize::from);
    (cores * 2).max(4).min(scopes.max(1))
}

/// Pages downloading or waiting for a parser at most: every downloader busy, and two pages
/// queued per parser so that no parser waits for the network. It is also the channel's
/// capacity, so handing a page to the parsers never blocks.
fn page_buffer(settings: &Settings) -> usize {
    settings.downloading_threads.get() + 2 * settings.parsing_threads.get()
}

fn spawn_failed(ctx: &Context, e: std::io::Error) -> AppError {
    ctx.stop
        .request(StopReason::Failed(format!("cannot start a thread: {e}")));
    AppError::Spawn(e)
}

/// `http://x` and `https://x` would share a folder name: later ones get the scheme appended.
fn dedupe_folders(scopes: &mut [ScopeEntry]) {
    for i in 1..scopes.len() {
        if scopes[..i].iter().any(|s| s.folder == scopes[i].folder) {
            let scheme = scopes[i]
                .name
                .split(':')
                .next()
                .unwrap_or("site")
                .to_owned();
            scopes[i].folder = format!("{}_{scheme}", scopes[i].folder);
        }
    }
}

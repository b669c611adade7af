//! The application manager (the paper's ApplicationManager): what runs a crawl from start to
//! end. [`TextFileManager`] (`TextFileAM`) crawls the sites of hosts.txt in one process.
//!
//! A manager receives the validated settings, the sites and the other components built by
//! the registry ([`Components`]), and is responsible for the run's order (SPEC §8): starting
//! the finishers, registering the sites, running the [engine](crate::crawl::engine) until a finisher
//! fires or Ctrl+C arrives, saving the state, then writing the results.

mod archive;
mod results_folder;
mod retire;
mod seeds;
mod text_file;
mod unload_all;
mod window;

use std::fmt::Debug;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crossbeam_channel::Receiver;
use thiserror::Error;

pub use text_file::TextFileManager;
pub use unload_all::SHOWN_SITES;

use crate::base::stop::StopReason;
use crate::crawl::data::coord::{CoordError, Coordinator};
use crate::crawl::data::summary::SiteSummary;
use crate::crawl::data::{DataError, DataManager, OpenScopeError, PersistError};
use crate::crawl::engine::SpawnError;
use crate::crawl::fetch::{CaFileError, Downloader};
use crate::crawl::finish::{Finisher, FinisherError};
use crate::crawl::parse::PageParser;
use crate::crawl::routine::Routine;
use crate::crawl::schedule::Scheduler;
use crate::crawl::settings::{Settings, SettingsError};
use crate::crawl::unload::{UnloadError, Unloader};
use crate::model::robots::RobotsParse;
use crate::model::site::SiteSpec;
use crate::model::url_filter::UrlFilter;

/// The components of one crawl besides its manager, built from settings.ini by the registry.
#[derive(Debug)]
pub struct Components {
    /// `DataManager`, opened (saved state recovered).
    pub data: Arc<dyn DataManager>,
    /// How `DataManager` shares the crawl with other processes.
    pub coordinator: Arc<dyn Coordinator>,
    /// `DownloadingThread`.
    pub downloader: Arc<dyn Downloader>,
    /// The same downloader when it is the event-driven one (`DT1`): the engine runs its loop
    /// and passes the blocking threads only what the loop passes on.
    pub evented: Option<Arc<crate::crawl::fetch::evented::EventedDownloader>>,
    /// `ParsingThread`.
    pub parser: Arc<dyn PageParser>,
    /// `RoutineThread`.
    pub routine: Arc<dyn Routine>,
    /// `UrlAnalyzingThread`.
    pub url_filter: Box<dyn UrlFilter>,
    /// `RobotsTxtClass`.
    pub robots: RobotsParse,
    /// `ApplicationFinishers`, not started yet.
    pub finishers: Vec<Box<dyn Finisher>>,
    /// `ResultUnloaders`.
    pub unloaders: Vec<Box<dyn Unloader>>,
    /// `Scheduler`.
    pub scheduler: Box<dyn Scheduler>,
    /// `Renderer`, when `Render` is `auto` or `all`.
    pub renderer: Option<Arc<dyn crate::crawl::render::Renderer>>,
}

/// The `ApplicationManager` component: runs one crawl of `hosts` with `settings` and the
/// `parts` settings.ini chose, until a finisher fires or `ctrl_c` receives a message; saves
/// the state and writes the results before it returns. Called once, on the main thread.
pub trait ApplicationManager: Send + Sync + Debug {
    /// Runs the crawl.
    fn run(
        &self,
        settings: &Settings,
        hosts: &[SiteSpec],
        parts: Components,
        ctrl_c: Receiver<()>,
    ) -> Result<RunReport, AppError>;
}

/// Writes the results of saved `scopes` (seed origins given) with `unloaders`, and
/// summary.csv, into `ResultFolder`: `rccrawler export` of a crawl kept in a database.
pub fn write_results(
    settings: &Settings,
    dm: &dyn DataManager,
    unloaders: &[Box<dyn Unloader>],
    scopes: &[(crate::base::ids::ScopeId, crate::model::site::Origin)],
    network: Option<&crate::analysis::network::NetworkSpec>,
) -> Result<Vec<SiteSummary>, AppError> {
    let mut rows: Vec<unload_all::ScopeRow> = scopes
        .iter()
        .map(|(scope, origin)| {
            unload_all::ScopeRow::new(*scope, Some(crate::base::ids::SiteId::NONE), origin)
        })
        .collect();
    unload_all::ScopeRow::dedupe_folders(&mut rows);
    for (i, row) in rows.iter_mut().enumerate() {
        row.order = i;
    }
    // Every scope is written by this call: `now` holds every row.
    let rows = unload_all::unload_all(settings, dm, unloaders, &rows, (&[], &[]))?.now;
    unload_all::derive(settings, unloaders, network, rows.len())?;
    Ok(rows)
}

/// A run could not complete its work.
#[derive(Debug, Error)]
pub enum AppError {
    /// A component named in settings.ini is not registered.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// `CaFile` cannot be used.
    #[error(transparent)]
    CaFile(#[from] CaFileError),
    /// The log files could not be opened.
    #[error("cannot open the log files: {0}")]
    Logs(#[source] std::io::Error),
    /// A finisher could not get ready.
    #[error(transparent)]
    Finisher(#[from] FinisherError),
    /// The crawl's data could not be recorded, or the saved state recovered.
    #[error(transparent)]
    Data(#[from] DataError),
    /// A scope could not be opened.
    #[error(transparent)]
    OpenScope(#[from] OpenScopeError),
    /// Sharing the crawl with other processes failed.
    #[error(transparent)]
    Coord(#[from] CoordError),
    /// The crawl's data could not be saved.
    #[error("cannot save the crawl state: {0}")]
    Persist(#[from] PersistError),
    /// A result file could not be written.
    #[error(transparent)]
    Unload(#[from] UnloadError),
    /// A thread could not be started.
    #[error(transparent)]
    Spawn(#[from] SpawnError),
    /// Another crawl's results could not be moved out of the results folder.
    #[error("cannot make {} this crawl's results folder: {source}", folder.display())]
    ResultsFolder {
        /// `ResultFolder`.
        folder: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// The earlier archive of a re-crawl (`Recrawl`) could not be read.
    #[error("Recrawl = {}: not an archive rccrawler can read: {source}", folder.display())]
    Recrawl {
        /// `Recrawl`.
        folder: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// The archive (`Archive = warc`) could not be opened or finished.
    #[error("cannot write the archive in {}: {source}", folder.display())]
    Archive {
        /// The archive folder.
        folder: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// Why it stopped.
    pub reason: StopReason,
    /// One row per site, as in summary.csv: its first [`SHOWN_SITES`] rows (the console
    /// lists no more; summary.csv lists every site).
    pub sites: Vec<SiteSummary>,
    /// The sites summary.csv lists.
    pub site_count: usize,
    /// Of which with at least one page recorded.
    pub sites_with_pages: usize,
    /// Failed result checks (`TestRU`): any makes the run a failure.
    pub problems: Vec<String>,
    /// Wall time, from the start to the end of the run.
    pub elapsed: Duration,
    /// When the stop was asked for (a finisher, Ctrl+C), from the start.
    pub stopped_after: Option<Duration>,
    /// Of which writing the result files.
    pub unload_elapsed: Duration,
    /// Where results were written.
    pub result_folder: PathBuf,
    /// The crawl is shared with other processes (`PgDM`) and had work when this process
    /// started: a run that crawled no site left them all to the others.
    pub shared: bool,
}

impl RunReport {
    /// Whether the crawl finished without recording a page of any site (every site
    /// unreachable, down or blocked by robots.txt before its first page): exit code 3.
    pub fn crawled_nothing(&self) -> bool {
        self.reason.is_complete() && self.site_count > 0 && self.sites_with_pages == 0
    }

    /// Whether the run failed (exit code 1): it ended because of a failure rather than a
    /// finisher, or a result check failed.
    pub fn is_failure(&self) -> bool {
        matches!(
            self.reason,
            StopReason::WorkerPanicked | StopReason::Failed(_)
        ) || !self.problems.is_empty()
    }
}

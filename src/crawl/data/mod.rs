//! The data layer: every URL, page and link of every crawl scope, the frontiers and the final
//! graphs, and where they are saved and how processes share them. Three jobs, three traits:
//!
//! - [`DataManager`] (the paper's DataManager) — a scope's data: parsers and downloaders commit
//!   outcomes to it, the dispatcher takes tasks from it, the unloaders read graphs from it. One
//!   implementation, [`InMemoryDataManager`]: every scope in memory while it is crawled.
//! - [`persist::Persistence`] — where a scope's journal and snapshots go: nowhere
//!   ([`persist::NoStore`]), the state folder ([`persist::FileStore`]) or PostgreSQL
//!   ([`pg::PgStore`]).
//! - [`coord::Coordinator`] — sharing a crawl between processes (seeds, scope claims, hand-back,
//!   budget blocks): [`coord::Solo`] for one process, [`pg::PgCoordinator`] for many.
//!
//! settings.ini's `DataManager` names a pairing: `BMICDM` is the in-memory data manager over the
//! state folder with [`coord::Solo`] ([`open_in_memory`]); `PgDM` is the same data manager over
//! PostgreSQL with [`pg::PgCoordinator`] ([`open_pg`]).
//!
//! Inside: `scope` holds one scope's records (commit, levels, graph, yields, snapshot,
//! reapply); `journal` and `records` are the journal's bytes and values; [`interner`] and
//! [`frontier`] the scope's string table and queues.

pub mod columns;
pub mod coord;
mod error;
pub mod frontier;
pub mod interner;
mod journal;
mod memory;
mod open;
mod park_file;
mod parking;
pub mod persist;
pub mod pg;
mod records;
pub mod retired;
mod scope;
pub mod summary;
pub mod text_spool;

use std::fmt::Debug;
use std::sync::Arc;

pub use error::{BackendError, DataError, PersistError, RetireError};
pub use memory::{GraphHandle, InMemoryDataManager};
pub use open::{
    DataLayer, OpenScopeError, SavedCrawl, names_scope, open_in_memory, open_pg, read_database,
    read_state_folder,
};
pub use retired::RetiredScope;
pub use scope::Effects;
pub use scope::graph::{self, SiteGraph};
pub use scope::sitemap_rows::{SitemapCounts, SitemapRow};
pub use scope::traps::{TrapCut, TrapRules};
pub use scope::yields::YieldRow;
use summary::SiteSummary;

#[cfg(test)]
mod tests;

use crate::base::ids::{ScopeId, SiteId};
use crate::base::storage::Durability;
use crate::crawl::message::{FetchTask, HopClaim, Outcome};
use crate::model::bandit::Yield;
use crate::model::site::Origin;
use crate::model::url_norm::NormUrl;
use coord::ScopeClaim;

/// Figures for the progress line and the summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// HTML pages recorded (aliases included).
    pub pages: usize,
    /// URLs queued or being fetched.
    pub pending: usize,
    /// Outcomes recorded (pages, failures, redirects).
    pub outcomes: u64,
    /// Time spent on this scope (first claim to latest commit).
    pub active: std::time::Duration,
}

/// Limits of one crawl scope, from hosts.txt and settings.ini.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScopeLimits {
    /// `maxCrawlLevel`.
    pub max_level: u32,
    /// `MaxPagesPerSite` (0: none).
    pub max_pages: u32,
    /// `MaxUrlsPerSite` (0: none).
    pub max_urls: u32,
    /// `TrapLevels` and `TrapPatternUrls`.
    pub traps: TrapRules,
    /// `FollowNofollow = no`: links carrying `nofollow`, `ugc` or `sponsored`, and every link
    /// of a page whose robots directives say `nofollow`, give their targets no level (they
    /// are still recorded).
    pub obey_nofollow: bool,
}

/// Whether `open_scope` continued saved work or started anew.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopeOpen {
    /// A new crawl of the site, its home page queued.
    Created,
    /// The site's saved crawl continues.
    Resumed,
    /// An earlier run finished it and wrote its results: it is not crawled again (its
    /// summary.csv row is kept).
    Finished,
}

/// A scope known to the data manager.
#[derive(Debug, Clone, PartialEq)]
pub struct ScopeInfo {
    /// Its id.
    pub id: ScopeId,
    /// Its seed site.
    pub origin: Origin,
    /// Opened by this run (listed in hosts.txt) and being crawled; inactive ones are saved
    /// data only, suspended, or retired.
    pub active: bool,
    /// Written and released (by this run or an earlier one): what is kept of it.
    pub retired: Option<Arc<RetiredScope>>,
}

/// One fetch of the crawl as the page budget counts it (SPEC §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fetch {
    /// Its number among all fetches of the crawl, over every run.
    pub seq: u64,
    /// The site (this run's id; [`SiteId`]`(u32::MAX)` for a site no longer in hosts.txt).
    pub site: SiteId,
    /// What it yielded.
    pub yielded: Yield,
    /// Requests it made besides its redirect chain (a second copy, SPEC §14).
    pub extra: u32,
}

/// Whether a crawl has anything left to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrawlStatus {
    /// URLs are still queued: a next run continues it.
    Unfinished,
    /// Complete: a next run starts afresh.
    Finished,
}

/// What [`TaskData::persist`] should make durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Persist {
    /// The records committed so far, to the operating system or to the disk.
    Journal(Durability),
    /// A compacted snapshot of everything.
    Checkpoint(CrawlStatus),
}

/// Writes a scope's result files and gives its summary row ([`ScopeData::retire_with`]).
pub type WriteResults<'a> =
    dyn FnMut() -> Result<SiteSummary, Box<dyn std::error::Error + Send + Sync>> + 'a;

/// A crawl's scope data (SPEC's DataManager), in two faces: [`TaskData`] for the crawl's
/// threads and [`ScopeData`] for the application manager; a type with both is a data manager.
/// Every method may be called from any thread.
///
/// What the engine relies on:
/// - [`TaskData::pending`] counts URLs queued or in flight over the scopes being crawled, and a
///   commit changes it in the same step as it records the outcome and queues the links: zero
///   means the work is done, never "not yet queued";
/// - levels are only ever lowered, so every node ends at its true breadth-first depth
///   whatever order commits arrive in (SPEC §2.10);
/// - every claimed task ends in exactly one of [`TaskData::commit`], [`TaskData::release`] or
///   a successful [`TaskData::retry`].
pub trait DataManager: TaskData + ScopeData {}

impl<D: TaskData + ScopeData + ?Sized> DataManager for D {}

/// The data manager's face to the crawl's threads: tasks out to the dispatcher, outcomes in
/// from downloaders and parsers, the figures that steer them, and the state saver's flushes.
pub trait TaskData: Send + Sync + Debug {
    /// Takes the next URL of `site` to fetch (lowest level first); it is in flight until its
    /// outcome is committed or it is released.
    fn take_task(&self, scope: ScopeId, site: SiteId) -> Option<FetchTask>;

    /// A redirect hop of `task` leads to `url` (of the task's site): whether the chain may
    /// fetch it. A URL is fetched by one task only: one queued is claimed for the chain (and
    /// given back with the task if the task is released), one in flight for another task or
    /// already decided is not fetched again.
    fn claim_hop(&self, task: &FetchTask, url: &NormUrl) -> HopClaim;

    /// Returns a taken URL to its frontier (the crawl is stopping), with the hop targets its
    /// chain had claimed.
    fn release(&self, task: &FetchTask);

    /// Counts one more retry of a taken URL, if it has been retried fewer than `max` times:
    /// `Some(n)` for the n-th retry, and the URL stays in flight (the caller hands the task out
    /// again when its wait is over, or releases it); `None` means the caller records its
    /// failure instead.
    fn retry(&self, task: &FetchTask, max: u32) -> Option<u32>;

    /// Takes a scope out of this run (its site is down or hit its page limit): its URLs stay
    /// queued for the next run but no longer count as pending.
    fn suspend(&self, scope: ScopeId);

    /// Keeps what a site of the scope's sitemaps list (SPEC §17) until its results are
    /// written; a scope of several sites merges theirs. Not saved: each run reads them again.
    /// With `seed` (`SitemapSeeds`), the entries marked `seed` that no link reaches are
    /// queued once the scope's links lead to nothing more (at once if they do already);
    /// returns the sites that got work.
    fn add_sitemap(
        &self,
        scope: ScopeId,
        sitemap: crate::model::sitemap::Sitemap,
        seed: bool,
    ) -> Vec<SiteId>;

    /// Records what became of a taken URL, with the links of its page.
    fn commit(&self, outcome: &Outcome) -> Result<Effects, DataError>;

    /// URLs queued or in flight, over the scopes being crawled. Zero means this process's
    /// work is done.
    fn pending(&self) -> usize;

    /// Figures of one scope.
    fn progress(&self, scope: ScopeId) -> Progress;

    /// Approximate heap bytes held.
    fn memory_bytes(&self) -> usize;

    /// Whether the scope's work in this run is over: nothing left to fetch, or suspended
    /// with nothing in flight. Then its results can be written and it can be retired.
    fn settled(&self, scope: ScopeId) -> bool;

    /// Makes recorded work durable, through the persistence backend.
    fn persist(&self, how: Persist) -> Result<(), PersistError>;

    /// Whether state is saved, so a stopped crawl can continue.
    fn saves_state(&self) -> bool;
}

/// The data manager's face to the application manager: opening scopes and their seeds,
/// listing them, reading a scope's graph, writing and retiring settled scopes, and the end of
/// the crawl.
pub trait ScopeData: Send + Sync + Debug {
    /// Opens the crawl of a scope this process claimed, its first seed on site `site`
    /// ([`SiteId::NONE`] to bind it later with [`Self::bind_site`]): continues the saved one
    /// if there is one (with these limits), else starts it with the home page queued at level 0.
    fn open_scope(
        &self,
        claim: ScopeClaim,
        site: SiteId,
        limits: ScopeLimits,
    ) -> Result<(ScopeId, ScopeOpen), DataError>;

    /// Another seed joins an open scope (seeds whose key domains meet share one, SPEC §6):
    /// its site `site` (`origin`) is added, its home page queued at level 0. Nothing changes
    /// when the scope has that seed already (a continued crawl), except that the site is
    /// bound to `site`.
    fn add_seed(&self, scope: ScopeId, origin: Origin, site: SiteId) -> Result<(), DataError>;

    /// The sites of a scope: each origin, with this run's id once bound (a continued crawl's
    /// hosts found by a multi-host filter are unbound until [`Self::bind_site`]).
    fn scope_sites(&self, scope: ScopeId) -> Vec<(Origin, Option<SiteId>)>;

    /// Binds the scope's site with `origin` to this run's id `site`.
    fn bind_site(&self, scope: ScopeId, origin: &Origin, site: SiteId);

    /// Every scope, opened in this run or only saved.
    fn scopes(&self) -> Vec<ScopeInfo>;

    /// Scope `id` (below [`ScopeData::scope_count`]), as [`ScopeData::scopes`] lists it:
    /// one at a time, where a crawl of thousands of sites would not hold every one at once.
    fn scope_info(&self, id: ScopeId) -> ScopeInfo;

    /// The summary.csv row of scope `scope` if it is retired (`None` while it is live).
    fn retired_row(&self, scope: ScopeId) -> Option<Arc<SiteSummary>>;

    /// Whether scope `scope` is retired (its results written, its data out of memory).
    fn is_retired(&self, scope: ScopeId) -> bool;

    /// How many scopes there are, retired ones included (ids `0..scope_count()`): what walks
    /// every scope without [`ScopeData::scopes`]'s copy of each.
    fn scope_count(&self) -> usize;

    /// A crawl of `n` scopes starts: what grows with every scope may take its room now, before
    /// any site's data (SPEC §11; growing later leaves freed blocks among the sites' data).
    fn expect_scopes(&self, _n: usize) {}

    /// The origins the scope's home page's recorded redirect chain passes through or ends on
    /// (a continued crawl's site aliases, SPEC §2), in chain order; empty if none is recorded.
    fn home_origins(&self, scope: ScopeId) -> Vec<Origin>;

    /// What the scope's sites were learned to change per response (SPEC §14), by origin: a
    /// continued crawl digests its new pages under the rules its earlier runs learned.
    fn learned_rules(&self, scope: ScopeId) -> Vec<(Origin, crate::model::fold::SiteRules)>;

    /// The scope's sites' cookie jars as last saved, by origin (SPEC §14): a continued crawl
    /// goes on in the same sessions.
    fn saved_cookies(&self, scope: ScopeId) -> Vec<(Origin, crate::model::cookies::SavedJar)>;

    /// Every fetch recorded so far, over all scopes and runs, in the order they were made
    /// (what a continued crawl's budget and budget rule start from).
    fn fetches(&self) -> Vec<Fetch>;

    /// Builds the scope's graph and hands it to `f` (the data stays locked meanwhile).
    fn with_graph(&self, scope: ScopeId, f: &mut dyn FnMut(&SiteGraph<'_>));

    /// Retires a settled scope whose results are written (SPEC §11): its saved state keeps
    /// `row` and its data (to be exported, or continued by the next run if it was not
    /// finished), and its data leaves memory. The scope must not be used afterwards, but for
    /// [`TaskData::progress`] and [`Self::scopes`].
    fn retire(&self, scope: ScopeId, row: Arc<SiteSummary>) -> Result<(), PersistError>;

    /// Writes a settled scope's results with `results` (which gives its summary row), then
    /// retires it as [`Self::retire`] does. A data manager may save the scope's data at the
    /// same time, on another thread: a big site's saved file then no longer follows its
    /// result files at the end of the crawl.
    fn retire_with(
        &self,
        scope: ScopeId,
        results: &mut WriteResults<'_>,
    ) -> Result<(), RetireError> {
        let row = results().map_err(RetireError::Results)?;
        Ok(self.retire(scope, Arc::new(row))?)
    }

    /// The crawl ends for this process: the backend's work off the crawl's path is finished.
    fn close(&self) -> Result<(), PersistError>;

    /// The summary.csv rows of sites earlier runs wrote into this results folder that this
    /// data manager does not hold as retired scopes (a crawl shared through a database).
    fn written_before(&self) -> Result<Vec<SiteSummary>, PersistError>;

    /// These rows' sites were written at the end of this run: recorded where the backend
    /// keeps which results folder holds which site.
    fn written_at_end(&self, rows: &[SiteSummary]) -> Result<(), PersistError>;
}

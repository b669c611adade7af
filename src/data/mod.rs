//! The data manager (the paper's DataManager): every URL, page and link of every crawl scope,
//! the frontiers, and the final graphs. Parser and downloader threads commit outcomes to it;
//! the dispatcher claims URLs from it; the unloaders read graphs from it.
//!
//! The trait is deliberately narrow (claim, release, commit, pending, progress, graph), so a
//! data manager backed by a database shared by several crawler processes can implement it.

pub mod frontier;
pub mod interner;
mod journal;
mod memory;
mod open;
pub mod pg;
mod records;
mod scope;

use std::fmt::Debug;

use thiserror::Error;

pub use memory::InMemoryDataManager;
pub use open::OpenError;
pub use scope::graph::{self, SiteGraph};
pub use scope::yields::YieldRow;
pub use scope::{DataError, Effects};

#[cfg(test)]
mod tests;

use crate::ids::{ScopeId, SiteId};
use crate::message::{FetchTask, Outcome};
use crate::site::Origin;
use crate::storage::{Durability, StateError};

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
}

/// Whether `open_scope` continued saved work or started anew.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopeOpen {
    /// A new crawl of the site, its home page queued.
    Created,
    /// The site's saved crawl continues.
    Resumed,
}

/// A scope known to the data manager.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeInfo {
    /// Its id.
    pub id: ScopeId,
    /// Its seed site.
    pub origin: Origin,
    /// Opened by this run (listed in hosts.txt); inactive ones are saved data only.
    pub active: bool,
}

/// One fetch of the crawl as the page budget counts it (SPEC §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fetch {
    /// Its number among all fetches of the crawl, over every run.
    pub seq: u64,
    /// The site (this run's id; [`SiteId`]`(u32::MAX)` for a site no longer in hosts.txt).
    pub site: SiteId,
    /// External URLs its site's crawl had not seen before.
    pub new_external: u32,
    /// Distinct external URLs on the page.
    pub external: u32,
}

/// Whether a crawl has anything left to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrawlStatus {
    /// URLs are still queued: a next run continues it.
    Unfinished,
    /// Complete: a next run starts afresh.
    Finished,
}

/// What [`DataManager::persist`] should make durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Persist {
    /// The records committed so far, to the operating system or to the disk.
    Journal(Durability),
    /// A compacted snapshot of everything.
    Checkpoint(CrawlStatus),
}

/// Recorded work could not be made durable.
#[derive(Debug, Error)]
pub enum PersistError {
    /// The state folder's files could not be written.
    #[error(transparent)]
    Files(#[from] StateError),
    /// The crawl's database could not be written.
    #[error(transparent)]
    Database(#[from] pg::PgError),
}

/// Storage of the crawl (SPEC's DataManager; `BMICDM` is the in-memory one).
pub trait DataManager: Send + Sync + Debug {
    /// Before any scope is opened: the seed origin of every scope of hosts.txt (a store shared
    /// by several processes checks them against what the others crawl, and adds new ones).
    fn register_seeds(&self, _seeds: &[Origin]) -> Result<(), DataError> {
        Ok(())
    }

    /// Opens the crawl of `origin` on site `site` ([`SiteId::NONE`] to bind it later with
    /// [`Self::bind_site`]): continues the saved one if there is one (with these limits), else
    /// starts it with the home page queued at level 0. `None`: this process does not crawl it
    /// (a shared store gave it to another process, or it is done).
    fn open_scope(
        &self,
        origin: Origin,
        site: SiteId,
        limits: ScopeLimits,
    ) -> Result<Option<(ScopeId, ScopeOpen)>, DataError>;

    /// While the crawl runs (about once a second): seed origins of scopes this process may
    /// open now besides those it opened (a shared store hands out scopes other processes gave
    /// back or left behind). Empty for a store of one process.
    fn more_seeds(&self) -> Result<Vec<Origin>, DataError> {
        Ok(Vec::new())
    }

    /// The crawl ends for this process, after its last checkpoint: what it holds goes back
    /// (a shared store hands unfinished scopes to other processes at once).
    fn hand_back(&self) -> Result<(), PersistError> {
        Ok(())
    }

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

    /// The origins the scope's home page's recorded redirect chain passes through or ends on
    /// (a continued crawl's site aliases, SPEC §2), in chain order; empty if none is recorded.
    fn home_origins(&self, scope: ScopeId) -> Vec<Origin>;

    /// Takes the next URL of `site` to fetch (lowest level first); it is in flight until its
    /// outcome is committed or it is released.
    fn claim(&self, scope: ScopeId, site: SiteId) -> Option<FetchTask>;

    /// Returns a claimed URL to its frontier (the crawl is stopping).
    fn release(&self, task: &FetchTask);

    /// Returns a claimed URL to its frontier to be fetched again, if it has been retried
    /// fewer than `max` times: `Some(n)` for the n-th retry; `None` means the caller records
    /// its failure instead.
    fn retry(&self, task: &FetchTask, max: u32) -> Option<u32>;

    /// Takes a scope out of this run (its site is down or hit its page limit): its URLs stay
    /// queued for the next run but no longer count as pending.
    fn suspend(&self, scope: ScopeId);

    /// Records what became of a claimed URL, with the links of its page.
    fn commit(&self, outcome: &Outcome) -> Result<Effects, DataError>;

    /// URLs queued or in flight, over all scopes. Zero means the work is done.
    fn pending(&self) -> usize;

    /// Figures of one scope.
    fn progress(&self, scope: ScopeId) -> Progress;

    /// Every fetch recorded so far, over all scopes and runs, in the order they were made
    /// (what a continued crawl's budget and budget rule start from).
    fn fetches(&self) -> Vec<Fetch>;

    /// Builds the scope's graph and hands it to `f` (the data stays locked meanwhile).
    fn with_graph(&self, scope: ScopeId, f: &mut dyn FnMut(&SiteGraph<'_>));

    /// Approximate heap bytes held.
    fn memory_bytes(&self) -> usize;

    /// Makes recorded work durable (a no-op for storage that is durable by itself).
    fn persist(&self, how: Persist) -> Result<(), PersistError>;

    /// Whether state is saved, so a stopped crawl can continue.
    fn saves_state(&self) -> bool;

    /// Whether `PageBudget` is the whole crawl's, shared with other processes through this
    /// store and granted with [`Self::share_budget`] (else each process has it all).
    fn shares_budget(&self) -> bool {
        false
    }

    /// Reserves up to `want` more fetches of the crawl's budget of `total` for this process:
    /// (granted, whether no more will ever be granted).
    fn share_budget(&self, _total: u64, want: u64) -> Result<(u64, bool), DataError> {
        Ok((want, false))
    }
}

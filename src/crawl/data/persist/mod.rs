//! Where a crawl's scopes are saved, so that a stopped, killed or moved crawl continues: the
//! [`Persistence`] trait and its backends — nothing ([`NoStore`], `SaveState = 0`), the state
//! folder ([`FileStore`], `BMICDM`), and PostgreSQL (`PgStore`, `PgDM`).
//!
//! The in-memory data manager holds the scopes and decides what their bytes are (journal
//! records, snapshots); a backend decides where those bytes go and when they are durable. It
//! reads them through [`ScopeSource`], which the data manager implements, so that a backend
//! takes each scope's records or snapshot under that scope's lock, when it is ready for them.
//!
//! What every backend guarantees:
//! - records handed to [`Persistence::save`] with [`Persist::Journal`] survive the process
//!   (`Durability::Process`) or a power cut (`Durability::Disk`) once it returns `Ok`;
//! - a scope's saved bytes are always a snapshot (or none) and the records committed after it,
//!   in commit order, so `ScopeGraph::recover` rebuilds exactly what was saved;
//! - a failure is an `Err`, never a silent loss: the crawl stops and says why.

pub(crate) mod files;

use std::fmt::Debug;
use std::io::Write;

pub use files::FileStore;

use std::sync::Arc;

use super::{CrawlStatus, GraphHandle, Persist, PersistError, RetiredScope, SiteSummary};
use crate::base::ids::ScopeId;
use crate::crawl::data::coord::ScopeClaim;

/// A scope's saved bytes: its last snapshot (if one was taken), then the journal records
/// committed since, framed, in order — or, for a scope written and released by an earlier
/// run, what is kept of it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SavedScope {
    /// The snapshot.
    pub snapshot: Option<Vec<u8>>,
    /// The journal records after it.
    pub journal: Vec<u8>,
    /// Written and released (and finished): the scope is not loaded.
    pub retired: Option<RetiredScope>,
}

/// A scope's figures as a backend records them beside its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScopeFigures {
    /// HTML pages recorded.
    pub pages: usize,
    /// URLs queued or in flight.
    pub pending: usize,
    /// Fetches recorded, over every run.
    pub fetched: usize,
    /// Being crawled by this run (opened, not suspended).
    pub crawled: bool,
}

impl ScopeFigures {
    /// How the scope stands when this process is through with it: `None` while it is being
    /// crawled.
    pub fn settled(&self) -> Option<CrawlStatus> {
        if self.pending == 0 {
            Some(CrawlStatus::Finished)
        } else if !self.crawled {
            Some(CrawlStatus::Unfinished)
        } else {
            None
        }
    }
}

/// The scopes a backend saves, as the data manager holds them.
pub trait ScopeSource {
    /// Every scope held in memory, in the order of the saved state.
    fn scope_ids(&self) -> Vec<ScopeId>;
    /// How many scopes there are, retired ones included (ids `0..slot_count()`).
    fn slot_count(&self) -> usize;
    /// What is kept of scope `scope`, if it was retired.
    fn retired(&self, scope: ScopeId) -> Option<Arc<RetiredScope>>;
    /// How `scope` was claimed (its seed, and its row in a shared store).
    fn claim(&self, scope: ScopeId) -> ScopeClaim;
    /// Moves the journal records `scope` committed since the last call to the end of `out`.
    fn take_journal(&self, scope: ScopeId, out: &mut Vec<u8>);
    /// Writes a snapshot of `scope` into `w`, and moves the records it replaces (committed
    /// since the last take) to `replaced`: both under one lock, so nothing committed falls
    /// between them.
    fn write_snapshot(
        &self,
        scope: ScopeId,
        w: &mut dyn Write,
        replaced: &mut Vec<u8>,
    ) -> std::io::Result<()>;
    /// Writes `scope`'s data as [`Self::write_snapshot`] does, but only reading it: its
    /// records stay where they are, for whoever takes them next. For a scope that changes no
    /// more (settled, retiring), whose results are read at the same time.
    fn write_data(&self, scope: ScopeId, w: &mut dyn Write) -> std::io::Result<()>;
    /// The scope's figures now.
    fn figures(&self, scope: ScopeId) -> ScopeFigures;
    /// A handle that reads the scope's graph later, from another thread.
    fn graph(&self, scope: ScopeId) -> GraphHandle;
}

/// Where scopes are saved (see the module docs for what every backend guarantees).
pub trait Persistence: Send + Sync + Debug {
    /// Whether anything is saved (a stopped crawl can continue).
    fn saves(&self) -> bool {
        true
    }

    /// Scopes saved by earlier runs that this process holds from the start, in saved order
    /// (the state folder: all of them; a shared database hands scopes out with claims).
    /// Called once, when the data manager is built.
    fn recovered(&self) -> Result<Vec<SavedScope>, PersistError> {
        Ok(Vec::new())
    }

    /// The saved bytes of a scope this process has just claimed, if the backend has any that
    /// it did not hand out with [`Self::recovered`].
    fn load(&self, _claim: &ScopeClaim) -> Result<Option<SavedScope>, PersistError> {
        Ok(None)
    }

    /// A claimed scope is open for crawling, with these figures (what is saved of it so far).
    fn opened(&self, _claim: &ScopeClaim, _figures: ScopeFigures) {}

    /// Makes the scopes' recorded work durable as `how` says.
    fn save(&self, scopes: &dyn ScopeSource, how: Persist) -> Result<(), PersistError>;

    /// Writes the data of `scope` (number `index` in the saved state), settled and about to
    /// retire, where the backend keeps a retired scope's data, ahead of [`Self::retire`] and
    /// while its results are written: `Ok(true)` if it did (then `retire` is told so), `Ok(false)`
    /// if this backend saves a retired scope's data in `retire` only. Nothing is recorded: until
    /// `retire`, the scope is live in the saved state, and a crash leaves at most a file that no
    /// record names.
    fn write_retired_data(
        &self,
        _scopes: &dyn ScopeSource,
        _scope: ScopeId,
        _index: u32,
    ) -> Result<bool, PersistError> {
        Ok(false)
    }

    /// Scope `scope` (still in `scopes`) is retired as `retired` says, its results written:
    /// its journal records and data are saved where the backend keeps a retired scope (the data
    /// already, if `data_written`: [`Self::write_retired_data`] returned `true`), and the
    /// record of its retirement made durable, before the data manager drops it.
    fn retire(
        &self,
        scopes: &dyn ScopeSource,
        scope: ScopeId,
        retired: &RetiredScope,
        data_written: bool,
    ) -> Result<(), PersistError>;

    /// The crawl ends for this process: whatever the backend does off the crawl's path (a
    /// database's graph tables) is finished before this returns.
    fn close(&self) -> Result<(), PersistError> {
        Ok(())
    }

    /// The summary.csv rows of the sites whose result files earlier runs wrote into this
    /// process's results folder and that the saved state does not hand this process
    /// (a database shared by several processes; a state folder keeps them as retired scopes).
    fn written_before(&self) -> Result<Vec<SiteSummary>, PersistError> {
        Ok(Vec::new())
    }

    /// The result files of these rows' sites were written at the end of this run (not as
    /// each retired): where the backend keeps which folder holds which site, it records them.
    fn written_at_end(&self, _rows: &[SiteSummary]) -> Result<(), PersistError> {
        Ok(())
    }
}

/// Saves nothing (`SaveState = 0`): a stopped crawl starts over.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoStore;

impl Persistence for NoStore {
    fn saves(&self) -> bool {
        false
    }

    fn save(&self, _scopes: &dyn ScopeSource, _how: Persist) -> Result<(), PersistError> {
        Ok(())
    }

    fn retire(
        &self,
        _scopes: &dyn ScopeSource,
        _scope: ScopeId,
        _retired: &RetiredScope,
        _data_written: bool,
    ) -> Result<(), PersistError> {
        Ok(())
    }
}

//! The settle thread: a scope this process has finished (its snapshot already saved) gets its
//! graph tables written and is marked `done` (or `stopped`) here, off the crawl's path: the
//! crawl goes on with other scopes meanwhile, and the last one's tables are written while the
//! result files are. The process keeps the scope's lease until it is marked, so a process
//! killed meanwhile leaves it to another, which finds nothing left to fetch and settles it.

use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{Sender, unbounded};
use parking_lot::Mutex;

use super::db::{Db, PgError};
use super::scope_state::{self, ScopeState};
use super::tables;
use crate::bandit::RewardKind;
use crate::data::GraphHandle;

/// A scope to settle.
#[derive(Debug)]
pub(super) struct Job {
    /// Its graph.
    pub(super) graph: GraphHandle,
    /// Its row.
    pub(super) row: i64,
    /// Its seed origin, for messages.
    pub(super) origin: String,
    /// `Done` or `Stopped`.
    pub(super) state: ScopeState,
    /// The name of this save (a retried commit that did land is recognised by it).
    pub(super) save: String,
}

/// The thread and what went wrong in it.
#[derive(Debug)]
pub(super) struct Settler {
    jobs: Option<Sender<Job>>,
    handle: Option<JoinHandle<()>>,
    failed: Arc<Mutex<Option<Arc<PgError>>>>,
}

/// What the thread needs.
pub(super) struct Setup {
    pub(super) url: String,
    pub(super) owner: String,
    pub(super) reward: RewardKind,
}

impl Settler {
    /// Starts the thread.
    pub(super) fn start(setup: Setup) -> Result<Self, PgError> {
        let (tx, rx) = unbounded::<Job>();
        let failed = Arc::new(Mutex::new(None));
        let flag = Arc::clone(&failed);
        let handle = std::thread::Builder::new()
            .name("settle".into())
            .spawn(move || {
                let mut db = None;
                for job in rx {
                    if flag.lock().is_some() {
                        continue;
                    }
                    if let Err(e) = settle(&setup, &mut db, &job) {
                        *flag.lock() = Some(Arc::new(e));
                    }
                }
            })
            .map_err(PgError::Thread)?;
        Ok(Settler {
            jobs: Some(tx),
            handle: Some(handle),
            failed,
        })
    }

    /// Queues a scope.
    pub(super) fn send(&self, job: Job) {
        if let Some(tx) = &self.jobs {
            // The thread only ends when this sender is dropped.
            let _ = tx.send(job);
        }
    }

    /// The first failure, if any (the others are not settled: their leases run out and
    /// another process settles them).
    pub(super) fn failure(&self) -> Option<PgError> {
        self.failed.lock().clone().map(PgError::Settle)
    }

    /// Settles what is queued, then ends the thread; the first failure, if any. Later calls
    /// return at once.
    pub(super) fn finish(&mut self) -> Result<(), PgError> {
        self.jobs = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
        match self.failed.lock().take() {
            Some(e) => Err(PgError::Settle(e)),
            None => Ok(()),
        }
    }
}

/// Writes one scope's graph tables, then marks it settled and releases it.
fn settle(setup: &Setup, db: &mut Option<Db>, job: &Job) -> Result<(), PgError> {
    let mut written = Ok(true);
    job.graph.with_graph(&mut |g| {
        written = tables::write_graph(&setup.url, job.row, &setup.owner, g, setup.reward);
    });
    if !written? {
        return Err(PgError::LeaseLost(job.origin.clone()));
    }
    let db = match db {
        Some(db) => db,
        None => db.insert(Db::connect_later(&setup.url)?),
    };
    let (row, owner, state, save) = (job.row, &setup.owner, job.state, &job.save);
    let marked = db.run(
        "marking a scope settled",
        &[
            ("scope", &row),
            ("state", &state),
            ("owner", owner),
            ("save", save),
        ],
        |c| scope_state::settle(c, row, state, owner, save),
    )?;
    if !marked {
        return Err(PgError::LeaseLost(job.origin.clone()));
    }
    Ok(())
}

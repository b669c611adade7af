//! The settle thread: a scope this process has finished is saved here — its last snapshot,
//! its graph tables, its state `done` (or `stopped`), and the summary row of its result files
//! once they are written — off the crawl's path: the crawl goes on with other scopes
//! meanwhile, and the last one's tables are written while the result files are.
//!
//! Scopes finished while others were being saved are saved together, in one transaction over
//! one connection kept open: one commit (one sync to disk) for all of them. Saved one at a
//! time, on 1,000 sites of 50 to 120 pages, each scope cost four connections and seven
//! commits, and the crawl waited for them (issue 48). A large scope's tables are streamed on
//! their own, side by side ([`tables::write_graph`]), before its batch commits.
//!
//! What a `kill -9` loses: the scopes queued here and not committed yet (at most
//! [`QUEUE_SCOPES`] plus one batch). The database still holds each as active, with its last
//! journal batch (at most a second old, as for any scope being crawled); when the lease runs
//! out, the next process to claim it loads that, fetches the pages fetched since again, finds
//! nothing left to fetch and settles it. The result is the same graph: only work is redone.
//! The process keeps the scope's lease until it is committed here — and, for a scope settled
//! before its files were written, until [`Work::Written`] is (a kill between the two leaves
//! it for the next process to write; see `scope_state::has_work`).

use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{Sender, bounded};
use parking_lot::Mutex;

use super::db::{Db, PgError};
use super::scope_state::{self, ScopeState};
use super::spend_reserved;
use super::tables::{self, Encoded};
use crate::crawl::data::GraphHandle;
use crate::model::bandit::RewardKind;

/// A finished scope to save.
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
    /// Its last snapshot, replacing its journal.
    pub(super) snapshot: Vec<u8>,
    /// Its figures (pages, queued URLs, fetches) as of the snapshot.
    pub(super) figures: [i64; 3],
    /// Fetches of the scope the database does not count yet (spent of this process's
    /// reserved page budget).
    pub(super) spent: i64,
    /// Its summary.csv row, if its result files are written already (see [`Work::Written`]).
    pub(super) written: Option<Vec<u8>>,
}

/// What the thread is sent.
#[derive(Debug)]
pub(super) enum Work {
    /// A finished scope.
    Settle(Job),
    /// The result files of scope row `row` are written in this process's results folder, with
    /// summary.csv row `summary` (encoded): recorded with the next batch, after the scope's
    /// own [`Work::Settle`] (sent before it).
    Written { row: i64, summary: Vec<u8> },
    /// The graph tables of a scope this process holds and has not finished, as it stands
    /// (the crawl's page budget is spent: its pages are the crawl's, for SQL too); its state
    /// does not change.
    Tables {
        graph: GraphHandle,
        row: i64,
        origin: String,
    },
}

/// The thread and what went wrong in it.
#[derive(Debug)]
pub(super) struct Settler {
    jobs: Option<Sender<Work>>,
    handle: Option<JoinHandle<()>>,
    failed: Arc<Mutex<Option<Arc<PgError>>>>,
}

/// What the thread needs.
pub(super) struct Setup {
    pub(super) url: String,
    /// `CrawlName`.
    pub(super) crawl: String,
    pub(super) owner: String,
    /// This process's results folder, as the database names it.
    pub(super) folder: String,
    pub(super) reward: RewardKind,
}

/// At most this many scopes wait for the thread: past them, whoever sends waits (a database
/// slower than the crawl slows the crawl, rather than holding ever more finished graphs).
pub(super) const QUEUE_SCOPES: usize = 256;

/// At most this many pieces of work are saved in one transaction.
const BATCH_SCOPES: usize = 256;

/// A batch is written once its rows reach this size (they are assembled in memory).
const BATCH_BYTES: usize = 8 << 20;

/// A scope of at least this many pages has its tables streamed on its own, never assembled
/// whole.
const LARGE_PAGES: usize = 5_000;

impl Settler {
    /// Starts the thread.
    pub(super) fn start(setup: Setup) -> Result<Self, PgError> {
        let (tx, rx) = bounded::<Work>(QUEUE_SCOPES);
        let failed = Arc::new(Mutex::new(None));
        let flag = Arc::clone(&failed);
        let handle = std::thread::Builder::new()
            .name("settle".into())
            .spawn(move || {
                let mut db = None;
                while let Ok(first) = rx.recv() {
                    let mut work = vec![first];
                    work.extend(rx.try_iter().take(BATCH_SCOPES - 1));
                    if flag.lock().is_some() {
                        continue;
                    }
                    if let Err(e) = settle_all(&setup, &mut db, work) {
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

    /// Queues work; waits while [`QUEUE_SCOPES`] are queued already.
    pub(super) fn send(&self, work: Work) {
        if let Some(tx) = &self.jobs {
            // The thread only ends when this sender is dropped (or it panicked: then the
            // crawl stops on the failure the panic reports).
            let _ = tx.send(work);
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

/// Work assembled, waiting to be saved together.
#[derive(Default)]
struct Batch {
    jobs: Vec<Job>,
    /// The small scopes' graph tables (a large one's are written already).
    parts: Vec<Encoded>,
    /// `(row, summary)` of [`Work::Written`].
    written: Vec<(i64, Vec<u8>)>,
    /// `(row, origin)` of [`Work::Tables`].
    tables_only: Vec<(i64, String)>,
    bytes: usize,
}

impl Batch {
    /// Adds a scope's assembled tables, in place of any this batch holds for it already (a
    /// scope whose tables were sent at the budget's last checkpoint may settle just after):
    /// its rows are written once.
    fn add_part(&mut self, part: Option<Encoded>) {
        if let Some(part) = part {
            if let Some(i) = self.parts.iter().position(|p| p.scope() == part.scope()) {
                self.bytes -= self.parts.remove(i).bytes();
            }
            self.bytes += part.bytes();
            self.parts.push(part);
        }
    }
}

/// Saves `work` in batches; a large scope's tables are written first, on their own.
fn settle_all(setup: &Setup, db: &mut Option<Db>, work: Vec<Work>) -> Result<(), PgError> {
    let mut batch = Batch::default();
    for w in work {
        match w {
            Work::Settle(job) => {
                batch.add_part(encode(setup, &job.graph, job.row, &job.origin)?);
                batch.bytes += job.snapshot.len();
                batch.jobs.push(job);
            }
            Work::Tables { graph, row, origin } => {
                batch.add_part(encode(setup, &graph, row, &origin)?);
                batch.tables_only.push((row, origin));
            }
            Work::Written { row, summary } => {
                batch.bytes += summary.len();
                batch.written.push((row, summary));
            }
        }
        if batch.bytes >= BATCH_BYTES {
            write_batch(setup, db, &mut batch)?;
        }
    }
    write_batch(setup, db, &mut batch)
}

/// A small scope's graph tables, assembled; a large one's are written now, on their own.
fn encode(
    setup: &Setup,
    graph: &GraphHandle,
    row: i64,
    origin: &str,
) -> Result<Option<Encoded>, PgError> {
    let mut small = None;
    let mut large = Ok(true);
    graph.with_graph(&mut |g| {
        if g.nodes().len() < LARGE_PAGES {
            small = Some(Encoded::new(row, g, setup.reward));
        } else {
            large = tables::write_graph(&setup.url, row, &setup.owner, g, setup.reward);
        }
    });
    if !large? {
        return Err(PgError::LeaseLost(origin.to_owned()));
    }
    Ok(small)
}

/// Saves the batch in one transaction: its scopes' snapshots and graph tables, their state and
/// release, the fetches they spent of the page budget, and the result files written. Empties
/// it.
fn write_batch(setup: &Setup, db: &mut Option<Db>, batch: &mut Batch) -> Result<(), PgError> {
    if batch.jobs.is_empty() && batch.written.is_empty() && batch.tables_only.is_empty() {
        return Ok(());
    }
    let db = match db {
        Some(db) => db,
        None => db.insert(Db::connect_later(&setup.url)?),
    };
    let ids: Vec<i64> = batch.jobs.iter().map(|j| j.row).collect();
    // The first job's save names the batch: a commit that was not acknowledged and is tried
    // again finds its scopes settled by this very save.
    let save = batch.jobs.first().map_or("", |j| j.save.as_str());
    let (crawl, owner, folder) = (&setup.crawl, &setup.owner, &setup.folder);
    let spent: i64 = batch.jobs.iter().map(|j| j.spent).sum();
    let lost = db.run(
        "settling finished scopes",
        &[
            ("scopes", &ids.len()),
            ("written", &batch.written.len()),
            ("owner", owner),
            ("save", &save),
            ("bytes", &batch.bytes),
        ],
        |c| {
            let mut tx = c.transaction()?;
            if !batch.tables_only.is_empty() {
                let rows: Vec<i64> = batch.tables_only.iter().map(|t| t.0).collect();
                let held = scope_state::owned_for_update(&mut tx, &rows, owner)?;
                if let Some(t) = batch.tables_only.iter().find(|t| !held.contains(&t.0)) {
                    return Ok(Some(t.1.clone()));
                }
            }
            if ids.is_empty() {
                tables::write_encoded(&mut tx, &batch.parts)?;
            } else {
                let held = scope_state::settling(&mut tx, &ids, owner, save)?;
                if let Some(j) = batch.jobs.iter().find(|j| !held.contains(&j.row)) {
                    return Ok(Some(j.origin.clone()));
                }
                let snapshots: Vec<&[u8]> = batch.jobs.iter().map(|j| &j.snapshot[..]).collect();
                tables::write_snapshots(&mut tx, &ids, &snapshots)?;
                let figures: Vec<[i64; 3]> = batch.jobs.iter().map(|j| j.figures).collect();
                scope_state::snapshots_saved(&mut tx, &ids, &figures, save)?;
                spend_reserved(&mut tx, crawl, owner, spent)?;
                tables::write_encoded(&mut tx, &batch.parts)?;
                let states: Vec<ScopeState> = batch.jobs.iter().map(|j| j.state).collect();
                let written: Vec<bool> = batch.jobs.iter().map(|j| j.written.is_some()).collect();
                scope_state::settle_all(&mut tx, &ids, &states, &written, save)?;
            }
            let written = batch
                .jobs
                .iter()
                .filter_map(|j| Some((j.row, j.written.as_deref()?)));
            let written: Vec<(i64, &[u8])> = written
                .chain(batch.written.iter().map(|(r, s)| (*r, &s[..])))
                .collect();
            scope_state::written(&mut tx, &written, folder)?;
            tx.commit()?;
            Ok(None)
        },
    )?;
    if let Some(origin) = lost {
        return Err(PgError::LeaseLost(origin));
    }
    *batch = Batch::default();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_sent_twice_in_one_batch_has_its_rows_written_once() {
        let mut batch = Batch::default();
        batch.add_part(Some(Encoded::stub(7)));
        batch.add_part(Some(Encoded::stub(8)));
        batch.add_part(None);
        batch.add_part(Some(Encoded::stub(7)));
        let scopes: Vec<i64> = batch.parts.iter().map(Encoded::scope).collect();
        assert_eq!(scopes, [8, 7]);
        assert_eq!(
            batch.bytes,
            batch.parts.iter().map(Encoded::bytes).sum::<usize>()
        );
    }
}

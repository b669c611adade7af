//! [`PgStore`]: the scopes a process holds, saved in the crawl's database. Journal records
//! go to `rccrawler_journal` once a second in named batches; a snapshot in
//! `rccrawler_snapshots` replaces them every `CheckpointSeconds`, and at once when the scope is
//! settled (nothing left to fetch, or its site suspended), after which the settle thread writes
//! its graph tables and marks it. Each write checks the claim first ([`scope_state`]).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;

use super::db::{PgError, bigint};
use super::scope_state::{self, ScopeState, SnapshotTurn};
use super::settle::{Job, Work};
use super::{PgCrawl, spend_reserved, tables};
use crate::base::ids::ScopeId;
use crate::base::storage::Durability;
use crate::base::storage::codec::Reader;
use crate::crawl::data::coord::{ClaimToken, ScopeClaim};
use crate::crawl::data::persist::{Persistence, SavedScope, ScopeFigures, ScopeSource};
use crate::crawl::data::summary::SiteSummary;
use crate::crawl::data::{CrawlStatus, Persist, PersistError, RetiredScope};

/// Journal batches with their names, in order.
type Batches = Vec<(String, Vec<u8>)>;

/// Whether a journal save sends the records of scopes still being crawled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Records {
    /// Only settled scopes are saved (their snapshots); records wait for the next send.
    Keep,
    /// Records taken so far are sent.
    Send,
}

/// What is saved of one claimed scope.
#[derive(Debug, Default)]
struct SavedRow {
    /// Settled and handed to the settle thread: nothing more to write.
    settled: bool,
    /// Journal batches taken from the scope and not yet in the database, with their names.
    unsent: Batches,
    /// Fetches of the scope the database counts (its `fetched`).
    fetched_saved: usize,
}

/// The crawl's database as a [`Persistence`] backend.
#[derive(Debug)]
pub struct PgStore {
    crawl: Arc<PgCrawl>,
    /// By row id.
    rows: Mutex<HashMap<i64, SavedRow>>,
    batches: AtomicU64,
    /// Held for a whole save: saves never interleave.
    saving: Mutex<()>,
}

/// The figures a scope's row carries: pages, queued URLs, fetches.
fn row_figures(f: &ScopeFigures) -> [i64; 3] {
    [bigint(f.pages), bigint(f.pending), bigint(f.fetched)]
}

impl PgStore {
    pub(super) fn new(crawl: Arc<PgCrawl>) -> Self {
        PgStore {
            crawl,
            rows: Mutex::new(HashMap::new()),
            batches: AtomicU64::new(0),
            saving: Mutex::new(()),
        }
    }

    fn next_batch(&self) -> String {
        format!(
            "{}:{}",
            self.crawl.owner,
            self.batches.fetch_add(1, Ordering::SeqCst)
        )
    }

    /// The scopes held with their rows, those not settled yet.
    fn held(&self, scopes: &dyn ScopeSource) -> Vec<(ScopeId, i64)> {
        let rows = self.rows.lock();
        scopes
            .scope_ids()
            .into_iter()
            .filter_map(|id| Some((id, scopes.claim(id).token()?.0)))
            .filter(|(_, row)| rows.get(row).is_some_and(|r| !r.settled))
            .collect()
    }

    /// Saves every held scope that is settled, so that the others see it; with
    /// [`Records::Send`], sends the others' journal records taken so far.
    fn send_journal(&self, scopes: &dyn ScopeSource, records: Records) -> Result<(), PersistError> {
        // Fetch counts go with the records that hold them (counted first, so never ahead),
        // and the figures `rccrawler status` shows with them.
        let mut figures: Vec<(i64, ScopeFigures)> = Vec::new();
        let mut work: Vec<(i64, String, Batches)> = Vec::new();
        let mut settled = false;
        for (id, row) in self.held(scopes) {
            let f = scopes.figures(id);
            if f.settled().is_some() {
                self.save_snapshot(scopes, id, row, None)?;
                settled = true;
                continue;
            }
            if records == Records::Keep {
                continue;
            }
            let mut rows = self.rows.lock();
            let Some(saved) = rows.get_mut(&row) else {
                continue;
            };
            if f.fetched > saved.fetched_saved {
                figures.push((row, f));
            }
            let mut bytes = Vec::new();
            scopes.take_journal(id, &mut bytes);
            if !bytes.is_empty() {
                let name = self.next_batch();
                saved.unsent.push((name, bytes));
            }
            if !saved.unsent.is_empty() {
                work.push((
                    row,
                    scopes.claim(id).origin.to_string(),
                    saved.unsent.clone(),
                ));
            }
        }
        if settled {
            // Whether the crawl is over now depends on the others' scopes.
            self.crawl.look(0)?;
        }
        if work.is_empty() {
            return Ok(());
        }
        let spent: usize = {
            let rows = self.rows.lock();
            figures
                .iter()
                .map(|(row, f)| f.fetched - rows.get(row).map_or(f.fetched, |r| r.fetched_saved))
                .sum()
        };
        let (owner, crawl) = (&self.crawl.owner, &self.crawl.crawl);
        let spent = bigint(spent);
        let batches: usize = work.iter().map(|w| w.2.len()).sum();
        let lost = self.crawl.db.lock().run(
            "saving the journal",
            &[
                ("crawl", crawl),
                ("owner", owner),
                ("scopes", &work.len()),
                ("batches", &batches),
                ("spent", &spent),
            ],
            |c| {
                let mut tx = c.transaction()?;
                let ids: Vec<i64> = work.iter().map(|w| w.0).collect();
                let owned = scope_state::owned_for_update(&mut tx, &ids, owner)?;
                if let Some(w) = work.iter().find(|w| !owned.contains(&w.0)) {
                    return Ok(Some(w.1.clone()));
                }
                let sent = work
                    .iter()
                    .flat_map(|(id, _, batches)| batches.iter().map(move |b| (*id, b)));
                tables::write_journal(&mut tx, sent)?;
                let ids: Vec<i64> = figures.iter().map(|(row, _)| *row).collect();
                let rows: Vec<[i64; 3]> = figures.iter().map(|(_, f)| row_figures(f)).collect();
                scope_state::figures(&mut tx, &ids, &rows)?;
                spend_reserved(&mut tx, crawl, owner, spent)?;
                tx.commit()?;
                Ok(None)
            },
        )?;
        if let Some(origin) = lost {
            return Err(PgError::LeaseLost(origin).into());
        }
        let mut rows = self.rows.lock();
        for (row, _, _) in &work {
            if let Some(r) = rows.get_mut(row) {
                r.unsent.clear();
            }
        }
        for (row, f) in &figures {
            if let Some(r) = rows.get_mut(row) {
                r.fetched_saved = f.fetched;
            }
        }
        Ok(())
    }

    /// Replaces scope `id`'s journal (row `row`) with a snapshot. A settled scope goes to the
    /// settle thread instead, which saves its snapshot with its graph tables and its state
    /// (and, with `written`, the summary.csv row of its result files just written into this
    /// process's results folder: a scope the database holds as settled has its row there, for
    /// a process started again in that folder).
    fn save_snapshot(
        &self,
        scopes: &dyn ScopeSource,
        id: ScopeId,
        row: i64,
        written: Option<&SiteSummary>,
    ) -> Result<(), PersistError> {
        let written = written.map(encode_row);
        let mut snapshot = Vec::new();
        let mut rest = Vec::new();
        let f = scopes.figures(id);
        // Writing into a Vec cannot fail.
        let _ = scopes.write_snapshot(id, &mut snapshot, &mut rest);
        let origin = scopes.claim(id).origin.to_string();
        if let Some(status) = f.settled() {
            let spent = {
                let mut rows = self.rows.lock();
                let saved = rows.entry(row).or_default();
                let spent = f.fetched.saturating_sub(saved.fetched_saved);
                // The snapshot holds every record taken: nothing more to send of it.
                saved.settled = true;
                saved.unsent.clear();
                saved.fetched_saved = f.fetched;
                spent
            };
            let state = match status {
                CrawlStatus::Finished => ScopeState::Done,
                CrawlStatus::Unfinished => ScopeState::Stopped,
            };
            self.crawl.settler.lock().send(Work::Settle(Job {
                graph: scopes.graph(id),
                row,
                origin,
                state,
                save: self.next_batch(),
                snapshot,
                figures: row_figures(&f),
                spent: bigint(spent),
                written,
            }));
            return Ok(());
        }
        let fetched_saved = {
            let mut rows = self.rows.lock();
            let saved = rows.entry(row).or_default();
            if !rest.is_empty() {
                let name = self.next_batch();
                saved.unsent.push((name, rest));
            }
            saved.fetched_saved
        };
        let spent = bigint(f.fetched.saturating_sub(fetched_saved));
        let (crawl, owner) = (&self.crawl.crawl, &self.crawl.owner);
        // Named, so that a save whose commit was not acknowledged (the connection broke) and
        // is tried again is recognised as done rather than as a lease lost.
        let save = self.next_batch();
        let saved = self.crawl.db.lock().run(
            "saving a snapshot",
            &[
                ("scope", &row),
                ("owner", owner),
                ("save", &save),
                ("snapshot bytes", &snapshot.len()),
                ("spent", &spent),
            ],
            |c| {
                let mut tx = c.transaction()?;
                match scope_state::snapshot_turn(&mut tx, row, owner, &save)? {
                    SnapshotTurn::AlreadySaved => return Ok(true),
                    SnapshotTurn::Lost => return Ok(false),
                    SnapshotTurn::Owned => {}
                }
                tables::write_snapshot(&mut tx, row, &snapshot)?;
                scope_state::snapshot_saved(&mut tx, row, row_figures(&f), &save)?;
                if let Some(bytes) = &written {
                    record_written(&mut tx, row, &self.crawl.results_at, bytes)?;
                }
                spend_reserved(&mut tx, crawl, owner, spent)?;
                tx.commit()?;
                Ok(true)
            },
        )?;
        if !saved {
            return Err(PgError::LeaseLost(origin).into());
        }
        let mut rows = self.rows.lock();
        let saved = rows.entry(row).or_default();
        saved.unsent.clear();
        saved.fetched_saved = f.fetched;
        Ok(())
    }
}

impl Persistence for PgStore {
    fn load(&self, claim: &ScopeClaim) -> Result<Option<SavedScope>, PersistError> {
        let Some(ClaimToken(row)) = claim.token() else {
            return Ok(None);
        };
        let saved = self
            .crawl
            .db
            .lock()
            .run("loading a scope", &[("scope", &row)], |c| {
                let snapshot: Option<Vec<u8>> = c
                    .query_opt(
                        "SELECT data FROM rccrawler_snapshots WHERE scope = $1",
                        &[&row],
                    )?
                    .map(|r| r.try_get(0))
                    .transpose()?;
                let journal = c
                    .query(
                        "SELECT data FROM rccrawler_journal WHERE scope = $1 ORDER BY id",
                        &[&row],
                    )?
                    .iter()
                    .map(|r| r.try_get::<_, Vec<u8>>(0))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(SavedScope {
                    snapshot,
                    journal: journal.concat(),
                    retired: None,
                })
            })?;
        Ok((saved.snapshot.is_some() || !saved.journal.is_empty()).then_some(saved))
    }

    fn opened(&self, claim: &ScopeClaim, figures: ScopeFigures) {
        if let Some(ClaimToken(row)) = claim.token() {
            self.rows.lock().insert(
                row,
                SavedRow {
                    settled: false,
                    unsent: Vec::new(),
                    fetched_saved: figures.fetched,
                },
            );
        }
    }

    fn save(&self, scopes: &dyn ScopeSource, how: Persist) -> Result<(), PersistError> {
        let _saving = self.saving.lock();
        if let Some(e) = self.crawl.failure() {
            return Err(e.into());
        }
        match how {
            // Journal records once a second, not every 100 ms: each send is a transaction the
            // server commits to disk, and ten a second slowed the crawl of one large site by a
            // fifth. Settled scopes are saved at once, so that the crawl moves on.
            Persist::Journal(Durability::Process) => self.send_journal(scopes, Records::Keep),
            Persist::Journal(_) => self.send_journal(scopes, Records::Send),
            Persist::Checkpoint(_) => {
                // See: issue 49 — a budgeted crawl whose budget was spent left every
                // unfinished site out of the SQL tables.
                let tables = self.crawl.budget_spent.load(Ordering::SeqCst);
                for (id, row) in self.held(scopes) {
                    self.save_snapshot(scopes, id, row, None)?;
                    let settled = self.rows.lock().get(&row).is_some_and(|r| r.settled);
                    if tables && !settled {
                        self.crawl.settler.lock().send(Work::Tables {
                            graph: scopes.graph(id),
                            row,
                            origin: scopes.claim(id).origin.to_string(),
                        });
                    }
                }
                Ok(())
            }
        }
    }

    fn retire(
        &self,
        scopes: &dyn ScopeSource,
        scope: ScopeId,
        retired: &RetiredScope,
        _data_written: bool,
    ) -> Result<(), PersistError> {
        let _saving = self.saving.lock();
        let Some(ClaimToken(row)) = scopes.claim(scope).token() else {
            return Ok(());
        };
        if self.rows.lock().get(&row).is_some_and(|r| r.settled) {
            // Handed to the settle thread by a journal save before its results were written.
            self.crawl.settler.lock().send(Work::Written {
                row,
                summary: encode_row(&retired.row),
            });
            return Ok(());
        }
        // Saved as settled with its row by the settle thread, which holds the graph until
        // then.
        self.save_snapshot(scopes, scope, row, Some(&retired.row))
    }

    fn close(&self) -> Result<(), PersistError> {
        Ok(self.crawl.settler.lock().finish()?)
    }

    fn written_before(&self) -> Result<Vec<SiteSummary>, PersistError> {
        let (crawl, folder) = (&self.crawl.crawl, &self.crawl.results_at);
        let found = self.crawl.db.lock().run(
            "reading the sites written here",
            &[("crawl", crawl), ("folder", folder)],
            |c| {
                c.query(
                    "SELECT origin, written_row FROM rccrawler_scopes \
                 WHERE crawl = $1 AND written_to = $2 AND written_row IS NOT NULL ORDER BY id",
                    &[crawl, folder],
                )?
                .iter()
                .map(|r| Ok((r.try_get::<_, String>(0)?, r.try_get::<_, Vec<u8>>(1)?)))
                .collect::<Result<Vec<_>, postgres::Error>>()
            },
        )?;
        found
            .iter()
            .map(|(origin, bytes)| {
                SiteSummary::read(&mut Reader::new(bytes)).map_err(|e| {
                    PgError::Schema(format!("the summary row of {origin} does not decode: {e}"))
                        .into()
                })
            })
            .collect()
    }

    fn written_at_end(&self, rows: &[SiteSummary]) -> Result<(), PersistError> {
        // Whatever happens here, the run is over: the leases of the scopes still held (their
        // files could not be recorded) run out, and another process writes them.
        let _stop = StopRenewing(&self.crawl);
        if rows.is_empty() {
            return Ok(());
        }
        let encoded: Vec<(&str, Vec<u8>)> = rows
            .iter()
            .map(|r| (r.site.as_str(), encode_row(r)))
            .collect();
        let (crawl, folder) = (&self.crawl.crawl, &self.crawl.results_at);
        Ok(self.crawl.db.lock().run(
            "recording the sites written",
            &[
                ("crawl", crawl),
                ("folder", folder),
                ("sites", &encoded.len()),
            ],
            |c| {
                let mut tx = c.transaction()?;
                for (origin, bytes) in &encoded {
                    scope_state::written_at_end(&mut tx, crawl, origin, folder, bytes)?;
                }
                tx.commit()
            },
        )?)
    }
}

/// Stops renewing the process's claims when dropped.
struct StopRenewing<'a>(&'a super::PgCrawl);

impl Drop for StopRenewing<'_> {
    fn drop(&mut self) {
        self.0.stop_renewing();
    }
}

/// A summary.csv row as `written_row` keeps it (the saved state's encoding).
fn encode_row(summary: &SiteSummary) -> Vec<u8> {
    let mut bytes = Vec::new();
    summary.put(&mut bytes);
    bytes
}

/// Records that scope row `row`'s result files are in results folder `folder` (see
/// [`super::results_at`]), with its summary.csv row `summary` (encoded) there.
fn record_written(
    tx: &mut postgres::Transaction<'_>,
    row: i64,
    folder: &str,
    summary: &[u8],
) -> Result<(), postgres::Error> {
    tx.execute(
        "UPDATE rccrawler_scopes SET written_to = $2, written_row = $3 WHERE id = $1",
        &[&row, &folder, &summary],
    )?;
    Ok(())
}

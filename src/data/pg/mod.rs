//! `PgDM`: the crawl in PostgreSQL, shared by every rccrawler process that names the same
//! `CrawlName` (SPEC §10), on one machine or many.
//!
//! Each process crawls whole scopes. It claims a scope by taking a lease on its row (the
//! claim is one `UPDATE`, so two processes never both win), loads the scope's last snapshot
//! and the journal records since, and crawls it in memory with the same engine and data
//! structures as `BMICDM` — a scope is crawled by one process at a time, so politeness per
//! site holds across processes. Every second the records committed since go to the scope's
//! journal table (batches named, so one sent again after a lost connection counts once);
//! every `CheckpointSeconds` and at the end a snapshot replaces them. Every write first
//! checks, under a row lock, that the process still holds the scope: a process that lost its
//! lease (killed, paused, cut off longer than `LeaseSeconds`) can never write over the one
//! that took the scope over.
//!
//! A thread renews the process's leases every third of `LeaseSeconds`. A process killed
//! stops renewing; `LeaseSeconds` later another process claims its scopes and continues them
//! from their last journal record. A process that stops (stop file, Ctrl+C, SIGTERM) hands
//! its unfinished scopes back at once. A process takes `ScopesPerProcess` scopes at a time and
//! more as its own finish; its crawl is over when every scope of the crawl is done. A
//! finished scope's graph is also written into tables for SQL (`rccrawler_pages`, `rccrawler_arcs`, …; see `schema`).

mod catalog;
mod db;
mod lease;
pub mod schema;
mod settle;
mod tables;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use parking_lot::Mutex;

pub use catalog::{ScopeStatus, load_scopes, status};
pub use db::PgError;

use super::scope::ScopeGraph;
use super::{
    DataError, DataManager, Effects, Fetch, InMemoryDataManager, Persist, PersistError, Progress,
    ScopeInfo, ScopeLimits, ScopeOpen, SiteGraph,
};
use crate::ids::{ScopeId, SiteId};
use crate::message::{FetchTask, Outcome};
use crate::settings::Settings;
use crate::site::Origin;
use crate::storage::Durability;
use db::Db;
use lease::LeaseKeeper;
use settle::{Job, Settler};

/// Journal batches with their names, in order.
type Batches = Vec<(String, Vec<u8>)>;

/// A scope this process holds.
#[derive(Debug)]
struct Held {
    /// Its id in this process.
    local: ScopeId,
    /// Its row.
    id: i64,
    origin: Origin,
    /// Finished and saved as done: nothing more to write.
    done: bool,
    /// Journal batches taken from the scope and not yet in the database, with their names.
    unsent: Batches,
    /// Fetches of the scope the database counts (its `fetched`).
    fetched_saved: usize,
}

/// The database data manager.
#[derive(Debug)]
pub struct PgDataManager {
    inner: Arc<InMemoryDataManager>,
    db: Mutex<Db>,
    crawl: String,
    owner: String,
    lease: Duration,
    per_process: usize,
    /// `PageBudget` is set: it is the crawl's, reserved in blocks ([`DataManager::share_budget`]).
    budgeted: bool,
    held: Mutex<Vec<Held>>,
    /// Scopes of the crawl not done and not held here (others crawl them, or nobody yet):
    /// while there are some, this process's work is not done.
    outstanding: AtomicUsize,
    batches: AtomicU64,
    keeper: Mutex<Option<LeaseKeeper>>,
    /// Writes finished scopes' graph tables and marks them done, off the crawl's path.
    settler: Mutex<Settler>,
}

/// This process's name in the database: host, process id and start time, unique enough
/// that two processes never share one.
fn owner_name() -> String {
    let host = std::fs::read_to_string("/etc/hostname")
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "host".to_owned());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{host}:{}:{nanos:x}", std::process::id())
}

/// `spent` fetches saved by `owner`, in the same transaction as the records that hold them:
/// what it had reserved of the page budget is now counted as fetched.
fn spend_reserved(
    tx: &mut postgres::Transaction<'_>,
    crawl: &str,
    owner: &str,
    spent: i64,
) -> Result<(), postgres::Error> {
    if spent > 0 {
        tx.execute(
            "UPDATE rccrawler_processes SET reserved = greatest(reserved - $3, 0) \
             WHERE crawl = $1 AND owner = $2",
            &[&crawl, &owner, &spent],
        )?;
    }
    Ok(())
}

fn lease_secs(lease: Duration) -> f64 {
    lease.as_secs_f64()
}

impl PgDataManager {
    /// Connects to `DatabaseUrl`, brings the schema up to date and starts renewing leases.
    pub fn open(settings: &Settings) -> Result<Arc<dyn DataManager>, PgError> {
        let cfg = &settings.database;
        let mut db = Db::connect(&cfg.url)?;
        schema::migrate(&mut db)?;
        let owner = owner_name();
        let keeper = LeaseKeeper::start(&cfg.url, owner.clone(), cfg.lease)?;
        let inner = Arc::new(InMemoryDataManager::journaled());
        let settler = Settler::start(settle::Setup {
            url: cfg.url.clone(),
            owner: owner.clone(),
            reward: settings.bandit.reward,
            data: Arc::clone(&inner),
        })?;
        Ok(Arc::new(PgDataManager {
            inner,
            db: Mutex::new(db),
            crawl: cfg.crawl.clone(),
            owner,
            lease: cfg.lease,
            per_process: cfg.scopes_per_process.max(1),
            budgeted: settings.bandit.budget > 0,
            held: Mutex::new(Vec::new()),
            outstanding: AtomicUsize::new(0),
            batches: AtomicU64::new(0),
            keeper: Mutex::new(Some(keeper)),
            settler: Mutex::new(settler),
        }))
    }

    /// Scopes held here that still have work.
    fn busy(&self) -> usize {
        self.held
            .lock()
            .iter()
            .filter(|h| !h.done && self.inner.progress(h.local).pending > 0)
            .count()
    }

    /// Counts the scopes outstanding elsewhere, and lists up to `room` scopes nobody holds.
    fn look(&self, room: usize) -> Result<Vec<Origin>, PgError> {
        let (crawl, owner) = (&self.crawl, &self.owner);
        let limit = room as i64;
        // The count is stored under the connection's lock, which claims also hold: a claim
        // is never counted both in the count and in the decrement that follows it.
        let mut db = self.db.lock();
        let (outstanding, origins) = db.run("looking for scopes", |c| {
            let row = c.query_one(
                "SELECT count(*) FROM rccrawler_scopes WHERE crawl = $1 \
                 AND state IN ('queued', 'active') AND owner IS DISTINCT FROM $2",
                &[crawl, owner],
            )?;
            let outstanding: i64 = row.get(0);
            let rows = c.query(
                "SELECT origin FROM rccrawler_scopes WHERE crawl = $1 \
                 AND state IN ('queued', 'active') AND (owner IS NULL OR lease_until < now()) \
                 ORDER BY id LIMIT $2",
                &[crawl, &limit],
            )?;
            let origins: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
            Ok((outstanding, origins))
        })?;
        self.outstanding
            .store(usize::try_from(outstanding).unwrap_or(0), Ordering::SeqCst);
        drop(db);
        Ok(origins.iter().filter_map(|o| Origin::parse(o)).collect())
    }

    fn next_batch(&self) -> String {
        format!(
            "{}:{}",
            self.owner,
            self.batches.fetch_add(1, Ordering::SeqCst)
        )
    }

    /// Saves every held scope that has nothing left to fetch (or was suspended), so that the
    /// others see it settled; with `records`, sends the others' journal records taken so far.
    fn send_journal(&self, records: bool) -> Result<(), PersistError> {
        let mut held = self.held.lock();
        // Fetch counts go with the records that hold them (counted first, so never ahead),
        // and the figures `rccrawler status` shows with them.
        let mut counts: Vec<(i64, usize)> = Vec::new();
        let mut figures: Vec<(i64, i64, i64)> = Vec::new();
        for h in held.iter_mut().filter(|h| !h.done) {
            if self.settled(h).is_some() {
                self.save_snapshot(h)?;
                // Whether the crawl is over now depends on the others' scopes.
                self.look(0)?;
                continue;
            }
            if !records {
                continue;
            }
            let fetched = self.inner.fetches_of(h.local);
            if fetched > h.fetched_saved {
                counts.push((h.id, fetched));
                let p = self.inner.progress(h.local);
                figures.push((h.id, p.pages as i64, p.pending as i64));
            }
            let bytes = self.inner.take_journal(h.local);
            if !bytes.is_empty() {
                let name = self.next_batch();
                h.unsent.push((name, bytes));
            }
        }
        let work: Vec<(i64, String, Batches)> = held
            .iter()
            .filter(|h| !h.unsent.is_empty())
            .map(|h| (h.id, h.origin.to_string(), h.unsent.clone()))
            .collect();
        if work.is_empty() {
            return Ok(());
        }
        let spent: usize = counts
            .iter()
            .map(|&(id, n)| {
                n - held
                    .iter()
                    .find(|h| h.id == id)
                    .map_or(n, |h| h.fetched_saved)
            })
            .sum();
        let (owner, crawl) = (&self.owner, &self.crawl);
        let lost = self.db.lock().run("saving the journal", |c| {
            let mut tx = c.transaction()?;
            let ids: Vec<i64> = work.iter().map(|w| w.0).collect();
            let rows = tx.query(
                "SELECT id FROM rccrawler_scopes WHERE id = ANY($1) AND owner = $2 \
                 AND state = 'active' FOR UPDATE",
                &[&ids, owner],
            )?;
            let owned: Vec<i64> = rows.iter().map(|r| r.get(0)).collect();
            if let Some(w) = work.iter().find(|w| !owned.contains(&w.0)) {
                return Ok(Some(w.1.clone()));
            }
            for (id, _, batches) in &work {
                for (name, data) in batches {
                    tx.execute(
                        "INSERT INTO rccrawler_journal (scope, batch, data) VALUES ($1, $2, $3) \
                         ON CONFLICT (scope, batch) DO NOTHING",
                        &[id, name, data],
                    )?;
                }
            }
            for ((id, n), (_, pages, pending)) in counts.iter().zip(&figures) {
                tx.execute(
                    "UPDATE rccrawler_scopes SET fetched = $2, pages = $3, pending = $4 WHERE id = $1",
                    &[id, &(*n as i64), pages, pending],
                )?;
            }
            spend_reserved(&mut tx, crawl, owner, spent as i64)?;
            tx.commit()?;
            Ok(None)
        })?;
        if let Some(origin) = lost {
            return Err(PgError::LeaseLost(origin).into());
        }
        for h in held.iter_mut() {
            h.unsent.clear();
            if let Some(&(_, n)) = counts.iter().find(|(id, _)| *id == h.id) {
                h.fetched_saved = n;
            }
        }
        Ok(())
    }

    /// The state a held scope is saved in when this process is through with it: `done`
    /// (nothing left to fetch) or `stopped` (its site was suspended: down, or its page limit);
    /// `None` while it is being crawled.
    fn settled(&self, h: &Held) -> Option<&'static str> {
        if self.inner.progress(h.local).pending == 0 {
            Some("done")
        } else if !self.inner.is_active(h.local) {
            Some("stopped")
        } else {
            None
        }
    }

    /// Replaces every held scope's journal with a snapshot.
    fn checkpoint(&self) -> Result<(), PersistError> {
        let mut held = self.held.lock();
        for h in held.iter_mut().filter(|h| !h.done) {
            self.save_snapshot(h)?;
        }
        Ok(())
    }

    /// Replaces scope `h`'s journal with a snapshot; a settled scope then goes to the settle
    /// thread (graph tables, state, release).
    fn save_snapshot(&self, h: &mut Held) -> Result<(), PersistError> {
        let settled = self.settled(h);
        let fetched_now = self.inner.fetches_of(h.local);
        let (snapshot, rest) = self.inner.snapshot(h.local);
        if !rest.is_empty() {
            let name = self.next_batch();
            h.unsent.push((name, rest));
        }
        let progress = self.inner.progress(h.local);
        let fetched = fetched_now as i64;
        let spent = fetched_now.saturating_sub(h.fetched_saved) as i64;
        let crawl = &self.crawl;
        let (id, owner) = (h.id, &self.owner);
        let (pages, pending) = (progress.pages as i64, progress.pending as i64);
        // Named, so that a save whose commit was not acknowledged (the connection broke) and
        // is tried again is recognised as done rather than as a lease lost.
        let save = self.next_batch();
        let saved = self.db.lock().run("saving a snapshot", |c| {
            let mut tx = c.transaction()?;
            let row = tx.query_opt(
                "SELECT owner = $2 AND state = 'active', last_save = $3 \
                 FROM rccrawler_scopes WHERE id = $1 FOR UPDATE",
                &[&id, owner, &save],
            )?;
            let (mine, done_before) = row.map_or((false, false), |r| {
                (
                    r.get::<_, Option<bool>>(0).unwrap_or(false),
                    r.get::<_, Option<bool>>(1).unwrap_or(false),
                )
            });
            if done_before {
                return Ok(true);
            }
            if !mine {
                return Ok(false);
            }
            tables::write_snapshot(&mut tx, id, &snapshot)?;
            tx.execute(
                "UPDATE rccrawler_scopes SET checkpoint_at = now(), \
                 pages = $2, pending = $3, fetched = $4, last_save = $5 WHERE id = $1",
                &[&id, &pages, &pending, &fetched, &save],
            )?;
            spend_reserved(&mut tx, crawl, owner, spent)?;
            tx.commit()?;
            Ok(true)
        })?;
        if !saved {
            return Err(PgError::LeaseLost(h.origin.to_string()).into());
        }
        h.unsent.clear();
        h.fetched_saved = fetched_now;
        if let Some(state) = settled {
            // Its tables are written and it is marked settled by the settle thread.
            self.settler.lock().send(Job {
                local: h.local,
                id: h.id,
                origin: h.origin.to_string(),
                state,
                save: self.next_batch(),
            });
            h.done = true;
        }
        Ok(())
    }
}

impl DataManager for PgDataManager {
    fn register_seeds(&self, seeds: &[Origin]) -> Result<(), DataError> {
        let origins: Vec<String> = seeds.iter().map(Origin::to_string).collect();
        let mut sorted = origins.clone();
        sorted.sort();
        let listed = sorted.join("\n");
        let crawl = &self.crawl;
        let refused = self.db.lock().run("registering the seeds", |c| {
            let mut tx = c.transaction()?;
            tx.execute(
                "INSERT INTO rccrawler_crawls (name, seeds) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                &[crawl, &listed],
            )?;
            let known: String = tx
                .query_one(
                    "SELECT seeds FROM rccrawler_crawls WHERE name = $1 FOR UPDATE",
                    &[crawl],
                )?
                .get(0);
            // Scopes held under a live lease: other processes are crawling.
            let live: i64 = tx
                .query_one(
                    "SELECT count(*) FROM rccrawler_scopes WHERE crawl = $1 \
                     AND state = 'active' AND lease_until > now()",
                    &[crawl],
                )?
                .get(0);
            if known != listed {
                if live > 0 {
                    return Ok(Some(live));
                }
                tx.execute(
                    "UPDATE rccrawler_crawls SET seeds = $2 WHERE name = $1",
                    &[crawl, &listed],
                )?;
            }
            if live == 0 {
                // A new run of the crawl: sites suspended in the last one are tried again,
                // as one process's continued crawl tries them again.
                tx.execute(
                    "UPDATE rccrawler_scopes SET state = 'queued' WHERE crawl = $1 AND state = 'stopped'",
                    &[crawl],
                )?;
            }
            tx.execute(
                "INSERT INTO rccrawler_scopes (crawl, origin) SELECT $1, o FROM unnest($2::text[]) AS o \
                 ON CONFLICT (crawl, origin) DO UPDATE SET state = 'queued' \
                 WHERE rccrawler_scopes.state = 'removed'",
                &[crawl, &origins],
            )?;
            tx.execute(
                "UPDATE rccrawler_scopes SET state = 'removed', owner = NULL, lease_until = NULL \
                 WHERE crawl = $1 AND origin <> ALL($2) AND state IN ('queued', 'active')",
                &[crawl, &origins],
            )?;
            tx.commit()?;
            Ok(None)
        })?;
        if refused.is_none() {
            // Other processes' work counts as this one's until it is done (the crawl is over
            // when every scope is): known before the engine first asks.
            self.look(0)?;
        }
        if let Some(live) = refused {
            return Err(DataError::Refused(format!(
                "crawl {crawl:?} is being crawled by other processes ({live} scopes held) \
                 with a different hosts.txt: give every process the same hosts.txt, \
                 or edit it while none runs"
            )));
        }
        Ok(())
    }

    fn open_scope(
        &self,
        origin: Origin,
        site: SiteId,
        limits: ScopeLimits,
    ) -> Result<Option<(ScopeId, ScopeOpen)>, DataError> {
        if self.busy() >= self.per_process {
            return Ok(None);
        }
        let (crawl, owner, name) = (&self.crawl, &self.owner, origin.to_string());
        let secs = lease_secs(self.lease);
        let mut db = self.db.lock();
        let claimed = db.run("claiming a scope", |c| {
            let mut tx = c.transaction()?;
            let row = tx.query_opt(
                "UPDATE rccrawler_scopes SET state = 'active', owner = $3, \
                 lease_until = now() + make_interval(secs => $4) \
                 WHERE crawl = $1 AND origin = $2 AND state IN ('queued', 'active') \
                 AND (owner IS NULL OR owner = $3 OR lease_until < now()) \
                 RETURNING id, (SELECT data FROM rccrawler_snapshots WHERE scope = id)",
                &[crawl, &name, owner, &secs],
            )?;
            let Some(row) = row else {
                return Ok(None);
            };
            let id: i64 = row.get(0);
            let snapshot: Option<Vec<u8>> = row.get(1);
            let journal: Vec<Vec<u8>> = tx
                .query(
                    "SELECT data FROM rccrawler_journal WHERE scope = $1 ORDER BY id",
                    &[&id],
                )?
                .iter()
                .map(|r| r.get(0))
                .collect();
            tx.commit()?;
            Ok(Some((id, snapshot, journal.concat())))
        })?;
        let Some((id, snapshot, journal)) = claimed else {
            return Ok(None);
        };
        // It was counted as outstanding elsewhere (nobody held it, or its lease had run out).
        let _ = self
            .outstanding
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                Some(n.saturating_sub(1))
            });
        drop(db);
        if snapshot.is_some() || !journal.is_empty() {
            let g = ScopeGraph::recover(snapshot.as_deref(), &journal)?;
            self.inner.adopt(g);
        }
        let opened = self.inner.open_scope(origin.clone(), site, limits)?;
        if let Some((local, _)) = opened {
            self.held.lock().push(Held {
                local,
                id,
                origin,
                done: false,
                unsent: Vec::new(),
                fetched_saved: self.inner.fetches_of(local),
            });
        }
        Ok(opened)
    }

    fn more_seeds(&self) -> Result<Vec<Origin>, DataError> {
        let room = self.per_process.saturating_sub(self.busy());
        Ok(self.look(room)?)
    }

    fn hand_back(&self) -> Result<(), PersistError> {
        // Finished scopes first (their leases are renewed meanwhile).
        let settled = self.settler.lock().finish();
        if let Some(k) = self.keeper.lock().take() {
            k.stop();
        }
        let owner = &self.owner;
        self.db.lock().run("handing back scopes", |c| {
            let mut tx = c.transaction()?;
            tx.execute(
                "UPDATE rccrawler_scopes SET owner = NULL, lease_until = NULL, \
                 state = CASE WHEN state = 'active' THEN 'queued' ELSE state END \
                 WHERE owner = $1",
                &[owner],
            )?;
            // Budget reserved and not spent goes back to the crawl.
            tx.execute("DELETE FROM rccrawler_processes WHERE owner = $1", &[owner])?;
            tx.commit()
        })?;
        settled?;
        Ok(())
    }

    fn add_seed(&self, scope: ScopeId, origin: Origin, site: SiteId) -> Result<(), DataError> {
        self.inner.add_seed(scope, origin, site)
    }

    fn scope_sites(&self, scope: ScopeId) -> Vec<(Origin, Option<SiteId>)> {
        self.inner.scope_sites(scope)
    }

    fn bind_site(&self, scope: ScopeId, origin: &Origin, site: SiteId) {
        self.inner.bind_site(scope, origin, site);
    }

    fn scopes(&self) -> Vec<ScopeInfo> {
        self.inner.scopes()
    }

    fn home_origins(&self, scope: ScopeId) -> Vec<Origin> {
        self.inner.home_origins(scope)
    }

    fn claim(&self, scope: ScopeId, site: SiteId) -> Option<FetchTask> {
        self.inner.claim(scope, site)
    }

    fn release(&self, task: &FetchTask) {
        self.inner.release(task);
    }

    fn retry(&self, task: &FetchTask, max: u32) -> Option<u32> {
        self.inner.retry(task, max)
    }

    fn suspend(&self, scope: ScopeId) {
        self.inner.suspend(scope);
    }

    fn commit(&self, outcome: &Outcome) -> Result<Effects, DataError> {
        self.inner.commit(outcome)
    }

    fn pending(&self) -> usize {
        self.inner.pending() + self.outstanding.load(Ordering::SeqCst)
    }

    fn progress(&self, scope: ScopeId) -> Progress {
        self.inner.progress(scope)
    }

    fn fetches(&self) -> Vec<Fetch> {
        self.inner.fetches()
    }

    fn with_graph(&self, scope: ScopeId, f: &mut dyn FnMut(&SiteGraph<'_>)) {
        self.inner.with_graph(scope, f);
    }

    fn memory_bytes(&self) -> usize {
        self.inner.memory_bytes()
    }

    fn persist(&self, how: Persist) -> Result<(), PersistError> {
        if let Some(k) = self.keeper.lock().as_ref()
            && let Some(e) = k.failure()
        {
            return Err(e.into());
        }
        if let Some(e) = self.settler.lock().failure() {
            return Err(PgError::Schema(format!("settling a finished scope: {e}")).into());
        }
        match how {
            // Journal records once a second, not every 100 ms: each send is a transaction the
            // server commits to disk, and ten a second slowed the crawl of one large site by a
            // fifth. Finished scopes are saved at once, so that the crawl moves on.
            Persist::Journal(Durability::Process) => self.send_journal(false),
            Persist::Journal(_) => self.send_journal(true),
            Persist::Checkpoint(_) => self.checkpoint(),
        }
    }

    fn saves_state(&self) -> bool {
        true
    }

    fn shares_budget(&self) -> bool {
        self.budgeted
    }

    fn share_budget(&self, total: u64, want: u64) -> Result<(u64, bool), DataError> {
        let (crawl, owner) = (&self.crawl, &self.owner);
        let (total, want) = (total as i64, want as i64);
        let secs = lease_secs(self.lease);
        let (granted, last) = self.db.lock().run("reserving page budget", |c| {
            let mut tx = c.transaction()?;
            // One reservation at a time per crawl: the crawl's row is the lock.
            tx.execute(
                "UPDATE rccrawler_crawls SET budget = $2 WHERE name = $1",
                &[crawl, &total],
            )?;
            // One statement, so one snapshot: a journal saved meanwhile moves fetches from
            // `reserved` to `fetched` in one transaction, and two statements could see it
            // half (and grant those fetches twice).
            let row = tx.query_one(
                "SELECT (SELECT coalesce(sum(fetched), 0)::bigint FROM rccrawler_scopes \
                 WHERE crawl = $1), \
                 coalesce(sum(reserved) FILTER (WHERE owner = $2), 0)::bigint, \
                 coalesce(sum(reserved) FILTER (WHERE owner <> $2), 0)::bigint \
                 FROM rccrawler_processes WHERE crawl = $1 AND (lease_until > now() OR owner = $2)",
                &[crawl, owner],
            )?;
            let fetched: i64 = row.get(0);
            let (mine, others): (i64, i64) = (row.get(1), row.get(2));
            let free = (total - fetched - mine - others).max(0);
            let granted = want.min(free);
            tx.execute(
                "INSERT INTO rccrawler_processes (crawl, owner, reserved, lease_until) \
                 VALUES ($1, $2, $3, now() + make_interval(secs => $4)) \
                 ON CONFLICT (crawl, owner) DO UPDATE SET reserved = rccrawler_processes.reserved + $3, \
                 lease_until = excluded.lease_until",
                &[crawl, owner, &granted, &secs],
            )?;
            tx.commit()?;
            // Nothing left, and nobody holds any that could come back.
            Ok((granted, free == granted && others == 0))
        })?;
        Ok((granted as u64, last))
    }
}

impl Drop for PgDataManager {
    fn drop(&mut self) {
        if let Some(k) = self.keeper.lock().take() {
            k.stop();
        }
    }
}

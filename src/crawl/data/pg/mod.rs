//! `PgDM`: the crawl in PostgreSQL, shared by every rccrawler process that names the same
//! `CrawlName` (SPEC §10), on one machine or many. Two halves over one connection:
//!
//! - [`PgCoordinator`] (a `Coordinator`): a process claims whole scopes, each by taking a lease
//!   on its row (one `UPDATE`, so two processes never both win), renews its leases every third
//!   of `LeaseSeconds` (a thread of its own), takes `ScopesPerProcess` scopes at a time and more
//!   as its own finish, and shares the page budget with the others in blocks. A process killed
//!   stops renewing; `LeaseSeconds` later another claims its scopes. A process that stops
//!   (stop file, Ctrl+C, SIGTERM) hands its unfinished scopes back at once. Its crawl is over
//!   when every scope of the crawl is done.
//! - [`PgStore`] (a `Persistence`): a claimed scope is loaded from its last snapshot and the
//!   journal records since, and crawled in memory with the same engine and data structures as
//!   `BMICDM` — one process at a time, so politeness per site holds across processes. Every
//!   second the records committed since go to the scope's journal table (batches named, so one
//!   sent again after a lost connection counts once); every `CheckpointSeconds` a snapshot
//!   replaces them. Every write first checks, under a row lock, that the process still holds
//!   the scope. A finished scope is saved at once and its graph tables for SQL
//!   (`rccrawler_pages`, `rccrawler_arcs`, …; see [`schema`]) are written off the crawl's path.
//!
//! A scope's states and every transition between them are in [`scope_state`].

mod catalog;
mod coord;
mod db;
mod register;
mod renew;
pub mod schema;
pub mod scope_state;
mod settle;
mod store;
mod tables;

use std::num::NonZeroUsize;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use parking_lot::Mutex;

pub use catalog::{ScopeStatus, read_saved, status};
pub use coord::PgCoordinator;
pub use db::PgError;
pub use scope_state::ScopeState;
pub use store::PgStore;

use crate::crawl::settings::Settings;
use crate::model::site::Origin;
use db::{Db, bigint};
use renew::ClaimRenewer;
use settle::Settler;

/// What a process's store and coordinator share: its connection, its name in the database,
/// the thread renewing its claims and the one settling its finished scopes.
#[derive(Debug)]
pub(crate) struct PgCrawl {
    db: Mutex<Db>,
    /// `CrawlName`.
    crawl: String,
    /// This process's name (host, pid, start time).
    owner: String,
    /// `LeaseSeconds`.
    lease: Duration,
    renewer: Mutex<Option<ClaimRenewer>>,
    /// Writes finished scopes' graph tables and marks them settled, off the crawl's path.
    settler: Mutex<Settler>,
    /// Scopes of the crawl not done and not held here (others crawl them, or nobody yet):
    /// while there are some, this process's work is not done.
    outstanding: AtomicUsize,
    /// One process at a time crawls the crawl (it has a `PageBudget`): see [`open`].
    exclusive: bool,
    /// The console was told that another process holds the crawl.
    said_waiting: AtomicBool,
    /// The crawl's page budget is spent (no more will be granted): the scopes this process
    /// holds unfinished get their graph tables at the next checkpoint, the run's last.
    budget_spent: AtomicBool,
    /// This process's results folder, named across runs and machines (see [`results_at`]).
    results_at: String,
}

/// The results folder as the database names it: host and absolute path. A process started
/// again in the same folder (after a stop, or `kill -9`) finds the rows of the sites its
/// earlier runs wrote there; a process on another machine, or in another folder, does not.
fn results_at(settings: &Settings) -> String {
    let folder = &settings.results.folder;
    let path = std::path::absolute(folder).unwrap_or_else(|_| folder.clone());
    format!("{}:{}", host_name(), path.display())
}

/// This machine's name, as `/etc/hostname` gives it.
fn host_name() -> String {
    std::fs::read_to_string("/etc/hostname")
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "host".to_owned())
}

/// This process's name in the database: host, process id and start time, unique enough
/// that two processes never share one.
fn owner_name() -> String {
    let host = host_name();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{host}:{}:{nanos:x}", std::process::id())
}

/// Connects to `DatabaseUrl`, brings the schema up to date and starts renewing claims: the
/// store and the coordinator of one `PgDM` process.
///
/// A crawl with a `PageBudget` is crawled by one process at a time, which holds all of its
/// scopes: the budget rule decides which site gets each page from what every site has
/// yielded, and a rule run by each process over the scopes it holds spends the budget by
/// process instead (two processes holding half the sites each spend half the budget each,
/// whatever the sites yield). The other processes wait; when the one crawling stops or dies
/// (its leases run out), one of them takes every scope over, and its rule learns what each
/// recorded fetch yielded before it chooses. `ScopesPerProcess` does not apply.
pub fn open(settings: &Settings) -> Result<(PgStore, PgCoordinator), PgError> {
    let cfg = &settings.database;
    let mut db = Db::connect(&cfg.url)?;
    schema::migrate(&mut db)?;
    let owner = owner_name();
    let renewer = ClaimRenewer::start(&cfg.url, owner.clone(), cfg.lease)?;
    let settler = Settler::start(settle::Setup {
        url: cfg.url.clone(),
        crawl: cfg.crawl.clone(),
        owner: owner.clone(),
        folder: results_at(settings),
        reward: settings.bandit.reward,
    })?;
    let crawl = Arc::new(PgCrawl {
        db: Mutex::new(db),
        crawl: cfg.crawl.clone(),
        owner,
        lease: cfg.lease,
        renewer: Mutex::new(Some(renewer)),
        settler: Mutex::new(settler),
        outstanding: AtomicUsize::new(0),
        exclusive: settings.bandit.is_budgeted(),
        said_waiting: AtomicBool::new(false),
        budget_spent: AtomicBool::new(false),
        results_at: results_at(settings),
    });
    let store = PgStore::new(Arc::clone(&crawl));
    let per_process = if settings.bandit.is_budgeted() {
        usize::MAX
    } else {
        cfg.scopes_per_process.map_or(usize::MAX, NonZeroUsize::get)
    };
    let coordinator = PgCoordinator::new(crawl, per_process, settings.bandit.is_budgeted());
    Ok((store, coordinator))
}

impl PgCrawl {
    /// Counts the scopes outstanding elsewhere, and lists up to `room` scopes nobody holds.
    fn look(&self, room: usize) -> Result<Vec<Origin>, PgError> {
        let (crawl, owner) = (&self.crawl, &self.owner);
        let limit = bigint(room);
        // The count is stored under the connection's lock, which claims also hold: a claim
        // is never counted both in the count and in the decrement that follows it.
        let mut db = self.db.lock();
        let exclusive = self.exclusive;
        let (outstanding, origins, elsewhere) = db.run(
            "looking for scopes",
            &[("crawl", crawl), ("owner", owner), ("limit", &limit)],
            |c| {
                let outstanding = scope_state::outstanding(c, crawl, owner)?;
                let elsewhere = if exclusive {
                    scope_state::held_elsewhere(c, crawl, owner)?
                } else {
                    0
                };
                let origins = if elsewhere > 0 {
                    Vec::new()
                } else {
                    scope_state::claimable(c, crawl, limit)?
                };
                Ok((outstanding, origins, elsewhere))
            },
        )?;
        self.outstanding
            .store(usize::try_from(outstanding).unwrap_or(0), Ordering::SeqCst);
        drop(db);
        self.waiting_for(elsewhere);
        Ok(origins.iter().filter_map(|o| Origin::parse(o)).collect())
    }

    /// Says once that this process waits for the one crawling a budgeted crawl (which holds
    /// `elsewhere` scopes, if any).
    fn waiting_for(&self, elsewhere: i64) {
        if elsewhere > 0 && !self.said_waiting.swap(true, Ordering::Relaxed) {
            eprintln!(
                "another process crawls this budgeted crawl: one process at a time holds a crawl with a PageBudget, so one rule chooses among all its sites; this one waits, and takes the crawl over if that process stops"
            );
        }
    }

    /// Why writes must stop, if the claims could not be renewed or a scope not settled.
    fn failure(&self) -> Option<PgError> {
        if let Some(e) = self.renewer.lock().as_ref().and_then(ClaimRenewer::failure) {
            return Some(e);
        }
        self.settler.lock().failure()
    }

    /// Stops renewing claims.
    fn stop_renewing(&self) {
        if let Some(r) = self.renewer.lock().take() {
            r.stop();
        }
    }
}

impl Drop for PgCrawl {
    fn drop(&mut self) {
        self.stop_renewing();
    }
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

//! The in-memory data manager, the one [`DataManager`](super::DataManager) (`BMICDM` and `PgDM` differ in where
//! it saves, a [`Persistence`] backend, and in how processes share the crawl, a
//! `Coordinator`). The paper's version was a Boost multi-index container; here each scope is
//! one [`ScopeGraph`] (hash indexes by URL and by content, link arena, level-bucket
//! frontiers) behind its own lock, so scopes never contend and one commit is one short
//! critical section.
//!
//! Why not one `DashMap` per index: a commit must intern a page's links, lower levels and
//! queue URLs as one atomic step (a half-applied commit would let the work-is-done check see
//! zero pending URLs too early), and the URL index must assign ids in commit order so the
//! journal can re-apply them. A per-scope lock gives both; the interner also stores each URL
//! string once with 4 bytes of overhead instead of a key copy per index.
//!
//! When the backend saves, every commit also leaves a journal record in its scope (written
//! under the same lock, so in commit order); [`TaskData::persist`] hands the backend the
//! scopes ([`ScopeSource`]) to take those records and snapshots from.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use parking_lot::RwLock;

use std::collections::HashMap;

use super::coord::ScopeClaim;
pub use super::parking::GraphHandle;
use super::parking::{LockedScope, Parking};
use super::persist::{NoStore, Persistence, SavedScope, ScopeFigures, ScopeSource};
use super::retired::{RetiredAt, RetiredScope, RetiredTable};
use super::scope::{Journaling, ScopeGraph};
use super::summary::SiteSummary;
use super::{
    DataError, Effects, Fetch, Persist, PersistError, Progress, RetireError, ScopeData, ScopeInfo,
    ScopeLimits, ScopeOpen, SiteGraph, TaskData, WriteResults,
};
use crate::base::ids::{ScopeId, SiteId, UrlId};
use crate::crawl::message::{FetchTask, HopClaim, Outcome, TaskKind};
use crate::model::site::Origin;
use crate::model::url_norm::NormUrl;

/// A scope of at least this many pages has its data saved while its results are written, on a
/// thread of its own (`retire_with`): on the Rust documentation (31,564 pages) the file took
/// 0.10 s after 0.18 s of result files, at the very end of the crawl. A smaller scope's file
/// takes a few milliseconds at most, less than is worth a thread, and a crawl of thousands
/// of small sites retires them as before.
const BESIDE_PAGES: usize = 1000;

/// A scope as the data manager holds it.
#[derive(Debug, Clone)]
enum Slot {
    /// In memory.
    Live(Arc<LockedScope>),
    /// Written and released: only its row and figures are kept, in [`RetiredTable`].
    Retired(RetiredAt),
}

/// The in-memory data manager.
#[derive(Debug)]
pub struct InMemoryDataManager {
    /// Every scope, by id (its number in the saved state).
    scopes: RwLock<Vec<Slot>>,
    /// What is kept of the retired scopes.
    retired: RwLock<RetiredTable>,
    /// Scope ids by their first seed's origin.
    by_origin: RwLock<HashMap<Origin, ScopeId>>,
    pending: AtomicUsize,
    /// The number of the next fetch (over every scope and run).
    next_seq: AtomicU64,
    store: Box<dyn Persistence>,
    /// Held while the backend saves and while a scope is retired: a save sees every scope
    /// either live or retired, never one changing in between.
    persisting: parking_lot::Mutex<()>,
    /// Scopes of at least this many pages save their data beside their results
    /// ([`BESIDE_PAGES`]; tests lower it).
    beside_pages: usize,
    /// Which scopes are live and which parked.
    parking: Parking,
}

impl Default for InMemoryDataManager {
    fn default() -> Self {
        Self::new()
    }
}

impl InMemoryDataManager {
    /// An empty data manager that saves nothing.
    pub fn new() -> Self {
        InMemoryDataManager {
            scopes: RwLock::new(Vec::new()),
            retired: RwLock::new(RetiredTable::default()),
            by_origin: RwLock::new(HashMap::new()),
            pending: AtomicUsize::new(0),
            next_seq: AtomicU64::new(0),
            store: Box::new(NoStore),
            persisting: parking_lot::Mutex::new(()),
            beside_pages: BESIDE_PAGES,
            parking: Parking::default(),
        }
    }

    /// Keeps at most `n` scopes live, parking the idle ones beyond (`ScopesInMemory`).
    pub fn set_scopes_in_memory(&mut self, n: usize) {
        self.parking = Parking::new(n);
    }

    /// Scopes of at least `pages` pages save their data beside their results.
    #[cfg(test)]
    pub(crate) fn set_beside_pages(&mut self, pages: usize) {
        self.beside_pages = pages;
    }

    /// A data manager that saves into `store`, holding what it recovered (inactive until
    /// [`ScopeData::open_scope`] opens them by their origin).
    pub fn with_store(store: Box<dyn Persistence>) -> Result<Self, DataError> {
        Self::with_store_keeping(store, super::parking::AUTO_SCOPES_IN_MEMORY)
    }

    /// [`Self::with_store`], keeping at most `scopes_in_memory` scopes live (`ScopesInMemory`):
    /// the recovered ones beyond are parked as they are loaded.
    pub fn with_store_keeping(
        store: Box<dyn Persistence>,
        scopes_in_memory: usize,
    ) -> Result<Self, DataError> {
        let dm = InMemoryDataManager {
            store,
            parking: Parking::new(scopes_in_memory),
            ..Self::new()
        };
        for saved in dm.store.recovered()? {
            match saved.retired {
                Some(r) => {
                    let at = dm.retired.write().push(&r);
                    dm.push_slot(Slot::Retired(at), r.origin.clone());
                }
                None => {
                    dm.adopt(&saved)?;
                    dm.park_idle();
                }
            }
        }
        Ok(dm)
    }

    /// Holds a scope as it was saved (open with its own limits, bound to no site), to read
    /// its graph: `rccrawler export`.
    pub fn hold_saved(&self, saved: &SavedScope) -> Result<(ScopeId, Origin), DataError> {
        let id = self.adopt(saved)?;
        let scope = self.scope(id);
        let held = scope.held();
        scope.active.store(true, Ordering::SeqCst);
        self.pending.fetch_add(held.pending(), Ordering::SeqCst);
        Ok((id, held.origin().clone()))
    }

    /// Checks that a state folder's saved state decodes (snapshot blobs, then journal
    /// records), returning the number of scopes. Damaged bytes give an error, never a panic:
    /// the fuzz target's entry.
    pub fn check_saved_state(
        recovered: &crate::base::storage::Recovered,
    ) -> Result<usize, DataError> {
        let scopes = super::persist::files::split_scopes(recovered)?;
        for s in scopes.iter().filter(|s| s.retired.is_none()) {
            ScopeGraph::recover(s.snapshot.as_deref(), &s.journal)?;
        }
        Ok(scopes.len())
    }

    /// Adds a slot, the scope of `origin`, as the next scope id.
    fn push_slot(&self, slot: Slot, origin: Origin) -> ScopeId {
        let mut scopes = self.scopes.write();
        let id = ScopeId(scopes.len() as u32);
        self.by_origin.write().insert(origin, id);
        scopes.push(slot);
        id
    }

    /// Adds a scope saved elsewhere, inactive until it is opened by its origin; its number in
    /// the saved state is its place here.
    fn adopt(&self, saved: &SavedScope) -> Result<ScopeId, DataError> {
        let mut g = ScopeGraph::recover(saved.snapshot.as_deref(), &saved.journal)?;
        g.set_index(self.scopes.read().len() as u32);
        let next = g.pulls().map(|p| p.seq + 1).max().unwrap_or(0);
        self.next_seq.fetch_max(next, Ordering::SeqCst);
        let origin = g.origin().clone();
        let slot = Slot::Live(Arc::new(LockedScope::new(g, false, None)));
        let id = self.push_slot(slot, origin);
        self.parking.went_live(id);
        Ok(id)
    }

    /// The slot of `id`.
    fn slot(&self, id: ScopeId) -> Slot {
        self.scopes.read()[id.0 as usize].clone()
    }

    /// What is kept of retired scope `at`.
    fn retired_scope(&self, at: RetiredAt) -> RetiredScope {
        self.retired.read().get(at)
    }

    /// The scope `id`, in memory. The engine never asks for a retired scope: every task of it
    /// had ended before it was retired.
    fn scope(&self, id: ScopeId) -> Arc<LockedScope> {
        match self.slot(id) {
            Slot::Live(s) => s,
            Slot::Retired(at) => panic!(
                "scope {} ({}) was used after it was written and released",
                id.0,
                self.retired_scope(at).origin
            ),
        }
    }

    /// Runs `f` on a scope and keeps the total of pending URLs in step with it.
    fn update<R>(&self, id: ScopeId, f: impl FnOnce(&mut ScopeGraph) -> R) -> R {
        self.update_scope(id, &self.scope(id), f)
    }

    /// [`Self::update`] of `scope`, scope `id` looked up already.
    fn update_scope<R>(
        &self,
        id: ScopeId,
        scope: &LockedScope,
        f: impl FnOnce(&mut ScopeGraph) -> R,
    ) -> R {
        let mut g = self.parking.write(id, scope);
        let before = g.pending();
        let r = f(&mut g);
        let after = g.pending();
        if scope.active.load(Ordering::SeqCst) {
            if after > before {
                self.pending.fetch_add(after - before, Ordering::SeqCst);
            } else {
                self.pending.fetch_sub(before - after, Ordering::SeqCst);
            }
        }
        r
    }

    /// Parks every scope that can be, whatever the limit; how many were.
    #[cfg(test)]
    pub(crate) fn park_all(&self) -> usize {
        (0..self.scope_count())
            .filter(|&i| match self.slot(ScopeId(i as u32)) {
                Slot::Live(s) => s.park_now(&self.parking),
                Slot::Retired(_) => false,
            })
            .count()
    }

    /// Sweeps made for parking so far.
    #[cfg(test)]
    pub(crate) fn sweeps(&self) -> usize {
        self.parking.sweeps.load(Ordering::Relaxed)
    }

    /// Whether scope `id` is parked.
    #[cfg(test)]
    pub(crate) fn is_parked(&self, id: ScopeId) -> bool {
        matches!(self.slot(id), Slot::Live(s) if s.held().is_parked())
    }

    /// [`ScopeGraph::state_text`] of scope `id` (thawed if parked).
    #[cfg(test)]
    pub(crate) fn state_text(&self, id: ScopeId) -> String {
        self.parking.write(id, &self.scope(id)).state_text()
    }

    /// Parks idle scopes while more than `ScopesInMemory` are live ([`Parking::sweep`]).
    fn park_idle(&self) {
        if self.parking.over() {
            self.parking.sweep(&|id| match self.slot(id) {
                Slot::Live(s) => Some(s),
                Slot::Retired(_) => None,
            });
        }
    }

    /// Activates scope `id` for this run.
    fn activate(&self, id: ScopeId, claim: ScopeClaim, site: SiteId, limits: ScopeLimits) {
        let scope = self.scope(id);
        let mut g = self.parking.write(id, &scope);
        g.bind_site(&claim.origin, site);
        g.set_limits(
            (limits.max_level, limits.traps, limits.obey_nofollow),
            (limits.max_pages, limits.max_urls),
        );
        if !scope.active.swap(true, Ordering::SeqCst) {
            self.pending.fetch_add(g.pending(), Ordering::SeqCst);
        }
        drop(g);
        self.store.opened(&claim, self.figures(id));
        *scope.claim.write() = Some(claim);
    }

    /// Retires settled scope `scope` with its summary `row` (see [`ScopeData::retire`]); its
    /// data is already saved where the backend keeps retired scopes if `data_written`.
    fn retire_saved(
        &self,
        scope: ScopeId,
        row: Arc<SiteSummary>,
        data_written: bool,
    ) -> Result<(), PersistError> {
        let Slot::Live(s) = self.slot(scope) else {
            return Ok(());
        };
        let (retired, active) = {
            let g = s.held();
            let retired = RetiredScope {
                index: scope.0,
                origin: g.origin().clone(),
                finished: g.pending() == 0,
                pending: g.pending(),
                outcomes: g.outcomes(),
                row,
            };
            (retired, s.active.load(Ordering::SeqCst))
        };
        let _saving = self.persisting.lock();
        self.store.retire(self, scope, &retired, data_written)?;
        if active {
            // Nothing is pending in a finished scope; a suspended one counts no more already.
            self.pending.fetch_sub(retired.pending, Ordering::SeqCst);
        }
        // The data goes when the last handle goes (a database's table writer may hold one).
        let at = self.retired.write().push(&retired);
        self.scopes.write()[scope.0 as usize] = Slot::Retired(at);
        Ok(())
    }
}

impl TaskData for InMemoryDataManager {
    fn take_task(&self, scope: ScopeId, site: SiteId) -> Option<FetchTask> {
        // A parked scope gives the URL it worked out when parked; it thaws when the page is
        // recorded, on a parser. (Pending URLs count those in flight: no total changes.)
        let task = |id: u32, level: u32, url: &str| {
            Some(FetchTask {
                scope,
                site,
                url_id: UrlId(id),
                url: NormUrl::parse(url).ok()?,
                level,
                kind: TaskKind::Page,
            })
        };
        let locked = self.scope(scope);
        if let Some(task) = locked.with_parked(|p| p.claim(site, task)) {
            return Some(task);
        }
        self.update_scope(scope, &locked, |g| {
            loop {
                let (id, level) = g.claim(site)?;
                // Stored URLs are normal forms, so this parse cannot fail; if it ever did,
                // skipping the URL is better than stopping the crawl.
                if let Ok(url) = NormUrl::parse(g.url(id)) {
                    return Some(FetchTask {
                        scope,
                        site,
                        url_id: UrlId(id),
                        url,
                        level,
                        kind: TaskKind::Page,
                    });
                }
            }
        })
    }

    fn claim_hop(&self, task: &FetchTask, url: &NormUrl) -> HopClaim {
        if task.kind != TaskKind::Page {
            return HopClaim::Fetch;
        }
        self.update(task.scope, |g| g.claim_hop(task.url_id.0, url.as_str()))
    }

    fn release(&self, task: &FetchTask) {
        if task.kind == TaskKind::Page {
            self.update(task.scope, |g| g.release_task(task.url_id.0));
        }
    }

    fn retry(&self, task: &FetchTask, max: u32) -> Option<u32> {
        if task.kind != TaskKind::Page {
            return None;
        }
        self.update(task.scope, |g| g.retry(task.url_id.0, max))
    }

    fn suspend(&self, scope: ScopeId) {
        // A robots.txt answer may come for a site of a scope retired meanwhile.
        let Slot::Live(scope) = self.slot(scope) else {
            return;
        };
        let g = scope.held();
        if scope.active.swap(false, Ordering::SeqCst) {
            self.pending.fetch_sub(g.pending(), Ordering::SeqCst);
        }
    }

    fn add_sitemap(
        &self,
        scope: ScopeId,
        sitemap: crate::model::sitemap::Sitemap,
        seed: bool,
    ) -> Vec<SiteId> {
        // A sitemap read for a scope written meanwhile (another of its sites) has no graph.
        if !matches!(self.slot(scope), Slot::Live(_)) {
            return Vec::new();
        }
        self.update(scope, |g| g.add_sitemap(sitemap, seed))
    }

    fn commit(&self, outcome: &Outcome) -> Result<Effects, DataError> {
        let scope = self.scope(outcome.task().scope);
        let active = scope.active.load(Ordering::SeqCst);
        let effects = self.update(outcome.task().scope, |g| {
            // Numbered under the scope's lock, in the order the scope records them.
            let seq = self.next_seq.fetch_add(1, Ordering::SeqCst);
            let mut effects = g.commit(outcome, seq)?;
            effects.settled = g.pending() == 0 || (!active && g.in_flight() == 0);
            Ok(effects)
        });
        // Parked by the threads that commit (parsers, mostly), not by the one that takes
        // tasks: in a budgeted crawl that is the dispatcher's, and its sweeps (0.8 ms each,
        // 300 in a crawl of 20,000 pages) held up every choice.
        self.park_idle();
        effects
    }

    fn pending(&self) -> usize {
        self.pending.load(Ordering::SeqCst)
    }

    fn progress(&self, scope: ScopeId) -> Progress {
        let s = match self.slot(scope) {
            Slot::Live(s) => s,
            Slot::Retired(at) => {
                let r = self.retired.read().figures(at);
                return Progress {
                    pages: r.pages,
                    pending: r.pending,
                    outcomes: r.outcomes,
                    active: std::time::Duration::from_secs_f64(r.seconds.max(0.0)),
                };
            }
        };
        let g = s.held();
        Progress {
            pages: g.page_count(),
            pending: g.pending(),
            outcomes: g.outcomes(),
            active: g.active_time(),
        }
    }

    fn memory_bytes(&self) -> usize {
        self.scopes
            .read()
            .iter()
            .map(|slot| match slot {
                Slot::Live(s) => s.held().heap_bytes(),
                Slot::Retired(_) => std::mem::size_of::<Slot>() + 128,
            })
            .sum()
    }

    fn settled(&self, scope: ScopeId) -> bool {
        let Slot::Live(s) = self.slot(scope) else {
            return false;
        };
        let g = s.held();
        g.pending() == 0 || (!s.active.load(Ordering::SeqCst) && g.in_flight() == 0)
    }

    fn persist(&self, how: Persist) -> Result<(), PersistError> {
        let _saving = self.persisting.lock();
        self.store.save(self, how)
    }

    fn saves_state(&self) -> bool {
        self.store.saves()
    }
}

impl ScopeData for InMemoryDataManager {
    fn open_scope(
        &self,
        claim: ScopeClaim,
        site: SiteId,
        limits: ScopeLimits,
    ) -> Result<(ScopeId, ScopeOpen), DataError> {
        let found = self.by_origin.read().get(&claim.origin).copied();
        if let Some(id) = found {
            if let Slot::Retired(_) = self.slot(id) {
                return Ok((id, ScopeOpen::Finished));
            }
            self.activate(id, claim, site, limits);
            return Ok((id, ScopeOpen::Resumed));
        }
        if let Some(saved) = self.store.load(&claim)? {
            let id = self.adopt(&saved)?;
            self.activate(id, claim, site, limits);
            return Ok((id, ScopeOpen::Resumed));
        }
        let index = self.scopes.read().len() as u32;
        let journaling = if self.store.saves() {
            Journaling::On
        } else {
            Journaling::Off
        };
        let mut g = ScopeGraph::new(
            index,
            claim.origin.clone(),
            site,
            limits.max_level,
            journaling,
        )?;
        g.set_limits(
            (limits.max_level, limits.traps, limits.obey_nofollow),
            (limits.max_pages, limits.max_urls),
        );
        self.pending.fetch_add(g.pending(), Ordering::SeqCst);
        let figures = ScopeFigures {
            pages: 0,
            pending: g.pending(),
            fetched: 0,
            crawled: true,
        };
        let slot = Slot::Live(Arc::new(LockedScope::new(g, true, Some(claim.clone()))));
        let id = self.push_slot(slot, claim.origin.clone());
        self.parking.went_live(id);
        self.store.opened(&claim, figures);
        self.park_idle();
        Ok((id, ScopeOpen::Created))
    }

    fn add_seed(&self, scope: ScopeId, origin: Origin, site: SiteId) -> Result<(), DataError> {
        self.update(scope, |g| {
            g.bind_site(&origin, site);
            g.add_seed(origin, site).map(|_| ())
        })
    }

    fn scope_sites(&self, scope: ScopeId) -> Vec<(Origin, Option<SiteId>)> {
        self.scope(scope).with_records(ScopeGraph::site_list)
    }

    fn bind_site(&self, scope: ScopeId, origin: &Origin, site: SiteId) {
        self.parking
            .write(scope, &self.scope(scope))
            .bind_site(origin, site);
    }

    fn scopes(&self) -> Vec<ScopeInfo> {
        (0..self.scope_count())
            .map(|i| self.scope_info(ScopeId(i as u32)))
            .collect()
    }

    fn scope_info(&self, id: ScopeId) -> ScopeInfo {
        match self.slot(id) {
            Slot::Live(s) => ScopeInfo {
                id,
                origin: s.held().origin().clone(),
                active: s.active.load(Ordering::SeqCst),
                retired: None,
            },
            Slot::Retired(at) => {
                let r = self.retired_scope(at);
                ScopeInfo {
                    id,
                    origin: r.origin.clone(),
                    active: false,
                    retired: Some(Arc::new(r)),
                }
            }
        }
    }

    fn scope_count(&self) -> usize {
        self.scopes.read().len()
    }

    fn is_retired(&self, scope: ScopeId) -> bool {
        matches!(self.slot(scope), Slot::Retired(_))
    }

    fn retired_row(&self, scope: ScopeId) -> Option<Arc<SiteSummary>> {
        match self.slot(scope) {
            Slot::Retired(at) => Some(Arc::new(self.retired.read().row(at))),
            Slot::Live(_) => None,
        }
    }

    fn expect_scopes(&self, n: usize) {
        let mut scopes = self.scopes.write();
        let more = n.saturating_sub(scopes.len());
        scopes.reserve(more);
        self.by_origin.write().reserve(more);
        self.retired.write().reserve(n);
    }

    fn home_origins(&self, scope: ScopeId) -> Vec<Origin> {
        self.scope(scope).with_records(ScopeGraph::home_origins)
    }

    fn learned_rules(&self, scope: ScopeId) -> Vec<(Origin, crate::model::fold::SiteRules)> {
        self.scope(scope).with_records(ScopeGraph::learned)
    }

    fn saved_cookies(&self, scope: ScopeId) -> Vec<(Origin, crate::model::cookies::SavedJar)> {
        self.scope(scope).with_records(ScopeGraph::saved_cookies)
    }

    fn fetches(&self) -> Vec<Fetch> {
        let mut all: Vec<Fetch> = Vec::new();
        let live: Vec<Arc<LockedScope>> = (self.scopes.read().iter())
            .filter_map(|slot| match slot {
                Slot::Live(s) => Some(s.clone()),
                Slot::Retired(_) => None,
            })
            .collect();
        for s in live {
            s.with_records(|g| all.extend(g.pulls()));
        }
        all.sort_by_key(|f| f.seq);
        all
    }

    fn with_graph(&self, scope: ScopeId, f: &mut dyn FnMut(&SiteGraph<'_>)) {
        GraphHandle(self.scope(scope)).with_graph(f);
    }

    fn retire(&self, scope: ScopeId, row: Arc<SiteSummary>) -> Result<(), PersistError> {
        self.retire_saved(scope, row, false)
    }

    fn retire_with(
        &self,
        scope: ScopeId,
        results: &mut WriteResults<'_>,
    ) -> Result<(), RetireError> {
        let Slot::Live(s) = self.slot(scope) else {
            return Ok(());
        };
        if s.held().page_count() < self.beside_pages {
            let row = results().map_err(RetireError::Results)?;
            return Ok(self.retire_saved(scope, Arc::new(row), false)?);
        }
        // The scope is settled and no task of it starts: its data changes no more, and both
        // threads only read it.
        let (row, data_written) = std::thread::scope(|t| {
            let beside = std::thread::Builder::new()
                .name("retire-data".into())
                .spawn_scoped(t, || self.store.write_retired_data(self, scope, scope.0));
            let row = results();
            let data_written = match beside {
                Ok(h) => h
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                // No thread to spare: `retire` writes it.
                Err(_) => Ok(false),
            };
            (row, data_written)
        });
        let row = row.map_err(RetireError::Results)?;
        Ok(self.retire_saved(scope, Arc::new(row), data_written?)?)
    }

    fn close(&self) -> Result<(), PersistError> {
        self.store.close()
    }

    fn written_before(&self) -> Result<Vec<SiteSummary>, PersistError> {
        self.store.written_before()
    }

    fn written_at_end(&self, rows: &[SiteSummary]) -> Result<(), PersistError> {
        self.store.written_at_end(rows)
    }
}

impl ScopeSource for InMemoryDataManager {
    fn scope_ids(&self) -> Vec<ScopeId> {
        self.scopes
            .read()
            .iter()
            .enumerate()
            .filter(|(_, slot)| matches!(slot, Slot::Live(_)))
            .map(|(i, _)| ScopeId(i as u32))
            .collect()
    }

    fn slot_count(&self) -> usize {
        self.scopes.read().len()
    }

    fn retired(&self, scope: ScopeId) -> Option<Arc<RetiredScope>> {
        match self.slot(scope) {
            Slot::Retired(at) => Some(Arc::new(self.retired_scope(at))),
            Slot::Live(_) => None,
        }
    }

    fn claim(&self, scope: ScopeId) -> ScopeClaim {
        let s = self.scope(scope);
        let claim = s.claim.read().clone();
        claim.unwrap_or_else(|| ScopeClaim::solo(s.held().origin().clone()))
    }

    fn take_journal(&self, scope: ScopeId, out: &mut Vec<u8>) {
        self.scope(scope).held_mut().take_journal(out);
    }

    fn write_snapshot(
        &self,
        scope: ScopeId,
        w: &mut dyn std::io::Write,
        replaced: &mut Vec<u8>,
    ) -> std::io::Result<()> {
        let s = self.scope(scope);
        let mut g = s.held_mut();
        g.take_journal(replaced);
        g.write_to(w)
    }

    fn write_data(&self, scope: ScopeId, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        self.scope(scope).held().write_to(w)
    }

    fn figures(&self, scope: ScopeId) -> ScopeFigures {
        let s = self.scope(scope);
        let g = s.held();
        ScopeFigures {
            pages: g.page_count(),
            pending: g.pending(),
            fetched: g.pull_count(),
            crawled: s.active.load(Ordering::SeqCst),
        }
    }

    fn graph(&self, scope: ScopeId) -> GraphHandle {
        GraphHandle(self.scope(scope))
    }
}

//! The in-memory data manager, the one [`DataManager`] (`BMICDM` and `PgDM` differ in where
//! it saves, a [`Persistence`] backend, and in how processes share the crawl, a
//! `Coordinator`). The paper's version was a Boost multi-index container; here each scope is
//! one [`ScopeGraph`] (hash indexes by URL and by content, link arena, level-bucket
//! frontiers) behind its own lock, so scopes never contend and one commit is one short
//! critical section.
//!
//! Why not one `DashMap` per index: a commit must intern a page's links, lower levels and
//! queue URLs as one atomic step (a half-applied commit would let the work-is-done check see
//! zero pending URLs too early), and the URL index must assign ids in commit order so the
//! journal can replay them. A per-scope lock gives both; the interner also stores each URL
//! string once with 4 bytes of overhead instead of a key copy per index.
//!
//! When the backend saves, every commit also leaves a journal record in its scope (written
//! under the same lock, so in commit order); [`DataManager::persist`] hands the backend the
//! scopes ([`ScopeSource`]) to take those records and snapshots from.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use parking_lot::RwLock;

use super::coord::ScopeClaim;
use super::persist::{NoStore, Persistence, SavedScope, ScopeFigures, ScopeSource};
use super::scope::{Journaling, ScopeGraph};
use super::{
    DataError, DataManager, Effects, Fetch, HopClaim, Persist, PersistError, Progress, ScopeInfo,
    ScopeLimits, ScopeOpen, SiteGraph,
};
use crate::ids::{ScopeId, SiteId, UrlId};
use crate::message::{FetchTask, Outcome, TaskKind};
use crate::site::Origin;
use crate::url_norm::NormUrl;

/// A scope and how this run holds it.
#[derive(Debug)]
struct LockedScope {
    /// Written by commits; read by the unloaders and a database's table writer at once.
    graph: RwLock<ScopeGraph>,
    /// Opened by this run and not suspended: its pending URLs count towards the total.
    active: AtomicBool,
    /// How it was claimed (its row in a shared store); set when it is opened.
    claim: RwLock<Option<ScopeClaim>>,
}

/// Reads one scope's graph later, from another thread (a database's table writer), whatever
/// the data manager does meanwhile.
#[derive(Debug, Clone)]
pub struct GraphHandle(Arc<LockedScope>);

impl GraphHandle {
    /// Builds the scope's graph and hands it to `f` (the scope stays locked for reading).
    pub fn with_graph(&self, f: &mut dyn FnMut(&SiteGraph<'_>)) {
        let g = self.0.graph.read();
        f(&SiteGraph::build(&g));
    }
}

/// The in-memory data manager.
#[derive(Debug)]
pub struct InMemoryDataManager {
    scopes: RwLock<Vec<Arc<LockedScope>>>,
    pending: AtomicUsize,
    /// The number of the next fetch (over every scope and run).
    next_seq: AtomicU64,
    store: Box<dyn Persistence>,
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
            pending: AtomicUsize::new(0),
            next_seq: AtomicU64::new(0),
            store: Box::new(NoStore),
        }
    }

    /// A data manager that saves into `store`, holding what it recovered (inactive until
    /// [`DataManager::open_scope`] opens them by their origin).
    pub fn with_store(store: Box<dyn Persistence>) -> Result<Self, DataError> {
        let dm = InMemoryDataManager {
            store,
            ..Self::new()
        };
        for saved in dm.store.recovered()? {
            dm.adopt(&saved)?;
        }
        Ok(dm)
    }

    /// Holds a scope as it was saved (open with its own limits, bound to no site), to read
    /// its graph: `rccrawler export`.
    pub fn hold_saved(&self, saved: &SavedScope) -> Result<(ScopeId, Origin), DataError> {
        let id = self.adopt(saved)?;
        let scope = self.scope(id);
        let g = scope.graph.read();
        scope.active.store(true, Ordering::SeqCst);
        self.pending.fetch_add(g.pending(), Ordering::SeqCst);
        Ok((id, g.origin().clone()))
    }

    /// Checks that a state folder's saved state decodes (snapshot blobs, then journal
    /// records), returning the number of scopes. Damaged bytes give an error, never a panic:
    /// the fuzz target's entry.
    pub fn check_saved_state(recovered: &crate::storage::Recovered) -> Result<usize, DataError> {
        let scopes = super::persist::files::split_scopes(recovered)?;
        for s in &scopes {
            ScopeGraph::recover(s.snapshot.as_deref(), &s.journal)?;
        }
        Ok(scopes.len())
    }

    /// Adds a scope saved elsewhere, inactive until it is opened by its origin; its number in
    /// the saved state is its place here.
    fn adopt(&self, saved: &SavedScope) -> Result<ScopeId, DataError> {
        let mut g = ScopeGraph::recover(saved.snapshot.as_deref(), &saved.journal)?;
        let mut scopes = self.scopes.write();
        let id = ScopeId(scopes.len() as u32);
        g.set_index(id.0);
        let next = g.pulls().map(|p| p.seq + 1).max().unwrap_or(0);
        self.next_seq.fetch_max(next, Ordering::SeqCst);
        scopes.push(Arc::new(LockedScope {
            graph: RwLock::new(g),
            active: AtomicBool::new(false),
            claim: RwLock::new(None),
        }));
        Ok(id)
    }

    fn scope(&self, id: ScopeId) -> Arc<LockedScope> {
        Arc::clone(&self.scopes.read()[id.0 as usize])
    }

    /// Runs `f` on a scope and keeps the total of pending URLs in step with it.
    fn update<R>(&self, id: ScopeId, f: impl FnOnce(&mut ScopeGraph) -> R) -> R {
        let scope = self.scope(id);
        let mut g = scope.graph.write();
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

    /// Activates scope `id` for this run.
    fn activate(&self, id: ScopeId, claim: ScopeClaim, site: SiteId, limits: ScopeLimits) {
        let scope = self.scope(id);
        let mut g = scope.graph.write();
        g.bind_site(&claim.origin, site);
        g.set_limits(limits.max_level, limits.trap_levels, limits.max_pages);
        if !scope.active.swap(true, Ordering::SeqCst) {
            self.pending.fetch_add(g.pending(), Ordering::SeqCst);
        }
        drop(g);
        self.store.opened(&claim, self.figures(id));
        *scope.claim.write() = Some(claim);
    }
}

impl DataManager for InMemoryDataManager {
    fn open_scope(
        &self,
        claim: ScopeClaim,
        site: SiteId,
        limits: ScopeLimits,
    ) -> Result<(ScopeId, ScopeOpen), DataError> {
        let origin = &claim.origin;
        let found = self
            .scopes
            .read()
            .iter()
            .position(|s| s.graph.read().origin() == origin);
        if let Some(i) = found {
            let id = ScopeId(i as u32);
            self.activate(id, claim, site, limits);
            return Ok((id, ScopeOpen::Resumed));
        }
        if let Some(saved) = self.store.load(&claim)? {
            let id = self.adopt(&saved)?;
            self.activate(id, claim, site, limits);
            return Ok((id, ScopeOpen::Resumed));
        }
        let mut scopes = self.scopes.write();
        let index = scopes.len() as u32;
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
        g.set_limits(limits.max_level, limits.trap_levels, limits.max_pages);
        self.pending.fetch_add(g.pending(), Ordering::SeqCst);
        let figures = ScopeFigures {
            pages: 0,
            pending: g.pending(),
            fetched: 0,
            crawled: true,
        };
        scopes.push(Arc::new(LockedScope {
            graph: RwLock::new(g),
            active: AtomicBool::new(true),
            claim: RwLock::new(Some(claim.clone())),
        }));
        drop(scopes);
        self.store.opened(&claim, figures);
        Ok((ScopeId(index), ScopeOpen::Created))
    }

    fn add_seed(&self, scope: ScopeId, origin: Origin, site: SiteId) -> Result<(), DataError> {
        self.update(scope, |g| {
            g.bind_site(&origin, site);
            g.add_seed(origin, site).map(|_| ())
        })
    }

    fn scope_sites(&self, scope: ScopeId) -> Vec<(Origin, Option<SiteId>)> {
        self.scope(scope).graph.read().site_list()
    }

    fn bind_site(&self, scope: ScopeId, origin: &Origin, site: SiteId) {
        self.scope(scope).graph.write().bind_site(origin, site);
    }

    fn scopes(&self) -> Vec<ScopeInfo> {
        self.scopes
            .read()
            .iter()
            .enumerate()
            .map(|(i, s)| ScopeInfo {
                id: ScopeId(i as u32),
                origin: s.graph.read().origin().clone(),
                active: s.active.load(Ordering::SeqCst),
            })
            .collect()
    }

    fn home_origins(&self, scope: ScopeId) -> Vec<Origin> {
        self.scope(scope).graph.read().home_origins()
    }

    fn take_task(&self, scope: ScopeId, site: SiteId) -> Option<FetchTask> {
        self.update(scope, |g| {
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
        let scope = self.scope(scope);
        let g = scope.graph.read();
        if scope.active.swap(false, Ordering::SeqCst) {
            self.pending.fetch_sub(g.pending(), Ordering::SeqCst);
        }
    }

    fn commit(&self, outcome: &Outcome) -> Result<Effects, DataError> {
        self.update(outcome.task().scope, |g| {
            // Numbered under the scope's lock, in the order the scope records them.
            let seq = self.next_seq.fetch_add(1, Ordering::SeqCst);
            g.commit(outcome, seq)
        })
    }

    fn pending(&self) -> usize {
        self.pending.load(Ordering::SeqCst)
    }

    fn progress(&self, scope: ScopeId) -> Progress {
        let s = self.scope(scope);
        let g = s.graph.read();
        Progress {
            pages: g.page_count(),
            pending: g.pending(),
            outcomes: g.outcomes(),
            active: g.active_time(),
        }
    }

    fn fetches(&self) -> Vec<Fetch> {
        let mut all: Vec<Fetch> = Vec::new();
        for s in self.scopes.read().iter() {
            let g = s.graph.read();
            all.extend(g.pulls());
        }
        all.sort_by_key(|f| f.seq);
        all
    }

    fn with_graph(&self, scope: ScopeId, f: &mut dyn FnMut(&SiteGraph<'_>)) {
        GraphHandle(self.scope(scope)).with_graph(f);
    }

    fn memory_bytes(&self) -> usize {
        self.scopes
            .read()
            .iter()
            .map(|s| s.graph.read().heap_bytes())
            .sum()
    }

    fn persist(&self, how: Persist) -> Result<(), PersistError> {
        self.store.save(self, how)
    }

    fn saves_state(&self) -> bool {
        self.store.saves()
    }

    fn close(&self) -> Result<(), PersistError> {
        self.store.close()
    }
}

impl ScopeSource for InMemoryDataManager {
    fn scope_ids(&self) -> Vec<ScopeId> {
        (0..self.scopes.read().len() as u32).map(ScopeId).collect()
    }

    fn claim(&self, scope: ScopeId) -> ScopeClaim {
        let s = self.scope(scope);
        let claim = s.claim.read().clone();
        claim.unwrap_or_else(|| ScopeClaim::solo(s.graph.read().origin().clone()))
    }

    fn take_journal(&self, scope: ScopeId, out: &mut Vec<u8>) {
        self.scope(scope).graph.write().take_journal(out);
    }

    fn write_snapshot(
        &self,
        scope: ScopeId,
        w: &mut dyn std::io::Write,
        replaced: &mut Vec<u8>,
    ) -> std::io::Result<()> {
        let s = self.scope(scope);
        let mut g = s.graph.write();
        g.take_journal(replaced);
        g.write_to(w)
    }

    fn figures(&self, scope: ScopeId) -> ScopeFigures {
        let s = self.scope(scope);
        let g = s.graph.read();
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

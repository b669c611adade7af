//! `BMICDM`: the in-memory data manager. The paper's version was a Boost multi-index
//! container; here each scope is one [`ScopeGraph`] (hash indexes by URL and by content, link
//! arena, level-bucket frontiers) behind its own mutex, so scopes never contend and one
//! commit is one short critical section.
//!
//! Why not one `DashMap` per index: a commit must intern a page's links, lower levels and
//! queue URLs as one atomic step (a half-applied commit would let the work-is-done check see
//! zero pending URLs too early), and the URL index must assign ids in commit order so the
//! journal can replay them. A per-scope lock gives both; the interner also stores each URL
//! string once with 4 bytes of overhead instead of a key copy per index.
//!
//! With a [`StateStore`], every commit also leaves a journal record in its scope (written
//! under the same lock, so in commit order); [`DataManager::persist`] moves those records to
//! the journal file and writes snapshots.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use parking_lot::{Mutex, RwLock};

use super::scope::replay::added_scope;
use super::scope::{DataError, Effects, Journaling, ScopeGraph, UNBOUND};
use super::{
    CrawlStatus, DataManager, Fetch, Persist, PersistError, Progress, ScopeInfo, ScopeLimits,
    ScopeOpen, SiteGraph,
};
use crate::ids::{ScopeId, SiteId, UrlId};
use crate::message::{FetchTask, Outcome, TaskKind};
use crate::site::Origin;
use crate::storage::frames::frames;
use crate::storage::{Recovered, StateStore};
use crate::url_norm::NormUrl;

/// A scope and whether this run crawls it.
#[derive(Debug)]
struct LockedScope {
    /// Written by commits; read by the unloaders and the database's table writer at once.
    graph: RwLock<ScopeGraph>,
    /// Opened by this run (in hosts.txt): its pending URLs count towards the total.
    active: AtomicBool,
}

/// The in-memory data manager.
#[derive(Debug, Default)]
pub struct InMemoryDataManager {
    scopes: RwLock<Vec<Arc<LockedScope>>>,
    pending: AtomicUsize,
    /// The number of the next fetch (over every scope and run).
    next_seq: AtomicU64,
    store: Option<Mutex<StateStore>>,
    /// New scopes journal their commits even without a store: a caller keeps the records
    /// elsewhere (`PgDM`).
    journal_always: bool,
}

impl InMemoryDataManager {
    /// An empty data manager that saves nothing.
    pub fn new() -> Self {
        Self::default()
    }

    /// A data manager that saves its state in `store`, starting from what was `recovered`
    /// there (snapshot, then journal replayed). Recovered scopes stay inactive until
    /// [`DataManager::open_scope`] opens them.
    pub fn with_state(store: StateStore, recovered: Recovered) -> Result<Self, DataError> {
        let graphs = Self::decode(&recovered)?;
        let next_seq = graphs
            .iter()
            .flat_map(|g| g.pulls().map(|p| p.seq + 1))
            .max()
            .unwrap_or(0);
        let scopes = graphs
            .into_iter()
            .map(|mut g| {
                g.start_journal();
                g.rebuild_frontiers();
                Arc::new(LockedScope {
                    graph: RwLock::new(g),
                    active: AtomicBool::new(false),
                })
            })
            .collect();
        Ok(InMemoryDataManager {
            scopes: RwLock::new(scopes),
            pending: AtomicUsize::new(0),
            next_seq: AtomicU64::new(next_seq),
            store: Some(Mutex::new(store)),
            journal_always: false,
        })
    }

    /// An empty data manager whose scopes journal their commits for the caller to take
    /// ([`Self::take_journal`]) and keep (the database data manager).
    pub(crate) fn journaled() -> Self {
        InMemoryDataManager {
            journal_always: true,
            ..Self::default()
        }
    }

    /// Adds a scope recovered elsewhere (a database); it stays inactive until
    /// [`DataManager::open_scope`] opens it by its origin.
    pub(crate) fn adopt(&self, mut g: ScopeGraph) -> ScopeId {
        let mut scopes = self.scopes.write();
        let id = ScopeId(scopes.len() as u32);
        g.set_index(id.0);
        let next = g.pulls().map(|p| p.seq + 1).max().unwrap_or(0);
        self.next_seq.fetch_max(next, Ordering::SeqCst);
        scopes.push(Arc::new(LockedScope {
            graph: RwLock::new(g),
            active: AtomicBool::new(false),
        }));
        id
    }

    /// Whether `scope` is being crawled (opened and not suspended).
    pub(crate) fn is_active(&self, scope: ScopeId) -> bool {
        self.scope(scope).active.load(Ordering::SeqCst)
    }

    /// Fetches recorded in `scope`.
    pub(crate) fn fetches_of(&self, scope: ScopeId) -> usize {
        self.scope(scope).graph.read().pull_count()
    }

    /// The journal records `scope` committed since the last call.
    pub(crate) fn take_journal(&self, scope: ScopeId) -> Vec<u8> {
        let mut out = Vec::new();
        self.scope(scope).graph.write().take_journal(&mut out);
        out
    }

    /// A snapshot of `scope`, and the journal records it replaces (taken under the same
    /// lock, so nothing committed falls between the two).
    pub(crate) fn snapshot(&self, scope: ScopeId) -> (Vec<u8>, Vec<u8>) {
        let s = self.scope(scope);
        let mut g = s.graph.write();
        let mut journal = Vec::new();
        g.take_journal(&mut journal);
        let mut snapshot = Vec::new();
        // Writing into a Vec cannot fail.
        let _ = g.write_to(&mut snapshot);
        (snapshot, journal)
    }

    /// Checks that saved state decodes (snapshot blobs, then journal records), returning the
    /// number of scopes. Damaged bytes give an error, never a panic: the fuzz target's entry.
    pub fn check_saved_state(recovered: &Recovered) -> Result<usize, DataError> {
        Self::decode(recovered).map(|g| g.len())
    }

    fn decode(recovered: &Recovered) -> Result<Vec<ScopeGraph>, DataError> {
        let mut graphs: Vec<ScopeGraph> = Vec::new();
        for blob in &recovered.scopes {
            let g = ScopeGraph::from_bytes(blob)?;
            if g.index() as usize != graphs.len() {
                return Err(DataError::Corrupt("snapshot scopes out of order".into()));
            }
            graphs.push(g);
        }
        for payload in frames(&recovered.journal) {
            let (index, entries) = super::journal::split_scope(payload)?;
            let index = index as usize;
            if let Some((origin, max_level)) = added_scope(entries)? {
                if index != graphs.len() {
                    return Err(DataError::Corrupt(format!(
                        "journal: scope {index} created out of order"
                    )));
                }
                graphs.push(ScopeGraph::new(
                    index as u32,
                    origin,
                    UNBOUND,
                    max_level,
                    Journaling::Off,
                )?);
            } else {
                let g = graphs
                    .get_mut(index)
                    .ok_or_else(|| DataError::Corrupt(format!("journal: unknown scope {index}")))?;
                g.replay(entries)?;
            }
        }
        Ok(graphs)
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
}

impl DataManager for InMemoryDataManager {
    fn open_scope(
        &self,
        origin: Origin,
        site: SiteId,
        limits: ScopeLimits,
    ) -> Result<Option<(ScopeId, ScopeOpen)>, DataError> {
        let found = self
            .scopes
            .read()
            .iter()
            .position(|s| *s.graph.read().origin() == origin);
        if let Some(i) = found {
            let id = ScopeId(i as u32);
            let scope = self.scope(id);
            let mut g = scope.graph.write();
            g.bind_site(&origin, site);
            g.set_limits(limits.max_level, limits.max_pages);
            if !scope.active.swap(true, Ordering::SeqCst) {
                self.pending.fetch_add(g.pending(), Ordering::SeqCst);
            }
            return Ok(Some((id, ScopeOpen::Resumed)));
        }
        let mut scopes = self.scopes.write();
        let index = scopes.len() as u32;
        let journaling = if self.store.is_some() || self.journal_always {
            Journaling::On
        } else {
            Journaling::Off
        };
        let mut g = ScopeGraph::new(index, origin, site, limits.max_level, journaling)?;
        g.set_limits(limits.max_level, limits.max_pages);
        self.pending.fetch_add(g.pending(), Ordering::SeqCst);
        scopes.push(Arc::new(LockedScope {
            graph: RwLock::new(g),
            active: AtomicBool::new(true),
        }));
        Ok(Some((ScopeId(index), ScopeOpen::Created)))
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

    fn claim(&self, scope: ScopeId, site: SiteId) -> Option<FetchTask> {
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

    fn release(&self, task: &FetchTask) {
        if task.kind == TaskKind::Page {
            self.update(task.scope, |g| g.release(task.url_id.0));
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
        let s = self.scope(scope);
        let g = s.graph.read();
        let graph = SiteGraph::build(&g);
        f(&graph);
    }

    fn memory_bytes(&self) -> usize {
        self.scopes
            .read()
            .iter()
            .map(|s| s.graph.read().heap_bytes())
            .sum()
    }

    fn persist(&self, how: Persist) -> Result<(), PersistError> {
        let Some(store) = &self.store else {
            return Ok(());
        };
        let scopes: Vec<Arc<LockedScope>> = self.scopes.read().clone();
        let mut store = store.lock();
        let mut records = Vec::new();
        let status = match how {
            Persist::Journal(durability) => {
                for s in &scopes {
                    s.graph.write().take_journal(&mut records);
                }
                store.append(&records)?;
                return Ok(store.flush(durability)?);
            }
            Persist::Checkpoint(status) => status,
        };
        // A finished crawl keeps no data: the next run starts afresh anyway.
        let finished = status == CrawlStatus::Finished;
        let count = if finished { 0 } else { scopes.len() as u64 };
        let mut snapshot = store.begin_snapshot(finished, count)?;
        for s in &scopes {
            let mut g = s.graph.write();
            g.take_journal(&mut records);
            if !finished {
                snapshot.add_scope(|w| g.write_to(w))?;
            }
        }
        Ok(store.finish_snapshot(snapshot, &records)?)
    }

    fn saves_state(&self) -> bool {
        self.store.is_some()
    }
}

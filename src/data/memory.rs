//! `BMICDM`: the in-memory data manager. The paper's version was a Boost multi-index
//! container; here each scope is one [`ScopeGraph`] (hash indexes by URL and by content, link
//! arena, level-bucket frontiers) behind its own mutex, so scopes never contend and one
//! commit is one short critical section.
//!
//! Why not one `DashMap` per index: a commit must intern a page's links, lower levels and
//! queue URLs as one atomic step (a half-applied commit would let the work-is-done check see
//! zero pending URLs too early), and the URL index must assign ids in commit order so a
//! journal can replay them. A per-scope lock gives both; the interner also stores each URL
//! string once with 4 bytes of overhead instead of a key copy per index.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use parking_lot::{Mutex, RwLock};

use super::scope::{DataError, Effects, ScopeGraph};
use super::{DataManager, Progress, ScopeId, SiteGraph, SiteId, UrlId};
use crate::message::{FetchTask, Outcome, TaskKind};
use crate::site::Origin;
use crate::url_norm::NormUrl;

/// The in-memory data manager.
#[derive(Debug, Default)]
pub struct InMemoryDataManager {
    scopes: RwLock<Vec<Arc<Mutex<ScopeGraph>>>>,
    pending: AtomicUsize,
}

impl InMemoryDataManager {
    /// An empty data manager.
    pub fn new() -> Self {
        Self::default()
    }

    fn scope(&self, id: ScopeId) -> Arc<Mutex<ScopeGraph>> {
        Arc::clone(&self.scopes.read()[id.0 as usize])
    }

    /// Runs `f` on a scope and keeps the global pending count in step with it.
    fn update<R>(&self, id: ScopeId, f: impl FnOnce(&mut ScopeGraph) -> R) -> R {
        let scope = self.scope(id);
        let mut g = scope.lock();
        let before = g.pending();
        let r = f(&mut g);
        let after = g.pending();
        if after > before {
            self.pending.fetch_add(after - before, Ordering::SeqCst);
        } else {
            self.pending.fetch_sub(before - after, Ordering::SeqCst);
        }
        r
    }
}

impl DataManager for InMemoryDataManager {
    fn add_scope(
        &self,
        origin: Origin,
        site: SiteId,
        max_level: u32,
    ) -> Result<ScopeId, DataError> {
        let g = ScopeGraph::new(origin, site, max_level)?;
        self.pending.fetch_add(g.pending(), Ordering::SeqCst);
        let mut scopes = self.scopes.write();
        scopes.push(Arc::new(Mutex::new(g)));
        Ok(ScopeId(scopes.len() as u32 - 1))
    }

    fn claim(&self, scope: ScopeId, site: SiteId) -> Option<FetchTask> {
        self.update(scope, |g| {
            loop {
                let (id, level) = g.claim(site)?;
                // Stored URLs are normal forms, so this parse cannot fail; if it ever did,
                // dropping the URL is better than stopping the crawl.
                match NormUrl::parse(g.url(id)) {
                    Ok(url) => {
                        return Some(FetchTask {
                            scope,
                            site,
                            url_id: UrlId(id),
                            url,
                            level,
                            kind: TaskKind::Page,
                        });
                    }
                    Err(_) => g.release(id),
                }
            }
        })
    }

    fn release(&self, task: &FetchTask) {
        if task.kind == TaskKind::Page {
            self.update(task.scope, |g| g.release(task.url_id.0));
        }
    }

    fn commit(&self, outcome: &Outcome) -> Result<Effects, DataError> {
        self.update(outcome.task().scope, |g| g.commit(outcome))
    }

    fn pending(&self) -> usize {
        self.pending.load(Ordering::SeqCst)
    }

    fn progress(&self, scope: ScopeId) -> Progress {
        let s = self.scope(scope);
        let g = s.lock();
        Progress {
            pages: g.page_count(),
            pending: g.pending(),
            outcomes: g.outcomes,
            active: g.active_time(),
        }
    }

    fn with_graph(&self, scope: ScopeId, f: &mut dyn FnMut(&SiteGraph<'_>)) {
        let s = self.scope(scope);
        let g = s.lock();
        let graph = SiteGraph::build(&g);
        f(&graph);
    }

    fn memory_bytes(&self) -> usize {
        self.scopes
            .read()
            .iter()
            .map(|s| s.lock().heap_bytes())
            .sum()
    }
}

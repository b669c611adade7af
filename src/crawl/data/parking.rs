//! Which scopes the in-memory data manager keeps live and which it parks
//! ([`super::scope::park`]). A crawl of a window of sites holds only the sites it crawls; a
//! budgeted crawl keeps every site open, and its rule chooses among thousands of them while a
//! few are fetched at a time (4,000 sites held 76 MB, most of it the URLs of sites waiting).
//! When more than `ScopesInMemory` scopes are live, the ones used least recently with nothing
//! in flight are parked until about three quarters of that remain; any use of a parked scope's
//! records thaws it, under its lock, exactly as it was.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use parking_lot::{MappedRwLockWriteGuard, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::SiteGraph;
use super::coord::ScopeClaim;
use super::park_file::ParkFile;
use super::scope::ScopeGraph;
use super::scope::park::Parked;
use crate::base::ids::ScopeId;
use crate::model::site::Origin;

/// `ScopesInMemory = 0`: scopes kept live before idle ones are parked. A live scope of the
/// many-site benchmark's sites holds about 14 KB; 256 of them are a few MB, and more than
/// the downloads and parses under way at once in any crawl this machine runs.
pub(crate) const AUTO_SCOPES_IN_MEMORY: usize = 256;

/// A scope's records as memory holds them: live, or parked (exactly one of the two).
#[derive(Debug)]
pub(super) struct Held {
    live: Option<Box<ScopeGraph>>,
    parked: Option<Box<Parked>>,
}

impl Held {
    /// Holds a live scope.
    pub(super) fn new(g: ScopeGraph) -> Self {
        Held {
            live: Some(Box::new(g)),
            parked: None,
        }
    }

    pub(super) fn is_parked(&self) -> bool {
        self.live.is_none()
    }

    /// The live records, thawed first if parked.
    fn thawed(&mut self) -> &mut ScopeGraph {
        let parked = &mut self.parked;
        self.live.get_or_insert_with(|| {
            let p = parked
                .take()
                .expect("a scope is held live or parked, never neither");
            // The bytes are this process's own, made by `park` a moment ago: they decode
            // unless memory itself is broken.
            p.thaw().expect("a parked scope thaws")
        })
    }

    /// Parks the live records if they can be; whether they were.
    fn park(&mut self, file: Option<&Arc<ParkFile>>) -> bool {
        let Some(g) = self.live.take() else {
            return false;
        };
        match g.park(file) {
            Ok(p) => {
                self.parked = Some(Box::new(p));
                true
            }
            Err(g) => {
                self.live = Some(g);
                false
            }
        }
    }

    /// Whether the scope is live and could be parked now.
    fn parkable(&self) -> bool {
        self.live.as_ref().is_some_and(|g| g.parkable())
    }

    /// The seed site.
    pub(super) fn origin(&self) -> &Origin {
        match (&self.live, &self.parked) {
            (Some(g), _) => g.origin(),
            (None, Some(p)) => p.origin(),
            (None, None) => unreachable!("a scope is held live or parked"),
        }
    }

    /// Runs `live` on the live records, or `parked` on the parked ones.
    fn either<R>(
        &self,
        live: impl FnOnce(&ScopeGraph) -> R,
        parked: impl FnOnce(&Parked) -> R,
    ) -> R {
        match (&self.live, &self.parked) {
            (Some(g), _) => live(g),
            (None, Some(p)) => parked(p),
            (None, None) => unreachable!("a scope is held live or parked"),
        }
    }

    /// URLs queued or in flight.
    pub(super) fn pending(&self) -> usize {
        self.either(ScopeGraph::pending, Parked::pending)
    }

    /// URLs in flight (in a parked scope, those handed out while parked).
    pub(super) fn in_flight(&self) -> usize {
        self.either(ScopeGraph::in_flight, Parked::in_flight)
    }

    /// Outcomes recorded.
    pub(super) fn outcomes(&self) -> u64 {
        self.either(ScopeGraph::outcomes, Parked::outcomes)
    }

    /// Pages recorded, one per distinct content.
    pub(super) fn page_count(&self) -> usize {
        self.either(ScopeGraph::page_count, Parked::page_count)
    }

    /// Fetches recorded.
    pub(super) fn pull_count(&self) -> usize {
        self.either(ScopeGraph::pull_count, Parked::pull_count)
    }

    /// Crawl time.
    pub(super) fn active_time(&self) -> std::time::Duration {
        self.either(ScopeGraph::active_time, Parked::active_time)
    }

    /// Approximate heap use.
    pub(super) fn heap_bytes(&self) -> usize {
        self.either(ScopeGraph::heap_bytes, Parked::heap_bytes)
    }

    /// The snapshot's bytes, live or parked.
    pub(super) fn write_to(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        match (&self.live, &self.parked) {
            (Some(g), _) => g.write_to(w),
            (None, Some(p)) => p.write_to(w),
            (None, None) => unreachable!("a scope is held live or parked"),
        }
    }

    /// Moves the journal records not handed over yet to the end of `out`.
    pub(super) fn take_journal(&mut self, out: &mut Vec<u8>) {
        match (&mut self.live, &mut self.parked) {
            (Some(g), _) => g.take_journal(out),
            (None, Some(p)) => p.take_journal(out),
            (None, None) => unreachable!("a scope is held live or parked"),
        }
    }
}

/// A scope and how this run holds it.
#[derive(Debug)]
pub(super) struct LockedScope {
    /// Written by commits; read by the unloaders and a database's table writer at once.
    held: RwLock<Held>,
    /// Opened by this run and not suspended: its pending URLs count towards the total.
    pub(super) active: AtomicBool,
    /// How it was claimed (its row in a shared store); set when it is opened.
    pub(super) claim: RwLock<Option<ScopeClaim>>,
    /// When its records were last used ([`Parking`]'s clock).
    used: AtomicU64,
}

impl LockedScope {
    /// A live scope.
    pub(super) fn new(g: ScopeGraph, active: bool, claim: Option<ScopeClaim>) -> Self {
        LockedScope {
            held: RwLock::new(Held::new(g)),
            active: AtomicBool::new(active),
            claim: RwLock::new(claim),
            used: AtomicU64::new(0),
        }
    }

    /// Parks the scope now if it can be (tests).
    #[cfg(test)]
    pub(super) fn park_now(&self, parking: &Parking) -> bool {
        self.held.write().park(parking.file())
    }

    /// The scope as held, for what needs no records (figures, the journal, the snapshot).
    pub(super) fn held(&self) -> RwLockReadGuard<'_, Held> {
        self.held.read()
    }

    /// The scope as held, to take its journal.
    pub(super) fn held_mut(&self) -> RwLockWriteGuard<'_, Held> {
        self.held.write()
    }

    /// Runs `f` on the parked records, left parked (`None` if the scope is live).
    pub(super) fn with_parked<T>(&self, f: impl FnOnce(&mut Parked) -> Option<T>) -> Option<T> {
        let mut held = self.held.write();
        f(held.parked.as_deref_mut()?)
    }

    /// Runs `f` on the records: the live ones, or a copy of the parked ones that leaves the
    /// scope parked (writing a waiting scope's results does not bring it back to life).
    pub(super) fn with_records<R>(&self, f: impl FnOnce(&ScopeGraph) -> R) -> R {
        let held = self.held.read();
        match (&held.live, &held.parked) {
            (Some(g), _) => f(g),
            (None, Some(p)) => {
                // The bytes are this process's own (see `Held::thawed`).
                let copy = p.copy().expect("a parked scope thaws");
                f(&copy)
            }
            (None, None) => unreachable!("a scope is held live or parked"),
        }
    }

    /// The records to change, thawed first if parked; whether they were thawed.
    fn write(&self) -> (MappedRwLockWriteGuard<'_, ScopeGraph>, bool) {
        let held = self.held.write();
        let thawed = held.is_parked();
        (RwLockWriteGuard::map(held, Held::thawed), thawed)
    }
}

/// Reads one scope's graph later, from another thread (a database's table writer), whatever
/// the data manager does meanwhile.
#[derive(Debug, Clone)]
pub struct GraphHandle(pub(super) Arc<LockedScope>);

impl GraphHandle {
    /// Builds the scope's graph and hands it to `f` (the scope stays locked for reading).
    pub fn with_graph(&self, f: &mut dyn FnMut(&SiteGraph<'_>)) {
        self.0.with_records(|g| f(&SiteGraph::build(g)));
    }
}

/// The live scopes and the clock of their use.
#[derive(Debug)]
pub(super) struct Parking {
    /// `ScopesInMemory`: live scopes kept at most before idle ones are parked.
    limit: usize,
    /// Scopes that went live since the last sweep.
    fresh: Mutex<Vec<ScopeId>>,
    /// The live scopes as the last sweep left them.
    live: Mutex<Vec<ScopeId>>,
    /// About how many scopes are live.
    count: AtomicUsize,
    /// The count past which the next sweep runs: the limit, or more when the last sweep found
    /// too few idle scopes to come under it (a window of slow sites, each with a request
    /// under way) — else every commit would look at every live scope again for nothing.
    next_sweep: AtomicUsize,
    clock: AtomicU64,
    /// Where parked records go.
    file: OnceLock<Option<Arc<ParkFile>>>,
    /// Sweeps made (tests).
    #[cfg(test)]
    pub(super) sweeps: AtomicUsize,
}

impl Default for Parking {
    fn default() -> Self {
        Parking::new(AUTO_SCOPES_IN_MEMORY)
    }
}

impl Parking {
    /// Keeps at most `limit` scopes live (at least one).
    pub(super) fn new(limit: usize) -> Self {
        Parking {
            limit: limit.max(1),
            fresh: Mutex::new(Vec::new()),
            live: Mutex::new(Vec::new()),
            count: AtomicUsize::new(0),
            next_sweep: AtomicUsize::new(limit.max(1)),
            clock: AtomicU64::new(0),
            file: OnceLock::new(),
            #[cfg(test)]
            sweeps: AtomicUsize::new(0),
        }
    }

    /// Scope `id` went live (opened, loaded or thawed).
    pub(super) fn went_live(&self, id: ScopeId) {
        self.fresh.lock().push(id);
        self.count.fetch_add(1, Ordering::Relaxed);
    }

    /// Scope `id`'s records, to change (thawed if parked, and counted live again).
    pub(super) fn write<'a>(
        &self,
        id: ScopeId,
        s: &'a LockedScope,
    ) -> MappedRwLockWriteGuard<'a, ScopeGraph> {
        let (g, thawed) = s.write();
        self.used(id, s, thawed);
        g
    }

    fn used(&self, id: ScopeId, s: &LockedScope, thawed: bool) {
        s.used.store(
            self.clock.fetch_add(1, Ordering::Relaxed),
            Ordering::Relaxed,
        );
        if thawed {
            self.went_live(id);
        }
    }

    /// Whether more scopes are live than the limit: time for [`Self::sweep`].
    pub(super) fn over(&self) -> bool {
        self.count.load(Ordering::Relaxed) > self.next_sweep.load(Ordering::Relaxed)
    }

    /// The park file, made at the first parking (a crawl that parks nothing makes none);
    /// `None` without one (no temporary folder to write in): records stay in memory.
    fn file(&self) -> Option<&Arc<ParkFile>> {
        self.file.get_or_init(|| ParkFile::create().ok()).as_ref()
    }

    /// Parks the least recently used idle scopes until about three quarters of the limit are
    /// live. `scope` gives a live scope by id (`None`: retired). Skips if another thread
    /// sweeps; never waits for a scope's lock (a scope in use is not idle).
    pub(super) fn sweep(&self, scope: &dyn Fn(ScopeId) -> Option<Arc<LockedScope>>) {
        let Some(mut live) = self.live.try_lock() else {
            return;
        };
        #[cfg(test)]
        self.sweeps.fetch_add(1, Ordering::Relaxed);
        live.append(&mut self.fresh.lock());
        live.sort_unstable();
        live.dedup();
        let mut idle = Vec::new();
        live.retain(|&id| {
            let Some(s) = scope(id) else {
                return false;
            };
            let Some(held) = s.held.try_read() else {
                return true;
            };
            if held.is_parked() {
                return false;
            }
            if held.parkable() {
                idle.push((s.used.load(Ordering::Relaxed), id));
            }
            true
        });
        let keep = self.limit * 3 / 4;
        if live.len() > keep && !idle.is_empty() {
            let file = self.file();
            idle.sort_unstable();
            let mut parked = Vec::new();
            for &(_, id) in idle.iter().take(live.len() - keep) {
                if let Some(s) = scope(id)
                    && let Some(mut held) = s.held.try_write()
                    && held.park(file)
                {
                    parked.push(id);
                }
            }
            parked.sort_unstable();
            live.retain(|id| parked.binary_search(id).is_err());
        }
        // What went live during the sweep is in `fresh`, counted already.
        self.count
            .store(live.len() + self.fresh.lock().len(), Ordering::Relaxed);
        self.next_sweep.store(
            self.limit.max(live.len() + self.limit / 4),
            Ordering::Relaxed,
        );
    }
}

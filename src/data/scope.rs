//! One crawl scope's data (the in-memory data manager keeps one per seed, behind a mutex):
//! every URL seen with its best known level and state, every page with its links, and the
//! frontiers of the scope's sites.
//!
//! Levels are kept as "the shortest path found so far" and only ever lowered. Downloads finish
//! in any order, so a URL may first be reached by a long path and later by a shorter one —
//! perhaps after it was already fetched, or after it was left out as deeper than
//! `maxCrawlLevel`. Lowering a level therefore propagates along the stored links (and
//! redirects), and a URL whose level drops to `maxCrawlLevel` or less is queued then. At
//! quiescence every URL within `maxCrawlLevel` of the home page has been fetched. The
//! written graph is computed afterwards from these records (`graph.rs`), independently of the
//! order things happened in.
//!
//! A commit has two phases: [`resolve`](super::resolve) interns every string the outcome
//! names (and writes them to the journal), then [`ScopeGraph::apply`] changes states using
//! ids only. Replaying a journal runs the same `apply`, so a recovered scope is exactly the
//! scope that was journaled.

use std::time::{Duration, Instant};

use super::SiteId;
use super::frontier::Frontier;
use super::interner::{Interner, InternerFull};
use super::resolve::{Resolved, ResolvedKind};
use crate::site::Origin;

/// Level of a URL not reached by any path yet.
pub(crate) const NO_LEVEL: u32 = u32::MAX;
/// Set in a `Failed` record's data when the failure was decided without a request.
pub(crate) const STATIC_BIT: u32 = 1 << 31;
/// A site not bound to one of this run's site ids yet (just loaded from the state).
pub(crate) const UNBOUND: SiteId = SiteId(u32::MAX);

/// Where a URL stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UrlState {
    /// Known, not queued (deeper than `maxCrawlLevel` so far).
    Seen,
    /// In a frontier.
    Queued,
    /// Claimed by a downloader.
    InFlight,
    /// An HTML page; data = index into `pages`.
    Page,
    /// A same-site redirect; data = target url id.
    Redirect,
    /// A redirect to another site; data = url id of the external target.
    OffSite,
    /// Not a page; data = reason text id (| `STATIC_BIT`).
    Failed,
    /// A URL on another site (never fetched).
    External,
}

impl UrlState {
    /// Not decided yet: an outcome may still be recorded.
    pub(crate) fn is_open(self) -> bool {
        matches!(self, UrlState::Seen | UrlState::Queued | UrlState::InFlight)
    }

    pub(crate) fn to_u8(self) -> u8 {
        self as u8
    }

    pub(crate) fn from_u8(v: u8) -> Option<Self> {
        use UrlState::*;
        [
            Seen, Queued, InFlight, Page, Redirect, OffSite, Failed, External,
        ]
        .get(usize::from(v))
        .copied()
    }
}

/// One URL. 12 bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct UrlRec {
    pub(crate) level: u32,
    pub(crate) data: u32,
    pub(crate) state: UrlState,
    /// Index into `ScopeGraph::sites`.
    pub(crate) site: u16,
}

/// Link kinds, kept in the top two bits of `LinkRec::target`.
pub(crate) const LINK_INTERNAL: u32 = 0;
pub(crate) const LINK_EXTERNAL: u32 = 1;
pub(crate) const LINK_BAD: u32 = 2;
const KIND_SHIFT: u32 = 30;
pub(crate) const ID_MASK: u32 = (1 << KIND_SHIFT) - 1;

/// One link of a page. 8 bytes: internal/external → (url id, anchor text id);
/// bad → (raw text id, reason text id).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LinkRec {
    pub(crate) target: u32,
    pub(crate) aux: u32,
}

impl LinkRec {
    pub(crate) fn new(kind: u32, id: u32, aux: u32) -> Self {
        LinkRec {
            target: (kind << KIND_SHIFT) | id,
            aux,
        }
    }
    pub(crate) fn kind(self) -> u32 {
        self.target >> KIND_SHIFT
    }
    pub(crate) fn id(self) -> u32 {
        self.target & ID_MASK
    }
}

/// One HTML page.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PageRec {
    pub(crate) hash: u128,
    pub(crate) links_start: u32,
    pub(crate) links_len: u32,
    pub(crate) title: u32,
    pub(crate) bytes: u32,
}

/// What a commit changed, for the caller's bookkeeping.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Effects {
    /// Sites (global ids) that got new URLs to fetch.
    pub woke: Vec<SiteId>,
    /// Distinct external URLs seen for the first time on this page (BeeBot's reward).
    pub new_external: u32,
    /// The scope reached `MaxPagesPerSite` with this commit.
    pub page_limit_reached: bool,
}

/// The scope's data cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DataError {
    /// Too many distinct strings.
    #[error(transparent)]
    Full(#[from] InternerFull),
    /// More than 2^30 URLs in one scope.
    #[error("more than 2^30 URLs in one crawl scope")]
    TooManyUrls,
    /// Saved state does not decode or does not fit the data it is applied to.
    #[error("saved state: {0}")]
    Corrupt(String),
    /// Saved state cannot be written.
    #[error("{0}")]
    Storage(String),
}

impl From<super::codec::Corrupt> for DataError {
    fn from(c: super::codec::Corrupt) -> Self {
        DataError::Corrupt(c.to_string())
    }
}

/// Data of one scope.
#[derive(Debug)]
pub(crate) struct ScopeGraph {
    pub(crate) origin: Origin,
    pub(crate) max_level: u32,
    /// This run's ids of the scope's sites, and their origins (kept in saved state).
    pub(crate) sites: Vec<SiteId>,
    pub(crate) site_origins: Vec<Origin>,
    pub(crate) urls: Interner,
    pub(crate) recs: Vec<UrlRec>,
    pub(crate) texts: Interner,
    pub(crate) pages: Vec<PageRec>,
    pub(crate) links: Vec<LinkRec>,
    pub(crate) frontiers: Vec<Frontier>,
    pub(crate) queued: Vec<usize>,
    pub(crate) home: u32,
    pub(crate) pending: usize,
    pub(crate) worklist: Vec<(u32, u32)>,
    /// Outcomes recorded (requests answered), for progress.
    pub(crate) outcomes: u64,
    /// Crawl time of earlier runs (from saved state).
    pub(crate) earlier_active: Duration,
    /// First claim and latest commit of this run.
    pub(crate) active: Option<(Instant, Instant)>,
    /// URLs claimed and not yet decided.
    pub(crate) in_flight: usize,
    /// Journal entries not yet handed to the state store (`None`: state is not saved).
    pub(crate) journal: Option<Vec<u8>>,
    /// One commit's journal entries while they are assembled (kept to reuse its buffer).
    pub(crate) entries: Vec<u8>,
    /// This scope's number in the saved state.
    pub(crate) index: u32,
    /// `MaxPagesPerSite` of this run (0: none); not saved.
    pub(crate) page_limit: u32,
}

impl ScopeGraph {
    /// An empty scope for `origin` on `site`, numbered `index` in the saved state; its home
    /// page is queued at level 0.
    pub(crate) fn new(
        index: u32,
        origin: Origin,
        site: SiteId,
        max_level: u32,
        journal: bool,
    ) -> Result<Self, DataError> {
        let mut g = ScopeGraph::empty(index, origin.clone(), max_level);
        g.sites.push(site);
        g.site_origins.push(origin);
        g.frontiers.push(Frontier::default());
        g.queued.push(0);
        if journal {
            let mut e = Vec::new();
            super::journal::put_add_scope(&mut e, &g.origin.to_string(), max_level);
            let mut buf = Vec::new();
            super::journal_frames::frame(&mut buf, index, &e);
            g.journal = Some(buf);
        }
        let home = g.origin.home();
        g.home = g.intern_url(home.as_str(), 0)?;
        let _ = g.relax(g.home, 0);
        Ok(g)
    }

    /// A scope with no URL at all (the base for loading saved state).
    pub(crate) fn empty(index: u32, origin: Origin, max_level: u32) -> Self {
        ScopeGraph {
            origin,
            max_level,
            sites: Vec::new(),
            site_origins: Vec::new(),
            urls: Interner::default(),
            recs: Vec::new(),
            texts: Interner::default(),
            pages: Vec::new(),
            links: Vec::new(),
            frontiers: Vec::new(),
            queued: Vec::new(),
            home: 0,
            pending: 0,
            worklist: Vec::new(),
            outcomes: 0,
            earlier_active: Duration::ZERO,
            active: None,
            journal: None,
            entries: Vec::new(),
            index,
            page_limit: 0,
            in_flight: 0,
        }
    }

    /// URLs queued or in flight.
    pub(crate) fn pending(&self) -> usize {
        self.pending
    }

    pub(crate) fn local(&self, site: SiteId) -> Option<usize> {
        self.sites.iter().position(|&s| s == site)
    }

    /// Takes the lowest-level queued URL of `site`; it becomes in flight.
    pub(crate) fn claim(&mut self, site: SiteId) -> Option<(u32, u32)> {
        let l = self.local(site)?;
        if self.limit_would_be_passed() {
            return None;
        }
        let now = Instant::now();
        self.active.get_or_insert((now, now));
        while let Some((_, id)) = self.frontiers[l].pop() {
            let rec = &mut self.recs[id as usize];
            if rec.state == UrlState::Queued {
                rec.state = UrlState::InFlight;
                self.queued[l] -= 1;
                self.in_flight += 1;
                return Some((id, rec.level));
            }
        }
        None
    }

    /// Whether `MaxPagesPerSite` pages were recorded.
    pub(crate) fn limit_reached(&self) -> bool {
        self.page_limit > 0 && self.pages.len() >= self.page_limit as usize
    }

    /// Whether claiming another URL could exceed `MaxPagesPerSite`: URLs in flight may all
    /// turn out to be pages.
    fn limit_would_be_passed(&self) -> bool {
        self.page_limit > 0 && self.pages.len() + self.in_flight >= self.page_limit as usize
    }

    /// Gives a claimed URL back to be fetched again, unless it was retried `max` times.
    /// While a URL is open its record's `data` counts its retries.
    pub(crate) fn retry(&mut self, id: u32, max: u32) -> Option<u32> {
        let rec = self.recs[id as usize];
        if rec.state != UrlState::InFlight || rec.data >= max {
            return None;
        }
        self.recs[id as usize].data += 1;
        self.release(id);
        Some(rec.data + 1)
    }

    /// Gives a claimed URL back (a stop came before its outcome).
    pub(crate) fn release(&mut self, id: u32) {
        let rec = &mut self.recs[id as usize];
        if rec.state == UrlState::InFlight {
            rec.state = UrlState::Queued;
            self.in_flight -= 1;
            let site = usize::from(rec.site);
            self.queued[site] += 1;
            self.frontiers[site].push(rec.level, id);
        }
    }

    /// The normalized URL of `id`.
    pub(crate) fn url(&self, id: u32) -> &str {
        self.urls.get(id)
    }

    /// Interns a URL of local site `site`; a new one starts unseen.
    pub(crate) fn intern_url(&mut self, url: &str, site: u16) -> Result<u32, DataError> {
        let (id, new) = self.urls.intern(url)?;
        if id > ID_MASK {
            return Err(DataError::TooManyUrls);
        }
        if new {
            self.recs.push(UrlRec {
                level: NO_LEVEL,
                data: 0,
                state: UrlState::Seen,
                site,
            });
        }
        Ok(id)
    }

    /// Records the final state of an open URL, keeping the counters right.
    fn finish(&mut self, id: u32, state: UrlState, data: u32) {
        let rec = self.recs[id as usize];
        if !rec.state.is_open() {
            return;
        }
        match rec.state {
            UrlState::Queued => {
                self.queued[usize::from(rec.site)] -= 1;
                self.pending -= 1;
            }
            UrlState::InFlight => {
                self.pending -= 1;
                self.in_flight -= 1;
            }
            _ => {}
        }
        let r = &mut self.recs[id as usize];
        r.state = state;
        r.data = data;
    }

    /// Lowers `start`'s level to `level` if that is shorter, and everything reachable from it
    /// accordingly; queues URLs that come within `maxCrawlLevel`.
    pub(crate) fn relax(&mut self, start: u32, level: u32) -> Vec<SiteId> {
        self.worklist.push((start, level));
        self.drain()
    }

    /// Processes the worklist of `(url, level)` improvements; returns the sites woken.
    fn drain(&mut self) -> Vec<SiteId> {
        let mut woke = Vec::new();
        while let Some((id, level)) = self.worklist.pop() {
            let rec = self.recs[id as usize];
            if level >= rec.level {
                continue;
            }
            self.recs[id as usize].level = level;
            match rec.state {
                UrlState::Seen if level <= self.max_level => {
                    self.queue(id);
                    let site = self.sites[usize::from(rec.site)];
                    if !woke.contains(&site) {
                        woke.push(site);
                    }
                }
                UrlState::Queued => self.frontiers[usize::from(rec.site)].push(level, id),
                UrlState::Page | UrlState::Redirect => self.push_successors(id, level),
                _ => {}
            }
        }
        woke
    }

    /// Seen → Queued.
    pub(crate) fn queue(&mut self, id: u32) {
        let rec = &mut self.recs[id as usize];
        rec.state = UrlState::Queued;
        let site = usize::from(rec.site);
        self.frontiers[site].push(rec.level, id);
        self.queued[site] += 1;
        self.pending += 1;
    }

    fn push_successors(&mut self, id: u32, level: u32) {
        let rec = self.recs[id as usize];
        match rec.state {
            UrlState::Redirect => self.worklist.push((rec.data, level)),
            UrlState::Page => {
                let p = self.pages[rec.data as usize];
                let child = level.saturating_add(1);
                for l in &self.links[p.links_start as usize..(p.links_start + p.links_len) as usize]
                {
                    if l.kind() == LINK_INTERNAL {
                        self.worklist.push((l.id(), child));
                    }
                }
            }
            _ => {}
        }
    }

    /// Applies a resolved outcome (all its strings already interned).
    pub(crate) fn apply(&mut self, r: &Resolved) -> Result<Vec<SiteId>, DataError> {
        let n = self.recs.len() as u32;
        let valid = |id: u32| id < n;
        if !valid(r.task) || !r.chain.iter().all(|&h| valid(h)) {
            return Err(DataError::Corrupt("an outcome names an unknown URL".into()));
        }
        self.outcomes += 1;
        if let Some((_, last)) = &mut self.active {
            *last = Instant::now();
        }
        let mut ids = Vec::with_capacity(r.chain.len() + 1);
        ids.push(r.task);
        ids.extend_from_slice(&r.chain);
        for w in ids.windows(2) {
            if w[0] != w[1] {
                self.finish(w[0], UrlState::Redirect, w[1]);
            }
        }
        let last = *ids.last().expect("never empty");
        match &r.kind {
            ResolvedKind::Page {
                hash,
                bytes,
                title,
                links,
            } => {
                if self.recs[last as usize].state.is_open() {
                    let p = self.add_page(*hash, *bytes, *title, links)?;
                    self.finish(last, UrlState::Page, p);
                }
            }
            ResolvedKind::OffSite(target) => {
                if !valid(*target) {
                    return Err(DataError::Corrupt("an outcome names an unknown URL".into()));
                }
                self.finish(last, UrlState::OffSite, *target);
            }
            ResolvedKind::Failed {
                reason,
                without_request,
            } => {
                let data = if *without_request {
                    reason | STATIC_BIT
                } else {
                    *reason
                };
                self.finish(last, UrlState::Failed, data);
            }
        }
        // The task URL was in flight; if it is still open (its outcome went to another URL of
        // the chain that was already decided), close it as a redirect to that URL.
        if self.recs[r.task as usize].state.is_open() && last != r.task {
            self.finish(r.task, UrlState::Redirect, last);
        }
        // Propagate levels along every edge this commit recorded: each redirect hop and the
        // page's links. Pushing from the task alone is not enough: when the chain ends at a
        // URL already known at that level, relaxing it improves nothing and its new links
        // would never get a level.
        for &id in &ids {
            let level = self.recs[id as usize].level;
            if level != NO_LEVEL {
                self.push_successors(id, level);
            }
        }
        Ok(self.drain())
    }

    fn add_page(
        &mut self,
        hash: u128,
        bytes: u32,
        title: u32,
        links: &[super::resolve::ResolvedLink],
    ) -> Result<u32, DataError> {
        let (n_urls, n_texts) = (self.recs.len() as u32, self.texts.len() as u32);
        let start = self.links.len() as u32;
        for l in links {
            let ok = match l.kind {
                LINK_BAD => l.target < n_texts && l.aux < n_texts,
                _ => l.target < n_urls && l.aux < n_texts,
            };
            if !ok || l.failure.is_some_and(|f| f >= n_texts) {
                return Err(DataError::Corrupt(
                    "a link names an unknown URL or text".into(),
                ));
            }
            if let Some(reason) = l.failure
                && self.recs[l.target as usize].state == UrlState::Seen
            {
                self.finish(l.target, UrlState::Failed, reason | STATIC_BIT);
            }
            self.links.push(LinkRec::new(l.kind, l.target, l.aux));
        }
        self.pages.push(PageRec {
            hash,
            links_start: start,
            links_len: self.links.len() as u32 - start,
            title,
            bytes,
        });
        Ok(self.pages.len() as u32 - 1)
    }

    /// Changes `maxCrawlLevel` (hosts.txt edited between runs): URLs now within it are
    /// queued, queued URLs now beyond it wait again.
    pub(crate) fn set_max_level(&mut self, max_level: u32) -> Vec<SiteId> {
        self.max_level = max_level;
        let mut woke = Vec::new();
        for id in 0..self.recs.len() as u32 {
            let rec = self.recs[id as usize];
            if rec.state == UrlState::Seen && rec.level <= max_level {
                self.queue(id);
                woke.push(self.sites[usize::from(rec.site)]);
            } else if rec.state == UrlState::Queued && rec.level > max_level {
                self.recs[id as usize].state = UrlState::Seen;
                self.queued[usize::from(rec.site)] -= 1;
                self.pending -= 1;
            }
        }
        woke.sort();
        woke.dedup();
        woke
    }

    /// `set_max_level`, journaled.
    pub(crate) fn change_max_level(&mut self, max_level: u32) -> Vec<SiteId> {
        if let Some(buf) = self.journal.as_mut() {
            let mut e = Vec::new();
            super::journal::put_set_max_level(&mut e, max_level);
            super::journal_frames::frame(buf, self.index, &e);
        }
        self.set_max_level(max_level)
    }

    /// Rebuilds frontiers and counters from the URL records (after loading saved state):
    /// in-flight URLs of the saved run are queued again.
    pub(crate) fn rebuild_frontiers(&mut self) {
        self.frontiers = (0..self.sites.len()).map(|_| Frontier::default()).collect();
        self.queued = vec![0; self.sites.len()];
        self.pending = 0;
        self.in_flight = 0;
        for id in 0..self.recs.len() as u32 {
            let state = self.recs[id as usize].state;
            let level = self.recs[id as usize].level;
            let waiting = matches!(state, UrlState::Queued | UrlState::InFlight);
            if waiting || (state == UrlState::Seen && level != NO_LEVEL && level <= self.max_level)
            {
                self.queue(id);
            }
        }
    }

    /// Links of page `p`.
    pub(crate) fn page_links(&self, p: &PageRec) -> &[LinkRec] {
        &self.links[p.links_start as usize..(p.links_start + p.links_len) as usize]
    }

    /// Crawl time: earlier runs plus first claim to latest commit of this run.
    pub(crate) fn active_time(&self) -> Duration {
        self.earlier_active
            + self
                .active
                .map_or(Duration::ZERO, |(a, b)| b.saturating_duration_since(a))
    }

    /// HTML pages recorded (aliases included).
    pub(crate) fn page_count(&self) -> usize {
        self.pages.len()
    }

    /// Approximate heap use, for memory reports.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.urls.heap_bytes()
            + self.texts.heap_bytes()
            + self.recs.capacity() * std::mem::size_of::<UrlRec>()
            + self.pages.capacity() * std::mem::size_of::<PageRec>()
            + self.links.capacity() * std::mem::size_of::<LinkRec>()
            + self.journal.as_ref().map_or(0, Vec::capacity)
    }
}

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

use std::time::{Duration, Instant};

use crate::message::{LinkTarget, Outcome, PageRecord};
use crate::site::Origin;

use super::SiteId;
use super::frontier::Frontier;
use super::interner::{Interner, InternerFull};

/// Level of a URL not reached by any path yet.
pub(crate) const NO_LEVEL: u32 = u32::MAX;
/// Set in a `Failed` record's data when the failure was decided without a request.
pub(crate) const STATIC_BIT: u32 = 1 << 31;

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
    fn is_open(self) -> bool {
        matches!(self, UrlState::Seen | UrlState::Queued | UrlState::InFlight)
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
const ID_MASK: u32 = (1 << KIND_SHIFT) - 1;

/// One link of a page. 8 bytes: internal/external → (url id, anchor text id);
/// bad → (raw text id, reason text id).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LinkRec {
    target: u32,
    pub(crate) aux: u32,
}

impl LinkRec {
    fn new(kind: u32, id: u32, aux: u32) -> Self {
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
}

/// Data of one scope.
#[derive(Debug)]
pub(crate) struct ScopeGraph {
    pub(crate) origin: Origin,
    pub(crate) max_level: u32,
    pub(crate) sites: Vec<SiteId>,
    pub(crate) urls: Interner,
    pub(crate) recs: Vec<UrlRec>,
    pub(crate) texts: Interner,
    pub(crate) pages: Vec<PageRec>,
    pub(crate) links: Vec<LinkRec>,
    frontiers: Vec<Frontier>,
    queued: Vec<usize>,
    pub(crate) home: u32,
    pending: usize,
    worklist: Vec<(u32, u32)>,
    /// Outcomes recorded (requests answered), for progress.
    pub(crate) outcomes: u64,
    /// First claim and latest commit of this run: the site's crawl time.
    pub(crate) active: Option<(Instant, Instant)>,
}

/// The scope's data structures cannot grow further.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DataError {
    /// Too many distinct strings.
    #[error(transparent)]
    Full(#[from] InternerFull),
    /// More than 2^30 URLs in one scope.
    #[error("more than 2^30 URLs in one crawl scope")]
    TooManyUrls,
}

impl ScopeGraph {
    /// A scope seeded with `origin`'s home page on `site`.
    pub(crate) fn new(origin: Origin, site: SiteId, max_level: u32) -> Result<Self, DataError> {
        let mut g = ScopeGraph {
            origin,
            max_level,
            sites: vec![site],
            urls: Interner::default(),
            recs: Vec::new(),
            texts: Interner::default(),
            pages: Vec::new(),
            links: Vec::new(),
            frontiers: vec![Frontier::default()],
            queued: vec![0],
            home: 0,
            pending: 0,
            worklist: Vec::new(),
            outcomes: 0,
            active: None,
        };
        let home = g.origin.home();
        g.home = g.intern_url(home.as_str(), 0)?;
        let _ = g.relax(g.home, 0);
        Ok(g)
    }

    /// URLs queued or in flight.
    pub(crate) fn pending(&self) -> usize {
        self.pending
    }

    fn local(&self, site: SiteId) -> Option<usize> {
        self.sites.iter().position(|&s| s == site)
    }

    fn local_or_add(&mut self, site: SiteId) -> u16 {
        if let Some(l) = self.local(site) {
            return l as u16;
        }
        self.sites.push(site);
        self.frontiers.push(Frontier::default());
        self.queued.push(0);
        (self.sites.len() - 1) as u16
    }

    /// Takes the lowest-level queued URL of `site`; it becomes in flight.
    pub(crate) fn claim(&mut self, site: SiteId) -> Option<(u32, u32)> {
        let l = self.local(site)?;
        let now = Instant::now();
        self.active.get_or_insert((now, now));
        while let Some((_, id)) = self.frontiers[l].pop() {
            let rec = &mut self.recs[id as usize];
            if rec.state == UrlState::Queued {
                rec.state = UrlState::InFlight;
                self.queued[l] -= 1;
                return Some((id, rec.level));
            }
        }
        None
    }

    /// Gives a claimed URL back (a stop came before its outcome).
    pub(crate) fn release(&mut self, id: u32) {
        let rec = &mut self.recs[id as usize];
        if rec.state == UrlState::InFlight {
            rec.state = UrlState::Queued;
            let site = usize::from(rec.site);
            self.queued[site] += 1;
            self.frontiers[site].push(rec.level, id);
        }
    }

    /// The normalized URL of `id`.
    pub(crate) fn url(&self, id: u32) -> &str {
        self.urls.get(id)
    }

    fn intern_url(&mut self, url: &str, site: u16) -> Result<u32, DataError> {
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
            UrlState::InFlight => self.pending -= 1,
            _ => {}
        }
        let r = &mut self.recs[id as usize];
        r.state = state;
        r.data = data;
    }

    /// Lowers `start`'s level to `level` if that is shorter, and everything reachable from it
    /// accordingly; queues URLs that come within `maxCrawlLevel`.
    fn relax(&mut self, start: u32, level: u32) -> Vec<SiteId> {
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
                    let site = usize::from(rec.site);
                    self.recs[id as usize].state = UrlState::Queued;
                    self.frontiers[site].push(level, id);
                    self.queued[site] += 1;
                    self.pending += 1;
                    if !woke.contains(&self.sites[site]) {
                        woke.push(self.sites[site]);
                    }
                }
                UrlState::Queued => self.frontiers[usize::from(rec.site)].push(level, id),
                UrlState::Page | UrlState::Redirect => self.push_successors(id, level),
                _ => {}
            }
        }
        woke
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

    /// Records one outcome. Returns what changed.
    pub(crate) fn commit(&mut self, outcome: &Outcome) -> Result<Effects, DataError> {
        self.outcomes += 1;
        if let Some((_, last)) = &mut self.active {
            *last = Instant::now();
        }
        let task = outcome.task();
        let task_id = task.url_id.0;
        let site = self.recs[task_id as usize].site;
        let chain = match outcome {
            Outcome::Page { page, .. } => &page.chain,
            Outcome::OffSite { chain, .. } | Outcome::Failed { chain, .. } => chain,
        };
        // The task URL and its same-site redirect hops, in order.
        let mut ids = Vec::with_capacity(chain.len() + 1);
        ids.push(task_id);
        for hop in chain {
            ids.push(self.intern_url(hop.as_str(), site)?);
        }
        for w in ids.windows(2) {
            if w[0] != w[1] {
                self.finish(w[0], UrlState::Redirect, w[1]);
            }
        }
        let last = *ids.last().expect("never empty");
        let mut effects = Effects::default();
        match outcome {
            Outcome::Page { page, .. } => {
                if self.recs[last as usize].state.is_open() {
                    let p = self.add_page(page, &mut effects)?;
                    self.finish(last, UrlState::Page, p);
                }
            }
            Outcome::OffSite { target, .. } => {
                let ext = self.intern_external(target.as_str(), &mut effects)?;
                self.finish(last, UrlState::OffSite, ext);
            }
            Outcome::Failed { failure, .. } => {
                let (reason, _) = self.texts.intern(&failure.reason)?;
                let data = if failure.without_request {
                    reason | STATIC_BIT
                } else {
                    reason
                };
                self.finish(last, UrlState::Failed, data);
            }
        }
        // The task URL was in flight; if it is still open (its outcome went to another URL of
        // the chain that was already decided), close it as a redirect to that URL.
        if self.recs[task_id as usize].state.is_open() && last != task_id {
            self.finish(task_id, UrlState::Redirect, last);
        }
        // Propagate the task's level along what was just learned.
        let level = self.recs[task_id as usize].level;
        self.push_successors(task_id, level);
        effects.woke = self.drain();
        Ok(effects)
    }

    fn intern_external(&mut self, url: &str, effects: &mut Effects) -> Result<u32, DataError> {
        let before = self.recs.len();
        let id = self.intern_url(url, 0)?;
        if self.recs.len() > before {
            self.recs[id as usize].state = UrlState::External;
            effects.new_external += 1;
        }
        Ok(id)
    }

    fn add_page(&mut self, page: &PageRecord, effects: &mut Effects) -> Result<u32, DataError> {
        let start = self.links.len() as u32;
        for link in &page.links {
            let rec = match &link.target {
                LinkTarget::Internal { url, site, failure } => {
                    let local = self.local_or_add(*site);
                    let id = self.intern_url(url.as_str(), local)?;
                    if let Some(f) = failure
                        && self.recs[id as usize].state == UrlState::Seen
                    {
                        let (reason, _) = self.texts.intern(&f.reason)?;
                        self.finish(id, UrlState::Failed, reason | STATIC_BIT);
                    }
                    let (anchor, _) = self.texts.intern(&link.anchor)?;
                    LinkRec::new(LINK_INTERNAL, id, anchor)
                }
                LinkTarget::External(url) => {
                    let id = self.intern_external(url.as_str(), effects)?;
                    let (anchor, _) = self.texts.intern(&link.anchor)?;
                    LinkRec::new(LINK_EXTERNAL, id, anchor)
                }
                LinkTarget::Bad { raw, reason } => {
                    let (raw, _) = self.texts.intern(raw)?;
                    let (reason, _) = self.texts.intern(reason)?;
                    LinkRec::new(LINK_BAD, raw, reason)
                }
            };
            self.links.push(rec);
        }
        let (title, _) = self.texts.intern(&page.title)?;
        self.pages.push(PageRec {
            hash: page.hash,
            links_start: start,
            links_len: self.links.len() as u32 - start,
            title,
            bytes: u32::try_from(page.bytes).unwrap_or(u32::MAX),
        });
        Ok(self.pages.len() as u32 - 1)
    }

    /// Links of page `p`.
    pub(crate) fn page_links(&self, p: &PageRec) -> &[LinkRec] {
        &self.links[p.links_start as usize..(p.links_start + p.links_len) as usize]
    }

    /// Time between the first claim and the latest commit.
    pub(crate) fn active_time(&self) -> Duration {
        self.active
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
    }
}

//! One crawl scope's data (the in-memory data manager keeps one per seed, behind a mutex):
//! every URL seen with its best known level and state, every page with its links, and the
//! frontiers of the scope's sites.
//!
//! Levels are kept as "the shortest path found so far" and only ever lowered. Downloads finish
//! in any order, so a URL may first be reached by a long path and later by a shorter one —
//! perhaps after it was already fetched, or after it was left out as deeper than
//! `maxCrawlLevel`. Lowering a level therefore propagates along the stored links (and
//! redirects), and a URL whose level drops to `maxCrawlLevel` or less is queued then
//! ([`levels`]). At quiescence every URL within `maxCrawlLevel` of the home page has been
//! fetched. The written graph is computed afterwards from these records ([`graph`]),
//! independently of the order things happened in.
//!
//! A commit ([`commit`]) has two phases: every string the outcome names is interned (and
//! journaled when new), then states change using ids only. Re-applying a journal ([`reapply`])
//! runs the same second phase, so a recovered scope is exactly the scope that was journaled.
//! [`snapshot`] turns a whole scope into bytes and back.
//!
//! The fields are private to this module and its children: the rest of the crate sees methods.

mod claims;
mod commit;
mod contents;
mod folding;
pub mod graph;
mod levels;
mod link_rec;
mod link_store;
mod measured;
mod orphans;
pub(crate) mod park;
pub(crate) mod reapply;
mod site_memory;
pub(crate) mod sitemap_rows;
mod snapshot;
pub(crate) mod traps;
pub(super) mod yields;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::DataError;
use super::Fetch;
use super::frontier::Frontier;
use super::interner::Interner;
use super::journal::JournalBuf;
use super::records::{Entry, LinkKind, PageMeta, Pull};
use crate::base::ids::SiteId;
use crate::crawl::message::HopKind;
use crate::model::site::Origin;
use link_rec::{ID_MASK, LinkRec, REPEAT, TEXT_LIMIT};
use link_store::{LinkIter, LinkRange, LinkStore};

/// Level of a URL not reached by any path yet.
const NO_LEVEL: u32 = u32::MAX;
/// Set in a `Failed` record's data when the failure was decided without a request.
const STATIC_BIT: u32 = 1 << 31;
/// A site not bound to one of this run's site ids yet (just loaded from the state).
pub(crate) const UNBOUND: SiteId = SiteId::NONE;

/// Where a URL stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum UrlState {
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
    /// A same-site meta refresh (SPEC §2.4); data = target url id.
    Refresh,
}

impl UrlState {
    /// Not decided yet: an outcome may still be recorded.
    fn is_open(self) -> bool {
        matches!(self, UrlState::Seen | UrlState::Queued | UrlState::InFlight)
    }

    /// A hop to another URL of the scope (HTTP redirect or meta refresh); data = target.
    fn is_hop(self) -> bool {
        matches!(self, UrlState::Redirect | UrlState::Refresh)
    }

    /// The state of a URL left by a hop of `kind`.
    fn hop(kind: HopKind) -> Self {
        match kind {
            HopKind::Http => UrlState::Redirect,
            HopKind::MetaRefresh => UrlState::Refresh,
        }
    }

    fn to_u8(self) -> u8 {
        self as u8
    }

    fn from_u8(v: u8) -> Option<Self> {
        use UrlState::*;
        [
            Seen, Queued, InFlight, Page, Redirect, OffSite, Failed, External, Refresh,
        ]
        .get(usize::from(v))
        .copied()
    }
}

/// One URL. 12 bytes.
#[derive(Debug, Clone, Copy)]
struct UrlRec {
    level: u32,
    data: u32,
    state: UrlState,
    /// Index into `ScopeGraph::sites`.
    site: u16,
}

/// Between an external link's anchor and its context (`ExternalLinkContext`) in the one text
/// its link record names: cleaned texts hold no control characters, so it cannot occur in
/// either, and the link record stays 8 bytes whether contexts are kept or not.
const CONTEXT_SEPARATOR: char = '\u{1f}';

/// One HTML page: what is recorded of it, and where its links are. 40 bytes.
#[derive(Debug, Clone, Copy)]
struct PageRec {
    meta: PageMeta,
    links: LinkRange,
}

/// Crawl time: `earlier` runs' plus this run's `active` span (first claim, latest commit).
fn active_time(earlier: Duration, active: Option<(Instant, Instant)>) -> Duration {
    earlier + active.map_or(Duration::ZERO, |(a, b)| b.saturating_duration_since(a))
}

/// Whether a scope writes journal records as it changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Journaling {
    /// Every change leaves a record (state is saved).
    On,
    /// Nothing is recorded (`SaveState = 0`, or a scope rebuilt from saved state).
    Off,
}

/// One fetch recorded in a scope: the task URL, its local site, and what it paid.
#[derive(Debug, Clone, Copy)]
struct PullRec {
    pull: Pull,
    site: u16,
    url: u32,
}

/// What a commit changed, for the caller's bookkeeping.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Effects {
    /// Sites (global ids) that got new URLs to fetch.
    pub woke: Vec<SiteId>,
    /// What the fetch yielded (BeeBot's reward): distinct external URLs seen for the first
    /// time, and all of them (the paper's X(i, j)); 1 for a redirect to another site.
    pub yielded: crate::model::bandit::Yield,
    /// The scope reached `MaxPagesPerSite` with this commit.
    pub page_limit_reached: bool,
    /// The scope's work in this run is over with this commit (nothing left to fetch, or it
    /// was suspended and this was its last task): it can be written and retired.
    pub settled: bool,
}

/// Data of one scope.
#[derive(Debug)]
pub(crate) struct ScopeGraph {
    origin: Origin,
    max_level: u32,
    /// This run's ids of the scope's sites, and their origins (kept in saved state).
    sites: Vec<SiteId>,
    site_origins: Vec<Origin>,
    /// Local index of each bound site (a scope may span thousands of hosts).
    local_of: HashMap<SiteId, u16>,
    urls: Interner,
    recs: Vec<UrlRec>,
    texts: Interner,
    pages: Vec<PageRec>,
    links: LinkStore,
    /// A page's link records while it is added (reused from page to page).
    link_scratch: Vec<LinkRec>,
    /// Per local site: its frontier and how many of its URLs are queued.
    frontiers: Vec<Frontier>,
    queued: Vec<usize>,
    home: u32,
    /// The home pages of the other seeds that share this scope (SPEC §6), level 0 too.
    more_homes: Vec<u32>,
    /// URLs queued or in flight.
    pending: usize,
    /// URLs claimed and not yet decided.
    in_flight: usize,
    /// `(url, level)` improvements waiting to be propagated.
    worklist: Vec<(u32, u32)>,
    /// Outcomes recorded (requests answered), for progress.
    outcomes: u64,
    /// The fetches, in commit order.
    pulls: Vec<PullRec>,
    /// Crawl time of earlier runs (from saved state).
    earlier_active: Duration,
    /// First claim and latest commit of this run.
    active: Option<(Instant, Instant)>,
    /// Records not yet handed to the state store (`None`: state is not saved).
    journal: Option<JournalBuf>,
    /// This scope's number in the saved state.
    index: u32,
    /// `MaxPagesPerSite` of this run (0: none); not saved.
    page_limit: u32,
    /// `MaxUrlsPerSite` (0: none): links to internal URLs beyond it are left out.
    url_limit: u32,
    /// `TrapLevels` and `TrapPatternUrls`; saved, so that a walk of the scope cuts what
    /// the crawl cut.
    traps: traps::TrapRules,
    /// `FollowNofollow = no` (saved like `traps`): nofollow links give no level.
    obey_nofollow: bool,
    /// The shapes of its URLs, for the trap rule.
    shapes: traps::Shapes,
    /// Its pages' contents, to tell a new page from another address of one (SPEC §14).
    contents: contents::Contents,
    /// URLs a task's redirect chain took to fetch them (queued or not queued yet): hop URL
    /// id → task URL id.
    hop_claims: HashMap<u32, u32>,
    /// What each local site changes per response and its cookie jar (SPEC §14).
    memory: site_memory::SiteMemory,
    /// Hop targets no link had named yet when a redirect chain took them: URL → task URL id.
    /// A page recorded meanwhile that links to one finds it taken (not queued): it was
    /// fetched twice, once by the chain and once from the frontier (`tests/downloaders.rs`
    /// saw it under load: a redirect to a page its sibling links to).
    new_hop_claims: HashMap<String, u32>,
    /// What its sites' sitemaps list (`Sitemaps = yes`, SPEC §17); not saved: each run
    /// reads them again with robots.txt.
    sitemap: Option<crate::model::sitemap::Sitemap>,
    /// Pages a sitemap listed and no link reached, queued as orphans (`SitemapSeeds`):
    /// saved, so that the written graph has them as nodes.
    orphans: Vec<u32>,
    /// Orphans are to be queued once nothing else is pending (this run; `SitemapSeeds`).
    seed_orphans: bool,
}

impl ScopeGraph {
    /// An empty scope for `origin` on `site`, numbered `index` in the saved state; its home
    /// page is queued at level 0.
    pub(crate) fn new(
        index: u32,
        origin: Origin,
        site: SiteId,
        max_level: u32,
        journaling: Journaling,
    ) -> Result<Self, DataError> {
        let mut g = ScopeGraph::empty(index, origin.clone(), max_level);
        g.add_local_site(site, origin)?;
        if journaling == Journaling::On {
            let mut j = JournalBuf::new(index);
            j.put(&Entry::AddScope {
                origin: g.origin.clone(),
                max_level,
            });
            j.end_record();
            g.journal = Some(j);
        }
        let home = g.origin.home();
        g.home = g.intern_url(home.as_str(), 0, LinkKind::Internal)?;
        let _ = g.relax(g.home, 0);
        Ok(g)
    }

    /// A scope with no URL at all (the base for loading saved state).
    fn empty(index: u32, origin: Origin, max_level: u32) -> Self {
        ScopeGraph {
            origin,
            max_level,
            sites: Vec::new(),
            site_origins: Vec::new(),
            local_of: HashMap::new(),
            urls: Interner::default(),
            recs: Vec::new(),
            texts: Interner::default(),
            pages: Vec::new(),
            links: LinkStore::default(),
            link_scratch: Vec::new(),
            frontiers: Vec::new(),
            queued: Vec::new(),
            home: 0,
            more_homes: Vec::new(),
            pending: 0,
            in_flight: 0,
            worklist: Vec::new(),
            outcomes: 0,
            pulls: Vec::new(),
            earlier_active: Duration::ZERO,
            active: None,
            journal: None,
            index,
            page_limit: 0,
            url_limit: 0,
            traps: traps::TrapRules::default(),
            obey_nofollow: false,
            shapes: traps::Shapes::default(),
            contents: contents::Contents::default(),
            hop_claims: HashMap::new(),
            new_hop_claims: HashMap::new(),
            sitemap: None,
            orphans: Vec::new(),
            seed_orphans: false,
            memory: site_memory::SiteMemory::default(),
        }
    }

    /// The seed site.
    pub(crate) fn origin(&self) -> &Origin {
        &self.origin
    }

    /// Renumbers the scope (one recovered on its own, from a database).
    pub(crate) fn set_index(&mut self, index: u32) {
        self.index = index;
        if let Some(j) = self.journal.as_mut() {
            j.set_scope(index);
        }
    }

    /// URLs claimed and not decided yet (downloading, being parsed, waiting to be retried).
    pub(crate) fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// URLs queued or in flight.
    pub(crate) fn pending(&self) -> usize {
        self.pending
    }

    /// Outcomes recorded.
    pub(crate) fn outcomes(&self) -> u64 {
        self.outcomes
    }

    /// How many fetches are recorded.
    pub(crate) fn pull_count(&self) -> usize {
        self.pulls.len()
    }

    /// The fetches recorded, in commit order.
    pub(crate) fn pulls(&self) -> impl Iterator<Item = Fetch> + '_ {
        self.pulls.iter().map(|p| Fetch {
            seq: p.pull.seq,
            site: self.sites[usize::from(p.site)],
            yielded: p.pull.yielded,
            extra: p.pull.extra,
        })
    }

    /// HTML pages recorded, one per distinct content (what the written graph counts as
    /// nodes; aliases of a page are not counted again).
    pub(crate) fn page_count(&self) -> usize {
        self.contents.distinct()
    }

    /// The origins along the home page's recorded hops (redirects and meta refreshes), after
    /// the home URL's own.
    pub(crate) fn home_origins(&self) -> Vec<Origin> {
        let mut out: Vec<Origin> = Vec::new();
        let mut cur = self.home;
        for _ in 0..16 {
            let rec = self.recs[cur as usize];
            if !rec.state.is_hop() {
                break;
            }
            cur = rec.data;
            if let Ok(url) = url::Url::parse(self.url(cur))
                && let Some(o) = Origin::of(&url)
                && o != self.origin
                && !out.contains(&o)
            {
                out.push(o);
            }
        }
        out
    }

    /// Binds the scope's site with `origin` to this run's id `site`.
    pub(crate) fn bind_site(&mut self, origin: &Origin, site: SiteId) {
        for (l, o) in self.site_origins.iter().enumerate() {
            if o == origin {
                self.sites[l] = site;
                self.local_of.insert(site, l as u16);
            }
        }
    }

    /// The scope's sites: each origin, with this run's id when it is bound.
    pub(crate) fn site_list(&self) -> Vec<(Origin, Option<SiteId>)> {
        self.site_origins
            .iter()
            .zip(&self.sites)
            .map(|(o, &s)| (o.clone(), (s != UNBOUND).then_some(s)))
            .collect()
    }

    /// Another seed joins the scope (its key domains meet the scope's, SPEC §6): its site is
    /// added if new and its home page is queued at level 0. Nothing happens for a seed the
    /// scope has already (a continued crawl). Returns the sites woken.
    pub(crate) fn add_seed(
        &mut self,
        origin: Origin,
        site: SiteId,
    ) -> Result<Vec<SiteId>, DataError> {
        let home = origin.home();
        if let Some(id) = self.urls.lookup(home.as_str())
            && (id == self.home || self.more_homes.contains(&id))
        {
            return Ok(Vec::new());
        }
        if let Some(j) = self.journal.as_mut() {
            j.put(&Entry::AddSeed {
                origin: origin.clone(),
            });
            j.end_record();
        }
        self.seed(origin, site)
    }

    /// [`Self::add_seed`] without the journal (what re-applying it does).
    fn seed(&mut self, origin: Origin, site: SiteId) -> Result<Vec<SiteId>, DataError> {
        let local = match self.site_origins.iter().position(|o| *o == origin) {
            Some(l) => l as u16,
            None => self.add_local_site(site, origin.clone())?,
        };
        if site != UNBOUND {
            self.sites[usize::from(local)] = site;
            self.local_of.insert(site, local);
        }
        let id = self.intern_url(origin.home().as_str(), local, LinkKind::Internal)?;
        if id != self.home && !self.more_homes.contains(&id) {
            self.more_homes.push(id);
        }
        Ok(self.relax(id, 0))
    }

    /// Every seed's home page: the scope's own first, then those of seeds that joined it.
    pub(crate) fn homes(&self) -> impl Iterator<Item = u32> + '_ {
        std::iter::once(self.home).chain(self.more_homes.iter().copied())
    }

    /// Sets `maxCrawlLevel`, `TrapLevels`, `TrapPatternUrls` and whether nofollow links give
    /// levels (journaled when they change), and `MaxPagesPerSite` and `MaxUrlsPerSite` for
    /// this run.
    pub(crate) fn set_limits(
        &mut self,
        (max_level, traps, obey_nofollow): (u32, traps::TrapRules, bool),
        (page_limit, url_limit): (u32, u32),
    ) {
        if self.max_level != max_level || self.traps != traps || self.obey_nofollow != obey_nofollow
        {
            if let Some(j) = self.journal.as_mut() {
                j.put(&Entry::SetLevelLimits {
                    max_level,
                    traps,
                    obey_nofollow,
                });
                j.end_record();
            }
            self.set_level_limits(max_level, traps, obey_nofollow);
        }
        self.page_limit = page_limit;
        self.url_limit = url_limit;
    }

    /// Starts journaling (a scope recovered from saved state, now live again).
    pub(crate) fn start_journal(&mut self) {
        self.journal
            .get_or_insert_with(|| JournalBuf::new(self.index));
    }

    /// Moves the journal records written since the last call to the end of `out`.
    pub(crate) fn take_journal(&mut self, out: &mut Vec<u8>) {
        if let Some(j) = self.journal.as_mut() {
            j.take_into(out);
        }
    }

    fn local(&self, site: SiteId) -> Option<usize> {
        // Most scopes are one site (a few with aliases): a scan beats hashing, for every
        // link of every page.
        if self.sites.len() <= 8 {
            return self.sites.iter().position(|&s| s == site);
        }
        self.local_of.get(&site).map(|&l| usize::from(l))
    }

    /// The normalized URL of `id`.
    pub(crate) fn url(&self, id: u32) -> &str {
        self.urls.get(id)
    }

    /// Interns a URL of local site `site` (an internal one) or of another site (`site` 0,
    /// [`LinkKind::External`]); a new one starts unseen.
    fn intern_url(&mut self, url: &str, site: u16, kind: LinkKind) -> Result<u32, DataError> {
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
            let internal = (kind == LinkKind::Internal).then_some(url);
            self.shapes.push(internal);
        }
        Ok(id)
    }

    /// Adds a site to the scope; returns its local index.
    fn add_local_site(&mut self, site: SiteId, origin: Origin) -> Result<u16, DataError> {
        let local = u16::try_from(self.sites.len()).map_err(|_| DataError::TooManySites)?;
        if local == u16::MAX {
            return Err(DataError::TooManySites);
        }
        self.sites.push(site);
        self.site_origins.push(origin);
        self.frontiers.push(Frontier::default());
        self.queued.push(0);
        if site != UNBOUND {
            self.local_of.insert(site, local);
        }
        Ok(local)
    }

    /// Links of page `p`, in document order.
    fn page_links(&self, p: &PageRec) -> LinkIter<'_> {
        self.links.records(p.links)
    }

    /// Crawl time: earlier runs plus first claim to latest commit of this run.
    pub(crate) fn active_time(&self) -> Duration {
        active_time(self.earlier_active, self.active)
    }

    /// Approximate heap use, for memory reports.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.urls.heap_bytes()
            + self.texts.heap_bytes()
            + self.recs.capacity() * std::mem::size_of::<UrlRec>()
            + self.pages.capacity() * std::mem::size_of::<PageRec>()
            + self.links.capacity()
            + self.link_scratch.capacity() * std::mem::size_of::<LinkRec>()
            + self.pulls.capacity() * std::mem::size_of::<PullRec>()
            + self.journal.as_ref().map_or(0, JournalBuf::heap_bytes)
            + self.shapes.heap_bytes()
            + self.contents.heap_bytes()
    }
}

//! [`CrawlView`]: what a running crawl shows of itself to whoever watches it — a routine
//! (the progress line, the finishers), the status page — without handing out the crawl's
//! parts: a watcher reads figures and may ask for the stop, nothing more.

use std::time::Instant;

use crate::base::ids::{ScopeId, SiteId};
use crate::base::stop::Stop;
use crate::crawl::data::Progress;
use crate::crawl::finish::Tick;
use crate::crawl::settings::Settings;
use crate::model::site::Origin;

/// Where the scopes of a crawl are (SPEC §11).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScopeCounts {
    /// Opened and in memory.
    pub live: usize,
    /// Written and released in this run.
    pub written: usize,
    /// Not opened yet.
    pub waiting: usize,
}

/// The network of sites' totals so far (SPEC §15).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NetworkTotals {
    /// Target sites (hosts.txt's scopes).
    pub targets: usize,
    /// Target sites whose links are counted (written so far in this run).
    pub counted: usize,
    /// Accompanying sites found so far.
    pub accompanying: usize,
    /// Arcs so far.
    pub arcs: u64,
}

/// A running crawl as its watchers read it. Every method may be called from any thread, as
/// often as a tick.
pub trait CrawlView: Sync {
    /// The crawl's settings.
    fn settings(&self) -> &Settings;

    /// When this run started.
    fn started(&self) -> Instant;

    /// The stop broadcast: whether the stop is requested, and requesting it.
    fn stop(&self) -> &Stop;

    /// What the finishers are asked with now: the work left (URLs queued or in flight, scopes
    /// other processes or this one must still crawl — zero means the crawl's work is done),
    /// robots.txt files still awaited, the page budget.
    fn tick(&self) -> Tick;

    /// The origin of this run's site `site` (a clone shares its host's text).
    fn origin(&self, site: SiteId) -> Origin;

    /// URLs queued or in flight in this process's scopes.
    fn queued(&self) -> usize;

    /// How many scopes there are (ids `0..scope_count()`), retired ones included.
    fn scope_count(&self) -> usize;

    /// Figures of scope `scope`.
    fn scope_progress(&self, scope: ScopeId) -> Progress;

    /// Whether scope `scope` is written and out of memory.
    fn is_retired(&self, scope: ScopeId) -> bool;

    /// The pages of a retired scope as its summary.csv row says (`None` while it is live).
    fn retired_pages(&self, scope: ScopeId) -> Option<u64>;

    /// Where the scopes are, for a crawl that opens scopes as it runs (`None` when all were
    /// opened first).
    fn scope_counts(&self) -> Option<ScopeCounts>;

    /// Downloading threads running.
    fn downloaders(&self) -> usize;

    /// URLs waiting to be retried, and sites backed off after failures.
    fn waiting(&self) -> (usize, usize);

    /// The network of sites' totals so far (`None` without one).
    fn network(&self) -> Option<NetworkTotals>;

    /// Problems reported so far (the error log's lines).
    fn problems(&self) -> u64;
}

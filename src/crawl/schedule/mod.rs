//! Which site gets the next download slot (SPEC §5), and politeness (SPEC §1).
//!
//! - [`dispatcher`] — the [`Dispatcher`]: per-site politeness (requests in flight, delays,
//!   robots.txt first, back-off, suspension) and the page buffer; it asks the [`Scheduler`]
//!   which ready site goes next, so no rule can break politeness.
//! - [`lease`] — a claimed task as one value ([`TaskLease`]) that gives back what it holds exactly
//!   once, whatever path the code takes.
//! - a site's delay is kept between requests as they are written by its
//!   [`Pacer`](crate::crawl::fetch::Pacer), which the dispatcher holds per site.
//! - the rules: [`RoundRobin`] (`AllSites`), [`Sequential`], [`TimeQuantum`].

mod all_sites;
pub mod bandit;
pub mod budget;
pub mod dispatcher;
pub mod lease;
pub mod sequential;
mod time_quantum;

use std::fmt::Debug;
use std::time::Instant;

pub use all_sites::RoundRobin;
pub use bandit::BanditScheduler;
pub use budget::Budget;
pub use dispatcher::{Dispatcher, Suspension};
pub use lease::TaskLease;
pub use sequential::Sequential;
pub use time_quantum::TimeQuantum;

use crate::base::ids::{ScopeId, SiteId};
use crate::model::bandit::Yield;

/// A site with work, as schedulers see it (in site order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    /// The site.
    pub site: SiteId,
    /// It may start a request now (free slot, delay passed, a URL waiting).
    pub ready: bool,
    /// It has a URL waiting that the budget allows, ready or not (its delay may not have
    /// passed, its downloads at a time may all be taken): a budget rule may choose it and
    /// wait for it.
    pub has_work: bool,
    /// The crawl scope it belongs to (a scope may span several sites, SPEC §6).
    pub scope: ScopeId,
}

/// A rule choosing the next site. Called by the dispatcher under its lock, from whichever
/// downloader thread is looking for work.
pub trait Scheduler: Send + Debug {
    /// Picks a ready candidate for the next request, or `None` to wait. `candidates` are the
    /// sites with work or requests in flight, in site order (never empty). A rule that learns
    /// ([`Scheduler::max_unobserved`]) may pick a candidate with work that is not ready: the
    /// dispatcher keeps it that page until its turn ([`Scheduler::reserve`]).
    fn choose(&mut self, candidates: &[Candidate], now: Instant) -> Option<SiteId>;
    /// A page task of `site` (in `scope`) was handed out after `choose` chose it (or, when a
    /// crawl continues, a recorded fetch is being replayed).
    fn started(&mut self, _site: SiteId, _scope: ScopeId) {}
    /// The rule chose `site` (in `scope`) and the dispatcher keeps it a page until the site
    /// may start a request ([`Scheduler::max_unobserved`] rules only): its pull is under way
    /// for the next choices. Ends with [`Scheduler::unreserve`], then `started` if the task
    /// is handed out.
    fn reserve(&mut self, _site: SiteId, _scope: ScopeId) {}
    /// A reservation of `site` ended (handed out, or the site had no URL left after all).
    fn unreserve(&mut self, _site: SiteId, _scope: ScopeId) {}
    /// A page task of `site` that was `started` went back unfetched (a retry, a stop): no
    /// reward will come for it.
    fn given_back(&mut self, _site: SiteId, _scope: ScopeId) {}
    /// Learns what one fetch of `site` (in `scope`) yielded (the BeeBot reward). Fetches are
    /// reported in the order their outcomes are recorded; rules that do not adapt ignore
    /// them. A waiting downloader is woken to choose again after an observation only for
    /// rules that set [`Scheduler::max_unobserved`]: a rule that learns sets it (its choice
    /// may change with each reward), one that does not is asked again at the next event.
    fn observe(&mut self, _site: SiteId, _scope: ScopeId, _yielded: Yield) {}
    /// When the rule may decide differently without any other event (a time slice ending).
    fn wake_at(&self) -> Option<Instant> {
        None
    }
    /// How many fetches may be chosen and not yet observed when the next is chosen (`None`:
    /// any number). The dispatcher waits rather than choose past it: a learning rule sees
    /// the rewards it decides on, up to this delay — which is what makes a crawl with one
    /// downloader decide exactly as a replay of its yields does.
    fn max_unobserved(&self) -> Option<usize> {
        None
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Candidates from (site id, ready).
    pub(crate) fn cands(v: &[(u32, bool)]) -> Vec<Candidate> {
        v.iter()
            .map(|&(s, ready)| Candidate {
                site: SiteId(s),
                ready,
                has_work: ready,
                scope: ScopeId(s),
            })
            .collect()
    }
}

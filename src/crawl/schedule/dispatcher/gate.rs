//! One site's gate: what decides whether the site may start a request now — requests in
//! flight against `maxDownloadsAtTime`, the crawl delay and the next start it allows, the
//! robots.txt phase, failures in a row and back-off, suspension, tasks parked for a retry,
//! pages a budget rule reserved. The crawl delay lives here and only here: the delay is
//! hosts.txt's `crawlDelay` until robots.txt is known, then the larger of it and robots.txt's
//! `Crawl-delay` (SPEC §1), kept between task hand-outs here and between requests as they
//! are written by the site's [`Pacer`].

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::base::ids::{ScopeId, SiteId};
use crate::crawl::fetch::{Pacer, with_margin};
use crate::crawl::message::FetchTask;
use crate::model::sites::SiteEntry;
use crate::model::url_norm::NormUrl;

/// Why a site is no longer crawled in this run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Suspension {
    /// It stopped answering (`SiteDownAfterFailures` transport failures in a row).
    Down,
    /// It reached `MaxPagesPerSite`.
    PageLimit,
    /// Registered as a placeholder only (a gap in site ids).
    NotRegistered,
}

impl fmt::Display for Suspension {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Suspension::Down => "down",
            Suspension::PageLimit => "page limit",
            Suspension::NotRegistered => "not registered",
        })
    }
}

/// Where a site's robots.txt is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RobotsPhase {
    Needed,
    Fetching,
    Ready,
}

/// One site's politeness state.
#[derive(Debug)]
pub(super) struct SiteGate {
    pub(super) site: SiteId,
    pub(super) scope: ScopeId,
    /// `None` once its scope is retired (`Dispatcher::release_sites`).
    pub(super) robots_url: Option<NormUrl>,
    pub(super) max_in_flight: u32,
    pub(super) in_flight: u32,
    delay: Duration,
    /// The earliest a task of the site may be handed out: the delay after the latest task
    /// handed out, or the end of a back-off.
    pub(super) next_start: Instant,
    /// Keeps the delay where it is measured: between requests as they are written.
    pub(super) pacer: Arc<Pacer>,
    pub(super) robots: RobotsPhase,
    pub(super) robots_attempts: u32,
    /// The frontier may hold URLs (cleared when a claim finds none, set by `wake`).
    pub(super) has_work: bool,
    /// Transport failures since the last answer.
    pub(super) failures_in_a_row: u32,
    /// Tasks handed out whose outcome is not recorded yet (downloading or being parsed).
    pub(super) unsettled: u32,
    /// Why the site is no longer crawled in this run.
    pub(super) suspended: Option<Suspension>,
    /// Tasks waiting to be retried, with when (a failing URL waits; its site goes on).
    pub(super) parked: Vec<(Instant, FetchTask)>,
    /// Pages a budget rule chose this site for that wait for its turn (its delay, a free
    /// request slot): each holds a page of the budget and counts as a pull under way.
    pub(super) reserved: u32,
}

impl SiteGate {
    /// A placeholder for site id `site` (a gap in site ids), not crawled until registered.
    pub(super) fn placeholder(site: SiteId, scope: ScopeId, now: Instant) -> Self {
        SiteGate {
            site,
            scope,
            robots_url: None,
            max_in_flight: 0,
            in_flight: 0,
            delay: Duration::ZERO,
            next_start: now,
            pacer: Arc::default(),
            robots: RobotsPhase::Needed,
            robots_attempts: 0,
            has_work: false,
            failures_in_a_row: 0,
            unsettled: 0,
            suspended: Some(Suspension::NotRegistered),
            parked: Vec::new(),
            reserved: 0,
        }
    }

    /// The site is crawled from now on: its scope, robots.txt URL, requests at once and
    /// its delay (hosts.txt's, or none in a rebuild). A gate whose pacer is the shared one of released gates gets its own.
    pub(super) fn open(&mut self, site: &SiteEntry, released: &Arc<Pacer>, delay: Duration) {
        if Arc::ptr_eq(&self.pacer, released) {
            self.pacer = Arc::default();
        }
        self.scope = site.scope;
        self.robots_url = Some(site.origin.robots_url());
        self.max_in_flight = site.spec.max_downloads.max(1);
        self.delay = delay;
        self.pacer.set_delay(self.delay);
        self.has_work = true;
        self.suspended = None;
    }

    /// The site's scope was written and released: only what the figures need is kept, and
    /// its pacer is the shared one of released gates.
    pub(super) fn release(&mut self, released: &Arc<Pacer>) {
        self.robots_url = None;
        self.parked = Vec::new();
        self.pacer = Arc::clone(released);
    }

    pub(super) fn has_work(&self) -> bool {
        self.suspended.is_none()
            && match self.robots {
                RobotsPhase::Needed => true,
                RobotsPhase::Fetching => false,
                RobotsPhase::Ready => self.has_work,
            }
    }

    pub(super) fn is_candidate(&self) -> bool {
        self.suspended.is_none()
            && (self.has_work()
                || self.reserved > 0
                || self.in_flight > 0
                || self.unsettled > 0
                || !self.parked.is_empty()
                || self.robots == RobotsPhase::Fetching)
    }

    /// The parked task whose wait is over soonest, if its wait is over at `now`.
    pub(super) fn ready_parked(&self, now: Instant) -> Option<usize> {
        if self.robots != RobotsPhase::Ready {
            return None;
        }
        let (i, (at, _)) = self
            .parked
            .iter()
            .enumerate()
            .min_by_key(|(_, (at, _))| *at)?;
        (*at <= now).then_some(i)
    }

    /// When the next parked task's wait is over.
    pub(super) fn next_parked(&self) -> Option<Instant> {
        self.parked.iter().map(|(at, _)| *at).min()
    }

    /// A task of the site was handed out at `now`: the next may start a delay later.
    pub(super) fn started(&mut self, now: Instant) {
        self.in_flight += 1;
        self.unsettled += 1;
        self.next_start = now + with_margin(self.delay);
    }

    /// robots.txt is known, with its `Crawl-delay` (`robots_delay`, zero when none): the delay
    /// is the larger of it and hosts.txt's from now on, counted from the robots.txt request.
    pub(super) fn robots_done(&mut self, robots_delay: Duration) {
        self.robots_known(robots_delay);
        self.robots = RobotsPhase::Ready;
        self.has_work = true;
    }

    /// robots.txt is known but its task goes on (it reads the site's sitemaps, SPEC §17): its
    /// `Crawl-delay` holds from now on, and no page starts until [`Self::robots_done`].
    pub(super) fn robots_known(&mut self, robots_delay: Duration) {
        self.delay = self.delay.max(robots_delay);
        self.pacer.set_delay(self.delay);
        if let Some(sent) = self.pacer.last_sent() {
            self.next_start = self.next_start.max(sent + with_margin(self.delay));
        }
    }

    /// robots.txt failed for now: fetched again from `until`. Returns the attempts so far.
    pub(super) fn robots_retry(&mut self, until: Instant) -> u32 {
        self.robots = RobotsPhase::Needed;
        self.robots_attempts += 1;
        self.back_off(until);
        self.robots_attempts
    }

    /// No request starts before `until` (429/503, retries).
    pub(super) fn back_off(&mut self, until: Instant) {
        self.next_start = self.next_start.max(until);
        self.pacer.hold_until(until);
    }

    /// A transport failure; true when it makes `down_after` in a row and suspends the site
    /// (its parked tasks are then taken out for their frontiers).
    pub(super) fn transport_failed(&mut self, down_after: u32) -> bool {
        self.failures_in_a_row = self.failures_in_a_row.saturating_add(1);
        if self.failures_in_a_row >= down_after && self.suspended.is_none() {
            self.suspended = Some(Suspension::Down);
            return true;
        }
        false
    }

    /// Whether a request could start now on this gate alone: a free slot, work, its delay
    /// passed (used to pass a wake-up on).
    pub(super) fn free_now(&self, now: Instant) -> bool {
        self.in_flight < self.max_in_flight && self.has_work() && self.next_start <= now
    }
}

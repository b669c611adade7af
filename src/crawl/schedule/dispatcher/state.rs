//! Admission: what the whole crawl allows besides each site's gate — the page buffer between
//! downloaders and parsers, the requests under way, the page budget and the pages a learning
//! rule reserved or has not seen the outcome of yet — and what the engine reads to size the
//! crawl (time starved for a ready site, demand for more downloaders).

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::DispatcherConfig;
use super::gate::SiteGate;
use crate::base::ids::SiteId;
use crate::crawl::fetch::Pacer;
use crate::crawl::schedule::{Budget, Candidate, Scheduler};

/// Everything the dispatcher's lock guards.
#[derive(Debug)]
pub(super) struct State {
    pub(super) gates: Vec<SiteGate>,
    /// The gates of sites being crawled (registered, not retired): what `acquire` looks at,
    /// so a crawl of thousands of sites scans its active window, not every site it had.
    pub(super) active: Vec<usize>,
    /// Time downloaders spent in `acquire` with room to start a task, no site ready and the
    /// parsers waiting for pages (the window of active scopes may grow), since last taken.
    pub(super) starved: Duration,
    /// Tasks handed out while another site was ready and no downloader waited (another
    /// downloader could have started it), since last taken.
    pub(super) wanted: u64,
    /// Downloaders waiting in `acquire`.
    pub(super) waiting: usize,
    /// Since when a driver's `try_acquire` found nothing while the parsers waited for pages.
    pub(super) loop_starved_since: Option<Instant>,
    /// Requests under way (leases holding their site's slot), over all sites.
    pub(super) requesting: usize,
    /// The page buffer's size, and the parsers (see [`DispatcherConfig`]).
    page_buffer: usize,
    parsers: usize,
    pub(super) scheduler: Box<dyn Scheduler>,
    pub(super) candidates: Vec<Candidate>,
    /// Free places in the page buffer.
    pub(super) buffer_free: usize,
    /// The page budget.
    pub(super) budget: Budget,
    /// Page tasks handed out whose outcome the scheduler has not observed yet, and pages
    /// reserved ([`SiteGate::reserved`]).
    pub(super) unobserved: usize,
    /// Pages reserved, over all sites.
    pub(super) reservations: usize,
    /// The pacer of every released gate, shared (`Dispatcher::release_sites`).
    pub(super) released: Arc<Pacer>,
    /// No delays between requests ([`DispatcherConfig::unpaced`]).
    pub(super) unpaced: bool,
}

impl State {
    pub(super) fn new(config: &DispatcherConfig, scheduler: Box<dyn Scheduler>) -> Self {
        State {
            gates: Vec::new(),
            scheduler,
            candidates: Vec::new(),
            buffer_free: config.page_buffer.max(1),
            active: Vec::new(),
            starved: Duration::ZERO,
            wanted: 0,
            waiting: 0,
            loop_starved_since: None,
            requesting: 0,
            page_buffer: config.page_buffer.max(1),
            parsers: config.parsers.max(1),
            budget: if config.shared_budget {
                Budget::shared(config.budget)
            } else {
                Budget::new(config.budget)
            },
            unobserved: 0,
            reservations: 0,
            released: Arc::default(),
            unpaced: config.unpaced,
        }
    }

    /// Whether fewer pages wait for the parsers than there are parsers: the places of the
    /// page buffer taken by tasks whose requests are done.
    pub(super) fn parsers_idle(&self) -> bool {
        let taken = self.page_buffer.saturating_sub(self.buffer_free);
        taken.saturating_sub(self.requesting) < self.parsers
    }

    /// The rule waits for the outcomes of the pages it chose before it chooses again.
    pub(super) fn waits_for_rewards(&self) -> bool {
        self.scheduler
            .max_unobserved()
            .is_some_and(|m| self.unobserved >= m)
    }

    /// A learning rule's pick that must wait for its turn keeps a page: the budget's page and
    /// a pull under way.
    pub(super) fn reserve(&mut self, site: SiteId) {
        let gate = &mut self.gates[site.0 as usize];
        gate.reserved += 1;
        let scope = gate.scope;
        self.reservations += 1;
        self.budget.reserve();
        self.unobserved += 1;
        self.scheduler.reserve(site, scope);
    }

    /// Gives back every page reserved for `site` (it cannot start them: out of URLs,
    /// suspended, retired): the budget's pages, the pulls under way, the rule's count.
    /// Called where the site stops being able to start them, so `pass` never meets a
    /// reservation it cannot serve but for a frontier that ran out.
    pub(super) fn drop_reservations(&mut self, site: SiteId) {
        let gate = &mut self.gates[site.0 as usize];
        let n = std::mem::take(&mut gate.reserved);
        let scope = gate.scope;
        for _ in 0..n {
            self.reservations -= 1;
            self.budget.give_back();
            self.unobserved = self.unobserved.saturating_sub(1);
            self.scheduler.unreserve(site, scope);
        }
    }

    /// A task of `site` is handed out: a reserved page is served (it holds its budget page and
    /// pull already), a page task reserves them; the rule hears that it started.
    pub(super) fn count_start(&mut self, site: SiteId, reserved: bool, page: bool) {
        let scope = self.gates[site.0 as usize].scope;
        if reserved {
            self.gates[site.0 as usize].reserved -= 1;
            self.reservations -= 1;
            self.scheduler.unreserve(site, scope);
            self.scheduler.started(site, scope);
        } else if page {
            self.budget.reserve();
            self.unobserved += 1;
            self.scheduler.started(site, scope);
        }
        self.requesting += 1;
        self.buffer_free -= 1;
    }
}

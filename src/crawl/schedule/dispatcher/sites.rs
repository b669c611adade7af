//! The sites the dispatcher looks at: registered when their scope opens (or when a link finds
//! a host a multi-host filter puts in scope), woken when their frontiers get URLs, backed off,
//! suspended, retired with their scope and released once it is written. Each call locks once
//! and leaves the decision to the site's [`SiteGate`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::Dispatcher;
use super::gate::{RobotsPhase, SiteGate, Suspension};
use super::state::State;
use crate::base::ids::{ScopeId, SiteId};
use crate::crawl::fetch::{Pacer, SendTurn};
use crate::model::sites::{SiteEntry, Sites};

impl Dispatcher {
    /// A crawl of `n` sites (hosts.txt's) starts: their gates take their room now, before any
    /// site's data (SPEC §11).
    pub fn expect_sites(&self, n: usize) {
        let mut st = self.state.lock();
        let more = n.saturating_sub(st.gates.len());
        st.gates.reserve(more);
    }

    /// Registers a site; its robots.txt is fetched first.
    pub fn add_site(&self, site: &SiteEntry) {
        let mut st = self.state.lock();
        register(&mut st, site);
        // One downloader: it passes the wake-up on if there is more to hand out. Waking all
        // of them for each site opened cost a slow many-site crawl (hundreds of downloaders
        // waiting, tens of sites opened a second) more CPU than its pages.
        self.cv.notify_one();
    }

    /// Sites whose frontiers got new URLs. A site the dispatcher does not know yet (a host a
    /// multi-host filter found, SPEC §6) is registered from `registry`: its robots.txt first.
    pub fn wake(&self, sites: &[SiteId], registry: &Sites) {
        if sites.is_empty() {
            return;
        }
        let mut st = self.state.lock();
        let mut news = false;
        for s in sites {
            match st.gates.get_mut(s.0 as usize) {
                Some(gate) if gate.suspended != Some(Suspension::NotRegistered) => {
                    news |= !gate.has_work;
                    gate.has_work = true;
                }
                _ => {
                    register(&mut st, &registry.get(*s));
                    news = true;
                }
            }
        }
        // A site already known to have work is looked at by whoever asks next.
        if news {
            self.cv.notify_one();
        }
    }

    /// The sites of `scope` are through in this run (the scope is being written and
    /// released): they leave the sites `acquire` looks at, so no task of the scope starts
    /// from now on. Returns them.
    pub fn retire_scope(&self, scope: ScopeId) -> Vec<SiteId> {
        let mut st = self.state.lock();
        let State { gates, active, .. } = &mut *st;
        let mut taken = Vec::new();
        active.retain(|&i| {
            let keep = gates[i].scope != scope;
            if !keep {
                taken.push(gates[i].site);
            }
            keep
        });
        let reserved = st.reservations;
        for &site in &taken {
            st.drop_reservations(site);
        }
        if st.reservations < reserved {
            // Pulls given back: a rule waiting for rewards may choose again.
            self.cv.notify_one();
        }
        taken
    }

    /// The sites of a scope written and released (taken out by [`Self::retire_scope`]) keep
    /// only what the figures need: a crawl of thousands of sites keeps a gate per site.
    pub fn release_sites(&self, sites: &[SiteId]) {
        let mut st = self.state.lock();
        let State {
            gates, released, ..
        } = &mut *st;
        for s in sites {
            gates[s.0 as usize].release(released);
        }
    }

    /// Sites taken out by [`Self::retire_scope`] are crawled again (their scope turned out not
    /// to be settled).
    pub fn reinstate(&self, sites: &[SiteId]) {
        let mut st = self.state.lock();
        st.active.extend(sites.iter().map(|s| s.0 as usize));
        self.cv.notify_all();
    }

    /// Waits, right before a request to `site` is sent, for the site's turn: the delay since
    /// the previous request was written has passed, and any back-off has ended. Every request
    /// takes a turn — a task's first, each redirect hop, robots.txt — and its transport ends
    /// it when the request is written ([`Pacer`]). `None` when the crawl is stopping.
    pub fn pace(&self, site: SiteId) -> Option<SendTurn> {
        let pacer = Arc::clone(&self.state.lock().gates[site.0 as usize].pacer);
        pacer.turn(&self.stop)
    }

    /// The pacer of `site`'s requests, for a driver that takes turns without waiting
    /// ([`Pacer::try_turn`]).
    pub fn pacer(&self, site: SiteId) -> Arc<Pacer> {
        Arc::clone(&self.state.lock().gates[site.0 as usize].pacer)
    }

    /// Transport failures of `site` since its last answer.
    pub fn failures_in_a_row(&self, site: SiteId) -> u32 {
        self.state.lock().gates[site.0 as usize].failures_in_a_row
    }

    /// No request to `site` starts before `until` (429/503, retries).
    pub fn back_off(&self, site: SiteId, until: Instant) {
        self.state.lock().gates[site.0 as usize].back_off(until);
    }

    /// `site` answered (with any HTTP status): its failure streak ends.
    pub fn answered(&self, site: SiteId) {
        self.state.lock().gates[site.0 as usize].failures_in_a_row = 0;
    }

    /// A request to `site` failed at the transport level (refused, timeout, broken). Returns
    /// true when this failure suspends the site: it stopped answering.
    pub fn transport_failed(&self, site: SiteId) -> bool {
        let mut st = self.state.lock();
        if !st.gates[site.0 as usize].transport_failed(self.down_after) {
            return false;
        }
        self.suspended_now(st, site);
        true
    }

    /// Stops crawling `site` in this run (`reason` goes to summary.csv); its tasks waiting
    /// for a retry go back to its frontier.
    pub fn suspend(&self, site: SiteId, reason: Suspension) {
        let mut st = self.state.lock();
        let gate = &mut st.gates[site.0 as usize];
        if gate.suspended.is_none() {
            gate.suspended = Some(reason);
        }
        self.suspended_now(st, site);
    }

    /// `site` was just suspended: its reservations and parked tasks go back.
    fn suspended_now(&self, mut st: parking_lot::MutexGuard<'_, State>, site: SiteId) {
        let parked = std::mem::take(&mut st.gates[site.0 as usize].parked);
        st.drop_reservations(site);
        self.cv.notify_all();
        drop(st);
        for (_, task) in &parked {
            self.dm.release(task);
        }
    }

    /// Why `site` was suspended, if it was.
    pub fn suspended(&self, site: SiteId) -> Option<Suspension> {
        self.state
            .lock()
            .gates
            .get(site.0 as usize)
            .and_then(|s| s.suspended)
    }

    /// robots.txt of `site` is known; `delay` is its `Crawl-delay` (zero when none): the
    /// site's delay is the larger of it and hosts.txt's from now on.
    pub fn robots_done(&self, site: SiteId, delay: Duration) {
        {
            let mut st = self.state.lock();
            let delay = if st.unpaced { Duration::ZERO } else { delay };
            st.gates[site.0 as usize].robots_done(delay);
        }
        self.cv.notify_one();
    }

    /// robots.txt of `site` is known and its task goes on to read the site's sitemaps: its
    /// `Crawl-delay` (`delay`) holds from now on; the site's pages wait for
    /// [`Self::robots_done`].
    pub fn robots_known(&self, site: SiteId, delay: Duration) {
        let mut st = self.state.lock();
        let delay = if st.unpaced { Duration::ZERO } else { delay };
        st.gates[site.0 as usize].robots_known(delay);
    }

    /// robots.txt of `site` failed for now: fetch it again from `until`. Returns the number of
    /// attempts made so far.
    pub fn robots_retry(&self, site: SiteId, until: Instant) -> u32 {
        let attempts = self.state.lock().gates[site.0 as usize].robots_retry(until);
        self.cv.notify_one();
        attempts
    }

    /// Attempts at `site`'s robots.txt so far.
    pub fn robots_attempts(&self, site: SiteId) -> u32 {
        self.state.lock().gates[site.0 as usize].robots_attempts
    }

    /// Active sites whose robots.txt is not known yet.
    pub fn robots_pending(&self) -> usize {
        self.state
            .lock()
            .gates
            .iter()
            .filter(|s| s.suspended.is_none() && s.robots != RobotsPhase::Ready)
            .count()
    }

    /// URLs waiting to be retried, and sites backed off now (for the progress line).
    pub fn waiting(&self) -> (usize, usize) {
        let st = self.state.lock();
        let now = Instant::now();
        let parked = st.gates.iter().map(|g| g.parked.len()).sum();
        let backed_off = st
            .gates
            .iter()
            .filter(|g| g.suspended.is_none() && g.next_start > now + Duration::from_secs(1))
            .count();
        (parked, backed_off)
    }

    /// Requests politeness allows at once now: the `maxDownloadsAtTime` of every site being
    /// crawled, summed (a suspended site's not counted). Downloaders beyond it would only
    /// wait (the window of active scopes raises it as it grows).
    pub fn request_room(&self) -> usize {
        let st = self.state.lock();
        st.active
            .iter()
            .map(|&i| &st.gates[i])
            .filter(|g| g.suspended.is_none())
            .map(|g| g.max_in_flight as usize)
            .sum()
    }
}

impl crate::crawl::fetch::Pacing for Dispatcher {
    fn pace(&self, site: SiteId) -> Option<SendTurn> {
        Dispatcher::pace(self, site)
    }
}

/// Opens `site`'s gate (placeholders fill any gap in site ids) and makes it active.
fn register(st: &mut State, site: &SiteEntry) {
    let idx = site.id.0 as usize;
    let now = Instant::now();
    while st.gates.len() <= idx {
        let next = SiteId(u32::try_from(st.gates.len()).unwrap_or(u32::MAX));
        st.gates.push(SiteGate::placeholder(next, site.scope, now));
    }
    if st.gates[idx].suspended == Some(Suspension::NotRegistered) {
        st.active.push(idx);
    }
    let delay = if st.unpaced {
        std::time::Duration::ZERO
    } else {
        site.spec.crawl_delay
    };
    let State {
        gates, released, ..
    } = st;
    gates[idx].open(site, released, delay);
}

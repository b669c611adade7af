//! What leases give back (through [`TaskLease`](crate::crawl::schedule::TaskLease), exactly once): a
//! request slot when a task's requests are done, a place in the page buffer when a parser
//! takes its page, the task itself when its outcome is recorded — the budget spent and the
//! rule told what it yielded — or when it goes back unfetched or waits for a retry.

use std::time::Instant;

use super::{Dispatcher, LeaseHolds};
use crate::base::ids::SiteId;
use crate::crawl::data::TaskData;
use crate::crawl::message::FetchTask;
use crate::model::bandit::Yield;

impl Dispatcher {
    /// A leased task of `site` finished its requests: its request slot is free.
    ///
    /// Nobody is woken: the downloader that freed the slot asks for its next task right after
    /// (`engine::download`), and a woken one would only race it for the slot — on a fast site
    /// that was one futile thread switch per page.
    pub(in crate::crawl::schedule) fn free_slot(&self, site: SiteId) {
        let mut st = self.state.lock();
        st.requesting = st.requesting.saturating_sub(1);
        let gate = &mut st.gates[site.0 as usize];
        gate.in_flight = gate.in_flight.saturating_sub(1);
    }

    /// A leased task's place in the page buffer is free again: a parser took its page, or it
    /// had no page to parse.
    pub(in crate::crawl::schedule) fn free_buffer(&self) {
        let mut st = self.state.lock();
        st.buffer_free += 1;
        // Only a full buffer keeps downloaders waiting for it (one woken passes it on).
        if st.buffer_free == 1 {
            self.cv.notify_one();
        }
    }

    /// A lease of `site` ended: what it still `held` is given back and its task is settled —
    /// its outcome is recorded or its URL went back to the frontier. With nothing unsettled
    /// and nothing queued the site is finished. One lock for all of it.
    pub(in crate::crawl::schedule) fn end_lease(&self, site: SiteId, held: LeaseHolds) {
        let mut st = self.state.lock();
        if held.buffer {
            st.buffer_free += 1;
        }
        if held.slot {
            st.requesting = st.requesting.saturating_sub(1);
        }
        let gate = &mut st.gates[site.0 as usize];
        if held.slot {
            gate.in_flight = gate.in_flight.saturating_sub(1);
        }
        gate.unsettled = gate.unsettled.saturating_sub(1);
        // What settled may have made room (a page limit, a retried URL): look again.
        let news = !gate.has_work || gate.unsettled == 0 || held.slot || held.buffer;
        gate.has_work = true;
        // A waiting downloader can act on something only if this lease gave something back,
        // the site had looked out of work, or its last task settled (rules that take sites
        // in turn move on): a wake-up for every page recorded found nothing to do.
        if news {
            self.cv.notify_one();
        }
    }

    /// The data manager the dispatcher claims from (leases give URLs back to it).
    pub(in crate::crawl::schedule) fn data(&self) -> &dyn TaskData {
        &*self.dm
    }

    /// A task to fetch again from `until` (a retry); its URL stays in flight meanwhile.
    pub(in crate::crawl::schedule) fn park(&self, task: FetchTask, until: Instant) {
        let mut st = self.state.lock();
        if let Some(gate) = st.gates.get_mut(task.site.0 as usize) {
            gate.parked.push((until, task));
        }
        self.cv.notify_one();
    }

    /// Tasks parked for a retry go back to their frontiers (the crawl stopped; a next run
    /// fetches them). Called once every downloader has ended.
    pub fn release_parked(&self) {
        let parked: Vec<FetchTask> = {
            let mut st = self.state.lock();
            st.gates
                .iter_mut()
                .flat_map(|g| std::mem::take(&mut g.parked))
                .map(|(_, t)| t)
                .collect()
        };
        for task in &parked {
            self.dm.release(task);
        }
    }

    /// A page task's outcome was recorded: it spends the budget and the scheduler learns
    /// what it yielded.
    pub(in crate::crawl::schedule) fn observed(&self, site: SiteId, yielded: Yield) {
        let mut st = self.state.lock();
        st.unobserved = st.unobserved.saturating_sub(1);
        st.budget.spend();
        let scope = st.gates[site.0 as usize].scope;
        st.scheduler.observe(site, scope, yielded);
        // The budget's sum of spent and reserved pages is unchanged; only a rule that learns
        // (and may wait for this reward) can decide differently now.
        if st.scheduler.max_unobserved().is_some() {
            self.cv.notify_one();
        }
    }

    /// A page task of `site` went back unfetched (a stop, a retry): its reservation is
    /// returned.
    pub(in crate::crawl::schedule) fn cancelled(&self, site: SiteId) {
        let mut st = self.state.lock();
        st.unobserved = st.unobserved.saturating_sub(1);
        st.budget.give_back();
        let scope = st.gates[site.0 as usize].scope;
        st.scheduler.given_back(site, scope);
        self.cv.notify_one();
    }
}

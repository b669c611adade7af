//! The dispatcher: hands out download tasks while keeping every site's politeness (SPEC §1):
//! at most `maxDownloadsAtTime` requests in flight and at least `crawlDelay` between the starts
//! of two requests (robots.txt's `Crawl-delay` when larger); robots.txt itself is the site's
//! first request. A site that answers 429/503 or fails is backed off; a site that keeps
//! failing at the transport level is suspended for the run.
//!
//! Downloaders block in [`Dispatcher::acquire`]; parsers [`Dispatcher::wake`] it when a commit
//! queues new URLs; [`Stop`] wakes everyone. A task also needs a place in the page buffer
//! between downloaders and parsers, given back when a parser takes the page (or at once when
//! there is no page to parse): when parsing is the bottleneck, downloaders wait here, asleep,
//! instead of spinning on a full channel with a body in hand. Each event wakes one waiting
//! downloader, which wakes the next if there is more to hand out: waking all of them for every
//! page cost more CPU than the HTTP client did. The [`Scheduler`] sees every site that has work,
//! ready or not, and may only pick a ready one (or wait), so no rule can break politeness.
//!
//! What a task holds (a request slot of its site, a place in the page buffer, its site's
//! "unsettled" count) is given back through its [`TaskLease`], exactly once.
//!
//! The rooms: `gate` (one site's politeness, the crawl delay), `state` (admission: the
//! page buffer, the budget, reservations), `pass` (ready gates → scheduler → lease), `sites`
//! (registering, waking, backing off, suspending, retiring sites), `settle` (what leases give
//! back), `wakeups` (who is woken).

mod gate;
mod pass;
mod settle;
mod sites;
mod state;
mod wakeups;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

pub use gate::Suspension;
use state::State;
use wakeups::Wakeups;

use super::{Scheduler, TaskLease};
use crate::base::ids::ScopeId;
use crate::base::stop::Stop;
use crate::crawl::data::coord::BudgetGrant;
use crate::crawl::data::{Fetch, TaskData};

/// What a lease still holds when it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct LeaseHolds {
    /// A request slot of its site.
    pub(super) slot: bool,
    /// A place in the page buffer.
    pub(super) buffer: bool,
}

/// How a dispatcher is set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DispatcherConfig {
    /// A site is suspended after this many transport failures in a row.
    pub down_after: u32,
    /// Tasks downloading or waiting for a parser at most.
    pub page_buffer: usize,
    /// Parser threads: with fewer pages than this waiting for them, the parsers are not the
    /// bottleneck and another downloader may help.
    pub parsers: usize,
    /// `PageBudget` (0: none).
    pub budget: u64,
    /// The budget is the whole crawl's, shared with other processes and granted in blocks
    /// ([`Dispatcher::grant_budget`]).
    pub shared_budget: bool,
    /// No delays between a site's requests: a rebuild's answers come from its archive, and
    /// no server is there to spare.
    pub unpaced: bool,
}

/// Hands out download tasks while keeping every site's limits.
#[derive(Debug)]
pub struct Dispatcher {
    state: Mutex<State>,
    /// Downloader threads running (the engine says).
    downloaders: AtomicUsize,
    /// Downloaders waiting for a task (and a driver of many requests that found none).
    cv: Wakeups,
    stop: Arc<Stop>,
    dm: Arc<dyn TaskData>,
    down_after: u32,
}

/// What one look for a task found.
enum Pass {
    /// A task.
    Lease(TaskLease),
    /// The crawl is stopping.
    Stopping,
    /// The page buffer is full, or the scheduler waits for rewards: a parser or an outcome
    /// changes that.
    Full,
    /// No site may start a request now; `earliest` is when one may (if known). `starved`:
    /// the parsers wait for pages meanwhile.
    NoneReady {
        earliest: Option<Instant>,
        starved: bool,
    },
}

impl Dispatcher {
    /// A dispatcher over `dm` choosing with `scheduler`, woken by `stop`.
    pub fn new(
        dm: Arc<dyn TaskData>,
        scheduler: Box<dyn Scheduler>,
        stop: Arc<Stop>,
        config: DispatcherConfig,
    ) -> Arc<Self> {
        let d = Arc::new(Dispatcher {
            state: Mutex::new(State::new(&config, scheduler)),
            downloaders: AtomicUsize::new(0),
            cv: Wakeups::default(),
            stop: Arc::clone(&stop),
            dm,
            down_after: config.down_after,
        });
        let weak: Weak<Dispatcher> = Arc::downgrade(&d);
        stop.on_request(move || {
            if let Some(d) = weak.upgrade() {
                let _guard = d.state.lock();
                d.cv.notify_all();
            }
        });
        d
    }

    /// Blocks until some site may start a request; `None` once the crawl is stopping. The
    /// task comes as a [`TaskLease`] holding the site's request slot and a place in the page
    /// buffer.
    pub fn acquire(self: &Arc<Self>) -> Option<TaskLease> {
        let mut st = self.state.lock();
        loop {
            match self.pass(&mut st) {
                Pass::Stopping => return None,
                Pass::Lease(lease) => return Some(lease),
                Pass::Full => {
                    // A parser taking a page, or an outcome recorded, wakes us.
                    st.waiting += 1;
                    self.cv.wait(&mut st);
                    st.waiting -= 1;
                }
                Pass::NoneReady { earliest, starved } => {
                    let now = Instant::now();
                    st.waiting += 1;
                    match earliest {
                        // Never spin: a moment in the past still waits a millisecond.
                        Some(t) => {
                            self.cv
                                .wait_until(&mut st, t.max(now + Duration::from_millis(1)));
                        }
                        None => self.cv.wait(&mut st),
                    }
                    st.waiting -= 1;
                    if starved {
                        st.starved += now.elapsed();
                    }
                }
            }
        }
    }

    /// [`Self::acquire`] for a driver of many requests on one thread (`DT1`), which cannot
    /// wait here: a task now, or when to ask again (`None`: when the [waker](Self::set_waker)
    /// is called). The time until then counts as starved as a waiting downloader's does.
    pub fn try_acquire(self: &Arc<Self>) -> Result<TaskLease, Option<Instant>> {
        let mut st = self.state.lock();
        if let Some(since) = st.loop_starved_since.take() {
            st.starved += since.elapsed();
        }
        let answer = match self.pass(&mut st) {
            Pass::Lease(lease) => return Ok(lease),
            Pass::Stopping => None,
            Pass::Full => None,
            Pass::NoneReady { earliest, starved } => {
                if starved {
                    st.loop_starved_since = Some(Instant::now());
                }
                earliest
            }
        };
        self.cv.loop_waits();
        Err(answer)
    }

    /// Calls `wake` whenever something may have made a task available to a driver that
    /// [`try_acquire`](Self::try_acquire)d in vain (the notifications that wake waiting
    /// downloaders).
    pub fn set_waker(&self, wake: Box<dyn Fn() + Send + Sync>) {
        self.cv.set_waker(wake);
    }

    /// Tasks handed out since the last call that found every downloader busy while another
    /// site was ready and the parsers waited for pages (the engine may start more
    /// downloaders).
    pub fn take_demand(&self) -> u64 {
        std::mem::take(&mut self.state.lock().wanted)
    }

    /// `n` downloader threads run now.
    pub fn set_downloaders(&self, n: usize) {
        self.downloaders.store(n, Ordering::Relaxed);
    }

    /// Downloader threads running.
    pub fn downloaders(&self) -> usize {
        self.downloaders.load(Ordering::Relaxed)
    }

    /// Time downloaders waited in `acquire` with room for a task, no site ready and the
    /// parsers waiting for pages, since the last call.
    pub fn take_starved(&self) -> Duration {
        std::mem::take(&mut self.state.lock().starved)
    }

    /// A continued crawl: the fetches recorded by earlier runs, in order, spend the budget
    /// and teach the scheduler what they yielded, as if this run had made them.
    pub fn restore(&self, fetches: &[Fetch]) {
        self.restore_scopes(fetches, None);
    }

    /// [`Self::restore`] for the fetches of `scopes` only (scopes taken over from another
    /// process while this one runs), or of every scope (`None`).
    pub fn restore_scopes(&self, fetches: &[Fetch], scopes: Option<&[ScopeId]>) {
        let mut st = self.state.lock();
        let known = st.gates.len();
        let mut restored = 0;
        for f in fetches.iter().filter(|f| (f.site.0 as usize) < known) {
            let scope = st.gates[f.site.0 as usize].scope;
            if scopes.is_some_and(|s| !s.contains(&scope)) {
                continue;
            }
            restored += 1;
            st.scheduler.started(f.site, scope);
            st.scheduler.observe(f.site, scope, f.yielded);
        }
        // Fetches of sites no longer listed still spent the budget (they are not learnt).
        if scopes.is_none() {
            restored = fetches.len() as u64;
        }
        st.budget.restore(restored);
    }

    /// Of a budget shared with other processes, while more may be granted: fetches that may
    /// start before more must be.
    pub fn budget_room(&self) -> Option<u64> {
        self.state.lock().budget.room()
    }

    /// More fetches of a shared budget granted.
    pub fn grant_budget(&self, grant: BudgetGrant) {
        self.state.lock().budget.grant(grant);
        self.cv.notify_all();
    }

    /// The page budget as (spent, under way, limit), when there is one.
    pub fn budget(&self) -> Option<(u64, u64, u64)> {
        self.state.lock().budget.state()
    }
}

#[cfg(test)]
mod tests;

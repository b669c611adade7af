//! Which site gets the next download slot (SPEC §5), and politeness (SPEC §1): per site at
//! most `maxDownloadsAtTime` requests in flight and at least `crawlDelay` between the starts
//! of two requests (robots.txt's `Crawl-delay` when larger); robots.txt itself is the site's
//! first request.
//!
//! Downloaders block in [`Dispatcher::acquire`]; parsers [`Dispatcher::wake`] it when a commit
//! queues new URLs; [`Stop`] wakes everyone. The [`Scheduler`] only chooses among sites that
//! are ready now, so no rule can break politeness.

mod all_sites;

use std::fmt::Debug;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

pub use all_sites::RoundRobin;

use crate::data::{DataManager, ScopeId, SiteId, UrlId};
use crate::message::{FetchTask, TaskKind};
use crate::settings::registry::SchedulerKind;
use crate::sites::SiteEntry;
use crate::stop::Stop;
use crate::url_norm::NormUrl;

/// A rule choosing the next site among those ready.
pub trait Scheduler: Send + Debug {
    /// Picks one of `ready` (ascending ids; never empty).
    fn choose(&mut self, ready: &[SiteId]) -> SiteId;
    /// Learns what one page of `site` yielded: its new distinct external links (the BeeBot
    /// reward). Rules that do not adapt ignore it.
    fn observe(&mut self, _site: SiteId, _new_external: u32) {}
}

/// Builds the scheduler named in settings.
pub fn scheduler_for(kind: SchedulerKind) -> Box<dyn Scheduler> {
    match kind {
        SchedulerKind::AllSites => Box::new(RoundRobin::default()),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RobotsPhase {
    Needed,
    Fetching,
    Ready,
}

#[derive(Debug)]
struct Slot {
    site: SiteId,
    scope: ScopeId,
    robots_url: NormUrl,
    max_in_flight: u32,
    in_flight: u32,
    delay: Duration,
    next_start: Instant,
    robots: RobotsPhase,
    /// The frontier may hold URLs (cleared when a claim finds none, set by `wake`).
    has_work: bool,
}

impl Slot {
    fn wants_slot(&self) -> bool {
        self.in_flight < self.max_in_flight
            && match self.robots {
                RobotsPhase::Needed => true,
                RobotsPhase::Fetching => false,
                RobotsPhase::Ready => self.has_work,
            }
    }
}

#[derive(Debug)]
struct State {
    slots: Vec<Slot>,
    scheduler: Box<dyn Scheduler>,
    ready: Vec<SiteId>,
}

/// Hands out download tasks while keeping every site's limits.
#[derive(Debug)]
pub struct Dispatcher {
    state: Mutex<State>,
    cv: Condvar,
    stop: Arc<Stop>,
    dm: Arc<dyn DataManager>,
}

impl Dispatcher {
    /// A dispatcher over `dm`, woken by `stop`.
    pub fn new(
        dm: Arc<dyn DataManager>,
        scheduler: Box<dyn Scheduler>,
        stop: Arc<Stop>,
    ) -> Arc<Self> {
        let d = Arc::new(Dispatcher {
            state: Mutex::new(State {
                slots: Vec::new(),
                scheduler,
                ready: Vec::new(),
            }),
            cv: Condvar::new(),
            stop: Arc::clone(&stop),
            dm,
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

    /// Registers a site; its robots.txt is fetched first.
    pub fn add_site(&self, site: &SiteEntry) {
        let mut st = self.state.lock();
        let idx = site.id.0 as usize;
        if st.slots.len() <= idx {
            let now = Instant::now();
            while st.slots.len() <= idx {
                let next = SiteId(st.slots.len() as u32);
                st.slots.push(Slot {
                    site: next,
                    scope: site.scope,
                    robots_url: site.origin.robots_url(),
                    max_in_flight: 0,
                    in_flight: 0,
                    delay: Duration::ZERO,
                    next_start: now,
                    robots: RobotsPhase::Needed,
                    has_work: false,
                });
            }
        }
        let slot = &mut st.slots[idx];
        slot.site = site.id;
        slot.scope = site.scope;
        slot.robots_url = site.origin.robots_url();
        slot.max_in_flight = site.spec.max_downloads.max(1);
        slot.delay = site.spec.crawl_delay;
        slot.has_work = true;
        self.cv.notify_all();
    }

    /// Blocks until some site may start a request; `None` once the crawl is stopping.
    pub fn acquire(&self) -> Option<FetchTask> {
        let mut st = self.state.lock();
        loop {
            if self.stop.is_requested() {
                return None;
            }
            let now = Instant::now();
            let mut earliest: Option<Instant> = None;
            let mut ready = std::mem::take(&mut st.ready);
            ready.clear();
            for slot in st.slots.iter().filter(|s| s.wants_slot()) {
                if slot.next_start <= now {
                    ready.push(slot.site);
                } else {
                    earliest = Some(earliest.map_or(slot.next_start, |e| e.min(slot.next_start)));
                }
            }
            if !ready.is_empty() {
                let site = st.scheduler.choose(&ready);
                st.ready = ready;
                let slot = &mut st.slots[site.0 as usize];
                let task = if slot.robots == RobotsPhase::Needed {
                    slot.robots = RobotsPhase::Fetching;
                    Some(FetchTask {
                        scope: slot.scope,
                        site,
                        url_id: UrlId(u32::MAX),
                        url: slot.robots_url.clone(),
                        level: 0,
                        kind: TaskKind::Robots,
                    })
                } else {
                    let t = self.dm.claim(slot.scope, site);
                    if t.is_none() {
                        slot.has_work = false;
                    }
                    t
                };
                if let Some(task) = task {
                    let slot = &mut st.slots[site.0 as usize];
                    slot.in_flight += 1;
                    slot.next_start = now + slot.delay;
                    return Some(task);
                }
                continue;
            }
            st.ready = ready;
            match earliest {
                Some(t) => {
                    self.cv.wait_until(&mut st, t);
                }
                None => self.cv.wait(&mut st),
            }
        }
    }

    /// Waits for `site`'s delay before a redirect hop (each hop is a request). Returns false
    /// when the crawl is stopping.
    pub fn hop(&self, site: SiteId) -> bool {
        let mut st = self.state.lock();
        loop {
            if self.stop.is_requested() {
                return false;
            }
            let now = Instant::now();
            let slot = &mut st.slots[site.0 as usize];
            if slot.next_start <= now {
                slot.next_start = now + slot.delay;
                return true;
            }
            let t = slot.next_start;
            self.cv.wait_until(&mut st, t);
        }
    }

    /// A task of `site` finished its requests: its slot is free.
    pub fn done(&self, site: SiteId) {
        let mut st = self.state.lock();
        let slot = &mut st.slots[site.0 as usize];
        slot.in_flight = slot.in_flight.saturating_sub(1);
        self.cv.notify_all();
    }

    /// robots.txt of `site` is known; `delay` is the delay to keep from now on.
    pub fn robots_done(&self, site: SiteId, delay: Duration) {
        let mut st = self.state.lock();
        let slot = &mut st.slots[site.0 as usize];
        slot.robots = RobotsPhase::Ready;
        slot.delay = slot.delay.max(delay);
        slot.has_work = true;
        self.cv.notify_all();
    }

    /// Sites whose frontiers got new URLs.
    pub fn wake(&self, sites: &[SiteId]) {
        if sites.is_empty() {
            return;
        }
        let mut st = self.state.lock();
        for s in sites {
            if let Some(slot) = st.slots.get_mut(s.0 as usize) {
                slot.has_work = true;
            }
        }
        self.cv.notify_all();
    }

    /// Tells the scheduler what a page yielded.
    pub fn observe(&self, site: SiteId, new_external: u32) {
        self.state.lock().scheduler.observe(site, new_external);
    }

    /// Sites whose robots.txt is not known yet.
    pub fn robots_pending(&self) -> usize {
        self.state
            .lock()
            .slots
            .iter()
            .filter(|s| s.robots != RobotsPhase::Ready)
            .count()
    }
}

//! Which site gets the next download slot (SPEC §5), and politeness (SPEC §1): per site at
//! most `maxDownloadsAtTime` requests in flight and at least `crawlDelay` between the starts
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

mod all_sites;
mod sequential;
mod time_quantum;

use std::fmt::Debug;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

pub use all_sites::RoundRobin;
pub use sequential::Sequential;
pub use time_quantum::TimeQuantum;

use crate::data::{DataManager, ScopeId, SiteId, UrlId};
use crate::message::{FetchTask, TaskKind};
use crate::settings::Settings;
use crate::settings::registry::SchedulerKind;
use crate::sites::SiteEntry;
use crate::stop::Stop;
use crate::url_norm::NormUrl;

/// A site with work, as schedulers see it (in site order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    /// The site.
    pub site: SiteId,
    /// It may start a request now (free slot, delay passed, a URL waiting).
    pub ready: bool,
}

/// A rule choosing the next site.
pub trait Scheduler: Send + Debug {
    /// Picks a ready candidate for the next request, or `None` to wait. `candidates` are the
    /// sites with work or requests in flight, in site order (never empty).
    fn choose(&mut self, candidates: &[Candidate], now: Instant) -> Option<SiteId>;
    /// Learns what one page of `site` yielded: its new distinct external links (the BeeBot
    /// reward). Rules that do not adapt ignore it.
    fn observe(&mut self, _site: SiteId, _new_external: u32) {}
    /// When the rule may decide differently without any other event (a time slice ending).
    fn wake_at(&self) -> Option<Instant> {
        None
    }
}

/// The gap kept between two request starts of a site whose delay is `delay`: a little more
/// than asked, because a request reaches the server a moment after its slot is taken (thread
/// scheduling on both sides, connection set-up), and that moment varies from one request to
/// the next by up to a few milliseconds on a busy machine (measured: 3.5 ms on 2 loaded
/// cores). 5 ms plus 1% of the delay, but at most a quarter of the delay and at most 15 ms;
/// nothing for a zero delay.
pub fn with_margin(delay: Duration) -> Duration {
    let margin = (Duration::from_millis(5) + delay / 100)
        .min(delay / 4)
        .min(Duration::from_millis(15));
    delay + margin
}

/// Builds the scheduler named in settings.
pub fn scheduler_for(settings: &Settings) -> Box<dyn Scheduler> {
    match settings.scheduler {
        SchedulerKind::AllSites => Box::new(RoundRobin::default()),
        SchedulerKind::Sequential => Box::new(Sequential),
        SchedulerKind::TimeQuantum => Box::new(TimeQuantum::new(settings.time_quantum)),
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
    /// When the latest request to the site was started.
    last_start: Instant,
    next_start: Instant,
    robots: RobotsPhase,
    robots_attempts: u32,
    /// The frontier may hold URLs (cleared when a claim finds none, set by `wake`).
    has_work: bool,
    /// Transport failures since the last answer.
    failures_in_a_row: u32,
    /// Tasks handed out whose outcome is not recorded yet (downloading or being parsed).
    unsettled: u32,
    /// Why the site is no longer crawled in this run.
    suspended: Option<&'static str>,
}

impl Slot {
    fn has_work(&self) -> bool {
        self.suspended.is_none()
            && match self.robots {
                RobotsPhase::Needed => true,
                RobotsPhase::Fetching => false,
                RobotsPhase::Ready => self.has_work,
            }
    }

    fn is_candidate(&self) -> bool {
        self.suspended.is_none()
            && (self.has_work()
                || self.in_flight > 0
                || self.unsettled > 0
                || self.robots == RobotsPhase::Fetching)
    }
}

#[derive(Debug)]
struct State {
    slots: Vec<Slot>,
    scheduler: Box<dyn Scheduler>,
    candidates: Vec<Candidate>,
    /// Free places in the page buffer.
    buffer_free: usize,
}

/// Hands out download tasks while keeping every site's limits.
#[derive(Debug)]
pub struct Dispatcher {
    state: Mutex<State>,
    /// Downloaders waiting for a task.
    cv: Condvar,
    /// Redirect hops waiting for their site's delay (timed waits; woken early only to stop).
    hop_cv: Condvar,
    stop: Arc<Stop>,
    dm: Arc<dyn DataManager>,
    down_after: u32,
}

impl Dispatcher {
    /// A dispatcher over `dm`, woken by `stop`; a site is suspended after `down_after`
    /// transport failures in a row; at most `page_buffer` tasks are downloading or waiting
    /// for a parser at once.
    pub fn new(
        dm: Arc<dyn DataManager>,
        scheduler: Box<dyn Scheduler>,
        stop: Arc<Stop>,
        down_after: u32,
        page_buffer: usize,
    ) -> Arc<Self> {
        let state = State {
            slots: Vec::new(),
            scheduler,
            candidates: Vec::new(),
            buffer_free: page_buffer.max(1),
        };
        let d = Arc::new(Dispatcher {
            state: Mutex::new(state),
            cv: Condvar::new(),
            hop_cv: Condvar::new(),
            stop: Arc::clone(&stop),
            dm,
            down_after,
        });
        let weak: Weak<Dispatcher> = Arc::downgrade(&d);
        stop.on_request(move || {
            if let Some(d) = weak.upgrade() {
                let _guard = d.state.lock();
                d.cv.notify_all();
                d.hop_cv.notify_all();
            }
        });
        d
    }

    /// Registers a site; its robots.txt is fetched first.
    pub fn add_site(&self, site: &SiteEntry) {
        let mut st = self.state.lock();
        let idx = site.id.0 as usize;
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
                last_start: now,
                next_start: now,
                robots: RobotsPhase::Needed,
                robots_attempts: 0,
                has_work: false,
                failures_in_a_row: 0,
                unsettled: 0,
                suspended: Some("not registered"),
            });
        }
        let slot = &mut st.slots[idx];
        slot.scope = site.scope;
        slot.robots_url = site.origin.robots_url();
        slot.max_in_flight = site.spec.max_downloads.max(1);
        slot.delay = site.spec.crawl_delay;
        slot.has_work = true;
        slot.suspended = None;
        self.cv.notify_all();
    }

    /// Blocks until some site may start a request; `None` once the crawl is stopping.
    pub fn acquire(&self) -> Option<FetchTask> {
        let mut st = self.state.lock();
        loop {
            if self.stop.is_requested() {
                return None;
            }
            if st.buffer_free == 0 {
                // A parser taking a page wakes us.
                self.cv.wait(&mut st);
                continue;
            }
            let now = Instant::now();
            let mut earliest = st.scheduler.wake_at();
            let mut candidates = std::mem::take(&mut st.candidates);
            candidates.clear();
            for slot in st.slots.iter().filter(|s| s.is_candidate()) {
                let free = slot.in_flight < slot.max_in_flight && slot.has_work();
                let ready = free && slot.next_start <= now;
                if free && !ready {
                    earliest = Some(earliest.map_or(slot.next_start, |e| e.min(slot.next_start)));
                }
                candidates.push(Candidate {
                    site: slot.site,
                    ready,
                });
            }
            let choice = if candidates.is_empty() {
                None
            } else {
                st.scheduler.choose(&candidates, now)
            };
            st.candidates = candidates;
            if let Some(site) =
                choice.filter(|s| st.candidates.iter().any(|c| c.site == *s && c.ready))
            {
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
                    slot.unsettled += 1;
                    slot.last_start = now;
                    slot.next_start = now + with_margin(slot.delay);
                    let site_free = slot.in_flight < slot.max_in_flight
                        && slot.has_work()
                        && slot.next_start <= now;
                    st.buffer_free -= 1;
                    let others_ready = st.candidates.iter().any(|c| c.ready && c.site != site);
                    if st.buffer_free > 0 && (site_free || others_ready) {
                        // There may be more to hand out: pass the wake-up on.
                        self.cv.notify_one();
                    }
                    return Some(task);
                }
                continue;
            }
            match earliest {
                // Never spin: a moment in the past still waits a millisecond.
                Some(t) => {
                    self.cv
                        .wait_until(&mut st, t.max(now + Duration::from_millis(1)));
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
                slot.last_start = now;
                slot.next_start = now + with_margin(slot.delay);
                return true;
            }
            let t = slot.next_start;
            self.hop_cv.wait_until(&mut st, t);
        }
    }

    /// A task of `site` finished its requests: its slot is free.
    pub fn done(&self, site: SiteId) {
        let mut st = self.state.lock();
        let slot = &mut st.slots[site.0 as usize];
        slot.in_flight = slot.in_flight.saturating_sub(1);
        self.cv.notify_one();
    }

    /// A task's place in the page buffer is free again: a parser took its page, or it had no
    /// page to parse.
    pub fn buffer_release(&self) {
        let mut st = self.state.lock();
        st.buffer_free += 1;
        self.cv.notify_one();
    }

    /// The outcome of a task of `site` is recorded (committed, released or put back): with
    /// nothing unsettled and nothing queued the site is finished.
    pub fn settled(&self, site: SiteId) {
        let mut st = self.state.lock();
        let slot = &mut st.slots[site.0 as usize];
        slot.unsettled = slot.unsettled.saturating_sub(1);
        // What settled may have made room (a page limit, a retried URL): look again.
        slot.has_work = true;
        self.cv.notify_one();
    }

    /// No request to `site` starts before `until` (429/503, retries).
    pub fn back_off(&self, site: SiteId, until: Instant) {
        let mut st = self.state.lock();
        let slot = &mut st.slots[site.0 as usize];
        slot.next_start = slot.next_start.max(until);
    }

    /// `site` answered (with any HTTP status): its failure streak ends.
    pub fn answered(&self, site: SiteId) {
        self.state.lock().slots[site.0 as usize].failures_in_a_row = 0;
    }

    /// A request to `site` failed at the transport level (refused, timeout, broken). Returns
    /// true when this failure suspends the site: it stopped answering.
    pub fn transport_failed(&self, site: SiteId) -> bool {
        let mut st = self.state.lock();
        let slot = &mut st.slots[site.0 as usize];
        slot.failures_in_a_row += 1;
        if slot.failures_in_a_row >= self.down_after && slot.suspended.is_none() {
            slot.suspended = Some("down");
            self.cv.notify_all();
            return true;
        }
        false
    }

    /// Stops crawling `site` in this run (`reason` goes to summary.csv).
    pub fn suspend(&self, site: SiteId, reason: &'static str) {
        let mut st = self.state.lock();
        let slot = &mut st.slots[site.0 as usize];
        if slot.suspended.is_none() {
            slot.suspended = Some(reason);
        }
        self.cv.notify_all();
    }

    /// Why `site` was suspended, if it was.
    pub fn suspended(&self, site: SiteId) -> Option<&'static str> {
        self.state
            .lock()
            .slots
            .get(site.0 as usize)
            .and_then(|s| s.suspended)
    }

    /// robots.txt of `site` is known; `delay` is the delay to keep from now on.
    pub fn robots_done(&self, site: SiteId, delay: Duration) {
        let mut st = self.state.lock();
        let slot = &mut st.slots[site.0 as usize];
        slot.robots = RobotsPhase::Ready;
        slot.delay = slot.delay.max(delay);
        // A larger Crawl-delay counts from the start of the robots.txt request itself.
        slot.next_start = slot
            .next_start
            .max(slot.last_start + with_margin(slot.delay));
        slot.has_work = true;
        self.cv.notify_one();
    }

    /// robots.txt of `site` failed for now: fetch it again from `until`. Returns the number of
    /// attempts made so far.
    pub fn robots_retry(&self, site: SiteId, until: Instant) -> u32 {
        let mut st = self.state.lock();
        let slot = &mut st.slots[site.0 as usize];
        slot.robots = RobotsPhase::Needed;
        slot.robots_attempts += 1;
        slot.next_start = slot.next_start.max(until);
        self.cv.notify_one();
        slot.robots_attempts
    }

    /// Attempts at `site`'s robots.txt so far.
    pub fn robots_attempts(&self, site: SiteId) -> u32 {
        self.state.lock().slots[site.0 as usize].robots_attempts
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
        self.cv.notify_one();
    }

    /// Tells the scheduler what a page yielded.
    pub fn observe(&self, site: SiteId, new_external: u32) {
        self.state.lock().scheduler.observe(site, new_external);
    }

    /// Active sites whose robots.txt is not known yet.
    pub fn robots_pending(&self) -> usize {
        self.state
            .lock()
            .slots
            .iter()
            .filter(|s| s.suspended.is_none() && s.robots != RobotsPhase::Ready)
            .count()
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
            })
            .collect()
    }
}

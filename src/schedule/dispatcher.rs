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

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use super::{Budget, Candidate, Scheduler, TaskLease};
use crate::bandit::Yield;
use crate::data::coord::BudgetGrant;
use crate::data::{DataManager, Fetch};
use crate::fetch::{Pacer, SendTurn, with_margin};
use crate::ids::{ScopeId, SiteId, UrlId};
use crate::message::{FetchTask, TaskKind};
use crate::sites::{SiteEntry, Sites};
use crate::stop::Stop;
use crate::url_norm::NormUrl;

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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RobotsPhase {
    Needed,
    Fetching,
    Ready,
}

/// What a lease still holds when it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct LeaseHolds {
    /// A request slot of its site.
    pub(super) slot: bool,
    /// A place in the page buffer.
    pub(super) buffer: bool,
}

/// One site's politeness state.
#[derive(Debug)]
struct SiteGate {
    site: SiteId,
    scope: ScopeId,
    /// `None` once its scope is retired ([`Dispatcher::release_sites`]).
    robots_url: Option<NormUrl>,
    max_in_flight: u32,
    in_flight: u32,
    delay: Duration,
    /// The earliest a task of the site may be handed out: the delay after the latest task
    /// handed out, or the end of a back-off.
    next_start: Instant,
    /// Keeps the delay where it is measured: between requests as they are written.
    pacer: Arc<Pacer>,
    robots: RobotsPhase,
    robots_attempts: u32,
    /// The frontier may hold URLs (cleared when a claim finds none, set by `wake`).
    has_work: bool,
    /// Transport failures since the last answer.
    failures_in_a_row: u32,
    /// Tasks handed out whose outcome is not recorded yet (downloading or being parsed).
    unsettled: u32,
    /// Why the site is no longer crawled in this run.
    suspended: Option<Suspension>,
    /// Tasks waiting to be retried, with when (a failing URL waits; its site goes on).
    parked: Vec<(Instant, FetchTask)>,
    /// Pages a budget rule chose this site for that wait for its turn (its delay, a free
    /// request slot): each holds a page of the budget and counts as a pull under way.
    reserved: u32,
}

impl State {
    /// Whether fewer pages wait for the parsers than there are parsers: the places of the
    /// page buffer taken by tasks whose requests are done.
    fn parsers_idle(&self) -> bool {
        let taken = self.page_buffer.saturating_sub(self.buffer_free);
        taken.saturating_sub(self.requesting) < self.parsers
    }
}

impl SiteGate {
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
                || self.reserved > 0
                || self.in_flight > 0
                || self.unsettled > 0
                || !self.parked.is_empty()
                || self.robots == RobotsPhase::Fetching)
    }

    /// The parked task whose wait is over soonest, if its wait is over at `now`.
    fn ready_parked(&self, now: Instant) -> Option<usize> {
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
    fn next_parked(&self) -> Option<Instant> {
        self.parked.iter().map(|(at, _)| *at).min()
    }
}

#[derive(Debug)]
struct State {
    gates: Vec<SiteGate>,
    /// The gates of sites being crawled (registered, not retired): what `acquire` looks at,
    /// so a crawl of thousands of sites scans its active window, not every site it had.
    active: Vec<usize>,
    /// Time downloaders spent in `acquire` with room to start a task, no site ready and the
    /// parsers waiting for pages (the window of active scopes may grow), since last taken.
    starved: Duration,
    /// Tasks handed out while another site was ready and no downloader waited (another
    /// downloader could have started it), since last taken.
    wanted: u64,
    /// Downloaders waiting in `acquire`.
    waiting: usize,
    /// Since when a driver's `try_acquire` found nothing while the parsers waited for pages.
    loop_starved_since: Option<Instant>,
    /// Requests under way (leases holding their site's slot), over all sites.
    requesting: usize,
    /// The page buffer's size, and the parsers (see [`DispatcherConfig`]).
    page_buffer: usize,
    parsers: usize,
    scheduler: Box<dyn Scheduler>,
    candidates: Vec<Candidate>,
    /// Free places in the page buffer.
    buffer_free: usize,
    /// The page budget.
    budget: Budget,
    /// Page tasks handed out whose outcome the scheduler has not observed yet, and pages
    /// reserved ([`SiteGate::reserved`]).
    unobserved: usize,
    /// Pages reserved, over all sites.
    reservations: usize,
    /// The pacer of every released gate, shared ([`Dispatcher::release_sites`]).
    released: Arc<Pacer>,
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
    dm: Arc<dyn DataManager>,
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

/// The dispatcher's wake-ups: its condition variable for the downloaders waiting in
/// `acquire`, and a driver of many requests (`DT1`) that polls its sockets and is woken by a
/// callback — only when it asked in vain since its last wake-up, so a busy loop is not
/// interrupted once per page.
#[derive(Default)]
struct Wakeups {
    cv: Condvar,
    waker: std::sync::OnceLock<Box<dyn Fn() + Send + Sync>>,
    loop_waits: std::sync::atomic::AtomicBool,
}

impl fmt::Debug for Wakeups {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Wakeups")
            .field("waker", &self.waker.get().is_some())
            .finish_non_exhaustive()
    }
}

impl Wakeups {
    fn set_waker(&self, wake: Box<dyn Fn() + Send + Sync>) {
        let _ = self.waker.set(wake);
    }

    fn loop_waits(&self) {
        self.loop_waits.store(true, Ordering::Release);
    }

    fn wake_loop(&self) {
        if self.loop_waits.swap(false, Ordering::AcqRel)
            && let Some(wake) = self.waker.get()
        {
            wake();
        }
    }

    fn notify_one(&self) {
        self.cv.notify_one();
        self.wake_loop();
    }

    fn notify_all(&self) {
        self.cv.notify_all();
        self.wake_loop();
    }

    fn wait<T>(&self, guard: &mut parking_lot::MutexGuard<'_, T>) {
        self.cv.wait(guard);
    }

    fn wait_until<T>(&self, guard: &mut parking_lot::MutexGuard<'_, T>, until: Instant) {
        self.cv.wait_until(guard, until);
    }
}

impl Dispatcher {
    /// A dispatcher over `dm` choosing with `scheduler`, woken by `stop`.
    pub fn new(
        dm: Arc<dyn DataManager>,
        scheduler: Box<dyn Scheduler>,
        stop: Arc<Stop>,
        config: DispatcherConfig,
    ) -> Arc<Self> {
        let state = State {
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
        };
        let d = Arc::new(Dispatcher {
            state: Mutex::new(state),
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
        Self::register(&mut st, site);
        // One downloader: it passes the wake-up on if there is more to hand out. Waking all
        // of them for each site opened cost a slow many-site crawl (hundreds of downloaders
        // waiting, tens of sites opened a second) more CPU than its pages.
        self.cv.notify_one();
    }

    fn register(st: &mut State, site: &SiteEntry) {
        let idx = site.id.0 as usize;
        let now = Instant::now();
        while st.gates.len() <= idx {
            let next = SiteId(st.gates.len() as u32);
            st.gates.push(SiteGate {
                site: next,
                scope: site.scope,
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
            });
        }
        if st.gates[idx].suspended == Some(Suspension::NotRegistered) {
            st.active.push(idx);
        }
        let State {
            gates, released, ..
        } = st;
        let gate = &mut gates[idx];
        if Arc::ptr_eq(&gate.pacer, released) {
            gate.pacer = Arc::default();
        }
        gate.scope = site.scope;
        gate.robots_url = Some(site.origin.robots_url());
        gate.max_in_flight = site.spec.max_downloads.max(1);
        gate.delay = site.spec.crawl_delay;
        gate.pacer.set_delay(gate.delay);
        gate.has_work = true;
        gate.suspended = None;
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

    /// One look for a task: every active site is a candidate, the scheduler picks among
    /// them, and a ready pick's task is handed out. A rule that learns
    /// ([`Scheduler::max_unobserved`]) may pick a site that must wait for its turn: the site
    /// is kept that page (a reservation, served first once its turn comes) and the rule
    /// chooses again, so the crawl goes on while the chosen site waits for its delay —
    /// politeness decides when, the rule which, and neither holds up the other sites.
    fn pass(self: &Arc<Self>, st: &mut State) -> Pass {
        loop {
            if self.stop.is_requested() {
                return Pass::Stopping;
            }
            let waits_for_rewards = st
                .scheduler
                .max_unobserved()
                .is_some_and(|m| st.unobserved >= m);
            if st.buffer_free == 0 || (waits_for_rewards && st.reservations == 0) {
                return Pass::Full;
            }
            let now = Instant::now();
            let mut earliest = st.scheduler.wake_at();
            let mut candidates = std::mem::take(&mut st.candidates);
            candidates.clear();
            let pages_allowed = st.budget.allows_another();
            let active = std::mem::take(&mut st.active);
            // A site whose reservation may start now (a suspended or retired site has none).
            let mut due = None;
            for gate in active.iter().map(|&i| &st.gates[i]) {
                if gate.reserved > 0 && gate.in_flight < gate.max_in_flight {
                    if gate.next_start <= now {
                        due = due.or(Some(gate.site));
                    } else {
                        earliest =
                            Some(earliest.map_or(gate.next_start, |e| e.min(gate.next_start)));
                    }
                }
                if !gate.is_candidate() {
                    continue;
                }
                let page_ok = pages_allowed || gate.robots == RobotsPhase::Needed;
                let work = gate.has_work() || gate.ready_parked(now).is_some();
                let slot = gate.in_flight < gate.max_in_flight && page_ok;
                let free = slot && work;
                let ready = free && gate.next_start <= now && gate.reserved == 0;
                let mut wake = None;
                if free && !ready {
                    wake = Some(gate.next_start);
                } else if slot && !work && gate.robots == RobotsPhase::Ready {
                    // Only retries wait: wake when the first one's wait is over.
                    wake = gate.next_parked().map(|at| at.max(gate.next_start));
                }
                if let Some(w) = wake {
                    earliest = Some(earliest.map_or(w, |e| e.min(w)));
                }
                candidates.push(Candidate {
                    site: gate.site,
                    ready,
                    has_work: work && page_ok,
                    scope: gate.scope,
                });
            }
            st.active = active;
            let choice = if due.is_some() || candidates.is_empty() || waits_for_rewards {
                None
            } else {
                st.scheduler.choose(&candidates, now)
            };
            let pick = choice.and_then(|s| candidates.iter().find(|c| c.site == s).copied());
            st.candidates = candidates;
            let (site, reserved) = if let Some(site) = due {
                (site, true)
            } else {
                let Some(pick) = pick.filter(|c| c.ready || c.has_work) else {
                    // Room to start a task, no site ready, and the parsers waiting for pages
                    // too: the whole crawl waits on its sites, and the time counts towards
                    // growing the window of active scopes. (With pages waiting for the
                    // parsers, the CPU is the bound.)
                    return Pass::NoneReady {
                        earliest,
                        starved: st.parsers_idle(),
                    };
                };
                if !pick.ready {
                    let gate = &st.gates[pick.site.0 as usize];
                    // One page reserved a site at most: a second could not start before
                    // the first one's delay, and the rule knows more by then.
                    let may_reserve = st.scheduler.max_unobserved().is_some()
                        && gate.robots == RobotsPhase::Ready
                        && gate.reserved == 0
                        && pages_allowed;
                    if !may_reserve {
                        return Pass::NoneReady {
                            earliest,
                            starved: st.parsers_idle(),
                        };
                    }
                    // The rule's pick waits for its turn; the rule chooses again meanwhile.
                    st.gates[pick.site.0 as usize].reserved += 1;
                    st.reservations += 1;
                    st.budget.reserve();
                    st.unobserved += 1;
                    st.scheduler.reserve(pick.site, pick.scope);
                    continue;
                }
                (pick.site, false)
            };
            let gate = &mut st.gates[site.0 as usize];
            let task = if !reserved
                && gate.robots == RobotsPhase::Needed
                && let Some(url) = gate.robots_url.clone()
            {
                gate.robots = RobotsPhase::Fetching;
                Some(FetchTask {
                    scope: gate.scope,
                    site,
                    url_id: UrlId(u32::MAX),
                    url,
                    level: 0,
                    kind: TaskKind::Robots,
                })
            } else if let Some(i) = gate.ready_parked(now) {
                Some(gate.parked.swap_remove(i).1)
            } else {
                let t = self.dm.take_task(gate.scope, site);
                if t.is_none() {
                    gate.has_work = false;
                }
                t
            };
            let Some(task) = task else {
                if reserved {
                    // Its frontier ran out: the rule will choose again.
                    Self::drop_reservations(st, site);
                }
                continue;
            };
            let scope = st.gates[site.0 as usize].scope;
            if reserved {
                // The page is held already (budget, pull under way).
                st.gates[site.0 as usize].reserved -= 1;
                st.reservations -= 1;
                st.scheduler.unreserve(site, scope);
                st.scheduler.started(site, scope);
            } else if task.kind == TaskKind::Page {
                st.budget.reserve();
                st.unobserved += 1;
                st.scheduler.started(site, scope);
            }
            st.requesting += 1;
            let gate = &mut st.gates[site.0 as usize];
            gate.in_flight += 1;
            gate.unsettled += 1;
            gate.next_start = now + with_margin(gate.delay);
            let site_free =
                gate.in_flight < gate.max_in_flight && gate.has_work() && gate.next_start <= now;
            st.buffer_free -= 1;
            let others_ready = st.candidates.iter().any(|c| c.ready && c.site != site);
            if st.buffer_free > 0 && (site_free || others_ready) {
                if st.waiting > 0 {
                    // There may be more to hand out: pass the wake-up on.
                    self.cv.notify_one();
                } else if st.parsers_idle() {
                    // Every downloader is busy, a site could start now, and the parsers wait
                    // for pages: another downloader might add requests.
                    st.wanted += 1;
                }
            }
            return Pass::Lease(TaskLease::new(Arc::clone(self), task));
        }
    }

    /// Gives back every page reserved for `site` (it cannot start them: out of URLs,
    /// suspended, retired): the budget's pages, the pulls under way, the rule's count.
    /// Called where the site stops being able to start them, so `pass` never meets a
    /// reservation it cannot serve but for a frontier that ran out.
    fn drop_reservations(st: &mut State, site: SiteId) {
        let gate = &mut st.gates[site.0 as usize];
        let n = std::mem::take(&mut gate.reserved);
        let scope = gate.scope;
        for _ in 0..n {
            st.reservations -= 1;
            st.budget.give_back();
            st.unobserved = st.unobserved.saturating_sub(1);
            st.scheduler.unreserve(site, scope);
        }
    }

    /// Tasks handed out since the last call that found every downloader busy while another
    /// site was ready and the parsers waited for pages (the engine may start more
    /// downloaders).
    pub fn take_demand(&self) -> u64 {
        std::mem::take(&mut self.state.lock().wanted)
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
                taken.push(SiteId(i as u32));
            }
            keep
        });
        let reserved = st.reservations;
        for &site in &taken {
            Self::drop_reservations(&mut st, site);
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
            let gate = &mut gates[s.0 as usize];
            gate.robots_url = None;
            gate.parked = Vec::new();
            gate.pacer = Arc::clone(released);
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
}

impl crate::fetch::Pacing for Dispatcher {
    fn pace(&self, site: SiteId) -> Option<SendTurn> {
        Dispatcher::pace(self, site)
    }
}

impl Dispatcher {
    /// The pacer of `site`'s requests, for a driver that takes turns without waiting
    /// ([`Pacer::try_turn`]).
    pub fn pacer(&self, site: SiteId) -> Arc<Pacer> {
        Arc::clone(&self.state.lock().gates[site.0 as usize].pacer)
    }

    /// A leased task of `site` finished its requests: its request slot is free.
    ///
    /// Nobody is woken: the downloader that freed the slot asks for its next task right after
    /// (`engine::download`), and a woken one would only race it for the slot — on a fast site
    /// that was one futile thread switch per page.
    pub(super) fn free_slot(&self, site: SiteId) {
        let mut st = self.state.lock();
        st.requesting = st.requesting.saturating_sub(1);
        let gate = &mut st.gates[site.0 as usize];
        gate.in_flight = gate.in_flight.saturating_sub(1);
    }

    /// A leased task's place in the page buffer is free again: a parser took its page, or it
    /// had no page to parse.
    pub(super) fn free_buffer(&self) {
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
    pub(super) fn end_lease(&self, site: SiteId, held: LeaseHolds) {
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
    pub(super) fn data(&self) -> &dyn DataManager {
        &*self.dm
    }

    /// A task to fetch again from `until` (a retry); its URL stays in flight meanwhile.
    pub(super) fn park(&self, task: FetchTask, until: Instant) {
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

    /// Transport failures of `site` since its last answer.
    pub fn failures_in_a_row(&self, site: SiteId) -> u32 {
        self.state.lock().gates[site.0 as usize].failures_in_a_row
    }

    /// No request to `site` starts before `until` (429/503, retries).
    pub fn back_off(&self, site: SiteId, until: Instant) {
        let mut st = self.state.lock();
        let gate = &mut st.gates[site.0 as usize];
        gate.next_start = gate.next_start.max(until);
        gate.pacer.hold_until(until);
    }

    /// `site` answered (with any HTTP status): its failure streak ends.
    pub fn answered(&self, site: SiteId) {
        self.state.lock().gates[site.0 as usize].failures_in_a_row = 0;
    }

    /// A request to `site` failed at the transport level (refused, timeout, broken). Returns
    /// true when this failure suspends the site: it stopped answering.
    pub fn transport_failed(&self, site: SiteId) -> bool {
        let mut st = self.state.lock();
        let gate = &mut st.gates[site.0 as usize];
        gate.failures_in_a_row = gate.failures_in_a_row.saturating_add(1);
        if gate.failures_in_a_row >= self.down_after && gate.suspended.is_none() {
            gate.suspended = Some(Suspension::Down);
            let parked = std::mem::take(&mut gate.parked);
            Self::drop_reservations(&mut st, site);
            self.cv.notify_all();
            drop(st);
            for (_, task) in &parked {
                self.dm.release(task);
            }
            return true;
        }
        false
    }

    /// Stops crawling `site` in this run (`reason` goes to summary.csv); its tasks waiting
    /// for a retry go back to its frontier.
    pub fn suspend(&self, site: SiteId, reason: Suspension) {
        let parked = {
            let mut st = self.state.lock();
            let gate = &mut st.gates[site.0 as usize];
            if gate.suspended.is_none() {
                gate.suspended = Some(reason);
            }
            let parked = std::mem::take(&mut gate.parked);
            Self::drop_reservations(&mut st, site);
            self.cv.notify_all();
            parked
        };
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

    /// robots.txt of `site` is known; `delay` is the delay to keep from now on.
    pub fn robots_done(&self, site: SiteId, delay: Duration) {
        let mut st = self.state.lock();
        let gate = &mut st.gates[site.0 as usize];
        gate.robots = RobotsPhase::Ready;
        gate.delay = gate.delay.max(delay);
        gate.pacer.set_delay(gate.delay);
        // A larger Crawl-delay counts from the robots.txt request itself.
        if let Some(sent) = gate.pacer.last_sent() {
            gate.next_start = gate.next_start.max(sent + with_margin(gate.delay));
        }
        gate.has_work = true;
        self.cv.notify_one();
    }

    /// robots.txt of `site` failed for now: fetch it again from `until`. Returns the number of
    /// attempts made so far.
    pub fn robots_retry(&self, site: SiteId, until: Instant) -> u32 {
        let mut st = self.state.lock();
        let gate = &mut st.gates[site.0 as usize];
        gate.robots = RobotsPhase::Needed;
        gate.robots_attempts += 1;
        gate.next_start = gate.next_start.max(until);
        gate.pacer.hold_until(until);
        self.cv.notify_one();
        gate.robots_attempts
    }

    /// Attempts at `site`'s robots.txt so far.
    pub fn robots_attempts(&self, site: SiteId) -> u32 {
        self.state.lock().gates[site.0 as usize].robots_attempts
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
                    Self::register(&mut st, &registry.get(*s));
                    news = true;
                }
            }
        }
        // A site already known to have work is looked at by whoever asks next.
        if news {
            self.cv.notify_one();
        }
    }

    /// A page task's outcome was recorded: it spends the budget and the scheduler learns
    /// what it yielded.
    pub(super) fn observed(&self, site: SiteId, yielded: Yield) {
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
    pub(super) fn cancelled(&self, site: SiteId) {
        let mut st = self.state.lock();
        st.unobserved = st.unobserved.saturating_sub(1);
        st.budget.give_back();
        let scope = st.gates[site.0 as usize].scope;
        st.scheduler.given_back(site, scope);
        self.cv.notify_one();
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

    /// Active sites whose robots.txt is not known yet.
    pub fn robots_pending(&self) -> usize {
        self.state
            .lock()
            .gates
            .iter()
            .filter(|s| s.suspended.is_none() && s.robots != RobotsPhase::Ready)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::InMemoryDataManager;
    use crate::schedule::RoundRobin;
    use crate::site::{Origin, SiteSpec};
    use crate::sites::{OtherScheme, Sites};

    fn spec(url: &str, max_downloads: u32) -> SiteSpec {
        let url = url::Url::parse(url).expect("a test URL");
        SiteSpec {
            origin: Origin::of(&url).expect("an origin"),
            max_downloads,
            max_level: 3,
            crawl_delay: Duration::ZERO,
        }
    }

    /// Prefers site 0 while it has work and nothing reserved, else site 1; writes down what
    /// the dispatcher tells it.
    #[derive(Debug)]
    struct PrefersA(Arc<parking_lot::Mutex<Vec<String>>>, bool);

    impl Scheduler for PrefersA {
        fn choose(&mut self, candidates: &[Candidate], _now: Instant) -> Option<SiteId> {
            let a = candidates.iter().find(|c| c.site == SiteId(0));
            let pick = match a {
                Some(a) if (a.has_work || a.ready) && !self.1 => SiteId(0),
                _ => SiteId(1),
            };
            self.0.lock().push(format!("choose {}", pick.0));
            Some(pick)
        }
        fn started(&mut self, site: SiteId, _scope: ScopeId) {
            self.0.lock().push(format!("started {}", site.0));
        }
        fn reserve(&mut self, site: SiteId, _scope: ScopeId) {
            self.1 |= site == SiteId(0);
            self.0.lock().push(format!("reserve {}", site.0));
        }
        fn unreserve(&mut self, site: SiteId, _scope: ScopeId) {
            self.1 &= site != SiteId(0);
            self.0.lock().push(format!("unreserve {}", site.0));
        }
        fn max_unobserved(&self) -> Option<usize> {
            Some(4)
        }
    }

    type Log = Arc<parking_lot::Mutex<Vec<String>>>;

    /// Sites a (a 300 ms delay) and b, a budget of 10 pages, a rule preferring a; both
    /// robots.txt fetched, nothing else: a must wait, b may start.
    fn a_waits_b_may_start() -> (Arc<Dispatcher>, Log) {
        let dm = Arc::new(InMemoryDataManager::new());
        let mut a = spec("http://a.test", 1);
        a.crawl_delay = Duration::from_millis(300);
        let specs = [a, spec("http://b.test", 1)];
        let sites = Sites::with_listed(specs.iter().map(|s| s.origin.clone()), OtherScheme::Ignore);
        let limits = crate::data::ScopeLimits {
            max_level: 3,
            max_pages: 0,
            trap_levels: 0,
        };
        let entries: Vec<Arc<SiteEntry>> = specs
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let claim = crate::data::coord::ScopeClaim::solo(s.origin.clone());
                let (scope, _) = dm
                    .open_scope(claim, SiteId(i as u32), limits)
                    .expect("a scope");
                sites.add(s.clone(), scope)
            })
            .collect();
        let log = Arc::new(parking_lot::Mutex::new(Vec::new()));
        let config = DispatcherConfig {
            down_after: 3,
            page_buffer: 8,
            parsers: 1,
            budget: 10,
            shared_budget: false,
        };
        let d = Dispatcher::new(
            dm,
            Box::new(PrefersA(Arc::clone(&log), false)),
            Arc::new(Stop::new()),
            config,
        );
        for e in &entries {
            d.add_site(e);
        }
        for want in [0, 1] {
            let robots = d.try_acquire().expect("robots.txt first");
            assert_eq!(robots.task().site, SiteId(want));
            assert_eq!(robots.task().url.as_url().path(), "/robots.txt");
        }
        for e in &entries {
            d.robots_done(e.id, Duration::ZERO);
        }
        log.lock().clear();
        (d, log)
    }

    /// See: a budgeted crawl of 500 slow sites fetched 2.3 pages a second, every downloader
    /// waiting for the one site the rule picked. A learning rule's pick that must wait for
    /// its delay is kept its page, the rule chooses again meanwhile, and the kept page is
    /// handed out when its turn comes, without asking the rule again.
    #[test]
    fn a_pick_that_must_wait_is_reserved_and_served_when_its_turn_comes() {
        let (d, log) = a_waits_b_may_start();
        // a waits 300 ms after its robots.txt: kept its page; b's page goes now.
        let b = d.try_acquire().expect("b's page, not a wait for a");
        assert_eq!(b.task().site, SiteId(1));
        assert_eq!(
            *log.lock(),
            ["choose 0", "reserve 0", "choose 1", "started 1"]
        );
        assert_eq!(
            d.budget(),
            Some((0, 2, 10)),
            "a's kept page holds the budget"
        );
        log.lock().clear();
        // a's turn: its page, without a choice.
        let until = Instant::now() + Duration::from_secs(10);
        let a = loop {
            match d.try_acquire() {
                Ok(lease) => break lease,
                Err(_) if Instant::now() < until => std::thread::sleep(Duration::from_millis(20)),
                Err(at) => panic!("a's kept page never came (asked to wait until {at:?})"),
            }
        };
        assert_eq!(a.task().site, SiteId(0));
        assert_eq!(a.task().url.as_url().path(), "/");
        let log = log.lock();
        assert!(
            log.ends_with(&["unreserve 0".into(), "started 0".into()]),
            "{log:?}"
        );
    }

    /// A kept page its site can no longer start goes back: the budget's page, the rule's
    /// count of pulls under way (SPEC §5: the budget counts pages fetched).
    #[test]
    fn a_reserved_page_goes_back_when_its_site_is_suspended() {
        let (d, log) = a_waits_b_may_start();
        let b = d.try_acquire().expect("b's page");
        assert_eq!(b.task().site, SiteId(1));
        assert_eq!(d.budget(), Some((0, 2, 10)));
        d.suspend(SiteId(0), Suspension::PageLimit);
        assert_eq!(d.budget(), Some((0, 1, 10)), "a's kept page is given back");
        assert_eq!(log.lock().last().map(String::as_str), Some("unreserve 0"));
        drop(b);
        assert_eq!(d.budget(), Some((0, 0, 10)));
    }

    #[test]
    fn the_request_room_is_what_the_crawled_sites_allow_at_once() {
        let dm: Arc<dyn DataManager> = Arc::new(InMemoryDataManager::new());
        let config = DispatcherConfig {
            down_after: 3,
            page_buffer: 8,
            parsers: 1,
            budget: 0,
            shared_budget: false,
        };
        let d = Dispatcher::new(
            dm,
            Box::new(RoundRobin::default()),
            Arc::new(Stop::new()),
            config,
        );
        let specs = [
            spec("http://a.test", 2),
            spec("http://b.test", 3),
            spec("http://c.test", 4),
        ];
        let sites = Sites::with_listed(specs.iter().map(|s| s.origin.clone()), OtherScheme::Ignore);
        let [a, b, c] = [0, 1, 2].map(|i| sites.add(specs[i].clone(), ScopeId(i as u32)));
        assert_eq!(d.request_room(), 0, "no site yet");
        for s in [&a, &b, &c] {
            d.add_site(s);
        }
        assert_eq!(d.request_room(), 9);
        d.suspend(b.id, Suspension::PageLimit);
        assert_eq!(d.request_room(), 6, "a suspended site allows none");
        assert_eq!(d.retire_scope(ScopeId(2)), vec![c.id]);
        assert_eq!(d.request_room(), 2, "nor a retired one");
    }
}

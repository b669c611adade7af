//! The loop of the event-driven downloader (`DT1`, [`EventedDownloader`]): one thread takes
//! tasks from the dispatcher without waiting ([`Dispatcher::try_acquire`], woken by the
//! dispatcher when it asked in vain), takes each request's turn from its site's pacer without
//! waiting ([`Pacer::try_turn`], a timer when the turn is not yet), sends it on the
//! [`Connections`], and drives the task's walk (`fetch::Walk`, `fetch::RobotsWalk`) with the
//! answers — the same decisions as the blocking downloaders make, and the same bookkeeping
//! afterwards (`download::finish`). What the loop cannot do without blocking goes to the
//! blocking downloaders the engine starts beside it ([`download::run_passed_on`]).
//!
//! A stop lets the requests under way finish for [`STOP_GRACE`], then abandons them.
//!
//! [`Dispatcher::try_acquire`]: crate::crawl::schedule::Dispatcher::try_acquire
//! [`Pacer::try_turn`]: crate::crawl::fetch::Pacer::try_turn
//! [`download::run_passed_on`]: super::download::run_passed_on

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;

use super::{Fetched, download};
use crate::base::bodies::{self, BodyPermit};
use crate::base::stop::{PanicGuard, STOP_GRACE, StopReason};
use crate::crawl::engine::Context;
use crate::crawl::fetch::OwnedHead;
use crate::crawl::fetch::evented::{Carried, ConnRef, Connections, Event, NotSent, ReqId};
use crate::crawl::fetch::{
    Check, EventedDownloader, FetchEnv, FetchError, HeadStep, PageResult, RobotsAnswer, RobotsStep,
    RobotsWalk, Step, Walk,
};
use crate::crawl::message::{Log, TaskKind};
use crate::crawl::schedule::TaskLease;
use crate::model::robots::MAX_ROBOTS_BYTES;
use crate::model::url_norm::NormUrl;

mod body_cap;
mod not_modified;

/// The longest the loop sleeps without looking at the stop and the finished sites.
const LOOK_AGAIN: Duration = Duration::from_millis(50);

/// How soon a body waiting for room among the bodies held looks again.
const BODY_ROOM_AGAIN: Duration = Duration::from_millis(5);

/// How many tasks the loop may hold at once: the engine raises it as it would start more
/// blocking downloaders (`DownloadingThreadsCount = 0`), so that a crawl bound by its
/// processors does not fetch thousands of pages ahead of its parsers.
#[derive(Debug)]
pub(super) struct Slots(AtomicUsize);

impl Slots {
    pub(super) fn new(n: usize) -> Self {
        Slots(AtomicUsize::new(n.max(1)))
    }

    pub(super) fn get(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }

    pub(super) fn set(&self, n: usize) {
        self.0.store(n, Ordering::Relaxed);
    }
}

/// The walk a task is on.
enum Walker<'a> {
    Page(Walk<'a>),
    Robots(RobotsWalk<'a>),
}

/// A task the loop drives.
struct InFlight<'a> {
    lease: TaskLease,
    walk: Walker<'a>,
    /// The URL requested now.
    url: NormUrl,
    started: Instant,
    /// Where the request went out, once sent.
    conn: Option<ConnRef>,
    /// The answer's head, while its body is read.
    head: Option<OwnedHead>,
    /// The page body's place among the bodies held.
    permit: Option<BodyPermit>,
    /// What it waits for besides the network.
    waits: Waits,
    /// Its request carried a re-crawl's validators: a `304` is the archived answer.
    conditional: bool,
    /// The body of the archived answer a `304` stands for, waiting for room among the bodies
    /// held like a body read from the network.
    archived_body: Option<Vec<u8>>,
}

/// What a task waits for besides the network (its entries in the loop's queues are stale
/// once it does not: a task's number is reused when it ends).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Waits {
    Nothing,
    /// Its site's turn to send the next request.
    Turn,
    /// Room among the bodies held, to read its page body.
    BodyRoom,
}

/// The loop's state.
struct Driver<'a> {
    ctx: &'a Context,
    /// What the walks see of the crawl.
    env: &'a FetchEnv<'a>,
    log: &'a Log,
    pages: &'a Sender<Fetched>,
    passed_on: &'a Sender<TaskLease>,
    conns: Connections,
    tasks: Vec<Option<InFlight<'a>>>,
    free: Vec<usize>,
    live: usize,
    /// Tasks whose next request waits for its site's turn, by when to ask again.
    turns: BinaryHeap<Reverse<(Instant, usize)>>,
    /// Tasks whose page body waits for room among the bodies held, in the order they came,
    /// per lane of the body budget (ordinary bodies, large ones: `bodies::lane`).
    bodies: [VecDeque<usize>; 2],
    cap: u64,
    parsers_gone: bool,
    /// A task ended since the loop last asked the dispatcher (its site's slot is free: the
    /// dispatcher does not announce that).
    freed: bool,
}

/// Runs the loop until the crawl stops, at most `slots` tasks at once.
pub(super) fn run(
    ctx: &Context,
    downloader: &EventedDownloader,
    slots: &Slots,
    pages: Sender<Fetched>,
    passed_on: Sender<TaskLease>,
    log: &Log,
) {
    let _guard = PanicGuard(&ctx.stop);
    let conns = match downloader.connections() {
        Ok(c) => c,
        Err(e) => {
            ctx.stop.request(StopReason::Failed(format!(
                "cannot start the event-driven downloads: {e}"
            )));
            return;
        }
    };
    // The dispatcher's news: something changed since the loop asked in vain.
    let news = Arc::new(AtomicBool::new(true));
    let (waker, told) = (conns.waker(), Arc::clone(&news));
    ctx.dispatcher.set_waker(Box::new(move || {
        told.store(true, Ordering::Release);
        let _ = waker.wake();
    }));
    let env = ctx.fetch_env();
    let mut d = Driver {
        ctx,
        env: &env,
        log,
        pages: &pages,
        passed_on: &passed_on,
        conns,
        tasks: Vec::new(),
        free: Vec::new(),
        live: 0,
        turns: BinaryHeap::new(),
        bodies: [VecDeque::new(), VecDeque::new()],
        cap: ctx.settings.http.max_page_bytes,
        parsers_gone: false,
        freed: false,
    };
    let mut events = Vec::new();
    let mut stop_at: Option<Instant> = None;
    // After a `try_acquire` in vain, the loop asks again only on news, once its own tasks
    // freed something, or at the time the dispatcher named (and every LOOK_AGAIN at least): a
    // look at every active site for every batch of answers cost a slow crawl of thousands of
    // sites a pass over all of them per answer.
    let mut in_vain = false;
    let mut ask_at = Instant::now();
    loop {
        let done = downloader.take_done_sites();
        if !done.is_empty() {
            d.conns.sites_done(&done);
        }
        let now = Instant::now();
        let mut timeout = LOOK_AGAIN;
        if ctx.stop.is_requested() || d.parsers_gone {
            let at = *stop_at.get_or_insert(now);
            d.abandon_unsent();
            if d.live == 0 {
                break;
            }
            let end = at + STOP_GRACE;
            if now >= end {
                d.abandon_all();
                break;
            }
            timeout = timeout.min(end - now);
        } else {
            d.take_turns(now);
            if let Some(Reverse((at, _))) = d.turns.peek() {
                timeout = timeout.min(at.saturating_duration_since(now));
            }
            d.make_room_for_bodies();
            if d.bodies.iter().any(|q| !q.is_empty()) {
                timeout = timeout.min(BODY_ROOM_AGAIN);
            }
            if news.swap(false, Ordering::AcqRel) || std::mem::take(&mut d.freed) || now >= ask_at {
                in_vain = false;
            }
            while !in_vain && d.live < slots.get() {
                match ctx.dispatcher.try_acquire() {
                    Ok(lease) => d.start(lease),
                    Err(when) => {
                        in_vain = true;
                        ask_at = when.map_or(now + LOOK_AGAIN, |at| at.min(now + LOOK_AGAIN));
                    }
                }
            }
            if in_vain {
                timeout = timeout.min(ask_at.saturating_duration_since(now));
            }
        }
        d.conns.poll(Some(timeout), &mut events);
        for event in events.drain(..) {
            d.on_event(event);
        }
    }
}

impl<'a> Driver<'a> {
    fn insert(&mut self, f: InFlight<'a>) -> usize {
        self.live += 1;
        match self.free.pop() {
            Some(id) => {
                self.tasks[id] = Some(f);
                id
            }
            None => {
                self.tasks.push(Some(f));
                self.tasks.len() - 1
            }
        }
    }

    /// Task `id` is over (its result passed on, or the task passed on).
    fn remove(&mut self, id: usize) {
        self.live -= 1;
        self.freed = true;
        self.free.push(id);
    }

    fn start(&mut self, lease: TaskLease) {
        let task = lease.task();
        let walk = match task.kind {
            TaskKind::Page => Walker::Page(Walk::new(self.env, task, self.log)),
            TaskKind::Robots => {
                Walker::Robots(RobotsWalk::new(self.env, task.site, &task.url, self.log))
            }
            TaskKind::Sitemaps => {
                self.freed = true;
                self.hand_over(lease);
                return;
            }
        };
        let url = task.url.clone();
        let id = self.insert(InFlight {
            lease,
            walk,
            url,
            started: Instant::now(),
            conn: None,
            head: None,
            permit: None,
            waits: Waits::Nothing,
            conditional: false,
            archived_body: None,
        });
        self.go(id);
    }

    /// Takes task `id`'s walk to its next request and sends it, in its site's turn.
    fn go(&mut self, id: usize) {
        let Some(mut f) = self.tasks[id].take() else {
            return;
        };
        match &mut f.walk {
            Walker::Page(walk) => match walk.before_request(&f.url) {
                Check::Go => {}
                Check::Stop(result) => return self.finish(id, f.lease, result),
                // An alias's robots.txt is fetched by a blocking downloader, which walks the
                // task again from its start (the hops so far are requested again).
                Check::NeedRobots(_) => return self.pass_on(id, f),
            },
            Walker::Robots(walk) => match walk.next_request() {
                Some(url) => f.url = url,
                None => {
                    let answer = walk.too_many_hops();
                    return self.robots_done(id, f.lease, answer);
                }
            },
        }
        let site = f.lease.task().site;
        if !self.conns.can_send(site, &f.url) {
            return self.pass_on(id, f);
        }
        let turn = match self.ctx.dispatcher.pacer(site).try_turn() {
            Ok(turn) => turn,
            Err(at) => {
                self.turns.push(Reverse((at, id)));
                f.waits = Waits::Turn;
                self.tasks[id] = Some(f);
                return;
            }
        };
        f.started = Instant::now();
        let cookie = match &f.walk {
            Walker::Page(walk) => walk.cookie(&f.url),
            Walker::Robots(walk) => walk.cookie(&f.url),
        };
        let validators = match &f.walk {
            Walker::Page(_) => {
                crate::crawl::fetch::recrawl::validators(self.env.recrawl, &f.url).cloned()
            }
            Walker::Robots(_) => None,
        };
        f.conditional = validators.is_some();
        let carried = Carried { cookie, validators };
        match self.conns.send(ReqId(id), site, &f.url, carried, turn) {
            Ok(at) => {
                f.conn = Some(at);
                self.tasks[id] = Some(f);
            }
            Err(NotSent::Elsewhere) => self.pass_on(id, f),
            Err(NotSent::Failed(e)) => self.failed(id, f, e),
        }
    }

    /// Tasks whose site's turn has come send their requests.
    fn take_turns(&mut self, now: Instant) {
        while let Some(&Reverse((at, id))) = self.turns.peek() {
            if at > now {
                break;
            }
            self.turns.pop();
            if let Some(f) = self.tasks[id].as_mut()
                && f.waits == Waits::Turn
            {
                f.waits = Waits::Nothing;
                self.go(id);
            }
        }
    }

    /// The bytes a task's page body counts for in the body budget: its declared length (up to
    /// the cap), or 0 when unknown (counted once read).
    fn expected_body(&self, f: &InFlight<'_>) -> u64 {
        f.head
            .as_ref()
            .and_then(OwnedHead::declared_body_len)
            .map_or(0, |n| n.min(f.body_cap(self.cap)))
    }

    /// Page bodies that waited for room are read, in order within each lane of the budget,
    /// as far as the room goes: a large body waiting holds up only the large ones after it.
    fn make_room_for_bodies(&mut self) {
        for lane in 0..self.bodies.len() {
            while let Some(&id) = self.bodies[lane].front() {
                // A task's number is reused when it ends: an entry is stale unless its task
                // still waits for room, in this lane.
                let waiting = self.tasks[id]
                    .as_ref()
                    .filter(|f| f.waits == Waits::BodyRoom)
                    .map(|f| self.expected_body(f))
                    .filter(|&bytes| bodies::lane(bytes) == lane);
                let Some(expected) = waiting else {
                    self.bodies[lane].pop_front();
                    continue;
                };
                let Some(permit) = self.ctx.bodies.try_acquire(expected) else {
                    break;
                };
                self.bodies[lane].pop_front();
                let Some(f) = self.tasks[id].as_mut() else {
                    continue;
                };
                f.permit = Some(permit);
                f.waits = Waits::Nothing;
                if let Some(body) = f.archived_body.take() {
                    if let Some(f) = self.tasks[id].take() {
                        self.page_body(id, f, Ok(body));
                    }
                } else if let Some(at) = f.conn {
                    self.conns
                        .read_body(at, ReqId(id), f.body_cap(self.cap), false);
                }
            }
        }
    }

    fn on_event(&mut self, event: Event) {
        match event {
            Event::Head(ReqId(id), head) => self.on_head(id, head),
            Event::Body(ReqId(id), body) => self.on_body(id, body),
            Event::Failed(ReqId(id), e) => {
                if let Some(f) = self.tasks[id].take() {
                    self.failed(id, f, e);
                }
            }
        }
    }

    fn on_head(&mut self, id: usize, head: OwnedHead) {
        let Some(f) = self.tasks[id].take() else {
            return;
        };
        let Some(at) = f.conn else {
            self.tasks[id] = Some(f);
            return;
        };
        let req = ReqId(id);
        let Some((mut f, head)) = self.not_modified(id, f, at, head) else {
            return;
        };
        match &mut f.walk {
            Walker::Robots(walk) => match walk.head(&f.url, head.head(), f.started) {
                RobotsStep::Next => {
                    self.conns.discard(at, req);
                    self.tasks[id] = Some(f);
                    self.go(id);
                }
                RobotsStep::Done(answer) => {
                    self.conns.discard(at, req);
                    self.robots_done(id, f.lease, answer);
                }
                RobotsStep::Body => {
                    // RFC 9309 §2.5: parse at least 500 KiB; the rest is ignored.
                    self.conns.read_body(at, req, MAX_ROBOTS_BYTES as u64, true);
                    self.tasks[id] = Some(f);
                }
            },
            Walker::Page(walk) => match walk.head(&f.url, head.head(), f.started) {
                HeadStep::Next(next) => {
                    self.conns.discard(at, req);
                    f.url = next;
                    self.tasks[id] = Some(f);
                    self.go(id);
                }
                HeadStep::Done(result) => {
                    self.conns.discard(at, req);
                    self.finish(id, f.lease, result);
                }
                HeadStep::Body => {
                    f.head = Some(head);
                    self.wait_for_body_room(id, f);
                }
            },
        }
    }

    /// Task `id`'s page body (its head in `f.head`) is read once there is room among the
    /// bodies held, in its lane's order.
    fn wait_for_body_room(&mut self, id: usize, mut f: InFlight<'a>) {
        f.waits = Waits::BodyRoom;
        let lane = bodies::lane(self.expected_body(&f));
        self.tasks[id] = Some(f);
        self.bodies[lane].push_back(id);
        self.make_room_for_bodies();
    }

    fn on_body(&mut self, id: usize, body: Result<Vec<u8>, FetchError>) {
        let Some(mut f) = self.tasks[id].take() else {
            return;
        };
        match &mut f.walk {
            Walker::Robots(walk) => {
                let answer = walk.body(&f.url, body, f.started);
                self.robots_done(id, f.lease, answer);
            }
            Walker::Page(_) => self.page_body(id, f, body),
        }
    }

    /// A page task's body, read or not.
    fn page_body(&mut self, id: usize, mut f: InFlight<'a>, body: Result<Vec<u8>, FetchError>) {
        match &mut f.walk {
            Walker::Robots(_) => {}
            Walker::Page(walk) => {
                let permit = f.permit.take().unwrap_or_default();
                let declared = f.head.take().map_or_else(Default::default, |h| {
                    crate::crawl::fetch::Declared {
                        content_type: h.content_type,
                        robots_tag: h.robots_tag,
                    }
                });
                match walk.body(&f.url, declared, body, permit, f.started) {
                    Step::Next(next) => self.hop(id, f, next),
                    Step::Done(result) => self.finish(id, f.lease, result),
                }
            }
        }
    }

    /// Task `id` follows a hop to `next` (a redirect, a refresh, a page's second copy): its
    /// next request, on whichever connection.
    fn hop(&mut self, id: usize, mut f: InFlight<'a>, next: NormUrl) {
        f.url = next;
        f.conn = None;
        self.tasks[id] = Some(f);
        self.go(id);
    }

    /// Task `id`'s request got no answer.
    fn failed(&mut self, id: usize, mut f: InFlight<'a>, e: FetchError) {
        match &mut f.walk {
            Walker::Page(walk) => {
                let result = walk.transport_error(&f.url, e, f.started);
                self.finish(id, f.lease, result);
            }
            Walker::Robots(walk) => {
                let answer = walk.transport_error(&f.url, e, f.started);
                self.robots_done(id, f.lease, answer);
            }
        }
    }

    fn finish(&mut self, id: usize, lease: TaskLease, result: PageResult) {
        self.remove(id);
        if !download::finish(self.ctx, lease, result, self.pages, self.log) {
            self.parsers_gone = true;
        }
    }

    fn robots_done(&mut self, id: usize, mut lease: TaskLease, answer: RobotsAnswer) {
        self.remove(id);
        lease.requests_done();
        if download::robots_answered(self.ctx, &lease, answer, self.log) {
            // Reading sitemaps waits on each request: a blocking downloader does it.
            lease.continue_with_sitemaps();
            self.hand_over(lease);
        }
    }

    /// A blocking downloader takes `lease` (not a task of the loop).
    fn hand_over(&mut self, lease: TaskLease) {
        // Unbounded: the loop never waits here (its tasks are at most its slots).
        if let Err(e) = self.passed_on.send(lease) {
            // The blocking downloaders are gone (the crawl is ending): the URL goes back.
            drop(e.into_inner());
        }
    }

    /// A blocking downloader takes task `id` from its start.
    fn pass_on(&mut self, id: usize, f: InFlight<'a>) {
        self.remove(id);
        self.hand_over(f.lease);
    }

    /// The crawl stops: tasks that sent nothing yet are given back at once.
    fn abandon_unsent(&mut self) {
        let waiting: Vec<usize> = self
            .turns
            .drain()
            .map(|Reverse((_, id))| id)
            .chain(self.bodies.iter_mut().flat_map(|q| q.drain(..)))
            .collect();
        for id in waiting {
            let waits = self.tasks[id].as_ref().map(|f| f.waits);
            if waits.is_some_and(|w| w != Waits::Nothing)
                && let Some(f) = self.tasks[id].take()
            {
                if let Some(at) = f.conn {
                    self.conns.abandon(at, ReqId(id));
                }
                self.abandon(id, f);
            }
        }
    }

    /// The stop's grace is over: every request still under way is abandoned.
    fn abandon_all(&mut self) {
        for id in 0..self.tasks.len() {
            if let Some(f) = self.tasks[id].take() {
                if let Some(at) = f.conn {
                    self.conns.abandon(at, ReqId(id));
                }
                self.abandon(id, f);
            }
        }
    }

    fn abandon(&mut self, id: usize, f: InFlight<'a>) {
        match f.walk {
            Walker::Page(_) => self.finish(id, f.lease, PageResult::Abandoned),
            Walker::Robots(_) => self.robots_done(id, f.lease, RobotsAnswer::Abandoned),
        }
    }
}

//! The crawl engine: the threads of one crawl and the loops they run. The application
//! manager builds the [`Context`] and the components; the engine starts
//!
//! ```text
//!           take_task           TaskLease             Fetched (bounded channel)
//! DataManager ─────▶ Dispatcher ─────────▶ downloader ×D ──────────────────────────▶ parser ×N
//!      ▲             (politeness,  acquire()     │ non-page outcomes                     │
//!      │              Scheduler)                 ▼                                       │
//!      └──────────────────────────────── commit(Outcome) ◀──────────────────────────────┘
//!   every thread ──LogEvent (bounded)──▶ routine (logs, progress, finishers, Ctrl+C) ──▶ Stop
//!   state saver: journal flushed every 100 ms, fsynced every second, snapshots
//! ```
//!
//! and joins them all once the stop is requested: downloaders finish or abandon their
//! requests, parsers drain what was fetched, and every lease still alive gives its URL back.
//! With an event-driven downloader (`DT1`) the downloaders are one loop (`evented.rs`) that
//! holds many requests at once, and a few blocking threads for what it passes on.
//! The downloader and parser loops (`download.rs`, `parse.rs`) are the engine's; the
//! components only turn one task into a result ([`Downloader`]) and one page into a record
//! ([`PageParser`]), so the bookkeeping around them is written once.

mod autoscale;
pub(crate) mod context;
pub(crate) mod cpu;
mod download;
mod env;
mod evented;
mod live_page;
mod parse;
mod record;
pub(crate) mod render;
mod saver;
mod tick;

use std::thread;

use crossbeam_channel::{Receiver, RecvTimeoutError, bounded, select};
use thiserror::Error;

use crate::base::ids::ScopeId;
use crate::base::stop::{STOP_GRACE, StopReason};
use crate::crawl::fetch::Downloader;
use crate::crawl::finish::Finisher;
use crate::crawl::message::{Downloaded, Log, LogEvent};
use crate::crawl::parse::PageParser;
use crate::crawl::routine::{LogFiles, Routine, RoutineIo};
use crate::crawl::schedule::TaskLease;
use crate::crawl::settings::Settings;
pub(crate) use context::{Context, ScopeFeeder};

/// A downloaded page and the lease of its task, on its way to a parser.
#[derive(Debug)]
pub(crate) struct Fetched {
    /// The task; dropping it gives back what it holds.
    pub lease: TaskLease,
    /// The page.
    pub page: Downloaded,
}

/// The thread components of a crawl.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Workers<'a> {
    /// `DownloadingThread`.
    pub downloader: &'a dyn Downloader,
    /// The same, when it is the event-driven downloader (`DT1`): its loop runs here.
    pub evented: Option<&'a crate::crawl::fetch::evented::EventedDownloader>,
    /// `ParsingThread`.
    pub parser: &'a dyn PageParser,
    /// `RoutineThread`.
    pub routine: &'a dyn Routine,
}

/// What the routine thread gets besides the log events.
#[derive(Debug)]
pub(crate) struct RoutineInputs<'a> {
    /// Ctrl+C presses.
    pub ctrl_c: Receiver<()>,
    /// The finishers, already started.
    pub finishers: Vec<Box<dyn Finisher>>,
    /// The open log files.
    pub logs: LogFiles,
    /// The crawled scopes with their names.
    pub scopes: &'a [(ScopeId, String)],
}

/// A thread could not be started.
#[derive(Debug, Error)]
#[error("cannot start a thread: {0}")]
pub struct SpawnError(#[source] pub std::io::Error);

/// Pages downloading or waiting for a parser at most: every downloader busy, and two pages
/// queued per parser so that no parser waits for the network. It is also the channel's
/// capacity, so handing a page to the parsers never blocks.
pub(crate) fn page_buffer(settings: &Settings) -> usize {
    settings.threads.max_downloaders() + 2 * settings.threads.parsing.get()
}

/// Log events waiting for the routine thread at most (half a second of requests at 16,000
/// pages/s). A bounded channel's slots are allocated and touched when it is made: 65,536 of
/// them were 5.8 MB of every crawl's memory (issue 19), for a routine thread that keeps up.
const LOG_BUFFER: usize = 8_192;

/// A downloader thread's stack. Threads are how requests wait (blocking sockets, one request
/// per thread), so an automatic crawl of slow servers runs thousands of them: a small stack
/// keeps each to what it touches. Parsing, the deep work, runs on the parsers.
const DOWNLOADER_STACK: usize = 512 * 1024;

/// Once the stop is requested, gives the downloaders [`STOP_GRACE`] to end, then has the
/// `Downloader` abandon what it still waits for.
fn abandon_late_requests(ctx: &Context, downloader: &dyn Downloader, done: Receiver<()>) {
    let stop = ctx.stop.receiver();
    select! {
        recv(stop) -> _ => {},
        recv(done) -> _ => return,
    }
    if let Err(RecvTimeoutError::Timeout) = done.recv_timeout(STOP_GRACE) {
        downloader.abandon_requests();
    }
}

/// Starts a named thread in scope `s`.
fn named<'scope, 'env>(
    s: &'scope thread::Scope<'scope, 'env>,
    name: String,
    f: impl FnOnce() + Send + 'scope,
) -> std::io::Result<thread::ScopedJoinHandle<'scope, ()>> {
    thread::Builder::new().name(name).spawn_scoped(s, f)
}

/// Threads of a crawl, to be joined.
type Handles<'scope> = Vec<thread::ScopedJoinHandle<'scope, ()>>;

/// Starts the threads that watch the crawl: the routine thread; the engine's tick, which
/// opens scopes, tops up a shared budget and publishes the status `page` (whose server thread
/// starts here too, ended by [`live_page::Closing`] and not among `handles`); and the state
/// saver when the data manager saves state.
fn start_watchers<'scope>(
    s: &'scope thread::Scope<'scope, '_>,
    ctx: &'scope Context,
    routine: &'scope dyn Routine,
    io: RoutineIo<'scope>,
    page: Option<&'scope live_page::LivePage>,
    opened: crossbeam_channel::Sender<Vec<(ScopeId, String)>>,
    handles: &mut Handles<'scope>,
) -> std::io::Result<()> {
    let scopes = io.scopes;
    handles.push(named(s, "routine".into(), move || routine.run(ctx, io))?);
    let publisher = page.map(|p| {
        if let Err(e) = named(s, "status-page".into(), || p.serve()) {
            eprintln!("warning: cannot serve the status page: {e}");
        }
        live_page::Publisher::new(p, ctx, scopes)
    });
    handles.push(named(s, "engine-tick".into(), move || {
        tick::run(ctx, &opened, publisher)
    })?);
    if ctx.dm.saves_state() {
        let every = ctx.settings.state.checkpoint_interval;
        handles.push(named(s, "state-saver".into(), move || {
            saver::run(ctx, every)
        })?);
    }
    Ok(())
}

/// Starts `ParsingThreadsCount` parsers on the pages of `channels` (pages in, log events out).
fn start_parsers<'scope>(
    s: &'scope thread::Scope<'scope, '_>,
    ctx: &'scope Context,
    parser: &'scope dyn PageParser,
    channels: (&Receiver<Fetched>, &crossbeam_channel::Sender<LogEvent>),
    handles: &mut Handles<'scope>,
) -> std::io::Result<()> {
    for i in 0..ctx.settings.threads.parsing.get() {
        let (rx, log) = (
            channels.0.clone(),
            Log::new(channels.1.clone(), ctx.problems()),
        );
        handles.push(named(s, format!("parser-{i}"), move || {
            parse::run(ctx, parser, rx, log)
        })?);
    }
    Ok(())
}

/// What starting a blocking downloader thread takes.
struct Downloaders<'scope, 'env, 'a> {
    s: &'scope thread::Scope<'scope, 'env>,
    ctx: &'scope Context,
    downloader: &'scope dyn Downloader,
    pages: &'a crossbeam_channel::Sender<Fetched>,
    log: &'a crossbeam_channel::Sender<LogEvent>,
    /// Each downloader holds a sender; the channel disconnects when the last one ends.
    running: &'a crossbeam_channel::Sender<()>,
    /// With `DT1`: the tasks the loop passes on, the only ones its blocking downloaders take.
    passed_on: Option<&'a Receiver<TaskLease>>,
}

impl<'scope> Downloaders<'scope, '_, '_> {
    /// Starts `DT1`'s loop, holding `slots` requests at once and passing on to the blocking
    /// downloaders through `passed`.
    fn start_loop(
        &self,
        dt1: &'scope crate::crawl::fetch::evented::EventedDownloader,
        slots: &'scope evented::Slots,
        passed: crossbeam_channel::Sender<TaskLease>,
    ) -> std::io::Result<thread::ScopedJoinHandle<'scope, ()>> {
        let ctx = self.ctx;
        let (tx, log) = (
            self.pages.clone(),
            Log::new(self.log.clone(), ctx.problems()),
        );
        let running = self.running.clone();
        named(self.s, "downloads".into(), move || {
            evented::run(ctx, dt1, slots, tx, passed, &log);
            drop(running);
        })
    }

    /// Starts the thread that has the downloader abandon what it still waits for once the
    /// stop's grace is over (`done`: disconnected when every downloader has ended).
    fn start_stop_watch(
        &self,
        done: Receiver<()>,
    ) -> std::io::Result<thread::ScopedJoinHandle<'scope, ()>> {
        let (ctx, downloader) = (self.ctx, self.downloader);
        named(self.s, "stop-watch".into(), move || {
            abandon_late_requests(ctx, downloader, done)
        })
    }

    /// Starts downloader thread `i`.
    fn start(&self, i: usize) -> std::io::Result<thread::ScopedJoinHandle<'scope, ()>> {
        let (ctx, downloader) = (self.ctx, self.downloader);
        let (tx, log) = (
            self.pages.clone(),
            Log::new(self.log.clone(), ctx.problems()),
        );
        let running = self.running.clone();
        let passed = self.passed_on.cloned();
        thread::Builder::new()
            .name(format!("downloader-{i}"))
            .stack_size(DOWNLOADER_STACK)
            .spawn_scoped(self.s, move || {
                match passed {
                    Some(rx) => download::run_passed_on(ctx, downloader, rx, tx, log),
                    None => download::run(ctx, downloader, tx, log),
                }
                drop(running);
            })
    }
}

/// Runs the crawl's threads until the stop is requested and every thread has ended.
pub(crate) fn run(
    ctx: &Context,
    workers: Workers<'_>,
    inputs: RoutineInputs<'_>,
) -> Result<(), SpawnError> {
    let settings = &ctx.settings;
    let (page_tx, page_rx) = bounded::<Fetched>(page_buffer(settings));
    let (log_tx, log_rx) = bounded(LOG_BUFFER);
    let (opened_tx, opened_rx) = crossbeam_channel::unbounded();
    let leftover = page_rx.clone();
    // The event-driven loop's requests at once (`DT1`), raised as the crawl finds it waits.
    let loop_slots = evented::Slots::new(settings.threads.first_downloaders());
    let page = live_page::LivePage::open(ctx, inputs.scopes);
    let spawned = thread::scope(|s| -> Result<(), SpawnError> {
        // The page's thread ends when this closure returns, however it returns; the scope then
        // joins it.
        let _closing = live_page::Closing(page.as_ref());
        let mut handles = Vec::new();
        let failed = |e: std::io::Error| {
            ctx.stop
                .request(StopReason::Failed(format!("cannot start a thread: {e}")));
            SpawnError(e)
        };
        let io = RoutineIo {
            events: log_rx,
            ctrl_c: inputs.ctrl_c,
            finishers: inputs.finishers,
            logs: inputs.logs,
            scopes: inputs.scopes,
            opened: opened_rx,
        };
        start_watchers(
            s,
            ctx,
            workers.routine,
            io,
            page.as_ref(),
            opened_tx,
            &mut handles,
        )
        .map_err(failed)?;
        // Each downloader holds a sender; the channel disconnects when the last one ends.
        let (running, downloaders_done) = bounded::<()>(0);
        // An event-driven downloader (`DT1`) drives the requests from one loop; its blocking
        // downloaders take only what the loop passes on (a name not resolved yet, an alias's
        // robots.txt), and grow as DT0's do, when tasks wait for them.
        let evented = workers.evented;
        let (passed_tx, passed_rx) = crossbeam_channel::unbounded::<TaskLease>();
        let starter = Downloaders {
            s,
            ctx,
            downloader: workers.downloader,
            pages: &page_tx,
            log: &log_tx,
            running: &running,
            passed_on: evented.map(|_| &passed_rx),
        };
        let first = settings.threads.first_downloaders();
        for i in 0..first {
            handles.push(starter.start(i).map_err(failed)?);
        }
        match evented {
            Some(dt1) => {
                let h = starter.start_loop(dt1, &loop_slots, passed_tx);
                handles.push(h.map_err(failed)?);
                ctx.dispatcher.set_downloaders(first + loop_slots.get());
            }
            None => {
                drop(passed_tx);
                ctx.dispatcher.set_downloaders(first);
            }
        }
        let h = starter.start_stop_watch(downloaders_done);
        handles.push(h.map_err(failed)?);
        start_parsers(s, ctx, workers.parser, (&page_rx, &log_tx), &mut handles).map_err(failed)?;
        // Automatic downloaders (autoscale.rs), until the cap or the stop.
        let growth = autoscale::Growth {
            most: settings.threads.max_downloaders(),
            evented: evented.is_some(),
            loop_slots: &loop_slots,
            passed_on: &passed_rx,
        };
        autoscale::run(ctx, growth, first, &mut |i| {
            starter.start(i).map(|h| handles.push(h)).is_ok()
        });
        drop((page_tx, page_rx, log_tx, running, passed_rx));
        for h in handles {
            if h.join().is_err() {
                ctx.stop.request(StopReason::WorkerPanicked);
            }
        }
        Ok(())
    });
    // Pages fetched but never parsed: dropping their leases puts their URLs back; so do the
    // tasks that waited for a retry.
    drop(leftover.try_iter().collect::<Vec<_>>());
    ctx.dispatcher.release_parked();
    spawned
}

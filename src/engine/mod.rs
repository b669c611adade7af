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
pub mod cpu;
mod download;
mod env;
mod evented;
mod parse;
mod saver;

use std::thread;

use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError, bounded, select};
use thiserror::Error;

pub use saver::{FLUSH_INTERVAL, SYNC_INTERVAL};

use crate::context::Context;
use crate::fetch::Downloader;
use crate::finish::Finisher;
use crate::ids::ScopeId;
use crate::message::{Downloaded, Log};
use crate::parse::PageParser;
use crate::routine::{LogFiles, Routine, RoutineIo};
use crate::schedule::TaskLease;
use crate::settings::Settings;
use crate::stop::{STOP_GRACE, StopReason};

/// A downloaded page and the lease of its task, on its way to a parser.
#[derive(Debug)]
pub struct Fetched {
    /// The task; dropping it gives back what it holds.
    pub lease: TaskLease,
    /// The page.
    pub page: Downloaded,
}

/// The thread components of a crawl.
#[derive(Debug, Clone, Copy)]
pub struct Workers<'a> {
    /// `DownloadingThread`.
    pub downloader: &'a dyn Downloader,
    /// `ParsingThread`.
    pub parser: &'a dyn PageParser,
    /// `RoutineThread`.
    pub routine: &'a dyn Routine,
}

/// What the routine thread gets besides the log events.
#[derive(Debug)]
pub struct RoutineInputs<'a> {
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
pub fn page_buffer(settings: &Settings) -> usize {
    settings.threads.max_downloaders() + 2 * settings.threads.parsing.get()
}

/// Log events waiting for the routine thread at most (half a second of requests at 16,000
/// pages/s). A bounded channel's slots are allocated and touched when it is made: 65,536 of
/// them were 5.8 MB of every crawl's memory (issue 19), for a routine thread that keeps up.
const LOG_BUFFER: usize = 8_192;

/// How often the engine considers starting more downloaders.
const GROW_PERIOD: Duration = Duration::from_millis(100);

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

/// Runs the crawl's threads until the stop is requested and every thread has ended.
pub fn run(
    ctx: &Context,
    workers: Workers<'_>,
    inputs: RoutineInputs<'_>,
) -> Result<(), SpawnError> {
    let settings = &ctx.settings;
    let (page_tx, page_rx) = bounded::<Fetched>(page_buffer(settings));
    let (log_tx, log_rx) = bounded(LOG_BUFFER);
    let leftover = page_rx.clone();
    // The event-driven loop's requests at once (`DT1`), raised as the crawl finds it waits.
    let loop_slots = evented::Slots::new(settings.threads.first_downloaders());
    let spawned = thread::scope(|s| -> Result<(), SpawnError> {
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
        };
        let routine = workers.routine;
        let h = thread::Builder::new()
            .name("routine".into())
            .spawn_scoped(s, move || routine.run(ctx, io));
        handles.push(h.map_err(failed)?);
        if ctx.dm.saves_state() {
            let every = settings.state.checkpoint_interval;
            let h = thread::Builder::new()
                .name("state-saver".into())
                .spawn_scoped(s, move || saver::run(ctx, every));
            handles.push(h.map_err(failed)?);
        }
        // Each downloader holds a sender; the channel disconnects when the last one ends.
        let (running, downloaders_done) = bounded::<()>(0);
        // An event-driven downloader (`DT1`) drives the requests from one loop; its blocking
        // downloaders take only what the loop passes on (a name not resolved yet, an alias's robots.txt), and
        // grow as DT0's do, when tasks wait for them.
        let evented = workers.downloader.evented();
        let (passed_tx, passed_rx) = crossbeam_channel::unbounded::<TaskLease>();
        let spawn_downloader = |i: usize| {
            let (tx, log) = (page_tx.clone(), Log(log_tx.clone()));
            let downloader = workers.downloader;
            let running = running.clone();
            let passed = evented.map(|_| passed_rx.clone());
            thread::Builder::new()
                .name(format!("downloader-{i}"))
                .stack_size(DOWNLOADER_STACK)
                .spawn_scoped(s, move || {
                    match passed {
                        Some(rx) => download::run_passed_on(ctx, downloader, rx, tx, log),
                        None => download::run(ctx, downloader, tx, log),
                    }
                    drop(running);
                })
        };
        let first = settings.threads.first_downloaders();
        for i in 0..first {
            handles.push(spawn_downloader(i).map_err(failed)?);
        }
        let most = settings.threads.max_downloaders();
        match evented {
            Some(dt1) => {
                let (tx, log) = (page_tx.clone(), Log(log_tx.clone()));
                let slots = &loop_slots;
                let running = running.clone();
                let h = thread::Builder::new()
                    .name("downloads".into())
                    .spawn_scoped(s, move || {
                        evented::run(ctx, dt1, slots, tx, passed_tx, &log);
                        drop(running);
                    });
                handles.push(h.map_err(failed)?);
                ctx.dispatcher.set_downloaders(first + loop_slots.get());
            }
            None => {
                drop(passed_tx);
                ctx.dispatcher.set_downloaders(first);
            }
        }
        let downloader = workers.downloader;
        let h = thread::Builder::new()
            .name("stop-watch".into())
            .spawn_scoped(s, move || {
                abandon_late_requests(ctx, downloader, downloaders_done)
            });
        handles.push(h.map_err(failed)?);
        for i in 0..settings.threads.parsing.get() {
            let (rx, log) = (page_rx.clone(), Log(log_tx.clone()));
            let parser = workers.parser;
            let h = thread::Builder::new()
                .name(format!("parser-{i}"))
                .spawn_scoped(s, move || parse::run(ctx, parser, rx, log));
            handles.push(h.map_err(failed)?);
        }
        // Automatic downloaders (autoscale.rs), until the cap or the stop. With `DT1` the
        // loop's requests at once grow by the same rule (no threads: a number), and blocking
        // downloaders are added when tasks the loop passed on wait for one.
        let mut started = first;
        let stop = ctx.stop.receiver();
        let ticker = crossbeam_channel::tick(GROW_PERIOD);
        let mut cpu = cpu::CpuIdle::new();
        let can_grow =
            |started: usize| started < most || (evented.is_some() && loop_slots.get() < most);
        'grow: while can_grow(started) {
            select! {
                recv(ticker) -> _ => {
                    let wanted = ctx.dispatcher.take_demand();
                    // Measured every period, demand or not: the smoothing follows time.
                    let spare = cpu.spare();
                    let room = autoscale::headroom(ctx.dispatcher.request_room());
                    let threads_wanted = match evented {
                        Some(_) => !passed_rx.is_empty(),
                        None => wanted > 0,
                    };
                    if evented.is_some() && wanted > 0 && spare {
                        loop_slots.set(autoscale::grown(loop_slots.get(), room, most));
                    }
                    if threads_wanted && spare && autoscale::may_grow(started, room, most) {
                        let target = autoscale::grown(started, room, most);
                        while started < target {
                            match spawn_downloader(started) {
                                Ok(h) => handles.push(h),
                                // The machine gives no more threads: the crawl goes on with
                                // these.
                                Err(_) => break 'grow,
                            }
                            started += 1;
                        }
                    }
                    let at_once = match evented {
                        Some(_) => loop_slots.get() + started,
                        None => started,
                    };
                    ctx.dispatcher.set_downloaders(at_once);
                },
                recv(stop) -> _ => break,
            }
        }
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

//! `RT0`: the console routine — the only writer of the log files; every tick it writes the
//! log events waiting, asks the finishers whether to stop and prints the progress line;
//! Ctrl+C (forwarded by `main` as a channel message) stops the crawl like the stop file does.
//! It ends when every other thread has dropped its log sender.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, TryRecvError, never, select, tick};

use super::progress::{OpenedScopes, ProgressLine};
use super::status_page::{self, LIVE_MARKER, StatusPage};
use super::{LogFiles, Routine, RoutineIo};
use crate::context::Context;
use crate::finish::Tick;
use crate::message::LogEvent;
use crate::stop::StopReason;

/// How often finishers are checked and log events written (the progress line has its own
/// interval). Also the longest a finished crawl waits to be noticed.
const CHECK_INTERVAL: Duration = Duration::from_millis(20);

/// How often the status page's snapshot is renewed.
const PUBLISH_EVERY: Duration = Duration::from_millis(500);

/// The console routine.
#[derive(Debug, Clone, Copy, Default)]
pub struct ConsoleRoutine;

impl Routine for ConsoleRoutine {
    fn run(&self, ctx: &Context, io: RoutineIo<'_>) {
        run_routine(ctx, io);
    }
}

/// Says at once that the crawl stops, and what happens next.
fn announce_stop(ctx: &Context, reason: &StopReason, progress: &ProgressLine) {
    progress.println(&format!(
        "{reason} after {:.1} s: stopping — no new request starts; requests under way finish within {} s or are abandoned (fetched again next run); then the state and the results are saved",
        ctx.started.elapsed().as_secs_f64(),
        crate::stop::STOP_GRACE.as_secs()
    ));
}

/// Runs the routine thread until all log senders are gone.
fn run_routine(ctx: &Context, io: RoutineIo<'_>) {
    let page = ctx.settings.logs.status_address.and_then(|addr| {
        match StatusPage::bind(addr, &ctx.settings.results.folder) {
            Ok(page) => {
                eprintln!(
                    "status page: {} (and {}status.json)",
                    page.url(),
                    page.url()
                );
                // Where `rccrawler status` finds the running crawl: nothing is lost without it.
                let marker = ctx.settings.results.folder.join(LIVE_MARKER);
                let _ = std::fs::write(marker, page.url());
                Some(page)
            }
            Err(e) => {
                eprintln!("warning: cannot serve the status page on {addr}: {e}");
                None
            }
        }
    });
    std::thread::scope(|s| {
        if let Some(page) = &page {
            // The first snapshot before the first request: a page asked for before the first
            // tick would otherwise say nothing about the crawl (no state, no sites).
            let mut scopes = OpenedScopes::new(ctx, io.scopes);
            page.publish(status_page::snapshot(ctx, &mut scopes, 0));
            let spawned = std::thread::Builder::new()
                .name("status-page".into())
                .spawn_scoped(s, || page.serve());
            if let Err(e) = spawned {
                eprintln!("warning: cannot serve the status page: {e}");
            }
        }
        ticks(ctx, io, page.as_ref());
        if let Some(page) = &page {
            page.stop();
            let _ = std::fs::remove_file(ctx.settings.results.folder.join(LIVE_MARKER));
        }
    });
}

/// The routine's loop: log events, finishers, progress, the status page.
fn ticks(ctx: &Context, io: RoutineIo<'_>, page: Option<&StatusPage>) {
    let RoutineIo {
        events,
        ctrl_c,
        mut finishers,
        logs,
        scopes,
        opened,
    } = io;
    let ticker = tick(CHECK_INTERVAL);
    // Scopes a shared store hands out while the crawl runs join the progress line.
    let mut scopes = OpenedScopes::new(ctx, scopes);
    let mut ctrl_c = ctrl_c;
    let mut progress = ProgressLine::new(ctx.settings.logs.progress_interval);
    let mut published = Instant::now() - PUBLISH_EVERY;
    let mut writer = EventWriter {
        logs,
        name: String::new(),
        io_failed: false,
    };
    loop {
        // Events are drained on each tick rather than received one by one: a thread asleep
        // on the channel would have to be woken for every request of every downloader.
        select! {
            recv(ticker) -> _ => {
                if !writer.drain(ctx, &events, &mut progress) {
                    break;
                }
                for more in opened.try_iter() {
                    scopes.extend(ctx, more);
                }
                if !ctx.stop.is_requested() {
                    let t = Tick {
                        now: Instant::now(),
                        pending: ctx.pending(),
                        robots_pending: ctx.dispatcher.robots_pending(),
                        budget: ctx.dispatcher.budget(),
                    };
                    if let Some(reason) = finishers.iter_mut().find_map(|f| f.check(&t)) {
                        if !reason.is_complete() {
                            announce_stop(ctx, &reason, &progress);
                        }
                        ctx.stop.request(reason);
                    }
                    progress.maybe_print(ctx, &mut scopes);
                    if let Some(page) = page
                        && published.elapsed() >= PUBLISH_EVERY
                    {
                        published = Instant::now();
                        page.publish(status_page::snapshot(ctx, &mut scopes, progress.problems));
                    }
                }
            },
            recv(ctrl_c) -> msg => {
                if msg.is_err() {
                    // Nobody can send Ctrl+C any more; stop listening.
                    ctrl_c = never();
                } else if !ctx.stop.is_requested() {
                    announce_stop(ctx, &StopReason::Interrupted, &progress);
                    ctx.stop.request(StopReason::Interrupted);
                }
            },
        }
    }
    progress.finish();
    if let Err(e) = writer.logs.flush() {
        eprintln!("cannot write the log files: {e}");
    }
}

/// Writes log events to the log files.
struct EventWriter {
    logs: LogFiles,
    /// The site name of the request being written. Written anew each time rather than kept
    /// per site: a crawl of thousands of sites would keep every name to its end (SPEC §11).
    name: String,
    io_failed: bool,
}

impl EventWriter {
    /// Writes every event waiting; false once every sender is gone.
    fn drain(
        &mut self,
        ctx: &Context,
        events: &Receiver<LogEvent>,
        progress: &mut ProgressLine,
    ) -> bool {
        loop {
            match events.try_recv() {
                Ok(ev) => self.write(ctx, &ev, progress),
                Err(TryRecvError::Empty) => return true,
                Err(TryRecvError::Disconnected) => return false,
            }
        }
    }

    fn write(&mut self, ctx: &Context, ev: &LogEvent, progress: &mut ProgressLine) {
        let r = match ev {
            LogEvent::Request {
                site,
                url,
                status,
                bytes,
                elapsed,
                set_cookie,
            } => {
                self.name.clear();
                let _ = write!(self.name, "{}", ctx.sites.get(*site).origin);
                let name = &self.name;
                let ms = elapsed.as_millis();
                if ctx.settings.logs.display_common_log {
                    progress.println(&format!(
                        "{name} {} {status} {bytes} B {ms} ms",
                        url.as_str()
                    ));
                }
                self.logs
                    .request(name, url.as_str(), *status, *bytes, ms, set_cookie)
            }
            LogEvent::Problem { site, url, what } => {
                progress.problems += 1;
                if ctx.settings.logs.display_error_log {
                    progress.println(&format!("problem: {site} {url}: {what}"));
                }
                self.logs.problem(site, url, what)
            }
            LogEvent::Note { text } => {
                progress.println(text);
                Ok(())
            }
        };
        if let Err(e) = r
            && !self.io_failed
        {
            self.io_failed = true;
            progress.println(&format!(
                "cannot write the log files {:?}: {e}",
                self.logs.paths()
            ));
        }
    }
}

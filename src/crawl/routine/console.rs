//! `RT0`: the console routine — the only writer of the log files; every tick it writes the
//! log events waiting, asks the finishers whether to stop and prints the progress line;
//! Ctrl+C (forwarded by `main` as a channel message) stops the crawl like the stop file does.
//! It ends when every other thread has dropped its log sender.

use std::fmt::Write as _;
use std::time::Duration;

use crossbeam_channel::{Receiver, TryRecvError, never, select, tick};

use super::progress::ProgressLine;
use super::{LogFiles, Routine, RoutineIo};
use crate::base::stop::StopReason;
use crate::crawl::live::CrawlView;
use crate::crawl::live::tally::OpenedScopes;
use crate::crawl::message::LogEvent;

/// How often finishers are checked and log events written (the progress line has its own
/// interval). Also the longest a finished crawl waits to be noticed.
const CHECK_INTERVAL: Duration = Duration::from_millis(20);

/// The console routine.
#[derive(Debug, Clone, Copy, Default)]
pub struct ConsoleRoutine;

impl Routine for ConsoleRoutine {
    fn run(&self, crawl: &dyn CrawlView, io: RoutineIo<'_>) {
        ticks(crawl, io);
    }
}

/// Says at once that the crawl stops, and what happens next.
fn announce_stop(crawl: &dyn CrawlView, reason: &StopReason, progress: &ProgressLine) {
    progress.println(&format!(
        "{reason} after {:.1} s: stopping — no new request starts; requests under way finish within {} s or are abandoned (fetched again next run); then the state and the results are saved",
        crawl.started().elapsed().as_secs_f64(),
        crate::base::stop::STOP_GRACE.as_secs()
    ));
}

/// The routine's loop, until all log senders are gone: log events, finishers, progress.
fn ticks(crawl: &dyn CrawlView, io: RoutineIo<'_>) {
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
    let mut scopes = OpenedScopes::new(crawl, scopes);
    let mut ctrl_c = ctrl_c;
    let mut progress = ProgressLine::new(crawl.settings().logs.progress_interval);
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
                if !writer.drain(crawl, &events, &mut progress) {
                    break;
                }
                for more in opened.try_iter() {
                    scopes.extend(crawl, more);
                }
                if !crawl.stop().is_requested() {
                    let t = crawl.tick();
                    if let Some(reason) = finishers.iter_mut().find_map(|f| f.check(&t)) {
                        if !reason.is_complete() {
                            announce_stop(crawl, &reason, &progress);
                        }
                        crawl.stop().request(reason);
                    }
                    progress.maybe_print(crawl, &mut scopes);
                }
            },
            recv(ctrl_c) -> msg => {
                if msg.is_err() {
                    // Nobody can send Ctrl+C any more; stop listening.
                    ctrl_c = never();
                } else if !crawl.stop().is_requested() {
                    announce_stop(crawl, &StopReason::Interrupted, &progress);
                    crawl.stop().request(StopReason::Interrupted);
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
        crawl: &dyn CrawlView,
        events: &Receiver<LogEvent>,
        progress: &mut ProgressLine,
    ) -> bool {
        loop {
            match events.try_recv() {
                Ok(ev) => self.write(crawl, &ev, progress),
                Err(TryRecvError::Empty) => return true,
                Err(TryRecvError::Disconnected) => return false,
            }
        }
    }

    fn write(&mut self, crawl: &dyn CrawlView, ev: &LogEvent, progress: &mut ProgressLine) {
        let r = match ev {
            LogEvent::Request {
                site,
                url,
                status,
                bytes,
                elapsed,
                at,
                set_cookie,
            } => {
                self.name.clear();
                let _ = write!(self.name, "{}", crawl.origin(*site));
                let name = &self.name;
                let ms = elapsed.as_millis();
                if crawl.settings().logs.display_common_log {
                    progress.println(&format!(
                        "{name} {} {status} {bytes} B {ms} ms",
                        url.as_str()
                    ));
                }
                self.logs
                    .request(name, url.as_str(), *status, *bytes, (*at, ms), set_cookie)
            }
            LogEvent::Problem { site, url, what } => {
                if crawl.settings().logs.display_error_log {
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

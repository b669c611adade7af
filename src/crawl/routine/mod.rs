//! The routine thread (the paper's RoutineThread): the [`Routine`] component and its
//! implementation `RT0` ([`ConsoleRoutine`]): log files ([`logs`]), the progress line, the
//! finishers, and Ctrl+C. It sees the crawl through a [`CrawlView`].

mod console;
pub mod logs;
mod progress;

use std::fmt::Debug;

use crossbeam_channel::Receiver;

pub(crate) use crate::crawl::live::tally::short_duration;
pub use console::ConsoleRoutine;
pub use logs::LogFiles;

use crate::base::ids::ScopeId;
use crate::crawl::finish::Finisher;
use crate::crawl::live::CrawlView;
use crate::crawl::message::LogEvent;

/// What the engine hands the routine thread.
#[derive(Debug)]
pub struct RoutineIo<'a> {
    /// Every worker's log events; disconnected once all workers have ended.
    pub events: Receiver<LogEvent>,
    /// One message per Ctrl+C (or SIGTERM/SIGHUP); never disconnects while it can send.
    pub ctrl_c: Receiver<()>,
    /// The finishers settings.ini names, already started.
    pub finishers: Vec<Box<dyn Finisher>>,
    /// The open log files; the routine thread is their only writer.
    pub logs: LogFiles,
    /// The crawled scopes with their names, for the progress line.
    pub scopes: &'a [(ScopeId, String)],
    /// Scopes the engine opened while the crawl runs, with their names.
    pub opened: Receiver<Vec<(ScopeId, String)>>,
}

/// The `RoutineThread` component. The engine runs it once, on its own thread named
/// `routine`, for the whole crawl. It must: write the log events; ask the finishers, often
/// (the engine waits for it to notice that the work is done), with [`CrawlView::tick`], and
/// request the stop on [`CrawlView::stop`] with the first reason one gives; request
/// [`Interrupted`] on Ctrl+C; and return once `events` is disconnected (every other thread
/// has ended), after writing what is left. Opening scopes, topping up a shared page budget
/// and publishing the status page are the engine's: a routine need not know of them.
///
/// [`Interrupted`]: crate::base::stop::StopReason::Interrupted
pub trait Routine: Send + Sync + Debug {
    /// Runs until every other thread of the crawl has ended.
    fn run(&self, crawl: &dyn CrawlView, io: RoutineIo<'_>);
}

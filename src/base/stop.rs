//! The one way a crawl stops: [`Stop::request`]. It records the first reason, drops a channel
//! sender (so every `select!` on [`Stop::receiver`] wakes: a disconnected channel never
//! blocks) and runs the registered wakers (condition variables). Shared by every thread.

use std::fmt;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use parking_lot::Mutex;

/// How long requests under way may still finish once the crawl stops (SPEC §8: a stop acts
/// within a second). Later, they are abandoned and their URLs fetched again by the next run.
pub const STOP_GRACE: Duration = Duration::from_secs(1);

/// Why the crawl stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    /// `WorkIsDoneAF`: nothing left to fetch.
    WorkDone,
    /// `TimeoutAF`.
    Timeout,
    /// `StopFileAF`: the stop file appeared.
    StopFile,
    /// `PageBudgetAF`: the page budget is spent.
    BudgetSpent,
    /// Ctrl+C, SIGTERM or SIGHUP.
    Interrupted,
    /// A worker thread panicked (a bug); state and results are still written.
    WorkerPanicked,
    /// A runtime failure that makes going on pointless (e.g. the data structures are full).
    Failed(String),
}

impl StopReason {
    /// Whether the crawl finished (as opposed to being stopped before the end).
    pub fn is_complete(&self) -> bool {
        matches!(self, StopReason::WorkDone)
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopReason::WorkDone => f.write_str("work is done"),
            StopReason::Timeout => f.write_str("timeout"),
            StopReason::StopFile => f.write_str("stop file"),
            StopReason::BudgetSpent => f.write_str("page budget spent"),
            StopReason::Interrupted => f.write_str("interrupted"),
            StopReason::WorkerPanicked => f.write_str("a worker thread panicked"),
            StopReason::Failed(why) => write!(f, "failure: {why}"),
        }
    }
}

type Waker = Box<dyn Fn() + Send + Sync>;

/// The shutdown broadcast.
pub struct Stop {
    reason: OnceLock<StopReason>,
    /// When the first reason came.
    at: OnceLock<Instant>,
    sender: Mutex<Option<Sender<()>>>,
    receiver: Receiver<()>,
    wakers: Mutex<Vec<Waker>>,
}

impl fmt::Debug for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stop")
            .field("reason", &self.reason.get())
            .finish()
    }
}

impl Default for Stop {
    fn default() -> Self {
        Self::new()
    }
}

impl Stop {
    /// Not stopped yet.
    pub fn new() -> Self {
        let (sender, receiver) = crossbeam_channel::bounded(0);
        Stop {
            reason: OnceLock::new(),
            at: OnceLock::new(),
            sender: Mutex::new(Some(sender)),
            receiver,
            wakers: Mutex::new(Vec::new()),
        }
    }

    /// Asks everyone to stop. Only the first reason is kept.
    pub fn request(&self, reason: StopReason) {
        if self.reason.set(reason).is_ok() {
            let _ = self.at.set(Instant::now());
            self.sender.lock().take();
            for wake in self.wakers.lock().iter() {
                wake();
            }
        }
    }

    /// Whether a stop was requested.
    pub fn is_requested(&self) -> bool {
        self.reason.get().is_some()
    }

    /// The reason, once requested.
    pub fn reason(&self) -> Option<StopReason> {
        self.reason.get().cloned()
    }

    /// How long after `start` the stop was requested, once it was.
    pub fn requested_after(&self, start: Instant) -> Option<std::time::Duration> {
        self.at.get().map(|at| at.saturating_duration_since(start))
    }

    /// A receiver that becomes ready (disconnected) when the stop is requested.
    pub fn receiver(&self) -> Receiver<()> {
        self.receiver.clone()
    }

    /// Runs `wake` when the stop is requested (or now, if it already was).
    pub fn on_request(&self, wake: impl Fn() + Send + Sync + 'static) {
        let mut wakers = self.wakers.lock();
        if self.is_requested() {
            wake();
        }
        wakers.push(Box::new(wake));
    }
}

/// Requests a stop when dropped during a panic, so one panicking worker stops the others
/// and the crawl still saves its results (ripgrep's worker guard).
#[derive(Debug)]
pub struct PanicGuard<'a>(pub &'a Stop);

impl Drop for PanicGuard<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.request(StopReason::WorkerPanicked);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_reason_wins_and_receivers_wake() {
        let stop = Stop::new();
        let rx = stop.receiver();
        assert!(rx.try_recv().is_err() && !stop.is_requested());
        let hits = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let h = hits.clone();
        stop.on_request(move || {
            h.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        });
        stop.request(StopReason::StopFile);
        stop.request(StopReason::Timeout);
        assert_eq!(stop.reason(), Some(StopReason::StopFile));
        assert!(matches!(rx.recv(), Err(crossbeam_channel::RecvError)));
        assert_eq!(hits.load(std::sync::atomic::Ordering::SeqCst), 1);
    }

    #[test]
    fn panic_guard_requests_stop() {
        let stop = Stop::new();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _g = PanicGuard(&stop);
            panic!("boom");
        }));
        assert!(r.is_err());
        assert_eq!(stop.reason(), Some(StopReason::WorkerPanicked));
    }
}

//! Finishers (the paper's ApplicationFinisher): each looks at the crawl's state on every tick
//! of the routine thread and may ask it to stop. Time is passed in, so tests need no sleeping.

mod page_budget;
mod stop_file;
mod timeout;
mod work_is_done;

use std::fmt::Debug;
use std::path::PathBuf;
use std::time::Instant;

use thiserror::Error;

pub use page_budget::PageBudget;
pub use stop_file::StopFile;
pub use timeout::Timeout;
pub use work_is_done::WorkIsDone;

use crate::base::stop::StopReason;

/// A finisher could not get ready (its file could not be removed).
#[derive(Debug, Error)]
#[error("cannot remove the leftover stop file {}: {source}", path.display())]
pub struct FinisherError {
    /// The file.
    pub path: PathBuf,
    /// Why.
    #[source]
    pub source: std::io::Error,
}

/// What finishers see.
#[derive(Debug, Clone, Copy)]
pub struct Tick {
    /// Now.
    pub now: Instant,
    /// URLs queued or in flight.
    pub pending: usize,
    /// Sites still waiting for robots.txt, counted when nothing is `pending` (0 otherwise: only
    /// the end of the work needs it).
    pub robots_pending: usize,
    /// The page budget as (spent, under way, limit), when there is one.
    pub budget: Option<(u64, u64, u64)>,
}

/// A condition that ends the crawl. The routine thread owns the finishers: `start` is called
/// once before any worker starts, then `check` on every tick until one answers.
pub trait Finisher: Send + Debug {
    /// The run starts at `started` (deadlines count from here; leftovers are cleared).
    fn start(&mut self, _started: Instant) -> Result<(), FinisherError> {
        Ok(())
    }
    /// `Some(reason)` when the crawl should stop now.
    fn check(&mut self, tick: &Tick) -> Option<StopReason>;
}

//! Finishers (the paper's ApplicationFinisher): each looks at the crawl's state on every tick
//! of the routine thread and may ask it to stop. Time is passed in, so tests need no sleeping.

mod stop_file;
mod timeout;
mod work_is_done;

use std::fmt::Debug;
use std::time::Instant;

pub use stop_file::StopFile;
pub use timeout::Timeout;
pub use work_is_done::WorkIsDone;

use crate::settings::Settings;
use crate::settings::registry::FinisherKind;
use crate::stop::StopReason;

/// What finishers see.
#[derive(Debug, Clone, Copy)]
pub struct Tick {
    /// Now.
    pub now: Instant,
    /// URLs queued or in flight.
    pub pending: usize,
    /// Sites still waiting for robots.txt.
    pub robots_pending: usize,
}

/// A condition that ends the crawl.
pub trait Finisher: Send + Debug {
    /// `Some(reason)` when the crawl should stop now.
    fn check(&mut self, tick: &Tick) -> Option<StopReason>;
}

/// Builds the finishers named in settings; `started` is when the run began.
pub fn finishers_for(settings: &Settings, started: Instant) -> Vec<Box<dyn Finisher>> {
    settings
        .finishers
        .iter()
        .map(|kind| -> Box<dyn Finisher> {
            match kind {
                FinisherKind::WorkIsDone => Box::new(WorkIsDone),
                FinisherKind::Timeout => Box::new(Timeout::new(started, settings.timeout)),
                FinisherKind::StopFile => Box::new(StopFile::new(settings.stop_file.clone())),
            }
        })
        .collect()
}

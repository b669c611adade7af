//! `StopFileAF`: stops when the stop file appears. A stop file left over from an earlier run
//! is removed when a run starts (with a console line), so it cannot stop the new run at once.

use std::path::PathBuf;

use std::time::Instant;

use super::{Finisher, FinisherError, Tick};
use crate::base::stop::StopReason;

/// Watches for a file.
#[derive(Debug, Clone)]
pub struct StopFile {
    path: PathBuf,
}

impl StopFile {
    /// Watches `path`.
    pub fn new(path: PathBuf) -> Self {
        StopFile { path }
    }
}

impl Finisher for StopFile {
    fn start(&mut self, _started: Instant) -> Result<(), FinisherError> {
        if self.path.exists() {
            std::fs::remove_file(&self.path).map_err(|source| FinisherError {
                path: self.path.clone(),
                source,
            })?;
            eprintln!(
                "removed the stop file {} left over from an earlier run",
                self.path.display()
            );
        }
        Ok(())
    }

    fn check(&mut self, _tick: &Tick) -> Option<StopReason> {
        self.path.exists().then_some(StopReason::StopFile)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fires_when_the_file_exists() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("stop.txt");
        let mut f = StopFile::new(path.clone());
        let t = Tick {
            now: Instant::now(),
            pending: 1,
            robots_pending: 0,
            budget: None,
        };
        assert_eq!(f.check(&t), None);
        std::fs::write(&path, "").unwrap();
        assert_eq!(f.check(&t), Some(StopReason::StopFile));
        f.start(Instant::now()).unwrap();
        assert!(!path.exists(), "a leftover stop file is removed at start");
        assert_eq!(f.check(&t), None);
    }
}

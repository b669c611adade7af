//! `StopFileAF`: stops when the stop file appears. A stop file left over from an earlier run
//! is removed when a run starts (with a console line), so it cannot stop the new run at once.

use std::path::PathBuf;

use super::{Finisher, Tick};
use crate::stop::StopReason;

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
    fn check(&mut self, _tick: &Tick) -> Option<StopReason> {
        self.path.exists().then_some(StopReason::StopFile)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn fires_when_the_file_exists() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("stop.txt");
        let mut f = StopFile::new(path.clone());
        let t = Tick {
            now: Instant::now(),
            pending: 1,
            robots_pending: 0,
        };
        assert_eq!(f.check(&t), None);
        std::fs::write(&path, "").unwrap();
        assert_eq!(f.check(&t), Some(StopReason::StopFile));
    }
}

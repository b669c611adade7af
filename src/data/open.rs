//! Opening the in-memory data manager for a run: with `SaveState = 1` the state folder is
//! locked and what it holds is recovered (a finished crawl is replaced by a fresh one, a torn
//! journal tail is cut off), with what happened said on the console.

use std::path::PathBuf;
use std::sync::Arc;

use thiserror::Error;

use super::{DataError, DataManager, InMemoryDataManager};
use crate::settings::Settings;
use crate::storage::{Recovered, StateError, StateStore};

/// The saved state cannot be used.
#[derive(Debug, Error)]
pub enum OpenError {
    /// The state folder cannot be opened or read.
    #[error(transparent)]
    State(#[from] StateError),
    /// The saved state does not fit together.
    #[error("{}: {source}; move the state folder away to start afresh", dir.display())]
    Recover {
        /// The state folder.
        dir: PathBuf,
        /// What is wrong.
        #[source]
        source: DataError,
    },
}

impl InMemoryDataManager {
    /// The data manager for a run with `settings`, the saved state recovered when
    /// `SaveState = 1`.
    pub fn open(settings: &Settings) -> Result<Arc<dyn DataManager>, OpenError> {
        if !settings.save_state {
            return Ok(Arc::new(InMemoryDataManager::new()));
        }
        let dir = &settings.state_folder;
        let (mut store, mut recovered) = StateStore::open(dir)?;
        if recovered.finished {
            eprintln!(
                "the crawl saved in {} had finished: starting a fresh crawl",
                dir.display()
            );
            store.wipe()?;
            recovered = Recovered {
                fresh: true,
                ..Recovered::default()
            };
        }
        let fresh = recovered.fresh;
        if recovered.dropped_bytes > 0 {
            eprintln!(
                "{}: the last {} bytes of the journal were unfinished or damaged (the crawl was killed); \
                 they were cut off and that work is done again",
                dir.display(),
                recovered.dropped_bytes
            );
        }
        let dm = InMemoryDataManager::with_state(store, recovered).map_err(|source| {
            OpenError::Recover {
                dir: dir.clone(),
                source,
            }
        })?;
        if !fresh {
            let (mut pages, mut pending) = (0, 0);
            for info in dm.scopes() {
                let p = dm.progress(info.id);
                pages += p.pages;
                pending += p.pending;
            }
            eprintln!(
                "continuing the crawl saved in {}: {pages} pages recorded, {pending} URLs still to fetch",
                dir.display()
            );
        }
        Ok(Arc::new(dm))
    }
}

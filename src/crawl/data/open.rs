//! Which data layer settings.ini's `DataManager` names, opened for a crawl ([`open_in_memory`]
//! for `BMICDM`, [`open_pg`] for `PgDM`), and a saved crawl read without changing it
//! ([`SavedCrawl`], for `rccrawler export`).

use std::num::NonZeroUsize;
use std::sync::Arc;

use super::coord::{self, Coordinator, Solo};
use super::parking::AUTO_SCOPES_IN_MEMORY;
use super::persist::{FileStore, NoStore, Persistence, SavedScope};
use super::{DataError, DataManager, InMemoryDataManager, PersistError, ScopeData, TaskData, pg};
use crate::base::ids::ScopeId;
use crate::crawl::settings::Settings;
use crate::model::site::Origin;

/// A scope could not be opened: claiming it or loading it failed.
#[derive(Debug, thiserror::Error)]
pub enum OpenScopeError {
    /// Claiming it for this process failed.
    #[error(transparent)]
    Claim(#[from] coord::CoordError),
    /// Its data could not be loaded or started.
    #[error(transparent)]
    Data(#[from] DataError),
}

/// The data manager and the coordinator settings.ini's `DataManager` chose.
#[derive(Debug, Clone)]
pub struct DataLayer {
    /// The scopes' data.
    pub data: Arc<dyn DataManager>,
    /// How the crawl is shared between processes.
    pub coordinator: Arc<dyn Coordinator>,
}

/// `BMICDM`: the in-memory data manager over the state folder (`SaveState = 1`, the saved
/// state recovered and what was found said on the console) or over nothing, for one process.
pub fn open_in_memory(settings: &Settings) -> Result<DataLayer, DataError> {
    let store: Box<dyn Persistence> = if settings.state.save {
        Box::new(FileStore::open(&settings.state.folder)?)
    } else {
        Box::new(NoStore)
    };
    let dm = InMemoryDataManager::with_store_keeping(store, scopes_in_memory(settings))?;
    let saved = dm.scopes();
    if !saved.is_empty() {
        let (mut pages, mut pending) = (0, 0);
        for info in &saved {
            let p = dm.progress(info.id);
            pages += p.pages;
            pending += p.pending;
        }
        eprintln!(
            "continuing the crawl saved in {}: {} recorded, {} still to fetch",
            settings.state.folder.display(),
            crate::base::words::count(pages as u64, "page"),
            crate::base::words::count(pending as u64, "URL")
        );
    }
    Ok(DataLayer {
        data: Arc::new(dm),
        coordinator: Arc::new(Solo),
    })
}

/// A crawl's saved scopes, held to be read (`rccrawler export`): each as its snapshot and
/// journal say.
#[derive(Debug)]
pub struct SavedCrawl {
    /// The scopes' data.
    pub data: InMemoryDataManager,
    /// The scopes held, with their seed origins, in saved order.
    pub scopes: Vec<(ScopeId, Origin)>,
    /// Names asked for that matched no saved scope.
    pub unmatched: Vec<String>,
    /// The saved crawl had finished (its results were written at its end).
    pub finished: bool,
}

/// Whether `wanted` (a seed origin, its host, or its results folder name) names the scope of
/// seed `origin`.
pub fn names_scope(origin: &Origin, wanted: &str) -> bool {
    let wanted = wanted.trim_end_matches('/');
    origin.to_string() == wanted || origin.host() == wanted || origin.folder_name() == wanted
}

impl SavedCrawl {
    /// Holds the `saved` scopes whose seeds `which` names (all when empty).
    pub fn hold(saved: &[SavedScope], which: &[String], finished: bool) -> Result<Self, DataError> {
        let data = InMemoryDataManager::new();
        let mut scopes = Vec::new();
        let mut matched = vec![false; which.len()];
        for s in saved {
            let (id, origin) = data.hold_saved(s)?;
            let hits: Vec<usize> = (0..which.len())
                .filter(|&i| names_scope(&origin, &which[i]))
                .collect();
            for &i in &hits {
                matched[i] = true;
            }
            if which.is_empty() || !hits.is_empty() {
                scopes.push((id, origin));
            }
        }
        let unmatched = which
            .iter()
            .zip(&matched)
            .filter(|(_, m)| !**m)
            .map(|(w, _)| w.clone())
            .collect();
        Ok(SavedCrawl {
            data,
            scopes,
            unmatched,
            finished,
        })
    }
}

/// `BMICDM`'s saved crawl, read from the state folder without changing it.
pub fn read_state_folder(settings: &Settings, which: &[String]) -> Result<SavedCrawl, DataError> {
    let (saved, finished) = FileStore::read_saved(&settings.state.folder)?;
    SavedCrawl::hold(&saved, which, finished)
}

/// `PgDM`'s saved crawl, read from the database (every scope as its snapshot and journal
/// say, whoever crawls it now).
pub fn read_database(settings: &Settings, which: &[String]) -> Result<SavedCrawl, DataError> {
    let saved = pg::read_saved(settings).map_err(PersistError::from)?;
    SavedCrawl::hold(&saved, which, false)
}

/// `ScopesInMemory` (0: [`AUTO_SCOPES_IN_MEMORY`]).
fn scopes_in_memory(settings: &Settings) -> usize {
    settings
        .threads
        .scopes_in_memory
        .map_or(AUTO_SCOPES_IN_MEMORY, NonZeroUsize::get)
}

/// `PgDM`: the in-memory data manager over the crawl's PostgreSQL database, shared with the
/// other processes of the crawl.
pub fn open_pg(settings: &Settings) -> Result<DataLayer, DataError> {
    let (store, coordinator) = pg::open(settings).map_err(PersistError::from)?;
    Ok(DataLayer {
        data: Arc::new(InMemoryDataManager::with_store_keeping(
            Box::new(store),
            scopes_in_memory(settings),
        )?),
        coordinator: Arc::new(coordinator),
    })
}

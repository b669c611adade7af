//! The state folder as a [`Persistence`] backend (`BMICDM` with `SaveState = 1`): one journal
//! for every scope, appended every 100 ms and fsynced every second, and a snapshot of every
//! scope every `CheckpointSeconds` (see `storage` for the files). Opening it locks the folder
//! and recovers what it holds: a finished crawl is replaced by a fresh one, a torn journal
//! tail is cut off, with what happened said on the console.

use std::path::{Path, PathBuf};

use parking_lot::Mutex;

use super::{Persistence, SavedScope, ScopeSource};
use crate::data::journal::split_scope;
use crate::data::scope::replay::added_scope;
use crate::data::{CrawlStatus, DataError, Persist, PersistError};
use crate::storage::codec::Reader;
use crate::storage::frames::{frame, frames};
use crate::storage::{Recovered, StateStore};

/// The state folder, open and locked.
#[derive(Debug)]
pub struct FileStore {
    dir: PathBuf,
    store: Mutex<StateStore>,
    /// What the folder held when it was opened, until the data manager takes it.
    recovered: Mutex<Option<Recovered>>,
}

impl FileStore {
    /// Opens (creating) the state folder `dir`, takes its lock and recovers what it holds.
    pub fn open(dir: &Path) -> Result<Self, PersistError> {
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
        if recovered.dropped_bytes > 0 {
            eprintln!(
                "{}: the last {} bytes of the journal were unfinished or damaged (the crawl was killed); \
                 they were cut off and that work is done again",
                dir.display(),
                recovered.dropped_bytes
            );
        }
        Ok(FileStore {
            dir: dir.to_owned(),
            store: Mutex::new(store),
            recovered: Mutex::new(Some(recovered)),
        })
    }

    /// The state folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Reads what the state folder `dir` holds without changing it (locking it meanwhile):
    /// every saved scope, and whether the saved crawl had finished (a finished crawl keeps
    /// no scopes: its results were written). For `rccrawler export`.
    pub fn read_saved(dir: &Path) -> Result<(Vec<SavedScope>, bool), PersistError> {
        if !dir.join("lock").exists() {
            return Err(PersistError::Files(crate::storage::StateError::Io {
                path: dir.to_owned(),
                source: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "no saved crawl here (StateFolder)",
                ),
            }));
        }
        let (_store, recovered) = StateStore::open(dir)?;
        let scopes = split_scopes(&recovered).map_err(|source| PersistError::Recover {
            dir: dir.to_owned(),
            source: Box::new(source),
        })?;
        Ok((scopes, recovered.finished))
    }

    fn recover_error(&self, source: DataError) -> PersistError {
        PersistError::Recover {
            dir: self.dir.clone(),
            source: Box::new(source),
        }
    }
}

/// Splits what a state folder held into its scopes: snapshot blob `i` is scope `i`, journal
/// records are framed with their scope's number, and a scope created after the snapshot
/// starts with its creating record (numbers given in creation order).
pub(crate) fn split_scopes(recovered: &Recovered) -> Result<Vec<SavedScope>, DataError> {
    let mut scopes: Vec<SavedScope> = Vec::with_capacity(recovered.scopes.len());
    for blob in &recovered.scopes {
        // A scope blob starts with its number.
        if Reader::new(blob).var32()? as usize != scopes.len() {
            return Err(DataError::inconsistent("snapshot scopes out of order"));
        }
        scopes.push(SavedScope {
            snapshot: Some(blob.clone()),
            journal: Vec::new(),
        });
    }
    for payload in frames(&recovered.journal) {
        let (index, entries) = split_scope(payload)?;
        let index = index as usize;
        if added_scope(entries)?.is_some() {
            if index != scopes.len() {
                return Err(DataError::inconsistent(format!(
                    "journal: scope {index} created out of order"
                )));
            }
            scopes.push(SavedScope::default());
        }
        let scope = scopes
            .get_mut(index)
            .ok_or_else(|| DataError::inconsistent(format!("journal: unknown scope {index}")))?;
        frame(&mut scope.journal, index as u32, entries);
    }
    Ok(scopes)
}

impl Persistence for FileStore {
    fn recovered(&self) -> Result<Vec<SavedScope>, PersistError> {
        let Some(recovered) = self.recovered.lock().take() else {
            return Ok(Vec::new());
        };
        split_scopes(&recovered).map_err(|e| self.recover_error(e))
    }

    fn save(&self, scopes: &dyn ScopeSource, how: Persist) -> Result<(), PersistError> {
        let ids = scopes.scope_ids();
        let mut store = self.store.lock();
        let mut records = Vec::new();
        let status = match how {
            Persist::Journal(durability) => {
                for &id in &ids {
                    scopes.take_journal(id, &mut records);
                }
                store.append(&records)?;
                return Ok(store.flush(durability)?);
            }
            Persist::Checkpoint(status) => status,
        };
        // A finished crawl keeps no data: the next run starts afresh anyway.
        let finished = status == CrawlStatus::Finished;
        let count = if finished { 0 } else { ids.len() as u64 };
        let mut snapshot = store.begin_snapshot(finished, count)?;
        for &id in &ids {
            if finished {
                scopes.take_journal(id, &mut records);
            } else {
                snapshot.add_scope(|w| scopes.write_snapshot(id, w, &mut records))?;
            }
        }
        Ok(store.finish_snapshot(snapshot, &records)?)
    }
}

//! The state folder as a [`Persistence`] backend (`BMICDM` with `SaveState = 1`): one journal
//! for every scope, appended every 100 ms and fsynced every second, and a snapshot of every
//! scope every `CheckpointSeconds` (see `storage` for the files). Opening it locks the folder
//! and recovers what it holds: a finished crawl is replaced by a fresh one, a torn journal
//! tail is cut off, with what happened said on the console.
//!
//! A scope written and released (SPEC §11) keeps its data in a file of its own,
//! `scopes/<n>.bin` (framed: length and CRC), and a retirement record in the journal; in
//! snapshots it is that record. A finished one is not loaded again; an unfinished one (its site
//! was suspended) is loaded from its file by the next run, which continues it.
//!
//! A snapshot holds one blob per scope, in scope order: a kind byte, then the scope's data
//! ([`LIVE`]) or its retirement record ([`RETIRED`]).

use std::path::{Path, PathBuf};

use parking_lot::Mutex;

use super::{Persistence, SavedScope, ScopeSource};
use crate::base::ids::ScopeId;
use crate::base::storage::codec::Reader;
use crate::base::storage::frames::{frame, frames, write_framed_file};
use crate::base::storage::{Durability, Recovered, StateError, StateStore};
use crate::crawl::data::journal::{retired_record, revived_record, split_scope};
use crate::crawl::data::scope::reapply::{added_scope, retired_scope, revived_scope};
use crate::crawl::data::{CrawlStatus, DataError, Persist, PersistError, RetiredScope};

/// A snapshot blob holding a scope's data.
const LIVE: u8 = 0;
/// A snapshot blob holding a retired scope's record.
const RETIRED: u8 = 1;

/// The folder of retired scopes' data.
const SCOPES: &str = "scopes";

/// The state folder, open and locked.
#[derive(Debug)]
pub struct FileStore {
    dir: PathBuf,
    store: Mutex<StateStore>,
    /// What the folder held when it was opened, until the data manager takes it.
    recovered: Mutex<Option<Recovered>>,
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> PersistError + '_ {
    move |source| {
        PersistError::Files(StateError::Io {
            path: path.to_owned(),
            source,
        })
    }
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
            remove_scope_files(dir)?;
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
    /// every saved scope with its data (retired ones' from their files), and whether the saved
    /// crawl had finished (its results were written; a state of an earlier version keeps no
    /// scopes then). For `rccrawler export`.
    pub fn read_saved(dir: &Path) -> Result<(Vec<SavedScope>, bool), PersistError> {
        if !dir.join("lock").exists() {
            return Err(PersistError::Files(StateError::Io {
                path: dir.to_owned(),
                source: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "no saved crawl here (StateFolder)",
                ),
            }));
        }
        let (_store, recovered) = StateStore::open(dir)?;
        let scopes = split_scopes(&recovered).map_err(|e| recover_error(dir, e))?;
        let scopes = scopes
            .into_iter()
            .map(|s| match s.retired {
                Some(r) => load_retired(dir, &r),
                None => Ok(s),
            })
            .collect::<Result<_, _>>()?;
        Ok((scopes, recovered.finished))
    }
}

fn recover_error(dir: &Path, source: DataError) -> PersistError {
    PersistError::Recover {
        dir: dir.to_owned(),
        source: Box::new(source),
    }
}

/// The file of retired scope `index`.
fn scope_file(dir: &Path, index: u32) -> PathBuf {
    dir.join(SCOPES).join(format!("{index}.bin"))
}

/// A retired scope's data, read back from its file (to continue it, or to export it).
fn load_retired(dir: &Path, r: &RetiredScope) -> Result<SavedScope, PersistError> {
    let path = scope_file(dir, r.index);
    let bytes = std::fs::read(&path).map_err(io_error(&path))?;
    let payloads: Vec<&[u8]> = frames(&bytes).collect();
    let [data] = payloads[..] else {
        return Err(PersistError::Files(StateError::Corrupt {
            path,
            what: "not one whole framed scope".into(),
        }));
    };
    let (_, blob) = split_scope(data).map_err(|e| recover_error(dir, e.into()))?;
    Ok(SavedScope {
        snapshot: Some(blob.to_vec()),
        journal: Vec::new(),
        retired: None,
    })
}

/// Deletes every retired scope's file (a finished crawl keeps no data).
fn remove_scope_files(dir: &Path) -> Result<(), PersistError> {
    let scopes = dir.join(SCOPES);
    match std::fs::remove_dir_all(&scopes) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_error(&scopes)(e)),
    }
}

/// Splits what a state folder held into its scopes: snapshot blob `i` is scope `i`, journal
/// records are framed with their scope's number, a scope created after the snapshot starts
/// with its creating record (numbers given in creation order), and a retirement record
/// replaces what its scope held.
pub(crate) fn split_scopes(recovered: &Recovered) -> Result<Vec<SavedScope>, DataError> {
    let mut scopes: Vec<SavedScope> = Vec::with_capacity(recovered.scopes.len());
    for blob in &recovered.scopes {
        let (&kind, rest) = blob
            .split_first()
            .ok_or_else(|| DataError::inconsistent("an empty scope blob"))?;
        let mut r = Reader::new(rest);
        let saved = match kind {
            LIVE => {
                // A scope's data starts with its number.
                if r.var32()? as usize != scopes.len() {
                    return Err(DataError::inconsistent("snapshot scopes out of order"));
                }
                SavedScope {
                    snapshot: Some(rest.to_vec()),
                    ..SavedScope::default()
                }
            }
            RETIRED => {
                let retired = RetiredScope::read(&mut r)?;
                if retired.index as usize != scopes.len() {
                    return Err(DataError::inconsistent("snapshot scopes out of order"));
                }
                SavedScope {
                    retired: Some(retired),
                    ..SavedScope::default()
                }
            }
            _ => return Err(DataError::inconsistent("an unknown kind of scope blob")),
        };
        scopes.push(saved);
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
        if let Some(data) = revived_scope(entries)? {
            if scope.retired.as_ref().is_none_or(|r| r.finished) {
                return Err(DataError::inconsistent(format!(
                    "journal: scope {index} revived, but it was not retired unfinished"
                )));
            }
            *scope = SavedScope {
                snapshot: Some(data.to_vec()),
                ..SavedScope::default()
            };
            continue;
        }
        if let Some(retired) = retired_scope(entries)? {
            *scope = SavedScope {
                retired: Some(retired),
                ..SavedScope::default()
            };
            continue;
        }
        if scope.retired.is_some() {
            return Err(DataError::inconsistent(format!(
                "journal: records of scope {index} after it was retired"
            )));
        }
        frame(&mut scope.journal, index as u32, entries);
    }
    Ok(scopes)
}

impl Persistence for FileStore {
    fn recovered(&self) -> Result<Vec<SavedScope>, PersistError> {
        let Some(recovered) = self.recovered.lock().take() else {
            return Ok(Vec::new());
        };
        let scopes = split_scopes(&recovered).map_err(|e| recover_error(&self.dir, e))?;
        // An unfinished retired scope (its site was suspended) is crawled again: from its file,
        // and from now on from a copy of its data in the journal, which the records this run
        // commits for it follow. Without the copy, a run killed before its first snapshot left
        // records after the retirement (a state that no longer opened), and the scope's next
        // retirement replaces the file those records would apply to.
        // One record at a time: no second copy of every revived scope's data at once.
        let mut store = self.store.lock();
        let mut record = Vec::new();
        let scopes = scopes
            .into_iter()
            .map(|s| match &s.retired {
                Some(r) if !r.finished => {
                    let saved = load_retired(&self.dir, r)?;
                    if let Some(data) = &saved.snapshot {
                        record.clear();
                        revived_record(&mut record, r.index, data);
                        store.append(&record)?;
                    }
                    Ok(saved)
                }
                _ => Ok(s),
            })
            .collect::<Result<Vec<_>, PersistError>>()?;
        store.flush(Durability::Process)?;
        Ok(scopes)
    }

    fn save(&self, scopes: &dyn ScopeSource, how: Persist) -> Result<(), PersistError> {
        let mut store = self.store.lock();
        let mut records = Vec::new();
        let status = match how {
            Persist::Journal(durability) => {
                for id in scopes.scope_ids() {
                    scopes.take_journal(id, &mut records);
                }
                store.append(&records)?;
                return Ok(store.flush(durability)?);
            }
            Persist::Checkpoint(status) => status,
        };
        // A finished crawl keeps its data, marked finished, until the next run starts afresh
        // (`FileStore::open` wipes it then): `rccrawler export` writes its results again from
        // it meanwhile. Its scopes are retired, their data in files already, so this costs a
        // few bytes a scope.
        let finished = status == CrawlStatus::Finished;
        let mut snapshot = store.begin_snapshot(finished, scopes.slot_count() as u64)?;
        for i in 0..scopes.slot_count() {
            let id = ScopeId(i as u32);
            let retired = scopes.retired(id);
            snapshot.add_scope(|w| match &retired {
                Some(r) => {
                    let mut bytes = vec![RETIRED];
                    r.put(&mut bytes);
                    w.write_all(&bytes)
                }
                None => {
                    w.write_all(&[LIVE])?;
                    scopes.write_snapshot(id, w, &mut records)
                }
            })?;
        }
        store.finish_snapshot(snapshot, &records)?;
        Ok(())
    }

    fn write_retired_data(
        &self,
        scopes: &dyn ScopeSource,
        scope: ScopeId,
        index: u32,
    ) -> Result<bool, PersistError> {
        // Streamed to its file (see `write_framed_file`), which replaces an earlier one only
        // whole: a stray file of a crash here is overwritten when the scope retires.
        let path = scope_file(&self.dir, index);
        write_framed_file(&path, index, |w| scopes.write_data(scope, w))
            .map_err(io_error(&path))?;
        Ok(true)
    }

    fn retire(
        &self,
        scopes: &dyn ScopeSource,
        scope: ScopeId,
        retired: &RetiredScope,
        data_written: bool,
    ) -> Result<(), PersistError> {
        // The scope's data into a file of its own (unless `write_retired_data` wrote it), and
        // the records it replaces taken: they go to the journal before the retirement record.
        // So do every other scope's records, in scope order: a scope created since the last
        // flush must be created in the journal before any later one.
        let path = scope_file(&self.dir, retired.index);
        let mut records = Vec::new();
        for id in scopes.scope_ids() {
            if id == scope && !data_written {
                write_framed_file(&path, retired.index, |w| {
                    scopes.write_snapshot(scope, w, &mut records)
                })
                .map_err(io_error(&path))?;
            } else {
                scopes.take_journal(id, &mut records);
            }
        }
        retired_record(&mut records, retired);
        let mut store = self.store.lock();
        store.append(&records)?;
        Ok(store.flush(Durability::Process)?)
    }
}

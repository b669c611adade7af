//! The open state folder: its lock, the current generation's journal (appended, flushed,
//! fsynced) and the switch to the next generation when a snapshot is complete.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};

use std::path::{Path, PathBuf};

use super::files::{SnapshotWriter, new_journal, read_snapshot, recover_journal};
use super::{Durability, StateError, io_err, sync_dir};

/// What was found in the folder.
#[derive(Debug, Default)]
pub struct Recovered {
    /// The snapshot's scope blobs, in order.
    pub scopes: Vec<Vec<u8>>,
    /// The journal's valid records (framed), to re-apply after the snapshot.
    pub journal: Vec<u8>,
    /// The saved crawl had finished.
    pub finished: bool,
    /// Bytes of a torn or damaged journal tail that were cut off.
    pub dropped_bytes: u64,
    /// Nothing was saved before.
    pub fresh: bool,
    /// The generation the files belong to.
    pub generation: u64,
}

/// The open state folder.
#[derive(Debug)]
pub struct StateStore {
    dir: PathBuf,
    _lock: File,
    generation: u64,
    journal: BufWriter<File>,
    journal_path: PathBuf,
}

fn gen_of(name: &str, prefix: &str) -> Option<u64> {
    name.strip_prefix(prefix)?
        .strip_suffix(".bin")?
        .parse()
        .ok()
}

/// Whether another running crawl holds the state folder `dir` (its lock is taken). Asked
/// before anything else is checked, so that a second crawl in a folder says so first; a
/// folder without a lock file is free. (The lock is taken for real by [`StateStore::open`].)
pub fn held_by_another(dir: &Path) -> bool {
    let Ok(lock) = OpenOptions::new().write(true).open(dir.join("lock")) else {
        return false;
    };
    matches!(lock.try_lock(), Err(std::fs::TryLockError::WouldBlock))
}

impl StateStore {
    /// Opens (creating) the folder, takes its lock and recovers what it holds.
    pub fn open(dir: &Path) -> Result<(StateStore, Recovered), StateError> {
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        let lock_path = dir.join("lock");
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io_err(&lock_path))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(StateError::Locked { path: lock_path });
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(StateError::Io {
                    path: lock_path,
                    source: e,
                });
            }
        }
        let mut snapshots = Vec::new();
        let mut journals = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(io_err(dir))? {
            let name = entry
                .map_err(io_err(dir))?
                .file_name()
                .to_string_lossy()
                .into_owned();
            if let Some(g) = gen_of(&name, "snapshot-") {
                snapshots.push(g);
            } else if let Some(g) = gen_of(&name, "journal-") {
                journals.push(g);
            }
        }
        let generation = snapshots.iter().copied().max().unwrap_or(0);
        let mut rec = Recovered {
            generation,
            fresh: snapshots.is_empty() && journals.is_empty(),
            ..Default::default()
        };
        if snapshots.contains(&generation) {
            let path = dir.join(format!("snapshot-{generation}.bin"));
            let (scopes, finished) = read_snapshot(&path, generation)?;
            rec.scopes = scopes;
            rec.finished = finished;
        }
        let journal_path = dir.join(format!("journal-{generation}.bin"));
        let journal = if journals.contains(&generation) {
            let (file, valid, dropped) = recover_journal(&journal_path, generation)?;
            rec.journal = valid;
            rec.dropped_bytes = dropped;
            file
        } else {
            new_journal(&journal_path, generation)?
        };
        // Files of other generations, and unfinished snapshots, are leftovers of an
        // interrupted switch.
        for entry in std::fs::read_dir(dir)
            .map_err(io_err(dir))?
            .filter_map(Result::ok)
        {
            if entry.file_name().to_string_lossy().starts_with(".tmp-") {
                let p = entry.path();
                std::fs::remove_file(&p).map_err(io_err(&p))?;
            }
        }
        for g in snapshots
            .iter()
            .chain(&journals)
            .filter(|&&g| g != generation)
        {
            for name in [format!("snapshot-{g}.bin"), format!("journal-{g}.bin")] {
                let p = dir.join(name);
                if p.exists() {
                    std::fs::remove_file(&p).map_err(io_err(&p))?;
                }
            }
        }
        let store = StateStore {
            dir: dir.to_owned(),
            _lock: lock,
            generation,
            journal: BufWriter::with_capacity(1 << 20, journal),
            journal_path,
        };
        Ok((store, rec))
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Appends framed records to the journal (buffered).
    pub fn append(&mut self, records: &[u8]) -> Result<(), StateError> {
        self.journal
            .write_all(records)
            .map_err(io_err(&self.journal_path))
    }

    /// Hands buffered records to the operating system, or on to the disk.
    pub fn flush(&mut self, how: Durability) -> Result<(), StateError> {
        self.journal.flush().map_err(io_err(&self.journal_path))?;
        if how == Durability::Disk {
            self.journal
                .get_ref()
                .sync_data()
                .map_err(io_err(&self.journal_path))?;
        }
        Ok(())
    }

    /// Starts writing the snapshot of the next generation (into a temporary file) with room
    /// for `scopes` scope blobs. Nothing changes until [`StateStore::finish_snapshot`].
    pub fn begin_snapshot(
        &self,
        finished: bool,
        scopes: u64,
    ) -> Result<SnapshotWriter, StateError> {
        let next = self.generation + 1;
        let path = self.dir.join(format!(".tmp-snapshot-{next}.bin"));
        SnapshotWriter::create(path, next, finished, scopes)
    }

    /// Makes the snapshot the state: `pending` journal records (what was committed before the
    /// scopes were written) are appended and fsynced first, then the snapshot is fsynced and
    /// renamed into place, then the next journal starts and the old generation is deleted.
    pub fn finish_snapshot(
        &mut self,
        snapshot: SnapshotWriter,
        pending: &[u8],
    ) -> Result<(), StateError> {
        self.append(pending)?;
        self.flush(Durability::Disk)?;
        let next = self.generation + 1;
        let snap_path = self.dir.join(format!("snapshot-{next}.bin"));
        snapshot.complete(&snap_path)?;
        sync_dir(&self.dir).map_err(io_err(&self.dir))?;
        // The new snapshot is durable: start its journal, then drop the old generation.
        let journal_path = self.dir.join(format!("journal-{next}.bin"));
        let file = new_journal(&journal_path, next)?;
        let old = self.generation;
        self.journal = BufWriter::with_capacity(1 << 20, file);
        self.journal_path = journal_path;
        self.generation = next;
        for name in [format!("journal-{old}.bin"), format!("snapshot-{old}.bin")] {
            let p = self.dir.join(name);
            match std::fs::remove_file(&p) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(StateError::Io { path: p, source: e }),
            }
        }
        sync_dir(&self.dir).map_err(io_err(&self.dir))
    }

    /// Deletes the saved state and starts empty (the saved crawl had finished).
    pub fn wipe(&mut self) -> Result<(), StateError> {
        let gen_files: Vec<PathBuf> = std::fs::read_dir(&self.dir)
            .map_err(io_err(&self.dir))?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                    gen_of(n, "snapshot-").is_some() || gen_of(n, "journal-").is_some()
                })
            })
            .collect();
        for p in gen_files {
            std::fs::remove_file(&p).map_err(io_err(&p))?;
        }
        self.generation = 0;
        self.journal_path = self.dir.join("journal-0.bin");
        self.journal = BufWriter::with_capacity(1 << 20, new_journal(&self.journal_path, 0)?);
        sync_dir(&self.dir).map_err(io_err(&self.dir))
    }
}

#[cfg(test)]
mod tests {
    use super::super::files::JOURNAL_HEADER;
    use super::*;

    fn record(scope: u32, body: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        crate::base::storage::frames::frame(&mut out, scope, body);
        out
    }

    #[test]
    fn journal_survives_reopen_and_loses_only_a_torn_tail() {
        let dir = tempfile::tempdir().unwrap();
        let (r1, r2) = (record(0, b"first"), record(0, b"second"));
        {
            let (mut s, rec) = StateStore::open(dir.path()).unwrap();
            assert!(rec.fresh);
            s.append(&r1).unwrap();
            s.append(&r2).unwrap();
            s.flush(Durability::Disk).unwrap();
        }
        let path = dir.path().join("journal-0.bin");
        let len = std::fs::metadata(&path).unwrap().len();
        // Tear the last record.
        let f = OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(len - 3).unwrap();
        let (_, rec) = StateStore::open(dir.path()).unwrap();
        assert_eq!(rec.journal, r1);
        assert_eq!(rec.dropped_bytes, r2.len() as u64 - 3);
        assert_eq!(
            std::fs::metadata(&path).unwrap().len(),
            (JOURNAL_HEADER + r1.len()) as u64,
            "the tail is cut off"
        );
    }

    #[test]
    fn checkpoint_replaces_generation_and_a_damaged_snapshot_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        {
            let (mut s, _) = StateStore::open(dir.path()).unwrap();
            s.append(&record(0, b"x")).unwrap();
            let mut snap = s.begin_snapshot(false, 2).unwrap();
            snap.add_scope(|w| w.write_all(b"scope zero")).unwrap();
            snap.add_scope(|w| w.write_all(b"scope one")).unwrap();
            s.finish_snapshot(snap, &record(0, b"pending")).unwrap();
            s.append(&record(1, b"after")).unwrap();
            s.flush(Durability::Process).unwrap();
        }
        let names: std::collections::BTreeSet<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(
            names,
            ["journal-1.bin", "lock", "snapshot-1.bin"]
                .iter()
                .map(|s| s.to_string())
                .collect()
        );
        {
            // An abandoned snapshot leaves nothing behind.
            let (s, _) = StateStore::open(dir.path()).unwrap();
            drop(s.begin_snapshot(false, 1).unwrap());
        }
        {
            let (_, rec) = StateStore::open(dir.path()).unwrap();
            assert_eq!(
                rec.scopes,
                vec![b"scope zero".to_vec(), b"scope one".to_vec()]
            );
            assert_eq!(rec.journal, record(1, b"after"));
            assert!(!rec.finished);
        }
        let snap = dir.path().join("snapshot-1.bin");
        let mut bytes = std::fs::read(&snap).unwrap();
        let n = bytes.len();
        bytes[n - 2] ^= 0xff;
        std::fs::write(&snap, &bytes).unwrap();
        let err = StateStore::open(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("snapshot-1.bin is damaged (checksum mismatch)"),
            "{err}"
        );
        std::fs::write(&snap, &bytes[..n / 2]).unwrap();
        let err = StateStore::open(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("snapshot-1.bin is damaged (truncated)"),
            "{err}"
        );
    }

    #[test]
    fn other_versions_and_concurrent_use_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = StateStore::open(dir.path()).unwrap();
        assert!(matches!(
            StateStore::open(dir.path()),
            Err(StateError::Locked { .. })
        ));
        drop(store);
        let path = dir.path().join("journal-0.bin");
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[8] = 99;
        std::fs::write(&path, &bytes).unwrap();
        let err = StateStore::open(dir.path()).unwrap_err();
        assert!(
            matches!(err, StateError::Version { found: 99, .. }),
            "{err}"
        );
    }
}

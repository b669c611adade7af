//! The saved crawl state (SPEC §8) as files: what survives a stop, a `kill -9` or a power cut.
//!
//! ```text
//! StateFolder/
//!   lock               held (flock) by the running crawl: two crawls cannot share a folder
//!   snapshot-G.bin     the compacted state when generation G began (none for G = 0)
//!   journal-G.bin      records committed since: appended, flushed every 100 ms, fsynced every second
//! ```
//!
//! A snapshot is written to a temporary file, fsynced and renamed into place; only then does
//! generation G+1 start and the files of G go. Whatever moment a crash hits, the folder holds
//! one usable (snapshot, journal) pair. Journal records are length- and CRC-framed: a torn or
//! damaged tail is detected, reported and cut off — never read as data. A damaged snapshot is
//! an error naming the file. Both files start with a magic string and the format version.
//!
//! This module moves bytes; `data` decides what they mean.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use thiserror::Error;

mod saver;

pub use saver::{FLUSH_INTERVAL, SYNC_INTERVAL, run_state_saver};

use crate::data::journal_frames;
use crate::unload::sync_dir;

/// The format of both files. Bump it when their meaning changes.
pub const FORMAT_VERSION: u32 = 1;
const JOURNAL_MAGIC: &[u8; 8] = b"RCCJRNL\n";
const SNAPSHOT_MAGIC: &[u8; 8] = b"RCCSNAP\n";
/// magic + version + generation.
const JOURNAL_HEADER: usize = 8 + 4 + 8;

/// The state folder cannot be used.
#[derive(Debug, Error)]
pub enum StateError {
    /// A file operation failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// Another crawl holds the folder.
    #[error("{} is in use by another running rccrawler (or its lock is stuck); wait for it or use another StateFolder", path.display())]
    Locked {
        /// The lock file.
        path: PathBuf,
    },
    /// Written by an incompatible version.
    #[error("{} was written in state format {found}; this rccrawler reads format {FORMAT_VERSION}. Finish that crawl with the matching rccrawler, or move the state folder away to start afresh", path.display())]
    Version {
        /// The file.
        path: PathBuf,
        /// Its format.
        found: u32,
    },
    /// A snapshot is damaged.
    #[error("{} is damaged ({what}); the saved crawl cannot be continued from it. Move the state folder away to start afresh", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> StateError + '_ {
    move |source| StateError::Io {
        path: path.to_owned(),
        source,
    }
}

/// What was found in the folder.
#[derive(Debug, Default)]
pub struct Recovered {
    /// The snapshot's scope blobs, in order.
    pub scopes: Vec<Vec<u8>>,
    /// The journal's valid records (framed), to replay after the snapshot.
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

    /// Hands buffered records to the operating system (they survive a `kill -9`), and with
    /// `sync` to the disk (they survive a power cut).
    pub fn flush(&mut self, sync: bool) -> Result<(), StateError> {
        self.journal.flush().map_err(io_err(&self.journal_path))?;
        if sync {
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
        let file = OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(true)
            .open(&path)
            .map_err(io_err(&path))?;
        let mut w = BufWriter::with_capacity(1 << 20, file);
        let mut header = Vec::with_capacity(29);
        header.extend_from_slice(SNAPSHOT_MAGIC);
        header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        header.extend_from_slice(&next.to_le_bytes());
        header.push(u8::from(finished));
        header.extend_from_slice(&scopes.to_le_bytes());
        w.write_all(&header).map_err(io_err(&path))?;
        Ok(SnapshotWriter {
            path,
            w,
            pos: header.len() as u64,
            blobs: Vec::new(),
            expected: scopes,
        })
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
        self.flush(true)?;
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

/// A snapshot being written; see [`StateStore::begin_snapshot`].
#[derive(Debug)]
pub struct SnapshotWriter {
    path: PathBuf,
    w: BufWriter<File>,
    pos: u64,
    /// (offset of the blob's length field, length, crc) of each scope written.
    blobs: Vec<(u64, u64, u32)>,
    expected: u64,
}

/// Counts and checksums what passes through.
struct Tally<'a> {
    w: &'a mut BufWriter<File>,
    len: u64,
    crc: crc32fast::Hasher,
}

impl Write for Tally<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.w.write(buf)?;
        self.len += n as u64;
        self.crc.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

impl SnapshotWriter {
    /// Appends one scope, streamed by `write`.
    pub fn add_scope(
        &mut self,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), StateError> {
        let at = self.pos;
        // Length and checksum are filled in by `complete`.
        self.w.write_all(&[0; 12]).map_err(io_err(&self.path))?;
        let mut tally = Tally {
            w: &mut self.w,
            len: 0,
            crc: crc32fast::Hasher::new(),
        };
        write(&mut tally).map_err(io_err(&self.path))?;
        let (len, crc) = (tally.len, tally.crc.finalize());
        self.pos += 12 + len;
        self.blobs.push((at, len, crc));
        Ok(())
    }

    fn complete(mut self, to: &Path) -> Result<(), StateError> {
        let path = self.path.clone();
        if self.blobs.len() as u64 != self.expected {
            return Err(StateError::Corrupt {
                path,
                what: "scope count changed while writing".into(),
            });
        }
        self.w.flush().map_err(io_err(&path))?;
        let file = self.w.get_mut();
        for &(at, len, crc) in &self.blobs {
            file.seek(SeekFrom::Start(at)).map_err(io_err(&path))?;
            let mut field = [0u8; 12];
            field[..8].copy_from_slice(&len.to_le_bytes());
            field[8..].copy_from_slice(&crc.to_le_bytes());
            file.write_all(&field).map_err(io_err(&path))?;
        }
        file.sync_all().map_err(io_err(&path))?;
        std::fs::rename(&path, to).map_err(io_err(to))
    }
}

impl Drop for SnapshotWriter {
    fn drop(&mut self) {
        // Abandoned (or already renamed, when this finds nothing): leave no temp file.
        let _ = std::fs::remove_file(&self.path);
    }
}

fn new_journal(path: &Path, generation: u64) -> Result<File, StateError> {
    let mut f = OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(true)
        .open(path)
        .map_err(io_err(path))?;
    let mut header = Vec::with_capacity(JOURNAL_HEADER);
    header.extend_from_slice(JOURNAL_MAGIC);
    header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    header.extend_from_slice(&generation.to_le_bytes());
    f.write_all(&header).map_err(io_err(path))?;
    f.sync_all().map_err(io_err(path))?;
    if let Some(dir) = path.parent() {
        sync_dir(dir).map_err(io_err(dir))?;
    }
    Ok(f)
}

fn check_header(
    path: &Path,
    bytes: &[u8],
    magic: &[u8; 8],
    generation: u64,
) -> Result<(), StateError> {
    let corrupt = |what: &str| StateError::Corrupt {
        path: path.to_owned(),
        what: what.to_owned(),
    };
    if bytes.len() < 20 || &bytes[..8] != magic {
        return Err(corrupt("not an rccrawler state file"));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().map_err(|_| corrupt("header"))?);
    if version != FORMAT_VERSION {
        return Err(StateError::Version {
            path: path.to_owned(),
            found: version,
        });
    }
    let g = u64::from_le_bytes(bytes[12..20].try_into().map_err(|_| corrupt("header"))?);
    if g != generation {
        return Err(corrupt("generation does not match the file name"));
    }
    Ok(())
}

fn read_snapshot(path: &Path, generation: u64) -> Result<(Vec<Vec<u8>>, bool), StateError> {
    let bytes = std::fs::read(path).map_err(io_err(path))?;
    check_header(path, &bytes, SNAPSHOT_MAGIC, generation)?;
    let corrupt = |what: &str| StateError::Corrupt {
        path: path.to_owned(),
        what: what.to_owned(),
    };
    let mut pos = 20;
    let mut take = |n: usize| -> Result<&[u8], StateError> {
        let end = pos + n;
        let s = bytes.get(pos..end).ok_or_else(|| corrupt("truncated"))?;
        pos = end;
        Ok(s)
    };
    let finished = take(1)?[0] != 0;
    let count = u64::from_le_bytes(take(8)?.try_into().map_err(|_| corrupt("truncated"))?);
    let mut scopes = Vec::new();
    for _ in 0..count {
        let len = u64::from_le_bytes(take(8)?.try_into().map_err(|_| corrupt("truncated"))?);
        let crc = u32::from_le_bytes(take(4)?.try_into().map_err(|_| corrupt("truncated"))?);
        let len = usize::try_from(len).map_err(|_| corrupt("scope too large"))?;
        let blob = take(len)?;
        if crc32fast::hash(blob) != crc {
            return Err(corrupt("checksum mismatch"));
        }
        scopes.push(blob.to_vec());
    }
    if pos != bytes.len() {
        return Err(corrupt("trailing bytes"));
    }
    Ok((scopes, finished))
}

/// Reads a journal, cuts off a torn or damaged tail, and returns the file positioned for
/// appending, the valid records and the number of bytes dropped.
fn recover_journal(path: &Path, generation: u64) -> Result<(File, Vec<u8>, u64), StateError> {
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(io_err(path))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(io_err(path))?;
    if bytes.len() < JOURNAL_HEADER {
        // Created but its header never reached the disk: nothing was journaled in it.
        drop(file);
        let f = new_journal(path, generation)?;
        return Ok((f, Vec::new(), bytes.len() as u64));
    }
    check_header(path, &bytes, JOURNAL_MAGIC, generation)?;
    let valid = journal_frames::valid_prefix(&bytes[JOURNAL_HEADER..]);
    let end = JOURNAL_HEADER + valid;
    let dropped = (bytes.len() - end) as u64;
    if dropped > 0 {
        file.set_len(end as u64).map_err(io_err(path))?;
        file.sync_all().map_err(io_err(path))?;
    }
    file.seek(SeekFrom::Start(end as u64))
        .map_err(io_err(path))?;
    bytes.truncate(end);
    Ok((file, bytes.split_off(JOURNAL_HEADER), dropped))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(scope: u32, body: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        crate::data::journal_frames::frame(&mut out, scope, body);
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
            s.flush(true).unwrap();
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
            s.flush(false).unwrap();
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

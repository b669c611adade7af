//! The two file formats of the state folder. Both start with a magic string, the format
//! version and the generation; a snapshot then holds the crawl-finished flag and scope blobs
//! (each with its length and CRC-32), a journal holds framed records.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::frames::Tally;
use super::{FORMAT_VERSION, StateError, frames, io_err, sync_dir};

pub(super) const JOURNAL_MAGIC: &[u8; 8] = b"RCCJRNL\n";
pub(super) const SNAPSHOT_MAGIC: &[u8; 8] = b"RCCSNAP\n";
/// magic + version + generation.
pub(super) const JOURNAL_HEADER: usize = 8 + 4 + 8;

/// A snapshot being written; see [`StateStore::begin_snapshot`](super::StateStore::begin_snapshot).
#[derive(Debug)]
pub struct SnapshotWriter {
    path: PathBuf,
    w: BufWriter<File>,
    pos: u64,
    /// (offset of the blob's length field, length, crc) of each scope written.
    blobs: Vec<(u64, u64, u32)>,
    expected: u64,
}

impl SnapshotWriter {
    /// Starts the snapshot of generation `generation` in the temporary file `path`, with room
    /// for `scopes` scope blobs.
    pub(super) fn create(
        path: PathBuf,
        generation: u64,
        finished: bool,
        scopes: u64,
    ) -> Result<Self, StateError> {
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
        header.extend_from_slice(&generation.to_le_bytes());
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

    /// Appends one scope, streamed by `write`.
    pub fn add_scope(
        &mut self,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), StateError> {
        let at = self.pos;
        // Length and checksum are filled in by `complete`.
        self.w.write_all(&[0; 12]).map_err(io_err(&self.path))?;
        // Buffered before the tally, which then checksums whole chunks rather than each
        // varint (see `write_framed_file`).
        let mut buffered = BufWriter::with_capacity(
            64 * 1024,
            Tally {
                w: &mut self.w,
                len: 0,
                crc: crc32fast::Hasher::new(),
            },
        );
        write(&mut buffered).map_err(io_err(&self.path))?;
        let tally = buffered
            .into_inner()
            .map_err(|e| e.into_error())
            .map_err(io_err(&self.path))?;
        let (len, crc) = (tally.len, tally.crc.finalize());
        self.pos += 12 + len;
        self.blobs.push((at, len, crc));
        Ok(())
    }

    pub(super) fn complete(mut self, to: &Path) -> Result<(), StateError> {
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

pub(super) fn new_journal(path: &Path, generation: u64) -> Result<File, StateError> {
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

pub(super) fn read_snapshot(
    path: &Path,
    generation: u64,
) -> Result<(Vec<Vec<u8>>, bool), StateError> {
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
pub(super) fn recover_journal(
    path: &Path,
    generation: u64,
) -> Result<(File, Vec<u8>, u64), StateError> {
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
    let valid = frames::valid_prefix(&bytes[JOURNAL_HEADER..]);
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

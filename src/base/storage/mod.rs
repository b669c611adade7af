//! Byte-level persistence: the files that let a crawl survive a stop, a `kill -9` or a power
//! cut, and the atomic writes of result files. This module moves bytes and makes them durable;
//! what the bytes mean (journal records, scope snapshots) is decided by `data`.
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
//! one usable (snapshot, journal) pair. Journal records are length- and CRC-framed
//! ([`frames`]): a torn or damaged tail is detected, reported and cut off — never read as
//! data. A damaged snapshot is an error naming the file. Both files start with a magic string
//! and the format version.
//!
//! - [`codec`] — varints, fixed integers and byte strings, decoded without panics.
//! - [`frames`] — journal record framing (length + CRC-32).
//! - [`store`] — the state folder: lock, generations, journal appends, snapshot switch.
//! - `files` — the two file formats (headers, snapshot blobs, journal recovery).
//! - [`atomic`] — temp file + fsync + rename, and folder syncs.
//! - [`paths`] — names read from files kept inside their folder; output folders kept apart
//!   from inputs.
//! - [`sorted_lines`] — lines sorted in bounded memory (spilled runs merged).

pub mod atomic;
pub mod codec;
mod files;
pub mod frames;
pub mod paths;
pub mod sorted_lines;
pub mod store;

use std::io;
use std::path::{Path, PathBuf};

use thiserror::Error;

pub use atomic::{replace_file, sync_dir, write_atomic};
pub use files::SnapshotWriter;
pub use store::{Recovered, StateStore, held_by_another};

/// The format of both files. Bump it when their meaning changes.
pub const FORMAT_VERSION: u32 = 11;

/// How far [`StateStore::flush`] takes the records appended so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// To the operating system: they survive the process being killed.
    Process,
    /// To the disk: they survive a power cut.
    Disk,
}

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

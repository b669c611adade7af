//! WARC 1.1 archives (SPEC §15), the web archives' ISO format: the records of a crawl's
//! exchanges written as they arrive, read back, and indexed.
//!
//! - [`record`] — one record: its fields, block, digests (SHA-1, base32), and its bytes as a
//!   gzip member of its own;
//! - [`sha1_pair`] — a response's block and payload digests, two SHA-1 chains side by side;
//! - [`writer`] — an archive folder being written: files opened as `.open`, a `warcinfo`
//!   first, rotated at a size, a torn tail cut on continue, repeated payloads as `revisit`;
//! - [`read`] — a file read back record by record;
//! - [`side`] — each file's side index: its index lines and first payloads, read by a
//!   continued crawl instead of the file;
//! - [`cdxj`] — the folder's CDXJ index, sorted by SURT key;
//! - [`archived`] — an archive read back as the crawl's answers, URL by URL in the order they
//!   came (`rccrawler rebuild`);
//! - [`recorder`] — the crawl's archive as downloaders and parsers use it: answers captured
//!   when their heads arrive, archived once their bodies are read, a failed write stopping
//!   the crawl.

pub mod archived;
pub mod cdxj;
pub mod read;
pub mod record;
pub mod recorder;
pub mod sha1_pair;
pub mod side;
pub mod surt;
pub mod writer;

pub use recorder::{Archived, BodyRead, Capture, Recorder};

/// The archive folder's name in the results folder.
pub const ARCHIVE_FOLDER: &str = "archive";
pub use writer::{Archive, Exchange, PageFacts, WarcInfo};

#[cfg(test)]
mod tests;

//! WARC 1.1 archives (SPEC §15), the web archives' ISO format: the records of a crawl's
//! exchanges written as they arrive, read back, and indexed.
//!
//! - [`record`] — one record: its fields, block, digests (SHA-1, base32), and its bytes as a
//!   gzip member of its own;
//! - [`writer`] — an archive folder being written: files opened as `.open`, a `warcinfo`
//!   first, rotated at a size, a torn tail cut on continue, repeated payloads as `revisit`;
//! - [`read`] — a file read back record by record;
//! - [`cdxj`] — the folder's CDXJ index, sorted by SURT key.
//!
//! Not yet wired to the downloaders (issue 51 builds on this): no setting writes an archive.

pub mod cdxj;
pub mod read;
pub mod record;
pub mod writer;

pub use writer::{Archive, Exchange, PageFacts, WarcInfo};

#[cfg(test)]
mod tests;

//! Layer 3, `formats`: bytes other tools and people read and write.
//!
//! - [`warc`] — WARC 1.1 archives (SPEC §15): records, files, the CDXJ index, the crawl's archive
//!   as it is written, an archive read back (`rccrawler rebuild`).
//! - [`gexf`] — GEXF 1.3, the one writer of the three GEXF files (a site's graph, the network,
//!   compare's graph over time).
//! - [`gephi_csv`] — the two CSV dialects of the result files (Gephi's and RFC 4180).
//! - [`crawl_record`] — the settings and sites a results folder was crawled with, read back
//!   (crawl.ini, hosts.txt).
//! - [`setting_keys`] — settings.ini's key table: every key, its default, its kind, its doc.
//! - [`hosts`] — hosts.txt, validated before anything starts.
//! - [`pdf`] — a PDF's link annotations and text (`Documents = yes`, SPEC §19), with lopdf.

pub mod crawl_record;
pub(crate) mod gephi_csv;
pub(crate) mod gexf;
pub mod hosts;
pub mod pdf;
pub mod setting_keys;
pub mod warc;

//! Layer 4, `analysis`: results folders and graphs, never a running crawl.
//!
//! - [`report`] — report.html, read back from the result files.
//! - [`network`] — the network of sites (SPEC §13): targets, accompanying sites, their arcs, from
//!   the external links of a results folder.
//! - [`measures`] — PageRank and harmonic centrality of a graph (SPEC §17).
//! - [`compare`] — two or more crawls of the same sites compared (SPEC §16).

pub mod compare;
pub(crate) mod measures;
pub(crate) mod network;
pub(crate) mod report;

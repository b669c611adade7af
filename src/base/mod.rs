//! Layer 1, `base`: nothing about the web. Everything above may use it; it uses nothing above.
//!
//! - [`ids`] — ids of sites, scopes and URLs; [`utc`] — times as people and files read them.
//! - [`words`] — counts in the sentences people read (`1 scope`, `2 scopes`); [`xml`] — text in XML
//!   attributes (GEXF, SVG).
//! - [`parallel`] — work split over threads; [`alloc_tuning`] — the allocator's settings.
//! - [`best`] — the first few of many items in an order (the lists people read).
//! - [`stop`] — how threads are asked to stop, and see it.
//! - [`storage`] — bytes on disk: journal framing, snapshot files, fsync, atomic writes, paths read
//!   from files.
//! - [`loopback`] — a small HTTP server on 127.0.0.1 (the demo and the tests).
//! - [`fd_limits`] — open files: the automatic downloader cap and the idle connections; [`bodies`]
//!   — the page bodies held at once.

pub mod alloc_tuning;
pub(crate) mod best;
pub(crate) mod bodies;
pub(crate) mod fd_limits;
pub mod ids;
pub mod loopback;
pub(crate) mod parallel;
pub mod stop;
pub mod storage;
pub mod utc;
pub(crate) mod words;
pub(crate) mod xml;

//! Nothing about the web: ids, times, words, XML text, work split over threads, the stop, bytes on disk, a loopback HTTP server, the allocator's settings, open files, the page bodies held at once.

pub mod alloc_tuning;
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

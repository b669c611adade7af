//! Results folders and graphs, never a running crawl: the report, the network of sites, the measures, compare.

pub mod compare;
pub(crate) mod measures;
pub(crate) mod network;
pub(crate) mod report;

//! rccrawler crawls web sites into their exact web graphs — pages as nodes, internal links as
//! weighted arcs, breadth-first levels — and collects their external links with anchor texts
//! (the RCCrawler and BeeBot designs; see `../shared/SPEC.md`).
//!
//! # Layout
//!
//! One module per concern; the paper's component names (`TextFileAM`, `DT0`, …) appear only
//! in [`registry`], which maps them to the trait objects the engine runs. No two top-level
//! modules depend on each other in a circle (`tests/layers.rs` fails on one).
//!
//! - [`cli`] — the command line: arguments, loading the input files, exit codes, report.
//! - [`registry`] — component names → constructors (settings.ini chooses by name).
//! - [`app`] — the `ApplicationManager` component (`TextFileAM`): one run from start to end.
//! - [`engine`] — the threads of a crawl and the loops they run, what they share (its
//!   `Context`, seen by nothing else) and the status page it publishes; [`stop`] is how they
//!   stop.
//! - [`settings`], [`hosts`] — the two input files, validated before anything starts;
//!   [`setting_keys`] — settings.ini's key table (read by the crawl record too).
//! - [`ids`], [`site`], [`sites`] — ids; what a site is (scheme + host + port); the registry
//!   of this run's sites.
//! - [`schedule`] — the dispatcher (per-site politeness), task leases, and the schedulers.
//! - [`fetch`] — the `DownloadingThread` component (`DT0`): HTTP, redirects, robots.txt.
//! - [`parse`] — the `ParsingThread` component (`PT0`): charsets, link extraction.
//! - [`cookies`] — a site's cookie jar (`Cookies`, SPEC §14), saved with the crawl's state.
//! - [`fold`] — one page, one node (SPEC §14): a page's digests with what changes per
//!   response and its own address set aside, what a site changes (learned from a page fetched
//!   twice), the URL shapes that name why two URLs are one page.
//! - [`routine`] — the `RoutineThread` component (`RT0`): log files, progress, finishers.
//! - [`live`] — watching a running crawl: what it shows of itself (`CrawlView`), its scopes
//!   added up, the live status page.
//! - [`link_attrs`] — what links and pages say about themselves: `rel` qualifiers
//!   (`nofollow`, `ugc`, `sponsored`) and robots directives (SPEC §17).
//! - [`sitemap`] — what a site's sitemaps list, and one sitemap file read (SPEC §17).
//! - [`url_norm`], [`url_rules`], [`url_filter`], [`robots`], [`path_rules`] — what a link is
//!   and whether it is fetched (`path_rules`: hosts.txt's `include=`, `exclude=`, `pages=`).
//! - [`data`] — the `DataManager` (scope data, the exact graph), where scopes are saved
//!   (`Persistence`: none, the state folder, PostgreSQL) and how processes share a crawl
//!   (`Coordinator`); `BMICDM` and `PgDM` are two pairings of these.
//! - [`measures`] — PageRank and harmonic centrality of a site graph (SPEC §17).
//! - [`network`] — the network of sites (SPEC §13): targets, accompanying sites, their arcs,
//!   from the external links of a results folder.
//! - [`bandit`] — the budget rules (the BeeBot paper's R1–R3 and others), the oracle, replay.
//! - [`storage`] — bytes on disk: journal framing, snapshot files, fsync, atomic writes.
//! - [`finish`] — finishers; [`unload`] — result files (`GephiSiteGraphRU`, `TestRU`,
//!   summary); [`report`] — report.html, read back from the result files.
//! - [`warc`] — WARC 1.1 archives (SPEC §15): records, files, the CDXJ index, the crawl's
//!   archive as it is written, and an archive replayed (`rccrawler rebuild`).
//! - [`crawl_record`] — the settings and sites a results folder was crawled with;
//!   [`compare`] — two or more crawls of the same sites compared (SPEC §16).
//! - [`message`] — what travels between threads; [`bodies`] — the page bodies held at once.
//! - [`gephi_csv`] — the two CSV dialects of the result files (Gephi's and RFC 4180).
//! - [`xml`] — text in XML attributes (GEXF, SVG).
//! - [`words`] — counts in the sentences people read (`1 scope`, `2 scopes`); [`utc`] —
//!   times as people and files read them.
//! - [`fd_limits`] — open files: the automatic downloader cap and the idle connections.
//! - [`parallel`], [`alloc_tuning`] — work split over threads; the allocator's settings.
//! - [`loopback`], [`demo`] — a small HTTP server on 127.0.0.1 and the bundled demo site.
//!
//! Modules nothing outside the crate uses are `pub(crate)`, so that `unreachable_pub` finds
//! what is public for no reader. These docs are for the crate's developers: CI builds them
//! with `--document-private-items`, where the links above to crate-private modules resolve.

#![allow(rustdoc::private_intra_doc_links)]

pub mod base;
pub mod model;
pub mod formats;
pub mod analysis;
pub mod crawl;
pub mod face;

// Old paths, until the next commit moves every path.
pub use base::alloc_tuning;
pub(crate) use base::bodies;
pub(crate) use base::fd_limits;
pub use base::ids;
pub use base::loopback;
pub(crate) use base::parallel;
pub use base::stop;
pub use base::storage;
pub use base::utc;
pub(crate) use base::words;
pub(crate) use base::xml;
pub use model::bandit;
pub(crate) use model::cookies;
pub use model::fold;
pub use model::link_attrs;
pub(crate) use model::path_rules;
pub use model::robots;
pub use model::site;
pub(crate) use model::sites;
pub use model::sitemap;
pub(crate) use model::url_filter;
pub use model::url_norm;
pub(crate) use model::url_rules;
pub use formats::crawl_record;
pub(crate) use formats::gephi_csv;
pub use formats::hosts;
pub use formats::setting_keys;
pub use formats::warc;
pub use analysis::compare;
pub(crate) use analysis::measures;
pub(crate) use analysis::network;
pub(crate) use analysis::report;
pub use crawl::app;
pub use crawl::data;
pub(crate) use crawl::engine;
pub use crawl::fetch;
pub use crawl::finish;
pub use crawl::live;
pub use crawl::message;
pub use crawl::parse;
pub use crawl::routine;
pub use crawl::schedule;
pub use crawl::settings;
pub use crawl::unload;
pub use face::cli;
pub use face::demo;
pub use face::registry;

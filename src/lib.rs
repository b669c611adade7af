//! rccrawler crawls web sites into their exact web graphs — pages as nodes, internal links as
//! weighted arcs, breadth-first levels — and collects their external links with anchor texts
//! (the RCCrawler and BeeBot designs; see `../shared/SPEC.md`).
//!
//! # Layers
//!
//! Six layers, each a folder of `src/`; a module uses its own layer and those below it, never
//! one above (`tests/layers.rs` fails on an import that points up, and on a circle between
//! the modules of one layer). docs/architecture.md says why each module is where it is.
//!
//! 1. [`base`] — nothing about the web: ids, times, words, XML text, threads' work, the stop,
//!    bytes on disk, a loopback HTTP server.
//! 2. [`model`] — what a site, a URL, robots.txt, a sitemap, a cookie, a duplicate rule, a URL
//!    filter and a budget rule are.
//! 3. [`formats`] — bytes other tools and people read and write: WARC, the Gephi CSV dialects,
//!    the crawl record, settings.ini's keys, hosts.txt.
//! 4. [`analysis`] — results folders and graphs, never a running crawl: the report, the
//!    network of sites, the measures, compare.
//! 5. [`crawl`] — the paper's components and the engine: settings, application manager,
//!    downloaders, parsers, routine, data managers, schedulers, finishers, unloaders.
//! 6. [`face`] — what a person or a program calls: the component registry (the only place the
//!    paper's names `TextFileAM`, `DT0`, … appear), the command line, the demo.
//!
//! # The face
//!
//! What a program that embeds rccrawler needs is re-exported here, by job, so that it
//! does not learn the tree: run a crawl ([`Registry`], [`Settings`], [`load_hosts`],
//! [`SiteSpec`]), add a component under a name of its own (the paper's component traits,
//! [`ApplicationManager`] … [`Unloader`]), stop one ([`Stop`], [`StopReason`]) and read what
//! it made ([`SiteGraph`], [`CrawlRecord`]). The layers' modules stay public for the tests
//! and the benchmarks' examples, which reach further in.
//!
//! Modules nothing outside the crate uses are `pub(crate)`, so that `unreachable_pub` finds
//! what is public for no reader. These docs are for the crate's developers: CI builds them
//! with `--document-private-items`, where links to crate-private modules resolve.

#![allow(rustdoc::private_intra_doc_links)]

pub mod analysis;
pub mod base;
pub mod crawl;
pub mod face;
pub mod formats;
pub mod model;

// The face: see "The face" above.
pub use base::stop::{Stop, StopReason};
pub use crawl::app::{ApplicationManager, Components, RunReport};
pub use crawl::data::{DataManager, SiteGraph};
pub use crawl::fetch::Downloader;
pub use crawl::finish::Finisher;
pub use crawl::parse::{PageParser, ParseWorker};
pub use crawl::routine::Routine;
pub use crawl::schedule::Scheduler;
pub use crawl::settings::{Settings, SettingsError};
pub use crawl::unload::Unloader;
pub use face::cli::Exit;
pub use face::registry::Registry;
pub use formats::crawl_record::CrawlRecord;
pub use formats::hosts::load as load_hosts;
pub use model::site::SiteSpec;
pub use model::url_filter::UrlFilter;

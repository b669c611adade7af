//! rccrawler crawls web sites into their exact web graphs — pages as nodes, internal links as
//! weighted arcs, breadth-first levels — and collects their external links with anchor texts
//! (the RCCrawler and BeeBot designs; see `../shared/SPEC.md`).
//!
//! # Layout
//!
//! One module per concern; the paper's component names appear only in
//! [`settings::registry`].
//!
//! - [`cli`], [`app`] — the command line and the application manager (`TextFileAM`) that wires
//!   the threads together; [`context`] is what the threads share, [`stop`] how they stop.
//! - [`settings`], [`hosts`] — the two input files, validated before anything starts.
//! - [`site`], [`sites`] — what a site is (scheme + host + port) and the registry of sites.
//! - [`schedule`] — the dispatcher (per-site politeness) and the schedulers choosing sites.
//! - [`fetch`] — HTTP, the downloader threads (`DT0`), redirects and robots.txt fetching.
//! - [`parse`] — charsets, link extraction, the parser threads (`PT0`).
//! - [`url_norm`], [`url_rules`], [`url_filter`], [`robots`] — what a link is and whether it
//!   is fetched.
//! - [`data`] — the data manager (`BMICDM`) and the exact graph built from it.
//! - [`routine`], [`logs`], [`finish`] — the routine thread (`RT0`), log files, finishers.
//! - [`unload`] — result files (`GephiSiteGraphRU`, summary).
//! - [`state`] — the saved crawl state (journal and snapshots) that lets a crawl continue.
//! - [`message`] — what travels between threads.
//! - [`loopback`], [`demo`] — a small HTTP server on 127.0.0.1 and the bundled demo site.

pub mod app;
pub mod cli;
pub mod context;
pub mod data;
pub mod demo;
pub mod fetch;
pub mod finish;
pub mod hosts;
pub mod logs;
pub mod loopback;
pub mod message;
pub mod parse;
pub mod robots;
pub mod routine;
pub mod schedule;
pub mod settings;
pub mod site;
pub mod sites;
pub mod state;
pub mod stop;
pub mod unload;
pub mod url_filter;
pub mod url_norm;
pub mod url_rules;

//! Layer 5, `crawl`: the paper's components and the engine that runs them.
//!
//! - [`settings`] — settings.ini read into typed settings; crawl.ini written.
//! - [`app`] — the `ApplicationManager` component (`TextFileAM`): one run from start to end.
//! - [`engine`] — the threads of a crawl and the loops they run, and what they share (its
//!   `Context`, seen by nothing else).
//! - [`schedule`] — the dispatcher (per-site politeness), task leases, and the schedulers.
//! - [`fetch`] — the `DownloadingThread` components (`DT0`, `DT1`): HTTP, redirects, robots.txt.
//! - [`parse`] — the `ParsingThread` component (`PT0`): charsets, link extraction.
//! - [`render`] — the `Renderer` component (`ChromiumRenderer`): pages whose links scripts
//!   build, loaded in a browser; which pages are rendered.
//! - [`routine`] — the `RoutineThread` component (`RT0`): log files, progress, finishers;
//!   [`finish`] — the finishers.
//! - [`data`] — the `DataManager` (scope data, the exact graph), where scopes are saved
//!   (`Persistence`) and how processes share a crawl (`Coordinator`).
//! - [`unload`] — the result unloaders (`GephiSiteGraphRU`, `TestRU`, `ReportRU`) and summary.csv.
//! - [`live`] — watching a running crawl: what it shows of itself (`CrawlView`), the live status
//!   page.
//! - [`message`] — what travels between threads.

pub mod app;
pub mod data;
pub(crate) mod engine;
pub mod fetch;
pub mod finish;
pub mod live;
pub mod message;
pub mod parse;
pub mod render;
pub mod routine;
pub mod schedule;
pub mod settings;
pub mod unload;

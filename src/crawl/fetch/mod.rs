//! Downloading (the paper's DownloadingThread): the [`Downloader`] component and its HTTP
//! implementation `DT0` ([`HttpDownloader`]): the HTTP client with a connection pool per site,
//! the page fetch with redirects followed and checked hop by hop, and the robots.txt fetch.
//!
//! The engine's downloader threads own the loop (take a task, fetch it, pass the result on,
//! retry or give up); a [`Downloader`] only turns one task into a result.

pub(crate) mod client;
mod documents;
mod downloader;
mod env;
pub mod evented;
mod fetch_error;
mod from_archive;
mod head;
pub(crate) mod head_fit;
mod http_downloader;
mod options;
mod paced;
mod pacer;
mod page;
mod pools;
pub(crate) mod recrawl;
mod resolver;
mod response;
pub mod retry;
mod robots_txt;
mod roots;
mod sitemaps;
mod transport;

pub use client::HttpClient;
pub use downloader::{Downloader, PageResult, RobotsAnswer};
pub use env::{FetchEnv, HopClaims, Pacing};
pub use evented::EventedDownloader;
pub use fetch_error::FetchError;
pub use from_archive::NOT_ARCHIVED;
pub use head::request_uri;
pub use http_downloader::HttpDownloader;
pub use options::FetchOptions;
pub use pacer::{Pacer, SendTurn, with_margin};
pub(crate) use page::{Check, HeadStep, Step, Walk};
pub(crate) use response::{Declared, Head};
pub use response::{OwnedHead, Response, is_html};
pub use retry::Transient;
pub(crate) use robots_txt::{RobotsStep, RobotsWalk, unavailable_reason};
pub use roots::CaFileError;
pub(crate) use sitemaps::harvest as read_sitemaps;

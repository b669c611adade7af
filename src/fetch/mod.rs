//! Downloading (the paper's DownloadingThread, `DT0`): the HTTP client, the worker loop, the
//! page fetch with redirects followed and checked hop by hop, and the robots.txt fetch.

mod client;
mod downloader;
mod page;
mod pools;
mod resolver;
pub mod retry;
mod robots_txt;

pub use client::{FetchError, HttpClient, Response, is_html, request_uri};
pub use downloader::run_downloader;

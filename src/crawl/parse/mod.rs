//! Parsing (the paper's ParsingThread): the [`PageParser`] component and its HTML
//! implementation `PT0` ([`HtmlParser`]): page bytes → text ([`charset`]) → links, base and
//! title ([`links`]) → normalized, classified links ([`href_cache`] makes navigation cheap).
//!
//! The engine's parsing threads own the loop (take a page, parse it, record it); a parser only
//! turns one downloaded page into a [`PageRecord`].

pub mod charset;
pub mod context;
mod document;
mod extracted;
pub mod href_cache;
mod html_parser;
pub mod links;
mod options;
pub mod pdf_child;
pub mod refresh;
pub mod text;

use std::fmt::Debug;

pub use html_parser::{HtmlParser, HtmlWorker};
pub use options::ParseOptions;

use crate::crawl::message::{Downloaded, FetchTask, PageRecord};
use crate::model::sites::Sites;
use crate::model::url_filter::UrlFilter;

/// What a parser sees of the crawl: the settings, the sites (to tell internal links from
/// external ones) and the URL filter (scopes spanning several hosts, the topic score).
#[derive(Clone, Copy)]
pub struct ParseEnv<'a> {
    /// What settings.ini tells a parser.
    pub options: &'a ParseOptions,
    /// Sites and their aliases.
    pub sites: &'a Sites,
    /// Scope decisions for links (`UrlAnalyzingThread`).
    pub filter: &'a dyn UrlFilter,
}

impl std::fmt::Debug for ParseEnv<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParseEnv").finish_non_exhaustive()
    }
}

/// The `ParsingThread` component. The engine starts `ParsingThreadsCount` threads; each asks
/// for its own [`ParseWorker`] once, then hands it every page it takes from the downloaders,
/// and records the result (the page is recorded even when the crawl is stopping: downloaded
/// work is not lost).
pub trait PageParser: Send + Sync + Debug {
    /// A parser for one parsing thread.
    fn worker(&self, env: &ParseEnv<'_>) -> Box<dyn ParseWorker>;
}

/// One parsing thread's parser: it may keep caches and buffers from page to page.
pub trait ParseWorker: Send {
    /// Turns a downloaded page of `task` into its record: links in document order,
    /// classified and normalized, with anchors; title; content hash. The page is the
    /// worker's: it may free the body as soon as it has read it.
    fn parse(&mut self, env: &ParseEnv<'_>, task: &FetchTask, page: Downloaded) -> PageRecord;
}

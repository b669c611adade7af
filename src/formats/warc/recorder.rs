//! The crawl's archive as the downloaders and parsers use it (`Archive = warc`, SPEC §15):
//! an answer is captured when its head arrives ([`Capture`]) and archived once its body is
//! read — by the downloader for what is not a page (robots.txt, sitemaps, redirects, errors),
//! by the parser for a page, next to the page's `metadata` record. A failed write (a full disk,
//! an unwritable folder) stops the crawl: the state is saved as at any stop, and the archive
//! holds every exchange up to the one that failed.

use std::io;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Instant, SystemTime};

use super::writer::{Archive, Exchange, PageFacts, WarcInfo};
use crate::base::stop::{Stop, StopReason};

/// An answer whose head has arrived: what to archive once its body is read (or not).
#[derive(Debug, Clone)]
pub struct Capture {
    /// The URL requested.
    pub url: String,
    /// When the request was sent.
    pub date: SystemTime,
    /// The request as sent.
    pub request: Vec<u8>,
    /// The answer's status line and header lines, without the empty line that ends them.
    pub head: Vec<u8>,
    /// A `304 Not Modified` in a re-crawl: the earlier answer it stands for (archived as a
    /// `revisit` naming it; the body is not archived again).
    pub not_modified: Option<super::archived::NotModified>,
}

impl Capture {
    /// The capture of an answer to a request sent at `started` (a monotonic time).
    pub fn new(url: &str, started: Instant, request: Vec<u8>, head: &[u8]) -> Capture {
        Capture {
            url: url.to_owned(),
            date: sent_at(started),
            request,
            head: head.to_vec(),
            not_modified: None,
        }
    }
}

/// What became of an answer's body.
#[derive(Debug, Clone, Copy)]
pub enum BodyRead<'a> {
    /// Read whole (decoded).
    Read(&'a [u8]),
    /// Not read: the crawler had no use for it (a redirect's, an error's, not HTML).
    NotRead,
    /// Reading it failed: `truncated` says how (`WARC-Truncated`), `error` is the failure
    /// (kind, detail).
    Failed {
        /// `length`, `time`, `disconnect` or `unspecified`.
        truncated: &'static str,
        /// The failure's kind and detail.
        error: (&'a str, &'a str),
    },
}

/// When a request sent at `started` (a monotonic time) left, on the wall clock.
fn sent_at(started: Instant) -> SystemTime {
    SystemTime::now()
        .checked_sub(started.elapsed())
        .unwrap_or_else(SystemTime::now)
}

/// A page's `response` record, for its `metadata` record once it is parsed.
#[derive(Debug, Clone)]
pub struct Archived {
    url: String,
    date: SystemTime,
    id: String,
}

/// The crawl's archive.
#[derive(Debug)]
pub struct Recorder {
    archive: Archive,
    stop: Arc<Stop>,
    /// A write failed: nothing more is written (the crawl is stopping).
    failed: AtomicBool,
    /// Exchanges archived by this run.
    exchanges: AtomicU64,
}

impl Recorder {
    /// Opens archive folder `folder` (see [`Archive::open`]); a write that fails later stops
    /// the crawl through `stop`.
    pub fn open(
        folder: &Path,
        max_file_bytes: u64,
        info: WarcInfo,
        stop: Arc<Stop>,
    ) -> io::Result<Recorder> {
        Ok(Recorder {
            archive: Archive::open(folder, "rccrawler", max_file_bytes, info)?,
            stop,
            failed: AtomicBool::new(false),
            exchanges: AtomicU64::new(0),
        })
    }

    /// What opening the archive found damaged (see [`Archive::problems`]).
    pub fn problems(&self) -> &[String] {
        self.archive.problems()
    }

    /// Archives an answer with its body as read (decoded); a body not read, or whose reading
    /// failed, is left out and the record says so (`WARC-Truncated`). A page's `metadata`
    /// record follows once it is parsed ([`Self::metadata`]).
    pub fn answer(&self, capture: &Capture, read: BodyRead<'_>) -> Option<Archived> {
        if self.failed.load(Ordering::Relaxed) {
            return None;
        }
        let not_modified = capture.not_modified.as_ref();
        let body = match read {
            BodyRead::Read(body) if not_modified.is_none() => body,
            _ => &[],
        };
        // The head ends with the body's own length; the body is not copied.
        let mut head = Vec::with_capacity(capture.head.len() + 32);
        head.extend_from_slice(&capture.head);
        if let (BodyRead::Read(body), None) = (read, not_modified) {
            head.extend_from_slice(format!("Content-Length: {}\r\n", body.len()).as_bytes());
        }
        head.extend_from_slice(b"\r\n");
        let (truncated, error) = match read {
            BodyRead::Read(_) => (None, None),
            _ if not_modified.is_some() => (None, None),
            BodyRead::NotRead => (Some("unspecified"), None),
            BodyRead::Failed { truncated, error } => (Some(truncated), Some(error)),
        };
        let ex = Exchange {
            url: &capture.url,
            date: capture.date,
            request: &capture.request,
            head: &head,
            body,
            truncated,
            error,
            not_modified: not_modified.map(|n| (n.date.as_str(), n.digest.as_str())),
        };
        match self.archive.exchange(&ex, None) {
            Ok(id) => {
                self.exchanges.fetch_add(1, Ordering::Relaxed);
                Some(Archived {
                    url: capture.url.clone(),
                    date: capture.date,
                    id,
                })
            }
            Err(e) => {
                self.fail(&e);
                None
            }
        }
    }

    /// Archives a request to `url` (sent at `started`) that got no answer, and the failure
    /// (kind, detail).
    pub fn failure(&self, url: &str, started: Instant, request: &[u8], error: (&str, &str)) {
        if self.failed.load(Ordering::Relaxed) {
            return;
        }
        let date = sent_at(started);
        match self.archive.failure(url, date, request, error) {
            Ok(()) => {
                self.exchanges.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => self.fail(&e),
        }
    }

    /// Archives the `metadata` record of a page archived as `page`: its level (none: an
    /// orphan) and its links as the crawler read them.
    pub fn metadata(&self, page: &Archived, level: Option<u32>, outlinks: &[&str]) {
        if self.failed.load(Ordering::Relaxed) {
            return;
        }
        let facts = PageFacts { level, outlinks };
        if let Err(e) = self
            .archive
            .metadata(&page.url, page.date, &page.id, &facts)
        {
            self.fail(&e);
        }
    }

    /// Archives the DOM a browser rendered of page `page` (a `conversion` record referring
    /// to its response), with the requests the browser made for it.
    pub fn conversion(&self, page: &Archived, dom: &[u8], requests: u32) {
        if self.failed.load(Ordering::Relaxed) {
            return;
        }
        if let Err(e) = self
            .archive
            .conversion(&page.url, page.date, &page.id, (dom, requests))
        {
            self.fail(&e);
        }
    }

    fn fail(&self, e: &io::Error) {
        if !self.failed.swap(true, Ordering::Relaxed) {
            self.stop.request(StopReason::Failed(format!(
                "cannot write the archive in {}: {e}",
                self.archive.folder().display()
            )));
        }
    }

    /// Exchanges archived by this run, and the bytes written.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.exchanges.load(Ordering::Relaxed),
            self.archive.written(),
        )
    }

    /// Finishes the open file and writes the folder's index.
    pub fn close(&self) -> io::Result<()> {
        self.archive.close()
    }
}

//! What the driver of the event-driven downloads and its [`Connections`](super::Connections)
//! say to each other: request and connection numbers, the events of a request (its head,
//! its body, its failure), why a request was not sent, and the settings the connections keep.

use std::sync::Arc;
use std::time::Duration;

use crate::crawl::fetch::FetchError;

/// The driver's number for a request (its task), carried by the events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReqId(pub usize);

/// Which connection a request went out on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnRef(pub(super) usize);

/// An answer's status line and headers.
#[derive(Debug, Clone, Default)]
pub struct OwnedHead {
    /// Status code.
    pub status: u16,
    /// `Location`.
    pub location: Option<String>,
    /// `Content-Type`.
    pub content_type: Option<String>,
    /// `Retry-After`.
    pub retry_after: Option<String>,
    /// `Content-Encoding`.
    pub content_encoding: Option<String>,
    /// `Content-Length`.
    pub content_length: Option<u64>,
    /// Every `Set-Cookie` value.
    pub set_cookies: Vec<String>,
    /// Every `X-Robots-Tag` value, one per line.
    pub robots_tag: Option<String>,
    /// The status line and headers for the archive (`Archive = warc`).
    pub archived: Option<Vec<u8>>,
    /// A `304` a re-crawl turned into the archived answer it stands for.
    pub not_modified: Option<Box<crate::formats::warc::archived::NotModified>>,
}

impl OwnedHead {
    /// The head of `response`, kept for the archive too when `archive`.
    pub fn of<T>(response: &ureq::http::Response<T>, archive: bool) -> Self {
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        };
        let all = |name: &str| {
            response
                .headers()
                .get_all(name)
                .iter()
                .map(|v| v.as_bytes())
                .collect::<Vec<_>>()
        };
        OwnedHead {
            status: response.status().as_u16(),
            location: header("location"),
            content_type: header("content-type"),
            retry_after: header("retry-after"),
            content_length: header("content-length").and_then(|v| v.trim().parse::<u64>().ok()),
            robots_tag: crate::crawl::fetch::client::robots_tag(all("x-robots-tag").into_iter()),
            set_cookies: crate::crawl::fetch::client::set_cookies(all("set-cookie").into_iter()),
            content_encoding: header("content-encoding")
                .map(|e| e.trim().to_ascii_lowercase())
                .filter(|e| !e.is_empty() && e != "identity"),
            archived: archive.then(|| {
                crate::crawl::fetch::head::archived_head(
                    response.version(),
                    response.status(),
                    response.headers(),
                )
            }),
            not_modified: None,
        }
    }

    /// The head as the walks read it.
    pub(crate) fn head(&self) -> crate::crawl::fetch::Head<'_> {
        crate::crawl::fetch::Head {
            status: self.status,
            location: self.location.as_deref(),
            content_type: self.content_type.as_deref(),
            retry_after: self.retry_after.as_deref(),
            set_cookies: &self.set_cookies,
            archived: self.archived.as_deref(),
            not_modified: self.not_modified.as_deref(),
        }
    }

    /// The body's length as declared, when it is sent as is (not compressed).
    pub fn declared_body_len(&self) -> Option<u64> {
        self.content_length
            .filter(|_| self.content_encoding.is_none())
    }
}

/// What happened to a request.
#[derive(Debug)]
pub enum Event {
    /// Its answer's head arrived: the driver reads or discards the body.
    Head(ReqId, OwnedHead),
    /// Its body, decoded and within its cap — or why it could not be read (too large, a
    /// timeout or a broken connection while it was read).
    Body(ReqId, Result<Vec<u8>, FetchError>),
    /// It failed before its head arrived (a timeout, a broken connection, a bad answer).
    Failed(ReqId, FetchError),
}

/// Why [`Connections::send`](super::Connections::send) did not send a request.
#[derive(Debug)]
pub enum NotSent {
    /// Not without blocking this thread: a host name not resolved yet (or a scheme other
    /// than http and https). A blocking downloader should take the task.
    Elsewhere,
    /// It failed at once.
    Failed(FetchError),
}

/// What a request carries besides its URL: the site's cookies for it, and a re-crawl's
/// validators (`If-None-Match`, `If-Modified-Since`).
#[derive(Debug, Clone, Default)]
pub struct Carried {
    /// The `Cookie` header.
    pub cookie: Option<String>,
    /// A re-crawl's conditions.
    pub validators: Option<crate::formats::warc::archived::Validators>,
}

/// Settings the connections keep.
#[derive(Debug, Clone)]
pub struct ConnSettings {
    /// `User-Agent`.
    pub user_agent: String,
    /// `RequestTimeoutSeconds`: a whole request, head and body.
    pub request_timeout: Duration,
    /// `ConnectTimeoutSeconds`.
    pub connect_timeout: Duration,
    /// Idle connections kept at most.
    pub idle_budget: usize,
    /// TLS: the blocking client's roots and provider.
    pub tls: Arc<rustls::ClientConfig>,
    /// `Archive = warc`: answers keep their heads for the archive.
    pub archive: bool,
}

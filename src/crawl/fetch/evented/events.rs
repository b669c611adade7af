//! What the driver of the event-driven downloads and its [`Connections`](super::Connections)
//! say to each other: request and connection numbers, the events of a request (its head,
//! its body, its failure), why a request was not sent, and the settings the connections keep.

use std::sync::Arc;
use std::time::Duration;

use crate::crawl::fetch::FetchError;
use crate::crawl::fetch::response::OwnedHead;

/// The driver's number for a request (its task), carried by the events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReqId(pub usize);

/// Which connection a request went out on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnRef(pub(super) usize);

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

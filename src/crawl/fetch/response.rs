//! An answer as the walks read it: the blocking client's [`Response`] (its body not yet read,
//! read with a cap after decoding), the event-driven loop's [`OwnedHead`], and the views both
//! give the walks ([`Head`], [`Declared`]).

use std::io::Read;

use super::fetch_error::FetchError;

/// A response whose body has not been read yet.
#[derive(Debug)]
pub struct Response {
    /// Status code.
    pub status: u16,
    /// `Location`, for redirects.
    pub location: Option<String>,
    /// `Content-Type`.
    pub content_type: Option<String>,
    /// `Retry-After`, for 429 and 503.
    pub retry_after: Option<String>,
    /// Every `Set-Cookie` value.
    pub set_cookies: Vec<String>,
    /// Every `X-Robots-Tag` value, one per line.
    pub robots_tag: Option<String>,
    content_encoding: Option<String>,
    /// The status line and headers for the archive (`Archive = warc`).
    pub(crate) archived_head: Option<Vec<u8>>,
    /// An archived answer whose body's reading failed when it was archived: reading it fails
    /// the same way.
    archived_error: Option<FetchError>,
    /// A `304` a re-crawl turned into the archived answer it stands for.
    pub(crate) not_modified: Option<Box<crate::formats::warc::archived::NotModified>>,
    inner: ureq::http::Response<ureq::Body>,
    /// The body was read (or its reading failed): nothing to drain.
    consumed: bool,
}

/// Unread bodies up to this size are read to their end when a response is dropped.
pub(super) const DRAIN_BYTES: u64 = 64 * 1024;

impl Drop for Response {
    /// A response dropped unread (a redirect, a 404, a non-HTML page) would close its
    /// connection: ureq only pools a connection whose body was read to the end. Reading a
    /// small body keeps it, sparing the site a new TCP (and TLS) handshake for the next
    /// request; in the politeness test a third of all requests opened a new connection.
    /// Larger bodies are not worth downloading just for that.
    fn drop(&mut self) {
        if self.consumed {
            return;
        }
        if self.content_length().is_some_and(|n| n > DRAIN_BYTES) {
            return;
        }
        let reader = self
            .inner
            .body_mut()
            .with_config()
            .limit(DRAIN_BYTES)
            .reader();
        // Decoded bytes are bounded too (a compressed body may expand).
        let _ = std::io::copy(&mut reader.take(DRAIN_BYTES), &mut std::io::sink());
    }
}

impl Response {
    /// The declared body length.
    fn content_length(&self) -> Option<u64> {
        self.inner
            .headers()
            .get("content-length")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
    }

    /// The body's length as declared, when it is sent as is (not compressed).
    pub fn declared_body_len(&self) -> Option<u64> {
        self.content_length()
            .filter(|_| self.content_encoding.is_none())
    }

    /// Reads the body, decompressed, failing with `TooLarge` past `cap` bytes.
    pub fn read_body(self, cap: u64) -> Result<Vec<u8>, FetchError> {
        let (body, truncated) = self.read_capped(cap)?;
        if truncated {
            return Err(FetchError::TooLarge(cap));
        }
        Ok(body)
    }

    /// Reads at most `cap` bytes of the decompressed body and ignores the rest (robots.txt).
    pub fn read_body_truncated(self, cap: u64) -> Result<Vec<u8>, FetchError> {
        Ok(self.read_capped(cap)?.0)
    }

    fn read_capped(mut self, cap: u64) -> Result<(Vec<u8>, bool), FetchError> {
        self.consumed = true;
        if let Some(e) = self.archived_error.take() {
            return Err(e);
        }
        // Sized from Content-Length when the body is not compressed: growing a page body by
        // doubling copied it several times (a sixtieth of the crawl's CPU).
        let declared = self
            .content_length()
            .filter(|_| self.content_encoding.is_none());
        // Raw (compressed) bytes get a looser bound; the real cap applies after decoding.
        let raw_limit = cap.saturating_add(cap / 8).saturating_add(64 * 1024);
        let reader = self
            .inner
            .body_mut()
            .with_config()
            .limit(raw_limit)
            .reader();
        let deflate = self
            .content_encoding
            .as_deref()
            .is_some_and(|e| e.trim().eq_ignore_ascii_case("deflate"));
        let mut body = Vec::with_capacity(declared.map_or(0, |n| n.min(cap) as usize + 1));
        let read = if deflate {
            // ureq does not decode `deflate`; servers send it zlib-wrapped (RFC 9110 §8.4.1.2).
            flate2::read::ZlibDecoder::new(reader)
                .take(cap + 1)
                .read_to_end(&mut body)
        } else {
            reader.take(cap + 1).read_to_end(&mut body)
        };
        if let Err(e) = read {
            return match ureq::Error::from(e) {
                // The raw bytes passed their bound: the decoded body is over the cap too.
                ureq::Error::BodyExceedsLimit(_) => Ok((body, true)),
                other => Err(other.into()),
            };
        }
        let truncated = body.len() as u64 > cap;
        body.truncate(cap as usize);
        Ok((body, truncated))
    }
}

/// Whether a Content-Type denotes an HTML page (SPEC §2.5).
pub fn is_html(content_type: Option<&str>) -> bool {
    content_type.is_some_and(|ct| {
        let essence = ct.split(';').next().unwrap_or_default().trim();
        essence.eq_ignore_ascii_case("text/html")
            || essence.eq_ignore_ascii_case("application/xhtml+xml")
    })
}

impl Response {
    /// The answer `inner`, its head kept for the archive when `archive`; `archived_error`:
    /// an archived answer's body fails this way.
    pub(super) fn of(
        inner: ureq::http::Response<ureq::Body>,
        archive: bool,
        archived_error: Option<FetchError>,
    ) -> Response {
        let header = |name: &str| {
            inner
                .headers()
                .get(name)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        };
        Response {
            status: inner.status().as_u16(),
            location: header("location"),
            content_type: header("content-type"),
            retry_after: header("retry-after"),
            set_cookies: set_cookies(
                inner
                    .headers()
                    .get_all("set-cookie")
                    .iter()
                    .map(|v| v.as_bytes()),
            ),
            robots_tag: robots_tag(
                inner
                    .headers()
                    .get_all("x-robots-tag")
                    .iter()
                    .map(|v| v.as_bytes()),
            ),
            content_encoding: header("content-encoding"),
            archived_head: archive.then(|| {
                super::head::archived_head(inner.version(), inner.status(), inner.headers())
            }),
            archived_error,
            not_modified: None,
            inner,
            consumed: false,
        }
    }
}

/// Every `Set-Cookie` value of an answer (one header each; they are never folded into one),
/// from the values as bytes (both clients' header maps give them).
pub(crate) fn set_cookies<'a>(values: impl Iterator<Item = &'a [u8]>) -> Vec<String> {
    values
        .map(|v| String::from_utf8_lossy(v).into_owned())
        .collect()
}

/// Every `X-Robots-Tag` value of an answer, one per line (a header may come several times,
/// each for another crawler); none when there is none.
pub(crate) fn robots_tag<'a>(values: impl Iterator<Item = &'a [u8]>) -> Option<String> {
    let lines: Vec<String> = values
        .map(|v| String::from_utf8_lossy(v).replace(['\r', '\n'], " "))
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

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
            robots_tag: robots_tag(all("x-robots-tag").into_iter()),
            set_cookies: set_cookies(all("set-cookie").into_iter()),
            content_encoding: header("content-encoding")
                .map(|e| e.trim().to_ascii_lowercase())
                .filter(|e| !e.is_empty() && e != "identity"),
            archived: archive.then(|| {
                super::head::archived_head(
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
            declared_len: self.declared_body_len(),
        }
    }

    /// The body's length as declared, when it is sent as is (not compressed).
    pub fn declared_body_len(&self) -> Option<u64> {
        self.content_length
            .filter(|_| self.content_encoding.is_none())
    }
}

/// What a page's headers say about its body: its type, and the robots directives of its
/// `X-Robots-Tag` headers (SPEC §17).
#[derive(Debug, Clone, Default)]
pub(crate) struct Declared {
    /// `Content-Type`.
    pub(crate) content_type: Option<String>,
    /// Every `X-Robots-Tag` value, one per line.
    pub(crate) robots_tag: Option<String>,
}

impl Declared {
    /// What a response of the blocking client declares.
    pub(crate) fn of(response: &Response) -> Self {
        Declared {
            content_type: response.content_type.clone(),
            robots_tag: response.robots_tag.clone(),
        }
    }
}

/// What the walk needs of an answer's status line and headers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Head<'r> {
    /// Status code.
    pub(crate) status: u16,
    /// `Location`.
    pub(crate) location: Option<&'r str>,
    /// `Content-Type`.
    pub(crate) content_type: Option<&'r str>,
    /// `Retry-After`.
    pub(crate) retry_after: Option<&'r str>,
    /// Every `Set-Cookie` value.
    pub(crate) set_cookies: &'r [String],
    /// The status line and header lines as archived ([`archived_head`](super::head::archived_head)); `None` when the
    /// crawl keeps no archive.
    pub(crate) archived: Option<&'r [u8]>,
    /// A `304` a re-crawl turned into the archived answer it stands for (`archived` is then
    /// the 304's own head).
    pub(crate) not_modified: Option<&'r crate::formats::warc::archived::NotModified>,
    /// The body's length as declared, when it is sent as is (not compressed).
    pub(crate) declared_len: Option<u64>,
}

impl<'r> Head<'r> {
    /// The head of a response of the blocking client.
    pub(crate) fn of(response: &'r Response) -> Self {
        Head {
            status: response.status,
            location: response.location.as_deref(),
            content_type: response.content_type.as_deref(),
            retry_after: response.retry_after.as_deref(),
            set_cookies: &response.set_cookies,
            archived: response.archived_head.as_deref(),
            not_modified: response.not_modified.as_deref(),
            declared_len: response.declared_body_len(),
        }
    }
}

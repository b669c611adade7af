//! What the walk reads of an answer's status line and headers ([`Head`]), and what a page's
//! headers say about its body ([`Declared`]), for both downloaders.

use super::client::{Response, request_uri};
use crate::formats::warc::archived::Validators;
use crate::model::url_norm::NormUrl;

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
    /// The status line and header lines as archived ([`archived_head`]); `None` when the
    /// crawl keeps no archive.
    pub(crate) archived: Option<&'r [u8]>,
    /// A `304` a re-crawl turned into the archived answer it stands for (`archived` is then
    /// the 304's own head).
    pub(crate) not_modified: Option<&'r crate::formats::warc::archived::NotModified>,
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
        }
    }
}

/// A GET for `url` as the archive keeps it (SPEC §15): the request line and the header
/// fields rccrawler sets (`Host`, `User-Agent`, `Accept`, `Accept-Encoding`, the site's
/// `Cookie`), as both downloaders send them.
pub(crate) fn archived_request(
    url: &NormUrl,
    user_agent: &str,
    cookie: Option<&str>,
    validators: Option<&Validators>,
) -> Vec<u8> {
    let u = url.as_url();
    let host = match u.port() {
        Some(port) => format!("{}:{port}", u.host_str().unwrap_or_default()),
        None => u.host_str().unwrap_or_default().to_owned(),
    };
    let mut out = format!(
        "GET {} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: {user_agent}\r\nAccept: {ACCEPT}\r\nAccept-Encoding: {ACCEPT_ENCODING}\r\n",
        request_uri(url)
    );
    if let Some(cookie) = cookie {
        out.push_str(&format!("Cookie: {cookie}\r\n"));
    }
    for (name, value) in conditions(validators) {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str("\r\n");
    out.into_bytes()
}

/// The longest `ETag` or `Last-Modified` sent back.
const MAX_VALIDATOR_BYTES: usize = 1024;

/// The header fields of a re-crawl's conditional request (SPEC §15): `If-None-Match` for an
/// archived `ETag`, `If-Modified-Since` for an archived `Last-Modified`.
pub(crate) fn conditions(validators: Option<&Validators>) -> Vec<(&'static str, &str)> {
    let Some(v) = validators else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(2);
    if let Some(etag) = &v.etag {
        out.push(("If-None-Match", etag.as_str()));
    }
    if let Some(date) = &v.last_modified {
        out.push(("If-Modified-Since", date.as_str()));
    }
    // A validator as long as a whole head (a server's ETag can be) would make a request line
    // longer than the downloaders' room: the request goes unconditional instead.
    out.retain(|(_, v)| v.len() <= MAX_VALIDATOR_BYTES);
    out
}

/// What the crawler accepts (both downloaders send it).
pub(crate) const ACCEPT: &str = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5";

/// The encodings asked for (both downloaders decode them; `deflate` too).
pub(crate) const ACCEPT_ENCODING: &str = "gzip, br";

/// Header fields that describe the bytes on the wire rather than the body: the archive keeps
/// the body decoded (as the crawler read it), so these are kept under another name, and the
/// record states the decoded body's own `Content-Length`.
const WIRE_FIELDS: [&str; 3] = ["content-encoding", "transfer-encoding", "content-length"];

/// An answer's status line and header lines as a WARC `response` record holds them (SPEC
/// §15), without the empty line that ends the head: the record adds the decoded body's
/// `Content-Length` when it is written. `Content-Encoding`, `Transfer-Encoding` and
/// `Content-Length` are kept as `X-Archive-Orig-…`: the record's body is decoded, and a
/// reader must not decode it again.
pub(crate) fn archived_head(
    version: ureq::http::Version,
    status: ureq::http::StatusCode,
    headers: &ureq::http::HeaderMap,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + headers.len() * 48);
    let version = match version {
        ureq::http::Version::HTTP_10 => "HTTP/1.0",
        _ => "HTTP/1.1",
    };
    out.extend_from_slice(
        format!(
            "{version} {} {}\r\n",
            status.as_u16(),
            status.canonical_reason().unwrap_or("")
        )
        .as_bytes(),
    );
    for (name, value) in headers {
        if WIRE_FIELDS.contains(&name.as_str()) {
            out.extend_from_slice(b"X-Archive-Orig-");
        }
        out.extend_from_slice(name.as_str().as_bytes());
        out.extend_from_slice(b": ");
        // A field value holds no line end (the parser refused it otherwise).
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out
}

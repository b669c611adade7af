//! Heads as sent and as archived: a GET's request target and header fields (both downloaders
//! send the same), the validators of a re-crawl, and an answer's head as a WARC record holds it.

use crate::formats::warc::archived::Validators;
use crate::model::url_norm::NormUrl;

/// Most redirect hops followed for a page, a robots.txt or a sitemap file (SPEC §2.4).
pub(crate) const MAX_HOPS: usize = 5;

/// The request target for a normalized URL: characters that URLs may hold but HTTP request
/// lines may not (`{`, `|`, `^`, …) are percent-encoded.
pub fn request_uri(url: &NormUrl) -> String {
    let s = url.as_str();
    let allowed = |b: u8| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/?%[]".contains(&b);
    if s.bytes().all(allowed) {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for b in s.bytes() {
        if allowed(b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
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

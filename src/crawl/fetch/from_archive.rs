//! Answers from an archive instead of the network (`rccrawler rebuild`, SPEC §15): the
//! blocking client asks the [`ArchivedWeb`] for a URL's next archived answer and hands the walks an
//! answer built from it — its status, its headers (the `X-Archive-Orig-…` ones, which
//! described the bytes on the wire, left out), its decoded body — so that a rebuild decides
//! everything as the crawl did. A URL the archive lacks is a failure `not in the archive`:
//! never fetched.

use std::sync::Arc;

use super::fetch_error::FetchError;
use super::transport::{self, Request, Transport};
use crate::formats::warc::archived::{Answer, ArchivedWeb};
use crate::model::url_norm::NormUrl;

/// An archive as the blocking client's transport: each request is answered with the URL's
/// next archived answer; nothing is sent.
#[derive(Debug)]
pub(crate) struct FromArchive(pub(crate) Arc<ArchivedWeb>);

impl Transport for FromArchive {
    fn send(&self, request: &Request<'_>) -> Result<transport::Answer, FetchError> {
        answer(&self.0, request.url)
    }
}

/// The bad-link reason of a URL the archive lacks.
pub const NOT_ARCHIVED: &str = "not in the archive";

/// The next archived answer to `url`, and the failure its body's reading met, if any.
fn answer(
    archived: &ArchivedWeb,
    url: &NormUrl,
) -> Result<(ureq::http::Response<ureq::Body>, Option<FetchError>), FetchError> {
    let answer = archived
        .next(url.as_str())
        .map_err(|e| FetchError::Other(format!("cannot read the archive: {e}")))?;
    let (head, body, error) = match answer {
        None => return Err(FetchError::Other(NOT_ARCHIVED.to_owned())),
        Some(Answer::Failed(kind, detail)) => {
            return Err(FetchError::from_archived(&kind, &detail));
        }
        Some(Answer::Response { head, body, error }) => (head, body, error),
    };
    let inner = response_of(&head, ureq::Body::builder().data(body))?;
    let error = error.map(|(kind, detail)| FetchError::from_archived(&kind, &detail));
    Ok((inner, error))
}

/// The answer an archived head (status line, header lines) and `body` make: the status, and
/// the headers but those that described the bytes on the wire (`X-Archive-Orig-…`).
pub(super) fn response_of<B>(head: &[u8], body: B) -> Result<ureq::http::Response<B>, FetchError> {
    let text = String::from_utf8_lossy(head);
    let mut lines = text.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let bad = |what: &str| FetchError::BadResponse(format!("archived answer: {what}"));
    let status: u16 = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| bad("no status"))?;
    let mut builder = ureq::http::Response::builder().status(status);
    if status_line.starts_with("HTTP/1.0") {
        builder = builder.version(ureq::http::Version::HTTP_10);
    }
    for line in lines.filter(|l| !l.is_empty()) {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let name = name.trim();
        // The record's own Content-Length is the decoded body's; the wire's are left out.
        if name.len() >= 15 && name[..15].eq_ignore_ascii_case("x-archive-orig-") {
            continue;
        }
        builder = builder.header(name, value.trim());
    }
    builder.body(body).map_err(|e| bad(&e.to_string()))
}

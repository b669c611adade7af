//! A re-crawl (`Recrawl = ARCHIVE`, SPEC §15): a page request carries the validators of the
//! URL's last whole answer in the earlier crawl's archive (`If-None-Match` for its `ETag`,
//! `If-Modified-Since` for its `Last-Modified`), and a `304 Not Modified` is that archived
//! answer — its status, headers and body — as if the server had sent it again: the walks
//! decide on it as a full crawl of the same answers would, and the body crossed no network.
//! The blocking client asks here for its answers; the event-driven loop for its heads.

use super::fetch_error::FetchError;
use super::response::OwnedHead;
use crate::formats::warc::archived::{ArchivedWeb, NotModified, Validators};
use crate::model::url_norm::NormUrl;

/// The validators to send for a page at `url`, when the earlier crawl archived a whole answer
/// with some.
pub(crate) fn validators<'r>(
    recrawl: Option<&'r ArchivedWeb>,
    url: &NormUrl,
) -> Option<&'r Validators> {
    recrawl?
        .validators(url.as_str())
        .filter(|v| v.etag.is_some() || v.last_modified.is_some())
}

/// The archived answer a `304` to `url` stands for, and what the new archive names of it.
/// `None` when the archive has no whole answer for it (a server that answers 304 to what it
/// was not asked).
pub(crate) fn unchanged(
    recrawl: &ArchivedWeb,
    url: &NormUrl,
) -> Result<Option<(ureq::http::Response<ureq::Body>, NotModified)>, FetchError> {
    let Some(stored) = read(recrawl, url)? else {
        return Ok(None);
    };
    let body = ureq::Body::builder().data(stored.body);
    let inner = super::from_archive::response_of(&stored.head, body)?;
    Ok(Some((inner, stored.refers)))
}

/// [`unchanged`] for the event-driven loop: the answer's head (`archived`: the 304's own, for
/// the new archive) and its body.
pub(crate) fn unchanged_head(
    recrawl: &ArchivedWeb,
    url: &NormUrl,
    archived: Option<Vec<u8>>,
) -> Result<Option<(OwnedHead, Vec<u8>)>, FetchError> {
    let Some(stored) = read(recrawl, url)? else {
        return Ok(None);
    };
    let inner = super::from_archive::response_of(&stored.head, ())?;
    let mut head = OwnedHead::of(&inner, false);
    head.archived = archived;
    head.not_modified = Some(Box::new(stored.refers));
    Ok(Some((head, stored.body)))
}

fn read(
    recrawl: &ArchivedWeb,
    url: &NormUrl,
) -> Result<Option<crate::formats::warc::archived::Unchanged>, FetchError> {
    recrawl
        .unchanged(url.as_str())
        .map_err(|e| FetchError::Other(format!("cannot read the earlier archive: {e}")))
}

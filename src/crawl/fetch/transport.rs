//! Where the blocking client's requests go ([`Transport`]): the network (the sites' connection
//! pools, `client.rs`) or, for `rccrawler rebuild`, an archive (`from_archive.rs`). What sits
//! above — a site's turn, its cookies, a re-crawl's validators, heads kept for the archive — is
//! the client's and the same for both; the archive is a transport, not a flag in the client.

use std::fmt::Debug;

use super::fetch_error::FetchError;
use super::pacer::SendTurn;
use crate::base::ids::SiteId;
use crate::formats::warc::archived::Validators;
use crate::model::url_norm::NormUrl;

/// One GET to send.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Request<'a> {
    /// The site it is for.
    pub(crate) site: SiteId,
    /// The downloads the site may have at once (the size of its keep-alive pool).
    pub(crate) connections: u32,
    /// What is asked for.
    pub(crate) url: &'a NormUrl,
    /// The site's turn: the request's write ends it.
    pub(crate) turn: &'a SendTurn,
    /// The site's `Cookie` header for the URL.
    pub(crate) cookie: Option<&'a str>,
    /// A re-crawl's conditions.
    pub(crate) validators: Option<&'a Validators>,
}

/// An answer, its body unread, and the failure reading its body will meet (an archived
/// answer whose body's reading failed when it was archived).
pub(crate) type Answer = (ureq::http::Response<ureq::Body>, Option<FetchError>);

/// Sends the blocking client's requests.
pub(crate) trait Transport: Send + Sync + Debug {
    /// Sends `request`: any status is an answer; only transport problems are errors.
    fn send(&self, request: &Request<'_>) -> Result<Answer, FetchError>;

    /// These sites are through: what is kept open for them may close.
    fn sites_done(&self, _sites: &[SiteId]) {}
}

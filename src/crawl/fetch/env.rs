//! What a downloader sees of the crawl ([`FetchEnv`]): its options, the sites and the URL
//! filter it checks hops against, how robots.txt is read, the stop, the body budget — and two
//! capabilities it asks of the layers above without knowing them: [`Pacing`] (a site's turn
//! to send, kept by the dispatcher) and [`HopClaims`] (whether a redirect's target is this
//! chain's to fetch, decided by the data manager through the engine).

use std::sync::Arc;

use super::{FetchOptions, SendTurn};
use crate::base::bodies::BodyBudget;
use crate::base::ids::SiteId;
use crate::base::stop::Stop;
use crate::crawl::message::{FetchTask, HopClaim};
use crate::formats::warc::archived::Validators;
use crate::model::robots::RobotsParse;
use crate::model::sites::Sites;
use crate::model::url_filter::UrlFilter;
use crate::model::url_norm::NormUrl;

/// A site's turn to send a request: every request takes one right before it is sent (a
/// task's first, each redirect hop, robots.txt), so the site's delay holds between requests
/// as they leave.
pub trait Pacing: Sync {
    /// Waits for `site`'s turn; `None` when the crawl is stopping.
    fn pace(&self, site: SiteId) -> Option<SendTurn>;
}

/// Whether a redirect hop's target is fetched by the chain that reached it (so that a URL is
/// fetched once, whichever task reaches it first).
pub trait HopClaims: Sync {
    /// Claims `url`, a hop of `task`'s chain.
    fn claim_hop(&self, task: &FetchTask, url: &NormUrl) -> HopClaim;
}

/// What a downloader may use of the crawl.
#[derive(Clone, Copy)]
pub struct FetchEnv<'a> {
    /// What settings.ini tells a downloader while it fetches.
    pub options: &'a FetchOptions,
    /// Sites, their aliases and robots rules.
    pub sites: &'a Sites,
    /// Scope decisions for redirect hops (`UrlAnalyzingThread`).
    pub filter: &'a dyn UrlFilter,
    /// How robots.txt is read (`RobotsTxtClass`).
    pub robots: RobotsParse,
    /// The stop broadcast.
    pub stop: &'a Stop,
    /// Page bodies held at once.
    pub bodies: &'a Arc<BodyBudget>,
    /// Sites' turns to send.
    pub pacing: &'a dyn Pacing,
    /// Redirect targets' claims.
    pub hops: &'a dyn HopClaims,
    /// The crawl's archive (`Archive = warc`).
    pub archive: Option<&'a crate::formats::warc::Recorder>,
    /// The earlier archive a re-crawl sends conditional requests from (`Recrawl`).
    pub recrawl: Option<&'a crate::formats::warc::archived::ArchivedWeb>,
}

impl FetchEnv<'_> {
    /// The capture of an answer to `url` (sent at `started` with `cookie` and a re-crawl's
    /// `validators`) for the archive, when the crawl keeps one.
    pub(crate) fn capture(
        &self,
        url: &NormUrl,
        head: &super::response::Head<'_>,
        (cookie, validators): (Option<&str>, Option<&Validators>),
        started: std::time::Instant,
    ) -> Option<crate::formats::warc::Capture> {
        self.archive?;
        let ua = &self.options.user_agent;
        let request = super::head::archived_request(url, ua, cookie, validators);
        let mut capture =
            crate::formats::warc::Capture::new(url.as_str(), started, request, head.archived?);
        capture.not_modified = head.not_modified.cloned();
        Some(capture)
    }

    /// Archives a captured answer with its body: read, failed, or (`None`) not read.
    pub(crate) fn archive(
        &self,
        capture: Option<&crate::formats::warc::Capture>,
        body: Option<Result<&[u8], &super::FetchError>>,
    ) {
        use crate::formats::warc::BodyRead;
        let (Some(archive), Some(capture)) = (self.archive, capture) else {
            return;
        };
        let detail;
        let read = match body {
            None => BodyRead::NotRead,
            Some(Ok(body)) => BodyRead::Read(body),
            Some(Err(e)) => {
                let (kind, d) = e.archived();
                detail = d;
                BodyRead::Failed {
                    truncated: e.truncation(),
                    error: (kind, &detail),
                }
            }
        };
        archive.answer(capture, read);
    }

    /// Archives a request to `url` (sent at `started` with `cookie`) that got no answer. A
    /// request abandoned by a stop is not archived: the next run sends it again.
    pub(crate) fn archive_failure(
        &self,
        url: &NormUrl,
        (cookie, validators): (Option<&str>, Option<&Validators>),
        started: std::time::Instant,
        e: &super::FetchError,
    ) {
        let Some(archive) = self.archive else {
            return;
        };
        if *e == super::FetchError::Abandoned {
            return;
        }
        let ua = &self.options.user_agent;
        let request = super::head::archived_request(url, ua, cookie, validators);
        let (kind, detail) = e.archived();
        archive.failure(url.as_str(), started, &request, (kind, &detail));
    }
}

impl std::fmt::Debug for FetchEnv<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FetchEnv").finish_non_exhaustive()
    }
}

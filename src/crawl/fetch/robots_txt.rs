//! Fetching a site's robots.txt, its first request (SPEC §2.1, RFC 9309 §2.3): 2xx → obey it
//! (the first 500 KiB), 4xx → everything allowed, 5xx or unreachable → unavailable for now
//! (the engine retries with back-off, then crawls the site under "everything disallowed").
//! Up to five redirects are followed (to any host); more count as "unavailable", which
//! RFC 9309 treats like 4xx. As for pages, the decisions are in a walk without I/O
//! ([`RobotsWalk`]) that `fetch_robots` drives with the blocking client.

use std::time::{Instant, SystemTime};

use super::head::MAX_HOPS;
use super::response::Head;
use super::retry::{Transient, is_transient_status};
use super::{FetchEnv, FetchError, HttpClient, RobotsAnswer};
use crate::base::ids::SiteId;
use crate::crawl::message::Log;
use crate::model::robots::{AllowAll, MAX_ROBOTS_BYTES};
use crate::model::url_norm::{self, NormUrl};

/// Fetches the robots.txt at `robots_url` for site `site_id` (one of its origins).
pub(super) fn fetch_robots(
    env: &FetchEnv<'_>,
    client: &HttpClient,
    site_id: SiteId,
    robots_url: &NormUrl,
    log: &Log,
) -> RobotsAnswer {
    let site = env.sites.get(site_id);
    let mut walk = RobotsWalk::new(env, site_id, robots_url, log);
    loop {
        let Some(url) = walk.next_request() else {
            return walk.too_many_hops();
        };
        let Some((sent, started)) = client.get_in_turn(env, &site, &url, None) else {
            return RobotsAnswer::Abandoned;
        };
        let response = match sent {
            Ok(r) => r,
            Err(e) => return walk.transport_error(&url, e, started),
        };
        match walk.head(&url, Head::of(&response), started) {
            RobotsStep::Next => {}
            RobotsStep::Done(answer) => return answer,
            RobotsStep::Body => {
                // RFC 9309 §2.5: parse at least 500 KiB; the rest is ignored.
                let body = response.read_body_truncated(MAX_ROBOTS_BYTES as u64);
                return walk.body(&url, body, started);
            }
        }
    }
}

/// What an answer's head means for a robots.txt fetch.
pub(crate) enum RobotsStep {
    /// A redirect: request [`RobotsWalk::next_request`] next.
    Next,
    /// The answer.
    Done(RobotsAnswer),
    /// A 2xx: read the body (its first [`MAX_ROBOTS_BYTES`]) and give it to
    /// [`RobotsWalk::body`].
    Body,
}

/// A robots.txt fetch along its redirects, without I/O (see `page::Walk`).
pub(crate) struct RobotsWalk<'a> {
    env: &'a FetchEnv<'a>,
    site: SiteId,
    log: &'a Log,
    /// The URL to request next: robots.txt, then each redirect's target.
    url: NormUrl,
    /// Requests made.
    requests: usize,
    /// The last answer's status.
    status: u16,
    /// Names of the cookies the last answer set, for its common log line.
    set_cookie: String,
    /// The answer whose body is being read, for the archive.
    pending: Option<crate::formats::warc::Capture>,
}

impl<'a> RobotsWalk<'a> {
    /// The fetch of `robots_url` for `site`.
    pub(crate) fn new(
        env: &'a FetchEnv<'a>,
        site: SiteId,
        robots_url: &NormUrl,
        log: &'a Log,
    ) -> Self {
        RobotsWalk {
            env,
            site,
            log,
            url: robots_url.clone(),
            requests: 0,
            status: 0,
            set_cookie: String::new(),
            pending: None,
        }
    }

    /// The `Cookie` header for a request to `url`: robots.txt behind a cookie wall is fetched
    /// as the site's pages are (SPEC §14).
    pub(crate) fn cookie(&self, url: &NormUrl) -> Option<String> {
        if !self.env.options.cookies {
            return None;
        }
        self.env
            .sites
            .get(self.site)
            .cookies
            .header_for(url.as_url())
    }

    /// The common log line of a request to `url`, with the cookies its answer set.
    fn logged(&mut self, url: &NormUrl, status: u16, bytes: u64, started: Instant) {
        let set_cookie = std::mem::take(&mut self.set_cookie);
        self.log
            .request_setting(self.site, url, status, bytes, started, set_cookie);
    }

    /// The URL to request now; `None` after the first request and five redirects.
    pub(crate) fn next_request(&mut self) -> Option<NormUrl> {
        if self.requests > MAX_HOPS {
            return None;
        }
        self.requests += 1;
        Some(self.url.clone())
    }

    /// More than five redirects: "unavailable", which RFC 9309 treats like 4xx.
    pub(crate) fn too_many_hops(&self) -> RobotsAnswer {
        RobotsAnswer::Rules(AllowAll::shared())
    }

    /// No answer at all.
    pub(crate) fn transport_error(
        &mut self,
        url: &NormUrl,
        e: FetchError,
        started: Instant,
    ) -> RobotsAnswer {
        if e != FetchError::Abandoned {
            self.logged(url, 0, 0, started);
            if self.env.archive.is_some() {
                let cookie = self.cookie(url);
                self.env
                    .archive_failure(url, (cookie.as_deref(), None), started, &e);
            }
        }
        failed(e)
    }

    /// What the answer to `url` means, from its head (archived now when its body is not
    /// read).
    pub(crate) fn head(
        &mut self,
        url: &NormUrl,
        response: Head<'_>,
        started: Instant,
    ) -> RobotsStep {
        let capture = self.env.archive.and_then(|_| {
            let cookie = self.cookie(url);
            self.env
                .capture(url, &response, (cookie.as_deref(), None), started)
        });
        let step = self.read_head(url, response, started);
        match step {
            RobotsStep::Body => self.pending = capture,
            _ => self.env.archive(capture.as_ref(), None),
        }
        step
    }

    fn read_head(&mut self, url: &NormUrl, response: Head<'_>, started: Instant) -> RobotsStep {
        if self.env.options.cookies && !response.set_cookies.is_empty() {
            let jar = &self.env.sites.get(self.site).cookies;
            self.set_cookie = jar.store(url.as_url(), response.set_cookies).names;
        }
        let status = response.status;
        self.status = status;
        if !(200..=299).contains(&status) {
            self.logged(url, status, 0, started);
        }
        match status {
            200..=299 => RobotsStep::Body,
            301 | 302 | 303 | 307 | 308 => {
                let next = response
                    .location
                    .and_then(|l| url_norm::normalize(url.as_url(), l.trim()).ok());
                match next {
                    Some(n) => {
                        self.url = n;
                        RobotsStep::Next
                    }
                    None => RobotsStep::Done(RobotsAnswer::Rules(AllowAll::shared())),
                }
            }
            s if is_transient_status(s) => RobotsStep::Done(RobotsAnswer::Unavailable {
                why: format!("status {s}"),
                transient: Some(Transient::status(
                    s,
                    response.retry_after,
                    SystemTime::now(),
                )),
            }),
            400..=499 => RobotsStep::Done(RobotsAnswer::Rules(AllowAll::shared())),
            s => RobotsStep::Done(RobotsAnswer::Unavailable {
                why: format!("status {s}"),
                transient: None,
            }),
        }
    }

    /// A 2xx answer's body (its first [`MAX_ROBOTS_BYTES`]): the rules to obey.
    pub(crate) fn body(
        &mut self,
        url: &NormUrl,
        body: Result<Vec<u8>, FetchError>,
        started: Instant,
    ) -> RobotsAnswer {
        let bytes = body.as_ref().map_or(0, Vec::len) as u64;
        self.logged(url, self.status, bytes, started);
        if body.as_ref().err() != Some(&FetchError::Abandoned) {
            let capture = self.pending.take();
            self.env.archive(capture.as_ref(), Some(body.as_deref()));
        }
        match body {
            Ok(body) => RobotsAnswer::Rules(crate::model::robots::with_sitemaps(
                (self.env.robots)(&body, &self.env.options.robots_agent),
                &body,
            )),
            Err(e) => failed(e),
        }
    }
}

/// A transport failure: the crawl stopping, or robots.txt unavailable (for now, when trying
/// again may help).
fn failed(e: FetchError) -> RobotsAnswer {
    if e == FetchError::Abandoned {
        return RobotsAnswer::Abandoned;
    }
    RobotsAnswer::Unavailable {
        why: e.to_string(),
        transient: e.is_transient().then(Transient::transport),
    }
}

/// Why a site's pages are not fetched when its robots.txt is unavailable for `why`: a host
/// that does not resolve is `host not found` (its robots.txt is not what failed), anything
/// else `robots.txt unavailable (why)`.
pub(crate) fn unavailable_reason(why: &str) -> String {
    let host_not_found = FetchError::HostNotFound.to_string();
    if why == host_not_found {
        host_not_found
    } else {
        format!("robots.txt unavailable ({why})")
    }
}

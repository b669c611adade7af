//! Fetching one URL of the crawl (SPEC §2.3–§2.5): robots checked for the URL and every
//! redirect hop (each origin's own robots.txt, fetched before its first other request),
//! redirects 301/302/303/307/308 and meta refreshes followed up to 5 hops (relative targets
//! resolved), a hop to another site makes the link external — except on the home page's
//! chain, whose origins become aliases of the site (SPEC §2) — a loop or a sixth hop makes it a
//! bad link, and only a final 200 with an HTML Content-Type is read.

use std::sync::Arc;
use std::time::{Instant, SystemTime};

use super::client::{HttpClient, Response, is_html};
use super::retry::{Transient, is_transient_status, parse_retry_after};
use super::robots_txt::fetch_robots;
use super::{PageResult, RobotsAnswer};
use crate::context::{Context, Log};
use crate::data::HopClaim;
use crate::message::{Downloaded, Failure, FetchTask, Hop, HopKind, Outcome};
use crate::parse::refresh::meta_refresh;
use crate::robots::DisallowAll;
use crate::site::Origin;
use crate::sites::{SiteEntry, SiteOrigin, SiteView};
use crate::url_norm::{self, NormUrl, UrlError};
use crate::url_rules::{non_html_extension, repeating_segment, too_many_parameters};

/// Most redirect hops followed (SPEC §2.4).
pub(crate) const MAX_HOPS: usize = 5;

fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// What one answer means for the walk along the redirect chain.
// A step lives on the stack for one answer and is returned at once: boxing the large variant
// would allocate once a page to save a move.
#[allow(clippy::large_enum_variant)]
enum Step {
    /// Request this URL next (a redirect hop).
    Next(NormUrl),
    /// The walk ends here.
    Done(PageResult),
}

/// One task's walk along its redirect chain.
struct Walk<'a> {
    ctx: &'a Context,
    client: &'a HttpClient,
    task: &'a FetchTask,
    site: Arc<SiteEntry>,
    log: &'a Log,
    /// Hops after the task URL so far.
    chain: Vec<Hop>,
}

pub(super) fn fetch_page(
    ctx: &Context,
    client: &HttpClient,
    task: &FetchTask,
    log: &Log,
) -> PageResult {
    let mut walk = Walk {
        ctx,
        client,
        task,
        site: ctx.sites.get(task.site),
        log,
        chain: Vec::new(),
    };
    let mut url = task.url.clone();
    loop {
        if let Some(stop) = walk.before_request(&url) {
            return stop;
        }
        // Every request waits for the site's turn (its delay), right before it is sent.
        let Some(turn) = ctx.dispatcher.pace(task.site) else {
            return PageResult::Abandoned;
        };
        let started = Instant::now();
        let sent = client.get(task.site, walk.site.spec.max_downloads, &url, &turn);
        drop(turn);
        let response = match sent {
            Ok(r) => r,
            Err(e) => return walk.transport_error(&url, e, started),
        };
        match walk.answer(&url, response, started) {
            Step::Next(next) => url = next,
            Step::Done(result) => return result,
        }
    }
}

impl Walk<'_> {
    fn failed(&mut self, failure: Failure) -> PageResult {
        PageResult::Done(self.outcome(failure))
    }

    fn outcome(&mut self, failure: Failure) -> Outcome {
        Outcome::Failed {
            task: self.task.clone(),
            chain: std::mem::take(&mut self.chain),
            failure,
        }
    }

    /// The checks before requesting `url`: its origin's robots.txt (fetched first if this is
    /// the origin's first request), and the URL rules for a redirect hop. `Some` ends the walk.
    fn before_request(&mut self, url: &NormUrl) -> Option<PageResult> {
        if let Some(origin) = self.site.origin_of(url.as_url()) {
            let robots = match origin.robots() {
                Some(r) => Arc::clone(r),
                None => match self.alias_robots(&origin) {
                    Ok(r) => r,
                    Err(stop) => return Some(*stop),
                },
            };
            if !robots.allowed(url.path_and_query()) {
                let reason = robots.denial_reason().to_owned();
                return Some(self.failed(Failure::without_request(reason)));
            }
        }
        if !self.chain.is_empty() {
            if let Some(ext) = non_html_extension(url.path()) {
                let reason = format!("not html (extension {ext})");
                return Some(self.failed(Failure::without_request(reason)));
            }
            let repeats = self.ctx.settings.sites.max_segment_repeats;
            if let Some(seg) = repeating_segment(url.path(), repeats) {
                let reason = format!("repeating path segment ({seg})");
                return Some(self.failed(Failure::without_request(reason)));
            }
            let most = self.ctx.settings.sites.max_query_parameters;
            if let Some(n) = too_many_parameters(url.as_url(), most) {
                let reason = format!("too many query parameters ({n})");
                return Some(self.failed(Failure::without_request(reason)));
            }
        }
        None
    }

    /// The robots.txt rules of an alias origin, fetched now if no request has fetched them
    /// yet (one downloader fetches, the others wait for it). The listed origin's robots.txt
    /// is the site's first task; aliases are found later, on the home page's chain or in
    /// links to the other scheme.
    fn alias_robots(
        &mut self,
        origin: &SiteOrigin,
    ) -> Result<Arc<dyn crate::robots::RobotsRules>, Box<PageResult>> {
        let site = Arc::clone(&self.site);
        let _fetching = site.robots_fetch_lock();
        if let Some(r) = origin.robots() {
            return Ok(Arc::clone(r));
        }
        let robots_url = origin.origin.robots_url();
        let answer = fetch_robots(self.ctx, self.client, self.task.site, &robots_url, self.log);
        let rules = match answer {
            RobotsAnswer::Rules(rules) => rules,
            RobotsAnswer::Abandoned => return Err(Box::new(PageResult::Abandoned)),
            RobotsAnswer::Unavailable { why, transient } => {
                let reason = format!("robots.txt unavailable ({why})");
                if let Some(transient) = transient {
                    // Unavailable for now: this URL is retried with the site's back-off, and
                    // robots.txt with it.
                    let outcome = self.outcome(Failure::fetched(reason));
                    return Err(Box::new(PageResult::Retry { outcome, transient }));
                }
                self.log.problem(
                    &origin.origin,
                    &robots_url,
                    format!("{reason}: nothing will be fetched"),
                );
                Arc::new(DisallowAll { reason })
            }
        };
        origin.set_robots(Arc::clone(&rules));
        Ok(rules)
    }

    /// No answer at all: a failure, retried when it may pass.
    fn transport_error(
        &mut self,
        url: &NormUrl,
        e: super::FetchError,
        started: Instant,
    ) -> PageResult {
        if e == super::FetchError::Abandoned {
            return PageResult::Abandoned;
        }
        self.log.request(self.site.id, url, 0, 0, started);
        self.log.problem(&self.site.origin, url, e.to_string());
        let outcome = self.outcome(Failure::fetched(e.to_string()));
        if e.is_transient() {
            return PageResult::Retry {
                outcome,
                transient: Transient {
                    retry_after: None,
                    transport: true,
                    overload: false,
                },
            };
        }
        PageResult::Done(outcome)
    }

    /// What the answer to `url` means.
    fn answer(&mut self, url: &NormUrl, response: Response, started: Instant) -> Step {
        let status = response.status;
        if status != 200 || !is_html(response.content_type.as_deref()) {
            self.log.request(self.site.id, url, status, 0, started);
        }
        if is_transient_status(status) {
            let retry_after = response
                .retry_after
                .as_deref()
                .and_then(|v| parse_retry_after(v, SystemTime::now()));
            let outcome = self.outcome(Failure::fetched(format!("status {status}")));
            return Step::Done(PageResult::Retry {
                outcome,
                transient: Transient {
                    overload: status == 429 || status == 503 || retry_after.is_some(),
                    retry_after,
                    transport: false,
                },
            });
        }
        if is_redirect(status) {
            let Some(location) = response.location.as_deref() else {
                let reason = format!("status {status} without Location");
                return Step::Done(self.failed(Failure::fetched(reason)));
            };
            let next = match url_norm::normalize(url.as_url(), location.trim()) {
                Ok(n) => n,
                Err(UrlError::Scheme(s)) => {
                    let reason = format!("redirect to scheme {s}");
                    return Step::Done(self.failed(Failure::fetched(reason)));
                }
                Err(e) => {
                    let reason = format!("bad redirect ({e})");
                    return Step::Done(self.failed(Failure::fetched(reason)));
                }
            };
            return self.hop(next, HopKind::Http);
        }
        if status != 200 {
            return Step::Done(self.failed(Failure::fetched(format!("status {status}"))));
        }
        if !is_html(response.content_type.as_deref()) {
            let ct = response
                .content_type
                .as_deref()
                .unwrap_or("no content type");
            let essence = ct
                .split(';')
                .next()
                .unwrap_or(ct)
                .trim()
                .to_ascii_lowercase();
            return Step::Done(self.failed(Failure::fetched(format!("not html ({essence})"))));
        }
        self.read_page(url, response, started)
    }

    /// Follows a hop to `next`: the next request, or the end of the walk (another site, a
    /// loop, too many hops).
    fn hop(&mut self, next: NormUrl, kind: HopKind) -> Step {
        if !self.site.contains(next.as_url()) && !self.home_alias(&next) {
            // Another site of the same scope (a multi-host filter, SPEC §6): that site fetches
            // it, with its own robots.txt and politeness.
            let origins = self.site.origins();
            let view = SiteView {
                entry: &self.site,
                origins: &origins,
            };
            if let Some(site) = self
                .ctx
                .filter
                .scope_site(&view, next.as_url(), &self.ctx.sites)
                .filter(|s| *s != self.task.site)
            {
                return Step::Done(PageResult::Done(Outcome::Elsewhere {
                    task: self.task.clone(),
                    chain: std::mem::take(&mut self.chain),
                    target: Hop { url: next, kind },
                    site,
                }));
            }
            return Step::Done(PageResult::Done(Outcome::OffSite {
                task: self.task.clone(),
                chain: std::mem::take(&mut self.chain),
                target: next,
            }));
        }
        let problem = if next == self.task.url || self.chain.iter().any(|h| h.url == next) {
            Some("redirect loop")
        } else if self.chain.len() >= MAX_HOPS {
            Some("too many redirects")
        } else {
            None
        };
        if let Some(problem) = problem {
            self.log.problem(&self.site.origin, &self.task.url, problem);
            self.chain.clear();
            return Step::Done(self.failed(Failure::fetched(problem)));
        }
        // A URL is fetched once: another task fetching it (or one that did) decides it.
        if self.ctx.dm.claim_hop(self.task, &next) == HopClaim::Taken {
            return Step::Done(PageResult::Done(Outcome::Elsewhere {
                task: self.task.clone(),
                chain: std::mem::take(&mut self.chain),
                target: Hop { url: next, kind },
                site: self.task.site,
            }));
        }
        self.chain.push(Hop {
            url: next.clone(),
            kind,
        });
        Step::Next(next)
    }

    /// On the home page's chain, a hop to another origin makes that origin an alias of the
    /// site (SPEC §2: `http://x.org` that moved to `https://www.x.org/` is crawled as that
    /// site) — unless another listed site has it. Returns whether `next` is on the site now.
    fn home_alias(&self, next: &NormUrl) -> bool {
        if self.task.level != 0 {
            return false;
        }
        let Some(origin) = Origin::of(next.as_url()) else {
            return false;
        };
        match self.ctx.sites.add_alias(self.task.site, origin) {
            Ok(added) => {
                self.log.note(format!(
                    "{}: the home page moved to {} (an alias of the site)",
                    self.site.origin, added.origin
                ));
                true
            }
            Err(_) => false,
        }
    }

    /// A 200 HTML answer: its body for the parsers — or, when it refreshes elsewhere soon
    /// enough (`MetaRefreshMaxDelay`), a hop like a 302.
    fn read_page(&mut self, url: &NormUrl, response: Response, started: Instant) -> Step {
        let content_type = response.content_type.clone();
        let cap = self.ctx.settings.http.max_page_bytes;
        let expected = response.declared_body_len().map_or(0, |n| n.min(cap));
        let mut permit = self
            .ctx
            .bodies
            .acquire(expected, || self.ctx.stop.is_requested());
        let body = match response.read_body(cap) {
            Ok(body) => body,
            Err(super::FetchError::Abandoned) => return Step::Done(PageResult::Abandoned),
            Err(e) => {
                self.log.request(self.site.id, url, 200, 0, started);
                self.log.problem(&self.site.origin, url, e.to_string());
                return Step::Done(self.failed(Failure::fetched(e.to_string())));
            }
        };
        permit.resize(body.len() as u64);
        self.log
            .request(self.site.id, url, 200, body.len() as u64, started);
        let tld = url.host().rsplit('.').next();
        let refresh = meta_refresh(&body, content_type.as_deref(), tld)
            .filter(|r| r.delay <= self.ctx.settings.sites.meta_refresh_max_delay)
            .and_then(|r| r.url)
            .and_then(|target| url_norm::normalize(url.as_url(), target.trim()).ok())
            .filter(|next| next != url);
        if let Some(next) = refresh {
            return self.hop(next, HopKind::MetaRefresh);
        }
        Step::Done(PageResult::Page(Downloaded {
            chain: std::mem::take(&mut self.chain),
            content_type,
            body,
            permit,
        }))
    }
}

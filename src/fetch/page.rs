//! Fetching one URL of the crawl (SPEC §2.3–§2.5): robots checked for the URL and every
//! redirect hop, redirects 301/302/303/307/308 followed up to 5 hops (relative `Location`
//! resolved), a redirect to another site makes the link external, a loop or a sixth hop makes
//! it a bad link, and only a final 200 with an HTML Content-Type is read.

use std::sync::Arc;
use std::time::{Instant, SystemTime};

use super::PageResult;
use super::client::{HttpClient, Response, is_html};
use super::retry::{Transient, is_transient_error, is_transient_status, parse_retry_after};
use crate::context::{Context, Log};
use crate::message::{Downloaded, Failure, FetchTask, Outcome};
use crate::robots::{AllowAll, RobotsRules};
use crate::sites::SiteEntry;
use crate::url_norm::{self, NormUrl, UrlError};
use crate::url_rules::{non_html_extension, repeating_segment};

/// Most redirect hops followed (SPEC §2.4).
pub(crate) const MAX_HOPS: usize = 5;

fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// What one answer means for the walk along the redirect chain.
enum Step {
    /// Request this URL next (a redirect hop).
    Next(NormUrl),
    /// The walk ends here.
    Done(PageResult),
}

/// One task's walk along its redirect chain.
struct Walk<'a> {
    ctx: &'a Context,
    task: &'a FetchTask,
    site: Arc<SiteEntry>,
    log: &'a Log,
    /// Hops after the task URL so far.
    chain: Vec<NormUrl>,
}

pub(super) fn fetch_page(
    ctx: &Context,
    client: &HttpClient,
    task: &FetchTask,
    log: &Log,
) -> PageResult {
    let mut walk = Walk {
        ctx,
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

    /// The checks before requesting `url`: robots.txt for every URL, the URL rules for a
    /// redirect hop. `Some` ends the walk.
    fn before_request(&mut self, url: &NormUrl) -> Option<PageResult> {
        let allow_all = AllowAll;
        let robots: &dyn RobotsRules = match self.site.robots() {
            Some(r) => r.as_ref(),
            None => &allow_all,
        };
        if !robots.allowed(url.path_and_query()) {
            let reason = robots.denial_reason().to_owned();
            return Some(self.failed(Failure::without_request(reason)));
        }
        if !self.chain.is_empty() {
            if let Some(ext) = non_html_extension(url.path()) {
                let reason = format!("not html (extension {ext})");
                return Some(self.failed(Failure::without_request(reason)));
            }
            let repeats = self.ctx.settings.max_segment_repeats;
            if let Some(seg) = repeating_segment(url.path(), repeats) {
                let reason = format!("repeating path segment ({seg})");
                return Some(self.failed(Failure::without_request(reason)));
            }
        }
        None
    }

    /// No answer at all: a failure, retried when it may pass.
    fn transport_error(
        &mut self,
        url: &NormUrl,
        e: super::FetchError,
        started: Instant,
    ) -> PageResult {
        self.log.request(self.site.id, url, 0, 0, started);
        self.log.problem(&self.site.origin, url, e.to_string());
        let outcome = self.outcome(Failure::fetched(e.to_string()));
        if is_transient_error(&e) {
            return PageResult::Retry {
                outcome,
                transient: Transient {
                    retry_after: None,
                    transport: true,
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
                    retry_after,
                    transport: false,
                },
            });
        }
        if is_redirect(status) {
            return self.redirect(url, response.location.as_deref(), status);
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
        Step::Done(self.read_page(url, response, started))
    }

    /// A redirect: the next hop, or the end of the walk (off-site, loop, too many hops).
    fn redirect(&mut self, url: &NormUrl, location: Option<&str>, status: u16) -> Step {
        let Some(location) = location else {
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
                return Step::Done(self.failed(Failure::fetched(format!("bad redirect ({e})"))));
            }
        };
        if !self.site.origin.contains(next.as_url()) {
            return Step::Done(PageResult::Done(Outcome::OffSite {
                task: self.task.clone(),
                chain: std::mem::take(&mut self.chain),
                target: next,
            }));
        }
        let problem = if next == self.task.url || self.chain.contains(&next) {
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
        self.chain.push(next.clone());
        Step::Next(next)
    }

    /// A 200 HTML answer: its body, for the parsers.
    fn read_page(&mut self, url: &NormUrl, response: Response, started: Instant) -> PageResult {
        let content_type = response.content_type.clone();
        match response.read_body(self.ctx.settings.max_page_bytes) {
            Ok(body) => {
                self.log
                    .request(self.site.id, url, 200, body.len() as u64, started);
                PageResult::Page(Downloaded {
                    chain: std::mem::take(&mut self.chain),
                    content_type,
                    body,
                })
            }
            Err(e) => {
                self.log.request(self.site.id, url, 200, 0, started);
                self.log.problem(&self.site.origin, url, e.to_string());
                self.failed(Failure::fetched(e.to_string()))
            }
        }
    }
}

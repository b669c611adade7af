//! Fetching one URL of the crawl (SPEC §2.3–§2.5): robots checked for the URL and every
//! redirect hop, redirects 301/302/303/307/308 followed up to 5 hops (relative `Location`
//! resolved), a redirect to another site makes the link external, a loop or a sixth hop makes
//! it a bad link, and only a final 200 with an HTML Content-Type is read.

use std::time::{Instant, SystemTime};

use super::client::is_html;
use super::retry::{Transient, is_transient_error, is_transient_status, parse_retry_after};
use crate::context::{Context, Log};
use crate::message::{Failure, FetchTask, Fetched, Outcome};
use crate::robots::{AllowAll, RobotsRules};
use crate::url_norm::{self, NormUrl, UrlError};
use crate::url_rules::{non_html_extension, repeating_segment};

/// Most redirect hops followed (SPEC §2.4).
pub(crate) const MAX_HOPS: usize = 5;

/// What fetching a URL gave.
#[derive(Debug)]
pub(crate) enum PageResult {
    /// An HTML page for the parsers.
    Page(Fetched),
    /// A final outcome without a page.
    Done(Outcome),
    /// A failure that may pass: retry later, or record `outcome` when retries are used up.
    Retry {
        /// What to record if it is not retried.
        outcome: Outcome,
        /// Why it may pass.
        transient: Transient,
    },
    /// The crawl is stopping: the URL goes back to the frontier.
    Abandoned,
}

fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

pub(crate) fn fetch_page(ctx: &Context, task: &FetchTask, log: &Log) -> PageResult {
    let site = ctx.sites.get(task.site);
    let allow_all = AllowAll;
    let robots: &dyn RobotsRules = match site.robots() {
        Some(r) => r.as_ref(),
        None => &allow_all,
    };
    let failed = |chain: Vec<NormUrl>, failure: Failure| {
        PageResult::Done(Outcome::Failed {
            task: task.clone(),
            chain,
            failure,
        })
    };
    let mut chain: Vec<NormUrl> = Vec::new();
    let mut cur = task.url.clone();
    loop {
        if !robots.allowed(cur.path_and_query()) {
            return failed(chain, Failure::static_(robots.denial_reason()));
        }
        if !chain.is_empty() {
            if let Some(ext) = non_html_extension(cur.path()) {
                return failed(
                    chain,
                    Failure::static_(format!("not html (extension {ext})")),
                );
            }
            if let Some(seg) = repeating_segment(cur.path(), ctx.settings.max_segment_repeats) {
                return failed(
                    chain,
                    Failure::static_(format!("repeating path segment ({seg})")),
                );
            }
            if !ctx.dispatcher.hop(task.site) {
                return PageResult::Abandoned;
            }
        }
        let started = Instant::now();
        let response = match ctx.client.get(task.site, site.spec.max_downloads, &cur) {
            Ok(r) => r,
            Err(e) => {
                log.request(site.id, &cur, 0, 0, started);
                log.problem(&site.origin, &cur, e.to_string());
                let outcome = Outcome::Failed {
                    task: task.clone(),
                    chain,
                    failure: Failure::fetched(e.to_string()),
                };
                if is_transient_error(&e) {
                    return PageResult::Retry {
                        outcome,
                        transient: Transient {
                            retry_after: None,
                            transport: true,
                        },
                    };
                }
                return PageResult::Done(outcome);
            }
        };
        let status = response.status;
        if is_transient_status(status) {
            log.request(site.id, &cur, status, 0, started);
            let retry_after = response
                .retry_after
                .as_deref()
                .and_then(|v| parse_retry_after(v, SystemTime::now()));
            let outcome = Outcome::Failed {
                task: task.clone(),
                chain,
                failure: Failure::fetched(format!("status {status}")),
            };
            return PageResult::Retry {
                outcome,
                transient: Transient {
                    retry_after,
                    transport: false,
                },
            };
        }
        if is_redirect(status) {
            log.request(site.id, &cur, status, 0, started);
            let Some(location) = response.location.clone() else {
                return failed(
                    chain,
                    Failure::fetched(format!("status {status} without Location")),
                );
            };
            let next = match url_norm::normalize(cur.as_url(), location.trim()) {
                Ok(n) => n,
                Err(UrlError::Scheme(s)) => {
                    return failed(chain, Failure::fetched(format!("redirect to scheme {s}")));
                }
                Err(e) => return failed(chain, Failure::fetched(format!("bad redirect ({e})"))),
            };
            if !site.origin.contains(next.as_url()) {
                return PageResult::Done(Outcome::OffSite {
                    task: task.clone(),
                    chain,
                    target: next,
                });
            }
            if next == task.url || chain.contains(&next) {
                log.problem(&site.origin, &task.url, "redirect loop");
                return failed(Vec::new(), Failure::fetched("redirect loop"));
            }
            if chain.len() >= MAX_HOPS {
                log.problem(&site.origin, &task.url, "too many redirects");
                return failed(Vec::new(), Failure::fetched("too many redirects"));
            }
            chain.push(next.clone());
            cur = next;
            continue;
        }
        if status != 200 {
            log.request(site.id, &cur, status, 0, started);
            return failed(chain, Failure::fetched(format!("status {status}")));
        }
        if !is_html(response.content_type.as_deref()) {
            log.request(site.id, &cur, status, 0, started);
            let ct = response
                .content_type
                .as_deref()
                .unwrap_or("no content type");
            let ct = ct
                .split(';')
                .next()
                .unwrap_or(ct)
                .trim()
                .to_ascii_lowercase();
            return failed(chain, Failure::fetched(format!("not html ({ct})")));
        }
        let content_type = response.content_type.clone();
        return match response.read_body(ctx.settings.max_page_bytes) {
            Ok(body) => {
                log.request(site.id, &cur, status, body.len() as u64, started);
                PageResult::Page(Fetched {
                    task: task.clone(),
                    chain,
                    content_type,
                    body,
                })
            }
            Err(e) => {
                log.request(site.id, &cur, status, 0, started);
                log.problem(&site.origin, &cur, e.to_string());
                failed(chain, Failure::fetched(e.to_string()))
            }
        };
    }
}

//! Fetching a site's robots.txt, its first request (SPEC §2.1, RFC 9309 §2.3): 2xx → obey it
//! (the first 500 KiB), 4xx → everything allowed, 5xx or unreachable → everything
//! disallowed "for now": tried again with back-off up to `MaxRetries`, then the site is
//! crawled under "everything disallowed". Up to five redirects are followed (to any host);
//! more count as "unavailable", which RFC 9309 treats like 4xx.

use std::sync::Arc;
use std::time::{Instant, SystemTime};

use super::page::MAX_HOPS;
use super::retry::{
    Transient, back_off, is_transient_error, is_transient_status, parse_retry_after,
};
use crate::context::{Context, Log};
use crate::message::FetchTask;
use crate::robots::{AllowAll, DisallowAll, MAX_ROBOTS_BYTES, RobotsRules};
use crate::url_norm::{self, NormUrl};

enum Answer {
    Rules(Arc<dyn RobotsRules>),
    /// Unavailable for now.
    Unavailable {
        why: String,
        transient: Option<Transient>,
    },
}

pub(crate) fn fetch_robots(ctx: &Context, task: &FetchTask, log: &Log) {
    let site = ctx.sites.get(task.site);
    let rules = match robots_rules(ctx, task, log) {
        Answer::Rules(rules) => {
            ctx.dispatcher.answered(task.site);
            rules
        }
        Answer::Unavailable { why, transient } => {
            if let Some(t) = &transient {
                if t.transport && ctx.dispatcher.transport_failed(task.site) {
                    log.problem(
                        &site.origin,
                        &task.url,
                        format!("robots.txt unavailable ({why}): the site is taken as down"),
                    );
                    ctx.dm.suspend(task.scope);
                    return;
                }
                let tries = ctx.dispatcher.robots_attempts(task.site);
                if tries < ctx.settings.max_retries && !ctx.stop.is_requested() {
                    let s = &ctx.settings;
                    let wait = back_off(
                        tries + 1,
                        s.retry_base_delay,
                        t.retry_after,
                        s.max_retry_after,
                    );
                    log.problem(
                        &site.origin,
                        &task.url,
                        format!(
                            "robots.txt unavailable ({why}): retry {} of {} in {:.1} s",
                            tries + 1,
                            s.max_retries,
                            wait.as_secs_f64()
                        ),
                    );
                    ctx.dispatcher
                        .robots_retry(task.site, Instant::now() + wait);
                    return;
                }
            }
            log.problem(
                &site.origin,
                &task.url,
                format!("robots.txt unavailable ({why}): nothing will be fetched"),
            );
            Arc::new(DisallowAll {
                reason: format!("robots.txt unavailable ({why})"),
            })
        }
    };
    site.set_robots(rules);
    ctx.dispatcher
        .robots_done(task.site, site.effective_delay());
}

fn robots_rules(ctx: &Context, task: &FetchTask, log: &Log) -> Answer {
    let site = ctx.sites.get(task.site);
    let mut url: NormUrl = task.url.clone();
    for hop in 0..=MAX_HOPS {
        if hop > 0 && !ctx.dispatcher.hop(task.site) {
            return Answer::Unavailable {
                why: "crawl stopped".into(),
                transient: None,
            };
        }
        let started = Instant::now();
        let response = match ctx.client.get(task.site, site.spec.max_downloads, &url) {
            Ok(r) => r,
            Err(e) => {
                log.request(site.id, &url, 0, 0, started);
                let transient = is_transient_error(&e).then_some(Transient {
                    retry_after: None,
                    transport: true,
                });
                return Answer::Unavailable {
                    why: e.to_string(),
                    transient,
                };
            }
        };
        let status = response.status;
        log.request(site.id, &url, status, 0, started);
        match status {
            200..=299 => {
                // RFC 9309 §2.5: parse at least 500 KiB; the rest is ignored.
                return match response.read_body_truncated(MAX_ROBOTS_BYTES as u64) {
                    Ok(body) => Answer::Rules(
                        ctx.settings
                            .robots
                            .parse(&body, ctx.settings.robots_agent()),
                    ),
                    Err(e) => {
                        let transient = is_transient_error(&e).then_some(Transient {
                            retry_after: None,
                            transport: true,
                        });
                        Answer::Unavailable {
                            why: e.to_string(),
                            transient,
                        }
                    }
                };
            }
            301 | 302 | 303 | 307 | 308 => {
                let next = response
                    .location
                    .as_deref()
                    .and_then(|l| url_norm::normalize(url.as_url(), l.trim()).ok());
                match next {
                    Some(n) => url = n,
                    None => return Answer::Rules(Arc::new(AllowAll)),
                }
            }
            s if is_transient_status(s) => {
                let retry_after = response
                    .retry_after
                    .as_deref()
                    .and_then(|v| parse_retry_after(v, SystemTime::now()));
                let transient = Some(Transient {
                    retry_after,
                    transport: false,
                });
                return Answer::Unavailable {
                    why: format!("status {s}"),
                    transient,
                };
            }
            400..=499 => return Answer::Rules(Arc::new(AllowAll)),
            s => {
                return Answer::Unavailable {
                    why: format!("status {s}"),
                    transient: None,
                };
            }
        }
    }
    // More than five redirects: "unavailable", which RFC 9309 treats like 4xx.
    Answer::Rules(Arc::new(AllowAll))
}

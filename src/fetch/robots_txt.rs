//! Fetching a site's robots.txt, its first request (SPEC §2.1, RFC 9309 §2.3): 2xx → obey it
//! (the first 500 KiB), 4xx → everything allowed, 5xx or unreachable → everything
//! disallowed; up to five redirects are followed, and more count as "unavailable" (allowed).

use std::sync::Arc;
use std::time::Instant;

use crate::context::{Context, Log};
use crate::message::{FetchTask, LogEvent};
use crate::robots::{AllowAll, DisallowAll, MAX_ROBOTS_BYTES, RobotsRules};
use crate::url_norm::{self, NormUrl};

use super::page::MAX_HOPS;

pub(crate) fn fetch_robots(ctx: &Context, task: &FetchTask, log: &Log) {
    let site = ctx.sites.get(task.site);
    let rules = robots_rules(ctx, task, log);
    site.set_robots(rules);
    ctx.dispatcher
        .robots_done(task.site, site.effective_delay());
}

fn robots_rules(ctx: &Context, task: &FetchTask, log: &Log) -> Arc<dyn RobotsRules> {
    let site = ctx.sites.get(task.site);
    let unavailable = |why: String| -> Arc<dyn RobotsRules> {
        log.problem(
            &site.origin,
            &task.url,
            format!("robots.txt unavailable ({why}): nothing will be fetched"),
        );
        Arc::new(DisallowAll {
            reason: format!("robots.txt unavailable ({why})"),
        })
    };
    let mut url: NormUrl = task.url.clone();
    for hop in 0..=MAX_HOPS {
        if hop > 0 && !ctx.dispatcher.hop(task.site) {
            return unavailable("crawl stopped".into());
        }
        let started = Instant::now();
        let response = match ctx.client.get(&url) {
            Ok(r) => r,
            Err(e) => {
                log_request(log, &site.origin, &url, 0, 0, started);
                return unavailable(e.to_string());
            }
        };
        let status = response.status;
        match status {
            200..=299 => {
                // RFC 9309 §2.5: parse at least 500 KiB; the rest is ignored.
                let body = match response.read_body_truncated(MAX_ROBOTS_BYTES as u64) {
                    Ok(b) => b,
                    Err(e) => return unavailable(e.to_string()),
                };
                log_request(log, &site.origin, &url, status, body.len() as u64, started);
                return ctx
                    .settings
                    .robots
                    .parse(&body, ctx.settings.robots_agent());
            }
            301 | 302 | 303 | 307 | 308 => {
                log_request(log, &site.origin, &url, status, 0, started);
                let next = response
                    .location
                    .as_deref()
                    .and_then(|l| url_norm::normalize(url.as_url(), l.trim()).ok());
                match next {
                    Some(n) => url = n,
                    None => return Arc::new(AllowAll),
                }
            }
            400..=499 => {
                log_request(log, &site.origin, &url, status, 0, started);
                return Arc::new(AllowAll);
            }
            _ => {
                log_request(log, &site.origin, &url, status, 0, started);
                return unavailable(format!("status {status}"));
            }
        }
    }
    // More than five redirects: "unavailable", which RFC 9309 treats like 4xx.
    Arc::new(AllowAll)
}

fn log_request(
    log: &Log,
    site: &impl ToString,
    url: &NormUrl,
    status: u16,
    bytes: u64,
    started: Instant,
) {
    log.send(LogEvent::Request {
        site: site.to_string(),
        url: url.to_string(),
        status,
        bytes,
        elapsed: started.elapsed(),
    });
}

//! Fetching a site's robots.txt, its first request (SPEC §2.1, RFC 9309 §2.3): 2xx → obey it
//! (the first 500 KiB), 4xx → everything allowed, 5xx or unreachable → unavailable for now
//! (the engine retries with back-off, then crawls the site under "everything disallowed").
//! Up to five redirects are followed (to any host); more count as "unavailable", which
//! RFC 9309 treats like 4xx.

use std::time::{Instant, SystemTime};

use super::page::MAX_HOPS;
use super::retry::{Transient, is_transient_status, parse_retry_after};
use super::{FetchError, HttpClient, RobotsAnswer};
use crate::context::{Context, Log};
use crate::ids::SiteId;
use crate::robots::{AllowAll, MAX_ROBOTS_BYTES};
use crate::url_norm::{self, NormUrl};

/// Fetches the robots.txt at `robots_url` for site `site_id` (one of its origins).
pub(super) fn fetch_robots(
    ctx: &Context,
    client: &HttpClient,
    site_id: SiteId,
    robots_url: &NormUrl,
    log: &Log,
) -> RobotsAnswer {
    let site = ctx.sites.get(site_id);
    let mut url: NormUrl = robots_url.clone();
    for _ in 0..=MAX_HOPS {
        let Some(turn) = ctx.dispatcher.pace(site_id) else {
            return RobotsAnswer::Abandoned;
        };
        let started = Instant::now();
        let sent = client.get(site_id, site.spec.max_downloads, &url, &turn);
        drop(turn);
        let response = match sent {
            Ok(r) => r,
            Err(FetchError::Abandoned) => return RobotsAnswer::Abandoned,
            Err(e) => {
                log.request(site.id, &url, 0, 0, started);
                let transient = e.is_transient().then_some(Transient {
                    retry_after: None,
                    transport: true,
                    overload: false,
                });
                return RobotsAnswer::Unavailable {
                    why: e.to_string(),
                    transient,
                };
            }
        };
        let status = response.status;
        if !(200..=299).contains(&status) {
            log.request(site.id, &url, status, 0, started);
        }
        match status {
            200..=299 => {
                // RFC 9309 §2.5: parse at least 500 KiB; the rest is ignored.
                let body = response.read_body_truncated(MAX_ROBOTS_BYTES as u64);
                let bytes = body.as_ref().map_or(0, Vec::len) as u64;
                log.request(site.id, &url, status, bytes, started);
                return match body {
                    Ok(body) => {
                        RobotsAnswer::Rules((ctx.robots)(&body, ctx.settings.robots_agent()))
                    }
                    Err(FetchError::Abandoned) => RobotsAnswer::Abandoned,
                    Err(e) => {
                        let transient = e.is_transient().then_some(Transient {
                            retry_after: None,
                            transport: true,
                            overload: false,
                        });
                        RobotsAnswer::Unavailable {
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
                    None => return RobotsAnswer::Rules(AllowAll::shared()),
                }
            }
            s if is_transient_status(s) => {
                let retry_after = response
                    .retry_after
                    .as_deref()
                    .and_then(|v| parse_retry_after(v, SystemTime::now()));
                let transient = Some(Transient {
                    overload: s == 429 || s == 503 || retry_after.is_some(),
                    retry_after,
                    transport: false,
                });
                return RobotsAnswer::Unavailable {
                    why: format!("status {s}"),
                    transient,
                };
            }
            400..=499 => return RobotsAnswer::Rules(AllowAll::shared()),
            s => {
                return RobotsAnswer::Unavailable {
                    why: format!("status {s}"),
                    transient: None,
                };
            }
        }
    }
    // More than five redirects: "unavailable", which RFC 9309 treats like 4xx.
    RobotsAnswer::Rules(AllowAll::shared())
}

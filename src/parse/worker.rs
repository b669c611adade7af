//! The parser thread (the paper's ParsingThread, `PT0`): decodes each fetched page, extracts
//! its links, resolves them against `<base href>` or the page address, normalizes and
//! classifies them (internal / external / bad), hashes the body, drops it, and commits the
//! page to the data manager.

use crossbeam_channel::{Receiver, select};
use url::Url;

use super::href_cache::{self, HrefCache};
use super::links::Extracted;
use super::{charset, links};
use crate::context::{Context, Log};
use crate::message::{Failure, Fetched, LinkTarget, Outcome, PageLink, PageRecord};
use crate::sites::SiteEntry;
use crate::stop::{PanicGuard, StopReason};
use crate::url_norm::{self, UrlError};
use crate::url_rules::{non_html_extension, repeating_segment};

/// Runs one parser until the crawl stops; pages already fetched are still parsed then.
pub fn run_parser(ctx: &Context, pages: Receiver<Fetched>, log: Log) {
    let _guard = PanicGuard(&ctx.stop);
    let shutdown = ctx.stop.receiver();
    let mut scratch = Scratch::new(ctx.settings.max_url_length);
    loop {
        select! {
            recv(pages) -> msg => match msg {
                Ok(fetched) => {
                    ctx.dispatcher.buffer_release();
                    handle(ctx, fetched, &mut scratch, &log);
                }
                Err(_) => return,
            },
            recv(shutdown) -> _ => break,
        }
    }
    // Finish what was already downloaded: that work is not lost.
    while let Ok(fetched) = pages.try_recv() {
        ctx.dispatcher.buffer_release();
        handle(ctx, fetched, &mut scratch, &log);
    }
}

fn handle(ctx: &Context, fetched: Fetched, scratch: &mut Scratch, log: &Log) {
    let site = ctx.sites.get(fetched.task.site);
    let page = parse_page(ctx, &site, &fetched, scratch);
    let Fetched { task, .. } = fetched;
    let outcome = Outcome::Page { task, page };
    match ctx.dm.commit(&outcome) {
        Ok(effects) => {
            ctx.dispatcher.wake(&effects.woke);
            ctx.dispatcher.observe(site.id, effects.new_external);
            if effects.page_limit_reached {
                ctx.dispatcher.suspend(site.id, "page limit");
                ctx.dm.suspend(site.scope);
                log.note(format!(
                    "{}: MaxPagesPerSite reached; the rest of its queue is kept",
                    site.origin
                ));
            }
        }
        Err(e) => ctx.stop.request(StopReason::Failed(e.to_string())),
    }
    ctx.dispatcher.settled(site.id);
}

/// What a parser thread keeps from page to page: its href cache and the buffers of link
/// extraction.
#[derive(Debug)]
pub struct Scratch {
    cache: HrefCache,
    extracted: Extracted,
}

impl Scratch {
    /// Fresh, for URLs of at most `max_url_length` bytes.
    pub fn new(max_url_length: usize) -> Self {
        Scratch {
            cache: HrefCache::new(max_url_length, href_cache::DEFAULT_ENTRIES),
            extracted: Extracted::default(),
        }
    }
}

/// Turns a fetched page into a record (pure apart from reading robots rules).
pub fn parse_page(
    ctx: &Context,
    site: &SiteEntry,
    fetched: &Fetched,
    scratch: &mut Scratch,
) -> PageRecord {
    let page_url = fetched.final_url().as_url();
    let (text, _) = charset::decode(&fetched.body, fetched.content_type.as_deref());
    let Scratch { cache, extracted } = scratch;
    links::extract_into(&text, extracted);
    let base = extracted
        .base_href
        .as_deref()
        .and_then(|b| url_norm::resolve(page_url, b.trim()).ok())
        .filter(|b| matches!(b.scheme(), "http" | "https"))
        .unwrap_or_else(|| page_url.clone());
    let links = extracted
        .links()
        .map(|raw| PageLink {
            target: classify(ctx, site, &base, raw.href, cache),
            anchor: raw.anchor.to_owned(),
        })
        .collect();
    PageRecord {
        chain: fetched.chain.clone(),
        hash: xxhash_rust::xxh3::xxh3_128(&fetched.body),
        bytes: fetched.body.len() as u64,
        title: extracted.title.clone(),
        links,
    }
}

/// Internal, external or bad (SPEC §2.8), with the link-time checks of internal URLs.
fn classify(
    ctx: &Context,
    site: &SiteEntry,
    base: &Url,
    href: &str,
    cache: &mut HrefCache,
) -> LinkTarget {
    let url = match cache.normalize(base, href) {
        Ok(u) => u,
        Err(e) => {
            // The link as resolved when it resolves (mailto:…, a too long URL), else as written.
            let raw = match &e {
                UrlError::Unparseable => href.trim().to_owned(),
                _ => url_norm::resolve(base, href)
                    .map(String::from)
                    .unwrap_or_else(|_| href.trim().to_owned()),
            };
            return LinkTarget::Bad {
                raw,
                reason: e.to_string(),
            };
        }
    };
    let Some(target_site) = ctx.filter.scope_site(site, url.as_url()) else {
        return LinkTarget::External(url);
    };
    let failure = if let Some(ext) = non_html_extension(url.path()) {
        Some(Failure::static_(format!("not html (extension {ext})")))
    } else if let Some(seg) = repeating_segment(url.path(), ctx.settings.max_segment_repeats) {
        Some(Failure::static_(format!("repeating path segment ({seg})")))
    } else {
        let entry = if target_site == site.id {
            None
        } else {
            Some(ctx.sites.get(target_site))
        };
        // Borrowed, not cloned: an Arc count touched by every link of every parser thread
        // would bounce between cores.
        let robots = entry.as_deref().unwrap_or(site).robots();
        robots
            .filter(|r| !r.allowed(url.path_and_query()))
            .map(|r| Failure::static_(r.denial_reason()))
    };
    LinkTarget::Internal {
        url,
        site: target_site,
        failure,
    }
}

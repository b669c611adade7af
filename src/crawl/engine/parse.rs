//! The parsing threads' loop: take a downloaded page, free its place in the page buffer, have
//! the `ParsingThread` component turn it into a record, and commit it through its lease. A
//! parser runs until every downloader has ended and the channel is empty: when the crawl
//! stops, every page that finished downloading — also those that finish during the stop — is
//! parsed and recorded, never fetched again.

use crossbeam_channel::Receiver;

use super::Fetched;
use super::record;
use crate::base::stop::PanicGuard;
use crate::crawl::engine::Context;
use crate::crawl::message::{Failure, LinkTarget, Log, Outcome};
use crate::crawl::parse::{PageParser, ParseEnv, ParseWorker};

/// Runs one parser thread until the crawl stops and the pages already fetched are recorded.
pub(super) fn run(ctx: &Context, parser: &dyn PageParser, pages: Receiver<Fetched>, log: Log) {
    let _guard = PanicGuard(&ctx.stop);
    let env = ctx.parse_env();
    let mut worker = parser.worker(&env);
    for fetched in pages.iter() {
        handle(ctx, &env, &mut *worker, fetched, &log);
    }
}

fn handle(
    ctx: &Context,
    env: &ParseEnv<'_>,
    worker: &mut dyn ParseWorker,
    fetched: Fetched,
    log: &Log,
) {
    let Fetched {
        mut lease,
        mut page,
    } = fetched;
    lease.free_buffer();
    // The page's answer is archived before it is recorded (a crawl killed in between fetches
    // it again), its links next to it once they are read.
    let archived =
        ctx.archive
            .as_deref()
            .zip(page.capture.take())
            .and_then(|(archive, capture)| {
                Some((
                    archive,
                    archive.answer(&capture, crate::formats::warc::BodyRead::Read(&page.body))?,
                ))
            });
    let kept = super::render::Kept::of(ctx, lease.task(), &page);
    let mut record = worker.parse(env, lease.task(), page);
    let mut rendered = None;
    if let Some(kept) = kept {
        (record, rendered) =
            super::render::after_parse(ctx, env, worker, lease.task(), (record, kept), log);
    }
    let task = lease.task().clone();
    if let Some((archive, page)) = archived {
        // The level it was fetched at (an orphan from a sitemap: one past maxCrawlLevel).
        archive.metadata(&page, Some(task.level), &outlinks(&record.links));
        if let Some((dom, requests)) = &rendered {
            archive.conversion(&page, dom, *requests);
        }
    }
    if let Some(problem) = record.problem.take() {
        let site = env.sites.get(task.site);
        let url = record.chain.last().map_or(&task.url, |hop| &hop.url);
        log.problem(&site.origin, url, problem);
    }
    if let (Some(spool), Some(text)) = (&ctx.text_spool, &record.text)
        && record.rejected.is_none()
    {
        let url = record.chain.last().map_or(&task.url, |hop| &hop.url);
        let origin = spool.scope_origin(task.scope, || ctx.dm.scope_info(task.scope).origin);
        if let Err(e) = spool.append(&origin, url.as_str(), text) {
            let site = env.sites.get(task.site);
            log.problem(
                &site.origin,
                url,
                format!("text.csv: cannot keep its text ({e})"),
            );
        }
    }
    if record.links.left_out > 0 {
        let site = env.sites.get(task.site);
        let url = record.chain.last().map_or(&task.url, |hop| &hop.url);
        log.problem(
            &site.origin,
            url,
            format!(
                "{} links left out: the page links more than MaxLinksPerPage = {} URLs",
                record.links.left_out, env.options.max_links_per_page
            ),
        );
    }
    let outcome = match record.rejected {
        Some(reason) => Outcome::Failed {
            task,
            chain: record.chain,
            failure: Failure::fetched(reason),
        },
        None => Outcome::Page {
            task,
            page: Box::new(record),
        },
    };
    record::record(ctx, &mut lease, &outcome, log);
}

/// A page's links as the archive's `metadata` record lists them: each target once, in the
/// order the page first links it (a bad href as written).
fn outlinks(links: &crate::crawl::message::PageLinks) -> Vec<&str> {
    (0..links.target_count())
        .filter_map(|t| match links.target(t as u32) {
            LinkTarget::Internal { url, .. } | LinkTarget::External(url) => Some(url.as_str()),
            LinkTarget::Bad(bad) => Some(bad.raw.as_str()),
            LinkTarget::Ignored => None,
        })
        .collect()
}

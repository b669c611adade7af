//! The downloader thread loop: take a task from the dispatcher, fetch it, free the site's
//! slot, and pass the result on (HTML pages to the parsers, everything else straight to the
//! data manager). Transient failures put the URL back with the site backed off, until
//! `MaxRetries`; a site failing `SiteDownAfterFailures` times in a row is suspended.

use std::time::Instant;

use crossbeam_channel::{Sender, TrySendError, select};

use super::page::{PageResult, fetch_page};
use super::retry::{Transient, back_off};
use super::robots_txt::fetch_robots;
use crate::context::{Context, Log};
use crate::message::{FetchTask, Fetched, Outcome, TaskKind};
use crate::stop::{PanicGuard, StopReason};

/// Runs one downloader until the crawl stops.
pub fn run_downloader(ctx: &Context, pages: Sender<Fetched>, log: Log) {
    let _guard = PanicGuard(&ctx.stop);
    let shutdown = ctx.stop.receiver();
    while let Some(task) = ctx.dispatcher.acquire() {
        let site = task.site;
        if task.kind == TaskKind::Robots {
            fetch_robots(ctx, &task, &log);
            ctx.dispatcher.done(site);
            ctx.dispatcher.buffer_release();
            ctx.dispatcher.settled(site);
            continue;
        }
        let result = fetch_page(ctx, &task, &log);
        ctx.dispatcher.done(site);
        if !matches!(result, PageResult::Page(_)) {
            ctx.dispatcher.buffer_release();
        }
        match result {
            PageResult::Page(fetched) => {
                ctx.dispatcher.answered(site);
                // The parser gives the buffer place back when it takes the page, and settles
                // the task once the page is recorded. The dispatcher keeps the channel from
                // filling up, so this send does not wait; should it ever, stopping still
                // interrupts it.
                let fetched = match pages.try_send(fetched) {
                    Ok(()) => continue,
                    Err(TrySendError::Full(f)) => f,
                    Err(TrySendError::Disconnected(f)) => {
                        ctx.dm.release(&f.task);
                        ctx.dispatcher.settled(site);
                        break;
                    }
                };
                select! {
                    send(pages, fetched) -> sent => if let Err(e) = sent {
                        ctx.dm.release(&e.into_inner().task);
                        ctx.dispatcher.settled(site);
                        break;
                    },
                    recv(shutdown) -> _ => {
                        ctx.dm.release(&task);
                        ctx.dispatcher.settled(site);
                        break;
                    }
                }
            }
            PageResult::Done(outcome) => {
                ctx.dispatcher.answered(site);
                commit(ctx, &outcome);
                ctx.dispatcher.settled(site);
            }
            PageResult::Retry { outcome, transient } => {
                retry(ctx, &task, outcome, &transient, &log);
                ctx.dispatcher.settled(site);
            }
            PageResult::Abandoned => {
                ctx.dm.release(&task);
                ctx.dispatcher.settled(site);
            }
        }
    }
}

fn commit(ctx: &Context, outcome: &Outcome) {
    match ctx.dm.commit(outcome) {
        Ok(effects) => ctx.dispatcher.wake(&effects.woke),
        Err(e) => ctx.stop.request(StopReason::Failed(e.to_string())),
    }
}

/// A transient failure: back off the site and try the URL again later, or give up.
fn retry(ctx: &Context, task: &FetchTask, outcome: Outcome, transient: &Transient, log: &Log) {
    let entry = ctx.sites.get(task.site);
    if transient.transport {
        if ctx.dispatcher.transport_failed(task.site) {
            log.problem(
                &entry.origin,
                &"",
                format!(
                    "{} connection failures in a row: the site is taken as down and not crawled further in this run; its queue is kept",
                    ctx.settings.site_down_after
                ),
            );
            ctx.dm.release(task);
            ctx.dm.suspend(task.scope);
            return;
        }
    } else {
        ctx.dispatcher.answered(task.site);
    }
    let settings = &ctx.settings;
    match ctx.dm.retry(task, settings.max_retries) {
        Some(n) => {
            let wait = back_off(
                n,
                settings.retry_base_delay,
                transient.retry_after,
                settings.max_retry_after,
            );
            ctx.dispatcher.back_off(task.site, Instant::now() + wait);
            let reason = match &outcome {
                Outcome::Failed { failure, .. } => failure.reason.as_str(),
                _ => "failure",
            };
            log.problem(
                &entry.origin,
                &task.url,
                format!(
                    "{reason}: retry {n} of {} in {:.1} s",
                    settings.max_retries,
                    wait.as_secs_f64()
                ),
            );
        }
        None => commit(ctx, &outcome),
    }
}

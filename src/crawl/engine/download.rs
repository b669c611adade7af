//! The downloader threads' loop: lease a task from the dispatcher, have the `Downloader` fetch
//! it, free the site's slot, and pass the result on — HTML pages to the parsers, everything
//! else straight to the data manager. Transient failures put the URL back with the site
//! backed off, until `MaxRetries`; a site failing `SiteDownAfterFailures` times in a row is
//! suspended. Whatever path a task takes, its lease gives back what it holds.

use std::sync::Arc;
use std::time::Instant;

use crossbeam_channel::Sender;

use super::Fetched;
use super::record::record;
use crate::base::stop::PanicGuard;
use crate::crawl::engine::Context;
use crate::crawl::fetch::retry::back_off;
use crate::crawl::fetch::{Downloader, PageResult, RobotsAnswer, Transient};
use crate::crawl::message::{Log, Outcome, TaskKind};
use crate::crawl::schedule::TaskLease;
use crate::model::robots::DisallowAll;

/// Runs one downloader thread until the crawl stops.
pub(super) fn run(ctx: &Context, downloader: &dyn Downloader, pages: Sender<Fetched>, log: Log) {
    let _guard = PanicGuard(&ctx.stop);
    batch_priority();
    while let Some(lease) = ctx.dispatcher.acquire() {
        if !fetch(ctx, downloader, lease, &pages, &log) {
            break;
        }
    }
}

/// Runs a blocking downloader for the tasks an event-driven loop passes on (`DT1`: a name not
/// resolved yet, an alias's robots.txt), until the loop has ended.
pub(super) fn run_passed_on(
    ctx: &Context,
    downloader: &dyn Downloader,
    leases: crossbeam_channel::Receiver<TaskLease>,
    pages: Sender<Fetched>,
    log: Log,
) {
    let _guard = PanicGuard(&ctx.stop);
    batch_priority();
    while let Ok(lease) = leases.recv() {
        if !fetch(ctx, downloader, lease, &pages, &log) {
            break;
        }
    }
}

/// Fetches a leased task and passes its result on; `false` when the parsers are gone.
fn fetch(
    ctx: &Context,
    downloader: &dyn Downloader,
    mut lease: TaskLease,
    pages: &Sender<Fetched>,
    log: &Log,
) -> bool {
    match lease.task().kind {
        TaskKind::Robots => {
            let answer = downloader.fetch_robots(&ctx.fetch_env(), lease.task(), log);
            lease.requests_done();
            if robots_answered(ctx, &lease, answer, log) {
                lease.continue_with_sitemaps();
                read_sitemaps(ctx, downloader, &lease, log);
            }
            return true;
        }
        TaskKind::Sitemaps => {
            read_sitemaps(ctx, downloader, &lease, log);
            return true;
        }
        TaskKind::Page => {}
    }
    let result = downloader.fetch_page(&ctx.fetch_env(), lease.task(), log);
    finish(ctx, lease, result, pages, log)
}

/// What became of a page task, passed on: a page to the parsers, an outcome recorded, a
/// retry planned. `false` when the parsers are gone.
pub(super) fn finish(
    ctx: &Context,
    mut lease: TaskLease,
    result: PageResult,
    pages: &Sender<Fetched>,
    log: &Log,
) -> bool {
    lease.requests_done();
    let page = match result {
        PageResult::Page(page) => page,
        PageResult::Done(outcome) => {
            lease.free_buffer();
            ctx.dispatcher.answered(lease.task().site);
            record(ctx, &mut lease, &outcome, log);
            return true;
        }
        PageResult::Retry { outcome, transient } => {
            lease.free_buffer();
            retry(ctx, lease, outcome, &transient, log);
            return true;
        }
        PageResult::Abandoned => return true,
    };
    ctx.dispatcher.answered(lease.task().site);
    // The parser frees the buffer place when it takes the page and commits it. The
    // dispatcher keeps the channel from filling up (a task takes a place in it before it
    // starts), so this send does not wait — also while the crawl stops: a page that was
    // downloaded is parsed and kept.
    pages.send(Fetched { lease, page }).is_ok()
}

/// Transport failures in a row that read as a server in trouble: its site backs off.
const OVERLOAD_AFTER_FAILURES: u32 = 2;

/// A transient failure: try the URL again later (its site goes on meanwhile), or give up. The
/// whole site backs off only on signs of overload: 429, 503, `Retry-After`, or transport
/// failures in a row.
fn retry(ctx: &Context, mut lease: TaskLease, outcome: Outcome, transient: &Transient, log: &Log) {
    let task = lease.task().clone();
    let entry = ctx.sites.get(task.site);
    if transient.transport {
        if ctx.dispatcher.transport_failed(task.site) {
            log.problem(
                &entry.origin,
                &"",
                format!(
                    "{} connection failures in a row: the site is taken as down and not crawled further in this run; its queue is kept",
                    ctx.settings.faults.site_down_after
                ),
            );
            // The URL goes back with the lease; the scope leaves this run.
            drop(lease);
            ctx.dm.suspend(task.scope);
            ctx.maybe_settled(task.scope);
            return;
        }
    } else {
        ctx.dispatcher.answered(task.site);
    }
    let faults = &ctx.settings.faults;
    let overloaded = transient.overload
        || (transient.transport
            && ctx.dispatcher.failures_in_a_row(task.site) >= OVERLOAD_AFTER_FAILURES);
    let wait_for = |n| {
        back_off(
            n,
            faults.retry_base_delay,
            transient.retry_after,
            faults.max_retry_after,
        )
    };
    match lease.retry(faults.max_retries, wait_for) {
        Some((n, wait)) => {
            if overloaded {
                ctx.dispatcher.back_off(task.site, Instant::now() + wait);
            }
            let reason = match &outcome {
                Outcome::Failed { failure, .. } => failure.reason.as_str(),
                _ => "failure",
            };
            let whom = if overloaded {
                "the site backs off"
            } else {
                "the site goes on"
            };
            log.problem(
                &entry.origin,
                &task.url,
                format!(
                    "{reason}: retry {n} of {} in {:.1} s ({whom})",
                    faults.max_retries,
                    wait.as_secs_f64()
                ),
            );
        }
        None => record(ctx, &mut lease, &outcome, log),
    }
}

/// Reads the site's sitemaps, the rest of its robots.txt task (SPEC §17), and keeps them with
/// its scope; then the site's pages may start.
pub(super) fn read_sitemaps(
    ctx: &Context,
    downloader: &dyn Downloader,
    lease: &TaskLease,
    log: &Log,
) {
    let task = lease.task();
    if let Some(mut sitemap) = downloader.fetch_sitemaps(&ctx.fetch_env(), task, log) {
        let seeds = ctx.settings.sites.sitemap_seeds;
        if seeds {
            mark_seeds(ctx, task.site, &mut sitemap);
        }
        let woke = ctx.dm.add_sitemap(task.scope, sitemap, seeds);
        ctx.dispatcher.wake(&woke, &ctx.sites);
    }
    let site = ctx.sites.get(task.site);
    ctx.dispatcher
        .robots_done(task.site, site.effective_delay());
}

/// Marks the pages of `site`'s sitemap that may be fetched if no link reaches them
/// (`SitemapSeeds`): allowed by its robots.txt and hosts.txt's `include=`/`exclude=`, and not
/// refused by the URL rules — what a link to them would need. (Which origin of the scope a
/// page is on is known when orphans are queued: the home page may have moved meanwhile.)
fn mark_seeds(
    ctx: &Context,
    site: crate::base::ids::SiteId,
    sitemap: &mut crate::model::sitemap::Sitemap,
) {
    let entry = ctx.sites.get(site);
    let limits = ctx.settings.sites.rule_limits();
    let robots = entry.robots();
    for e in &mut sitemap.entries {
        let Ok(url) = url::Url::parse(&e.url) else {
            continue;
        };
        let pq = crate::model::robots::path_params_query(&e.url);
        e.seed = robots.as_ref().is_none_or(|r| r.allowed(&pq))
            && entry.spec.rules.allows(&pq)
            && crate::model::url_rules::refusal(&url, limits).is_none();
    }
}

/// What robots.txt said, applied: rules obeyed from now on, or another try after a back-off,
/// or — when it stays unavailable — everything disallowed (RFC 9309 §2.3.1.4). True when the
/// task goes on to read the site's sitemaps ([`read_sitemaps`]): the site's pages wait.
pub(super) fn robots_answered(
    ctx: &Context,
    lease: &TaskLease,
    answer: RobotsAnswer,
    log: &Log,
) -> bool {
    let task = lease.task();
    let site = ctx.sites.get(task.site);
    let read = matches!(answer, RobotsAnswer::Rules(_));
    let rules = match answer {
        RobotsAnswer::Rules(rules) => {
            ctx.dispatcher.answered(task.site);
            rules
        }
        RobotsAnswer::Abandoned => {
            ctx.dispatcher.robots_retry(task.site, Instant::now());
            return false;
        }
        RobotsAnswer::Unavailable { why, transient } => {
            let why = crate::crawl::fetch::unavailable_reason(&why);
            if let Some(t) = &transient {
                if t.transport && ctx.dispatcher.transport_failed(task.site) {
                    log.problem(
                        &site.origin,
                        &task.url,
                        format!("{why}: the site is taken as down"),
                    );
                    ctx.dm.suspend(task.scope);
                    ctx.maybe_settled(task.scope);
                    return false;
                }
                let tries = ctx.dispatcher.robots_attempts(task.site);
                if tries < ctx.settings.faults.max_retries && !ctx.stop.is_requested() {
                    let s = &ctx.settings;
                    let wait = back_off(
                        tries + 1,
                        s.faults.retry_base_delay,
                        t.retry_after,
                        s.faults.max_retry_after,
                    );
                    log.problem(
                        &site.origin,
                        &task.url,
                        format!(
                            "{why}: retry {} of {} in {:.1} s",
                            tries + 1,
                            s.faults.max_retries,
                            wait.as_secs_f64()
                        ),
                    );
                    ctx.dispatcher
                        .robots_retry(task.site, Instant::now() + wait);
                    return false;
                }
            }
            log.problem(
                &site.origin,
                &task.url,
                format!("{why}: nothing will be fetched"),
            );
            Arc::new(DisallowAll { reason: why })
        }
    };
    site.set_robots(rules);
    if read && ctx.settings.sites.reads_sitemaps() && !ctx.stop.is_requested() {
        ctx.dispatcher
            .robots_known(task.site, site.effective_delay());
        return true;
    }
    ctx.dispatcher
        .robots_done(task.site, site.effective_delay());
    false
}

/// Marks the calling downloader thread SCHED_BATCH (Linux): woken by an answer, it no longer
/// preempts a parser in the middle of a page, but waits for the parser's time slice.
fn batch_priority() {
    #[cfg(target_os = "linux")]
    {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: sets the calling thread's own policy with a valid parameter; failure leaves
        // the default policy, which is correct too.
        let _ = unsafe { libc::sched_setscheduler(0, libc::SCHED_BATCH, &param) };
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// The scheduling policy of the calling thread (field 41 of /proc/thread-self/stat).
    fn policy() -> Option<i32> {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
        let after_name = &stat[stat.rfind(')')? + 1..];
        after_name.split_whitespace().nth(38)?.parse().ok()
    }

    #[test]
    fn a_downloader_thread_runs_as_batch() {
        let got = std::thread::spawn(|| {
            super::batch_priority();
            policy()
        })
        .join()
        .expect("thread");
        assert_eq!(got, Some(libc::SCHED_BATCH));
    }
}

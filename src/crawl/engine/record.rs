//! What follows an outcome, wherever it was decided (a parser's page, a downloader's
//! failure, redirect away or retry given up): it is committed through its lease, the sites
//! it gave work are woken, a scope it may have settled is looked at, and a site it took to
//! `MaxPagesPerSite` is suspended with its scope. One function, so no kind of outcome skips a
//! step (the downloaders' copy once left the page limit to the parsers' alone).

use crate::base::stop::StopReason;
use crate::crawl::engine::Context;
use crate::crawl::message::{Log, Outcome};
use crate::crawl::schedule::{Suspension, TaskLease};

/// Records `outcome` through `lease` (see the module docs); a failure to record stops the
/// crawl.
pub(super) fn record(ctx: &Context, lease: &mut TaskLease, outcome: &Outcome, log: &Log) {
    let effects = match lease.commit(outcome) {
        Ok(effects) => effects,
        Err(e) => {
            ctx.stop.request(StopReason::Failed(e.to_string()));
            return;
        }
    };
    ctx.dispatcher.wake(&effects.woke, &ctx.sites);
    if effects.settled {
        ctx.maybe_settled(lease.task().scope);
    }
    if effects.page_limit_reached {
        let site = lease.task().site;
        let entry = ctx.sites.get(site);
        ctx.dispatcher.suspend(site, Suspension::PageLimit);
        ctx.dm.suspend(entry.scope);
        ctx.maybe_settled(entry.scope);
        log.note(format!(
            "{}: MaxPagesPerSite reached; the rest of its queue is kept",
            entry.origin
        ));
    }
}

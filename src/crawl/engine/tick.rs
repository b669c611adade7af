//! The engine's own tick, whatever `RoutineThread` runs: scopes are opened as the window of
//! active scopes has room (and those a shared store hands this process), and a page budget
//! shared with other processes is topped up. Both once were the routine's job, so a routine
//! written to its contract — logs, finishers, Ctrl+C — opened no scope beyond the first
//! window and, in a budgeted shared crawl, never started a fetch (issue 45). It also renews
//! the status page (`live_page.rs`).

use std::time::{Duration, Instant};

use crossbeam_channel::{Sender, select, tick};

use super::Context;
use super::live_page::Publisher;
use crate::base::ids::ScopeId;
use crate::base::stop::StopReason;
use crate::crawl::data::coord::BudgetGrant;

/// How often the engine looks (as often as the routine asks the finishers).
pub(super) const TICK: Duration = Duration::from_millis(20);

/// A budget shared with other processes is asked for in blocks of this many fetches per
/// downloading thread, when less than half a block is left.
const BUDGET_BLOCK_PER_THREAD: u64 = 4;

/// After the store granted nothing (others hold what is left), ask again after this long.
const BUDGET_RETRY: Duration = Duration::from_millis(200);

/// Runs until the crawl stops; scopes opened go to `opened` (the routine's progress line
/// names them) and to the status page's `publisher`, which publishes once more at the stop.
pub(super) fn run(
    ctx: &Context,
    opened: &Sender<Vec<(ScopeId, String)>>,
    mut publisher: Option<Publisher<'_>>,
) {
    let ticker = tick(TICK);
    let stop = ctx.stop.receiver();
    let mut budget_asked: Option<Instant> = None;
    loop {
        select! {
            recv(ticker) -> _ => {}
            recv(stop) -> _ => {}
        }
        if ctx.stop.is_requested() {
            if let Some(p) = &mut publisher {
                p.publish(ctx, true);
            }
            return;
        }
        if let Some(feeder) = &ctx.feeder {
            match feeder.feed(ctx) {
                Ok(more) if !more.is_empty() => {
                    if let Some(p) = &mut publisher {
                        p.opened(ctx, &more);
                    }
                    let _ = opened.send(more);
                }
                Ok(_) => {}
                Err(e) => ctx.stop.request(StopReason::Failed(e.to_string())),
            }
        }
        top_up_budget(ctx, &mut budget_asked);
        if let Some(p) = &mut publisher {
            p.publish(ctx, false);
        }
    }
}

/// Of a page budget shared with other processes: asks the store for another block when less
/// than half a block is left (at most every [`BUDGET_RETRY`] while it grants nothing).
fn top_up_budget(ctx: &Context, asked_empty: &mut Option<Instant>) {
    let threads = u64::try_from(ctx.settings.threads.max_downloaders()).unwrap_or(u64::MAX);
    let block = BUDGET_BLOCK_PER_THREAD.saturating_mul(threads);
    let Some(room) = ctx.dispatcher.budget_room() else {
        return;
    };
    if room >= block / 2 || asked_empty.is_some_and(|t| t.elapsed() < BUDGET_RETRY) {
        return;
    }
    match ctx
        .coordinator
        .share_budget(ctx.settings.bandit.pages(), block - room)
    {
        Ok(grant) => {
            let granted = match grant {
                BudgetGrant::More(n) | BudgetGrant::Last(n) => n,
            };
            *asked_empty = (granted == 0).then(Instant::now);
            ctx.dispatcher.grant_budget(grant);
        }
        Err(e) => ctx.stop.request(StopReason::Failed(e.to_string())),
    }
}

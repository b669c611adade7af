//! The downloader thread loop: take a task from the dispatcher, fetch it, free the site's
//! slot, and pass the result on (HTML pages to the parsers, everything else straight to the
//! data manager).

use crossbeam_channel::{Sender, select};

use super::page::{PageResult, fetch_page};
use super::robots_txt::fetch_robots;
use crate::context::{Context, Log};
use crate::message::{Fetched, TaskKind};
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
            continue;
        }
        let result = fetch_page(ctx, &task, &log);
        ctx.dispatcher.done(site);
        match result {
            PageResult::Page(fetched) => {
                select! {
                    send(pages, fetched) -> sent => if let Err(e) = sent {
                        ctx.dm.release(&e.into_inner().task);
                        break;
                    },
                    recv(shutdown) -> _ => {
                        ctx.dm.release(&task);
                        break;
                    }
                }
            }
            PageResult::Done(outcome) => match ctx.dm.commit(&outcome) {
                Ok(effects) => ctx.dispatcher.wake(&effects.woke),
                Err(e) => ctx.stop.request(StopReason::Failed(e.to_string())),
            },
            PageResult::Abandoned => ctx.dm.release(&task),
        }
    }
}

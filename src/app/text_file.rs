//! `TextFileAM`: the crawl of the sites of hosts.txt by this process. It opens the scopes the
//! data manager gives it (every one for a store of its own; with a store shared by several
//! processes, those nobody else crawls, and more while it runs), keeps the saved crawls of
//! sites no longer listed (reported as removed), runs the engine, saves the state, hands back
//! what it holds, and writes the results of what it crawled.

use std::sync::Arc;
use std::time::Instant;

use crossbeam_channel::Receiver;

use super::seeds::{Crawl, Seeds, busy_scopes};
use super::unload_all::{ScopeRow, Unloaded, unload_all};
use super::{AppError, ApplicationManager, Components, RunReport};
use crate::context::{Context, ScopeFeeder};
use crate::data::{CrawlStatus, OpenScopeError, Persist};
use crate::engine::{self, RoutineInputs, Workers};
use crate::ids::ScopeId;
use crate::routine::LogFiles;
use crate::schedule::Dispatcher;
use crate::schedule::dispatcher::DispatcherConfig;
use crate::settings::Settings;
use crate::site::SiteSpec;
use crate::sites::Sites;
use crate::stop::{Stop, StopReason};
use crate::storage::Durability;

/// The text-file application manager.
#[derive(Debug, Clone, Copy, Default)]
pub struct TextFileManager;

impl ApplicationManager for TextFileManager {
    fn run(
        &self,
        settings: &Settings,
        hosts: &[SiteSpec],
        parts: Components,
        ctrl_c: Receiver<()>,
    ) -> Result<RunReport, AppError> {
        let started = Instant::now();
        let Components {
            data: dm,
            coordinator,
            downloader,
            parser,
            routine,
            mut url_filter,
            robots,
            mut finishers,
            unloaders,
            scheduler,
        } = parts;
        for f in &mut finishers {
            f.start(started)?;
        }
        let logs = LogFiles::open(&settings.logs.common_log, &settings.logs.error_log)
            .map_err(AppError::Logs)?;
        let stop = Arc::new(Stop::new());
        let dispatcher = Dispatcher::new(
            Arc::clone(&dm),
            scheduler,
            Arc::clone(&stop),
            DispatcherConfig {
                down_after: settings.faults.site_down_after,
                page_buffer: engine::page_buffer(settings),
                budget: settings.bandit.budget as u64,
                shared_budget: coordinator.shares_budget(),
            },
        );
        let sites = Sites::new();
        // Which seeds share a scope (SPEC §6: seeds whose key domains meet); the data manager
        // opens those this process crawls (a shared store, SPEC §10, may give it some only).
        let seeds = Arc::new(Seeds::plan(hosts, &mut *url_filter, settings.sites));
        coordinator.register_seeds(&seeds.scope_origins())?;
        {
            let crawl = Crawl {
                dm: &*dm,
                coordinator: &*coordinator,
                sites: &sites,
                dispatcher: &dispatcher,
                filter: &*url_filter,
            };
            seeds.open_all(&crawl)?;
            sites.add_other_scheme_aliases(settings.sites.other_scheme_links);
            let opened: Vec<ScopeId> = seeds.rows().iter().map(|r| r.scope).collect();
            seeds.restore_sites(&opened, &crawl);
        }
        // A continued crawl's budget is partly spent, its scheduler has learnt from what it
        // fetched.
        dispatcher.restore(&dm.fetches());
        let mut removed = Vec::new();
        for info in dm.scopes().into_iter().filter(|s| !s.active) {
            eprintln!(
                "{} is no longer in hosts.txt: its saved data is kept and reported as removed",
                info.origin
            );
            removed.push(ScopeRow::new(info.id, None, &info.origin));
        }
        let names: Vec<_> = seeds
            .rows()
            .iter()
            .map(|s| (s.scope, s.name.clone()))
            .collect();
        let ctx = Context {
            settings: settings.clone(),
            sites,
            dm: Arc::clone(&dm),
            coordinator: Arc::clone(&coordinator),
            dispatcher,
            stop: Arc::clone(&stop),
            filter: url_filter,
            robots,
            started,
            feeder: Some(Box::new(Feeder {
                seeds: Arc::clone(&seeds),
            })),
        };
        let workers = Workers {
            downloader: &*downloader,
            parser: &*parser,
            routine: &*routine,
        };
        let inputs = RoutineInputs {
            ctrl_c,
            finishers,
            logs,
            scopes: &names,
        };
        engine::run(&ctx, workers, inputs)?;
        let mut scopes = seeds.rows();
        scopes.extend(removed);
        ScopeRow::dedupe_folders(&mut scopes);
        for row in &mut scopes {
            row.suspension = row.site.and_then(|site| ctx.dispatcher.suspended(site));
        }
        let reason = stop.reason().unwrap_or(StopReason::WorkDone);
        let finished =
            reason.is_complete() && scopes.iter().all(|s| dm.progress(s.scope).pending == 0);
        let unload_started = Instant::now();
        let unloaded = save_and_unload(settings, &ctx, &unloaders, &scopes, finished)?;
        Ok(RunReport {
            reason,
            sites: unloaded.rows,
            problems: unloaded.problems,
            elapsed: started.elapsed(),
            stopped_after: stop.requested_after(started),
            unload_elapsed: unload_started.elapsed(),
            result_folder: settings.results.folder.clone(),
        })
    }
}

/// The end of a run: the state saved, the results written, the scopes handed back — in the
/// order that never loses a crawl. The state is made durable first, as unfinished; a shared
/// store hands the scopes back (after writing what it keeps of finished ones) while the result
/// files are written; only once they are written is a finished crawl marked finished in its
/// state. A result folder that cannot be written leaves the crawl saved, to be written by the
/// next run or by `rccrawler export`.
fn save_and_unload(
    settings: &Settings,
    ctx: &Context,
    unloaders: &[Box<dyn crate::unload::Unloader>],
    scopes: &[ScopeRow],
    finished: bool,
) -> Result<Unloaded, AppError> {
    let dm = &*ctx.dm;
    // A finished crawl's records are only made durable (its snapshot would be thrown away);
    // a stopped one is compacted for the next run.
    let before = if finished {
        Persist::Journal(Durability::Disk)
    } else {
        Persist::Checkpoint(CrawlStatus::Unfinished)
    };
    dm.persist(before)?;
    let (handed_back, unloaded) = std::thread::scope(|s| {
        let back = s.spawn(|| -> Result<(), AppError> {
            dm.close()?;
            Ok(ctx.coordinator.hand_back()?)
        });
        let unloaded = unload_all(settings, dm, unloaders, scopes);
        let back = back
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (back, unloaded)
    });
    handed_back?;
    let unloaded = unloaded?;
    if finished {
        dm.persist(Persist::Checkpoint(CrawlStatus::Finished))?;
    }
    Ok(unloaded)
}

/// Opens the scopes a shared store hands out while the crawl runs.
#[derive(Debug)]
struct Feeder {
    seeds: Arc<Seeds>,
}

impl ScopeFeeder for Feeder {
    fn feed(&self, ctx: &Context) -> Result<Vec<(ScopeId, String)>, OpenScopeError> {
        let room = match ctx.coordinator.scopes_per_process() {
            Some(most) => most.saturating_sub(busy_scopes(&*ctx.dm)),
            None => usize::MAX,
        };
        let origins = ctx.coordinator.more_seeds(room)?;
        if origins.is_empty() {
            return Ok(Vec::new());
        }
        let crawl = Crawl {
            dm: &*ctx.dm,
            coordinator: &*ctx.coordinator,
            sites: &ctx.sites,
            dispatcher: &ctx.dispatcher,
            filter: &*ctx.filter,
        };
        let opened = self.seeds.open_more(&origins, &crawl)?;
        ctx.sites
            .add_other_scheme_aliases(ctx.settings.sites.other_scheme_links);
        let scopes: Vec<ScopeId> = opened.iter().map(|(s, _)| *s).collect();
        self.seeds.restore_sites(&scopes, &crawl);
        Ok(opened)
    }
}

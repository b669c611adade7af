//! `TextFileAM`: the crawl of the sites of hosts.txt by this process. It opens the scopes a
//! window at a time, in hosts.txt order (with a store shared by several processes, those
//! nobody else crawls), keeps the saved crawls of sites no longer listed (reported as
//! removed), runs the engine with the retire workers (a scope that settles is written and
//! released, and the next one opened), saves the state, hands back what it holds, and writes
//! the results of the scopes still in memory.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;
use parking_lot::Mutex;

use super::retire::{self, LiveSummary, Retirer};
use super::seeds::{Crawl, Seeds};
use super::unload_all::{ScopeRow, Unloaded, Written, unload_all};
use super::window::{ADAPT_PERIOD, Pressure, Window};
use super::{AppError, ApplicationManager, Components, RunReport};
use super::{archive, results_folder};
use crate::analysis::network::NetworkSpec;
use crate::analysis::network::live::LiveNetwork;
use crate::base::bodies::{BODY_BYTES, BodyBudget};
use crate::base::ids::ScopeId;
use crate::base::stop::{Stop, StopReason};
use crate::base::storage::Durability;
use crate::crawl::data::{CrawlStatus, DataManager, OpenScopeError, Persist, TaskData};
use crate::crawl::engine::cpu::CpuIdle;
use crate::crawl::engine::{self, RoutineInputs, Workers};
use crate::crawl::engine::{Context, ScopeFeeder};
use crate::crawl::live::ScopeCounts;
use crate::crawl::routine::LogFiles;
use crate::crawl::schedule::Dispatcher;
use crate::crawl::schedule::dispatcher::DispatcherConfig;
use crate::crawl::settings::Settings;
use crate::model::site::SiteSpec;
use crate::model::sites::Sites;

/// The text-file application manager.
#[derive(Debug, Clone, Copy, Default)]
pub struct TextFileManager;

impl ApplicationManager for TextFileManager {
    fn run(
        &self,
        settings: &Settings,
        hosts: &[SiteSpec],
        mut parts: Components,
        ctrl_c: Receiver<()>,
    ) -> Result<RunReport, AppError> {
        let unloaders = std::mem::take(&mut parts.unloaders);
        let (mut report, network) = crawl(settings, hosts, parts, &unloaders, ctrl_c)?;
        // The crawl's memory is given back before the outputs derived from its files are
        // built (the network of sites, the report): a crawl of a million sites held both.
        let derived = Instant::now();
        report.problems.extend(super::unload_all::derive(
            settings,
            &unloaders,
            Some(&network),
            hosts.len(),
        )?);
        report.unload_elapsed += derived.elapsed();
        report.elapsed += derived.elapsed();
        Ok(report)
    }
}

/// The crawl and its result files, summary.csv and the state: everything but the outputs
/// derived from them.
fn crawl(
    settings: &Settings,
    hosts: &[SiteSpec],
    parts: Components,
    unloaders: &[Box<dyn crate::crawl::unload::Unloader>],
    ctrl_c: Receiver<()>,
) -> Result<(RunReport, NetworkSpec), AppError> {
    let started = Instant::now();
    let Components {
        data: dm,
        coordinator,
        downloader,
        evented,
        parser,
        routine,
        mut url_filter,
        robots,
        mut finishers,
        unloaders: _,
        scheduler,
        renderer,
    } = parts;
    for f in &mut finishers {
        f.start(started)?;
    }
    results_folder::claim(settings, &*dm, &*coordinator, hosts)?;
    let mut logs = LogFiles::open(&settings.logs.common_log, &settings.logs.error_log)
        .map_err(AppError::Logs)?;
    let stop = Arc::new(Stop::new());
    let shared = coordinator.shares_budget();
    let dispatcher = dispatcher(settings, &dm, scheduler, (&stop, shared));
    // Seeds whose key domains meet share a scope (SPEC §6); a window of them is opened.
    let seeds = Arc::new(Seeds::plan(hosts, &mut *url_filter, settings.sites));
    coordinator.register_seeds(&seeds.scope_origins())?;
    let sites = Sites::with_listed(seeds.origins(), settings.sites.other_scheme_links);
    dm.expect_scopes(seeds.scope_count());
    dispatcher.expect_sites(hosts.len());
    let window = Window::new(settings, &*coordinator, seeds.scope_count());
    let crawl = Crawl {
        dm: &*dm,
        coordinator: &*coordinator,
        sites: &sites,
        dispatcher: &dispatcher,
        filter: &*url_filter,
    };
    let names = seeds.open_next(window.size(), &crawl)?;
    // A continued crawl's budget is partly spent, its scheduler learnt from its fetches.
    dispatcher.restore(&dm.fetches());
    let removed = removed_scopes(&*dm, &seeds);
    // A budget rule needs every arm until the end: a budgeted crawl keeps its scopes.
    let (settled_tx, settled_rx) = crossbeam_channel::unbounded();
    let ctx = Context {
        settings: settings.clone(),
        parse_options: crate::crawl::parse::ParseOptions::new(settings),
        fetch_options: crate::crawl::fetch::FetchOptions::new(settings),
        sites,
        dm: Arc::clone(&dm),
        coordinator: Arc::clone(&coordinator),
        dispatcher,
        stop: Arc::clone(&stop),
        bodies: BodyBudget::new(BODY_BYTES),
        filter: url_filter,
        robots,
        started,
        feeder: Some(Box::new(Feeder::new(Arc::clone(&seeds), window))),
        settled: (!settings.bandit.is_budgeted()).then_some(settled_tx),
        network: live_network(settings, &seeds),
        archive: archive::open(settings, hosts, &stop, &mut logs)?,
        recrawl: archive::open_recrawl(settings, &mut logs)?,
        problems: Arc::default(),
        render: rendering(settings, renderer)?,
        text_spool: text_spool(settings),
    };
    let retirer = Retirer {
        ctx: &ctx,
        seeds: &seeds,
        unloaders,
        downloader: &*downloader,
        summary: Mutex::new(
            LiveSummary::new(&ctx, &seeds).with_earlier(&seeds, dm.written_before()?),
        ),
    };
    let workers = Workers {
        downloader: &*downloader,
        evented: evented.as_deref(),
        parser: &*parser,
        routine: &*routine,
    };
    let inputs = RoutineInputs {
        ctrl_c,
        finishers,
        logs,
        scopes: &names,
    };
    run_with_retirer(&ctx, workers, inputs, &retirer, &settled_rx)?;
    let mut scopes = seeds.live_rows();
    scopes.extend(removed);
    end_of_run(&ctx, &seeds, &retirer, unloaders, scopes)
}

/// The dispatcher of a crawl with `settings` over `dm` (`shared`: its page budget is shared
/// with other processes).
fn dispatcher(
    settings: &Settings,
    dm: &Arc<dyn DataManager>,
    scheduler: Box<dyn crate::crawl::schedule::Scheduler>,
    (stop, shared): (&Arc<Stop>, bool),
) -> Arc<Dispatcher> {
    let config = DispatcherConfig {
        down_after: settings.faults.site_down_after,
        page_buffer: engine::page_buffer(settings),
        parsers: settings.threads.parsing.get(),
        budget: settings.bandit.pages(),
        shared_budget: shared,
        unpaced: settings.http.rebuild_from.is_some(),
    };
    Dispatcher::new(
        Arc::clone(dm) as Arc<dyn TaskData>,
        scheduler,
        Arc::clone(stop),
        config,
    )
}

/// Where the parsers put the nodes' texts, when settings.ini asks for them (`PageText = yes`).
fn text_spool(settings: &Settings) -> Option<crate::crawl::data::text_spool::TextSpool> {
    let page_text = settings.sites.documents.page_text;
    page_text.then(|| crate::crawl::data::text_spool::TextSpool::new(&settings.state.folder))
}

/// The crawl's rendering, when settings.ini asks for it (`Render = auto` or `all`).
fn rendering(
    settings: &Settings,
    renderer: Option<Arc<dyn crate::crawl::render::Renderer>>,
) -> Result<Option<crate::crawl::engine::render::Rendering>, AppError> {
    renderer
        .map(|r| crate::crawl::engine::render::Rendering::new(settings, r))
        .transpose()
        .map_err(AppError::CaFile)
}

/// The network's totals while the crawl runs, for the live status page (when there is one).
fn live_network(settings: &Settings, seeds: &Seeds) -> Option<LiveNetwork> {
    settings.logs.status_address?;
    let spec = settings.results.network_spec(seeds.target_scopes().clone());
    let sites = seeds
        .scope_origins()
        .into_iter()
        .map(|o| (o.to_string(), o.host().to_owned()));
    Some(LiveNetwork::new(spec, sites))
}

/// After the threads ended: the stop's reason, the rows of the scopes still in memory
/// (their suspensions), the state saved and the results written.
fn end_of_run(
    ctx: &Context,
    seeds: &Seeds,
    retirer: &Retirer<'_>,
    unloaders: &[Box<dyn crate::crawl::unload::Unloader>],
    mut scopes: Vec<ScopeRow>,
) -> Result<(RunReport, NetworkSpec), AppError> {
    let reason = ctx.stop.reason().unwrap_or(StopReason::WorkDone);
    for row in &mut scopes {
        row.suspension = row.site.and_then(|site| ctx.dispatcher.suspended(site));
        row.budget_spent = reason == StopReason::BudgetSpent;
    }
    let finished = reason.is_complete() && seeds.unopened() == 0 && nothing_left(&*ctx.dm);
    let unload_started = Instant::now();
    let (written, earlier) = {
        let mut live = retirer.summary.lock();
        (live.sorted(), live.take_earlier())
    };
    let network = ctx
        .settings
        .results
        .network_spec(seeds.target_scopes().clone());
    let unloaded = save_and_unload(ctx, unloaders, &scopes, (&written, &earlier), finished)?;
    // Sites whose results could not be written during the run said so then: say that they
    // are now.
    for name in seeds.unwritten_names() {
        eprintln!("{name}: its results are written now");
    }
    archive::close(&ctx.settings, ctx.archive.as_deref())?;
    archive::report_recrawl(ctx.recrawl.as_deref());
    let report = RunReport {
        reason,
        sites: unloaded.shown,
        site_count: unloaded.count,
        sites_with_pages: unloaded.with_pages,
        // Those of the outputs derived after the crawl (`derive`) are added to these.
        problems: Vec::new(),
        elapsed: ctx.started.elapsed(),
        stopped_after: ctx.stop.requested_after(ctx.started),
        unload_elapsed: unload_started.elapsed(),
        result_folder: ctx.settings.results.folder.clone(),
        // A crawl found finished is said so at the start, not as the others' work.
        shared: ctx.coordinator.scopes_per_process().is_some() && !ctx.coordinator.found_finished(),
    };
    Ok((report, network))
}

/// Whether no scope has URLs left to fetch, retired ones included (a site retired as down
/// is continued by the next run). A retired scope's figures are read in place, not from a
/// decoded copy of each: a crawl of thousands of sites held megabytes of them here.
fn nothing_left(dm: &dyn DataManager) -> bool {
    (0..dm.scope_count()).all(|i| dm.progress(ScopeId(i as u32)).pending == 0)
}

/// Saved scopes of sites hosts.txt no longer lists: kept, and reported as removed. A saved
/// scope that is still listed but not open yet (the window opens scopes in hosts.txt order, and
/// a continued crawl's window starts small again) is not removed: it is continued in its turn.
fn removed_scopes(dm: &dyn DataManager, seeds: &Seeds) -> Vec<ScopeRow> {
    let mut removed = Vec::new();
    for i in 0..dm.scope_count() {
        let id = ScopeId(i as u32);
        if dm.is_retired(id) {
            continue;
        }
        let info = dm.scope_info(id);
        if info.active || seeds.position(&info.origin).is_some() {
            continue;
        }
        eprintln!(
            "{} is no longer in hosts.txt: its saved data is kept and reported as removed",
            info.origin
        );
        removed.push(ScopeRow::new(info.id, None, &info.origin));
    }
    removed
}

/// Runs the engine, with the retire workers writing and releasing scopes as they settle.
fn run_with_retirer(
    ctx: &Context,
    workers: Workers<'_>,
    inputs: RoutineInputs<'_>,
    retirer: &Retirer<'_>,
    settled: &Receiver<ScopeId>,
) -> Result<(), AppError> {
    if ctx.settled.is_none() {
        return Ok(engine::run(ctx, workers, inputs)?);
    }
    let (done_tx, done) = crossbeam_channel::bounded::<()>(0);
    std::thread::scope(|s| -> Result<(), AppError> {
        for i in 0..retire::worker_count() {
            let done = done.clone();
            std::thread::Builder::new()
                .name(format!("retire-{i}"))
                .spawn_scoped(s, move || retirer.run(settled, &done))
                .map_err(|e| AppError::Spawn(engine::SpawnError(e)))?;
        }
        let ran = engine::run(ctx, workers, inputs);
        drop(done_tx);
        Ok(ran?)
    })?;
    // The rows of the scopes retired so far, at once (the final one follows the results).
    retirer.write_summary(true);
    Ok(())
}

/// The end of a run: the state saved, the results written, the scopes handed back — in the
/// order that never loses a crawl. The state is made durable first, as unfinished; a shared
/// store hands the scopes back (after writing what it keeps of finished ones) while the result
/// files are written; only once they are written is a finished crawl marked finished in its
/// state. A result folder that cannot be written leaves the crawl saved, to be written by the
/// next run or by `rccrawler export`.
fn save_and_unload(
    ctx: &Context,
    unloaders: &[Box<dyn crate::crawl::unload::Unloader>],
    scopes: &[ScopeRow],
    written: Written<'_>,
    finished: bool,
) -> Result<Unloaded, AppError> {
    let (dm, settings) = (&*ctx.dm, &ctx.settings);
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
        let unloaded = unload_all(settings, dm, unloaders, scopes, written);
        let back = back
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (back, unloaded)
    });
    handed_back?;
    let unloaded = unloaded?;
    // Which results folder holds these sites (a database shared by several processes): this
    // folder's summary.csv keeps listing them if this process is started again. The files and
    // summary.csv are written already; a failure here only costs that.
    if let Err(e) = dm.written_at_end(&unloaded.now) {
        eprintln!("warning: the sites written at the end are not recorded in the database: {e}");
    }
    if finished {
        dm.persist(Persist::Checkpoint(CrawlStatus::Finished))?;
    }
    Ok(unloaded)
}

/// Opens scopes while the crawl runs: the next ones of hosts.txt as the window has room, and
/// (about once a second) those a shared store hands this process.
#[derive(Debug)]
struct Feeder {
    seeds: Arc<Seeds>,
    window: Window,
    last_more: Mutex<Instant>,
    /// When the window last considered growing, and the processors' idle time since.
    adapted: Mutex<(Instant, CpuIdle)>,
}

impl Feeder {
    /// Opens `seeds`' scopes as `window` lets it.
    fn new(seeds: Arc<Seeds>, window: Window) -> Self {
        Feeder {
            seeds,
            window,
            last_more: Mutex::new(Instant::now()),
            adapted: Mutex::new((Instant::now(), CpuIdle::new())),
        }
    }
}

/// How often a shared store is asked for more scopes.
const MORE_INTERVAL: Duration = Duration::from_secs(1);

impl ScopeFeeder for Feeder {
    fn feed(&self, ctx: &Context) -> Result<Vec<(ScopeId, String)>, OpenScopeError> {
        {
            let mut adapted = self.adapted.lock();
            let period = adapted.0.elapsed();
            if period >= ADAPT_PERIOD {
                let openable = self
                    .seeds
                    .live()
                    .saturating_add(self.seeds.unopened())
                    .saturating_add(ctx.coordinator.outstanding());
                self.window.adapt(&Pressure {
                    period,
                    starved: ctx.dispatcher.take_starved(),
                    spare: adapted.1.spare(),
                    writing_behind: ctx.settled.as_ref().is_some_and(|tx| !tx.is_empty()),
                    openable,
                });
                adapted.0 = Instant::now();
            }
        }
        let crawl = Crawl {
            dm: &*ctx.dm,
            coordinator: &*ctx.coordinator,
            sites: &ctx.sites,
            dispatcher: &ctx.dispatcher,
            filter: &*ctx.filter,
        };
        let room = |seeds: &Seeds| self.window.size().saturating_sub(seeds.live());
        let mut opened = Vec::new();
        if room(&self.seeds) > 0 && self.seeds.unopened() > 0 {
            opened = self.seeds.open_next(room(&self.seeds), &crawl)?;
        }
        let shared = ctx.coordinator.scopes_per_process().is_some();
        if shared && room(&self.seeds) > 0 {
            let mut last = self.last_more.lock();
            if last.elapsed() >= MORE_INTERVAL {
                *last = Instant::now();
                let origins = ctx.coordinator.more_seeds(room(&self.seeds))?;
                let more = self.seeds.open_more(&origins, &crawl)?;
                if ctx.settings.bandit.is_budgeted() && !more.is_empty() {
                    // Scopes taken over from a process that stopped (PgDM): the rule learns
                    // what their recorded fetches yielded, as a continued crawl's does.
                    let scopes: Vec<ScopeId> = more.iter().map(|(s, _)| *s).collect();
                    ctx.dispatcher
                        .restore_scopes(&ctx.dm.fetches(), Some(&scopes));
                }
                opened.extend(more);
            }
        }
        Ok(opened)
    }

    fn counts(&self) -> ScopeCounts {
        self.seeds.counts()
    }
}

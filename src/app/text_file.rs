//! `TextFileAM`: one process crawls the sites of hosts.txt. It registers every site (its
//! saved crawl continues, or a new one starts), keeps the saved crawls of sites no longer
//! listed (reported as removed), runs the engine, saves the state, and writes the results.

use std::sync::Arc;
use std::time::Instant;

use crossbeam_channel::Receiver;

use super::unload_all::{ScopeRow, unload_all};
use super::{AppError, ApplicationManager, Components, RunReport};
use crate::context::Context;
use crate::data::{CrawlStatus, Persist, ScopeLimits};
use crate::engine::{self, RoutineInputs, Workers};
use crate::ids::SiteId;
use crate::routine::LogFiles;
use crate::schedule::Dispatcher;
use crate::schedule::dispatcher::DispatcherConfig;
use crate::settings::Settings;
use crate::site::SiteSpec;
use crate::sites::Sites;
use crate::stop::{Stop, StopReason};

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
        let logs =
            LogFiles::open(&settings.common_log, &settings.error_log).map_err(AppError::Logs)?;
        let stop = Arc::new(Stop::new());
        let dispatcher = Dispatcher::new(
            Arc::clone(&dm),
            scheduler,
            Arc::clone(&stop),
            DispatcherConfig {
                down_after: settings.site_down_after,
                page_buffer: engine::page_buffer(settings),
                budget: settings.bandit.budget as u64,
            },
        );
        let sites = Sites::new();
        let mut scopes = Vec::new();
        // Which seeds share a scope (SPEC §6: seeds whose key domains meet).
        let origins: Vec<_> = hosts.iter().map(|h| h.origin.clone()).collect();
        let plans = url_filter.plan(&origins);
        let mut seed_scopes = Vec::with_capacity(hosts.len());
        for (i, (spec, plan)) in hosts.iter().zip(&plans).enumerate() {
            let site_id = SiteId(sites.len() as u32);
            if !plan.key_domains.is_empty() {
                eprintln!(
                    "{}: key domains {}",
                    spec.origin,
                    plan.key_domains.join(", ")
                );
            }
            let scope = if plan.scope_of == i {
                let limits = ScopeLimits {
                    max_level: spec.max_level,
                    max_pages: settings.max_pages_per_site,
                };
                let (scope, _) = dm.open_scope(spec.origin.clone(), site_id, limits)?;
                url_filter.scope_opened(i, scope);
                scope
            } else {
                let scope: crate::ids::ScopeId = seed_scopes[plan.scope_of];
                dm.add_seed(scope, spec.origin.clone(), site_id)?;
                eprintln!(
                    "{} shares the scope of {}: their key domains meet",
                    spec.origin, hosts[plan.scope_of].origin
                );
                scope
            };
            seed_scopes.push(scope);
            let entry = sites.add(spec.clone(), scope);
            dispatcher.add_site(&entry);
            if plan.scope_of == i {
                scopes.push(ScopeRow::new(scope, Some(entry.id), &entry.origin));
            }
        }
        sites.add_other_scheme_aliases(settings.other_scheme_links);
        // A continued crawl's hosts found by a multi-host filter are sites again.
        for (i, plan) in plans.iter().enumerate() {
            if plan.scope_of != i {
                continue;
            }
            let seed = sites.get(SiteId(i as u32));
            for (origin, bound) in dm.scope_sites(seed.scope) {
                if bound.is_some() {
                    continue;
                }
                let entry = rebind_host(&*url_filter, &sites, &seed, origin.clone());
                dm.bind_site(seed.scope, &origin, entry.id);
                dispatcher.add_site(&entry);
            }
        }
        // A continued crawl's home page moved already: its origins are aliases again.
        for entry in sites.all() {
            for origin in dm.home_origins(entry.scope) {
                let _ = sites.add_alias(entry.id, origin);
            }
        }
        // And its budget is partly spent, its scheduler has learnt from what it fetched.
        dispatcher.restore(&dm.fetches());
        for info in dm.scopes().into_iter().filter(|s| !s.active) {
            eprintln!(
                "{} is no longer in hosts.txt: its saved data is kept and reported as removed",
                info.origin
            );
            scopes.push(ScopeRow::new(info.id, None, &info.origin));
        }
        ScopeRow::dedupe_folders(&mut scopes);
        let ctx = Context {
            settings: settings.clone(),
            sites,
            dm: Arc::clone(&dm),
            dispatcher,
            stop: Arc::clone(&stop),
            filter: url_filter,
            robots,
            started,
        };
        let names: Vec<_> = scopes
            .iter()
            .filter(|s| s.site.is_some())
            .map(|s| (s.scope, s.name.clone()))
            .collect();
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
        for row in &mut scopes {
            row.suspension = row.site.and_then(|site| ctx.dispatcher.suspended(site));
        }
        let reason = stop.reason().unwrap_or(StopReason::WorkDone);
        let finished =
            reason.is_complete() && scopes.iter().all(|s| dm.progress(s.scope).pending == 0);
        let status = if finished {
            CrawlStatus::Finished
        } else {
            CrawlStatus::Unfinished
        };
        dm.persist(Persist::Checkpoint(status))?;
        let unload_started = Instant::now();
        let unloaded = unload_all(settings, &*dm, &unloaders, &scopes)?;
        Ok(RunReport {
            reason,
            sites: unloaded.rows,
            problems: unloaded.problems,
            elapsed: started.elapsed(),
            unload_elapsed: unload_started.elapsed(),
            result_folder: settings.result_folder.clone(),
        })
    }
}

/// A host of a continued multi-host scope, registered again: as the filter now sees it (so a
/// probed host is probed again), or as a plain host of the scope if the filter no longer
/// counts it in (its queued URLs still need a site to be fetched from or kept for).
fn rebind_host(
    filter: &dyn crate::url_filter::UrlFilter,
    sites: &Sites,
    seed: &crate::sites::SiteEntry,
    origin: crate::site::Origin,
) -> Arc<crate::sites::SiteEntry> {
    let origins = seed.origins();
    let view = crate::sites::SiteView {
        entry: seed,
        origins: &origins,
    };
    filter
        .scope_site(&view, origin.home().as_url(), sites)
        .map(|id| sites.get(id))
        .filter(|e| e.origin == origin)
        .unwrap_or_else(|| sites.add_discovered(origin, seed, false))
}

//! Writing the results of scopes: one scope as soon as it settles ([`unload_scope`], the
//! retire workers), every scope still in memory at the end of a run, several at once
//! ([`unload_all`]), and summary.csv.

use crate::base::parallel::for_each_index;
use std::collections::HashSet;
use std::sync::Arc;
use std::thread;

use parking_lot::Mutex;

use super::AppError;
use super::retire::merge_by_key;
use crate::analysis::network::NetworkSpec;
use crate::base::ids::{ScopeId, SiteId};
use crate::crawl::data::DataManager;
use crate::crawl::data::summary::{SiteState, SiteSummary};
use crate::crawl::schedule::Suspension;
use crate::crawl::settings::Settings;
use crate::crawl::unload::summary::write_summary_rows;
use crate::crawl::unload::{UnloadError, Unloader};
use crate::model::site::Origin;

/// One scope of the run, as the results name it.
#[derive(Debug, Clone)]
pub(super) struct ScopeRow {
    pub(super) scope: ScopeId,
    /// Its seed site in this run (none: removed from hosts.txt, saved data only).
    pub(super) site: Option<SiteId>,
    /// The seed origin.
    pub(super) name: String,
    /// Its folder under `ResultFolder`.
    pub(super) folder: String,
    /// Why its site stopped being crawled in this run, if it did.
    pub(super) suspension: Option<Suspension>,
    /// Where its row goes in summary.csv: its place in hosts.txt (scopes no longer listed
    /// come after every listed one).
    pub(super) order: usize,
    /// Its hosts.txt line's `pages=`, if any (else `MaxPagesPerSite` caps it).
    pub(super) page_cap: Option<u32>,
    /// The run ended because the crawl's `PageBudget` was spent.
    pub(super) budget_spent: bool,
}

impl ScopeRow {
    pub(super) fn new(scope: ScopeId, site: Option<SiteId>, origin: &Origin) -> Self {
        ScopeRow {
            scope,
            site,
            name: origin.to_string(),
            folder: origin.folder_name(),
            suspension: None,
            order: ORDER_AFTER + scope.0 as usize,
            page_cap: None,
            budget_spent: false,
        }
    }

    /// `http://x` and `https://x` would share a folder name: later ones get the scheme
    /// appended.
    pub(super) fn dedupe_folders(rows: &mut [ScopeRow]) {
        let mut taken = reserved_folders();
        for row in rows.iter_mut() {
            let scheme = row.name.split(':').next().unwrap_or("site");
            if let Some(folder) = dedupe_folder(&mut taken, &row.folder, scheme) {
                row.folder = folder;
            }
        }
    }
}

/// Folder names of the results folder that are not sites': `network/` (SPEC §13). A site whose
/// folder would be one (`http://network`) gets its scheme appended, as a second `x` does.
pub(super) fn reserved_folders() -> std::collections::HashSet<String> {
    [crate::analysis::network::NETWORK_DIR.to_owned()]
        .into_iter()
        .collect()
}

/// The folder a scope named `folder` gets when the names in `taken` are taken before it:
/// `None` if it keeps its name, or its name with `_scheme` appended (`http://x` and
/// `https://x` both name `x`). The folder given is taken in turn.
pub(super) fn dedupe_folder(
    taken: &mut std::collections::HashSet<String>,
    folder: &str,
    scheme: &str,
) -> Option<String> {
    if taken.insert(folder.to_owned()) {
        return None;
    }
    let renamed = format!("{folder}_{scheme}");
    taken.insert(renamed.clone());
    Some(renamed)
}

impl ScopeRow {
    /// The summary.csv state of a scope whose graph says `state`.
    fn state(&self, state: SiteState) -> SiteState {
        if self.site.is_none() {
            return SiteState::Removed;
        }
        match (state, self.suspension) {
            (SiteState::Stopped, Some(Suspension::Down)) => SiteState::Down,
            (SiteState::Stopped, Some(Suspension::PageLimit)) => SiteState::PageLimit,
            (SiteState::Stopped, _) if self.budget_spent => SiteState::BudgetSpent,
            (state, _) => state,
        }
    }
}

/// What writing the results gave.
#[derive(Debug)]
pub(super) struct Unloaded {
    /// summary.csv's first rows, [`SHOWN_SITES`] at most.
    pub(super) shown: Vec<SiteSummary>,
    /// summary.csv's rows.
    pub(super) count: usize,
    /// Of which with at least one page.
    pub(super) with_pages: usize,
    /// The rows of the scopes written by this call (not before).
    pub(super) now: Vec<SiteSummary>,
}

/// The sites a run's console table and [`super::RunReport::sites`] list at most, in
/// summary.csv's order: summary.csv lists every one.
pub const SHOWN_SITES: usize = 1_000;

/// Writes one scope's result files with every unloader; its summary.csv row. `also` sees the
/// scope's graph after them (what else a caller takes from it while it is at hand).
pub(super) fn unload_scope(
    settings: &Settings,
    dm: &dyn DataManager,
    unloaders: &[Box<dyn Unloader>],
    info: &ScopeRow,
    also: &mut dyn FnMut(&crate::crawl::data::SiteGraph<'_>),
) -> Result<SiteSummary, UnloadError> {
    let folder = settings.results.folder.join(&info.folder);
    let progress = dm.progress(info.scope);
    let mut result = Ok(());
    let mut summary = None;
    dm.with_graph(info.scope, &mut |g| {
        for u in unloaders {
            if result.is_ok() {
                result = u.unload(g, &folder);
            }
        }
        let seconds = progress.active.as_secs_f64();
        let mut row = SiteSummary::of(
            g,
            info.folder.clone(),
            progress.pending,
            seconds,
            settings.bandit.reward,
        );
        row.state = info.state(row.state);
        if settings.render.mode == crate::crawl::render::RenderMode::No {
            let home = g.nodes().first().map(|n| g.render_mark(n));
            if home.is_some_and(|m| m.script_built) {
                let said = crate::crawl::data::summary::script_built_reason();
                row.reason = match row.reason.is_empty() {
                    true => said,
                    false => format!("{}; {said}", row.reason),
                };
            }
        } else {
            row.render = Some(crate::crawl::data::summary::RenderCounts::of(g));
        }
        if settings.sites.documents.enabled {
            row.documents = Some(crate::crawl::data::summary::DocumentCounts::of(g));
        }
        if matches!(row.state, SiteState::Down | SiteState::PageLimit) {
            row.reason = match row.state {
                SiteState::Down => format!(
                    "{} connection failures in a row",
                    settings.faults.site_down_after
                ),
                _ => match info.page_cap {
                    Some(n) => format!("pages={n} in hosts.txt"),
                    None => format!("MaxPagesPerSite = {}", settings.sites.max_pages),
                },
            };
        }
        summary = Some(row);
        also(g);
    });
    result?;
    Ok(summary.expect("with_graph runs its closure"))
}

/// Writes every scope's results, several scopes at once: a crawl of hundreds of small sites
/// otherwise spent a third of its time waiting for one site's files to reach the disk after
/// another. A scope whose files cannot be written does not stop the others; the first such
/// error is returned once all are done. Then summary.csv with the rows of the scopes written
/// before (`written`: retired in this run or an earlier one, and rows earlier runs wrote here
/// that the data manager does not hold, with their sort keys, in order) and these. The
/// outputs derived from them follow ([`derive()`]).
pub(super) fn unload_all(
    settings: &Settings,
    dm: &dyn DataManager,
    unloaders: &[Box<dyn Unloader>],
    scopes: &[ScopeRow],
    (written, earlier): Written<'_>,
) -> Result<Unloaded, AppError> {
    let rows: Mutex<Vec<Option<SiteSummary>>> = Mutex::new(vec![None; scopes.len()]);
    let failed: Mutex<Option<UnloadError>> = Mutex::new(None);
    let workers = unload_workers(scopes.len());
    for_each_index(
        scopes.len(),
        workers,
        "unload-scopes",
        |index| match unload_scope(settings, dm, unloaders, &scopes[index], &mut |_| {}) {
            Ok(row) => rows.lock()[index] = Some(row),
            Err(e) => {
                failed.lock().get_or_insert(e);
            }
        },
    );
    if let Some(e) = failed.into_inner() {
        return Err(e.into());
    }
    // Rows in the order of their keys (hosts.txt order): the written ones, read one at a time
    // from the data manager (a crawl of thousands of sites holds no second table of them),
    // merged with these.
    let mut unloaded: Vec<(usize, SiteSummary)> = rows
        .into_inner()
        .into_iter()
        .zip(scopes)
        .filter_map(|(row, info)| row.map(|r| (info.order, r)))
        .collect();
    unloaded.sort_by_key(|(k, _)| *k);
    let now: Vec<SiteSummary> = unloaded.iter().map(|(_, r)| r.clone()).collect();
    let written_now: HashSet<&str> = now.iter().map(|r| r.site.as_str()).collect();
    // Rows of earlier runs whose sites this call wrote again are replaced.
    let earlier = earlier
        .iter()
        .filter(|(_, r)| !written_now.contains(r.site.as_str()))
        .map(|(k, r)| (*k, Arc::clone(r)));
    let retired = written
        .iter()
        .filter_map(|&(key, scope)| dm.retired_row(scope).map(|r| (key, r)));
    let before = merge_by_key(retired, earlier).map(|(key, r)| (key, shown_row(key, r)));
    let all = merge_by_key(before, unloaded.into_iter().map(|(k, r)| (k, Arc::new(r))));
    // Written as they are merged: a million sites' rows are never a table here; the first
    // [`SHOWN_SITES`] are kept for the console.
    let (mut shown, mut count, mut with_pages) = (Vec::new(), 0usize, 0usize);
    let listed = all.map(|(_, r)| r).inspect(|r| {
        count += 1;
        with_pages += usize::from(r.pages > 0);
        if shown.len() < SHOWN_SITES {
            shown.push(SiteSummary::clone(r));
        }
    });
    let path = settings.results.folder.join("summary.csv");
    write_summary_rows(&path, listed).map_err(|source| UnloadError { path, source })?;
    Ok(Unloaded {
        shown,
        count,
        with_pages,
        now,
    })
}

/// Up to this many sites the network of sites is built beside the report: their files are
/// what takes the time (a large site's, read by both), and the network is small. With more,
/// one after the other: each holds a row a site, and a crawl of a million sites held both.
const DERIVE_BESIDE_UP_TO: usize = 64;

/// The outputs derived from the result files and summary.csv (of `sites` sites), once they
/// are written: the network of sites (`network`), then each unloader's `finish` — for a few
/// sites the network on a thread of its own beside them (the report reads the sites' files
/// meanwhile, and the network once it is written); the failed checks of checking unloaders.
/// A network that cannot be built costs only itself.
pub(super) fn derive(
    settings: &Settings,
    unloaders: &[Box<dyn Unloader>],
    network: Option<&NetworkSpec>,
    sites: usize,
) -> Result<Vec<String>, AppError> {
    let folder = &settings.results.folder;
    let build = network.map(|spec| {
        move || {
            if let Err(e) = crate::analysis::network::build(folder, spec, None) {
                eprintln!("warning: no network of sites: {e}");
            }
        }
    });
    if sites > DERIVE_BESIDE_UP_TO {
        if let Some(build) = build {
            build();
        }
        return finish_beside(folder, unloaders, None::<fn()>);
    }
    finish_beside(folder, unloaders, build)
}

/// Each unloader's `finish` over `folder`, with `build` (the network of sites) running on a
/// thread beside them until one waits for it.
fn finish_beside(
    folder: &std::path::Path,
    unloaders: &[Box<dyn Unloader>],
    build: Option<impl FnOnce() + Send>,
) -> Result<Vec<String>, AppError> {
    // The build waits in a slot the thread takes it from: if the thread cannot start, it runs
    // here, first, as the unloaders' finish expects.
    let slot = Mutex::new(build);
    let run = || {
        let build = slot.lock().take();
        if let Some(build) = build {
            build();
        }
    };
    thread::scope(|s| {
        let beside = Mutex::new(None);
        if slot.lock().is_some() {
            match thread::Builder::new()
                .name("network".into())
                .spawn_scoped(s, run)
            {
                Ok(h) => *beside.lock() = Some(h),
                Err(_) => run(),
            }
        }
        let written = || {
            if let Some(h) = beside.lock().take()
                && let Err(panic) = h.join()
            {
                std::panic::resume_unwind(panic);
            }
        };
        let mut problems = Vec::new();
        for u in unloaders {
            problems.extend(u.finish_beside(folder, &written)?);
        }
        written();
        Ok(problems)
    })
}

/// The rows summary.csv lists besides the scopes written now: scopes retired (this run or an
/// earlier one), and rows earlier runs wrote into this results folder that the data manager
/// does not hold; each with its sort key, in key order.
pub(super) type Written<'a> = (&'a [(usize, ScopeId)], &'a [(usize, Arc<SiteSummary>)]);

/// Sort keys of rows with no place in hosts.txt come after every listed scope.
pub(super) const ORDER_AFTER: usize = 1 << 40;

/// A retired scope's row as summary.csv shows it: a scope hosts.txt no longer lists (its
/// sort key past [`ORDER_AFTER`]) is reported as removed.
pub(super) fn shown_row(order: usize, mut row: Arc<SiteSummary>) -> Arc<SiteSummary> {
    if order >= ORDER_AFTER {
        Arc::make_mut(&mut row).state = SiteState::Removed;
    }
    row
}

/// Scopes written at once: writing results waits on the disk more than on the CPU (each
/// file is synced), so more than the cores, but no more than there are scopes.
fn unload_workers(scopes: usize) -> usize {
    let cores = thread::available_parallelism().map_or(1, usize::from);
    (cores * 2).max(4).min(scopes.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawl::data::SiteGraph;
    use std::path::Path;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    /// An unloader that reads the sites' files first (here: says it started), then waits for
    /// the network and notes whether it is written; or, `waits_first`, the default order.
    #[derive(Debug)]
    struct Reader {
        built: Arc<AtomicBool>,
        started: crossbeam_channel::Sender<()>,
        saw: Arc<Mutex<Vec<bool>>>,
        waits_first: bool,
    }

    impl Unloader for Reader {
        fn unload(&self, _: &SiteGraph<'_>, _: &Path) -> Result<(), UnloadError> {
            Ok(())
        }
        fn finish(&self, _: &Path) -> Result<Vec<String>, UnloadError> {
            self.saw.lock().push(self.built.load(Ordering::SeqCst));
            Ok(Vec::new())
        }
        fn finish_beside(
            &self,
            folder: &Path,
            network_written: &dyn Fn(),
        ) -> Result<Vec<String>, UnloadError> {
            if self.waits_first {
                network_written();
                return self.finish(folder);
            }
            let _ = self.started.send(());
            network_written();
            self.finish(folder)
        }
    }

    #[test]
    fn the_network_is_built_beside_the_unloaders_and_written_before_they_read_it() {
        let built = Arc::new(AtomicBool::new(false));
        let saw = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = crossbeam_channel::unbounded();
        let beside = AtomicBool::new(false);
        // The build ends only once the first reader has started: run before the readers, one
        // after the other, it would wait out the timeout and `beside` would stay false.
        let build = || {
            let started = rx.recv_timeout(Duration::from_secs(10)).is_ok();
            beside.store(started, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(20));
            built.store(true, Ordering::SeqCst);
        };
        let reader = |waits_first| -> Box<dyn Unloader> {
            Box::new(Reader {
                built: Arc::clone(&built),
                started: tx.clone(),
                saw: Arc::clone(&saw),
                waits_first,
            })
        };
        let unloaders = vec![reader(false), reader(true)];
        let problems = finish_beside(Path::new("unused"), &unloaders, Some(build)).unwrap();
        assert!(problems.is_empty());
        assert!(
            beside.load(Ordering::SeqCst),
            "the network was not built beside the first unloader"
        );
        // Each reader found the network written when it read it.
        assert_eq!(*saw.lock(), [true, true]);
        // No network: nothing to wait for.
        saw.lock().clear();
        built.store(true, Ordering::SeqCst);
        let none: Option<fn()> = None;
        finish_beside(Path::new("unused"), &unloaders, none).unwrap();
        assert_eq!(*saw.lock(), [true, true]);
    }
}

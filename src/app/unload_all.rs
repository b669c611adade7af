//! Writing the results of every scope of a run, several scopes at once, and summary.csv.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

use parking_lot::Mutex;

use super::AppError;
use crate::data::DataManager;
use crate::ids::{ScopeId, SiteId};
use crate::schedule::Suspension;
use crate::settings::Settings;
use crate::site::Origin;
use crate::unload::summary::{SiteState, SiteSummary, write_summary};
use crate::unload::{UnloadError, Unloader};

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
}

impl ScopeRow {
    pub(super) fn new(scope: ScopeId, site: Option<SiteId>, origin: &Origin) -> Self {
        ScopeRow {
            scope,
            site,
            name: origin.to_string(),
            folder: origin.folder_name(),
            suspension: None,
        }
    }

    /// `http://x` and `https://x` would share a folder name: later ones get the scheme
    /// appended.
    pub(super) fn dedupe_folders(rows: &mut [ScopeRow]) {
        for i in 1..rows.len() {
            if rows[..i].iter().any(|s| s.folder == rows[i].folder) {
                let scheme = rows[i].name.split(':').next().unwrap_or("site").to_owned();
                rows[i].folder = format!("{}_{scheme}", rows[i].folder);
            }
        }
    }

    /// The summary.csv state of a scope whose graph says `state`.
    fn state(&self, state: SiteState) -> SiteState {
        if self.site.is_none() {
            return SiteState::Removed;
        }
        match (state, self.suspension) {
            (SiteState::Stopped, Some(Suspension::Down)) => SiteState::Down,
            (SiteState::Stopped, Some(Suspension::PageLimit)) => SiteState::PageLimit,
            (state, _) => state,
        }
    }
}

/// What writing the results gave.
#[derive(Debug)]
pub(super) struct Unloaded {
    /// summary.csv's rows.
    pub(super) rows: Vec<SiteSummary>,
    /// Failed checks of checking unloaders.
    pub(super) problems: Vec<String>,
}

/// Writes every scope's results, several scopes at once: a crawl of hundreds of small sites
/// otherwise spent a third of its time waiting for one site's files to reach the disk after
/// another. A scope whose files cannot be written does not stop the others; the first such
/// error is returned once all are done. Then each unloader's `finish`, and summary.csv.
pub(super) fn unload_all(
    settings: &Settings,
    dm: &dyn DataManager,
    unloaders: &[Box<dyn Unloader>],
    scopes: &[ScopeRow],
) -> Result<Unloaded, AppError> {
    let rows: Mutex<Vec<Option<SiteSummary>>> = Mutex::new(vec![None; scopes.len()]);
    let failed: Mutex<Option<UnloadError>> = Mutex::new(None);
    let next = AtomicUsize::new(0);
    let work = || {
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(info) = scopes.get(index) else {
                break;
            };
            let folder = settings.results.folder.join(&info.folder);
            let progress = dm.progress(info.scope);
            let mut result = Ok(());
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
                if matches!(row.state, SiteState::Down | SiteState::PageLimit) {
                    row.reason = match row.state {
                        SiteState::Down => {
                            format!(
                                "{} connection failures in a row",
                                settings.faults.site_down_after
                            )
                        }
                        _ => format!("MaxPagesPerSite = {}", settings.sites.max_pages),
                    };
                }
                rows.lock()[index] = Some(row);
            });
            if let Err(e) = result {
                failed.lock().get_or_insert(e);
            }
        }
    };
    thread::scope(|s| {
        for _ in 1..unload_workers(scopes.len()) {
            // A worker that cannot start leaves its share to the others.
            let _ = thread::Builder::new()
                .name("unload-scopes".into())
                .spawn_scoped(s, work);
        }
        work();
    });
    if let Some(e) = failed.into_inner() {
        return Err(e.into());
    }
    let mut problems = Vec::new();
    for u in unloaders {
        problems.extend(u.finish(&settings.results.folder)?);
    }
    let rows: Vec<SiteSummary> = rows.into_inner().into_iter().flatten().collect();
    let path = settings.results.folder.join("summary.csv");
    write_summary(&path, &rows).map_err(|source| UnloadError { path, source })?;
    Ok(Unloaded { rows, problems })
}

/// Scopes written at once: writing results waits on the disk more than on the CPU (each
/// file is synced), so more than the cores, but no more than there are scopes.
fn unload_workers(scopes: usize) -> usize {
    let cores = thread::available_parallelism().map_or(1, usize::from);
    (cores * 2).max(4).min(scopes.max(1))
}

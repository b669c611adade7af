//! Retiring scopes while the crawl runs (SPEC §11): a scope whose work in this run is over —
//! nothing left to fetch, or its site down or at its page limit with nothing in flight — has
//! its result files written at once, its row added to summary.csv (rewritten at most once a
//! second), and its data released: written to the state (so the next run neither crawls nor
//! writes it again) and dropped from memory. Its place in the window of active scopes goes to
//! the next scope of hosts.txt.
//!
//! The engine tells the retire workers of scopes that may have settled
//! ([`Context::maybe_settled`]); the workers also look at every live scope twice a second,
//! for the ways a scope settles without a commit (a site taken as down gives its URLs back).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, select};
use parking_lot::Mutex;

use super::seeds::Seeds;
use super::unload_all::{ORDER_AFTER, shown_row};
use crate::base::ids::ScopeId;
use crate::base::stop::{PanicGuard, StopReason};
use crate::crawl::data::RetireError;
use crate::crawl::data::summary::SiteSummary;
use crate::crawl::engine::Context;
use crate::crawl::fetch::Downloader;
use crate::crawl::unload::summary::write_summary_rows;
use crate::crawl::unload::{UnloadError, Unloader};

/// How often the workers look at every live scope.
const SCAN_INTERVAL: Duration = Duration::from_millis(500);

/// summary.csv is rewritten at most this often while the crawl runs.
const SUMMARY_INTERVAL: Duration = Duration::from_secs(1);

/// ... and no sooner than this many times the last rewrite took after it: a crawl of a
/// hundred thousand sites spends at most a twentieth of a worker's time on the file.
const SUMMARY_SPACING: u32 = 20;

/// Retire workers: one per core, at least two (writing results waits on the disk).
pub(super) fn worker_count() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get().max(2))
}

/// What the retire workers share.
pub(super) struct Retirer<'a> {
    pub(super) ctx: &'a Context,
    pub(super) seeds: &'a Seeds,
    pub(super) unloaders: &'a [Box<dyn Unloader>],
    pub(super) downloader: &'a dyn Downloader,
    /// summary.csv while the crawl runs.
    pub(super) summary: Mutex<LiveSummary>,
}

/// Which scopes summary.csv lists while the crawl runs, and when it was last written.
///
/// Their rows are not copied here: the data manager keeps every retired scope's row (encoded,
/// one after another in one block) for the end of the run, and each rewrite reads them from
/// there. A crawl of thousands of sites keeps 16 bytes a finished site here.
#[derive(Debug, Default)]
pub(super) struct LiveSummary {
    /// Each retired scope's sort key (hosts.txt order) and id.
    rows: Vec<(usize, ScopeId)>,
    /// Rows of sites earlier runs wrote into this results folder that the data manager does
    /// not hold (a crawl shared through a database), by sort key: listed until this run
    /// writes the site again.
    earlier: Vec<(usize, Arc<SiteSummary>)>,
    written: Option<Instant>,
    /// How long the last rewrite took.
    took: Duration,
    dirty: bool,
}

impl LiveSummary {
    /// Every scope retired before this run (a continued crawl).
    pub(super) fn new(ctx: &Context, seeds: &Seeds) -> Self {
        let mut live = LiveSummary::default();
        // Room for every row now, before any site's data.
        live.rows.reserve(seeds.scope_count());
        // One at a time: a continued crawl of thousands of sites decodes no table of them.
        for i in 0..ctx.dm.scope_count() {
            let id = ScopeId(i as u32);
            if ctx.dm.is_retired(id) {
                let origin = ctx.dm.scope_info(id).origin;
                live.rows.push((sort_key(seeds, id, &origin), id));
                live.dirty = true;
            }
        }
        live
    }

    /// Lists `rows`, written into this results folder by earlier runs, until this run writes
    /// their sites again.
    pub(super) fn with_earlier(mut self, seeds: &Seeds, rows: Vec<SiteSummary>) -> Self {
        let mut past = ORDER_AFTER + (1 << 32);
        for row in rows {
            let order = crate::model::site::Origin::parse(&row.site)
                .and_then(|o| seeds.position(&o))
                .unwrap_or_else(|| {
                    past += 1;
                    past
                });
            self.earlier.push((order, Arc::new(row)));
        }
        self.earlier.sort_by_key(|(k, _)| *k);
        self.dirty |= !self.earlier.is_empty();
        self
    }

    fn add(&mut self, order: usize, scope: ScopeId, site: &str) {
        self.rows.push((order, scope));
        self.earlier.retain(|(_, r)| r.site != site);
        self.dirty = true;
    }

    /// The rows of earlier runs still listed: the end of the run merges them with its own.
    pub(super) fn take_earlier(&mut self) -> Vec<(usize, Arc<SiteSummary>)> {
        std::mem::take(&mut self.earlier)
    }

    /// Every retired scope (before this run and in it) with its sort key, in summary.csv's
    /// order: the end of the run reads their rows one at a time.
    pub(super) fn sorted(&mut self) -> Vec<(usize, ScopeId)> {
        let mut rows = std::mem::take(&mut self.rows);
        rows.sort_by_key(|(k, _)| *k);
        rows
    }
}

/// Where a retired scope's row goes among the others: its place in hosts.txt, or after every
/// listed site's for a scope hosts.txt no longer lists (reported as removed).
fn sort_key(seeds: &Seeds, scope: ScopeId, origin: &crate::model::site::Origin) -> usize {
    seeds
        .position(origin)
        .unwrap_or(ORDER_AFTER + scope.0 as usize)
}

impl Retirer<'_> {
    /// A retire worker: retires the scopes it is told of, and those it finds settled, until
    /// the crawl stops or `done` closes.
    pub(super) fn run(&self, hints: &Receiver<ScopeId>, done: &Receiver<()>) {
        let _guard = PanicGuard(&self.ctx.stop);
        let stop = self.ctx.stop.receiver();
        let mut last_scan = Instant::now();
        loop {
            select! {
                recv(hints) -> msg => match msg {
                    Ok(scope) => self.retire(scope),
                    Err(_) => return,
                },
                recv(done) -> _ => return,
                recv(stop) -> _ => return,
                default(SCAN_INTERVAL) => {},
            }
            if last_scan.elapsed() >= SCAN_INTERVAL {
                last_scan = Instant::now();
                for scope in self.seeds.live_scopes() {
                    if self.ctx.stop.is_requested() {
                        return;
                    }
                    if self.ctx.dm.settled(scope) {
                        self.retire(scope);
                    }
                }
            }
            self.write_summary(false);
        }
    }

    /// Retires `scope` if it is live and settled. If its results cannot be written, it stays
    /// in memory (and in the state) and the crawl goes on: the end of the run writes it again,
    /// and fails naming it if it still cannot.
    fn retire(&self, scope: ScopeId) {
        let (ctx, dm) = (self.ctx, &*self.ctx.dm);
        // Taken out of the live set first: no other worker retires it too.
        let Some(mut row) = self.seeds.begin_retire(scope) else {
            return;
        };
        if !dm.settled(scope) {
            self.seeds.keep(scope);
            return;
        }
        // No task of the scope starts from now on; one may have started in between (another
        // site of a scope whose first site was suspended): then it is not settled after all.
        let sites = ctx.dispatcher.retire_scope(scope);
        if !dm.settled(scope) {
            ctx.dispatcher.reinstate(&sites);
            self.seeds.keep(scope);
            return;
        }
        row.suspension = row.site.and_then(|site| ctx.dispatcher.suspended(site));
        // The live network counts the site by its external links' hosts, taken from the graph
        // while its files are written (reading external_links.csv back cost the end of a crawl
        // of one large site 0.05 s on one core, and a million small sites a million reads).
        let mut hosts: Option<Vec<String>> = None;
        let mut take_hosts = |g: &crate::crawl::data::SiteGraph<'_>| {
            if ctx.network.is_some() {
                hosts = Some(g.external_hosts().into_iter().map(str::to_owned).collect());
            }
        };
        let written = dm.retire_with(scope, &mut || {
            super::unload_all::unload_scope(
                &ctx.settings,
                dm,
                self.unloaders,
                &row,
                &mut take_hosts,
            )
            .map_err(Into::into)
        });
        match written {
            Ok(()) => {
                if let Some(network) = &ctx.network {
                    let folder = ctx.settings.results.folder.join(&row.folder);
                    network.count_written(&row.name, &folder, hosts.take());
                }
                self.downloader.sites_done(&sites);
                if let Some(render) = &ctx.render {
                    for &site in &sites {
                        render.forget(site);
                    }
                }
                ctx.dispatcher.release_sites(&sites);
                self.seeds.retired(scope);
                self.summary.lock().add(row.order, scope, &row.name);
            }
            Err(e) => {
                // Which of the two failed: a full state disk is not a full results disk.
                let what = match e {
                    RetireError::Results(_) => "its results cannot be written now",
                    RetireError::State(_) => "it cannot be recorded as written in the state now",
                };
                eprintln!(
                    "{}: {what} ({e}); it stays in memory and is written again at the end",
                    row.name
                );
                self.seeds.keep_unwritten(scope);
            }
        }
    }

    /// Rewrites summary.csv with the rows of the scopes retired so far, if it changed and the
    /// last write is a second old (or `now`).
    pub(super) fn write_summary(&self, now: bool) {
        // Written under the lock, so the lines are not copied out; a retire worker with a row to
        // add waits for the write, once a second at most.
        let mut live = self.summary.lock();
        let due = live
            .written
            .is_none_or(|t| t.elapsed() >= SUMMARY_INTERVAL.max(live.took * SUMMARY_SPACING));
        if !live.dirty || !(due || now) {
            return;
        }
        live.dirty = false;
        let started = Instant::now();
        // Rows come nearly in order: the sort is a merge of a few runs.
        live.rows.sort_by_key(|(k, _)| *k);
        let dm = &*self.ctx.dm;
        let retired = live.rows.iter().filter_map(|&(order, scope)| {
            // Every scope listed here is retired: the data manager has its row.
            dm.retired_row(scope).map(|row| (order, row))
        });
        let earlier = live.earlier.iter().map(|(k, r)| (*k, Arc::clone(r)));
        let rows = merge_by_key(retired, earlier).map(|(order, row)| shown_row(order, row));
        let path = self.ctx.settings.results.folder.join("summary.csv");
        if let Err(source) = write_summary_rows(&path, rows) {
            let e = UnloadError { path, source };
            self.ctx.stop.request(StopReason::Failed(format!("{e}")));
        }
        live.written = Some(Instant::now());
        live.took = started.elapsed();
    }
}

/// The items of two sequences sorted by key, in key order (`a`'s first among equal keys).
pub(super) fn merge_by_key<T>(
    a: impl Iterator<Item = (usize, T)>,
    b: impl Iterator<Item = (usize, T)>,
) -> impl Iterator<Item = (usize, T)> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some((ka, _)), Some((kb, _))) if kb < ka => b.next(),
        (Some(_), _) => a.next(),
        (None, _) => b.next(),
    })
}

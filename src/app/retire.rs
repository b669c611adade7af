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

use std::ops::Range;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, select};
use parking_lot::Mutex;

use super::seeds::Seeds;
use super::unload_all::ORDER_AFTER;
use crate::context::Context;
use crate::data::summary::{SiteState, SiteSummary};
use crate::fetch::Downloader;
use crate::ids::ScopeId;
use crate::stop::{PanicGuard, StopReason};
use crate::unload::summary::{summary_line, write_summary_lines};
use crate::unload::{UnloadError, Unloader};

/// How often the workers look at every live scope.
const SCAN_INTERVAL: Duration = Duration::from_millis(500);

/// summary.csv is rewritten at most this often while the crawl runs.
const SUMMARY_INTERVAL: Duration = Duration::from_secs(1);

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

/// summary.csv's rows of the scopes retired so far, and when it was last written.
///
/// The rows are kept as summary.csv's lines, one after another in one block: a crawl of
/// thousands of sites keeps about a hundred bytes a finished site, not a row of strings each
/// (the data manager keeps the rows themselves, as compactly, for the end of the run).
#[derive(Debug, Default)]
pub(super) struct LiveSummary {
    text: Vec<u8>,
    /// Each row's sort key (hosts.txt order) and its line in `text`.
    lines: Vec<(usize, Range<usize>)>,
    written: Option<Instant>,
    dirty: bool,
}

impl LiveSummary {
    /// The rows of every scope retired before this run (a continued crawl).
    pub(super) fn new(ctx: &Context, seeds: &Seeds) -> Self {
        let mut live = LiveSummary::default();
        // Room for every row now, before any site's data (about a hundred bytes a row; an
        // unused tail of a large block costs no memory until it is written).
        let n = seeds.scope_count();
        live.text.reserve(n * 128);
        live.lines.reserve(n);
        for (order, row) in retired_rows(ctx, seeds) {
            live.add(order, &row);
        }
        live
    }

    fn add(&mut self, order: usize, row: &SiteSummary) {
        let start = self.text.len();
        summary_line(row, &mut self.text);
        self.lines.push((order, start..self.text.len()));
        self.dirty = true;
    }
}

/// The rows of every retired scope (before this run and in it), keyed for sorting with others.
pub(super) fn retired_rows(ctx: &Context, seeds: &Seeds) -> Vec<(usize, Arc<SiteSummary>)> {
    ctx.dm
        .scopes()
        .into_iter()
        .filter_map(|info| {
            let r = info.retired?;
            Some(retired_row(seeds, info.id, &r.origin, Arc::clone(&r.row)))
        })
        .collect()
}

/// A retired scope's row and its sort key; a scope hosts.txt no longer lists is reported as
/// removed.
fn retired_row(
    seeds: &Seeds,
    scope: ScopeId,
    origin: &crate::site::Origin,
    mut row: Arc<SiteSummary>,
) -> (usize, Arc<SiteSummary>) {
    match seeds.position(origin) {
        Some(at) => (at, row),
        None => {
            Arc::make_mut(&mut row).state = SiteState::Removed;
            (ORDER_AFTER + scope.0 as usize, row)
        }
    }
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
        let written = super::unload_all::unload_scope(&ctx.settings, dm, self.unloaders, &row)
            .map_err(|e| e.to_string())
            .and_then(|summary| {
                let summary = Arc::new(summary);
                dm.retire(scope, Arc::clone(&summary))
                    .map(|()| summary)
                    .map_err(|e| format!("cannot save the crawl state: {e}"))
            });
        match written {
            Ok(summary) => {
                self.downloader.sites_done(&sites);
                ctx.dispatcher.release_sites(&sites);
                self.seeds.retired(scope);
                self.summary.lock().add(row.order, &summary);
            }
            Err(e) => {
                eprintln!(
                    "{}: its results cannot be written now ({e}); it stays in memory and is written again at the end",
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
        let due = live.written.is_none_or(|t| t.elapsed() >= SUMMARY_INTERVAL);
        if !live.dirty || !(due || now) {
            return;
        }
        live.dirty = false;
        live.written = Some(Instant::now());
        // Rows come nearly in order: the sort is a merge of a few runs.
        live.lines.sort_by_key(|(k, _)| *k);
        let LiveSummary { text, lines, .. } = &*live;
        let path = self.ctx.settings.results.folder.join("summary.csv");
        if let Err(source) = write_summary_lines(&path, lines.iter().map(|(_, r)| &text[r.clone()]))
        {
            let e = UnloadError { path, source };
            self.ctx.stop.request(StopReason::Failed(format!("{e}")));
        }
    }
}

//! The crawl's progress, as the console routine shows it: totals, rate, the sites with most
//! queued, problems (SPEC §12).
//!
//! Where stderr is a terminal, a live display of two lines that is redrawn in place (indicatif)
//! four times a second, with notes and problems printed above it; elsewhere (a file, a pipe, a
//! CI log) the plain line of today every `ProgressSeconds`, which scrolls and can be grepped.
//! `RCCRAWLER_PLAIN_PROGRESS=1` asks for the plain lines on a terminal too.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::context::Context;
use crate::ids::ScopeId;

/// The crawl's scopes added up: what the progress line and the status page show.
pub(super) struct Tally<'a> {
    /// Pages recorded.
    pub(super) pages: u64,
    /// Pages recorded by this run (a continued crawl's saved pages left out).
    pub(super) new_pages: u64,
    /// Fetch outcomes recorded by this run: the rate's count (a continued crawl's scopes bring
    /// their saved outcomes as they open, which are no fetches of this run).
    pub(super) outcomes: u64,
    /// The scopes with URLs queued, in the order given.
    pub(super) open: Vec<OpenScope<'a>>,
}

/// A scope with URLs queued.
pub(super) struct OpenScope<'a> {
    pub(super) name: &'a str,
    pub(super) pages: u64,
    pub(super) queued: usize,
}

/// The scopes opened in this run: those not retired yet with their names, and what the
/// retired ones recorded, added up once as they retire. A crawl of thousands of sites keeps
/// no name for each finished one, and a tick looks at the scopes being crawled only.
#[derive(Debug, Default)]
pub(super) struct OpenedScopes {
    open: Vec<(ScopeId, String)>,
    retired_pages: u64,
    retired_outcomes: u64,
    /// What the scopes had recorded when they were opened (saved by earlier runs).
    carried_pages: u64,
    carried_outcomes: u64,
}

impl OpenedScopes {
    /// `scopes`, just opened.
    pub(super) fn new(ctx: &Context, scopes: &[(ScopeId, String)]) -> Self {
        let mut opened = OpenedScopes::default();
        opened.extend(ctx, scopes.iter().cloned());
        opened
    }

    /// More scopes, just opened.
    pub(super) fn extend(
        &mut self,
        ctx: &Context,
        more: impl IntoIterator<Item = (ScopeId, String)>,
    ) {
        for (id, name) in more {
            let p = ctx.dm.progress(id);
            self.carried_pages += p.pages as u64;
            self.carried_outcomes += p.outcomes;
            self.open.push((id, name));
        }
    }

    /// Adds up every scope opened; those retired since the last call leave the list, their
    /// figures kept in the totals (a retired scope's figures no longer change).
    pub(super) fn tally(&mut self, ctx: &Context) -> Tally<'_> {
        let OpenedScopes {
            open,
            retired_pages,
            retired_outcomes,
            carried_pages,
            carried_outcomes,
        } = self;
        open.retain(|(id, _)| {
            if !ctx.dm.is_retired(*id) {
                return true;
            }
            let p = ctx.dm.progress(*id);
            *retired_pages += p.pages as u64;
            *retired_outcomes += p.outcomes;
            false
        });
        let mut t = Tally {
            pages: *retired_pages,
            new_pages: 0,
            outcomes: *retired_outcomes,
            open: Vec::new(),
        };
        for (id, name) in open.iter() {
            let p = ctx.dm.progress(*id);
            t.pages += p.pages as u64;
            t.outcomes += p.outcomes;
            if p.pending > 0 {
                t.open.push(OpenScope {
                    name,
                    pages: p.pages as u64,
                    queued: p.pending,
                });
            }
        }
        t.new_pages = t.pages.saturating_sub(*carried_pages);
        t.outcomes = t.outcomes.saturating_sub(*carried_outcomes);
        t
    }
}

/// How often the live display is redrawn.
const LIVE_EVERY: Duration = Duration::from_millis(250);

/// The progress line, or the live display.
pub(super) struct ProgressLine {
    every: Duration,
    last: Instant,
    last_outcomes: u64,
    /// Problems reported so far.
    pub(super) problems: u64,
    /// The live display (stderr is a terminal).
    live: Option<ProgressBar>,
    /// The last totals shown, printed once more when the live display ends.
    last_totals: String,
}

impl ProgressLine {
    /// Plain lines every `every`, or a live display where stderr is a terminal.
    pub(super) fn new(every: Duration) -> Self {
        let terminal = std::io::stderr().is_terminal()
            && std::env::var_os("RCCRAWLER_PLAIN_PROGRESS").is_none_or(|v| v.is_empty());
        let live = terminal.then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{spinner} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar
        });
        ProgressLine {
            every: if live.is_some() { LIVE_EVERY } else { every },
            last: Instant::now(),
            last_outcomes: 0,
            problems: 0,
            live,
            last_totals: String::new(),
        }
    }

    /// Prints a line of its own (a note, a problem): above the live display, which stays.
    pub(super) fn println(&self, text: &str) {
        match &self.live {
            Some(bar) => bar.suspend(|| eprintln!("{text}")),
            None => eprintln!("{text}"),
        }
    }

    /// Ends the live display, leaving its last totals as a plain line.
    pub(super) fn finish(&mut self) {
        if let Some(bar) = self.live.take() {
            bar.finish_and_clear();
            if !self.last_totals.is_empty() {
                eprintln!("{}", self.last_totals);
            }
        }
    }

    /// Shows the progress if its interval has passed.
    pub(super) fn maybe_print(&mut self, ctx: &Context, scopes: &mut OpenedScopes) {
        let now = Instant::now();
        if now.duration_since(self.last) < self.every {
            return;
        }
        let (totals, sites) = self.lines(ctx, scopes, now);
        match &self.live {
            Some(bar) => {
                let mut msg = totals.clone();
                if !sites.is_empty() {
                    msg.push_str("\n  ");
                    msg.push_str(&sites);
                }
                bar.set_message(msg);
                bar.tick();
            }
            None => {
                let line = if sites.is_empty() {
                    totals.clone()
                } else {
                    format!("{totals} | {sites}")
                };
                let _ = writeln!(std::io::stderr(), "{line}");
            }
        }
        self.last_totals = totals;
    }

    /// The totals, and the sites with most queued (empty if none).
    fn lines(
        &mut self,
        ctx: &Context,
        scopes: &mut OpenedScopes,
        now: Instant,
    ) -> (String, String) {
        let Tally {
            pages,
            outcomes,
            open,
            ..
        } = scopes.tally(ctx);
        let mut per_site: Vec<(usize, String)> = open
            .iter()
            .map(|s| (s.queued, format!("{} {}p/{}q", s.name, s.pages, s.queued)))
            .collect();
        per_site.sort_by_key(|s| std::cmp::Reverse(s.0));
        let rate =
            (outcomes - self.last_outcomes) as f64 / now.duration_since(self.last).as_secs_f64();
        self.last = now;
        self.last_outcomes = outcomes;
        let mut line = format!(
            "[{:>5}s] pages {pages}, queued {}, {rate:.1} urls/s, problems {}",
            ctx.started.elapsed().as_secs(),
            ctx.dm.pending(),
            self.problems
        );
        if let Some(feeder) = &ctx.feeder {
            let n = feeder.counts();
            if n.written > 0 || n.waiting > 0 {
                line.push_str(&format!(
                    ", sites: {} crawling, {} written, {} waiting, {} downloaders",
                    n.live,
                    n.written,
                    n.waiting,
                    ctx.dispatcher.downloaders()
                ));
            }
        }
        // Why the rate may be low: say what waits.
        let (retrying, backed_off) = ctx.dispatcher.waiting();
        if retrying > 0 {
            line.push_str(&format!(", {retrying} URLs waiting to be retried"));
        }
        if backed_off > 0 {
            line.push_str(&format!(", {backed_off} sites backed off"));
        }
        let mut sites: Vec<&str> = per_site.iter().take(4).map(|(_, s)| s.as_str()).collect();
        let more = per_site.len().saturating_sub(4);
        let more_text = format!("+{more} sites");
        if more > 0 {
            sites.push(&more_text);
        }
        (line, sites.join(" | "))
    }
}

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

use crate::crawl::live::CrawlView;
use crate::crawl::live::tally::{OpenedScopes, Tally, short_duration};

/// How often the live display is redrawn.
const LIVE_EVERY: Duration = Duration::from_millis(250);

/// The progress line, or the live display.
pub(super) struct ProgressLine {
    every: Duration,
    last: Instant,
    last_outcomes: u64,
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
    pub(super) fn maybe_print(&mut self, crawl: &dyn CrawlView, scopes: &mut OpenedScopes) {
        let now = Instant::now();
        if now.duration_since(self.last) < self.every {
            return;
        }
        let (clauses, sites) = self.lines(crawl, scopes, now);
        let totals = clauses.join(", ");
        match &self.live {
            Some(bar) => {
                // A line wider than the terminal wraps, and the redraw then erases one line
                // too few: each line is cut to the width, clause by clause (the spinner and
                // its space take two columns).
                let width = console::Term::stderr()
                    .size_checked()
                    .map_or(80, |(_, cols)| usize::from(cols))
                    .saturating_sub(2);
                let mut msg = fit_clauses(&clauses, ", ", width, None);
                if !sites.is_empty() {
                    msg.push_str("\n  ");
                    let more = |n: usize| format!("+{n} sites");
                    msg.push_str(&fit_clauses(
                        &sites,
                        " | ",
                        width.saturating_sub(2),
                        Some(&more),
                    ));
                }
                bar.set_message(msg);
                bar.tick();
            }
            None => {
                let mut shown: Vec<&str> = sites.iter().take(4).map(String::as_str).collect();
                let more = format!("+{} sites", sites.len().saturating_sub(4));
                if sites.len() > 4 {
                    shown.push(&more);
                }
                let line = if shown.is_empty() {
                    totals.clone()
                } else {
                    format!("{totals} | {}", shown.join(" | "))
                };
                let _ = writeln!(std::io::stderr(), "{line}");
            }
        }
        self.last_totals = totals;
    }

    /// The totals' clauses (the first with the time and the pages), and the sites being
    /// crawled, most queued first (empty if none).
    fn lines(
        &mut self,
        crawl: &dyn CrawlView,
        scopes: &mut OpenedScopes,
        now: Instant,
    ) -> (Vec<String>, Vec<String>) {
        let tally = scopes.tally(crawl);
        let counts = crawl.scope_counts();
        let left = tally.time_left();
        let Tally {
            pages,
            outcomes,
            open,
            ..
        } = tally;
        let mut per_site: Vec<(usize, String)> = open
            .iter()
            .map(|s| {
                (
                    s.queued,
                    format!(
                        "{} {}p/{}q",
                        crate::base::words::shown_origin(s.name),
                        s.pages,
                        s.queued
                    ),
                )
            })
            .collect();
        per_site.sort_by_key(|s| std::cmp::Reverse(s.0));
        let rate =
            (outcomes - self.last_outcomes) as f64 / now.duration_since(self.last).as_secs_f64();
        self.last = now;
        self.last_outcomes = outcomes;
        let mut clauses = vec![
            format!(
                "[{:>5}s] pages {pages}",
                crawl.started().elapsed().as_secs()
            ),
            format!("queued {}", crawl.queued()),
            format!("{rate:.1} urls/s"),
            format!("problems {}", crawl.problems()),
        ];
        if let Some(n) = counts
            && (n.written > 0 || n.waiting > 0)
        {
            clauses.push(format!(
                "sites: {} crawling, {} written, {} waiting, {} downloaders",
                n.live,
                n.written,
                n.waiting,
                crawl.downloaders()
            ));
        }
        // Why the rate may be low: say what waits.
        let (retrying, backed_off) = crawl.waiting();
        if retrying > 0 {
            clauses.push(format!("{retrying} URLs waiting to be retried"));
        }
        if backed_off > 0 {
            clauses.push(format!("{backed_off} sites backed off"));
        }
        if let Some(left) = left {
            clauses.push(format!("about {} left", short_duration(left)));
        }
        (clauses, per_site.into_iter().map(|(_, s)| s).collect())
    }
}

/// `parts` joined by `sep` as far as they fit in `width` columns: the first always (cut if
/// need be), then each while the next fits; where parts are left out, `more(n)` says how
/// many, when given and it fits.
fn fit_clauses(
    parts: &[String],
    sep: &str,
    width: usize,
    more: Option<&dyn Fn(usize) -> String>,
) -> String {
    let columns = |s: &str| console::measure_text_width(s);
    let mut line = String::new();
    for (i, part) in parts.iter().enumerate() {
        let joined = if i == 0 {
            part.clone()
        } else {
            format!("{line}{sep}{part}")
        };
        // Room for the "+n" note after this part, unless it is the last.
        let note = match more {
            Some(more) if i + 1 < parts.len() => columns(sep) + columns(&more(parts.len() - i - 1)),
            _ => 0,
        };
        if columns(&joined) + note <= width || i == 0 && columns(&joined) <= width {
            line = joined;
            continue;
        }
        if i == 0 {
            return console::truncate_str(part, width, "…").into_owned();
        }
        if let Some(more) = more {
            let note = format!("{line}{sep}{}", more(parts.len() - i));
            if columns(&note) <= width {
                return note;
            }
        }
        return line;
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn clauses_fit_the_width_whole_or_not_at_all() {
        let clauses = parts(&[
            "[   12s] pages 405",
            "queued 3",
            "12.5 urls/s",
            "problems 0",
        ]);
        assert_eq!(
            fit_clauses(&clauses, ", ", 200, None),
            "[   12s] pages 405, queued 3, 12.5 urls/s, problems 0"
        );
        assert_eq!(
            fit_clauses(&clauses, ", ", 40, None),
            "[   12s] pages 405, queued 3"
        );
        assert_eq!(fit_clauses(&clauses, ", ", 10, None), "[   12s] …");
        assert_eq!(
            fit_clauses(
                &parts(&["x 900 URLs waiting to be retried"]),
                ", ",
                80,
                None
            ),
            "x 900 URLs waiting to be retried"
        );
    }

    #[test]
    fn sites_that_do_not_fit_are_counted() {
        let sites = parts(&["a.test 10p/5q", "b.test 9p/4q", "c.test 1p/1q"]);
        let more = |n: usize| format!("+{n} sites");
        assert_eq!(
            fit_clauses(&sites, " | ", 80, Some(&more)),
            "a.test 10p/5q | b.test 9p/4q | c.test 1p/1q"
        );
        assert_eq!(
            fit_clauses(&sites, " | ", 36, Some(&more)),
            "a.test 10p/5q | +2 sites"
        );
        for width in 10..80 {
            let line = fit_clauses(&sites, " | ", width, Some(&more));
            assert!(
                console::measure_text_width(&line) <= width,
                "{width}: {line}"
            );
        }
    }
}

//! The crawl's scopes added up, as the progress line and the status page show them: pages,
//! this run's pages and outcomes, and each site still being crawled with its queue and the
//! time its queue needs at its rate so far.

use std::time::Duration;

use super::CrawlView;
use crate::base::ids::ScopeId;

/// The crawl's scopes added up: what the progress line and the status page show.
pub(crate) struct Tally<'a> {
    /// Pages recorded.
    pub(crate) pages: u64,
    /// Pages recorded by this run (a continued crawl's saved pages left out).
    pub(crate) new_pages: u64,
    /// Fetch outcomes recorded by this run: the rate's count (a continued crawl's scopes bring
    /// their saved outcomes as they open, which are no fetches of this run).
    pub(crate) outcomes: u64,
    /// The scopes with URLs queued, in the order given.
    pub(crate) open: Vec<OpenScope<'a>>,
    /// Scopes not opened yet (waiting their turn in the window of active scopes).
    pub(crate) waiting: usize,
}

/// A scope with URLs queued.
pub(crate) struct OpenScope<'a> {
    pub(crate) name: &'a str,
    pub(crate) pages: u64,
    pub(crate) queued: usize,
    /// Seconds until its queue is fetched at its rate so far (its fetches over its time),
    /// once it has a rate to go by: what politeness allows it shows in that rate.
    pub(crate) time_left: Option<f64>,
}

/// A site's fetches needed before its rate is taken as an estimate.
const FETCHES_FOR_AN_ESTIMATE: u64 = 5;

/// Seconds until `pending` URLs are fetched at the rate of `outcomes` over `active`.
fn time_left(pending: usize, outcomes: u64, active: Duration) -> Option<f64> {
    if outcomes < FETCHES_FOR_AN_ESTIMATE || active < Duration::from_secs(1) {
        return None;
    }
    Some(pending as f64 * active.as_secs_f64() / outcomes as f64)
}

impl Tally<'_> {
    /// The time left of the crawl: the longest of its sites' (they are crawled side by
    /// side), `None` while one of them has no estimate yet or sites still wait their turn
    /// (they have no rate yet) — the progress line and the status page say the same.
    pub(crate) fn time_left(&self) -> Option<f64> {
        if self.waiting > 0 {
            return None;
        }
        self.open
            .iter()
            .map(|s| s.time_left)
            .try_fold(0.0f64, |most, t| t.map(|t| most.max(t)))
            .filter(|_| !self.open.is_empty())
    }
}

/// A duration as people read it: `45s`, `3m 20s`, `2h 05m`.
pub(crate) fn short_duration(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
    }
}

/// The scopes opened in this run: those not retired yet with their names, and what the
/// retired ones recorded, added up once as they retire. A crawl of thousands of sites keeps
/// no name for each finished one, and a tick looks at the scopes being crawled only.
#[derive(Debug, Default)]
pub(crate) struct OpenedScopes {
    open: Vec<(ScopeId, String)>,
    retired_pages: u64,
    retired_outcomes: u64,
    /// What the scopes had recorded when they were opened (saved by earlier runs).
    carried_pages: u64,
    carried_outcomes: u64,
}

impl OpenedScopes {
    /// `scopes`, just opened.
    /// The scopes earlier runs finished count too: their pages are the crawl's (summary.csv
    /// lists them), recorded before this run.
    pub(crate) fn new(crawl: &dyn CrawlView, scopes: &[(ScopeId, String)]) -> Self {
        let mut opened = OpenedScopes::default();
        let open: std::collections::HashSet<ScopeId> = scopes.iter().map(|(id, _)| *id).collect();
        let earlier: u64 = (0..crawl.scope_count())
            .map(|i| ScopeId(i as u32))
            .filter(|id| !open.contains(id))
            .filter_map(|id| crawl.retired_pages(id))
            .sum();
        opened.retired_pages = earlier;
        opened.carried_pages = earlier;
        opened.extend(crawl, scopes.iter().cloned());
        opened
    }

    /// More scopes, just opened.
    pub(crate) fn extend(
        &mut self,
        crawl: &dyn CrawlView,
        more: impl IntoIterator<Item = (ScopeId, String)>,
    ) {
        for (id, name) in more {
            let p = crawl.scope_progress(id);
            self.carried_pages += p.pages as u64;
            self.carried_outcomes += p.outcomes;
            self.open.push((id, name));
        }
    }

    /// Adds up every scope opened; those retired since the last call leave the list, their
    /// figures kept in the totals (a retired scope's figures no longer change).
    pub(crate) fn tally(&mut self, crawl: &dyn CrawlView) -> Tally<'_> {
        let OpenedScopes {
            open,
            retired_pages,
            retired_outcomes,
            carried_pages,
            carried_outcomes,
        } = self;
        open.retain(|(id, _)| {
            if !crawl.is_retired(*id) {
                return true;
            }
            let p = crawl.scope_progress(*id);
            *retired_pages += p.pages as u64;
            *retired_outcomes += p.outcomes;
            false
        });
        let mut t = Tally {
            pages: *retired_pages,
            new_pages: 0,
            outcomes: *retired_outcomes,
            open: Vec::new(),
            waiting: crawl.scope_counts().map_or(0, |n| n.waiting),
        };
        for (id, name) in open.iter() {
            let p = crawl.scope_progress(*id);
            t.pages += p.pages as u64;
            t.outcomes += p.outcomes;
            if p.pending > 0 {
                t.open.push(OpenScope {
                    name,
                    pages: p.pages as u64,
                    queued: p.pending,
                    time_left: time_left(p.pending, p.outcomes, p.active),
                });
            }
        }
        t.new_pages = t.pages.saturating_sub(*carried_pages);
        t.outcomes = t.outcomes.saturating_sub(*carried_outcomes);
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_left_once_a_site_has_a_rate() {
        assert_eq!(time_left(10, 4, Duration::from_secs(8)), None);
        assert_eq!(time_left(10, 5, Duration::from_millis(500)), None);
        assert_eq!(time_left(10, 5, Duration::from_secs(2)), Some(4.0));
        let site = |time_left| OpenScope {
            name: "a",
            pages: 1,
            queued: 1,
            time_left,
        };
        let tally = |open| Tally {
            pages: 0,
            new_pages: 0,
            outcomes: 0,
            open,
            waiting: 0,
        };
        assert_eq!(
            tally(vec![site(Some(3.0)), site(Some(9.0))]).time_left(),
            Some(9.0)
        );
        assert_eq!(tally(vec![site(Some(3.0)), site(None)]).time_left(), None);
        assert_eq!(tally(Vec::new()).time_left(), None);
        let mut waiting = tally(vec![site(Some(3.0))]);
        waiting.waiting = 2;
        assert_eq!(
            waiting.time_left(),
            None,
            "sites waiting their turn have no rate"
        );
        assert_eq!(short_duration(44.6), "45s");
        assert_eq!(short_duration(200.0), "3m 20s");
        assert_eq!(short_duration(7500.0), "2h 05m");
    }
}

//! The window of active scopes (SPEC §11): how many scopes are crawled at once. Scopes are
//! opened in hosts.txt order until the window is full; each one retired (finished, results
//! written, data released) makes room for the next. So memory follows the sites being crawled,
//! not the sites of the crawl.
//!
//! Automatic (`ActiveScopes = 0`), the window starts small and, looked at every tenth of a
//! second, grows by a quarter when there are scopes left to open, none of the open ones waits
//! to be written (then writing results is the bound, not the sites), downloaders waited for a
//! ready site for a quarter of that time or more while the parsers waited for pages too (the
//! open sites wait for their crawl delay, or their downloads at a time are all taken), and
//! the processors had time to spare: more sites keep
//! the downloads busy. With the processors saturated the crawl is bound by the CPU and more
//! sites would only take memory. It never shrinks: a window that was needed once is needed
//! again at the next slow moment. It never grows past the scopes that could fill it (those
//! open, those not tried yet, and in a shared crawl those outstanding elsewhere), nor past
//! `ScopesPerProcess`: a shared crawl whose other processes held scopes grew it by a quarter
//! every tenth of a second for as long as it ran, until its size no longer fit the database's
//! `LIMIT` (issue 44).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::crawl::data::coord::Coordinator;
use crate::crawl::settings::Settings;

/// The automatic window's first size.
pub(super) const FIRST_WINDOW: usize = 16;

/// How often an automatic window considers growing.
pub(super) const ADAPT_PERIOD: Duration = Duration::from_millis(100);

/// How many scopes are crawled at once.
#[derive(Debug)]
pub(super) struct Window {
    size: AtomicUsize,
    /// The largest it may grow to (`ScopesPerProcess` of a shared crawl, or unbounded).
    most: usize,
    grows: bool,
}

impl Window {
    /// The window `settings` ask for, of a crawl of `scopes` scopes.
    pub(super) fn new(settings: &Settings, coordinator: &dyn Coordinator, scopes: usize) -> Self {
        let most = coordinator.scopes_per_process().unwrap_or(usize::MAX);
        let (size, grows) = if settings.bandit.is_budgeted() {
            // The budget rule chooses among every site, at every fetch.
            (scopes, false)
        } else {
            match settings.threads.active_scopes {
                Some(n) => (n.get(), false),
                None => (FIRST_WINDOW, true),
            }
        };
        Window {
            size: AtomicUsize::new(size.min(most).max(1)),
            most,
            grows,
        }
    }

    /// Scopes to keep open.
    pub(super) fn size(&self) -> usize {
        self.size.load(Ordering::Relaxed)
    }

    /// Grows an automatic window by a quarter (see [`Pressure`] for when), to at most
    /// `ScopesPerProcess` and the scopes that could fill it: its size is never more than
    /// `max(its first size, p.openable)`.
    pub(super) fn adapt(&self, p: &Pressure) {
        let size = self.size();
        if !self.grows
            || !p.spare
            || p.openable <= size
            || p.writing_behind
            || p.starved < p.period / 4
        {
            return;
        }
        let next = size
            .saturating_add((size / 4).max(1))
            .min(self.most)
            .min(p.openable);
        self.size.store(next.max(size), Ordering::Relaxed);
    }
}

/// What the window saw over the last `period`. It grows when the downloaders waited for a
/// ready site (with the parsers idle) a quarter of the period or more (`starved`), the
/// processors had time to `spare`, more scopes could be opened than it holds (`openable`), and
/// no settled scope waits to be written (`writing_behind`: then writing the results is what
/// the downloads wait for, and more open scopes would only wait too — 4,000 one-page sites
/// grew the window to 3,149 scopes and 230 MB).
#[derive(Debug, Clone, Copy)]
pub(super) struct Pressure {
    /// How long since the window last looked.
    pub(super) period: Duration,
    /// How long the downloaders waited for a ready site in that time.
    pub(super) starved: Duration,
    /// Whether the processors had time to spare.
    pub(super) spare: bool,
    /// Whether settled scopes wait to be written.
    pub(super) writing_behind: bool,
    /// The scopes that exist, are not finished and this process could open: those open now,
    /// those not tried yet, and (a shared crawl) those outstanding elsewhere.
    pub(super) openable: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawl::data::coord::{Coordinator, Solo};

    fn settings(lines: &str) -> Settings {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("settings.ini");
        std::fs::write(&path, lines).expect("write settings");
        Settings::load(&path).expect("valid settings").0
    }

    /// Starved, with processors to spare and nothing behind: the window grows if it may.
    fn starved(openable: usize) -> Pressure {
        Pressure {
            period: ADAPT_PERIOD,
            starved: ADAPT_PERIOD * 3,
            spare: true,
            writing_behind: false,
            openable,
        }
    }

    /// A shared crawl (PgDM) with `ScopesPerProcess` unset.
    #[derive(Debug)]
    struct Shared;
    impl Coordinator for Shared {
        fn scopes_per_process(&self) -> Option<usize> {
            Some(usize::MAX)
        }
    }

    #[test]
    fn an_automatic_window_grows_only_when_starved_with_processors_to_spare() {
        let w = Window::new(&settings(""), &Solo, 1000);
        let p = ADAPT_PERIOD;
        assert_eq!(w.size(), FIRST_WINDOW);
        w.adapt(&starved(FIRST_WINDOW));
        assert_eq!(w.size(), FIRST_WINDOW, "nothing more to open: no growth");
        w.adapt(&Pressure {
            starved: p / 10,
            ..starved(1000)
        });
        assert_eq!(w.size(), FIRST_WINDOW, "hardly waited: no growth");
        w.adapt(&Pressure {
            spare: false,
            ..starved(1000)
        });
        assert_eq!(w.size(), FIRST_WINDOW, "processors saturated: no growth");
        // See: issue 18 — settled scopes waiting to be written grew the window without end.
        w.adapt(&Pressure {
            writing_behind: true,
            ..starved(1000)
        });
        assert_eq!(
            w.size(),
            FIRST_WINDOW,
            "results being written are the bound: no growth"
        );
        w.adapt(&starved(1000));
        assert_eq!(w.size(), FIRST_WINDOW + FIRST_WINDOW / 4);
    }

    /// An hour of growth steps (one a tenth of a second).
    const HOUR_OF_STEPS: usize = 36_000;

    // See: issue 44 — a shared crawl's window grew 16 × 1.25^k for as long as the downloaders
    // starved, until PostgreSQL refused `LIMIT -N` (every process died at ~19 s).
    #[test]
    fn an_hour_of_starved_growth_stays_within_the_scopes_that_could_fill_it() {
        for (coordinator, scopes, openable) in [
            (&Shared as &dyn Coordinator, 6, 6),
            (&Shared, 6, 40),
            (&Solo, 5000, 5000),
            (&Shared, 3, 100_000),
        ] {
            let w = Window::new(&settings(""), coordinator, scopes);
            let mut largest = 0;
            for _ in 0..HOUR_OF_STEPS {
                w.adapt(&starved(openable));
                largest = largest.max(w.size());
            }
            assert!(
                largest <= openable.max(FIRST_WINDOW),
                "{coordinator:?} {openable}: {largest}"
            );
            assert_eq!(
                w.size(),
                openable.max(FIRST_WINDOW),
                "it grows to the bound"
            );
        }
        // ScopesPerProcess bounds it too.
        #[derive(Debug)]
        struct PerProcess(usize);
        impl Coordinator for PerProcess {
            fn scopes_per_process(&self) -> Option<usize> {
                Some(self.0)
            }
        }
        let w = Window::new(&settings(""), &PerProcess(20), 9);
        for _ in 0..HOUR_OF_STEPS {
            w.adapt(&starved(10_000));
        }
        assert_eq!(w.size(), 20);
    }

    #[test]
    fn a_set_window_and_a_budgeted_crawl_do_not_grow() {
        let w = Window::new(&settings("ActiveScopes = 3\n"), &Solo, 1000);
        w.adapt(&starved(1000));
        assert_eq!(w.size(), 3);
        let b = Window::new(&settings("PageBudget = 50\n"), &Solo, 40);
        assert_eq!(b.size(), 40, "a budget rule needs every arm");
        b.adapt(&starved(1000));
        assert_eq!(b.size(), 40);
    }
}

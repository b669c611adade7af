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
//! again at the next slow moment.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::data::coord::Coordinator;
use crate::settings::Settings;

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
        let (size, grows) = if settings.bandit.budget > 0 {
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

    /// Over the last `period`, downloaders waited `starved` in all for a ready site (with the
    /// parsers idle), and the processors had time to `spare` or not: grows an automatic window
    /// by a quarter if that was a quarter of the period or more, there are scopes left to open
    /// (`more`) and no settled scope waits to be written (`writing_behind`: then writing the
    /// results is what the downloads wait for, and more open scopes would only wait too — 4,000
    /// one-page sites grew the window to 3,149 scopes and 230 MB).
    pub(super) fn adapt(
        &self,
        period: Duration,
        starved: Duration,
        more: bool,
        spare: bool,
        writing_behind: bool,
    ) {
        let size = self.size();
        if !self.grows || !spare || !more || writing_behind || starved < period / 4 {
            return;
        }
        let next = size.saturating_add((size / 4).max(1)).min(self.most);
        self.size.store(next, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::coord::Solo;

    fn settings(lines: &str) -> Settings {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("settings.ini");
        std::fs::write(&path, lines).expect("write settings");
        Settings::load(&path).expect("valid settings").0
    }

    #[test]
    fn an_automatic_window_grows_only_when_starved_with_processors_to_spare() {
        let w = Window::new(&settings(""), &Solo, 1000);
        let p = ADAPT_PERIOD;
        assert_eq!(w.size(), FIRST_WINDOW);
        w.adapt(p, p * 3, false, true, false);
        assert_eq!(w.size(), FIRST_WINDOW, "nothing more to open: no growth");
        w.adapt(p, p / 10, true, true, false);
        assert_eq!(w.size(), FIRST_WINDOW, "hardly waited: no growth");
        w.adapt(p, p * 3, true, false, false);
        assert_eq!(w.size(), FIRST_WINDOW, "processors saturated: no growth");
        // See: issue 18 — settled scopes waiting to be written grew the window without end.
        w.adapt(p, p * 3, true, true, true);
        assert_eq!(
            w.size(),
            FIRST_WINDOW,
            "results being written are the bound: no growth"
        );
        w.adapt(p, p * 3, true, true, false);
        assert_eq!(w.size(), FIRST_WINDOW + FIRST_WINDOW / 4);
    }

    #[test]
    fn a_set_window_and_a_budgeted_crawl_do_not_grow() {
        let p = ADAPT_PERIOD;
        let w = Window::new(&settings("ActiveScopes = 3\n"), &Solo, 1000);
        w.adapt(p, p * 3, true, true, false);
        assert_eq!(w.size(), 3);
        let b = Window::new(&settings("PageBudget = 50\n"), &Solo, 40);
        assert_eq!(b.size(), 40, "a budget rule needs every arm");
        b.adapt(p, p * 3, true, true, false);
        assert_eq!(b.size(), 40);
    }
}

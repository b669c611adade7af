//! The window of active scopes (SPEC §11): how many scopes are crawled at once. Scopes are
//! opened in hosts.txt order until the window is full; each one retired (finished, results
//! written, data released) makes room for the next. So memory follows the sites being crawled,
//! not the sites of the crawl.
//!
//! Automatic (`ActiveScopes = 0`), the window starts small and grows by a quarter whenever,
//! with the window full, a downloader had room to start a request and no site was ready (the
//! open sites wait for their crawl delay, or their downloads at a time are all taken): more
//! sites keep the downloads busy. It never shrinks — a window that was needed once is needed
//! again at the next slow moment — and it stops growing when the crawl is bound by the CPU or
//! the downloaders, since then a site is always ready.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::data::coord::Coordinator;
use crate::settings::Settings;

/// The automatic window's first size.
pub(super) const FIRST_WINDOW: usize = 16;

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

    /// Grows an automatic window by a quarter if downloads were `starved` (waited for a ready
    /// site) while `live` scopes filled it.
    pub(super) fn grow(&self, starved: u64, live: usize) {
        let size = self.size();
        if !self.grows || starved == 0 || live < size {
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
    fn an_automatic_window_grows_only_when_full_and_starved() {
        let w = Window::new(&settings(""), &Solo, 1000);
        assert_eq!(w.size(), FIRST_WINDOW);
        w.grow(5, FIRST_WINDOW - 1);
        assert_eq!(w.size(), FIRST_WINDOW, "not full: no growth");
        w.grow(0, FIRST_WINDOW);
        assert_eq!(w.size(), FIRST_WINDOW, "not starved: no growth");
        w.grow(1, FIRST_WINDOW);
        assert_eq!(w.size(), FIRST_WINDOW + FIRST_WINDOW / 4);
    }

    #[test]
    fn a_set_window_and_a_budgeted_crawl_do_not_grow() {
        let w = Window::new(&settings("ActiveScopes = 3\n"), &Solo, 1000);
        w.grow(10, 3);
        assert_eq!(w.size(), 3);
        let b = Window::new(&settings("PageBudget = 50\n"), &Solo, 40);
        assert_eq!(b.size(), 40, "a budget rule needs every arm");
        b.grow(10, 40);
        assert_eq!(b.size(), 40);
    }
}

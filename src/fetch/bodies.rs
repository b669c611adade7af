//! Page bodies held at once: from the moment a downloader starts reading one until the
//! parser that extracted its links lets it go (issue 19).
//!
//! Ordinary pages (tens of kilobytes) never come near [`BODY_BYTES`]. Pages of megabytes do:
//! the end of the Rust documentation's crawl fetched a level of source listings of 1 to 8.5
//! MB with 16 downloaders, and held 27 MB of bodies at once — a third of the crawl's peak
//! memory, for pages that two parsers take one at a time anyway. Past the budget a
//! downloader waits before it reads the next body; a body larger than the budget is read
//! when no other is held. Bodies of unknown length (chunked, compressed) are counted once
//! read, and never wait.

use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

/// Bytes of page bodies held at once before a downloader waits to read another.
pub const BODY_BYTES: u64 = 8 * 1024 * 1024;

/// How often a waiting downloader looks whether it should stop waiting.
const LOOK_AGAIN: Duration = Duration::from_millis(50);

/// The bytes of page bodies held, against their budget.
#[derive(Debug)]
pub struct BodyBudget {
    held: Mutex<u64>,
    freed: Condvar,
    limit: u64,
}

impl BodyBudget {
    /// A budget of `limit` bytes.
    pub fn new(limit: u64) -> Arc<Self> {
        Arc::new(BodyBudget {
            held: Mutex::new(0),
            freed: Condvar::new(),
            limit,
        })
    }

    /// Bytes held now.
    pub fn held(&self) -> u64 {
        *self.held.lock()
    }

    /// Waits until a body of `bytes` fits (or none is held), unless `give_up` says to stop
    /// waiting (a stop: the memory matters less than ending promptly); then holds it.
    pub fn acquire(self: &Arc<Self>, bytes: u64, give_up: impl Fn() -> bool) -> BodyPermit {
        let mut held = self.held.lock();
        while *held > 0 && held.saturating_add(bytes) > self.limit && !give_up() {
            self.freed.wait_for(&mut held, LOOK_AGAIN);
        }
        *held += bytes;
        BodyPermit {
            budget: Some(Arc::clone(self)),
            bytes,
        }
    }

    /// Holds a body of `bytes` if it fits now (or none is held); `None` otherwise. For a
    /// driver of many requests on one thread, which cannot wait in [`Self::acquire`].
    pub fn try_acquire(self: &Arc<Self>, bytes: u64) -> Option<BodyPermit> {
        let mut held = self.held.lock();
        if *held > 0 && held.saturating_add(bytes) > self.limit {
            return None;
        }
        *held += bytes;
        Some(BodyPermit {
            budget: Some(Arc::clone(self)),
            bytes,
        })
    }

    fn release(&self, bytes: u64) {
        if bytes == 0 {
            return;
        }
        let mut held = self.held.lock();
        *held = held.saturating_sub(bytes);
        drop(held);
        self.freed.notify_all();
    }
}

/// A body's bytes counted against the [`BodyBudget`] until it is dropped.
#[derive(Debug, Default)]
pub struct BodyPermit {
    budget: Option<Arc<BodyBudget>>,
    bytes: u64,
}

impl BodyPermit {
    /// Counts the body as `bytes` long from now on (its length once read: a body of unknown
    /// length, or shorter than declared). Never waits.
    pub fn resize(&mut self, bytes: u64) {
        let Some(budget) = &self.budget else {
            return;
        };
        if bytes > self.bytes {
            *budget.held.lock() += bytes - self.bytes;
        } else {
            budget.release(self.bytes - bytes);
        }
        self.bytes = bytes;
    }
}

impl Drop for BodyPermit {
    fn drop(&mut self) {
        if let Some(budget) = &self.budget {
            budget.release(self.bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    #[test]
    fn a_body_waits_until_it_fits_and_a_big_one_goes_alone() {
        let budget = BodyBudget::new(10);
        let a = budget.acquire(6, || false);
        let mut b = budget.acquire(4, || false);
        assert_eq!(budget.held(), 10);
        // A third body waits for room; it gets it when `a` goes.
        let waiter = {
            let budget = Arc::clone(&budget);
            std::thread::spawn(move || budget.acquire(5, || false))
        };
        std::thread::sleep(Duration::from_millis(100));
        assert!(!waiter.is_finished(), "no room for 5 more bytes");
        drop(a);
        let c = waiter.join().unwrap();
        assert_eq!(budget.held(), 9);
        // Read shorter than declared: the difference is freed.
        b.resize(1);
        assert_eq!(budget.held(), 6);
        drop((b, c));
        assert_eq!(budget.held(), 0);
        // Bigger than the budget: it goes when nothing else is held.
        let big = budget.acquire(25, || false);
        assert_eq!(budget.held(), 25);
        drop(big);
        // A stop ends the wait.
        let _small = budget.acquire(8, || false);
        let stop = AtomicBool::new(true);
        let forced = budget.acquire(8, || stop.load(Ordering::Relaxed));
        assert_eq!(budget.held(), 16);
        drop(forced);
        assert_eq!(budget.held(), 8);
        // Without waiting: a body that fits is held, one that does not is refused.
        let fits = budget.try_acquire(2).expect("10 bytes fit");
        assert!(budget.try_acquire(1).is_none());
        drop((fits, _small));
        assert!(budget.try_acquire(30).is_some(), "alone, any size");
    }
}

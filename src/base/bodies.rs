//! Page bodies held at once: from the moment a downloader starts reading one until the
//! parser that extracted its links lets it go (issue 19).
//!
//! Ordinary pages (tens of kilobytes) never come near [`BODY_BYTES`]. Pages of megabytes do:
//! the end of the Rust documentation's crawl fetched a level of source listings of 1 to 8.5
//! MB with 16 downloaders, and held 27 MB of bodies at once — a third of the crawl's peak
//! memory, for pages that two parsers take one at a time anyway. Past the budget a
//! downloader waits before it reads the next body; a body larger than the budget is read
//! when no other of its lane is held. Bodies of unknown length (chunked, compressed) are
//! counted once read, and never wait.
//!
//! Two lanes, each with the budget: bodies up to [`LARGE_BODY`] and larger ones. With one
//! budget for all, a large body stopped every other: the 8.5 MB page waited until nothing
//! else was held, then was read and parsed alone while the other parser and the downloads
//! idled — and a server sending such a page slowly stopped every site's page bodies for as
//! long as it took (a 9 MB page at 1 MB/s: 8 seconds without a page of any other site).
//! Large bodies now wait only for large ones. At most 2 × [`BODY_BYTES`] are held (or
//! [`BODY_BYTES`] and one body up to MaxPageBytes), of which ordinary pages rarely hold more
//! than a megabyte.
//!
//! The bound, stated: a lane admits a body only when the bytes it holds and the body's fit in
//! the budget, or when it holds nothing; so a lane holds at most its budget or one larger
//! body, plus what bodies admitted at an unknown length turned out to be once read (each
//! at most MaxPageBytes, one per request under way). The count is exact: once every permit
//! is dropped it is back at zero, however long the crawl.

use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

/// Bytes of page bodies held at once in each lane before a downloader waits to read another.
pub(crate) const BODY_BYTES: u64 = 8 * 1024 * 1024;

/// Bodies longer than this wait only for each other: a page of megabytes is rare, and it no
/// longer holds up the pages of tens of kilobytes.
pub(crate) const LARGE_BODY: u64 = 1024 * 1024;

/// How often a waiting downloader looks whether it should stop waiting.
const LOOK_AGAIN: Duration = Duration::from_millis(50);

/// Which lane a body of `bytes` waits in: 0 ordinary, 1 large.
pub(crate) fn lane(bytes: u64) -> usize {
    usize::from(bytes > LARGE_BODY)
}

/// The bytes of page bodies held, against their budget.
#[derive(Debug)]
pub struct BodyBudget {
    /// Bytes held in each lane.
    held: Mutex<[u64; 2]>,
    freed: Condvar,
    limit: u64,
}

impl BodyBudget {
    /// A budget of `limit` bytes in each lane.
    pub fn new(limit: u64) -> Arc<Self> {
        Arc::new(BodyBudget {
            held: Mutex::new([0; 2]),
            freed: Condvar::new(),
            limit,
        })
    }

    /// Bytes held now, both lanes.
    pub fn held(&self) -> u64 {
        self.held.lock().iter().sum()
    }

    fn fits(&self, held: &[u64; 2], lane: usize, bytes: u64) -> bool {
        held[lane] == 0 || held[lane].saturating_add(bytes) <= self.limit
    }

    /// Waits until a body of `bytes` fits in its lane (or none of the lane is held), unless
    /// `give_up` says to stop waiting (a stop: the memory matters less than ending promptly);
    /// then holds it.
    pub fn acquire(self: &Arc<Self>, bytes: u64, give_up: impl Fn() -> bool) -> BodyPermit {
        let lane = lane(bytes);
        let mut held = self.held.lock();
        while !self.fits(&held, lane, bytes) && !give_up() {
            self.freed.wait_for(&mut held, LOOK_AGAIN);
        }
        held[lane] = held[lane].saturating_add(bytes);
        BodyPermit {
            budget: Some(Arc::clone(self)),
            lane,
            bytes,
        }
    }

    /// Holds a body of `bytes` if it fits in its lane now (or none of the lane is held);
    /// `None` otherwise. For a driver of many requests on one thread, which cannot wait in
    /// [`Self::acquire`].
    pub fn try_acquire(self: &Arc<Self>, bytes: u64) -> Option<BodyPermit> {
        let lane = lane(bytes);
        let mut held = self.held.lock();
        if !self.fits(&held, lane, bytes) {
            return None;
        }
        held[lane] = held[lane].saturating_add(bytes);
        Some(BodyPermit {
            budget: Some(Arc::clone(self)),
            lane,
            bytes,
        })
    }

    fn release(&self, lane: usize, bytes: u64) {
        if bytes == 0 {
            return;
        }
        let mut held = self.held.lock();
        held[lane] = held[lane].saturating_sub(bytes);
        drop(held);
        self.freed.notify_all();
    }
}

/// A body's bytes counted against the [`BodyBudget`] until it is dropped.
#[derive(Debug, Default)]
pub struct BodyPermit {
    budget: Option<Arc<BodyBudget>>,
    /// The lane it was counted in when acquired (a resize keeps it there).
    lane: usize,
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
            let mut held = budget.held.lock();
            held[self.lane] = held[self.lane].saturating_add(bytes - self.bytes);
        } else {
            budget.release(self.lane, self.bytes - bytes);
        }
        self.bytes = bytes;
    }
}

impl Drop for BodyPermit {
    fn drop(&mut self) {
        if let Some(budget) = &self.budget {
            budget.release(self.lane, self.bytes);
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

    /// An hour of a busy crawl's bodies (sixteen requests under way, a body every few
    /// milliseconds: a million admissions), some of unknown length, some read shorter or longer
    /// than declared: no lane ever holds more than the stated bound, and the count returns
    /// to zero.
    #[test]
    fn an_hour_of_bodies_keeps_the_stated_bound_and_returns_to_zero() {
        const MIB: u64 = 1024 * 1024;
        const CAP: u64 = 10 * MIB; // MaxPageBytes
        let budget = BodyBudget::new(BODY_BYTES);
        let mut rng = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |below: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % below
        };
        // Permits under way, and whether each was admitted at an unknown length.
        let mut live: Vec<(BodyPermit, bool)> = Vec::new();
        for step in 0..1_000_000u32 {
            if live.len() == 16 || (next(3) == 0 && !live.is_empty()) {
                let at = usize::try_from(next(live.len() as u64)).unwrap();
                live.swap_remove(at);
            }
            let declared = match next(10) {
                0 => None,
                1 => Some(next(CAP)),
                _ => Some(next(200 * 1024)),
            };
            let permit = budget.try_acquire(declared.unwrap_or(0));
            if let Some(mut p) = permit {
                // Read: an unknown length once known, or shorter or longer than declared.
                let read = match declared {
                    None => next(CAP),
                    Some(d) if next(4) == 0 => d / 2,
                    Some(d) => d,
                };
                p.resize(read);
                live.push((p, declared.is_none()));
            }
            let held = *budget.held.lock();
            for lane_now in 0..2 {
                let in_lane = |unknown: bool| {
                    live.iter()
                        .filter(move |(p, u)| p.lane == lane_now && *u == unknown)
                        .map(|(p, _)| p.bytes)
                };
                let largest_known = in_lane(false).max().unwrap_or(0);
                let unknown: u64 = in_lane(true).sum();
                let exact: u64 = in_lane(false).sum::<u64>() + unknown;
                assert_eq!(held[lane_now], exact, "step {step}: the count drifted");
                assert!(
                    held[lane_now] <= BODY_BYTES.max(largest_known) + unknown,
                    "step {step}, lane {lane_now}: {held:?}"
                );
            }
        }
        live.clear();
        assert_eq!(budget.held(), 0);
    }

    #[test]
    fn a_large_body_waits_only_for_large_ones() {
        const MIB: u64 = 1024 * 1024;
        let budget = BodyBudget::new(BODY_BYTES);
        // Larger than the budget: held alone in its lane...
        let large = budget
            .try_acquire(BODY_BYTES + MIB)
            .expect("nothing large is held");
        // ...while ordinary bodies go on, up to their own budget.
        let ordinary: Vec<BodyPermit> = (0..8)
            .map(|_| {
                budget
                    .try_acquire(MIB)
                    .expect("ordinary bodies have their lane")
            })
            .collect();
        assert!(
            budget.try_acquire(MIB).is_none(),
            "the ordinary lane is full"
        );
        // Another large body waits for the first.
        assert!(budget.try_acquire(2 * MIB).is_none());
        assert_eq!(budget.held(), 2 * BODY_BYTES + MIB);
        drop(large);
        let second = budget.try_acquire(2 * MIB).expect("the large lane is free");
        // A resized body stays counted in the lane it was taken in.
        let mut grown = budget.try_acquire(0).expect("unknown length: never waits");
        grown.resize(3 * MIB);
        assert!(
            budget.try_acquire(MIB).is_none(),
            "the ordinary lane holds 11 MiB"
        );
        drop(ordinary);
        assert_eq!(budget.held(), 5 * MIB);
        drop((second, grown));
        assert_eq!(budget.held(), 0);
        assert_eq!((lane(LARGE_BODY), lane(LARGE_BODY + 1)), (0, 1));
    }
}

//! One site's frontier: URLs waiting to be fetched, served lowest level first (a bucket queue
//! by level), first-in first-out within a level. Entries may go stale (the URL was fetched
//! through a redirect, or re-queued at a lower level); the data manager skips those on claim.

use std::collections::VecDeque;

/// Bucket queue of `(url id)` by level.
#[derive(Debug, Default)]
pub struct Frontier {
    buckets: Vec<VecDeque<u32>>,
    /// No bucket below this one holds anything.
    low: usize,
    entries: usize,
}

impl Frontier {
    /// Adds `url` at `level`.
    pub fn push(&mut self, level: u32, url: u32) {
        let level = level as usize;
        if self.buckets.len() <= level {
            self.buckets.resize_with(level + 1, VecDeque::new);
        }
        self.buckets[level].push_back(url);
        self.low = self.low.min(level);
        self.entries += 1;
    }

    /// Removes the first entry of the lowest level.
    pub fn pop(&mut self) -> Option<(u32, u32)> {
        while self.low < self.buckets.len() {
            if let Some(url) = self.buckets[self.low].pop_front() {
                self.entries -= 1;
                return Some((self.low as u32, url));
            }
            self.low += 1;
        }
        self.buckets.clear();
        self.low = 0;
        None
    }

    /// The first entry of the lowest level, left in place.
    pub fn peek(&mut self) -> Option<(u32, u32)> {
        while self.low < self.buckets.len() {
            if let Some(&url) = self.buckets[self.low].front() {
                return Some((self.low as u32, url));
            }
            self.low += 1;
        }
        None
    }

    /// Entries held, stale ones included.
    pub fn entries(&self) -> usize {
        self.entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowest_level_first_fifo_within() {
        let mut f = Frontier::default();
        f.push(2, 20);
        f.push(1, 10);
        f.push(2, 21);
        f.push(1, 11);
        assert_eq!(f.peek(), Some((1, 10)));
        assert_eq!(f.pop(), Some((1, 10)));
        f.push(0, 1);
        assert_eq!(f.pop(), Some((0, 1)));
        assert_eq!(f.pop(), Some((1, 11)));
        assert_eq!(f.pop(), Some((2, 20)));
        assert_eq!(f.pop(), Some((2, 21)));
        assert_eq!(f.pop(), None);
        assert_eq!(f.entries(), 0);
    }
}

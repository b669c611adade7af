//! One site's frontier: URLs waiting to be fetched, served lowest level first (a bucket queue
//! by level), first-in first-out within a level. Entries may go stale (the URL was fetched
//! through a redirect, or re-queued at a lower level); the data manager skips those on claim.

use std::collections::VecDeque;

use crate::base::storage::codec::{Corrupt, Put, Reader};

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

    /// The entries in the order [`Self::pop`] gives them, left in place.
    pub fn in_order(&self) -> impl Iterator<Item = u32> + '_ {
        self.buckets
            .iter()
            .skip(self.low)
            .flat_map(|b| b.iter().copied())
    }

    /// Entries held, stale ones included.
    pub fn entries(&self) -> usize {
        self.entries
    }

    /// Encodes every entry in its place (stale ones included): a scope parked and thawed
    /// serves its URLs in the order it would have.
    pub(crate) fn put(&self, out: &mut impl Put) {
        out.put_var(self.low as u64);
        out.put_var(self.buckets.len() as u64);
        for b in &self.buckets {
            out.put_var(b.len() as u64);
            for &url in b {
                out.put_var(u64::from(url));
            }
        }
    }

    /// Decodes what [`Self::put`] wrote.
    pub(crate) fn read(r: &mut Reader<'_>) -> Result<Self, Corrupt> {
        let low = r.var()? as usize;
        let n = r.var()? as usize;
        let mut buckets = Vec::with_capacity(n.min(1 << 16));
        let mut entries = 0;
        for _ in 0..n {
            let len = r.var()? as usize;
            let mut b = VecDeque::with_capacity(len.min(1 << 20));
            for _ in 0..len {
                b.push_back(r.var32()?);
            }
            entries += len;
            buckets.push(b);
        }
        Ok(Frontier {
            buckets,
            low,
            entries,
        })
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

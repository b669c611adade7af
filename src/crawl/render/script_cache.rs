//! The scripts the browser was given, kept for the next pages (SPEC §18): a visitor's browser
//! fetches a site's scripts once, not once a page — the Rust documentation's books load ten
//! scripts a page, which without a cache cost the site ten requests in its delay for every
//! page rendered. Only whole `200` answers to scripts are kept (data a script asks for may
//! change from page to page), at most [`MAX_BYTES`] in all, the oldest going first.

use std::collections::VecDeque;
use std::sync::Arc;

use hashbrown::HashMap;
use parking_lot::Mutex;

/// The most a cache holds.
pub const MAX_BYTES: usize = 32 << 20;

/// A script as the browser was given it.
#[derive(Debug)]
pub struct Cached {
    /// The headers the browser needs of it.
    pub headers: Vec<(String, String)>,
    /// Its body.
    pub body: Vec<u8>,
}

/// Scripts by URL.
#[derive(Debug, Default)]
pub struct ScriptCache {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    by_url: HashMap<String, Arc<Cached>>,
    /// URLs in the order they came: the first goes first.
    order: VecDeque<String>,
    bytes: usize,
}

impl ScriptCache {
    /// The script at `url`, if kept.
    pub fn get(&self, url: &str) -> Option<Arc<Cached>> {
        self.inner.lock().by_url.get(url).cloned()
    }

    /// Keeps the script at `url` (one over a quarter of the cache is not kept).
    pub fn put(&self, url: &str, script: Cached) {
        let size = script.body.len() + url.len();
        if size > MAX_BYTES / 4 {
            return;
        }
        let mut inner = self.inner.lock();
        if inner.by_url.contains_key(url) {
            return;
        }
        while inner.bytes + size > MAX_BYTES {
            let Some(old) = inner.order.pop_front() else {
                break;
            };
            if let Some(gone) = inner.by_url.remove(&old) {
                inner.bytes -= gone.body.len() + old.len();
            }
        }
        inner.bytes += size;
        inner.order.push_back(url.to_owned());
        inner.by_url.insert(url.to_owned(), Arc::new(script));
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.inner.lock().bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_are_kept_within_the_bound_oldest_first_out() {
        let cache = ScriptCache::default();
        let script = |n: usize| Cached {
            headers: Vec::new(),
            body: vec![b'x'; n],
        };
        cache.put("http://a.test/a.js", script(10));
        assert_eq!(cache.get("http://a.test/a.js").unwrap().body.len(), 10);
        assert!(cache.get("http://a.test/b.js").is_none());
        // Too big for the cache: not kept.
        cache.put("http://a.test/huge.js", script(MAX_BYTES));
        assert!(cache.get("http://a.test/huge.js").is_none());
        // Filling it pushes the oldest out; the bound holds.
        for i in 0..5 {
            cache.put(
                &format!("http://a.test/{i}.js"),
                script(MAX_BYTES / 4 - 100),
            );
        }
        assert!(cache.get("http://a.test/a.js").is_none());
        assert!(cache.get("http://a.test/4.js").is_some());
        assert!(cache.bytes() <= MAX_BYTES);
    }
}

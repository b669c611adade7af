//! Work spread over a few threads: every index of a list, each thread taking the next one.
//! Writing results (scopes, then the files of one scope) and reading them back for the
//! report do this.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Calls `work(i)` for every `i` in `0..count`, on up to `threads` threads, this one
/// included; returns when all are done. A thread that cannot be started leaves its share to
/// the others.
pub fn for_each_index(count: usize, threads: usize, name: &str, work: impl Fn(usize) + Sync) {
    let next = AtomicUsize::new(0);
    let run = || {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= count {
                break;
            }
            work(i);
        }
    };
    std::thread::scope(|s| {
        for _ in 1..threads.min(count) {
            let _ = std::thread::Builder::new()
                .name(name.to_owned())
                .spawn_scoped(s, run);
        }
        run();
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    #[test]
    fn every_index_once_whatever_the_threads() {
        for threads in [0, 1, 3, 50] {
            let seen: Vec<AtomicU64> = (0..20).map(|_| AtomicU64::new(0)).collect();
            for_each_index(20, threads, "t", |i| {
                seen[i].fetch_add(1, Ordering::Relaxed);
            });
            assert!(
                seen.iter().all(|s| s.load(Ordering::Relaxed) == 1),
                "{threads}"
            );
        }
        for_each_index(0, 4, "t", |_| panic!("no index"));
    }
}

//! Work spread over a few threads: every index of a list, each thread taking the next one, or
//! two pieces of work side by side. Writing results (scopes, then the files of one scope, and
//! the per-node counts they wait for) and reading them back for the report do this.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Calls `work(i)` for every `i` in `0..count`, on up to `threads` threads, this one
/// included; returns when all are done. A thread that cannot be started leaves its share to
/// the others.
pub(crate) fn for_each_index(
    count: usize,
    threads: usize,
    name: &str,
    work: impl Fn(usize) + Sync,
) {
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

/// Runs `a` here and `b` on a thread named `name` side by side, and returns both results;
/// if the thread cannot be started, `b` runs here after `a`. A panic in `b` goes on here.
pub(crate) fn join<A, B>(name: &str, a: impl FnOnce() -> A, b: impl FnOnce() -> B + Send) -> (A, B)
where
    B: Send,
{
    // `b` waits here until the thread takes it: started, the thread runs it; not, it runs here.
    let slot = std::sync::Mutex::new(Some(b));
    let take = || slot.lock().ok().and_then(|mut b| b.take());
    std::thread::scope(|s| {
        let helper = std::thread::Builder::new()
            .name(name.to_owned())
            .spawn_scoped(s, || take().map(|b| b()));
        let from_a = a();
        let from_b = match helper.map(|h| h.join()) {
            Ok(Ok(Some(r))) => r,
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            // Not started (or, impossibly, started without `b`): run here.
            Ok(Ok(None)) | Err(_) => match take() {
                Some(b) => b(),
                None => unreachable!("`b` ran on the helper or is still in its slot"),
            },
        };
        (from_a, from_b)
    })
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

    #[test]
    fn join_returns_both_and_runs_them_side_by_side() {
        let here = std::thread::current().id();
        let (a, (b, on)) = join("t", || 1, || (2, std::thread::current().id()));
        assert_eq!((a, b), (1, 2));
        assert_ne!(on, here, "b on the helper thread");
        // Each waits for the other: only side by side do both finish.
        let gate = std::sync::Barrier::new(2);
        let ((), ()) = join(
            "t",
            || {
                gate.wait();
            },
            || {
                gate.wait();
            },
        );
    }

    #[test]
    fn a_panic_in_the_second_goes_on_in_the_caller() {
        let caught = std::panic::catch_unwind(|| join("t", || 1, || -> u8 { panic!("b failed") }));
        assert!(caught.is_err());
    }
}

//! The dispatcher's wake-ups: its condition variable for the downloaders waiting in
//! `acquire`, and a driver of many requests (`DT1`) that polls its sockets and is woken by a
//! callback — only when it asked in vain since its last wake-up, so a busy loop is not
//! interrupted once per page.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use parking_lot::{Condvar, MutexGuard};

/// See the module docs.
#[derive(Default)]
pub(super) struct Wakeups {
    cv: Condvar,
    waker: std::sync::OnceLock<Box<dyn Fn() + Send + Sync>>,
    loop_waits: AtomicBool,
}

impl fmt::Debug for Wakeups {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Wakeups")
            .field("waker", &self.waker.get().is_some())
            .finish_non_exhaustive()
    }
}

impl Wakeups {
    pub(super) fn set_waker(&self, wake: Box<dyn Fn() + Send + Sync>) {
        let _ = self.waker.set(wake);
    }

    /// The driver asked in vain: the next notification wakes it.
    pub(super) fn loop_waits(&self) {
        self.loop_waits.store(true, Ordering::Release);
    }

    fn wake_loop(&self) {
        if self.loop_waits.swap(false, Ordering::AcqRel)
            && let Some(wake) = self.waker.get()
        {
            wake();
        }
    }

    pub(super) fn notify_one(&self) {
        self.cv.notify_one();
        self.wake_loop();
    }

    pub(super) fn notify_all(&self) {
        self.cv.notify_all();
        self.wake_loop();
    }

    pub(super) fn wait<T>(&self, guard: &mut MutexGuard<'_, T>) {
        self.cv.wait(guard);
    }

    pub(super) fn wait_until<T>(&self, guard: &mut MutexGuard<'_, T>, until: Instant) {
        self.cv.wait_until(guard, until);
    }
}

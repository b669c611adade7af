//! A claimed task as one value. When the dispatcher hands out a task it takes three things for
//! it: a request slot of its site (`maxDownloadsAtTime`), a place in the page buffer, and a
//! mark on its site ("unsettled": the site is not finished while it has one). The URL itself
//! is in flight in the data manager. A [`TaskLease`] owns all four and gives each back exactly
//! once: the slot when its requests are done, the buffer place when no page waits for a
//! parser, and — when it is dropped, on whatever path — the mark, plus the URL back to its
//! frontier if no outcome was recorded for it. Before, each path of the downloader called
//! these four pieces of bookkeeping by hand, seven times over.

use std::sync::Arc;

use super::Dispatcher;
use super::dispatcher::LeaseHolds;
use crate::crawl::data::{DataError, Effects};
use crate::crawl::message::{FetchTask, Outcome, TaskKind};

/// A task handed out by [`Dispatcher::acquire`].
#[derive(Debug)]
pub struct TaskLease {
    dispatcher: Arc<Dispatcher>,
    task: FetchTask,
    /// What it still holds.
    held: LeaseHolds,
    /// The URL's fate is recorded (an outcome, or back in the frontier to be retried).
    recorded: bool,
}

// A page task is also one fetch of the page budget, chosen by the scheduler: recording its
// outcome spends the budget and tells the scheduler what it yielded; any other end (a retry,
// a stop, a lost thread) gives the reservation back.

impl TaskLease {
    pub(super) fn new(dispatcher: Arc<Dispatcher>, task: FetchTask) -> Self {
        TaskLease {
            dispatcher,
            task,
            held: LeaseHolds {
                slot: true,
                buffer: true,
            },
            recorded: false,
        }
    }

    /// The task.
    pub fn task(&self) -> &FetchTask {
        &self.task
    }

    /// The task's requests are done: its site may start another one.
    pub fn requests_done(&mut self) {
        if std::mem::take(&mut self.held.slot) {
            self.dispatcher.free_slot(self.task.site);
        }
    }

    /// No page of this task waits for a parser any more (a parser took it, or there was none).
    pub fn free_buffer(&mut self) {
        if std::mem::take(&mut self.held.buffer) {
            self.dispatcher.free_buffer();
        }
    }

    /// A robots.txt task goes on to read the site's sitemaps (SPEC §17): it keeps its site
    /// unsettled meanwhile.
    pub fn continue_with_sitemaps(&mut self) {
        debug_assert_eq!(self.task.kind, TaskKind::Robots);
        self.task.kind = TaskKind::Sitemaps;
    }

    /// Records what became of the task's URL.
    pub fn commit(&mut self, outcome: &Outcome) -> Result<Effects, DataError> {
        let effects = self.dispatcher.data().commit(outcome)?;
        self.recorded = true;
        self.dispatcher.observed(self.task.site, effects.yielded);
        Ok(effects)
    }

    /// Has the task fetched again once the wait `wait(n)` of its n-th retry is over (its
    /// site goes on meanwhile), unless it was retried `max` times: `Some((n, wait))`, or
    /// `None` when the caller must commit its failure.
    pub fn retry(
        &mut self,
        max: u32,
        wait: impl FnOnce(u32) -> std::time::Duration,
    ) -> Option<(u32, std::time::Duration)> {
        let n = self.dispatcher.data().retry(&self.task, max)?;
        self.recorded = true;
        if self.task.kind == TaskKind::Page {
            self.dispatcher.cancelled(self.task.site);
        }
        let wait = wait(n);
        self.dispatcher
            .park(self.task.clone(), std::time::Instant::now() + wait);
        Some((n, wait))
    }
}

impl Drop for TaskLease {
    fn drop(&mut self) {
        if !self.recorded && self.task.kind == TaskKind::Page {
            // Abandoned (the crawl is stopping, the site went down, a thread failed): the URL
            // is fetched again later, by this run or the next.
            self.dispatcher.data().release(&self.task);
            self.dispatcher.cancelled(self.task.site);
        }
        self.dispatcher.end_lease(self.task.site, self.held);
    }
}

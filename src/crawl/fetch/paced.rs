//! The hooks inside every connection of a site's agent (TCP or TLS, fresh or pooled): a ureq
//! connector that wraps each in a transport that
//!
//! - reports each write of a request to the site's [`Pacer`], so the delay between a site's
//!   requests is counted from the moment the bytes reached the kernel, not from when a thread
//!   decided to send them;
//! - waits for input in slices of [`ABORT_CHECK`], so that once the crawl stops, a request
//!   still waiting for its answer a second later is abandoned (its URL goes back to its
//!   frontier) instead of holding the stop for up to `RequestTimeoutSeconds`;
//! - rewrites an answer's head of more header lines than ureq-proto parses (a thousand
//!   cookies) before ureq reads it, as the event-driven downloader does (`head_fit`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use ureq::unversioned::transport::time::Duration as UreqDuration;
use ureq::unversioned::transport::{Buffers, ConnectionDetails, Connector, NextTimeout, Transport};

use super::head_fit::Fit;
use super::pacer::Pacer;

/// How long one wait for input lasts before the abort flag is looked at again.
pub(super) const ABORT_CHECK: std::time::Duration = std::time::Duration::from_millis(100);

/// The error a transport gives when its request is abandoned (the crawl is stopping).
#[derive(Debug, thiserror::Error)]
#[error("abandoned: the crawl is stopping")]
pub(super) struct Abandoned;

/// Wraps the connections of one site's agent.
#[derive(Debug)]
pub(super) struct PacedConnector {
    pub(super) pacer: Arc<Pacer>,
    /// Set when requests still under way must be abandoned.
    pub(super) abort: Arc<AtomicBool>,
}

impl Connector<Box<dyn Transport>> for PacedConnector {
    type Out = PacedTransport;

    fn connect(
        &self,
        _details: &ConnectionDetails<'_>,
        chained: Option<Box<dyn Transport>>,
    ) -> Result<Option<Self::Out>, ureq::Error> {
        Ok(chained.map(|inner| PacedTransport {
            inner,
            pacer: Arc::clone(&self.pacer),
            abort: Arc::clone(&self.abort),
            head_due: false,
            answered: false,
        }))
    }
}

/// A connection that reports its writes to its site's pacer and can be abandoned.
#[derive(Debug)]
pub(super) struct PacedTransport {
    inner: Box<dyn Transport>,
    pacer: Arc<Pacer>,
    abort: Arc<AtomicBool>,
    /// A request was written and its answer's head has not been seen whole yet.
    head_due: bool,
    /// An answer arrived on this connection: a request written now goes out on a kept one.
    answered: bool,
}

thread_local! {
    /// Whether this thread's last request went out on a kept connection (DT0 sends one
    /// request per thread at a time): only such a request that breaks is sent again at once
    /// on a fresh connection — a server that breaks every connection gets one request a try.
    static SENT_ON_KEPT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the last request this thread wrote went out on a kept connection; forgets it.
pub(super) fn take_sent_on_kept() -> bool {
    SENT_ON_KEPT.replace(false)
}

impl PacedTransport {
    /// Looks at the awaited head in the input buffer: once it is whole, rewritten there if
    /// it has more header lines than the parser takes (only into a head no longer than what
    /// arrived: the buffer holds that much). `true`: part of a head already over the count,
    /// which the parser would fail on: read on before it sees it.
    fn fit_head(&mut self) -> bool {
        let buffers = self.inner.buffers();
        let input = buffers.input();
        let (used, head) = match super::head_fit::fit(input) {
            Fit::Partial => return false,
            Fit::NeedMore => return true,
            Fit::Unchanged => {
                self.head_due = false;
                return false;
            }
            Fit::Rewritten { used, head } => (used, head),
        };
        self.head_due = false;
        let mut rewritten = head;
        rewritten.extend_from_slice(&input[used..]);
        let len = input.len();
        if rewritten.len() > len {
            return false;
        }
        // All of the input consumed, the buffer starts over empty: room for what it held.
        buffers.input_consume(len);
        let free = buffers.input_append_buf();
        let n = rewritten.len().min(free.len());
        free[..n].copy_from_slice(&rewritten[..n]);
        buffers.input_appended(n);
        false
    }
}

impl Transport for PacedTransport {
    fn buffers(&mut self) -> &mut dyn Buffers {
        self.inner.buffers()
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), ureq::Error> {
        SENT_ON_KEPT.set(self.answered);
        let written = self.inner.transmit_output(amount, timeout);
        self.pacer.sent();
        self.head_due = true;
        written
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
        let timeout = timeout.for_read();
        let deadline = match timeout.after {
            UreqDuration::Exact(d) => Some(std::time::Instant::now() + d),
            UreqDuration::NotHappening => None,
        };
        loop {
            if self.abort.load(Ordering::Relaxed) {
                // Not `Interrupted`: `read_to_end` retries that kind, so a body still arriving
                // was read on until `RequestTimeoutSeconds`, holding the stop (issue 49).
                return Err(ureq::Error::Io(std::io::Error::new(
                    std::io::ErrorKind::ConnectionAborted,
                    Abandoned,
                )));
            }
            let left = deadline.map(|d| d.saturating_duration_since(std::time::Instant::now()));
            let slice = left.map_or(ABORT_CHECK, |l| l.min(ABORT_CHECK));
            let last = left.is_some_and(|l| l <= ABORT_CHECK);
            let wait = NextTimeout {
                after: UreqDuration::Exact(slice),
                reason: timeout.reason,
                per_read: None,
                per_write: timeout.per_write,
            };
            match self.inner.await_input(wait) {
                // Only a slice ran out: wait on, unless the request's own time is up.
                Err(ureq::Error::Timeout(_)) if !last => continue,
                Ok(true) if self.head_due && self.fit_head() => continue,
                Ok(progress) => {
                    self.answered |= progress;
                    return Ok(progress);
                }
                other => return other,
            }
        }
    }

    fn is_open(&mut self) -> bool {
        self.inner.is_open()
    }

    fn is_tls(&self) -> bool {
        self.inner.is_tls()
    }
}

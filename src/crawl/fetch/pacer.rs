//! Per-site pacing at the moment requests leave (SPEC §1: at least `crawlDelay` between the
//! starts of two requests to a site). The dispatcher hands tasks out no faster than the delay,
//! but a downloader can be descheduled between taking a task and sending its request — on a
//! busy machine for several milliseconds — so the delay must also hold where it is measured:
//! between the moments requests are written. A request takes its site's [`SendTurn`] right
//! before it is sent; the turn ends when the HTTP transport reports that the request's bytes
//! were handed to the kernel ([`Pacer::sent`]), and the next turn starts no sooner than the
//! delay after that. For a site without a delay turns are free (no waiting, no ordering), so
//! concurrent requests to it are not serialized.

use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::base::stop::Stop;

/// The gap kept between two request starts of a site whose delay is `delay`: a little more
/// than asked, because a request reaches the server a moment after its slot is taken (thread
/// scheduling on both sides, connection set-up), and that moment varies from one request to
/// the next by up to a few milliseconds on a busy machine (measured: 3.5 ms on 2 loaded
/// cores). 5 ms plus 1% of the delay, but at most a quarter of the delay and at most 15 ms;
/// nothing for a zero delay.
pub fn with_margin(delay: Duration) -> Duration {
    let margin = (Duration::from_millis(5) + delay / 100)
        .min(delay / 4)
        .min(Duration::from_millis(15));
    delay + margin
}

/// Longest single wait, so a stop is noticed while a long delay or back-off runs.
const WAIT_SLICE: Duration = Duration::from_millis(50);

/// One site's pacing.
#[derive(Debug, Default)]
pub struct Pacer {
    state: Mutex<PaceState>,
    cv: Condvar,
}

#[derive(Debug, Default)]
struct PaceState {
    /// The delay kept between two requests (with its margin).
    gap: Duration,
    /// No request is sent before this (a back-off after 429/503 or a failure).
    held_until: Option<Instant>,
    /// When the latest request's bytes were handed to the kernel.
    last_sent: Option<Instant>,
    /// The turn held by a request not written yet.
    sending: Option<u64>,
    /// Turns handed out so far (each turn's number).
    turns: u64,
}

impl Pacer {
    /// Keeps `delay` between requests from now on (a small margin is added, see
    /// [`with_margin`]).
    pub fn set_delay(&self, delay: Duration) {
        self.state.lock().gap = with_margin(delay);
    }

    /// No request is sent before `until`.
    pub fn hold_until(&self, until: Instant) {
        let mut st = self.state.lock();
        st.held_until = Some(st.held_until.map_or(until, |h| h.max(until)));
    }

    /// When the latest request was written, if any was.
    pub fn last_sent(&self) -> Option<Instant> {
        self.state.lock().last_sent
    }

    /// Waits until a request may be sent, and takes the turn; `None` once `stop` is
    /// requested.
    pub fn turn(self: &Arc<Self>, stop: &Stop) -> Option<SendTurn> {
        let mut st = self.state.lock();
        loop {
            if stop.is_requested() {
                return None;
            }
            let now = Instant::now();
            match self.take_turn(&mut st, now) {
                Ok(turn) => return Some(turn),
                Err(wake) => {
                    self.cv.wait_until(&mut st, wake.min(now + WAIT_SLICE));
                }
            }
        }
    }

    /// Takes the turn if a request may be sent now, without waiting; otherwise says when to
    /// ask again (a moment in the past never: a request of this site not written yet is
    /// asked about again after a short slice, 50 ms). For a driver of many requests on one thread,
    /// which cannot wait here.
    pub fn try_turn(self: &Arc<Self>) -> Result<SendTurn, Instant> {
        let mut st = self.state.lock();
        self.take_turn(&mut st, Instant::now())
    }

    fn take_turn(self: &Arc<Self>, st: &mut PaceState, now: Instant) -> Result<SendTurn, Instant> {
        let after_last = st.last_sent.map(|t| t + st.gap);
        let ready_at = match (after_last, st.held_until) {
            (Some(a), Some(h)) => Some(a.max(h)),
            (a, h) => a.or(h),
        };
        let free = st.gap.is_zero() || st.sending.is_none();
        if free && ready_at.is_none_or(|t| t <= now) {
            st.turns += 1;
            let number = st.turns;
            if !st.gap.is_zero() {
                st.sending = Some(number);
            }
            return Ok(SendTurn {
                pacer: Arc::clone(self),
                number,
            });
        }
        Err(ready_at.filter(|_| free).unwrap_or(now + WAIT_SLICE))
    }

    /// A request's bytes were handed to the kernel: the next turn counts the delay from now.
    /// Called by the HTTP transport after each write (and when a turn ends without one).
    pub fn sent(&self) {
        let mut st = self.state.lock();
        st.last_sent = Some(Instant::now());
        if st.sending.take().is_some() {
            self.cv.notify_all();
        }
    }

    /// Turn `number` ended. If its request was never written (the connection failed first),
    /// the turn is freed and the attempt counts as a request.
    fn end_turn(&self, number: u64) {
        let mut st = self.state.lock();
        if st.sending == Some(number) {
            st.sending = None;
            st.last_sent = Some(Instant::now());
            self.cv.notify_all();
        }
    }
}

/// A site's turn to send one request. It ends when the request is written; dropping it ends
/// it in any case.
#[derive(Debug)]
pub struct SendTurn {
    pacer: Arc<Pacer>,
    number: u64,
}

impl SendTurn {
    /// The pacer the request's transport reports its writes to.
    pub fn pacer(&self) -> &Arc<Pacer> {
        &self.pacer
    }
}

impl Drop for SendTurn {
    fn drop(&mut self) {
        self.pacer.end_turn(self.number);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_are_a_delay_apart_counted_from_the_write() {
        let stop = Stop::new();
        let p = Arc::new(Pacer::default());
        p.set_delay(Duration::from_millis(30));
        let t0 = Instant::now();
        let first = p.turn(&stop).unwrap();
        // A second request waits while the first is not written yet, however long.
        let p2 = Arc::clone(&p);
        let waiter = std::thread::spawn(move || {
            let s = Stop::new();
            let _t = p2.turn(&s).unwrap();
            Instant::now()
        });
        std::thread::sleep(Duration::from_millis(60));
        p.sent();
        let written = Instant::now();
        drop(first);
        let second = waiter.join().unwrap();
        assert!(
            second >= written + Duration::from_millis(30),
            "counted from the write"
        );
        assert!(second - t0 >= Duration::from_millis(90));
    }

    #[test]
    fn a_turn_not_given_now_says_when_to_ask_again() {
        let p = Arc::new(Pacer::default());
        p.set_delay(Duration::from_millis(200));
        let first = p.try_turn().expect("the first turn is free");
        // Not written yet: the site's next request waits for it, asked about again soon.
        let t = Instant::now();
        let again = p.try_turn().expect_err("one request at a time");
        assert!(again > t && again <= Instant::now() + WAIT_SLICE);
        p.sent();
        let written = Instant::now();
        drop(first);
        // Written: the next turn comes the delay (and its margin) after the write.
        let at = p.try_turn().expect_err("the delay runs");
        assert!(
            at >= written + Duration::from_millis(200),
            "{:?}",
            at - written
        );
        assert!(at <= Instant::now() + with_margin(Duration::from_millis(200)));
        // A back-off past the delay moves it.
        let until = Instant::now() + Duration::from_secs(5);
        p.hold_until(until);
        assert_eq!(p.try_turn().expect_err("held"), until);
        // Without a delay or a hold, turns are free and many at once.
        let q = Arc::new(Pacer::default());
        let (a, b) = (q.try_turn(), q.try_turn());
        assert!(a.is_ok() && b.is_ok());
    }

    #[test]
    fn no_delay_means_no_waiting_and_back_off_holds() {
        let stop = Stop::new();
        let p = Arc::new(Pacer::default());
        let a = p.turn(&stop).unwrap();
        let b = p.turn(&stop).unwrap();
        drop((a, b));
        let until = Instant::now() + Duration::from_millis(40);
        p.hold_until(until);
        let _c = p.turn(&stop).unwrap();
        assert!(Instant::now() >= until);
        stop.request(crate::base::stop::StopReason::StopFile);
        p.set_delay(Duration::from_secs(100));
        p.sent();
        assert!(p.turn(&stop).is_none(), "a stop ends the wait");
    }
}

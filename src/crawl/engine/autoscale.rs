//! How many downloaders (or, with `DT1`, requests at once in the event loop) an automatic
//! crawl runs: a quarter more whenever, over the last period, tasks found every downloader
//! busy with another site ready while the processors had time to spare — and never past
//! `most` (`DownloadingThreadsCount`, or what the machine's file descriptors allow) nor far
//! past the requests the sites being crawled allow at once (a slow crawl grew to 1,738
//! downloaders for the 1,326 its window of sites allowed). A quarter more than those may
//! run (at least 8): downloaders that find no site ready are what grows the window of sites,
//! and with it the room.
//!
//! The bound, stated: after any number of steps the count is at most
//! `max(first, min(most, headroom(room)))` for the largest `room` seen.

use std::time::Duration;

use crossbeam_channel::{Receiver, select};

use super::cpu::CpuIdle;
use super::evented::Slots;
use crate::crawl::engine::Context;
use crate::crawl::schedule::TaskLease;

/// How often the engine considers starting more downloaders.
pub(super) const GROW_PERIOD: Duration = Duration::from_millis(100);

/// What the growth loop grows.
pub(super) struct Growth<'a> {
    /// The cap (`DownloadingThreadsCount`, or what the open-file limit allows).
    pub(super) most: usize,
    /// `DT1`: the loop's requests at once grow too, and blocking downloaders are added only
    /// when tasks the loop passed on wait for one.
    pub(super) evented: bool,
    /// The loop's requests at once.
    pub(super) loop_slots: &'a Slots,
    /// Tasks the loop passed on to blocking downloaders.
    pub(super) passed_on: &'a Receiver<TaskLease>,
}

/// Every [`GROW_PERIOD`] until the cap or the stop: grows the downloaders (`spawn(i)` starts
/// downloader `i`; false when the machine gives no more threads, which ends the growth) and
/// the loop's requests at once, and tells the dispatcher how many run.
pub(super) fn run(
    ctx: &Context,
    g: Growth<'_>,
    first: usize,
    spawn: &mut dyn FnMut(usize) -> bool,
) {
    let mut started = first;
    let started = &mut started;
    let stop = ctx.stop.receiver();
    let ticker = crossbeam_channel::tick(GROW_PERIOD);
    let mut cpu = CpuIdle::new();
    let most = g.most;
    let can_grow = |started: usize| started < most || (g.evented && g.loop_slots.get() < most);
    while can_grow(*started) {
        select! {
            recv(ticker) -> _ => {}
            recv(stop) -> _ => return,
        }
        let wanted = ctx.dispatcher.take_demand();
        // Measured every period, demand or not: the smoothing follows time.
        let spare = cpu.spare();
        let room = headroom(ctx.dispatcher.request_room());
        let threads_wanted = if g.evented {
            !g.passed_on.is_empty()
        } else {
            wanted > 0
        };
        if g.evented && wanted > 0 && spare {
            g.loop_slots.set(grown(g.loop_slots.get(), room, most));
        }
        if threads_wanted && spare && may_grow(*started, room, most) {
            let target = grown(*started, room, most);
            while *started < target {
                if !spawn(*started) {
                    // The machine gives no more threads: the crawl goes on with these.
                    return;
                }
                *started += 1;
            }
        }
        let at_once = if g.evented {
            g.loop_slots.get() + *started
        } else {
            *started
        };
        ctx.dispatcher.set_downloaders(at_once);
    }
}

/// The downloaders the sites being crawled could use: the requests they allow at once
/// (`request_room`), and a quarter more (at least 8).
pub(super) fn headroom(request_room: usize) -> usize {
    request_room.saturating_add((request_room / 4).max(8))
}

/// Whether `n` running may grow, with `room` from [`headroom`] and the cap `most`.
pub(super) fn may_grow(n: usize, room: usize, most: usize) -> bool {
    n < room.min(most)
}

/// The count after one growth step from `n`: a quarter more (at least one), never past
/// `min(room, most)`; `n` itself when it may not grow.
pub(super) fn grown(n: usize, room: usize, most: usize) -> usize {
    let bound = room.min(most);
    if n >= bound {
        return n;
    }
    n.saturating_add((n / 4).max(1)).min(bound)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An hour of growth periods (one a tenth of a second).
    const HOUR_OF_STEPS: usize = 36_000;

    #[test]
    fn a_quarter_more_at_a_time_up_to_the_room_and_the_cap() {
        assert_eq!(grown(16, 1000, 4096), 20);
        assert_eq!(grown(2, 1000, 4096), 3, "at least one more");
        assert_eq!(grown(990, 1000, 4096), 1000, "never past the room");
        assert_eq!(grown(90, 1000, 100), 100, "never past the cap");
        assert_eq!(grown(120, 100, 4096), 120, "over the room: no change");
        assert!(may_grow(16, 24, 4096) && !may_grow(24, 24, 4096) && !may_grow(5, 24, 5));
        assert_eq!(headroom(0), 8);
        assert_eq!(headroom(400), 500);
        assert_eq!(headroom(usize::MAX), usize::MAX, "saturates");
    }

    #[test]
    fn an_hour_of_demand_stays_within_the_stated_bound() {
        // Rooms as a crawl sees them: constant, growing with the window of sites, falling as
        // sites finish, and absurd (a sum saturated).
        let rooms: [&dyn Fn(usize) -> usize; 4] = [
            &|_| 24,
            &|step| step,
            &|step| 100_000usize.saturating_sub(step * 3),
            &|_| usize::MAX,
        ];
        for (which, room_at) in rooms.iter().enumerate() {
            for most in [16, 4096] {
                let first = 16;
                let (mut n, mut largest_bound) = (first, first);
                for step in 0..HOUR_OF_STEPS {
                    let room = headroom(room_at(step));
                    largest_bound = largest_bound.max(room.min(most));
                    if may_grow(n, room, most) {
                        n = grown(n, room, most);
                    }
                    assert!(
                        n <= largest_bound && n <= most.max(first),
                        "room {which}, most {most}, step {step}: {n}"
                    );
                }
            }
        }
    }
}

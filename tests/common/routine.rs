//! A `RoutineThread` written to the `Routine` contract and nothing more, for tests that the
//! engine does the rest (opening scopes, topping up a shared budget).

use rccrawler::StopReason;
use rccrawler::crawl::live::CrawlView;
use rccrawler::crawl::routine::{Routine, RoutineIo};

/// A routine written to the `Routine` contract and nothing more: it drops the log events,
/// asks the finishers every 20 ms with `CrawlView::tick`, stops on their
/// first reason or on Ctrl+C, and returns once every other thread has ended. It knows
/// nothing of scopes to open or budgets to top up.
#[derive(Debug)]
pub struct ContractRoutine;

impl Routine for ContractRoutine {
    fn run(&self, crawl: &dyn CrawlView, io: RoutineIo<'_>) {
        let RoutineIo {
            events,
            ctrl_c,
            mut finishers,
            ..
        } = io;
        let ticker = crossbeam_channel::tick(std::time::Duration::from_millis(20));
        loop {
            crossbeam_channel::select! {
                recv(ticker) -> _ => {
                    while let Ok(_event) = events.try_recv() {}
                    let tick = crawl.tick();
                    if !crawl.stop().is_requested()
                        && let Some(reason) = finishers.iter_mut().find_map(|f| f.check(&tick))
                    {
                        crawl.stop().request(reason);
                    }
                    if events.is_empty() && matches!(
                        events.recv_timeout(std::time::Duration::ZERO),
                        Err(crossbeam_channel::RecvTimeoutError::Disconnected)
                    ) {
                        return;
                    }
                },
                recv(ctrl_c) -> _ => crawl.stop().request(StopReason::Interrupted),
            }
        }
    }
}

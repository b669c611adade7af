//! The state-saver thread: while the crawl runs it hands committed work to the journal file
//! every 100 ms (so a `kill -9` loses at most that much), fsyncs it every second (a power
//! cut loses at most that much), and writes a compacted snapshot every `CheckpointSeconds`.
//! The final save, after every worker has stopped, is done by the application manager.

use std::time::{Duration, Instant};

use crossbeam_channel::{select, tick};

use crate::base::stop::{PanicGuard, StopReason};
use crate::base::storage::Durability;
use crate::crawl::data::{CrawlStatus, Persist};
use crate::crawl::engine::Context;

/// How often committed work reaches the journal file.
pub(crate) const FLUSH_INTERVAL: Duration = Duration::from_millis(100);
/// How often the journal is fsynced.
pub(crate) const SYNC_INTERVAL: Duration = Duration::from_secs(1);

/// Runs until the crawl stops.
pub(super) fn run(ctx: &Context, checkpoint_every: Duration) {
    let _guard = PanicGuard(&ctx.stop);
    let shutdown = ctx.stop.receiver();
    let ticker = tick(FLUSH_INTERVAL);
    let (mut last_sync, mut last_checkpoint) = (Instant::now(), Instant::now());
    loop {
        select! {
            recv(shutdown) -> _ => return,
            recv(ticker) -> _ => {}
        }
        let now = Instant::now();
        let how = if now.duration_since(last_checkpoint) >= checkpoint_every {
            Persist::Checkpoint(CrawlStatus::Unfinished)
        } else if now.duration_since(last_sync) >= SYNC_INTERVAL {
            Persist::Journal(Durability::Disk)
        } else {
            Persist::Journal(Durability::Process)
        };
        if let Err(e) = ctx.dm.persist(how) {
            ctx.stop.request(StopReason::Failed(format!(
                "cannot save the crawl state: {e}"
            )));
            return;
        }
        if how != Persist::Journal(Durability::Process) {
            last_sync = now;
        }
        if matches!(how, Persist::Checkpoint(_)) {
            last_checkpoint = now;
        }
    }
}

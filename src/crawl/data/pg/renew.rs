//! The claim renewer: a thread with its own connection that renews the leases of this
//! process's claims (its scopes, its page-budget reservation) every third of `LeaseSeconds`,
//! so that a slow snapshot never delays a renewal. If renewing keeps failing for longer than a
//! lease, the claims may be gone: the next write of the crawl reports it and the process stops
//! rather than risk writing over another's work.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Sender, bounded, select};
use parking_lot::Mutex;

use super::db::{Db, PgError};
use super::scope_state;

/// Renews claims until stopped.
#[derive(Debug)]
pub(super) struct ClaimRenewer {
    stop: Sender<()>,
    handle: Option<JoinHandle<()>>,
    failed: Arc<Mutex<Option<Arc<PgError>>>>,
}

impl ClaimRenewer {
    /// Connects (now, so that a bad URL fails at the start) and starts renewing the leases of
    /// `owner` every third of `lease`.
    pub(super) fn start(url: &str, owner: String, lease: Duration) -> Result<Self, PgError> {
        let mut db = Db::connect(url)?;
        let (stop, stopped) = bounded::<()>(1);
        let failed = Arc::new(Mutex::new(None));
        let flag = Arc::clone(&failed);
        let every = lease / 3;
        let secs = lease.as_secs_f64();
        let handle = std::thread::Builder::new()
            .name("leases".into())
            .spawn(move || {
                let mut last_ok = Instant::now();
                loop {
                    select! {
                        recv(stopped) -> _ => return,
                        default(every) => {}
                    }
                    let renewed = db.run(
                        "renewing leases",
                        &[("owner", &owner), ("lease seconds", &secs)],
                        |c| {
                        c.execute(
                            "UPDATE rccrawler_processes SET lease_until = now() + make_interval(secs => $2) \
                             WHERE owner = $1",
                            &[&owner, &secs],
                        )?;
                        scope_state::renew(c, &owner, secs)
                    });
                    match renewed {
                        Ok(_) => last_ok = Instant::now(),
                        Err(e) if last_ok.elapsed() > lease => {
                            *flag.lock() = Some(Arc::new(e));
                        }
                        Err(_) => {}
                    }
                }
            })
            .map_err(PgError::Thread)?;
        Ok(ClaimRenewer {
            stop,
            handle: Some(handle),
            failed,
        })
    }

    /// Why the claims may be lost, once renewing failed for longer than a lease.
    pub(super) fn failure(&self) -> Option<PgError> {
        self.failed.lock().clone().map(PgError::Renewal)
    }

    /// Stops renewing.
    pub(super) fn stop(mut self) {
        let _ = self.stop.try_send(());
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

//! The lease keeper: a thread with its own connection that renews this process's leases every
//! third of `LeaseSeconds`, so that a slow snapshot never delays a renewal. If renewing keeps
//! failing for longer than a lease, the leases may be gone: the next write of the crawl
//! reports it and the process stops rather than risk writing over another's work.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Sender, bounded, select};
use parking_lot::Mutex;

use super::db::{Db, PgError};

/// Renews leases until stopped.
#[derive(Debug)]
pub(super) struct LeaseKeeper {
    stop: Sender<()>,
    handle: Option<JoinHandle<()>>,
    failed: Arc<Mutex<Option<String>>>,
}

impl LeaseKeeper {
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
                    let renewed = db.run("renewing leases", |c| {
                        c.execute(
                            "UPDATE rccrawler_processes SET lease_until = now() + make_interval(secs => $2) \
                             WHERE owner = $1",
                            &[&owner, &secs],
                        )?;
                        c.execute(
                            "UPDATE rccrawler_scopes SET lease_until = now() + make_interval(secs => $2) \
                             WHERE owner = $1 AND state = 'active'",
                            &[&owner, &secs],
                        )
                    });
                    match renewed {
                        Ok(_) => last_ok = Instant::now(),
                        Err(e) if last_ok.elapsed() > lease => {
                            *flag.lock() = Some(e.to_string());
                        }
                        Err(_) => {}
                    }
                }
            })
            .map_err(|e| PgError::Schema(format!("cannot start the lease thread: {e}")))?;
        Ok(LeaseKeeper {
            stop,
            handle: Some(handle),
            failed,
        })
    }

    /// Why the leases may be lost, once renewing failed for longer than a lease.
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

//! [`PgCoordinator`]: processes sharing one crawl through its database — seeds registered once
//! for all, scopes claimed under leases (see [`scope_state`]), handed back, and the page
//! budget reserved in blocks (`rccrawler_processes`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::PgCrawl;
use super::db::bigint;
use super::register::{self, Registered};
use super::scope_state;
use crate::crawl::data::coord::BudgetGrant;
use crate::crawl::data::coord::{ClaimToken, CoordError, Coordinator, ScopeClaim};
use crate::model::site::Origin;

/// The coordinator of a `PgDM` process.
#[derive(Debug)]
pub struct PgCoordinator {
    crawl: Arc<PgCrawl>,
    /// `ScopesPerProcess`.
    per_process: usize,
    /// `PageBudget` is set: it is the crawl's, reserved in blocks.
    budgeted: bool,
    /// No scope had work when the seeds were registered.
    found_finished: AtomicBool,
}

impl PgCoordinator {
    pub(super) fn new(crawl: Arc<PgCrawl>, per_process: usize, budgeted: bool) -> Self {
        PgCoordinator {
            crawl,
            per_process,
            budgeted,
            found_finished: AtomicBool::new(false),
        }
    }
}

impl Coordinator for PgCoordinator {
    fn register_seeds(&self, seeds: &[Origin]) -> Result<(), CoordError> {
        let origins: Vec<String> = seeds.iter().map(Origin::to_string).collect();
        let crawl = &self.crawl.crawl;
        let registered = self.crawl.db.lock().run(
            "registering the seeds",
            &[("crawl", crawl), ("origins", &origins)],
            |c| register::register(c, crawl, &origins),
        )?;
        match registered {
            Registered::Accepted => {}
            Registered::Refused { live } => {
                return Err(CoordError::Refused {
                    crawl: crawl.clone(),
                    live,
                });
            }
            Registered::OtherFormat { found } => {
                return Err(CoordError::OtherFormat {
                    crawl: crawl.clone(),
                    found,
                });
            }
        }
        // Other processes' work counts as this one's until it is done (the crawl is over
        // when every scope is): known before the engine first asks.
        self.crawl.look(0)?;
        if self.outstanding() == 0 {
            self.found_finished.store(true, Ordering::Relaxed);
            eprintln!(
                "crawl {crawl:?} is finished: every one of its {} is done. `rccrawler export` writes its results; \
                 to crawl the sites again, give it another CrawlName",
                crate::base::words::count(seeds.len() as u64, "scope")
            );
        }
        Ok(())
    }

    fn claim(&self, origin: &Origin) -> Result<Option<ScopeClaim>, CoordError> {
        let (crawl, owner, name) = (&self.crawl.crawl, &self.crawl.owner, origin.to_string());
        let secs = self.crawl.lease.as_secs_f64();
        let mut db = self.crawl.db.lock();
        let exclusive = self.crawl.exclusive;
        let (claimed, elsewhere) = db.run(
            "claiming a scope",
            &[
                ("crawl", crawl),
                ("origin", &name),
                ("owner", owner),
                ("lease seconds", &secs),
            ],
            |c| {
                if exclusive {
                    scope_state::claim_exclusive(c, crawl, &name, owner, secs)
                } else {
                    Ok((scope_state::claim(c, crawl, &name, owner, secs)?, 0))
                }
            },
        )?;
        self.crawl.waiting_for(elsewhere);
        let Some(claimed) = claimed else {
            return Ok(None);
        };
        if let Some((previous, late)) = &claimed.taken_from {
            eprintln!(
                "{origin}: taken over from {previous} (its lease ran out {late:.0} s ago: it stopped or lost the database); continuing from its last saved work"
            );
        }
        let row = claimed.row;
        // It was counted as outstanding elsewhere (nobody held it, or its lease had run out).
        let _ = self
            .crawl
            .outstanding
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                Some(n.saturating_sub(1))
            });
        drop(db);
        Ok(Some(ScopeClaim::shared(origin.clone(), ClaimToken(row))))
    }

    fn more_seeds(&self, room: usize) -> Result<Vec<Origin>, CoordError> {
        Ok(self.crawl.look(room)?)
    }

    fn outstanding(&self) -> usize {
        self.crawl.outstanding.load(Ordering::SeqCst)
    }

    fn scopes_per_process(&self) -> Option<usize> {
        Some(self.per_process)
    }

    fn found_finished(&self) -> bool {
        self.found_finished.load(Ordering::Relaxed)
    }

    fn hand_back(&self) -> Result<(), CoordError> {
        // Finished scopes first (their leases are renewed meanwhile, and still after this:
        // those whose files the end of the run writes stay this process's until then).
        let settled = self.crawl.settler.lock().finish();
        let owner = &self.crawl.owner;
        let secs = self.crawl.lease.as_secs_f64();
        self.crawl
            .db
            .lock()
            .run("handing back scopes", &[("owner", owner)], |c| {
                let mut tx = c.transaction()?;
                scope_state::hand_back(&mut tx, owner, secs)?;
                // Budget reserved and not spent goes back to the crawl.
                tx.execute("DELETE FROM rccrawler_processes WHERE owner = $1", &[owner])?;
                tx.commit()
            })?;
        settled?;
        Ok(())
    }

    fn shares_budget(&self) -> bool {
        self.budgeted
    }

    fn share_budget(&self, total: u64, want: u64) -> Result<BudgetGrant, CoordError> {
        let (crawl, owner) = (&self.crawl.crawl, &self.crawl.owner);
        let (total, want) = (bigint(total), bigint(want));
        let secs = self.crawl.lease.as_secs_f64();
        let exclusive = self.crawl.exclusive;
        let (granted, last) = self.crawl.db.lock().run(
            "reserving page budget",
            &[("crawl", crawl), ("owner", owner), ("total", &total), ("want", &want)],
            |c| {
            let mut tx = c.transaction()?;
            // One reservation at a time per crawl: the crawl's row is the lock.
            tx.execute(
                "UPDATE rccrawler_crawls SET budget = $2 WHERE name = $1",
                &[crawl, &total],
            )?;

            // One statement, so one snapshot: a journal saved meanwhile moves fetches from
            // `reserved` to `fetched` in one transaction, and two statements could see it
            // half (and grant those fetches twice).
            let row = tx.query_one(
                "SELECT (SELECT coalesce(sum(fetched), 0)::bigint FROM rccrawler_scopes \
                 WHERE crawl = $1), \
                 coalesce(sum(reserved) FILTER (WHERE owner = $2), 0)::bigint, \
                 coalesce(sum(reserved) FILTER (WHERE owner <> $2), 0)::bigint \
                 FROM rccrawler_processes WHERE crawl = $1 AND (lease_until > now() OR owner = $2)",
                &[crawl, owner],
            )?;
            let fetched: i64 = row.try_get(0)?;
            let (mine, others): (i64, i64) = (row.try_get(1)?, row.try_get(2)?);
            let free = (total - fetched - mine - others).max(0);
            // One process at a time crawls a budgeted crawl (see `pg::open`): one waiting
            // for it holds no scope and reserves nothing, or the budget would sit with it;
            // it learns here when the budget is spent, and ends.
            if exclusive && scope_state::held_by(&mut tx, crawl, owner)? == 0 {
                tx.commit()?;
                return Ok((0, free == 0 && others == 0));
            }
            let granted = want.min(free);
            tx.execute(
                "INSERT INTO rccrawler_processes (crawl, owner, reserved, lease_until) \
                 VALUES ($1, $2, $3, now() + make_interval(secs => $4)) \
                 ON CONFLICT (crawl, owner) DO UPDATE SET reserved = rccrawler_processes.reserved + $3, \
                 lease_until = excluded.lease_until",
                &[crawl, owner, &granted, &secs],
            )?;
            tx.commit()?;
            // Nothing left, and nobody holds any that could come back.
            Ok((granted, free == granted && others == 0))
        })?;
        // Never negative: the smaller of what was wanted and what was free (both at least 0).
        let granted = u64::try_from(granted).unwrap_or(0);
        if last {
            self.crawl.budget_spent.store(true, Ordering::SeqCst);
        }
        Ok(if last {
            BudgetGrant::Last(granted)
        } else {
            BudgetGrant::More(granted)
        })
    }
}

//! Registering a hosts.txt's seeds in the crawl's database: the crawl created, its scopes
//! queued, removed and queued again, in one transaction (the other transitions of a scope's
//! row are in [`super::scope_state`]).

use postgres::Client;

use super::scope_state::{ScopeState, WORKING, live};

/// What registering a hosts.txt's seeds found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Registered {
    /// The seeds are the crawl's (or were made so).
    Accepted,
    /// Other processes crawl the crawl with other seeds: `live` scopes are held.
    Refused { live: i64 },
    /// The crawl's saved scopes are in another state format than this rccrawler's.
    OtherFormat { found: i32 },
}

/// Registers the seed `origins` of a crawl, in one transaction: a new crawl is created; a
/// different seed list is refused while others hold live leases, else accepted (new scopes
/// queued, missing ones removed); with no process running, scopes stopped in the last run are
/// queued again.
pub(super) fn register(
    c: &mut Client,
    crawl: &str,
    origins: &[String],
) -> Result<Registered, postgres::Error> {
    let mut sorted = origins.to_vec();
    sorted.sort();
    let listed = sorted.join("\n");
    let mut tx = c.transaction()?;
    let format = crate::base::storage::FORMAT_VERSION as i32;
    tx.execute(
        "INSERT INTO rccrawler_crawls (name, seeds, state_format) VALUES ($1, $2, $3) \
         ON CONFLICT DO NOTHING",
        &[&crawl, &listed, &format],
    )?;
    // Snapshots and journal batches are read in the format they were written in: a crawl
    // saved by another rccrawler is refused, not misread (one with nothing saved is taken on).
    let (found, saved): (i32, bool) = {
        let row = tx.query_one(
            "SELECT c.state_format, EXISTS (SELECT 1 FROM rccrawler_scopes s WHERE s.crawl = $1 \
             AND (EXISTS (SELECT 1 FROM rccrawler_snapshots n WHERE n.scope = s.id) \
             OR EXISTS (SELECT 1 FROM rccrawler_journal j WHERE j.scope = s.id))) \
             FROM rccrawler_crawls c WHERE c.name = $1",
            &[&crawl],
        )?;
        (row.try_get(0)?, row.try_get(1)?)
    };
    if found != format {
        if saved {
            return Ok(Registered::OtherFormat { found });
        }
        tx.execute(
            "UPDATE rccrawler_crawls SET state_format = $2 WHERE name = $1",
            &[&crawl, &format],
        )?;
    }
    let known: String = tx
        .query_one(
            "SELECT seeds FROM rccrawler_crawls WHERE name = $1 FOR UPDATE",
            &[&crawl],
        )?
        .try_get(0)?;
    let live = live(&mut tx, crawl)?;
    if known != listed {
        if live > 0 {
            return Ok(Registered::Refused { live });
        }
        tx.execute(
            "UPDATE rccrawler_crawls SET seeds = $2 WHERE name = $1",
            &[&crawl, &listed],
        )?;
    }
    if live == 0 {
        // A new run of the crawl: sites suspended in the last one are tried again, as one
        // process's continued crawl tries them again (nobody holds a lease: one still owned
        // was settled by a process killed before it recorded the files).
        tx.execute(
            "UPDATE rccrawler_scopes SET state = $2, owner = NULL, lease_until = NULL \
             WHERE crawl = $1 AND state = $3",
            &[
                &crawl,
                &ScopeState::Queued.as_str(),
                &ScopeState::Stopped.as_str(),
            ],
        )?;
    }
    tx.execute(
        "INSERT INTO rccrawler_scopes (crawl, origin, state) \
         SELECT $1, o, $3 FROM unnest($2::text[]) AS o \
         ON CONFLICT (crawl, origin) DO UPDATE SET state = $3 \
         WHERE rccrawler_scopes.state = $4",
        &[
            &crawl,
            &origins,
            &ScopeState::Queued.as_str(),
            &ScopeState::Removed.as_str(),
        ],
    )?;
    tx.execute(
        "UPDATE rccrawler_scopes SET state = $3, owner = NULL, lease_until = NULL \
         WHERE crawl = $1 AND origin <> ALL($2) AND state = ANY($4)",
        &[
            &crawl,
            &origins,
            &ScopeState::Removed.as_str(),
            &&WORKING[..],
        ],
    )?;
    // A site no longer listed is not written again (its files may be unrecorded: a killed
    // process settled it last).
    tx.execute(
        "UPDATE rccrawler_scopes SET owner = NULL, lease_until = NULL \
         WHERE crawl = $1 AND origin <> ALL($2) AND owner IS NOT NULL",
        &[&crawl, &origins],
    )?;
    tx.commit()?;
    Ok(Registered::Accepted)
}

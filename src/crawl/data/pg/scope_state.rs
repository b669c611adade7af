//! The life of a scope's row in `rccrawler_scopes`: its states and every transition between
//! them, each one SQL statement (or transaction) here and nowhere else.
//!
//! ```text
//!            register_seeds                claim (lease)             settle
//!   (new) ─────────────────▶ queued ────────────────────▶ active ─────────────▶ done
//!                              ▲  ▲   hand_back / lease      │  └──────────────▶ stopped
//!                              │  └──── runs out, another ◀──┘   (its site was     │
//!                              │        process claims it        down / page limit)│
//!                              └─────────────── a new run of the crawl ◀───────────┘
//!   queued, active ──(no longer in hosts.txt)──▶ removed ──(listed again)──▶ queued
//! ```
//!
//! A row's `owner` is set while it is `active`, and after it is settled until its result files
//! are recorded as written (see [`has_work`]); `lease_until` says until when the owner's claim
//! holds unless renewed. Every write of a scope's data first checks, under a
//! row lock, that this process still owns it (`owned_for_update`, `snapshot_turn`,
//! `owned_for_share`): a process whose lease ran out never writes over its successor.
//! Registering a hosts.txt's seeds (new, removed, and requeued scopes) is in [`super::register`].

use postgres::{Client, GenericClient, Transaction};

/// Where a scope stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScopeState {
    /// Waiting for a process to claim it.
    Queued,
    /// Claimed: a process crawls it under a lease.
    Active,
    /// Nothing left to fetch; its graph tables are written.
    Done,
    /// Its site was suspended (down, page limit); a new run of the crawl tries it again.
    Stopped,
    /// No longer in hosts.txt; its saved data is kept.
    Removed,
}

impl ScopeState {
    /// Every state.
    pub const ALL: [ScopeState; 5] = [
        ScopeState::Queued,
        ScopeState::Active,
        ScopeState::Done,
        ScopeState::Stopped,
        ScopeState::Removed,
    ];

    /// The word stored in the `state` column.
    pub fn as_str(self) -> &'static str {
        match self {
            ScopeState::Queued => "queued",
            ScopeState::Active => "active",
            ScopeState::Done => "done",
            ScopeState::Stopped => "stopped",
            ScopeState::Removed => "removed",
        }
    }

    /// The state a stored word names.
    pub fn parse(word: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == word)
    }
}

impl std::fmt::Display for ScopeState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// The states in which a scope still has work for some process.
pub(super) const WORKING: [&str; 2] = ["queued", "active"];

/// The SQL condition "scope row `t` has work for some process": it is queued or active, or it
/// was settled by a process that had not recorded its result files as written yet.
///
/// A scope settled by a journal save is marked done before its files are written; the record
/// that they were (the summary row) follows in a later transaction. Until then the process
/// keeps the row's owner and renews its lease: killed in between, the row is taken over once
/// the lease runs out, and the next process loads its last snapshot, finds nothing to fetch
/// and writes its files. Without this, a kill -9 there left a site done and written nowhere,
/// and a process started again in the folder left it out of summary.csv.
pub(super) fn has_work(t: &str) -> String {
    format!(
        "({t}.state IN ('queued', 'active') OR ({t}.state IN ('done', 'stopped') \
         AND {t}.written_row IS NULL AND {t}.owner IS NOT NULL))"
    )
}

/// Scopes of the crawl that still have work and are not `owner`'s.
pub(super) fn outstanding(
    c: &mut impl GenericClient,
    crawl: &str,
    owner: &str,
) -> Result<i64, postgres::Error> {
    c.query_one(
        &format!(
            "SELECT count(*) FROM rccrawler_scopes s WHERE crawl = $1 \
             AND {} AND owner IS DISTINCT FROM $2",
            has_work("s")
        ),
        &[&crawl, &owner],
    )?
    .try_get(0)
}

/// Seed origins of up to `limit` scopes with work that nobody holds (or whose holder's
/// lease ran out), in hosts.txt order.
pub(super) fn claimable(
    c: &mut impl GenericClient,
    crawl: &str,
    limit: i64,
) -> Result<Vec<String>, postgres::Error> {
    c.query(
        &format!(
            "SELECT origin FROM rccrawler_scopes s WHERE crawl = $1 \
             AND {} AND (owner IS NULL OR lease_until < now()) ORDER BY id LIMIT $2",
            has_work("s")
        ),
        &[&crawl, &limit],
    )?
    .iter()
    .map(|r| r.try_get(0))
    .collect()
}

/// A scope claimed: its row, and the process it was taken over from (whose lease ran out,
/// this many seconds ago), if any.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Claimed {
    pub(super) row: i64,
    pub(super) taken_from: Option<(String, f64)>,
}

/// Claims the scope of seed `origin` for `owner` for `secs` seconds (one `UPDATE`: two
/// processes never both win): its row id, or `None` when another holds it or it is done.
pub(super) fn claim(
    c: &mut impl GenericClient,
    crawl: &str,
    origin: &str,
    owner: &str,
    secs: f64,
) -> Result<Option<Claimed>, postgres::Error> {
    let row = c.query_opt(
        &format!(
            "WITH before AS (SELECT id, owner, \
             extract(epoch FROM now() - lease_until)::float8 AS late \
             FROM rccrawler_scopes WHERE crawl = $1 AND origin = $2 FOR UPDATE) \
             UPDATE rccrawler_scopes s SET state = $5, owner = $3, \
             lease_until = now() + make_interval(secs => $4) FROM before \
             WHERE s.id = before.id AND {} \
             AND (s.owner IS NULL OR s.owner = $3 OR s.lease_until < now()) \
             RETURNING s.id, before.owner, before.late",
            has_work("s")
        ),
        &[&crawl, &origin, &owner, &secs, &ScopeState::Active.as_str()],
    )?;
    let Some(row) = row else {
        return Ok(None);
    };
    let previous: Option<String> = row.try_get(1)?;
    let late: Option<f64> = row.try_get(2)?;
    Ok(Some(Claimed {
        row: row.try_get(0)?,
        taken_from: previous
            .filter(|p| p != owner)
            .map(|p| (p, late.unwrap_or(0.0))),
    }))
}

/// Scopes of the crawl that another process than `owner` holds under a live lease.
pub(super) fn held_elsewhere(
    c: &mut impl GenericClient,
    crawl: &str,
    owner: &str,
) -> Result<i64, postgres::Error> {
    c.query_one(
        &format!(
            "SELECT count(*) FROM rccrawler_scopes s WHERE crawl = $1 AND {} \
             AND owner <> $2 AND lease_until > now()",
            has_work("s")
        ),
        &[&crawl, &owner],
    )?
    .try_get(0)
}

/// Scopes of the crawl that `owner` holds.
pub(super) fn held_by(
    c: &mut impl GenericClient,
    crawl: &str,
    owner: &str,
) -> Result<i64, postgres::Error> {
    c.query_one(
        "SELECT count(*) FROM rccrawler_scopes WHERE crawl = $1 AND state = $3 AND owner = $2",
        &[&crawl, &owner, &ScopeState::Active.as_str()],
    )?
    .try_get(0)
}

/// [`claim`] for a crawl that one process at a time crawls (a budgeted crawl: one rule
/// decides for every site): the claim fails while another process holds any scope of it,
/// and once its budget is spent (the crawl is over; the process that spent it handed back
/// the scopes with URLs left). The crawl's row is locked meanwhile, so two processes
/// starting together never both win part of the crawl. Also returns how many scopes
/// another process holds.
pub(super) fn claim_exclusive(
    c: &mut Client,
    crawl: &str,
    origin: &str,
    owner: &str,
    secs: f64,
) -> Result<(Option<Claimed>, i64), postgres::Error> {
    let mut tx = c.transaction()?;
    tx.execute(
        "SELECT 1 FROM rccrawler_crawls WHERE name = $1 FOR UPDATE",
        &[&crawl],
    )?;
    let elsewhere = held_elsewhere(&mut tx, crawl, owner)?;
    if elsewhere > 0 {
        return Ok((None, elsewhere));
    }
    let spent: bool = tx
        .query_one(
            "SELECT c.budget > 0 AND (SELECT coalesce(sum(fetched), 0) FROM rccrawler_scopes \
             WHERE crawl = $1) >= c.budget FROM rccrawler_crawls c WHERE c.name = $1",
            &[&crawl],
        )?
        .try_get(0)?;
    if spent {
        return Ok((None, 0));
    }
    let claimed = claim(&mut tx, crawl, origin, owner, secs)?;
    tx.commit()?;
    Ok((claimed, 0))
}

/// Extends the leases of every scope `owner` holds (settled ones whose files are not recorded
/// yet too) by `secs` seconds from now.
pub(super) fn renew(c: &mut Client, owner: &str, secs: f64) -> Result<u64, postgres::Error> {
    c.execute(
        &format!(
            "UPDATE rccrawler_scopes s SET lease_until = now() + make_interval(secs => $2) \
             WHERE owner = $1 AND {}",
            has_work("s")
        ),
        &[&owner, &secs],
    )
}

/// Locks the rows of `ids` that `owner` still holds (for update); returns their ids.
pub(super) fn owned_for_update(
    tx: &mut Transaction<'_>,
    ids: &[i64],
    owner: &str,
) -> Result<Vec<i64>, postgres::Error> {
    tx.query(
        "SELECT id FROM rccrawler_scopes WHERE id = ANY($1) AND owner = $2 \
         AND state = $3 FOR UPDATE",
        &[&ids, &owner, &ScopeState::Active.as_str()],
    )?
    .iter()
    .map(|r| r.try_get(0))
    .collect()
}

/// May `owner` save a snapshot of scope `id` as save `save`?
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SnapshotTurn {
    /// Yes: the row is locked for update.
    Owned,
    /// This very save was already committed (its acknowledgement was lost).
    AlreadySaved,
    /// No: the lease was lost.
    Lost,
}

/// Locks scope `id`'s row and says whether `owner` may save snapshot `save`.
pub(super) fn snapshot_turn(
    tx: &mut Transaction<'_>,
    id: i64,
    owner: &str,
    save: &str,
) -> Result<SnapshotTurn, postgres::Error> {
    let row = tx.query_opt(
        "SELECT owner = $2 AND state = $4, last_save = $3 \
         FROM rccrawler_scopes WHERE id = $1 FOR UPDATE",
        &[&id, &owner, &save, &ScopeState::Active.as_str()],
    )?;
    let Some(row) = row else {
        return Ok(SnapshotTurn::Lost);
    };
    let mine: Option<bool> = row.try_get(0)?;
    let done_before: Option<bool> = row.try_get(1)?;
    Ok(if done_before == Some(true) {
        SnapshotTurn::AlreadySaved
    } else if mine == Some(true) {
        SnapshotTurn::Owned
    } else {
        SnapshotTurn::Lost
    })
}

/// Records a saved snapshot's figures (after [`snapshot_turn`] said `Owned`).
pub(super) fn snapshot_saved(
    tx: &mut Transaction<'_>,
    id: i64,
    figures: [i64; 3],
    save: &str,
) -> Result<(), postgres::Error> {
    let [pages, pending, fetched] = figures;
    tx.execute(
        "UPDATE rccrawler_scopes SET checkpoint_at = now(), \
         pages = $2, pending = $3, fetched = $4, last_save = $5 WHERE id = $1",
        &[&id, &pages, &pending, &fetched, &save],
    )?;
    Ok(())
}

/// Records the figures of the snapshots of `ids` just saved, as save `save` (after
/// [`settling`] locked them).
pub(super) fn snapshots_saved(
    tx: &mut Transaction<'_>,
    ids: &[i64],
    figures: &[[i64; 3]],
    save: &str,
) -> Result<(), postgres::Error> {
    let column = |k: usize| figures.iter().map(|f| f[k]).collect::<Vec<i64>>();
    let (pages, pending, fetched) = (column(0), column(1), column(2));
    tx.execute(
        "UPDATE rccrawler_scopes SET checkpoint_at = now(), pages = f.pages, \
         pending = f.pending, fetched = f.fetched, last_save = $5 \
         FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[]) \
         AS f(id, pages, pending, fetched) WHERE rccrawler_scopes.id = f.id",
        &[&ids, &pages, &pending, &fetched, &save],
    )?;
    Ok(())
}

/// Records that the result files of each `(row, summary)` of `written` are in results folder
/// `folder`, with that summary.csv row (encoded) there; a settled scope is released (see
/// [`has_work`]).
pub(super) fn written(
    tx: &mut Transaction<'_>,
    written: &[(i64, &[u8])],
    folder: &str,
) -> Result<(), postgres::Error> {
    if written.is_empty() {
        return Ok(());
    }
    let ids: Vec<i64> = written.iter().map(|w| w.0).collect();
    let rows: Vec<&[u8]> = written.iter().map(|w| w.1).collect();
    tx.execute(
        "UPDATE rccrawler_scopes SET written_to = $3, written_row = w.row, \
         owner = CASE WHEN state = $4 THEN owner END, \
         lease_until = CASE WHEN state = $4 THEN lease_until END \
         FROM unnest($1::bigint[], $2::bytea[]) AS w(id, row) WHERE rccrawler_scopes.id = w.id",
        &[&ids, &rows, &folder, &ScopeState::Active.as_str()],
    )?;
    Ok(())
}

/// Records that the result files of the scope of seed `origin`, written at the end of the run,
/// are in results folder `folder` with summary.csv row `summary` (encoded); a settled scope is
/// released, as [`written`] does.
pub(super) fn written_at_end(
    tx: &mut Transaction<'_>,
    crawl: &str,
    origin: &str,
    folder: &str,
    summary: &[u8],
) -> Result<(), postgres::Error> {
    tx.execute(
        "UPDATE rccrawler_scopes SET written_to = $3, written_row = $4, \
         owner = CASE WHEN state = $5 THEN owner END, \
         lease_until = CASE WHEN state = $5 THEN lease_until END \
         WHERE crawl = $1 AND origin = $2",
        &[
            &crawl,
            &origin,
            &folder,
            &summary,
            &ScopeState::Active.as_str(),
        ],
    )?;
    Ok(())
}

/// Records the figures of the scopes of `ids` (pages, queued URLs, fetches, at the same
/// place in `figures`) as of their latest journal batch.
pub(super) fn figures(
    tx: &mut Transaction<'_>,
    ids: &[i64],
    figures: &[[i64; 3]],
) -> Result<(), postgres::Error> {
    if ids.is_empty() {
        return Ok(());
    }
    let column = |k: usize| figures.iter().map(|f| f[k]).collect::<Vec<i64>>();
    let (pages, pending, fetched) = (column(0), column(1), column(2));
    tx.execute(
        "UPDATE rccrawler_scopes SET pages = f.pages, pending = f.pending, fetched = f.fetched \
         FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[]) \
         AS f(id, pages, pending, fetched) WHERE rccrawler_scopes.id = f.id",
        &[&ids, &pages, &pending, &fetched],
    )?;
    Ok(())
}

/// Takes a share lock on scope `id`'s row while `owner` holds it: whether it does.
pub(super) fn owned_for_share(
    tx: &mut Transaction<'_>,
    id: i64,
    owner: &str,
) -> Result<bool, postgres::Error> {
    Ok(tx
        .query_opt(
            "SELECT 1 FROM rccrawler_scopes WHERE id = $1 AND owner = $2 \
             AND state = $3 FOR SHARE",
            &[&id, &owner, &ScopeState::Active.as_str()],
        )?
        .is_some())
}

/// Locks the rows of `ids` that `owner` still holds, or that save `save` settled already (its
/// commit was not acknowledged and it is tried again), for update; returns their ids.
pub(super) fn settling(
    tx: &mut Transaction<'_>,
    ids: &[i64],
    owner: &str,
    save: &str,
) -> Result<Vec<i64>, postgres::Error> {
    tx.query(
        "SELECT id FROM rccrawler_scopes WHERE id = ANY($1) \
         AND ((owner = $2 AND state = $3) OR last_save = $4) FOR UPDATE",
        &[&ids, &owner, &ScopeState::Active.as_str(), &save],
    )?
    .iter()
    .map(|r| r.try_get(0))
    .collect()
}

/// Marks each scope of `ids` settled as its state in `states` (`Done` or `Stopped`), as save
/// `save` (after [`settling`] locked them). A scope whose result files are written (`written`
/// at its place, or recorded already) is released; the others are kept, lease and all, until
/// [`written`] records their files (see [`has_work`]).
pub(super) fn settle_all(
    tx: &mut Transaction<'_>,
    ids: &[i64],
    states: &[ScopeState],
    written: &[bool],
    save: &str,
) -> Result<(), postgres::Error> {
    debug_assert!(
        states
            .iter()
            .all(|s| matches!(s, ScopeState::Done | ScopeState::Stopped))
    );
    let states: Vec<&str> = states.iter().map(|s| s.as_str()).collect();
    tx.execute(
        "UPDATE rccrawler_scopes SET state = s.state, finished_at = now(), \
         owner = CASE WHEN s.written OR written_row IS NOT NULL THEN NULL ELSE owner END, \
         lease_until = CASE WHEN s.written OR written_row IS NOT NULL THEN NULL \
         ELSE lease_until END, last_save = $4 \
         FROM unnest($1::bigint[], $2::text[], $3::bool[]) AS s(id, state, written) \
         WHERE rccrawler_scopes.id = s.id",
        &[&ids, &states, &written, &save],
    )?;
    Ok(())
}

/// Gives back every scope `owner` holds: unfinished ones are queued for another process; a
/// settled one whose files are not recorded as written stays `owner`'s under a fresh lease of
/// `secs`, which the claim renewer keeps renewing while this process writes those files at
/// the end of its run ([`written_at_end`] releases it). Had it been released here, another
/// process would take it over and write it a second time while this one writes it; if this
/// process dies first, the lease runs out and another takes it over (see [`has_work`]).
pub(super) fn hand_back(
    tx: &mut Transaction<'_>,
    owner: &str,
    secs: f64,
) -> Result<(), postgres::Error> {
    tx.execute(
        "UPDATE rccrawler_scopes SET \
         owner = CASE WHEN state <> $2 AND written_row IS NULL THEN owner END, \
         lease_until = CASE WHEN state <> $2 AND written_row IS NULL \
         THEN now() + make_interval(secs => $4) END, \
         state = CASE WHEN state = $2 THEN $3 ELSE state END WHERE owner = $1",
        &[
            &owner,
            &ScopeState::Active.as_str(),
            &ScopeState::Queued.as_str(),
            &secs,
        ],
    )?;
    Ok(())
}

/// The number of scopes of `crawl` held under a live lease (processes are crawling it).
pub(super) fn live(c: &mut impl GenericClient, crawl: &str) -> Result<i64, postgres::Error> {
    c.query_one(
        &format!(
            "SELECT count(*) FROM rccrawler_scopes s WHERE crawl = $1 \
             AND {} AND owner IS NOT NULL AND lease_until > now()",
            has_work("s")
        ),
        &[&crawl],
    )?
    .try_get(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_state_reads_back_from_its_word() {
        for s in ScopeState::ALL {
            assert_eq!(ScopeState::parse(s.as_str()), Some(s));
        }
        assert_eq!(ScopeState::parse("finished"), None);
        assert_eq!(
            WORKING,
            [ScopeState::Queued.as_str(), ScopeState::Active.as_str()]
        );
        // The condition spells the states' words.
        let condition = has_work("s");
        for s in [
            ScopeState::Queued,
            ScopeState::Active,
            ScopeState::Done,
            ScopeState::Stopped,
        ] {
            assert!(condition.contains(&format!("'{}'", s.as_str())), "{s}");
        }
    }
}

//! Reading a crawl from the database without crawling it: `rccrawler status` (every scope's
//! state, owner, figures and last checkpoint) and `rccrawler export` (a scope's graph rebuilt
//! from its snapshot and journal, as the crawling process holds it).

use std::time::SystemTime;

use super::db::{Db, PgError};
use super::schema;
use super::scope_state::ScopeState;
use crate::crawl::data::persist::SavedScope;
use crate::crawl::settings::Settings;
use crate::model::site::Origin;

/// One scope as `rccrawler status` shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct ScopeStatus {
    /// The seed origin.
    pub origin: String,
    /// Where it stands.
    pub state: ScopeState,
    /// The process crawling it, if one holds it.
    pub owner: Option<String>,
    /// Seconds left on the owner's lease (negative: it ran out, another process may take
    /// the scope).
    pub lease_left: Option<f64>,
    /// Pages at the last save.
    pub pages: i64,
    /// URLs queued at the last save.
    pub pending: i64,
    /// Fetches at the last save.
    pub fetched: i64,
    /// When its last snapshot was saved.
    pub checkpoint: Option<SystemTime>,
    /// Journal batches saved since.
    pub journal_batches: i64,
    /// The crawl's `PageBudget` is spent and this scope has work left: it is not crawled
    /// further unless the budget grows.
    pub budget_spent: bool,
}

impl ScopeStatus {
    /// Its state as people read it: `budget spent` for a scope the spent page budget
    /// stopped (the database keeps it `queued`, for a larger budget to continue it).
    pub fn shown_state(&self) -> String {
        if self.budget_spent {
            "budget spent".to_owned()
        } else {
            self.state.to_string()
        }
    }
}

fn open_db(settings: &Settings) -> Result<Db, PgError> {
    let mut db = Db::connect(&settings.database.url)?;
    schema::migrate(&mut db)?;
    Ok(db)
}

/// Every scope of the crawl `CrawlName`, in hosts.txt order.
pub fn status(settings: &Settings) -> Result<Vec<ScopeStatus>, PgError> {
    let mut db = open_db(settings)?;
    let crawl = &settings.database.crawl;
    let rows = db.run("reading the crawl", &[("crawl", crawl)], |c| {
        let rows = c.query(
            "SELECT s.origin, s.state, s.owner, \
             extract(epoch FROM s.lease_until - now())::float8, s.pages, s.pending, s.fetched, \
             s.checkpoint_at, (SELECT count(*) FROM rccrawler_journal j WHERE j.scope = s.id), \
             c.budget > 0 AND (SELECT coalesce(sum(fetched), 0) FROM rccrawler_scopes \
             WHERE crawl = $1) >= c.budget \
             FROM rccrawler_scopes s JOIN rccrawler_crawls c ON c.name = s.crawl \
             WHERE s.crawl = $1 ORDER BY s.id",
            &[crawl],
        )?;
        rows.iter()
            .map(|r| {
                Ok((
                    r.try_get::<_, String>(1)?,
                    ScopeStatus {
                        origin: r.try_get(0)?,
                        state: ScopeState::Queued,
                        owner: r.try_get(2)?,
                        lease_left: r.try_get(3)?,
                        pages: r.try_get(4)?,
                        pending: r.try_get(5)?,
                        fetched: r.try_get(6)?,
                        checkpoint: r.try_get(7)?,
                        journal_batches: r.try_get(8)?,
                        budget_spent: r.try_get(9)?,
                    },
                ))
            })
            .collect::<Result<Vec<_>, postgres::Error>>()
    })?;
    rows.into_iter()
        .map(|(word, mut s)| {
            s.state = ScopeState::parse(&word).ok_or_else(|| {
                PgError::Schema(format!(
                    "scope {} is in an unknown state {word:?}",
                    s.origin
                ))
            })?;
            s.budget_spent &= matches!(s.state, ScopeState::Queued | ScopeState::Active);
            Ok(s)
        })
        .collect()
}

/// Every scope of the crawl saved so far (its snapshot and the journal since), in hosts.txt
/// order, whoever crawls it now; scopes never crawled have nothing saved and are left out.
pub fn read_saved(settings: &Settings) -> Result<Vec<SavedScope>, PgError> {
    let mut db = open_db(settings)?;
    let crawl = &settings.database.crawl;
    let saved = db.run("reading scopes", &[("crawl", crawl)], |c| {
        let rows = c.query(
            "SELECT s.id, s.origin, n.data FROM rccrawler_scopes s \
             LEFT JOIN rccrawler_snapshots n ON n.scope = s.id WHERE s.crawl = $1 ORDER BY s.id",
            &[crawl],
        )?;
        let mut out = Vec::new();
        for r in rows {
            let id: i64 = r.try_get(0)?;
            let origin: String = r.try_get(1)?;
            let snapshot: Option<Vec<u8>> = r.try_get(2)?;
            let journal = c
                .query(
                    "SELECT data FROM rccrawler_journal WHERE scope = $1 ORDER BY id",
                    &[&id],
                )?
                .iter()
                .map(|row| row.try_get::<_, Vec<u8>>(0))
                .collect::<Result<Vec<_>, _>>()?;
            out.push((
                origin,
                SavedScope {
                    snapshot,
                    journal: journal.concat(),
                    retired: None,
                },
            ));
        }
        Ok(out)
    })?;
    let mut scopes = Vec::new();
    for (origin, s) in saved {
        if Origin::parse(&origin).is_none() {
            return Err(PgError::Schema(format!("a scope named {origin:?}")));
        }
        if s.snapshot.is_some() || !s.journal.is_empty() {
            scopes.push(s);
        }
    }
    Ok(scopes)
}

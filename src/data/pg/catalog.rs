//! Reading a crawl from the database without crawling it: `rccrawler status` (every scope's
//! state, owner, figures and last checkpoint) and `rccrawler export` (a scope's graph rebuilt
//! from its snapshot and journal, as the crawling process holds it).

use std::time::SystemTime;

use super::db::{Db, PgError};
use super::schema;
use crate::data::scope::ScopeGraph;
use crate::data::{DataError, DataManager, InMemoryDataManager, ScopeLimits};
use crate::ids::{ScopeId, SiteId};
use crate::settings::Settings;
use crate::site::Origin;

/// One scope as `rccrawler status` shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct ScopeStatus {
    /// The seed origin.
    pub origin: String,
    /// `queued`, `active`, `done` or `removed`.
    pub state: String,
    /// The process crawling it, if one holds it.
    pub owner: Option<String>,
    /// Seconds left on the owner's lease (negative: it ran out, another process may take
    /// the scope).
    pub lease_left: Option<f64>,
    /// Pages, URLs queued and fetches at the last checkpoint.
    pub pages: i64,
    /// URLs queued at the last checkpoint.
    pub pending: i64,
    /// Fetches at the last checkpoint.
    pub fetched: i64,
    /// When its last snapshot was saved.
    pub checkpoint: Option<SystemTime>,
    /// Journal batches saved since.
    pub journal_batches: i64,
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
    db.run("reading the crawl", |c| {
        let rows = c.query(
            "SELECT s.origin, s.state, s.owner, \
             extract(epoch FROM s.lease_until - now())::float8, s.pages, s.pending, s.fetched, \
             s.checkpoint_at, (SELECT count(*) FROM rccrawler_journal j WHERE j.scope = s.id) \
             FROM rccrawler_scopes s WHERE s.crawl = $1 ORDER BY s.id",
            &[crawl],
        )?;
        Ok(rows
            .iter()
            .map(|r| ScopeStatus {
                origin: r.get(0),
                state: r.get(1),
                owner: r.get(2),
                lease_left: r.get(3),
                pages: r.get(4),
                pending: r.get(5),
                fetched: r.get(6),
                checkpoint: r.get(7),
                journal_batches: r.get(8),
            })
            .collect())
    })
}

/// Whether `wanted` (a seed origin, its host, or its results folder name) names scope
/// `origin`.
fn names(origin: &str, wanted: &str) -> bool {
    origin == wanted
        || Origin::parse(origin).is_some_and(|o| o.host() == wanted || o.folder_name() == wanted)
}

/// Loads the scopes of the crawl whose seed origins are in `which` (all when empty) into an
/// in-memory data manager: each as its snapshot and journal say, whoever crawls it now.
pub fn load_scopes(
    settings: &Settings,
    which: &[String],
) -> Result<(InMemoryDataManager, Vec<(ScopeId, Origin)>), DataError> {
    let mut db = open_db(settings)?;
    let crawl = &settings.database.crawl;
    let saved = db.run("reading scopes", |c| {
        let rows = c.query(
            "SELECT s.id, s.origin, n.data FROM rccrawler_scopes s \
             LEFT JOIN rccrawler_snapshots n ON n.scope = s.id WHERE s.crawl = $1 ORDER BY s.id",
            &[crawl],
        )?;
        let mut out = Vec::new();
        for r in rows {
            let (id, origin, snapshot): (i64, String, Option<Vec<u8>>) =
                (r.get(0), r.get(1), r.get(2));
            if !which.is_empty() && !which.iter().any(|w| names(&origin, w)) {
                continue;
            }
            let journal: Vec<Vec<u8>> = c
                .query(
                    "SELECT data FROM rccrawler_journal WHERE scope = $1 ORDER BY id",
                    &[&id],
                )?
                .iter()
                .map(|row| row.get(0))
                .collect();
            out.push((origin, snapshot, journal.concat()));
        }
        Ok(out)
    })?;
    let dm = InMemoryDataManager::journaled();
    let mut scopes = Vec::new();
    for (origin, snapshot, journal) in saved {
        let Some(origin) = Origin::parse(&origin) else {
            return Err(DataError::Corrupt(format!("a scope named {origin:?}")));
        };
        if snapshot.is_none() && journal.is_empty() {
            // Never crawled: nothing to export.
            continue;
        }
        let g = ScopeGraph::recover(snapshot.as_deref(), &journal)?;
        let limits = ScopeLimits {
            max_level: g.level_limit(),
            max_pages: 0,
        };
        dm.adopt(g);
        if let Some((id, _)) = dm.open_scope(origin.clone(), SiteId::NONE, limits)? {
            scopes.push((id, origin));
        }
    }
    Ok((dm, scopes))
}

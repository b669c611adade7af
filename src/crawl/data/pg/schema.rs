//! The crawl's tables and their versions. A process that finds an older schema brings it up
//! to date (under an advisory lock, so processes starting together migrate once); a newer one
//! than it knows is an error, not a guess.
//!
//! - `rccrawler_crawls`: one row per crawl (`CrawlName`) with the seeds of its hosts.txt.
//! - `rccrawler_scopes`: one row per scope — its seed origin, state (`queued`, `active`,
//!   `done`, `stopped`, `removed`), the process that holds it and until when (its lease),
//!   when its last snapshot was taken, figures for `rccrawler status`, and the results
//!   folder its files were last written to with its summary.csv row there.
//! - `rccrawler_snapshots`: each scope's last snapshot.
//! - `rccrawler_journal`: what was committed since a scope's snapshot, in order; each batch
//!   named so that a batch sent again after a lost connection is not recorded twice.
//! - The graph tables of finished scopes, for SQL: `rccrawler_pages`, `rccrawler_arcs` (a
//!   view over `rccrawler_page_arcs`, one row per page with its arcs as arrays: targets,
//!   weights, nofollow links),
//!   `rccrawler_external_links`, `rccrawler_bad_links`, `rccrawler_duplicates`,
//!   `rccrawler_yields` — the same rows as the result files. Their rows go with their scope's
//!   (a trigger, not a foreign key: see version 4).

use postgres::Client;

use super::db::{Db, PgError};

/// The schema versions, each the statements that take the previous one to it.
pub(crate) const MIGRATIONS: &[&str] = &[
    // 1: scopes, their leases and saved state.
    "CREATE TABLE rccrawler_crawls (
        name text PRIMARY KEY,
        seeds text NOT NULL,
        created timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE rccrawler_scopes (
        id bigserial PRIMARY KEY,
        crawl text NOT NULL REFERENCES rccrawler_crawls(name) ON DELETE CASCADE,
        origin text NOT NULL,
        state text NOT NULL DEFAULT 'queued',
        owner text,
        lease_until timestamptz,
        snapshot bytea,
        checkpoint_at timestamptz,
        pages bigint NOT NULL DEFAULT 0,
        pending bigint NOT NULL DEFAULT 0,
        UNIQUE (crawl, origin)
    );
    CREATE TABLE rccrawler_journal (
        id bigserial PRIMARY KEY,
        scope bigint NOT NULL REFERENCES rccrawler_scopes(id) ON DELETE CASCADE,
        batch text NOT NULL,
        data bytea NOT NULL,
        UNIQUE (scope, batch)
    );",
    // 2: fetch counts and the graph tables of finished scopes.
    "ALTER TABLE rccrawler_scopes
        ADD COLUMN fetched bigint NOT NULL DEFAULT 0,
        ADD COLUMN finished_at timestamptz,
        ADD COLUMN last_save text;
    -- PageBudget of the whole crawl, and what each live process has reserved of it and not
    -- yet recorded as fetches of its scopes.
    ALTER TABLE rccrawler_crawls ADD COLUMN budget bigint NOT NULL DEFAULT 0;
    CREATE TABLE rccrawler_processes (
        crawl text NOT NULL REFERENCES rccrawler_crawls(name) ON DELETE CASCADE,
        owner text NOT NULL,
        reserved bigint NOT NULL DEFAULT 0,
        lease_until timestamptz NOT NULL,
        PRIMARY KEY (crawl, owner)
    );
    CREATE TABLE rccrawler_pages (
        scope bigint NOT NULL REFERENCES rccrawler_scopes(id) ON DELETE CASCADE,
        id integer NOT NULL,
        url text NOT NULL,
        level integer NOT NULL,
        host text NOT NULL,
        title text NOT NULL,
        out_degree integer NOT NULL,
        external_links integer NOT NULL,
        bytes bigint NOT NULL,
        content_hash text NOT NULL,
        canonical text NOT NULL,
        PRIMARY KEY (scope, id)
    );
    CREATE TABLE rccrawler_page_arcs (
        scope bigint NOT NULL REFERENCES rccrawler_scopes(id) ON DELETE CASCADE,
        source integer NOT NULL,
        targets integer[] NOT NULL,
        weights integer[] NOT NULL,
        PRIMARY KEY (scope, source)
    );
    CREATE VIEW rccrawler_arcs AS
        SELECT scope, source, t.target, t.weight
        FROM rccrawler_page_arcs, unnest(targets, weights) AS t(target, weight);
    CREATE TABLE rccrawler_external_links (
        scope bigint NOT NULL REFERENCES rccrawler_scopes(id) ON DELETE CASCADE,
        source integer NOT NULL,
        url text NOT NULL,
        host text NOT NULL,
        anchor text NOT NULL,
        context text NOT NULL
    );
    CREATE TABLE rccrawler_bad_links (
        scope bigint NOT NULL REFERENCES rccrawler_scopes(id) ON DELETE CASCADE,
        source integer,
        url text NOT NULL,
        reason text NOT NULL
    );
    CREATE TABLE rccrawler_duplicates (
        scope bigint NOT NULL REFERENCES rccrawler_scopes(id) ON DELETE CASCADE,
        url text NOT NULL,
        id integer NOT NULL,
        reason text NOT NULL
    );
    CREATE TABLE rccrawler_yields (
        scope bigint NOT NULL REFERENCES rccrawler_scopes(id) ON DELETE CASCADE,
        seq integer NOT NULL,
        page text NOT NULL,
        level integer NOT NULL,
        external_links integer NOT NULL,
        reward integer NOT NULL
    );
    -- Snapshots in a table of their own, so that one is saved beside the graph tables
    -- without waiting for a lock on the scope's row. They and journal batches are compact
    -- binary already: compressing them again (TOAST's default) cost the server more time
    -- than the crawl's last seconds.
    CREATE TABLE rccrawler_snapshots (
        scope bigint PRIMARY KEY REFERENCES rccrawler_scopes(id) ON DELETE CASCADE,
        data bytea NOT NULL
    );
    ALTER TABLE rccrawler_snapshots ALTER COLUMN data SET STORAGE EXTERNAL;
    INSERT INTO rccrawler_snapshots (scope, data)
        SELECT id, snapshot FROM rccrawler_scopes WHERE snapshot IS NOT NULL;
    ALTER TABLE rccrawler_scopes DROP COLUMN snapshot;
    ALTER TABLE rccrawler_journal ALTER COLUMN data SET STORAGE EXTERNAL;
    CREATE INDEX rccrawler_external_links_scope ON rccrawler_external_links (scope, source);",
    // 3: which results folder wrote a scope's files, and its summary.csv row there: a process
    // started again in that folder lists the sites its earlier runs wrote.
    "ALTER TABLE rccrawler_scopes ADD COLUMN written_to text, ADD COLUMN written_row bytea;",
    // 4 (issue 48): every graph table found by its scope. A settled scope's rows are
    // replaced (DELETE WHERE scope = ...) before they are written; without these indexes each
    // DELETE read the whole table, and on 1,000 small sites the yields table alone took 23 ms
    // a scope. And no foreign key on the graph tables: the server checked one per row written
    // (380,000 lookups, a sixth of its time, on those sites), for rows whose scope the same
    // transaction has just locked. A trigger keeps what the keys' ON DELETE CASCADE gave:
    // deleting a crawl, or a scope, deletes its graph rows (once per statement).
    "CREATE INDEX rccrawler_bad_links_scope ON rccrawler_bad_links (scope);
    CREATE INDEX rccrawler_duplicates_scope ON rccrawler_duplicates (scope);
    CREATE INDEX rccrawler_yields_scope ON rccrawler_yields (scope, seq);
    ALTER TABLE rccrawler_pages DROP CONSTRAINT rccrawler_pages_scope_fkey;
    ALTER TABLE rccrawler_page_arcs DROP CONSTRAINT rccrawler_page_arcs_scope_fkey;
    ALTER TABLE rccrawler_external_links DROP CONSTRAINT rccrawler_external_links_scope_fkey;
    ALTER TABLE rccrawler_bad_links DROP CONSTRAINT rccrawler_bad_links_scope_fkey;
    ALTER TABLE rccrawler_duplicates DROP CONSTRAINT rccrawler_duplicates_scope_fkey;
    ALTER TABLE rccrawler_yields DROP CONSTRAINT rccrawler_yields_scope_fkey;
    CREATE FUNCTION rccrawler_scopes_gone() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        DELETE FROM rccrawler_pages WHERE scope IN (SELECT id FROM gone);
        DELETE FROM rccrawler_page_arcs WHERE scope IN (SELECT id FROM gone);
        DELETE FROM rccrawler_external_links WHERE scope IN (SELECT id FROM gone);
        DELETE FROM rccrawler_bad_links WHERE scope IN (SELECT id FROM gone);
        DELETE FROM rccrawler_duplicates WHERE scope IN (SELECT id FROM gone);
        DELETE FROM rccrawler_yields WHERE scope IN (SELECT id FROM gone);
        RETURN NULL;
    END $$;
    CREATE TRIGGER rccrawler_scopes_gone AFTER DELETE ON rccrawler_scopes
        REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION rccrawler_scopes_gone();",
    // 5 (issue 53): what links and pages say about themselves — a page's robots directives,
    // each arc's nofollow links, each external link's rel qualifiers; and the state format
    // a crawl's scopes are saved in (format 6 before this version), so that a crawl saved by
    // another rccrawler is refused instead of misread.
    "ALTER TABLE rccrawler_pages ADD COLUMN robots text NOT NULL DEFAULT '';
    ALTER TABLE rccrawler_page_arcs ADD COLUMN nofollows integer[];
    UPDATE rccrawler_page_arcs SET nofollows = array_fill(0, ARRAY[cardinality(targets)]);
    ALTER TABLE rccrawler_page_arcs ALTER COLUMN nofollows SET NOT NULL;
    CREATE OR REPLACE VIEW rccrawler_arcs AS
        SELECT scope, source, t.target, t.weight, t.nofollow
        FROM rccrawler_page_arcs, unnest(targets, weights, nofollows) AS t(target, weight, nofollow);
    ALTER TABLE rccrawler_external_links ADD COLUMN rel text NOT NULL DEFAULT '';
    ALTER TABLE rccrawler_crawls ADD COLUMN state_format integer NOT NULL DEFAULT 6;",
    // 6 (issue 53): a page a sitemap listed and no link reaches (SitemapSeeds) has no level,
    // and each page says how it came into the graph.
    "ALTER TABLE rccrawler_pages ALTER COLUMN level DROP NOT NULL;
    ALTER TABLE rccrawler_pages ADD COLUMN source text NOT NULL DEFAULT 'link';",
    // 7 (issue 52): each page's text digest, what `rccrawler compare` tells a changed page by
    // (NULL: too little text).
    "ALTER TABLE rccrawler_pages ADD COLUMN text_hash text;",
    // 8 (issue 68): each page's in-degree, the distinct pages linking to it; the pages of
    // sites written before get theirs from the arcs.
    "ALTER TABLE rccrawler_pages ADD COLUMN in_degree integer NOT NULL DEFAULT 0;
    UPDATE rccrawler_pages p SET in_degree = c.n
        FROM (SELECT scope, target, count(*) AS n FROM rccrawler_arcs GROUP BY scope, target) c
        WHERE p.scope = c.scope AND p.id = c.target;",
];

/// The version this rccrawler writes.
pub const VERSION: i32 = MIGRATIONS.len() as i32;

/// Any number: the advisory lock processes take to migrate one at a time.
const MIGRATION_LOCK: i64 = 0x0072_6363_7261_776c;

/// Brings the schema to [`VERSION`]; returns the version found.
pub(crate) fn migrate(db: &mut Db) -> Result<i32, PgError> {
    let found = db.run("migrating the schema", &[("to version", &VERSION)], |c| {
        let mut tx = c.transaction()?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
        tx.batch_execute("CREATE TABLE IF NOT EXISTS rccrawler_schema (version integer NOT NULL)")?;
        let found: i32 = match tx.query_opt("SELECT version FROM rccrawler_schema", &[])? {
            Some(row) => row.get(0),
            None => {
                tx.execute("INSERT INTO rccrawler_schema VALUES (0)", &[])?;
                0
            }
        };
        if found < VERSION {
            for script in &MIGRATIONS[found.max(0) as usize..] {
                tx.batch_execute(script)?;
            }
            tx.execute("UPDATE rccrawler_schema SET version = $1", &[&VERSION])?;
        }
        tx.commit()?;
        Ok(found)
    })?;
    if found > VERSION {
        return Err(PgError::Schema(format!(
            "the database is at version {found}, newer than this rccrawler's {VERSION}: use a newer rccrawler"
        )));
    }
    Ok(found)
}

/// Applies the first `version` migrations to an empty database (tests of migration).
pub fn create_at_version(client: &mut Client, version: usize) -> Result<(), postgres::Error> {
    let mut tx = client.transaction()?;
    tx.batch_execute("CREATE TABLE rccrawler_schema (version integer NOT NULL)")?;
    for script in &MIGRATIONS[..version.min(MIGRATIONS.len())] {
        tx.batch_execute(script)?;
    }
    tx.execute(
        "INSERT INTO rccrawler_schema VALUES ($1)",
        &[&(version as i32)],
    )?;
    tx.commit()
}

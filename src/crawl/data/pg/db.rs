//! One connection to the crawl's PostgreSQL server, reconnected and retried when the
//! connection is lost: a server restart or a network cut of a few seconds costs a crawl
//! nothing. A query that the server refused (SQL errors) is not retried.

use std::str::FromStr;
use std::time::Duration;

use postgres::{Client, Config, NoTls};
use thiserror::Error;

pub(crate) use crate::crawl::settings::redact;

/// What went wrong with the database.
#[derive(Debug, Error)]
pub enum PgError {
    /// `DatabaseUrl` is not a PostgreSQL connection string.
    #[error("DatabaseUrl {url:?} is not a PostgreSQL URL: {source}")]
    BadUrl {
        /// The URL, its password hidden.
        url: String,
        /// Why.
        #[source]
        source: postgres::Error,
    },
    /// The server could not be reached or refused us.
    #[error("cannot connect to the database at {url}: {}", describe(source))]
    Connect {
        /// The URL, its password hidden.
        url: String,
        /// Why.
        #[source]
        source: postgres::Error,
    },
    /// A query failed (after the retries a lost connection gets).
    #[error("database: {what}: {}", describe(source))]
    Query {
        /// What we were doing.
        what: String,
        /// Why.
        #[source]
        source: postgres::Error,
    },
    /// The database holds a schema this rccrawler does not know.
    #[error("database schema: {0}")]
    Schema(String),
    /// Another process took a scope this one was crawling (its lease ran out).
    #[error("the lease on {0} was lost: another process continues it")]
    LeaseLost(String),
    /// Leases could not be renewed for longer than a lease lasts.
    #[error("leases could not be renewed for longer than LeaseSeconds: {0}")]
    Renewal(#[source] std::sync::Arc<PgError>),
    /// A finished scope could not be settled (its graph tables, its state).
    #[error("settling a finished scope: {0}")]
    Settle(#[source] std::sync::Arc<PgError>),
    /// A thread of the database's work could not be started.
    #[error("cannot start a database thread: {0}")]
    Thread(#[source] std::io::Error),
    /// A saved scope does not decode.
    #[error("saved scope {origin}: {source}")]
    Scope {
        /// Its seed.
        origin: String,
        /// What is wrong.
        #[source]
        source: Box<crate::crawl::data::DataError>,
    },
}

impl PgError {
    /// Whether settings.ini names a database that cannot be used (exit code 2), rather than one
    /// that failed under way.
    pub fn is_bad_setting(&self) -> bool {
        matches!(self, PgError::BadUrl { .. } | PgError::Connect { .. })
    }
}

impl From<PgError> for crate::crawl::data::BackendError {
    fn from(e: PgError) -> Self {
        let bad = e.is_bad_setting();
        crate::crawl::data::BackendError::new(e, bad)
    }
}

impl From<PgError> for crate::crawl::data::PersistError {
    fn from(e: PgError) -> Self {
        crate::crawl::data::PersistError::Backend(e.into())
    }
}

impl From<PgError> for crate::crawl::data::coord::CoordError {
    fn from(e: PgError) -> Self {
        crate::crawl::data::coord::CoordError::Backend(e.into())
    }
}

/// A database error as the server said it (`role "x" does not exist`, `database "y" does not
/// exist`, with its detail and hint), or as the client library says it (`error connecting to
/// server: Connection refused`): `postgres::Error` alone prints only "db error".
pub(crate) fn describe(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        let mut text = format!("{} ({})", db.message(), db.code().code());
        if let Some(detail) = db.detail() {
            text.push_str(&format!("; {detail}"));
        }
        if let Some(hint) = db.hint() {
            text.push_str(&format!("; hint: {hint}"));
        }
        return text;
    }
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text.push_str(&format!(": {more}"));
        }
        source = s.source();
    }
    text
}

/// `n` as the database's `bigint`: saturated at `i64::MAX`, never wrapped to a negative
/// number (a size grown past `i64::MAX` became `LIMIT -N`).
pub(crate) fn bigint<N: TryInto<i64>>(n: N) -> i64 {
    n.try_into().unwrap_or(i64::MAX)
}

/// The values a query sends, named, for the message of an error that is a bug of ours.
pub(crate) type Sent<'a> = &'a [(&'a str, &'a dyn std::fmt::Debug)];

/// How much of one value's text an error message shows.
const SHOWN_VALUE: usize = 200;

/// Whether a query's SQLSTATE says the query itself was wrong, not the server or the
/// connection: class 22 (data exception: a negative `LIMIT`, a value out of range) and 42
/// (syntax or access rule: a column that does not exist). The query is ours, so the values it
/// sent are what the next bug report needs.
pub(crate) fn our_bug(code: Option<&str>) -> bool {
    code.is_some_and(|c| c.starts_with("22") || c.starts_with("42"))
}

/// What a failed query was for, where, and (for [`our_bug`]) the values it sent, each cut to
/// [`SHOWN_VALUE`] characters.
fn purpose(what: &str, url: &str, sent: Sent<'_>, code: Option<&str>) -> String {
    let mut text = format!("{what} (at {url})");
    if our_bug(code) && !sent.is_empty() {
        let values: Vec<String> = sent
            .iter()
            .map(|(name, value)| {
                let shown = format!("{value:?}");
                match shown.char_indices().nth(SHOWN_VALUE) {
                    Some((cut, _)) => format!("{name} = {}…", &shown[..cut]),
                    None => format!("{name} = {shown}"),
                }
            })
            .collect();
        text.push_str(&format!(" with {}", values.join(", ")));
    }
    text
}

/// Attempts at a query whose connection fails, and the first pause (doubling each time):
/// 0.2 + 0.4 + 0.8 + 1.6 + 3.2 s, about six seconds of outage survived.
const ATTEMPTS: u32 = 6;
const FIRST_PAUSE: Duration = Duration::from_millis(200);

/// A connection that comes back.
pub(crate) struct Db {
    config: Config,
    url: String,
    client: Option<Client>,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db").field("url", &self.url).finish()
    }
}

/// Whether a failed query may pass when tried again on a new connection: the connection
/// broke, or the server is starting or stopping.
fn transient(e: &postgres::Error) -> bool {
    match e.code() {
        None => true,
        Some(code) => {
            let c = code.code();
            c.starts_with("08") || c.starts_with("57")
        }
    }
}

/// Whether the server rolled the transaction back for meeting another one (a deadlock, a
/// serialization failure): it had no effect, and passes when run again on the same
/// connection. Two processes' transactions can take the same rows in opposite orders (a seed
/// registration while another process settles its scopes): PostgreSQL then aborts one of them.
fn conflicted(e: &postgres::Error) -> bool {
    e.code()
        .is_some_and(|c| matches!(c.code(), "40P01" | "40001"))
}

impl Db {
    /// Parses `url` and connects.
    pub(crate) fn connect(url: &str) -> Result<Db, PgError> {
        let mut db = Self::connect_later(url)?;
        let client = db
            .config
            .connect(NoTls)
            .map_err(|source| PgError::Connect {
                url: db.url.clone(),
                source,
            })?;
        db.client = Some(client);
        Ok(db)
    }

    /// Parses `url`; connects on first use (retried as a lost connection is).
    pub(crate) fn connect_later(url: &str) -> Result<Db, PgError> {
        let shown = redact(url);
        let mut config = Config::from_str(url).map_err(|source| PgError::BadUrl {
            url: shown.clone(),
            source,
        })?;
        config.connect_timeout(Duration::from_secs(10));
        config.application_name("rccrawler");
        Ok(Db {
            config,
            url: shown,
            client: None,
        })
    }

    /// Runs `f` (one query, or one transaction: it must be all-or-nothing, since a lost
    /// connection runs it again), reconnecting and retrying while the connection fails.
    /// `what` says what the query is for and `sent` the values it sends, named: an error that
    /// is a bug of ours (see [`our_bug`]) shows them, so the next one is found from its
    /// message.
    pub(crate) fn run<T>(
        &mut self,
        what: &str,
        sent: Sent<'_>,
        mut f: impl FnMut(&mut Client) -> Result<T, postgres::Error>,
    ) -> Result<T, PgError> {
        let mut pause = FIRST_PAUSE;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let result = match self.client.as_mut().filter(|c| !c.is_closed()) {
                Some(client) => f(client),
                None => match self.config.connect(NoTls) {
                    Ok(client) => f(self.client.insert(client)),
                    Err(e) => Err(e),
                },
            };
            match result {
                Ok(v) => return Ok(v),
                Err(e) if transient(&e) && attempt < ATTEMPTS => {
                    self.client = None;
                    std::thread::sleep(pause);
                    pause *= 2;
                }
                Err(e) if conflicted(&e) && attempt < ATTEMPTS => {
                    // The other transaction goes on meanwhile; a pause apart from its own
                    // retry (the pid differs between processes) keeps them from meeting again.
                    let spread = u64::from(std::process::id() % 7) * 10;
                    std::thread::sleep(pause / 4 + Duration::from_millis(spread));
                    pause *= 2;
                }
                Err(source) => {
                    if transient(&source) {
                        self.client = None;
                    }
                    let code = source.code().map(|c| c.code());
                    return Err(PgError::Query {
                        what: purpose(what, &self.url, sent, code),
                        source,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_never_shown() {
        assert_eq!(
            redact("postgres://crawler:s3cret@db.example:5432/crawl"),
            "postgres://crawler:***@db.example:5432/crawl"
        );
        assert_eq!(
            redact("host=db user=crawler password=s3cret dbname=crawl"),
            "host=db user=crawler password=*** dbname=crawl"
        );
        assert_eq!(redact("postgres://db/crawl"), "postgres://db/crawl");
    }

    // See: issue 44 — "LIMIT must not be negative" named neither the query nor the limit.
    #[test]
    fn an_error_of_ours_names_the_values_sent_and_a_server_error_does_not() {
        let limit: i64 = -4;
        let origins: Vec<String> = (0..100).map(|i| format!("http://s{i}.test")).collect();
        let sent: Sent<'_> = &[
            ("crawl", &"shared"),
            ("limit", &limit),
            ("origins", &origins),
        ];
        let bug = purpose("looking for scopes", "postgres://db/c", sent, Some("2201W"));
        assert!(
            bug.starts_with("looking for scopes (at postgres://db/c) with crawl = \"shared\", limit = -4, origins = [\"http://s0.test\""),
            "{bug}"
        );
        assert!(
            bug.ends_with('…') && bug.len() < 400,
            "a long value is cut: {bug}"
        );
        let syntax = purpose("reading", "u", &[("crawl", &"c")], Some("42703"));
        assert!(syntax.ends_with("with crawl = \"c\""), "{syntax}");
        for code in [Some("08006"), Some("57P01"), Some("23505"), None] {
            assert_eq!(
                purpose("reading", "u", sent, code),
                "reading (at u)",
                "{code:?}"
            );
        }
    }

    #[test]
    fn a_url_that_is_not_one_is_an_error_naming_it() {
        let e = Db::connect("postgres://crawler:pw@[bad").unwrap_err();
        assert!(matches!(e, PgError::BadUrl { .. }), "{e}");
        assert!(!e.to_string().contains("pw@"), "{e}");
    }
}

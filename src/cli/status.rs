//! `rccrawler status`: the state of a PgDM crawl from its database, as a table or as the live
//! status page (`--serve`) that a crawling process serves with `StatusAddress`.

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;

use super::{Exit, database_failure, load_database_settings};
use crate::data::pg;
use crate::routine::status_page::{StatusPage, database_snapshot};
use crate::settings::Settings;

/// Where `--serve` listens without an address or a `StatusAddress`.
const DEFAULT_ADDRESS: &str = "127.0.0.1:8765";
/// How often the database is read for the page.
const POLL: Duration = Duration::from_secs(2);

/// `rccrawler status`: every scope of the `PgDM` crawl settings.ini names; with `serve`, the
/// live status page of that crawl at `serve` (empty: settings.ini's `StatusAddress`, or
/// 127.0.0.1:8765) until Ctrl+C.
pub fn status(settings_path: &Path, serve: Option<&str>, ctrl_c: Receiver<()>) -> Exit {
    let settings = match load_database_settings(settings_path) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if let Some(addr) = serve {
        return serve_page(&settings, addr, &ctrl_c);
    }
    let scopes = match pg::status(&settings) {
        Ok(s) => s,
        Err(e) => return database_failure(&e),
    };
    println!(
        "crawl {:?}: {} scopes, {} done",
        settings.database.crawl,
        scopes.len(),
        scopes
            .iter()
            .filter(|s| s.state == pg::ScopeState::Done)
            .count()
    );
    println!(
        "{:<40} {:<8} {:>7} {:>7} {:>7} {:>9}  {:<20} owner (lease left)",
        "scope", "state", "pages", "queued", "fetched", "journal", "last checkpoint"
    );
    let now = std::time::SystemTime::now();
    for s in &scopes {
        let checkpoint = s
            .checkpoint
            .and_then(|t| now.duration_since(t).ok())
            .map_or_else(|| "never".to_owned(), |d| format!("{} s ago", d.as_secs()));
        let owner = match (&s.owner, s.lease_left) {
            (Some(o), Some(left)) if left < 0.0 => format!("{o} (expired {:.0} s ago)", -left),
            (Some(o), Some(left)) => format!("{o} ({left:.0} s)"),
            (Some(o), None) => o.clone(),
            (None, _) => "-".to_owned(),
        };
        println!(
            "{:<40} {:<8} {:>7} {:>7} {:>7} {:>9}  {:<20} {owner}",
            s.origin, s.state, s.pages, s.pending, s.fetched, s.journal_batches, checkpoint
        );
    }
    Exit::Ok
}

/// Serves the status page of the crawl from its database until Ctrl+C.
fn serve_page(settings: &Settings, addr: &str, ctrl_c: &Receiver<()>) -> Exit {
    let addr: SocketAddr = match (addr.trim(), settings.logs.status_address) {
        ("", Some(a)) => a,
        ("", None) => match DEFAULT_ADDRESS.parse() {
            Ok(a) => a,
            Err(_) => return Exit::Failure,
        },
        (text, _) => match text.parse() {
            Ok(a) => a,
            Err(_) => {
                eprintln!("error: --serve {text:?}: not an address (IP:PORT, e.g. 127.0.0.1:8765)");
                return Exit::BadInput;
            }
        },
    };
    // The first look also checks the database before anything is served.
    let first = match pg::status(settings) {
        Ok(s) => s,
        Err(e) => return database_failure(&e),
    };
    let page = match StatusPage::bind(addr, &settings.results.folder) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: cannot serve the status page on {addr}: {e}");
            return Exit::BadInput;
        }
    };
    page.publish(database_snapshot(&first, 0.0));
    println!(
        "status page of crawl {:?}: {} (Ctrl+C to stop)",
        settings.database.crawl,
        page.url()
    );
    let pages = |scopes: &[pg::ScopeStatus]| scopes.iter().map(|s| s.pages).sum::<i64>();
    let mut last = (Instant::now(), pages(&first));
    std::thread::scope(|s| {
        s.spawn(|| page.serve());
        let exit = loop {
            if ctrl_c.recv_timeout(POLL).is_ok() {
                break Exit::Ok;
            }
            match pg::status(settings) {
                Ok(scopes) => {
                    let now = (Instant::now(), pages(&scopes));
                    let seconds = now.0.duration_since(last.0).as_secs_f64().max(1e-3);
                    let rate = (now.1 - last.1).max(0) as f64 / seconds;
                    page.publish(database_snapshot(&scopes, rate));
                    last = now;
                }
                // A database that went away is said on the page's next look, and here.
                Err(e) => eprintln!("warning: {e}"),
            }
        };
        page.stop();
        exit
    })
}

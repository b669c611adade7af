//! `rccrawler status`: the state of a PgDM crawl from its database, as a table or as the live
//! status page (`--serve`) that a crawling process serves with `StatusAddress`.

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;
use parking_lot::Mutex;

use super::columns::{self, Align};
use super::{Exit, database_failure, load_settings, needs_database};
use crate::crawl::data::pg;
use crate::crawl::live::status_page::{StatusPage, database_snapshot};
use crate::crawl::settings::Settings;
use crate::face::registry::Registry;

/// Where `--serve` listens without an address or a `StatusAddress`.
const DEFAULT_ADDRESS: &str = "127.0.0.1:8765";
/// The shortest span pages/s is measured over.
const RATE_SPAN: Duration = Duration::from_secs(1);

/// `rccrawler status`: every scope of the `PgDM` crawl settings.ini names; with `serve`, the
/// live status page of that crawl at `serve` (empty: settings.ini's `StatusAddress`, or
/// 127.0.0.1:8765) until Ctrl+C.
pub fn status(settings_path: &Path, serve: Option<&str>, ctrl_c: Receiver<()>) -> Exit {
    let settings = match load_settings(settings_path, &Registry::builtin()) {
        Ok(s) => s,
        Err(code) => return code,
    };
    // A crawl of one process: its live page while it runs, its summary.csv once it ended.
    if settings.components.data_manager != "PgDM" {
        return super::local_status::status(&settings, serve, &ctrl_c);
    }
    if let Err(code) = needs_database(settings_path, &settings) {
        return code;
    }
    if let Some(addr) = serve {
        return serve_page(&settings, addr, &ctrl_c);
    }
    let scopes = match pg::status(&settings) {
        Ok(s) => s,
        Err(e) => return database_failure(&e),
    };
    let spent = scopes.iter().filter(|s| s.budget_spent).count();
    println!(
        "crawl {:?}: {}, {} done{}",
        settings.database.crawl,
        crate::base::words::count(scopes.len() as u64, "scope"),
        scopes
            .iter()
            .filter(|s| s.state == pg::ScopeState::Done)
            .count(),
        if spent > 0 {
            format!(
                ", {spent} stopped by the spent page budget (a larger PageBudget continues them)"
            )
        } else {
            String::new()
        }
    );
    let now = std::time::SystemTime::now();
    let mut rows = Vec::with_capacity(scopes.len());
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
        rows.push(vec![
            s.origin.clone(),
            s.shown_state().to_string(),
            s.pages.to_string(),
            s.pending.to_string(),
            s.fetched.to_string(),
            s.journal_batches.to_string(),
            checkpoint,
            owner,
        ]);
    }
    let columns = [
        ("scope", Align::Left),
        ("state", Align::Left),
        ("pages", Align::Right),
        ("queued", Align::Right),
        ("fetched", Align::Right),
        ("journal", Align::Right),
        ("last checkpoint", Align::Left),
        ("owner (lease left)", Align::Left),
    ];
    for line in columns::lines(&columns, &rows) {
        println!("{line}");
    }
    Exit::Ok
}

/// Serves the status page of the crawl from its database until Ctrl+C.
fn serve_page(settings: &Settings, addr: &str, ctrl_c: &Receiver<()>) -> Exit {
    let Ok(fallback) = DEFAULT_ADDRESS.parse() else {
        return Exit::Failure;
    };
    let addr = match serve_address(settings, addr, fallback) {
        Ok(a) => a,
        Err(code) => return code,
    };
    // The first look also checks the database before anything is served.
    let first = match pg::status(settings) {
        Ok(s) => s,
        Err(e) => return database_failure(&e),
    };
    let pages = |scopes: &[pg::ScopeStatus]| scopes.iter().map(|s| s.pages).sum::<i64>();
    // The database is read when the page asks (a browser: every 2 s), so what it shows is
    // never older than the request; pages/s is taken over at least RATE_SPAN.
    let last = Mutex::new((Instant::now(), pages(&first), 0.0f64));
    let db = settings.clone();
    let read = move || match pg::status(&db) {
        Ok(scopes) => {
            let now = (Instant::now(), pages(&scopes));
            let mut last = last.lock();
            let seconds = now.0.duration_since(last.0).as_secs_f64();
            if seconds >= RATE_SPAN.as_secs_f64() {
                *last = (now.0, now.1, (now.1 - last.1).max(0) as f64 / seconds);
            }
            database_snapshot(&scopes, last.2)
        }
        // The page says the database does not answer; the console too.
        Err(e) => {
            eprintln!("warning: {e}");
            serde_json::json!({"state": format!("database not answering: {e}")})
        }
    };
    let what = format!("crawl {:?}", settings.database.crawl);
    serve(settings, addr, read, &what, ctrl_c)
}

/// The address `--serve [ADDR]` serves at: ADDR, else settings.ini's `StatusAddress`, else
/// `fallback`. `Err`: ADDR is no address (said on the console).
pub(super) fn serve_address(
    settings: &Settings,
    addr: &str,
    fallback: SocketAddr,
) -> Result<SocketAddr, Exit> {
    match (addr.trim(), settings.logs.status_address) {
        ("", Some(a)) => Ok(a),
        ("", None) => Ok(fallback),
        (text, _) => text.parse().map_err(|_| {
            eprintln!("error: --serve {text:?}: not an address (IP:PORT, e.g. 127.0.0.1:8765)");
            Exit::BadInput
        }),
    }
}

/// Serves a status page whose snapshot `read` makes at `addr`, saying where (the page of
/// `what`), until Ctrl+C (or SIGTERM).
pub(super) fn serve(
    settings: &Settings,
    addr: SocketAddr,
    read: impl Fn() -> serde_json::Value + Send + Sync + 'static,
    what: &str,
    ctrl_c: &Receiver<()>,
) -> Exit {
    let page = match StatusPage::bind(addr, &settings.results.folder) {
        Ok(p) => p.hiding_private(settings).read_with(read),
        Err(e) => {
            eprintln!("error: cannot serve the status page on {addr}: {e}");
            return Exit::BadInput;
        }
    };
    println!("status page of {what}: {} (Ctrl+C to stop)", page.url());
    std::thread::scope(|s| {
        s.spawn(|| page.serve());
        let _ = ctrl_c.recv();
        page.stop();
    });
    Exit::Ok
}

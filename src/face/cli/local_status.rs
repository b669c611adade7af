//! `rccrawler status` for a crawl of one process (`BMICDM`): while it runs, what its live
//! page says (the page's address is in the results folder's [`LIVE_MARKER`] while the crawl
//! runs); once it has ended, its summary.csv. `--serve` keeps a page up over a crawl that has
//! ended — its finished sites with links to their files — until Ctrl+C.

use std::path::Path;
use std::time::Duration;

use crossbeam_channel::Receiver;
use serde_json::{Value, json};

use super::Exit;
use super::columns::{self, Align};
use crate::analysis::report::read_summary;
use crate::crawl::live::status_page::LIVE_MARKER;
use crate::crawl::settings::Settings;

/// How long the running crawl's page is given to answer.
const ASK_TIMEOUT: Duration = Duration::from_secs(3);

/// What the running crawl's page says, if a crawl runs in this folder and its page answers.
fn live_status(results: &Path) -> Option<(String, Value)> {
    let url = std::fs::read_to_string(results.join(LIVE_MARKER)).ok()?;
    let url = url.trim().to_owned();
    let agent = ureq::Agent::config_builder()
        .timeout_global(Some(ASK_TIMEOUT))
        .build()
        .new_agent();
    let body = agent
        .get(format!("{url}status.json"))
        .call()
        .ok()?
        .body_mut()
        .read_to_string()
        .ok()?;
    Some((url, serde_json::from_str(&body).ok()?))
}

/// `rccrawler status` (`serve`: `--serve`) for a crawl kept in `StateFolder`.
pub(super) fn status(settings: &Settings, serve: Option<&str>, ctrl_c: &Receiver<()>) -> Exit {
    let results = &settings.results.folder;
    if let Some((url, s)) = live_status(results) {
        if serve.is_some() {
            println!("the crawl is running and serves its page itself: {url}");
            return Exit::Ok;
        }
        print_live(&url, &s);
        return Exit::Ok;
    }
    let rows = match read_summary(&results.join("summary.csv")) {
        Ok(rows) => rows,
        Err(_) => {
            eprintln!(
                "no crawl has written results in {} yet (no summary.csv), and none is running there",
                results.display()
            );
            return Exit::NothingCrawled;
        }
    };
    match serve {
        Some(addr) => serve_ended(settings, addr, ctrl_c),
        None => {
            print_ended(results, &rows);
            Exit::Ok
        }
    }
}

/// The running crawl as its page says it: totals and the sites being crawled.
fn print_live(url: &str, s: &Value) {
    let left = s["time_left_seconds"]
        .as_f64()
        .map(|t| format!(", about {} left", crate::crawl::routine::short_duration(t)))
        .unwrap_or_default();
    println!(
        "crawling for {} s: {} pages, {} queued, {} pages/s, {} problems{left}; sites: {} crawling, {} written, {} waiting (live page: {url})",
        s["elapsed_seconds"],
        s["pages"],
        s["queued"],
        s["pages_per_second"],
        s["problems"],
        s["sites_crawling"],
        s["sites_written"],
        s["sites_waiting"]
    );
    let sites = s["sites"].as_array().cloned().unwrap_or_default();
    if sites.is_empty() {
        return;
    }
    let number =
        |v: &serde_json::Value| v.as_u64().map_or_else(|| "-".to_owned(), |n| n.to_string());
    let rows: Vec<Vec<String>> = sites
        .iter()
        .map(|site| {
            let left = site["time_left_seconds"]
                .as_f64()
                .map_or_else(|| "-".to_owned(), crate::crawl::routine::short_duration);
            let name = site["shown"].as_str().or(site["site"].as_str());
            vec![
                name.unwrap_or_default().to_owned(),
                number(&site["pages"]),
                number(&site["queued"]),
                left,
            ]
        })
        .collect();
    let columns = [
        ("site", Align::Left),
        ("pages", Align::Right),
        ("queued", Align::Right),
        ("time left", Align::Left),
    ];
    for line in columns::lines(&columns, &rows) {
        println!("{line}");
    }
}

/// A crawl that has ended, as its summary.csv says.
fn print_ended(results: &Path, rows: &[crate::analysis::report::SummaryRow]) {
    let pages: u64 = rows.iter().map(|r| r.pages).sum();
    let open = rows.iter().filter(|r| r.state == "stopped").count();
    println!(
        "not running; {} in {}: {}{}",
        crate::base::words::count(rows.len() as u64, "site"),
        results.join("summary.csv").display(),
        crate::base::words::count(pages, "page"),
        if open > 0 {
            format!(", {open} stopped (running rccrawler again continues them)")
        } else {
            String::new()
        }
    );
    let table: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                crate::base::words::shown_origin(&r.site).into_owned(),
                r.pages.to_string(),
                r.arcs.to_string(),
                r.state.clone(),
            ]
        })
        .collect();
    let columns = [
        ("site", Align::Left),
        ("pages", Align::Right),
        ("arcs", Align::Right),
        ("state", Align::Left),
    ];
    for line in columns::lines(&columns, &table) {
        println!("{line}");
    }
}

/// `addr` (`None`: a loopback address) with a port the system picks when it is 0, picked now:
/// `rccrawler --serve` serves the page after the crawl where the crawl's page was.
pub(super) fn fixed_address(
    addr: Option<std::net::SocketAddr>,
) -> std::io::Result<std::net::SocketAddr> {
    let addr = addr.unwrap_or_else(|| std::net::SocketAddr::from(([127, 0, 0, 1], 0)));
    if addr.port() != 0 {
        return Ok(addr);
    }
    std::net::TcpListener::bind(addr)?.local_addr()
}

/// Serves the page of a crawl that has ended (its finished sites from summary.csv, with links
/// to their files) until Ctrl+C.
pub(super) fn serve_ended(settings: &Settings, addr: &str, ctrl_c: &Receiver<()>) -> Exit {
    let any_free = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    let addr = match super::status::serve_address(settings, addr, any_free) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let results = settings.results.folder.clone();
    let read = move || {
        let rows = read_summary(&results.join("summary.csv")).unwrap_or_default();
        let stopped = rows.iter().any(|r| r.state == "stopped");
        json!({
            "state": if stopped { "stopped" } else { "finished" },
            "pages": rows.iter().map(|r| r.pages).sum::<u64>(),
            "queued": 0,
            "pages_per_second": 0,
            "sites_crawling": 0,
            "sites_written": rows.len(),
            "sites_waiting": 0,
            "sites": [],
        })
    };
    let what = format!("the crawl in {}", settings.results.folder.display());
    super::status::serve(settings, addr, read, &what, ctrl_c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `rccrawler --serve` with `StatusAddress` empty or on port 0 serves, during and after
    /// the crawl, at one loopback port picked before it starts; a port given is kept.
    #[test]
    fn serve_picks_one_address_for_the_page_during_and_after_the_crawl() {
        let picked = fixed_address(None).expect("a free loopback port");
        assert!(picked.ip().is_loopback() && picked.port() != 0, "{picked}");
        let any = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
        assert_ne!(fixed_address(Some(any)).expect("a free port").port(), 0);
        let given = std::net::SocketAddr::from(([127, 0, 0, 1], 8765));
        assert_eq!(fixed_address(Some(given)).expect("kept"), given);
    }
}

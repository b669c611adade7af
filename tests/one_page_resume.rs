//! One page, one node across stops, kills and DataManagers (SPEC §14, issue 47): the mixed
//! fixture site (`common::dynweb`) crawled in one go, stopped and continued, killed with
//! SIGKILL and continued, and shared through PostgreSQL with a kill in the middle — each
//! ends with the same nodes, the same folded URLs with the same reasons and the same soft 404s,
//! and what the site was learned to change per response is not learned again (its home page
//! is fetched twice in all, not twice per run).
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::dynweb::DynSite;
use common::{SiteFiles, TestWeb, prepare, run_in};
use pretty_assertions::assert_eq;

const HOST: &str = "new.test";

/// What a person checks of a crawled fixture site: node paths, alias path → reason, bad link
/// path → reason.
type Graph = (
    BTreeSet<String>,
    BTreeMap<String, String>,
    BTreeMap<String, String>,
);

fn graph(results: &Path, web: &TestWeb) -> Graph {
    let origin = web.origin(HOST);
    let files = SiteFiles::read(&results.join(format!("{HOST}_{}", web.port())));
    files.assert_levels_are_bfs_depths();
    let path = |u: &str| u.strip_prefix(&origin).unwrap_or(u).to_owned();
    (
        files.nodes.iter().map(|(_, l, _)| path(l)).collect(),
        files
            .duplicates
            .iter()
            .map(|(u, _, r)| (path(u), r.clone()))
            .collect(),
        files
            .bad
            .iter()
            .map(|(_, u, r)| (path(u), r.clone()))
            .collect(),
    )
}

fn fixture() -> (TestWeb, String) {
    let web = TestWeb::new();
    DynSite::mixed().install(&web, HOST);
    let origin = web.origin(HOST);
    (web, origin)
}

/// The graph of an uninterrupted crawl, on a web of its own.
fn reference() -> Graph {
    let (web, origin) = fixture();
    let dir = prepare(std::slice::from_ref(&origin), &[]);
    run_in(dir.path());
    let g = graph(&dir.path().join("results"), &web);
    assert_eq!(g.0.len(), DynSite::mixed().true_pages().len(), "{g:?}");
    g
}

fn home_requests(web: &TestWeb) -> usize {
    web.server
        .requests()
        .iter()
        .filter(|r| r.host == HOST && r.target == "/")
        .count()
}

/// Waits (bounded) until the server has answered `n` requests of the fixture host.
fn wait_for_requests(web: &TestWeb, n: usize) {
    for _ in 0..2000 {
        let seen = web
            .server
            .requests()
            .iter()
            .filter(|r| r.host == HOST)
            .count();
        if seen >= n {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("the server never answered {n} requests");
}

fn start(dir: &Path) -> Child {
    let out = std::fs::File::create(dir.join("stdout.txt")).unwrap();
    let err = std::fs::File::create(dir.join("stderr.txt")).unwrap();
    Command::new(env!("CARGO_BIN_EXE_rccrawler"))
        .current_dir(dir)
        .stdout(out)
        .stderr(err)
        .stdin(Stdio::null())
        .spawn()
        .unwrap()
}

fn run_to_end(dir: &Path) {
    let mut child = start(dir);
    let status = common::wait_exit(&mut child, Duration::from_secs(120), || {
        std::fs::read_to_string(dir.join("stderr.txt")).unwrap_or_default()
    });
    assert!(status.success(), "{status:?}");
}

/// Starts the binary, kills it with SIGKILL once the server has answered `after` requests,
/// then runs it to the end.
fn kill_then_continue(web: &TestWeb, dir: &Path, after: usize) {
    let mut child = start(dir);
    wait_for_requests(web, after);
    child.kill().unwrap();
    child.wait().unwrap();
    run_to_end(dir);
}

#[test]
fn a_stopped_crawl_continues_with_what_it_learned() {
    let expected = reference();
    let (web, origin) = fixture();
    let dir = prepare(
        std::slice::from_ref(&origin),
        &[("DefaultCrawlDelay", "60")],
    );
    let stop = dir.path().join("stop.txt");
    let first = std::thread::scope(|s| {
        s.spawn(|| {
            wait_for_requests(&web, 16);
            std::fs::write(&stop, "").unwrap();
        });
        run_in(dir.path())
    });
    assert!(!first.reason.is_complete(), "{:?}", first.reason);
    std::fs::remove_file(&stop).unwrap();
    let second = run_in(dir.path());
    assert!(second.reason.is_complete(), "{:?}", second.reason);
    assert_eq!(graph(&dir.path().join("results"), &web), expected);
    // The home page's second copy taught the rules once; the continued run digests with them.
    assert_eq!(home_requests(&web), 2);
}

#[test]
fn a_killed_crawl_ends_with_one_node_per_page() {
    let expected = reference();
    let (web, origin) = fixture();
    let dir = prepare(
        std::slice::from_ref(&origin),
        &[("DefaultCrawlDelay", "60")],
    );
    kill_then_continue(&web, dir.path(), 20);
    assert_eq!(graph(&dir.path().join("results"), &web), expected);
    // What was journaled before the kill is not fetched again: at most the home page's
    // two copies and one more if the kill came before its record was flushed.
    assert!(home_requests(&web) <= 3, "{}", home_requests(&web));
}

#[test]
fn a_shared_crawl_through_postgresql_folds_the_same_after_a_kill() {
    let Some(db) = common::pg::server("a_shared_crawl_through_postgresql_folds_the_same") else {
        return;
    };
    let expected = reference();
    let (web, origin) = fixture();
    let dir = prepare(
        std::slice::from_ref(&origin),
        &[
            ("DataManager", "PgDM"),
            ("DatabaseUrl", db.url.as_str()),
            ("CrawlName", "fold"),
            ("DefaultCrawlDelay", "60"),
            ("LeaseSeconds", "2"),
        ],
    );
    kill_then_continue(&web, dir.path(), 20);
    assert_eq!(graph(&dir.path().join("results"), &web), expected);
}

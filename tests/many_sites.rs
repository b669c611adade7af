//! Crawls of many sites (SPEC §11): a window of active scopes, each scope written and released
//! as soon as its work is over, summary.csv rewritten as sites finish — and the graphs exactly
//! those of a crawl that keeps every site in memory, through kill -9 and `export` too.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use common::webgen::{self, WebSpec};
use common::{ResultBytes, TestWeb, result_bytes};

const SITES: [&str; 6] = [
    "s01.test", "s02.test", "s03.test", "s04.test", "s05.test", "s06.test",
];

/// Generated sites of `pages` pages, every answer delayed `delay`.
fn sites(hosts: &[&'static str], pages: u64, delay: Duration) -> TestWeb {
    let web = TestWeb::new();
    for (i, host) in hosts.iter().enumerate() {
        webgen::install(
            &web,
            WebSpec {
                host,
                pages,
                seed: 300 + i as u64,
                delay,
                slow: Vec::new(),
            },
        );
    }
    web
}

fn lines(web: &TestWeb, hosts: &[&str]) -> Vec<String> {
    hosts
        .iter()
        .map(|h| format!("{};2;100;0", web.origin(h)))
        .collect()
}

/// Compares result files, naming the first that differs (the bytes are too long to print).
fn assert_same_files(got: &ResultBytes, want: &ResultBytes, what: &str) {
    for ((name, g), (_, w)) in got.iter().zip(want) {
        assert!(
            g == w,
            "{what}: {name} differs ({} vs {} lines)",
            String::from_utf8_lossy(g).lines().count(),
            String::from_utf8_lossy(w).lines().count()
        );
    }
}

fn folder(web: &TestWeb, host: &str) -> String {
    format!("{host}_{}", web.port())
}

/// summary.csv's columns that depend on what was crawled, not on timing (seconds spent, and
/// fetches: two URLs of one page fetched at once count twice).
fn summary_without_seconds(results: &Path) -> Vec<Vec<String>> {
    let (header, rows) = common::read_csv(&results.join("summary.csv"));
    let timed = ["Seconds", "Fetched", "Reward", "TLP"];
    rows.into_iter()
        .map(|r| {
            r.into_iter()
                .zip(&header)
                .filter(|(_, h)| !timed.contains(&h.as_str()))
                .map(|(v, _)| v)
                .collect()
        })
        .collect()
}

#[test]
fn the_window_of_active_scopes_changes_no_graph_and_no_summary_row() {
    let web = sites(&SITES, 80, Duration::ZERO);
    let hosts = lines(&web, &SITES);
    let everything = common::crawl(&hosts, &[("ActiveScopes", "6")]);
    for (i, host) in SITES.iter().enumerate() {
        let files = everything.site(&folder(&web, host));
        webgen::assert_matches_model(&files, &web.origin(host), 80, 300 + i as u64, 100);
    }
    let want: Vec<ResultBytes> = SITES
        .iter()
        .map(|h| result_bytes(&everything.results().join(folder(&web, h))))
        .collect();
    let want_summary = summary_without_seconds(&everything.results());
    assert_eq!(want_summary.len(), SITES.len());
    // `ScopesInMemory = 1`: every open site with nothing in flight is parked after each commit
    // and thawed for its next task, under the default threads.
    for (window, in_memory) in [("1", "0"), ("2", "0"), ("0", "0"), ("0", "1")] {
        let c = common::crawl(
            &hosts,
            &[("ActiveScopes", window), ("ScopesInMemory", in_memory)],
        );
        for (host, want) in SITES.iter().zip(&want) {
            assert_same_files(
                &result_bytes(&c.results().join(folder(&web, host))),
                want,
                &format!("{host} with ActiveScopes = {window}, ScopesInMemory = {in_memory}"),
            );
        }
        assert_eq!(
            summary_without_seconds(&c.results()),
            want_summary,
            "summary.csv with ActiveScopes = {window}, ScopesInMemory = {in_memory}: every site, in hosts.txt order"
        );
        let listed: Vec<&str> = c.report.sites.iter().map(|s| s.site.as_str()).collect();
        let origins: Vec<String> = SITES.iter().map(|h| web.origin(h)).collect();
        assert_eq!(
            listed, origins,
            "the report lists the sites in hosts.txt order"
        );
    }
}

/// `Resolve = *.test:…` maps generated host names nobody listed one by one (a million sites
/// need one entry): the crawl's files are those of the crawl with an entry per host.
#[test]
fn one_wildcard_entry_resolves_every_generated_host() {
    const GENERATED: [&str; 3] = ["s1-t0.test", "s999999-t3.test", "x.s2-t1.test"];
    let web = sites(&GENERATED, 12, Duration::ZERO);
    let hosts = lines(&web, &GENERATED);
    let listed: Vec<String> = GENERATED.iter().map(|h| format!("{h}:127.0.0.1")).collect();
    let listed = common::crawl(&hosts, &[("Resolve", &listed.join(","))]);
    let wildcard = common::crawl(&hosts, &[("Resolve", "*.test:127.0.0.1")]);
    for host in GENERATED {
        let files = result_bytes(&wildcard.results().join(folder(&web, host)));
        assert!(!files.is_empty(), "{host}");
        assert_same_files(
            &files,
            &result_bytes(&listed.results().join(folder(&web, host))),
            &format!("{host} through *.test"),
        );
    }
}

fn start(dir: &Path, run: usize, args: &[&str]) -> Child {
    let out = std::fs::File::create(dir.join(format!("stdout-{run}.txt"))).unwrap();
    let err = std::fs::File::create(dir.join(format!("stderr-{run}.txt"))).unwrap();
    Command::new(env!("CARGO_BIN_EXE_rccrawler"))
        .args(args)
        .current_dir(dir)
        .stdout(out)
        .stderr(err)
        .stdin(Stdio::null())
        .spawn()
        .unwrap()
}

fn stderr(dir: &Path, run: usize) -> String {
    std::fs::read_to_string(dir.join(format!("stderr-{run}.txt"))).unwrap_or_default()
}

/// Polls `done` every few milliseconds for up to a minute.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < until, "waited a minute for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The summary.csv rows (site, state) as they are now (empty while it does not exist).
fn summary_states(results: &Path) -> Vec<(String, String)> {
    if !results.join("summary.csv").exists() {
        return Vec::new();
    }
    let (header, rows) = common::read_csv(&results.join("summary.csv"));
    let state = header.iter().position(|h| h == "State").unwrap();
    rows.into_iter()
        .map(|r| (r[0].clone(), r[state].clone()))
        .collect()
}

#[test]
fn a_finished_site_is_written_while_the_crawl_goes_on() {
    // s01 is small and fast; s02 answers slowly, so the crawl goes on for a few seconds.
    let web = TestWeb::new();
    for (host, pages, delay) in [("s01.test", 20, 0), ("s02.test", 30, 150)] {
        webgen::install(
            &web,
            WebSpec {
                host,
                pages,
                seed: 5,
                delay: Duration::from_millis(delay),
                slow: Vec::new(),
            },
        );
    }
    let hosts = lines(&web, &["s01.test", "s02.test"]);
    let dir = common::prepare(&hosts, &[("ProgressSeconds", "1")]);
    let mut child = start(dir.path(), 1, &[]);
    let results = dir.path().join("results");
    let first = results.join(folder(&web, "s01.test"));
    wait_until("s01's row in summary.csv", || {
        summary_states(&results) == [(web.origin("s01.test"), "done".to_owned())]
    });
    assert!(
        child.try_wait().unwrap().is_none(),
        "the crawl is still running: {}",
        stderr(dir.path(), 1)
    );
    let early = common::SiteFiles::read(&first);
    webgen::assert_matches_model(&early, &web.origin("s01.test"), 20, 5, 100);
    assert!(
        !results.join(folder(&web, "s02.test")).exists(),
        "s02 is not written before it finishes"
    );
    let status = common::wait_exit(&mut child, Duration::from_secs(60), || {
        stderr(dir.path(), 1)
    });
    assert!(status.success(), "{}", stderr(dir.path(), 1));
    assert_eq!(
        common::SiteFiles::read(&first),
        early,
        "s01 is not written again"
    );
    assert_eq!(
        summary_states(&results),
        [
            (web.origin("s01.test"), "done".to_owned()),
            (web.origin("s02.test"), "done".to_owned())
        ]
    );
    let err = stderr(dir.path(), 1);
    assert!(
        err.contains("sites: 1 crawling, 1 written, 0 waiting,"),
        "the progress line says where the sites are: {err}"
    );
    // A written site's pages still count in the total (its figures are kept as it leaves).
    let summary = std::fs::read_to_string(results.join("summary.csv")).unwrap();
    let s01_pages: u64 = summary
        .lines()
        .find(|l| l.contains("s01.test"))
        .and_then(|l| l.split(',').nth(2))
        .and_then(|p| p.parse().ok())
        .expect("s01's row");
    let shown: Vec<u64> = err
        .lines()
        .filter(|l| l.contains(", 1 written, "))
        .filter_map(|l| l.split("pages ").nth(1)?.split(',').next()?.parse().ok())
        .collect();
    assert!(!shown.is_empty(), "{err}");
    assert!(
        shown.iter().all(|&p| p >= s01_pages),
        "totals {shown:?} count s01's {s01_pages} pages: {err}"
    );
}

fn modified(path: &Path) -> SystemTime {
    std::fs::metadata(path).unwrap().modified().unwrap()
}

#[test]
fn killed_after_some_sites_were_written_the_crawl_ends_exact_without_redoing_them() {
    let hosts = ["s01.test", "s02.test", "s03.test"];
    let web = sites(&hosts, 300, Duration::from_millis(3));
    let reference = common::crawl(&lines(&web, &hosts), &[]);
    let dir = common::prepare(&lines(&web, &hosts), &[("ActiveScopes", "1")]);
    let results = dir.path().join("results");
    let first = results.join(folder(&web, "s01.test"));
    // One site at a time: killed once s01 is written (its row in summary.csv) and s02 has
    // begun.
    let mark = web.server.requests().len();
    let mut child = start(dir.path(), 1, &[]);
    wait_until("s01 written and s02 begun", || {
        !summary_states(&results).is_empty()
            && web.server.requests()[mark..]
                .iter()
                .filter(|r| r.host == "s02.test")
                .count()
                > 20
    });
    child.kill().unwrap();
    child.wait().unwrap();
    let written_at = modified(&first.join("nodes.csv"));
    // What the state keeps can be exported meanwhile: s01 whole.
    let mut export = start(dir.path(), 2, &["export", "--to", "exported", "s01.test"]);
    let status = common::wait_exit(&mut export, Duration::from_secs(60), || {
        stderr(dir.path(), 2)
    });
    assert!(status.success(), "{}", stderr(dir.path(), 2));
    let want = |host: &str| result_bytes(&reference.results().join(folder(&web, host)));
    assert_same_files(
        &result_bytes(&dir.path().join("exported").join(folder(&web, "s01.test"))),
        &want("s01.test"),
        "s01 exported",
    );
    // The next run does not fetch s01 again, nor write it again.
    let mark = web.server.requests().len();
    let mut child = start(dir.path(), 3, &[]);
    let status = common::wait_exit(&mut child, Duration::from_secs(60), || {
        stderr(dir.path(), 3)
    });
    assert!(status.success(), "{}", stderr(dir.path(), 3));
    let again = web.server.requests()[mark..]
        .iter()
        .filter(|r| r.host == "s01.test")
        .count();
    assert_eq!(again, 0, "requests to s01 after it was written");
    assert_eq!(modified(&first.join("nodes.csv")), written_at);
    for host in hosts {
        assert_same_files(
            &result_bytes(&results.join(folder(&web, host))),
            &want(host),
            host,
        );
    }
    assert_eq!(
        summary_without_seconds(&results),
        summary_without_seconds(&reference.results())
    );
}

#[test]
fn continued_with_a_smaller_window_saved_sites_beyond_it_are_crawled_not_removed() {
    // Four sites crawled at once and killed while all four are unfinished; the next run opens
    // one at a time (as an adaptive window does when it starts again small), so three saved
    // sites are still closed when the run begins. They are hosts.txt's sites all the same:
    // continued in their turn, not reported as removed. (500 pages of 5 ms on 2 connections:
    // a site takes over a second, the kill comes after about 40 requests and 250 ms.)
    let hosts = ["s01.test", "s02.test", "s03.test", "s04.test"];
    let web = sites(&hosts, 500, Duration::from_millis(5));
    let reference = common::crawl(&lines(&web, &hosts), &[]);
    let dir = common::prepare(&lines(&web, &hosts), &[("ActiveScopes", "4")]);
    let results = dir.path().join("results");
    let mark = web.server.requests().len();
    let mut child = start(dir.path(), 1, &[]);
    wait_until("every site begun", || {
        let seen = &web.server.requests()[mark..];
        hosts
            .iter()
            .all(|h| seen.iter().filter(|r| r.host == *h).count() > 40)
    });
    // The journal is flushed every 100 ms: what was fetched by now is saved.
    std::thread::sleep(Duration::from_millis(250));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        summary_states(&results).is_empty(),
        "no site finished before the kill: {:?}",
        summary_states(&results)
    );
    std::fs::write(
        dir.path().join("settings.ini"),
        common::settings_text(&[("ActiveScopes", "1")]),
    )
    .unwrap();
    let mut child = start(dir.path(), 2, &[]);
    let status = common::wait_exit(&mut child, Duration::from_secs(60), || {
        stderr(dir.path(), 2)
    });
    let err = stderr(dir.path(), 2);
    assert!(status.success(), "{err}");
    assert!(err.contains("continuing the crawl saved in state"), "{err}");
    assert!(!err.contains("no longer in hosts.txt"), "{err}");
    for host in hosts {
        assert_same_files(
            &result_bytes(&results.join(folder(&web, host))),
            &result_bytes(&reference.results().join(folder(&web, host))),
            host,
        );
    }
    assert_eq!(
        summary_without_seconds(&results),
        summary_without_seconds(&reference.results())
    );
}

#[test]
fn a_continued_crawls_rate_counts_only_its_own_fetches() {
    // Killed after some 150 requests; continued slowly (one request at a time, 200 ms apart)
    // for three seconds. The saved pages come back as the scope opens: they are in the total,
    // not in the rate of the progress line or of the status page. (How many pages were saved
    // is read from the continued run: requests also fetch robots.txt, redirects and copies.)
    let web = sites(&["s01.test"], 300, Duration::from_millis(5));
    let dir = common::prepare(&lines(&web, &["s01.test"]), &[("ProgressSeconds", "1")]);
    let mark = web.server.requests().len();
    let mut child = start(dir.path(), 1, &[]);
    wait_until("150 pages fetched", || {
        web.server.requests().len() - mark > 150
    });
    // The journal is flushed every 100 ms: what was fetched by now is saved.
    std::thread::sleep(Duration::from_millis(250));
    child.kill().unwrap();
    child.wait().unwrap();
    std::fs::write(
        dir.path().join("hosts.txt"),
        format!("{};1;100;200", web.origin("s01.test")),
    )
    .unwrap();
    let port = common::free_port();
    std::fs::write(
        dir.path().join("settings.ini"),
        common::settings_text(&[
            ("ProgressSeconds", "1"),
            ("TimeoutSeconds", "3"),
            ("StatusAddress", &format!("127.0.0.1:{port}")),
        ]),
    )
    .unwrap();
    let mut child = start(dir.path(), 2, &[]);
    let mut saved = 0u64;
    wait_until("the continued run's first line", || {
        saved = stderr(dir.path(), 2)
            .split("continuing the crawl saved in state: ")
            .nth(1)
            .and_then(|t| t.split(' ').next()?.parse().ok())
            .unwrap_or(0);
        saved > 0
    });
    // With the saved pages counted as fetched, the rate would be at least `saved` a second
    // on the first progress line and `saved` / 3 on the status page.
    assert!(saved >= 50, "{saved} pages saved");
    let mut status = serde_json::Value::Null;
    wait_until("the status page with the saved pages", || {
        if let Some((200, body)) = common::http_get(port, "/status.json") {
            status = serde_json::from_str(&body).unwrap();
        }
        status["pages"].as_u64().is_some_and(|p| p >= saved)
    });
    assert!(
        status["pages_per_second"].as_f64().unwrap() <= 10.0,
        "{status:#}"
    );
    common::wait_exit(&mut child, Duration::from_secs(60), || {
        stderr(dir.path(), 2)
    });
    let err = stderr(dir.path(), 2);
    let lines: Vec<(u64, f64)> = err
        .lines()
        .filter_map(|l| {
            let pages = l.split("pages ").nth(1)?.split(',').next()?.parse().ok()?;
            let rate = l.split(", ").find(|p| p.ends_with(" urls/s"))?;
            Some((pages, rate.trim_end_matches(" urls/s").parse().ok()?))
        })
        .collect();
    assert!(lines.len() >= 2, "progress lines: {err}");
    assert!(lines.iter().all(|&(pages, _)| pages >= saved), "{err}");
    assert!(
        lines.iter().all(|&(_, rate)| rate <= 10.0),
        "one request every 200 ms is at most 5 a second: {err}"
    );
}

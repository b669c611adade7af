//! Sites that need a cookie jar (SPEC §14, issue 47 case 7), through both downloaders: a
//! cookie wall is passed (and is a redirect loop with `Cookies = no`), a Java-style server
//! that writes `;jsessionid=` into links until its cookie comes back is crawled in one session
//! with one node per page, the common log names the cookies each answer set, and a stopped
//! crawl continues in the same session (the jar is saved with the state).
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;

use rccrawler::base::loopback::{Request, Resp, Route};

use common::cookie_sites::{JavaSite, UrlVisitSite, install_wall, wall_pages};
use common::{TestWeb, crawl, prepare, read_csv, run_in};

fn paths(files: &common::SiteFiles, origin: &str) -> BTreeSet<String> {
    files
        .nodes
        .iter()
        .map(|(_, l, _)| l.strip_prefix(origin).unwrap_or(l).to_owned())
        .collect()
}

/// The common log's rows as (url, status, set-cookie).
fn common_log(dir: &std::path::Path) -> Vec<(String, String, String)> {
    let (header, rows) = read_csv(&dir.join("logs/common_log.csv"));
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (u, s, c) = (col("Url"), col("Status"), col("SetCookie"));
    rows.iter()
        .map(|r| (r[u].clone(), r[s].clone(), r[c].clone()))
        .collect()
}

#[test]
fn a_cookie_wall_is_passed_with_the_jar_and_is_a_loop_without_it() {
    for downloader in ["DT0", "DT1"] {
        let web = TestWeb::new();
        install_wall(&web, "a.test");
        let origin = web.origin("a.test");
        let c = crawl(
            std::slice::from_ref(&origin),
            &[("DownloadingThread", downloader)],
        );
        let files = c.site(&format!("a.test_{}", web.port()));
        let expected: BTreeSet<String> = wall_pages().iter().map(|p| (*p).to_owned()).collect();
        assert_eq!(paths(&files, &origin), expected, "{downloader}");
        // The gate's hops are no addresses of a page.
        assert!(
            files
                .duplicates
                .iter()
                .all(|(u, _, _)| !u.contains("/check")),
            "{downloader}: {:?}",
            files.duplicates
        );
        let log = common_log(c.dir.path());
        let set: Vec<_> = log.iter().filter(|(_, _, c)| !c.is_empty()).collect();
        assert_eq!(
            set.len(),
            1,
            "{downloader}: the cookie is set once: {log:?}"
        );
        assert!(
            set[0].0.contains("/check?to=/") && set[0].2 == "wall",
            "{set:?}"
        );
        // Once through the wall, every page is one request.
        assert_eq!(log.len(), 1 + 3 + 4, "{downloader}: {log:?}");

        let off = crawl(
            std::slice::from_ref(&origin),
            &[("DownloadingThread", downloader), ("Cookies", "no")],
        );
        let files = off.site(&format!("a.test_{}", web.port()));
        assert!(files.nodes.is_empty(), "{downloader}: {:?}", files.nodes);
        let errors = std::fs::read_to_string(off.dir.path().join("logs/error_log.csv")).unwrap();
        assert!(errors.contains("redirect loop"), "{errors}");
        assert!(
            common_log(off.dir.path())
                .iter()
                .all(|(_, _, c)| c.is_empty()),
            "Cookies = no keeps none"
        );
    }
}

#[test]
fn a_session_site_is_crawled_in_one_session_one_node_per_page() {
    for downloader in ["DT0", "DT1"] {
        let web = TestWeb::new();
        let site = JavaSite::default();
        site.install(&web, "b.test");
        let origin = web.origin("b.test");
        let c = crawl(
            std::slice::from_ref(&origin),
            &[("DownloadingThread", downloader)],
        );
        let files = c.site(&format!("b.test_{}", web.port()));
        let pages: BTreeSet<String> = paths(&files, &origin)
            .iter()
            .map(|p| p.split(";jsessionid=").next().unwrap().to_owned())
            .collect();
        assert_eq!(files.nodes.len(), 21, "{downloader}: {:?}", files.nodes);
        assert_eq!(
            pages,
            JavaSite::pages().into_iter().collect(),
            "{downloader}"
        );
        assert_eq!(
            site.sessions(),
            1,
            "{downloader}: one session for the whole crawl"
        );
        // The home page's links carry the session; the plain menu links of the pages below
        // are the same pages — with the jar, the same bytes too (equal bytes keep the
        // paper's reason, so static sites' results do not change).
        let aliases: BTreeSet<(String, &str)> = files
            .duplicates
            .iter()
            .map(|(u, _, r)| (u.strip_prefix(&origin).unwrap_or(u).to_owned(), r.as_str()))
            .collect();
        let plain: BTreeSet<(String, &str)> = (1..=4)
            .map(|s| (format!("/s{s}"), "same content"))
            .collect();
        assert_eq!(aliases, plain, "{downloader}");
        files.assert_levels_are_bfs_depths();
        let requests = web.server.requests().len();
        // robots.txt, 21 pages, the 4 plain section URLs, and the second copies of the home
        // page and of the first page of levels 1 and 2 (its two copies differ: the first
        // carries the new session): not 500 pages of fresh sessions.
        let targets: Vec<String> = web
            .server
            .requests()
            .iter()
            .map(|r| r.target.clone())
            .collect();
        assert!(
            requests <= 1 + 21 + 4 + 3,
            "{downloader}: {requests} requests {targets:?}"
        );
    }
}

#[test]
fn a_stopped_crawl_continues_in_the_same_session() {
    let web = TestWeb::new();
    let site = JavaSite::default();
    site.install(&web, "b.test");
    let origin = web.origin("b.test");
    let dir = prepare(
        std::slice::from_ref(&origin),
        &[("DefaultCrawlDelay", "150")],
    );
    // The crawler is asked to stop once the server has answered six requests.
    let stop = dir.path().join("stop.txt");
    let first = std::thread::scope(|s| {
        s.spawn(|| {
            for _ in 0..1000 {
                if web.server.requests().len() >= 6 {
                    std::fs::write(&stop, "").unwrap();
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        });
        run_in(dir.path())
    });
    assert!(
        !first.reason.is_complete(),
        "the first run stops before the end: {:?}",
        first.reason
    );
    let fetched_first = web.server.requests().len();
    assert!(fetched_first < 1 + 21 + 4, "{fetched_first}");
    assert_eq!(site.sessions(), 1);
    std::fs::remove_file(dir.path().join("stop.txt")).ok();
    run_in(dir.path());
    assert_eq!(
        site.sessions(),
        1,
        "the continued crawl sends the saved session cookie"
    );
    let files = common::SiteFiles::read(
        &dir.path()
            .join("results")
            .join(format!("b.test_{}", web.port())),
    );
    assert_eq!(files.nodes.len(), 21, "{:?}", files.nodes);
}

#[test]
fn a_visit_kept_in_the_urls_is_detected_and_names_its_aliases() {
    let web = TestWeb::new();
    UrlVisitSite::default().install(&web, "c.test");
    let origin = web.origin("c.test");
    let c = crawl(std::slice::from_ref(&origin), &[]);
    let files = c.site(&format!("c.test_{}", web.port()));
    let pages: BTreeSet<String> = paths(&files, &origin)
        .iter()
        .map(|p| p.split('?').next().unwrap().to_owned())
        .collect();
    let expected: BTreeSet<String> = UrlVisitSite::pages()
        .iter()
        .map(|p| (*p).to_owned())
        .collect();
    assert_eq!(files.nodes.len(), 5, "{:?}", files.nodes);
    assert_eq!(pages, expected);
    // The home page under the visit's URL: its bytes differ (a nonce), the parameter is
    // named by what the home page's two copies showed.
    let home_alias: Vec<_> = files
        .duplicates
        .iter()
        .filter(|(u, _, _)| u.starts_with(&format!("{origin}/?visit=")))
        .collect();
    assert_eq!(home_alias.len(), 1, "{:?}", files.duplicates);
    assert_eq!(home_alias[0].2, "session id", "{:?}", files.duplicates);
}

/// A server that sets a thousand cookies in one answer (27 KB of head: more header lines than
/// the HTTP parser takes, far less than a head's byte bound): the page is crawled, not lost as
/// "too many headers" (issue 49, item 10), and the jar keeps the newest 50, as a browser's
/// bounded jar does (RFC 6265 §6.1, oldest first out: issue 63, item 3).
#[test]
fn a_thousand_cookies_in_one_answer_lose_nothing() {
    for downloader in ["DT0", "DT1"] {
        let web = TestWeb::new();
        web.server.route_prefix(
            "a.test",
            "/",
            Route::Generated(Arc::new(|req: &Request| match req.target.as_str() {
                "/" => {
                    let mut page = Resp::html(r#"<a href="/a">a</a>"#);
                    for i in 0..1000 {
                        page = page.header("Set-Cookie", &format!("c{i}=v{i}; Path=/"));
                    }
                    page
                }
                // The head is cut to the header lines the parser takes (fetch/head_fit.rs),
                // and of those cookies the jar keeps the newest 50.
                "/a" if req.header("cookie").is_some_and(|c| {
                    let sent = c.split(';').filter(|p| p.trim().starts_with('c')).count();
                    (40..=50).contains(&sent)
                }) =>
                {
                    Resp::html("<p>a, with the newest cookies</p>")
                }
                "/a" => Resp::new(403, "text/html", "no cookie"),
                _ => Resp::new(404, "text/plain", "none"),
            })),
        );
        let origin = web.origin("a.test");
        let c = crawl(
            std::slice::from_ref(&origin),
            &[("DownloadingThread", downloader)],
        );
        let files = c.site(&format!("a.test_{}", web.port()));
        let expected: BTreeSet<String> = ["/", "/a"].iter().map(|p| (*p).to_owned()).collect();
        assert_eq!(
            paths(&files, &origin),
            expected,
            "{downloader}: {:?}",
            files.bad
        );
        assert!(files.bad.is_empty(), "{downloader}: {:?}", files.bad);
    }
}

/// A site whose answers set cookies of `shape` (see [`cookie_heavy_site`]), as page paths.
fn crawled_paths(shape: Shape, downloader: &str, cookies: &str) -> (BTreeSet<String>, Vec<String>) {
    let web = TestWeb::new();
    cookie_heavy_site(&web, shape);
    let origin = web.origin("a.test");
    let c = crawl(
        std::slice::from_ref(&origin),
        &[("DownloadingThread", downloader), ("Cookies", cookies)],
    );
    let files = c.site(&format!("a.test_{}", web.port()));
    let bad = files.bad.iter().map(|b| format!("{b:?}")).collect();
    (paths(&files, &origin), bad)
}

/// The cookie-heavy sites of issue 63, item 3, and variants.
#[derive(Debug, Clone, Copy)]
enum Shape {
    /// The home page sets six cookies of 3.5 KB (what RFC 6265 §6.1 asks a client to keep):
    /// 21 KB of Cookie header sent back by a jar without bounds.
    SixLarge,
    /// The home page sets one cookie of 60 KB.
    OneHuge,
    /// Every page sets 100 new cookies: a binary tree of 300 pages.
    HundredPerPage,
    /// Every page sets 10 cookies of 2 KB under its own path and 10 for the whole site.
    PathsAndSizes,
}

/// Serves `shape` on a.test: every page is served whatever cookies come (a server that
/// refused them would be another question); robots.txt is 404.
fn cookie_heavy_site(web: &TestWeb, shape: Shape) {
    web.server.route_prefix(
        "a.test",
        "/",
        Route::Generated(Arc::new(move |req: &Request| {
            if req.target == "/robots.txt" {
                return Resp::new(404, "text/plain", "none");
            }
            let n: usize = match req.target.as_str() {
                "/" => 0,
                t => match t.strip_prefix("/p/").and_then(|n| n.parse().ok()) {
                    Some(n) => n,
                    None => return Resp::new(404, "text/plain", "none"),
                },
            };
            let (pages, set): (usize, Vec<String>) = match shape {
                Shape::SixLarge => (
                    5,
                    if n == 0 {
                        (0..6)
                            .map(|i| format!("big{i}={}; Path=/", "x".repeat(3500)))
                            .collect()
                    } else {
                        Vec::new()
                    },
                ),
                Shape::OneHuge => (
                    4,
                    if n == 0 {
                        vec![format!("huge={}; Path=/", "y".repeat(60_000))]
                    } else {
                        Vec::new()
                    },
                ),
                Shape::HundredPerPage => (
                    300,
                    (0..100)
                        .map(|i| format!("p{n}c{i}=value-{n}-{i}; Path=/"))
                        .collect(),
                ),
                Shape::PathsAndSizes => (
                    60,
                    (0..10)
                        .map(|i| format!("own{i}={}; Path=/p/{n}", "z".repeat(2000)))
                        .chain((0..10).map(|i| format!("all{n}x{i}={}; Path=/", "w".repeat(2000))))
                        .collect(),
                ),
            };
            if n >= pages {
                return Resp::new(404, "text/plain", "none");
            }
            // A tree: page n links 2n+1 and 2n+2 (the home page is 0).
            let links: String = [2 * n + 1, 2 * n + 2]
                .into_iter()
                .filter(|&k| k < pages)
                .map(|k| format!(r#"<a href="/p/{k}">page {k}</a> "#))
                .collect();
            let mut page = Resp::html(format!("<p>page {n}</p>{links}"));
            for c in &set {
                page = page.header("Set-Cookie", c);
            }
            page
        })),
    );
}

// See: issue 63 item 3 — a jar fed more than a browser keeps (cookies over 4 KB, more than
// fit a request's header, more than 50 a domain) never costs a page: each site is crawled
// whole, equal to `Cookies = no`, through both downloaders.
#[test]
fn cookie_heavy_sites_are_crawled_whole_with_the_jar_bounded() {
    for shape in [
        Shape::SixLarge,
        Shape::OneHuge,
        Shape::HundredPerPage,
        Shape::PathsAndSizes,
    ] {
        let (without, bad) = crawled_paths(shape, "DT1", "no");
        assert!(bad.is_empty(), "{shape:?} without cookies: {bad:?}");
        let pages = match shape {
            Shape::SixLarge => 5,
            Shape::OneHuge => 4,
            Shape::HundredPerPage => 300,
            Shape::PathsAndSizes => 60,
        };
        assert_eq!(without.len(), pages, "{shape:?}");
        for downloader in ["DT0", "DT1"] {
            let (with, bad) = crawled_paths(shape, downloader, "yes");
            assert!(bad.is_empty(), "{shape:?} {downloader}: {bad:?}");
            assert_eq!(with, without, "{shape:?} {downloader}");
        }
    }
}

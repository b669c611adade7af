//! The two DownloadingThreads: `DT0` (a blocking request per thread) and `DT1` (one event
//! loop driving every request, the default) must crawl to the same files and make the same
//! requests; what only one of them does by itself is checked for both.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::{TestWeb, crawl};
use rccrawler::loopback::{Resp, Route};

const PAGES: u64 = 300;
const SEED: u64 = 0x00d0_7e1e_c7ed_0001;

/// The requests a crawl logged: (URL, status) → how many times.
fn requests(dir: &std::path::Path) -> BTreeMap<(String, String), usize> {
    let (header, rows) = common::read_csv(&dir.join("logs/common_log.csv"));
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (url, status) = (col("Url"), col("Status"));
    let mut seen = BTreeMap::new();
    for row in rows {
        *seen
            .entry((row[url].clone(), row[status].clone()))
            .or_insert(0) += 1;
    }
    seen
}

#[test]
fn both_downloaders_write_identical_files_and_make_the_same_requests() {
    let web = TestWeb::new();
    common::webgen::install(
        &web,
        common::webgen::WebSpec {
            host: "a.test",
            pages: PAGES,
            seed: SEED,
            delay: Duration::ZERO,
            slow: vec![("/p/0.html", Duration::from_millis(150))],
        },
    );
    // A second site: a redirect, a compressed page, a chunked one, and a page bigger than
    // the cap.
    web.page(
        "b.test",
        "/",
        "<a href=/moved>m</a><a href=/gz.html>g</a><a href=/chunked.html>c</a>\
         <a href=/big.html>b</a>",
    );
    web.set("b.test", "/moved", Resp::redirect(301, "/gz.html"));
    web.set(
        "b.test",
        "/gz.html",
        Resp::html("<a href=/chunked.html>c</a> zipped".as_bytes().to_vec()).gzipped(),
    );
    web.set(
        "b.test",
        "/chunked.html",
        Resp::html("<a href=/>home</a> in chunks".as_bytes().to_vec()).chunked(),
    );
    web.set("b.test", "/big.html", Resp::html(vec![b'x'; 300_000]));
    let seeds = [
        format!("{};8;4;0", web.origin("a.test")),
        format!("{};2;4;0", web.origin("b.test")),
    ];
    let folders = ["a.test", "b.test"].map(|h| format!("{h}_{}", web.port()));
    let mut runs = Vec::new();
    for downloader in ["DT0", "DT1", "DT1"] {
        let run = crawl(
            &seeds,
            &[
                ("DownloadingThread", downloader),
                ("DownloadingThreadsCount", "16"),
                ("ParsingThreadsCount", "3"),
                ("MaxPageBytes", "200000"),
            ],
        );
        let mut files = Vec::new();
        for folder in &folders {
            common::SiteFiles::read(&run.results().join(folder)).assert_levels_are_bfs_depths();
            files.extend(common::result_bytes(&run.results().join(folder)));
        }
        runs.push((downloader, files, requests(run.dir.path())));
    }
    let (_, want_files, want_requests) = &runs[0];
    assert!(
        want_requests
            .keys()
            .any(|(u, s)| u.ends_with("/moved") && s == "301"),
        "the extra pages were crawled: {want_requests:?}"
    );
    for (name, files, reqs) in &runs[1..] {
        for ((file, want), (_, have)) in want_files.iter().zip(files) {
            assert!(want == have, "{name}: {file} differs from DT0's");
        }
        let differ: Vec<_> = want_requests
            .iter()
            .filter(|(k, n)| reqs.get(k) != Some(n))
            .chain(reqs.iter().filter(|(k, n)| want_requests.get(k) != Some(n)))
            .collect();
        assert!(
            differ.is_empty(),
            "{name}'s requests differ from DT0's: {differ:?}"
        );
    }
}

#[test]
fn dt1_sends_a_request_again_once_when_a_kept_connection_was_closed() {
    let web = TestWeb::new();
    web.page("a.test", "/", "<a href=/b.html>b</a><a href=/c.html>c</a>");
    web.page("a.test", "/c.html", "<p>c</p>");
    // The first request for /b.html comes on the connection that served robots.txt and the
    // home page; the server closes it instead of answering, as a server does that drops an
    // idle connection just as the next request arrives. The request is sent again on a fresh
    // connection, once, and is not a failure of the site. (DT0 leaves it to the engine: a
    // failed attempt logged, and the URL retried after a back-off.)
    let first = Arc::new(AtomicBool::new(true));
    let b = move |_: &rccrawler::loopback::Request, s: &mut std::net::TcpStream| {
        if first.swap(false, Ordering::SeqCst) {
            return s.shutdown(std::net::Shutdown::Both);
        }
        let body = "<p>b</p>";
        write!(
            s,
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    web.route("a.test", "/b.html", Route::Raw(Arc::new(b)));
    let site = format!("{};1;4;0", web.origin("a.test"));
    let run = crawl(
        &[site],
        &[
            ("DownloadingThread", "DT1"),
            ("DownloadingThreadsCount", "1"),
        ],
    );
    let files = common::SiteFiles::read(&run.results().join(format!("a.test_{}", web.port())));
    let labels: Vec<String> = files.labels().into_values().collect();
    assert!(
        labels.iter().any(|l| l.ends_with("/b.html")),
        "/b.html is a node: {labels:?}"
    );
    assert!(files.bad.is_empty(), "no bad links: {:?}", files.bad);
    assert_eq!(web.hits("a.test", "/b.html"), 2, "asked twice");
    // One request as far as the crawl knows: no failed attempt logged, no retry planned.
    let logged: Vec<_> = requests(run.dir.path())
        .into_iter()
        .filter(|((url, _), _)| url.ends_with("/b.html"))
        .collect();
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0].0.1, "200");
    assert_eq!(logged[0].1, 1);
}

#[test]
fn dt1_keeps_an_https_sites_delay_once_per_request() {
    // https in the loop: the TLS handshake and the request go out in one turn, and the turn
    // ends when the request is written. (When https went to a blocking downloader, the loop
    // took the site's turn first and dropped it, which counts as a request: each page waited
    // the delay twice, gaps of 617 ms for 300.)
    let pki = common::tls::Pki::new("rccrawler test CA");
    let web = TestWeb::https(pki.server(&["a.test"], common::tls::Validity::Good));
    let pages = 6;
    let links: String = (0..pages)
        .map(|i| format!("<a href=/{i}>{i}</a>"))
        .collect();
    web.page("a.test", "/", &links);
    for i in 0..pages {
        web.page("a.test", &format!("/{i}"), &format!("<p>page {i}</p>"));
    }
    let dir = tempfile::tempdir().unwrap();
    let ca = pki.write_ca(dir.path());
    let delay_ms = 300;
    let site = format!("{};1;4;{delay_ms}", web.https_origin("a.test"));
    let run = crawl(
        &[site],
        &[
            ("DownloadingThread", "DT1"),
            ("CaFile", ca.to_str().unwrap()),
        ],
    );
    let files = common::SiteFiles::read(&run.results().join(format!("a.test_{}", web.port())));
    assert_eq!(files.nodes.len(), pages + 1);
    let mut starts: Vec<_> = web.server.requests().iter().map(|r| r.start).collect();
    starts.sort();
    let mut gaps: Vec<Duration> = starts.windows(2).map(|w| w[1] - w[0]).collect();
    gaps.sort();
    let delay = Duration::from_millis(delay_ms);
    assert!(gaps[0] >= delay, "the delay holds: {gaps:?}");
    // The median gap is one delay (and its margin), far from two.
    let median = gaps[gaps.len() / 2];
    assert!(
        median < delay * 3 / 2,
        "the delay was waited twice: {gaps:?}"
    );
}

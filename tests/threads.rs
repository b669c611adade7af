//! One downloader and one parser vs many: the result files must be byte-identical, levels
//! included, whatever order concurrent downloads finish in (SPEC §2.10), over repeated runs.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{TestWeb, crawl};
use rccrawler::loopback::{Resp, Route};

/// A small deterministic generator (xorshift64*), so the web is the same in every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const PAGES: u64 = 400;

/// Pages /p/N.html with random links to pages, redirect aliases (/r/N → /p/N.html),
/// same-content copies (/d/N.html) and missing pages; answers take 0–3 ms, varying by URL.
fn random_web() -> TestWeb {
    let web = TestWeb::new();
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    let mut bodies = Vec::new();
    for i in 0..PAGES {
        let mut html = format!("<title>page {i}</title>");
        let links = 2 + rng.below(7);
        for _ in 0..links {
            let j = rng.below(PAGES);
            let href = match rng.below(10) {
                0 => format!("/r/{j}"),
                1 => format!("/d/{j}.html"),
                2 => format!("/missing/{j}"),
                3 => format!("http://b.test/ext/{j}"),
                _ => format!("/p/{j}.html"),
            };
            html.push_str(&format!("<a href=\"{href}\">link {j}</a>\n"));
        }
        bodies.push(html);
    }
    let bodies = Arc::new(bodies);
    web.page(
        "a.test",
        "/",
        "<a href=\"/p/0.html\">start</a><a href=\"/p/1.html\">one</a><a href=\"/d/2.html\">two</a>",
    );
    let serve = {
        let bodies = Arc::clone(&bodies);
        move |req: &rccrawler::loopback::Request| {
            let t = &req.target;
            // Two shallow pages answer slowly, so with many downloaders their children are
            // first reached through longer paths (some beyond the level cut) and must be
            // corrected when these pages finally arrive.
            let delay = match t.as_str() {
                "/p/0.html" => Duration::from_millis(250),
                "/d/2.html" => Duration::from_millis(120),
                _ => Duration::from_millis(t.bytes().map(u64::from).sum::<u64>() % 4),
            };
            let num = |s: &str| {
                s.trim_end_matches(".html")
                    .parse::<usize>()
                    .ok()
                    .filter(|&n| n < bodies.len())
            };
            let resp = if let Some(n) = t.strip_prefix("/p/").and_then(num) {
                Resp::html(bodies[n].clone())
            } else if let Some(n) = t.strip_prefix("/d/").and_then(num) {
                Resp::html(bodies[n].clone())
            } else if let Some(n) = t.strip_prefix("/r/").and_then(num) {
                Resp::redirect(301, &format!("/p/{n}.html"))
            } else {
                Resp::new(404, "text/html", "missing")
            };
            resp.delayed(delay)
        }
    };
    for prefix in ["/p/", "/d/", "/r/", "/missing/"] {
        web.server
            .route_prefix("a.test", prefix, Route::Generated(Arc::new(serve.clone())));
    }
    web
}

fn read_all(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = [
        "nodes.csv",
        "edges.csv",
        "external_links.csv",
        "bad_links.csv",
        "duplicates.csv",
        "graph.gexf",
    ]
    .iter()
    .map(|f| {
        (
            f.to_string(),
            std::fs::read(dir.join(f)).unwrap_or_else(|e| panic!("{f}: {e}")),
        )
    })
    .collect();
    files.sort();
    files
}

#[test]
fn one_thread_and_many_threads_write_identical_files() {
    let web = random_web();
    let site = format!("{};16;4;0", web.origin("a.test"));
    let folder = format!("a.test_{}", web.port());
    let reference = crawl(
        std::slice::from_ref(&site),
        &[
            ("DownloadingThreadsCount", "1"),
            ("ParsingThreadsCount", "1"),
        ],
    );
    let expected = read_all(&reference.results().join(&folder));
    let files = common::SiteFiles::read(&reference.results().join(&folder));
    files.assert_levels_are_bfs_depths();
    assert!(
        files.nodes.len() > 100,
        "the cut at level 4 still leaves a real graph: {}",
        files.nodes.len()
    );
    assert!(files.nodes.iter().any(|n| n.2 == 4) && !files.duplicates.is_empty());
    assert!(
        files.nodes.len() < PAGES as usize,
        "and the cut is real: {}",
        files.nodes.len()
    );
    for (downloaders, parsers) in [("16", "4"), ("8", "2"), ("16", "4"), ("3", "3")] {
        let run = crawl(
            std::slice::from_ref(&site),
            &[
                ("DownloadingThreadsCount", downloaders),
                ("ParsingThreadsCount", parsers),
            ],
        );
        let got = read_all(&run.results().join(&folder));
        for ((name, want), (_, have)) in expected.iter().zip(&got) {
            assert!(
                want == have,
                "{name} differs with {downloaders} downloaders and {parsers} parsers"
            );
        }
    }
}

//! Hostile servers and faults (SPEC §9): each case against a misbehaving in-process server
//! (raw TCP where a well-behaved server cannot misbehave that way), bounded in time. Each
//! must end without a panic or a hang, with a line in the error log and a row in
//! bad_links.csv or summary.csv, while the rest of the crawl goes on.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Crawled, TestWeb, crawl};
use rccrawler::base::loopback::{Request, Resp, Route};

/// brotli of 64 MiB of zeros (106 bytes), made with Python's brotli at quality 11.
const BROTLI_BOMB: &[u8] = &[
    0xcb, 0xff, 0xff, 0x3f, 0xf8, 0x27, 0x0, 0xe2, 0xb1, 0x40, 0x20, 0xf7, 0xfe, 0x8f, 0xff, 0xff,
    0x7f, 0xf0, 0x4f, 0x0, 0xc4, 0x61, 0x11, 0x80, 0xee, 0xfd, 0x1f, 0xff, 0xff, 0xff, 0xe0, 0x9f,
    0x0, 0x88, 0xc3, 0x2, 0x0, 0xdd, 0xfb, 0x3f, 0xfe, 0xff, 0xff, 0xc1, 0x3f, 0x1, 0x10, 0x87,
    0x5, 0x0, 0xba, 0xf7, 0x7f, 0xfc, 0xff, 0xff, 0x83, 0x7f, 0x2, 0x20, 0xe, 0xb, 0x0, 0x74, 0xef,
    0xff, 0xf8, 0xff, 0xff, 0x7, 0xff, 0x4, 0x40, 0x1c, 0x16, 0x0, 0xe8, 0xde, 0xff, 0xf1, 0xff,
    0xff, 0xf, 0xfe, 0x9, 0x80, 0x38, 0x2c, 0x0, 0xd0, 0xbd, 0xff, 0xe3, 0xff, 0xff, 0x1f, 0xfc,
    0x13, 0x0, 0x71, 0x58, 0x0, 0xa0, 0x7b, 0xff, 0x37,
];

fn zeros_compressed(encoding: &str, len: usize) -> Vec<u8> {
    let zeros = vec![0u8; len];
    match encoding {
        "gzip" => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            e.write_all(&zeros).unwrap();
            e.finish().unwrap()
        }
        _ => {
            let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
            e.write_all(&zeros).unwrap();
            e.finish().unwrap()
        }
    }
}

fn raw(
    f: impl Fn(&Request, &mut TcpStream) -> std::io::Result<()> + Send + Sync + 'static,
) -> Route {
    Route::Raw(Arc::new(f))
}

/// Both DownloadingThreads: the faults a server can cause are met by each the same way (DT1,
/// the default, drives them from its loop; DT0 blocks a thread per request).
const DOWNLOADERS: [&str; 2] = ["DT1", "DT0"];

/// Crawls `a.test` of `web`, with a short request timeout; checks the run took less than
/// `limit`.
fn crawl_a(web: &TestWeb, extra: &[(&str, &str)], limit: Duration) -> Crawled {
    crawl_by("DT1", web, extra, limit)
}

/// [`crawl_a`] with the DownloadingThread `downloader`.
fn crawl_by(downloader: &str, web: &TestWeb, extra: &[(&str, &str)], limit: Duration) -> Crawled {
    println!("DownloadingThread = {downloader}");
    let started = Instant::now();
    let mut settings = vec![
        ("RequestTimeoutSeconds", "1"),
        ("ConnectTimeoutSeconds", "1"),
        ("MaxRetries", "1"),
        ("DownloadingThread", downloader),
    ];
    settings.extend_from_slice(extra);
    let c = crawl(&[web.origin("a.test")], &settings);
    assert!(started.elapsed() < limit, "took {:?}", started.elapsed());
    c
}

fn bad_reason(c: &Crawled, web: &TestWeb, path: &str) -> String {
    let site = c.site(&format!("a.test_{}", web.port()));
    let url = format!("{}{path}", web.origin("a.test"));
    site.bad
        .iter()
        .find(|(_, u, _)| *u == url)
        .map(|(_, _, r)| r.clone())
        .unwrap_or_else(|| panic!("no bad link {url}: {:?}", site.bad))
}

fn error_log(c: &Crawled) -> String {
    std::fs::read_to_string(c.dir.path().join("logs/error_log.csv")).unwrap()
}

fn node_count(c: &Crawled, web: &TestWeb) -> usize {
    c.site(&format!("a.test_{}", web.port())).nodes.len()
}

#[test]
fn a_server_that_never_answers_times_out() {
    for downloader in DOWNLOADERS {
        let web = TestWeb::new();
        web.page("a.test", "/", "<a href=/stall>stall</a><a href=/ok>ok</a>");
        web.page("a.test", "/ok", "ok");
        web.route(
            "a.test",
            "/stall",
            raw(|_, _| {
                std::thread::sleep(Duration::from_secs(4));
                Ok(())
            }),
        );
        let c = crawl_by(downloader, &web, &[], Duration::from_secs(20));
        assert_eq!(bad_reason(&c, &web, "/stall"), "timeout");
        assert_eq!(node_count(&c, &web), 2, "the rest of the crawl goes on");
        assert!(
            error_log(&c).contains("/stall,timeout"),
            "{}",
            error_log(&c)
        );
    }
}

#[test]
fn a_reset_in_the_middle_of_a_body() {
    for downloader in DOWNLOADERS {
        let web = TestWeb::new();
        web.page("a.test", "/", "<a href=/reset>reset</a>");
        web.route("a.test", "/reset", raw(|_, s| {
            s.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n<html>")?;
            s.write_all(&[b'x'; 2000])?;
            s.flush()?;
            socket2::SockRef::from(&*s).set_linger(Some(Duration::ZERO))?;
            Ok(())
        }));
        let c = crawl_by(downloader, &web, &[], Duration::from_secs(20));
        assert!(
            bad_reason(&c, &web, "/reset").starts_with("connection broken"),
            "{}",
            bad_reason(&c, &web, "/reset")
        );
        assert!(error_log(&c).contains("/reset,connection broken"));
    }
}

#[test]
fn a_truncated_chunked_body() {
    for downloader in DOWNLOADERS {
        let web = TestWeb::new();
        web.page("a.test", "/", "<a href=/chunks>chunks</a>");
        web.route("a.test", "/chunks", raw(|_, s| {
            s.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n<html><a href=/x")?;
            s.flush()?;
            s.shutdown(std::net::Shutdown::Write)?;
            Ok(())
        }));
        let c = crawl_by(downloader, &web, &[], Duration::from_secs(20));
        let reason = bad_reason(&c, &web, "/chunks");
        assert!(
            reason.starts_with("connection broken") || reason.starts_with("bad response"),
            "{reason}"
        );
    }
}

#[test]
fn compression_bombs_are_capped() {
    for downloader in DOWNLOADERS {
        let web = TestWeb::new();
        web.page(
            "a.test",
            "/",
            "<a href=/gz>gz</a><a href=/deflate>deflate</a><a href=/br>br</a><a href=/fine>fine</a>",
        );
        let gz = zeros_compressed("gzip", 200 << 20);
        let deflate = zeros_compressed("deflate", 200 << 20);
        web.set(
            "a.test",
            "/gz",
            Resp::new(200, "text/html", gz).header("Content-Encoding", "gzip"),
        );
        web.set(
            "a.test",
            "/deflate",
            Resp::new(200, "text/html", deflate).header("Content-Encoding", "deflate"),
        );
        web.set(
            "a.test",
            "/br",
            Resp::new(200, "text/html", BROTLI_BOMB.to_vec()).header("Content-Encoding", "br"),
        );
        web.set(
            "a.test",
            "/fine",
            Resp::html("<p>small and zipped</p>".as_bytes().to_vec()).gzipped(),
        );
        let c = crawl_by(
            downloader,
            &web,
            &[("MaxPageBytes", "1048576")],
            Duration::from_secs(30),
        );
        for path in ["/gz", "/deflate", "/br"] {
            assert_eq!(
                bad_reason(&c, &web, path),
                "too large (over 1048576 bytes)",
                "{path}"
            );
        }
        assert_eq!(node_count(&c, &web), 2, "the small gzipped page is a node");
    }
}

#[test]
fn a_page_larger_than_the_cap() {
    for downloader in DOWNLOADERS {
        let web = TestWeb::new();
        web.page("a.test", "/", "<a href=/huge>huge</a>");
        web.set("a.test", "/huge", Resp::html(vec![b'a'; 3 << 20]).chunked());
        let c = crawl_by(
            downloader,
            &web,
            &[("MaxPageBytes", "1048576")],
            Duration::from_secs(20),
        );
        assert_eq!(
            bad_reason(&c, &web, "/huge"),
            "too large (over 1048576 bytes)"
        );
    }
}

#[test]
fn a_page_with_100000_links_and_deeply_nested_html() {
    let web = TestWeb::new();
    let mut big = String::from("<html><body>");
    for i in 0..100_000 {
        big.push_str(&format!(
            "<a href=/deep/{i}>l{i}</a><a href=http://b.test/{i}>e</a>"
        ));
    }
    web.page(
        "a.test",
        "/",
        "<a href=/big>big</a><a href=/nested>nested</a>",
    );
    web.page("a.test", "/big", &big);
    let nested = "<div>".repeat(200_000)
        + "<a href=/>home</a><table><tr><td><a href=/x"
        + &"<span".repeat(1000);
    web.page("a.test", "/nested", &nested);
    // maxCrawlLevel 1: /big and /nested are read; the 100,000 /deep/N links are beyond it.
    // Its 200,000 targets are all read (MaxLinksPerPage's test is the next one).
    let started = Instant::now();
    let c = crawl(
        &[format!("{};2;1;0", web.origin("a.test"))],
        &[("MaxLinksPerPage", "0")],
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "took {:?}",
        started.elapsed()
    );
    let site = c.site(&format!("a.test_{}", web.port()));
    assert_eq!(site.nodes.len(), 3);
    assert_eq!(site.external.len(), 100_000);
    assert!(
        site.edges.contains(&(3, 1, 1)),
        "the link after 200,000 open <div>s is found: {:?}",
        site.edges
    );
    assert_eq!(web.hits("a.test", "/deep/0"), 0);
}

#[test]
fn a_page_of_more_links_than_max_links_per_page_keeps_the_first_and_says_so() {
    let web = TestWeb::new();
    // 300 distinct targets, each linked twice; the first 100 are kept, links to them too.
    let mut page = String::new();
    for round in 0..2 {
        for i in 0..300 {
            page.push_str(&format!("<a href=http://b.test/{i}>e{round}</a>"));
        }
    }
    web.page("a.test", "/", &page);
    let c = crawl_a(&web, &[("MaxLinksPerPage", "100")], Duration::from_secs(30));
    let site = c.site(&format!("a.test_{}", web.port()));
    // One row a link: the 100 targets kept, each with both of its links.
    assert_eq!(site.external.len(), 200, "{:?}", &site.external[..3]);
    assert!(
        site.external.iter().all(|e| {
            let n: u32 = e.1.rsplit('/').next().unwrap().parse().unwrap();
            n < 100
        }),
        "the first 100 targets"
    );
    assert!(
        error_log(&c)
            .contains("400 links left out: the page links more than MaxLinksPerPage = 100 URLs"),
        "{}",
        error_log(&c)
    );
}

#[test]
fn invalid_utf8_and_binary_served_as_html_is_a_page() {
    let web = TestWeb::new();
    web.page(
        "a.test",
        "/",
        "<a href=/bin>bin</a><a href=/latin>latin</a>",
    );
    let mut junk: Vec<u8> = (0..=255u8).cycle().take(50_000).collect();
    junk.extend_from_slice(b"<a href=/after-junk>after</a>");
    web.set("a.test", "/bin", Resp::new(200, "text/html", junk));
    web.set(
        "a.test",
        "/latin",
        Resp::new(
            200,
            "text/html; charset=utf-8",
            b"<title>caf\xe9 \xff\xfe</title><a href=/>home</a>".to_vec(),
        ),
    );
    web.page("a.test", "/after-junk", "after");
    let c = crawl_a(&web, &[], Duration::from_secs(20));
    let site = c.site(&format!("a.test_{}", web.port()));
    assert_eq!(site.nodes.len(), 4, "{:?}", site.nodes);
    let nodes =
        std::fs::read_to_string(c.results().join(format!("a.test_{}/nodes.csv", web.port())))
            .unwrap();
    assert!(
        nodes.contains("\"caf\u{fffd} \u{fffd}\u{fffd}\""),
        "{nodes}"
    );
}

#[test]
fn redirects_to_other_schemes_long_urls_and_repeating_paths_are_bad_links() {
    let web = TestWeb::new();
    let long = "x".repeat(3000);
    web.page("a.test", "/", &format!("<a href=/ftp>ftp</a><a href=/file>file</a><a href=/{long}>long</a><a href=/a/a/a/a/page>rep</a><a href=/loop/>loop</a><a href=https://play.example/?code={long}>play</a>"));
    web.set("a.test", "/ftp", Resp::redirect(301, "ftp://a.test/pub/"));
    web.set("a.test", "/file", Resp::redirect(302, "file:///etc/passwd"));
    // A relative link that grows the path on every page: /loop/a/, /loop/a/a/, ...
    web.server.route_prefix(
        "a.test",
        "/loop/",
        Route::Generated(Arc::new(|req: &Request| {
            Resp::html(format!("<p>{}</p><a href=a/>deeper</a>", req.target))
        })),
    );
    let c = crawl_a(&web, &[], Duration::from_secs(20));
    assert_eq!(bad_reason(&c, &web, "/ftp"), "redirect to scheme ftp");
    assert_eq!(bad_reason(&c, &web, "/file"), "redirect to scheme file");
    let long_url = format!("{}/{long}", web.origin("a.test"));
    assert_eq!(
        bad_reason(&c, &web, &format!("/{long}")),
        format!("url too long ({} bytes)", long_url.len())
    );
    // MaxUrlLength is for URLs we would fetch: a long external link is kept whole.
    let site = c.site(&format!("a.test_{}", web.port()));
    let play = format!("https://play.example/?code={long}");
    assert!(
        site.external.iter().any(|e| e.1 == play),
        "the long external link is in external_links.csv"
    );
    assert!(site.bad.iter().all(|b| b.1 != play));
    assert_eq!(
        bad_reason(&c, &web, "/a/a/a/a/page"),
        "repeating path segment (a)"
    );
    assert_eq!(
        bad_reason(&c, &web, "/loop/a/a/a/a/"),
        "repeating path segment (a)"
    );
    assert_eq!(web.hits("a.test", "/loop/a/a/a/a/"), 0);
}

#[test]
fn robots_txt_that_is_huge_binary_or_a_redirect() {
    // Huge: the Disallow after the first 500 KiB is not read.
    let web = TestWeb::new();
    let mut huge = String::from("User-agent: *\nDisallow: /early\n");
    huge.push_str(&"# padding\n".repeat(60_000));
    huge.push_str("Disallow: /late\n");
    web.robots("a.test", &huge);
    web.page("a.test", "/", "<a href=/early>e</a><a href=/late>l</a>");
    web.page("a.test", "/late", "late");
    let c = crawl_a(&web, &[], Duration::from_secs(20));
    assert_eq!(bad_reason(&c, &web, "/early"), "robots");
    assert_eq!(
        node_count(&c, &web),
        2,
        "/late is allowed: its rule is past 500 KiB"
    );

    // Binary: nothing to obey.
    let web = TestWeb::new();
    web.set(
        "a.test",
        "/robots.txt",
        Resp::new(
            200,
            "application/octet-stream",
            (0..=255u8).cycle().take(10_000).collect::<Vec<u8>>(),
        ),
    );
    web.page("a.test", "/", "<a href=/x>x</a>");
    web.page("a.test", "/x", "x");
    assert_eq!(
        node_count(&crawl_a(&web, &[], Duration::from_secs(20)), &web),
        2
    );

    // A redirect: its target's rules apply.
    let web = TestWeb::new();
    web.set(
        "a.test",
        "/robots.txt",
        Resp::redirect(301, "/real-robots.txt"),
    );
    web.set(
        "a.test",
        "/real-robots.txt",
        Resp::new(200, "text/plain", "User-agent: *\nDisallow: /x\n"),
    );
    web.page("a.test", "/", "<a href=/x>x</a>");
    let c = crawl_a(&web, &[], Duration::from_secs(20));
    assert_eq!(bad_reason(&c, &web, "/x"), "robots");
}

/// RFC 9309 §2.3.1.2: at least five redirects of robots.txt are followed; past them it counts
/// as unavailable, which is read like a 4xx: everything allowed.
#[test]
fn robots_txt_redirects_are_followed_five_times_and_no_more() {
    // `hops` redirects: /robots.txt -> /r1 -> ... -> /r{hops}, whose rules disallow /x.
    let crawl_with = |hops: usize| {
        let web = TestWeb::new();
        for i in 0..hops {
            let from = if i == 0 {
                "/robots.txt".to_string()
            } else {
                format!("/r{i}")
            };
            web.set(
                "a.test",
                &from,
                Resp::redirect(301, &format!("/r{}", i + 1)),
            );
        }
        web.set(
            "a.test",
            &format!("/r{hops}"),
            Resp::new(200, "text/plain", "User-agent: *\nDisallow: /x\n"),
        );
        web.page("a.test", "/", "<a href=/x>x</a>");
        web.page("a.test", "/x", "x");
        let c = crawl_a(&web, &[], Duration::from_secs(20));
        (c, web)
    };
    let (c, web) = crawl_with(5);
    assert_eq!(
        bad_reason(&c, &web, "/x"),
        "robots",
        "five redirects are followed"
    );
    let (c, web) = crawl_with(6);
    assert_eq!(
        node_count(&c, &web),
        2,
        "a sixth redirect: everything allowed"
    );
}

#[test]
fn connection_refused_and_unknown_hosts_leave_the_site_unreachable() {
    for downloader in DOWNLOADERS {
        // A port with nothing listening.
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let started = Instant::now();
        let c = crawl(
            &[
                format!("http://a.test:{port}"),
                "http://nx.invalid".to_string(),
            ],
            &[
                ("ConnectTimeoutSeconds", "1"),
                ("MaxRetries", "1"),
                ("DownloadingThread", downloader),
            ],
        );
        assert!(started.elapsed() < Duration::from_secs(20));
        let summary = common::read_csv(&c.results().join("summary.csv")).1;
        assert_eq!(summary[0][9], "unreachable");
        assert_eq!(summary[1][9], "unreachable");
        let a = c.site(&format!("a.test_{port}"));
        assert_eq!(a.bad[0].2, "robots.txt unavailable (connection refused)");
        let nx = c.site("nx.invalid");
        // See: issue 64 item 9 — a host that does not resolve is `host not found`, not a
        // robots.txt that failed.
        assert_eq!(nx.bad[0].2, "host not found");
        assert_eq!(summary[1][11], "host not found", "{:?}", summary[1]);
        let log = error_log(&c);
        assert!(
            log.contains("connection refused") && log.contains("host not found"),
            "{log}"
        );
    }
}

#[test]
fn a_site_that_goes_down_mid_crawl_is_suspended_and_the_others_go_on() {
    let web = TestWeb::new();
    common::webgen::install(
        &web,
        common::webgen::WebSpec {
            host: "a.test",
            pages: 40,
            seed: 1,
            delay: Duration::from_millis(3),
            slow: vec![],
        },
    );
    let dying = TestWeb::new();
    common::webgen::install(
        &dying,
        common::webgen::WebSpec {
            host: "b.test",
            pages: 200,
            seed: 2,
            delay: Duration::from_millis(3),
            slow: vec![],
        },
    );
    let dying_origin = dying.origin("b.test");
    let folder = format!("b.test_{}", dying.port());
    let killer = std::thread::spawn(move || {
        while dying.server.requests().len() < 30 {
            std::thread::sleep(Duration::from_millis(2));
        }
        drop(dying); // connections are refused from now on
    });
    let started = Instant::now();
    let c = crawl(
        &[web.origin("a.test"), dying_origin],
        &[
            ("SiteDownAfterFailures", "3"),
            ("MaxRetries", "1"),
            ("ConnectTimeoutSeconds", "1"),
        ],
    );
    killer.join().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "took {:?}",
        started.elapsed()
    );
    let summary = common::read_csv(&c.results().join("summary.csv")).1;
    assert_eq!(summary[0][9], "done");
    assert_eq!(summary[1][9], "down", "{summary:?}");
    assert!(
        c.site(&folder).nodes.len() > 5,
        "what was crawled before is kept"
    );
    assert!(error_log(&c).contains("connection failures in a row: the site is taken as down"));
}

#[test]
fn status_429_and_503_back_off_by_retry_after() {
    for downloader in DOWNLOADERS {
        let web = TestWeb::new();
        web.page(
            "a.test",
            "/",
            "<a href=/busy>busy</a><a href=/date>date</a>",
        );
        let count = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let n = Arc::clone(&count);
        web.route(
            "a.test",
            "/busy",
            Route::Generated(Arc::new(move |_req: &Request| {
                if n.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
                    Resp::new(429, "text/plain", "slow down").header("Retry-After", "1")
                } else {
                    Resp::html(b"<p>now</p>".to_vec())
                }
            })),
        );
        let soon = httpdate::fmt_http_date(std::time::SystemTime::now() + Duration::from_secs(2));
        web.set(
            "a.test",
            "/date",
            Resp::new(503, "text/plain", "maintenance").header("Retry-After", &soon),
        );
        let c = crawl_by(
            downloader,
            &web,
            &[("MaxRetries", "2"), ("MaxRetryAfterSeconds", "30")],
            Duration::from_secs(30),
        );
        let rs = web.server.requests();
        let busy: Vec<_> = rs.iter().filter(|r| r.target == "/busy").collect();
        assert_eq!(busy.len(), 2);
        assert!(
            busy[1].start - busy[0].start >= Duration::from_secs(1),
            "Retry-After: 1 was honoured"
        );
        assert_eq!(node_count(&c, &web), 2, "/busy became a page");
        assert_eq!(bad_reason(&c, &web, "/date"), "status 503");
        let dates: Vec<_> = rs.iter().filter(|r| r.target == "/date").collect();
        assert_eq!(dates.len(), 3, "tried and retried twice");
        assert!(error_log(&c).contains("status 429: retry 1 of 2"));
    }
}

#[test]
fn the_loopback_server_itself_reads_what_it_was_sent() {
    // A sanity check of the raw handlers used above.
    let web = TestWeb::new();
    web.route(
        "a.test",
        "/echo",
        raw(|req, s| {
            let body = format!("{} {}", req.method, req.target);
            write!(
                s,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
        }),
    );
    let mut s = TcpStream::connect(("127.0.0.1", web.port())).unwrap();
    s.write_all(b"GET /echo HTTP/1.1\r\nHost: a.test\r\n\r\n")
        .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    assert!(out.ends_with("GET /echo"), "{out}");
}

/// Results that cannot be written (here: a file stands where a site's folder should be) make
/// the run fail naming the path, but only after every other site's results are written.
#[test]
fn a_site_whose_results_cannot_be_written_does_not_stop_the_others() {
    let web = TestWeb::new();
    for host in ["a.test", "b.test", "c.test"] {
        web.page(host, "/", "<a href=/p>p</a>");
        web.page(host, "/p", "<a href=/>home</a>");
    }
    let hosts: Vec<String> = ["a.test", "b.test", "c.test"]
        .iter()
        .map(|h| format!("{};2;3;0", web.origin(h)))
        .collect();
    let dir = common::prepare(&hosts, &[]);
    let blocked = dir.path().join(format!("results/b.test_{}", web.port()));
    std::fs::create_dir_all(dir.path().join("results")).unwrap();
    std::fs::write(&blocked, "not a folder").unwrap();
    let registry = rccrawler::Registry::builtin();
    let err = common::try_run_with(&registry, dir.path())
        .expect_err("b.test's results cannot be written");
    assert!(err.to_string().contains("b.test_"), "{err}");
    for host in ["a.test", "c.test"] {
        let files =
            common::result_bytes(&dir.path().join(format!("results/{host}_{}", web.port())));
        let nodes = &files[0].1;
        assert_eq!(
            nodes.iter().filter(|&&b| b == b'\n').count(),
            3,
            "{host}: header + 2 pages"
        );
    }
    // See: issue 17 — a failed result write lost the whole crawl: the next run found it
    // "finished" in its state and started afresh. Now the crawl stays saved until its
    // results are written: `rccrawler export` writes them from the state folder, and so does
    // the next run, without fetching a page again.
    let want = common::result_bytes(&dir.path().join(format!("results/a.test_{}", web.port())));
    std::fs::remove_file(&blocked).unwrap();
    let export = std::process::Command::new(env!("CARGO_BIN_EXE_rccrawler"))
        .args(["export", "--to", "exported", "b.test"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        export.status.success(),
        "{}",
        String::from_utf8_lossy(&export.stderr)
    );
    let exported =
        common::SiteFiles::read(&dir.path().join(format!("exported/b.test_{}", web.port())));
    assert_eq!(exported.nodes.len(), 2);
    let unknown = std::process::Command::new(env!("CARGO_BIN_EXE_rccrawler"))
        .args(["export", "http://nosuch.test"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&unknown.stderr)
            .contains("no saved scope is named http://nosuch.test"),
        "{}",
        String::from_utf8_lossy(&unknown.stderr)
    );
    let before = web.server.requests().len();
    let report = common::try_run_with(&registry, dir.path()).expect("the results are written now");
    assert!(report.reason.is_complete());
    let pages_again = web.server.requests()[before..]
        .iter()
        .filter(|r| r.target != "/robots.txt")
        .count();
    assert_eq!(pages_again, 0, "nothing is fetched again");
    let b = common::SiteFiles::read(&dir.path().join(format!("results/b.test_{}", web.port())));
    assert_eq!(b.nodes.len(), 2);
    assert_eq!(
        common::result_bytes(&dir.path().join(format!("results/a.test_{}", web.port()))),
        want
    );
}

/// A calendar that never ends: every month links to the next and the previous one and to its
/// days, each day to the next day — the `/calendar/…` trap of issue 17 (12.2 million pages in
/// ten minutes with the old defaults).
fn calendar_web() -> TestWeb {
    let web = TestWeb::new();
    let mut home = String::from("<title>Beta</title><a href=/calendar/2024/01/>calendar</a>");
    // Numbered pages that are not a trap: 40 news items, all one level below the home page.
    for n in 1..=40 {
        home.push_str(&format!("<a href=/news/{n}>news {n}</a>"));
    }
    web.page("a.test", "/", &home);
    for n in 1..=40 {
        web.page(
            "a.test",
            &format!("/news/{n}"),
            &format!("news {n}<a href=/>home</a>"),
        );
    }
    let month = |y: i32, m: i32| -> (i32, i32) {
        let t = y * 12 + (m - 1);
        (t.div_euclid(12), t.rem_euclid(12) + 1)
    };
    let serve = move |req: &rccrawler::base::loopback::Request| {
        let parts: Vec<i32> = req
            .target
            .trim_start_matches("/calendar/")
            .split('/')
            .filter(|p| !p.is_empty())
            .filter_map(|p| p.parse().ok())
            .collect();
        let body = match parts[..] {
            [y, m] => {
                let (ny, nm) = month(y, m + 1);
                let (py, pm) = month(y, m - 1);
                format!(
                    "<title>{y}-{m}</title><a href=/calendar/{ny}/{nm:02}/>next</a>\
                     <a href=/calendar/{py}/{pm:02}/>previous</a><a href=/calendar/{y}/{m:02}/1>day 1</a>"
                )
            }
            [y, m, d] => format!(
                "<title>{y}-{m}-{d}</title><a href=/calendar/{y}/{m:02}/{}>next day</a>",
                d + 1
            ),
            _ => "nothing".to_owned(),
        };
        Resp::html(body)
    };
    web.server
        .route_prefix("a.test", "/calendar/", Route::Generated(Arc::new(serve)));
    web
}

// See: issue 17 — a bare hosts line ran into a calendar trap: 12.2 million pages, 27,000
// requests a second against one server; MaxPathSegmentRepeats does not catch the pattern.
#[test]
fn a_calendar_that_never_ends_is_cut_and_summary_csv_names_the_pattern() {
    let web = calendar_web();
    let mut files = Vec::new();
    for threads in ["1", "4"] {
        let c = crawl(
            &[web.origin("a.test")],
            &[("DownloadingThreadsCount", threads), ("TrapLevels", "10")],
        );
        assert!(c.report.reason.is_complete(), "the crawl ends by itself");
        let (_, rows) = common::read_csv(&c.results().join("summary.csv"));
        let reason = &rows[0][11];
        assert!(
            reason.contains("trap: /calendar/N/N/") && reason.contains("left out"),
            "{reason}"
        );
        let site = c.site(&format!("a.test_{}", web.port()));
        let news = site.nodes.iter().filter(|n| n.1.contains("/news/")).count();
        assert_eq!(news, 40, "numbered pages one level deep are not a trap");
        // Months from level 1 to 11 on each side of January 2024, and their days.
        assert!(site.nodes.len() < 400, "{} pages", site.nodes.len());
        let deepest = site.nodes.iter().map(|n| n.2).max().unwrap();
        assert!(deepest <= 12, "no page deeper than the cut: {deepest}");
        site.assert_levels_are_bfs_depths();
        files.push(common::result_bytes(
            &c.results().join(format!("a.test_{}", web.port())),
        ));
    }
    assert_eq!(
        files[0], files[1],
        "one thread and four write the same files"
    );
}

#[test]
fn the_shipped_defaults_are_polite_and_bounded() {
    let s = rccrawler::Settings::defaults(std::path::Path::new("."));
    assert_eq!(s.sites.defaults.crawl_delay, Duration::from_secs(1));
    assert!(s.sites.max_pages >= 30_000 * 3, "{}", s.sites.max_pages);
    assert!(s.sites.trap_levels > 0 && s.sites.max_query_parameters > 0);
    // A site with the default delay is crawled a request a second: 4 pages take 3 s or more.
    let web = TestWeb::new();
    web.page(
        "a.test",
        "/",
        "<a href=/1>1</a><a href=/2>2</a><a href=/3>3</a>",
    );
    for p in ["/1", "/2", "/3"] {
        web.page("a.test", p, &format!("page {p}"));
    }
    let started = Instant::now();
    let c = crawl(
        &[format!("{};2", web.origin("a.test"))],
        &[("DefaultCrawlDelay", "1000")],
    );
    assert!(
        started.elapsed() >= Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(c.site(&format!("a.test_{}", web.port())).nodes.len(), 4);
}

// See: issue 17 — 30 URLs answering 500 made a 61-URL site take 34 s: each failing URL backed
// off the whole site.
#[test]
fn a_failing_url_is_retried_later_without_stalling_its_site() {
    let web = TestWeb::new();
    let mut home = String::new();
    for i in 0..30 {
        home.push_str(&format!("<a href=/ok{i}>ok</a><a href=/bad{i}>bad</a>"));
        web.page("a.test", &format!("/ok{i}"), &format!("ok {i}"));
        web.set(
            "a.test",
            &format!("/bad{i}"),
            Resp::new(500, "text/html", "broken"),
        );
    }
    web.page("a.test", "/", &home);
    let c = crawl(
        &[format!("{};2", web.origin("a.test"))],
        &[("MaxRetries", "2"), ("RetryBaseDelayMs", "500")],
    );
    assert_eq!(node_count(&c, &web), 31);
    let requests = web.server.requests();
    let first_retry = requests
        .iter()
        .filter(|r| r.target.starts_with("/bad"))
        .fold(std::collections::HashMap::new(), |mut seen, r| {
            seen.entry(r.target.clone())
                .or_insert_with(Vec::new)
                .push(r.start);
            seen
        })
        .values()
        .filter_map(|starts| starts.get(1).copied())
        .min()
        .expect("failing URLs are retried");
    let last_ok = requests
        .iter()
        .filter(|r| r.target.starts_with("/ok"))
        .map(|r| r.start)
        .max()
        .unwrap();
    assert!(
        last_ok < first_retry,
        "every good page was fetched before the first retry: the site went on"
    );
    assert_eq!(web.hits("a.test", "/bad7"), 3, "tried once, retried twice");
    assert!(
        error_log(&c).contains("(the site goes on)"),
        "{}",
        error_log(&c)
    );
    assert_eq!(bad_reason(&c, &web, "/bad7"), "status 500");
}

/// See: issue 44 (values from the network that grow past what a clock can add): a robots.txt
/// `Crawl-delay` of 10^19 seconds is a valid `Duration` but not a time an `Instant` can reach,
/// and a `Retry-After` of u64::MAX seconds asks the same. The crawl keeps the longest delay
/// rccrawler keeps (an hour, as hosts.txt's crawlDelay, counted from the robots.txt request)
/// and ends at its timeout: no panic.
#[test]
fn a_crawl_delay_or_retry_after_beyond_any_clock_is_capped_not_a_panic() {
    for downloader in DOWNLOADERS {
        let web = TestWeb::new();
        web.robots(
            "a.test",
            "User-agent: *\nCrawl-delay: 10000000000000000000\n",
        );
        web.page("a.test", "/", "<a href=/x>x</a>");
        web.page("a.test", "/x", "<p>x</p>");
        let c = crawl_by(
            downloader,
            &web,
            &[("TimeoutSeconds", "2")],
            Duration::from_secs(30),
        );
        assert_eq!(web.hits("a.test", "/robots.txt"), 1);
        assert_eq!(web.hits("a.test", "/"), 0, "the home page waits an hour");
        let summary = std::fs::read_to_string(c.results().join("summary.csv")).unwrap();
        assert!(summary.contains("stopped"), "{summary}");

        let web = TestWeb::new();
        web.page("a.test", "/", "<a href=/busy>busy</a>");
        web.set(
            "a.test",
            "/busy",
            Resp::new(429, "text/plain", "later").header("Retry-After", "18446744073709551615"),
        );
        let c = crawl_by(
            downloader,
            &web,
            &[("TimeoutSeconds", "3"), ("MaxRetryAfterSeconds", "1")],
            Duration::from_secs(30),
        );
        assert_eq!(bad_reason(&c, &web, "/busy"), "status 429");
    }
}

/// A raw server on a fresh port whose every answer is followed by `stale` bytes: a whole
/// second answer nobody asked for, in the same write (`later` = None) or written `later` on
/// the idle connection. Pages `/`, `/p1` … `/p5` form a chain; the stale answer links to
/// `/stale`. Returns the port. (A stray answer read with the page stays in the downloader's
/// buffer; one behind a large page stays in the socket: both must be seen.)
fn one_behind_server(later: Option<Duration>) -> u16 {
    raw_server(move |mut stream| {
        let mut buf = Vec::new();
        while let Some(path) = next_request(&mut stream, &mut buf) {
            let page = match path.as_str() {
                "/" => answer("200 OK", r#"<a href="/p1">1</a>"#),
                p if p.starts_with("/p") && p.len() == 3 => {
                    let n: u32 = p[2..].parse().unwrap_or(9);
                    // /p2 is larger than a first read: its stray answer stays in the socket
                    // instead of the connection's buffer.
                    let pad = if n == 2 {
                        "x".repeat(40_000)
                    } else {
                        String::new()
                    };
                    if n < 5 {
                        answer(
                            "200 OK",
                            &format!(r#"<a href="/p{}">next</a><!--{pad}-->"#, n + 1),
                        )
                    } else {
                        answer("200 OK", r#"<a href="/">home</a>"#)
                    }
                }
                _ => answer("404 Not Found", ""),
            };
            let stale = answer("200 OK", r#"<a href="/stale">stale</a>"#);
            let sent = match later {
                None => stream.write_all(format!("{page}{stale}").as_bytes()),
                Some(pause) => stream.write_all(page.as_bytes()).and_then(|()| {
                    std::thread::sleep(pause);
                    stream.write_all(stale.as_bytes())
                }),
            };
            if sent.is_err() {
                return;
            }
        }
    })
}

/// A raw server on a fresh port: each connection handed to `serve` on a thread of its own.
/// Returns the port.
fn raw_server(serve: impl Fn(TcpStream) + Send + Sync + 'static) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let serve = Arc::new(serve);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let _ = stream.set_read_timeout(Some(Duration::from_secs(20)));
            let serve = Arc::clone(&serve);
            std::thread::spawn(move || serve(stream));
        }
    });
    port
}

/// The path of the next request on `stream` (its head read and taken from `buf`); `None`
/// once the client closes the connection.
fn next_request(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Option<String> {
    let mut chunk = [0u8; 4096];
    let end = loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break end;
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..end]).to_string();
    buf.drain(..end + 4);
    Some(head.split(' ').nth(1).unwrap_or("/").to_string())
}

/// An HTML answer with its length.
fn answer(status: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\ncontent-type: text/html\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
}

#[test]
fn bytes_nobody_asked_for_are_never_taken_for_the_next_answer() {
    for later in [None, Some(Duration::from_millis(30))] {
        for downloader in DOWNLOADERS {
            println!("{downloader}, stale bytes {later:?}");
            let port = one_behind_server(later);
            let c = crawl(
                &[format!("http://a.test:{port}")],
                &[
                    ("DownloadingThread", downloader),
                    ("RequestTimeoutSeconds", "3"),
                    ("DefaultCrawlDelay", "100"),
                ],
            );
            let site = c.site(&format!("a.test_{port}"));
            let mut urls: Vec<String> = site.labels().into_values().collect();
            urls.sort();
            let origin = format!("http://a.test:{port}");
            let want: Vec<String> = ["/", "/p1", "/p2", "/p3", "/p4", "/p5"]
                .iter()
                .map(|p| format!("{origin}{p}"))
                .collect();
            assert_eq!(urls, want, "{downloader} {later:?}");
            assert!(
                site.bad.is_empty(),
                "{downloader} {later:?}: {:?}",
                site.bad
            );
            assert_eq!(site.edge_labels().len(), 6, "{downloader} {later:?}");
        }
    }
}

#[test]
fn an_https_server_that_never_answers_the_handshake_times_out_at_the_connect_timeout() {
    // Accepts connections and holds them without a byte: the TCP connect succeeds at once,
    // the TLS handshake never ends. `ConnectTimeoutSeconds` (1) bounds it, not the request's
    // timeout (8): two tries of robots.txt at 1 s each, not 8 s each.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().take(16) {
            held.push(stream);
        }
        std::thread::sleep(Duration::from_secs(60));
    });
    for downloader in DOWNLOADERS {
        let started = Instant::now();
        let c = crawl(
            &[format!("https://a.test:{port}")],
            &[
                ("DownloadingThread", downloader),
                ("ConnectTimeoutSeconds", "1"),
                ("RequestTimeoutSeconds", "8"),
                ("MaxRetries", "1"),
            ],
        );
        let took = started.elapsed();
        let summary = common::read_csv(&c.results().join("summary.csv")).1;
        assert_eq!(summary[0][9], "unreachable", "{downloader}");
        let a = c.site(&format!("a.test_{port}"));
        assert_eq!(
            a.bad[0].2, "robots.txt unavailable (timeout)",
            "{downloader}"
        );
        assert!(took < Duration::from_secs(7), "{downloader}: took {took:?}");
    }
}

#[test]
fn a_body_that_times_out_is_retried_like_an_answer_that_never_came() {
    for downloader in DOWNLOADERS {
        let web = TestWeb::new();
        web.page("a.test", "/", "<a href=/slow>slow</a>");
        web.page("a.test", "/after", "after");
        let tries = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = Arc::clone(&tries);
        web.route(
            "a.test",
            "/slow",
            raw(move |_, s| {
                let page = b"<html><a href=/after>after</a></html>";
                write!(
                    s,
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n",
                    page.len()
                )?;
                if counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
                    // The first time, the head and part of the body, then nothing past the
                    // request's timeout.
                    s.write_all(&page[..10])?;
                    s.flush()?;
                    std::thread::sleep(Duration::from_secs(3));
                    return Ok(());
                }
                s.write_all(page)
            }),
        );
        let c = crawl_by(downloader, &web, &[], Duration::from_secs(20));
        assert_eq!(
            tries.load(std::sync::atomic::Ordering::SeqCst),
            2,
            "{downloader}"
        );
        assert_eq!(
            node_count(&c, &web),
            3,
            "{downloader}: {:?}",
            c.site(&format!("a.test_{}", web.port())).bad
        );
        assert!(error_log(&c).contains("/slow,timeout"), "{}", error_log(&c));
    }
}

#[test]
fn max_urls_per_site_bounds_a_site_that_links_more_urls_than_it_has_pages() {
    // Every page links 50 new URLs that answer 404: MaxPagesPerSite never bounds it.
    let web = TestWeb::new();
    web.server.route_prefix(
        "a.test",
        "/",
        Route::Generated(Arc::new(|req: &Request| {
            if req.target == "/" || req.target.starts_with("/p") {
                let links: String = (0..50)
                    .map(|i| format!("<a href=\"/u{}-{i}\">u</a>", req.target.len()))
                    .chain(std::iter::once("<a href=\"/p1\">p</a>".to_owned()))
                    .collect();
                Resp::html(links)
            } else {
                Resp::new(404, "text/plain", "no")
            }
        })),
    );
    let c = crawl_a(&web, &[("MaxUrlsPerSite", "20")], Duration::from_secs(30));
    let site = c.site(&format!("a.test_{}", web.port()));
    let (header, rows) = common::read_csv(&c.results().join("summary.csv"));
    let reason = &rows[0][header.iter().position(|h| h == "Reason").unwrap()];
    assert_eq!(
        reason,
        "URL limit: links to URLs beyond the first 20 left out (MaxUrlsPerSite)"
    );
    assert_eq!(rows[0][9], "done");
    // The home page and its first 19 links (404s); /p1, its last link, is beyond the limit.
    assert_eq!(site.nodes.len(), 1, "{:?}", site.nodes);
    assert_eq!(site.bad.len(), 19, "{:?}", site.bad);
}

/// A server that answers one request a connection and closes the connection when the next
/// request arrives on it (a kept-alive connection it had already given up on): every request
/// on a kept connection fails, every request on a fresh one is answered. Returns the port.
fn one_request_a_connection_server() -> u16 {
    raw_server(|mut stream| {
        let mut buf = Vec::new();
        let Some(path) = next_request(&mut stream, &mut buf) else {
            return;
        };
        let page = match path.as_str() {
            "/" => answer(
                "200 OK",
                &(1..=5)
                    .map(|k| format!("<a href=/p{k}>{k}</a>"))
                    .collect::<String>(),
            ),
            p if p.starts_with("/p") => answer("200 OK", &format!("page {p}")),
            _ => answer("404 Not Found", ""),
        };
        if stream.write_all(page.as_bytes()).is_err() {
            return;
        }
        // The second request on this connection: closed unanswered.
        let _ = next_request(&mut stream, &mut buf);
    })
}

/// Issue 49, item 10 (DT0 lost pages to kept connections the server had closed): a request on
/// a kept connection the server gave up on is sent again on a fresh one, by both downloaders.
#[test]
fn kept_connections_the_server_gave_up_on_lose_no_page() {
    for downloader in DOWNLOADERS {
        let port = one_request_a_connection_server();
        let c = crawl(
            &[format!("http://a.test:{port}")],
            &[
                ("DownloadingThread", downloader),
                ("MaxRetries", "1"),
                ("DefaultCrawlDelay", "20"),
            ],
        );
        let site = c.site(&format!("a.test_{port}"));
        assert_eq!(site.nodes.len(), 6, "{downloader}: {:?}", site.bad);
        assert!(site.bad.is_empty(), "{downloader}: {:?}", site.bad);
    }
}

/// Issue 49 (seen last session): DT0 sent every request that broke once more at once, on a
/// fresh connection, without the crawl delay — a server that breaks every connection got two
/// requests a try. Only a request on a kept connection is sent again at once (the server may
/// have given up on that connection); one on a fresh connection waits for its retry.
#[test]
fn a_server_that_breaks_every_connection_gets_one_request_a_try() {
    for downloader in DOWNLOADERS {
        let web = TestWeb::new();
        web.page("a.test", "/", "<a href=/broken>b</a>");
        // The request is read, then the connection closed unanswered.
        web.route(
            "a.test",
            "/broken",
            raw(|_, s| {
                socket2::SockRef::from(&*s).set_linger(Some(Duration::ZERO))?;
                Ok(())
            }),
        );
        let c = crawl_by(
            downloader,
            &web,
            &[("MaxRetries", "2"), ("RetryBaseDelayMs", "50")],
            Duration::from_secs(30),
        );
        let reason = bad_reason(&c, &web, "/broken");
        assert!(
            reason.starts_with("connection broken"),
            "{downloader}: {reason}"
        );
        // Three tries; the first may go out on the home page's kept connection, and is then
        // sent once more on a fresh one.
        let hits = web.server.hits("a.test", "/broken");
        assert!((3..=4).contains(&hits), "{downloader}: {hits} requests");
    }
}

//! Sitemaps (SPEC §17, `Sitemaps = yes`): the files robots.txt names (else `/sitemap.xml`)
//! read before the site's pages, in its turns — indexes of indexes, gzip files and gzip
//! answers, a loop, a file on another host, one disallowed, broken XML, an HTML page, a 404,
//! 60,000 URLs in one file, a sitemap of a gigabyte — and `sitemap.csv` and summary.csv's
//! `SitemapUrls` and `Orphans` checked row by row; the graph files stay byte-identical to a
//! crawl without sitemaps.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use rccrawler::base::loopback::{Resp, Route};

/// A sitemap `<urlset>` of `paths` on `origin`, each with its lastmod when given.
fn urlset(origin: &str, paths: &[(&str, &str)]) -> String {
    let mut s = String::from(
        r#"<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">"#,
    );
    for (p, lastmod) in paths {
        s.push_str(&format!("<url><loc>{origin}{p}</loc>"));
        if !lastmod.is_empty() {
            s.push_str(&format!("<lastmod>{lastmod}</lastmod>"));
        }
        s.push_str("</url>\n");
    }
    s.push_str("</urlset>");
    s
}

/// A `<sitemapindex>` of `locs`.
fn index(locs: &[String]) -> String {
    let mut s = String::from("<sitemapindex>");
    for l in locs {
        s.push_str(&format!("<sitemap><loc>{l}</loc></sitemap>"));
    }
    s.push_str("</sitemapindex>");
    s
}

fn xml(body: impl Into<Vec<u8>>) -> Resp {
    Resp::new(200, "application/xml", body)
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(bytes).unwrap();
    z.finish().unwrap()
}

/// a.test: robots.txt names an index (of indexes, listing itself and a file on another host),
/// a broken file and a missing one; the pages link `/`, `/a`, `/b?x=1&y=2`, `/deep`; the
/// sitemaps also list two pages no link reaches, a disallowed one, one on another site, and
/// one that does not exist. b.test: `/sitemap.xml` (no robots line) of 60,000 URLs. c.test: a
/// sitemap of a gigabyte. d.test: no sitemap at all.
fn web() -> common::TestWeb {
    let web = common::TestWeb::new();
    let a = web.origin("a.test");
    // The same host with www.: the site's too (a site often names where it moved to).
    let www = web.origin("www.a.test");
    web.set("www.a.test", "/www.xml", xml(urlset(&www, &[("/a", "")])));
    web.robots(
        "a.test",
        &format!(
            "User-agent: *\nDisallow: /private\nCrawl-delay: 0.15\n\nSitemap: {a}/index.xml\nSitemap: /broken.xml\nsitemap: {a}/missing.xml\nSitemap: {www}/www.xml\n"
        ),
    );
    web.page(
        "a.test",
        "/",
        r#"<html><body><a href=/a>a</a> <a href="/b?x=1&amp;y=2">b</a></body></html>"#,
    );
    web.page(
        "a.test",
        "/a",
        "<html><body><a href=/deep>deep</a></body></html>",
    );
    for p in ["/deep", "/b?x=1&y=2", "/orphan1", "/orphan2", "/private/p"] {
        web.page("a.test", p, &format!("<html><body>{p}</body></html>"));
    }
    let e = web.origin("e.test");
    web.set(
        "a.test",
        "/index.xml",
        xml(index(&[
            format!("{a}/index2.xml"),
            format!("{a}/pages.xml.gz"),
            format!("{a}/index.xml"),
            format!("{e}/s.xml"),
        ])),
    );
    web.set(
        "a.test",
        "/index2.xml",
        xml(index(&[format!("{a}/pages2.xml"), format!("{a}/html.xml")])),
    );
    let pages = urlset(
        &a,
        &[
            ("/", "2024-05-01"),
            ("/a", ""),
            ("/orphan1", "2023-01-02T03:04:05+00:00"),
            ("/b?x=1&amp;y=2", ""),
            ("/private/p", ""),
        ],
    )
    .replace(
        "</urlset>",
        "<url><loc>http://b.test/x</loc></url></urlset>",
    );
    web.set(
        "a.test",
        "/pages.xml.gz",
        Resp::new(200, "application/gzip", gzip(pages.as_bytes())),
    );
    web.set(
        "a.test",
        "/pages2.xml",
        xml(urlset(
            &a,
            &[("/deep", "2024"), ("/orphan2", ""), ("/a", "dup")],
        ))
        .gzipped(),
    );
    web.set(
        "a.test",
        "/html.xml",
        Resp::html(b"<!DOCTYPE html><html><body><a href=/x>x</a></body></html>".to_vec()),
    );
    web.set(
        "a.test",
        "/broken.xml",
        xml(format!(
            "<urlset><url><loc>{a}/broken-ok</loc></url><url><loc>{a}/lost</lo></url></urlset>"
        )),
    );
    let b = web.origin("b.test");
    web.page("b.test", "/", "<html><body>b</body></html>");
    let mut big = String::from("<urlset>");
    for i in 0..60_000 {
        big.push_str(&format!("<url><loc>{b}/g/{i}</loc></url>"));
    }
    big.push_str("</urlset>");
    web.set("b.test", "/sitemap.xml", xml(big));
    web.page("c.test", "/", "<html><body>c</body></html>");
    let c = web.origin("c.test");
    web.route(
        "c.test",
        "/sitemap.xml",
        Route::Raw(Arc::new(move |_req, stream| {
            let gb: u64 = 1 << 30;
            write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: {gb}\r\n\r\n<urlset>"
            )?;
            let entry = format!("<url><loc>{c}/huge</loc></url>");
            let chunk = entry.repeat(4096);
            let mut sent = 0u64;
            // The reader hangs up after 50 MB; the loop ends when the writes fail.
            while sent < gb {
                stream.write_all(chunk.as_bytes())?;
                sent += chunk.len() as u64;
            }
            Ok(())
        })),
    );
    web.page("d.test", "/", "<html><body>d</body></html>");
    web
}

fn hosts(web: &common::TestWeb) -> Vec<String> {
    ["a.test", "b.test", "c.test", "d.test"]
        .iter()
        .map(|h| web.origin(h))
        .collect()
}

/// summary.csv's `(SitemapUrls, Orphans)` per site folder.
fn sitemap_counts(results: &std::path::Path) -> Vec<(String, String, String)> {
    let (h, rows) = common::read_csv(&results.join("summary.csv"));
    let col = |n: &str| h.iter().position(|x| x == n).unwrap();
    let (folder, urls, orphans) = (col("Folder"), col("SitemapUrls"), col("Orphans"));
    rows.iter()
        .map(|r| {
            (
                r[folder].split('_').next().unwrap().to_owned(),
                r[urls].clone(),
                r[orphans].clone(),
            )
        })
        .collect()
}

fn every_sitemap_read_and_checked(downloader: &str) {
    let web = web();
    let c = common::crawl(
        &hosts(&web),
        &[("Sitemaps", "yes"), ("DownloadingThread", downloader)],
    );
    let port = web.port();
    let a = web.origin("a.test");
    let folder = c.results().join(format!("a.test_{port}"));
    let (h, rows) = common::read_csv(&folder.join("sitemap.csv"));
    assert_eq!(h, ["Url", "InGraph", "Level", "LastMod"]);
    let www = web.origin("www.a.test");
    // In the order listed: the files robots.txt names first, then those the index lists.
    let want: Vec<[String; 4]> = [
        ("/broken-ok", "no", "", ""),
        ("www/a", "no", "", ""),
        ("/", "yes", "0", "2024-05-01"),
        ("/a", "yes", "1", ""),
        ("/orphan1", "no", "", "2023-01-02T03:04:05+00:00"),
        ("/b?x=1&y=2", "yes", "1", ""),
        ("/private/p", "no", "", ""),
        ("/deep", "yes", "2", "2024"),
        ("/orphan2", "no", "", ""),
    ]
    .iter()
    .map(|(p, g, l, m)| {
        let url = match p.strip_prefix("www") {
            Some(rest) => format!("{www}{rest}"),
            None => format!("{a}{p}"),
        };
        [url, g.to_string(), l.to_string(), m.to_string()]
    })
    .collect();
    let got: Vec<[String; 4]> = rows
        .iter()
        .map(|r| [r[0].clone(), r[1].clone(), r[2].clone(), r[3].clone()])
        .collect();
    assert_eq!(got, want);
    // Sitemaps seed nothing: the pages only they list were not fetched.
    for p in ["/orphan1", "/orphan2", "/private/p", "/broken-ok"] {
        assert_eq!(web.hits("a.test", p), 0, "{p}");
    }
    // Each file once (the index lists itself), nothing from another host, nothing disallowed.
    assert_eq!(web.hits("a.test", "/index.xml"), 1);
    assert_eq!(web.hits("e.test", "/s.xml"), 0);
    // b.test: 50,000 of 60,000 URLs kept; c.test: the first 50 MB of a gigabyte read.
    let b = common::read_csv(&c.results().join(format!("b.test_{port}/sitemap.csv"))).1;
    assert_eq!(b.len(), 50_000);
    assert_eq!(b[0][0], format!("{}/g/0", web.origin("b.test")));
    let counts = sitemap_counts(&c.results());
    assert_eq!(
        counts,
        [
            ("a.test".into(), "9".into(), "5".into()),
            ("b.test".into(), "50000".into(), "50000".into()),
            ("c.test".into(), "1".into(), "1".into()),
            ("d.test".into(), "0".into(), "0".into()),
        ]
    );
    let errors = std::fs::read_to_string(c.dir.path().join("logs/error_log.csv")).unwrap();
    for said in [
        "sitemap: malformed XML at byte",
        "missing.xml,sitemap not read: status 404",
        "not a sitemap: its root element is <html>",
        "sitemap index lists 1 sitemaps read already",
        "sitemap not read: it is on another host",
        "sitemap lists 1 URLs that are not on the site",
        "more than 50000 URLs (the protocol's limit): 10000 more not read",
        "sitemap larger than 50 MB",
    ] {
        assert!(errors.contains(said), "{said:?} not in:\n{errors}");
    }
    // d.test has no sitemap: that is no problem worth a line.
    assert!(!errors.lines().any(|l| l.contains("d.test")), "{errors}");
    // Read before any page of the site, each request in the site's turn (robots.txt's
    // Crawl-delay of 0.15 s holds from the sitemaps on).
    let mut a_requests: Vec<_> = web
        .server
        .requests()
        .into_iter()
        .filter(|r| r.host == "a.test")
        .collect();
    a_requests.sort_by_key(|r| r.start);
    let first_page = a_requests
        .iter()
        .position(|r| {
            !r.target.ends_with(".xml") && !r.target.ends_with(".gz") && r.target != "/robots.txt"
        })
        .unwrap();
    let sitemap_files = a_requests[..first_page].len() - 1;
    assert_eq!(sitemap_files, 7, "{:?}", &a_requests[..first_page]);
    for w in a_requests.windows(2) {
        let gap = w[1].start - w[0].start;
        assert!(
            gap >= Duration::from_millis(145),
            "{} then {} after {gap:?}",
            w[0].target,
            w[1].target
        );
    }
}

#[test]
fn every_sitemap_read_and_checked_dt0() {
    every_sitemap_read_and_checked("DT0");
}

#[test]
fn every_sitemap_read_and_checked_dt1() {
    every_sitemap_read_and_checked("DT1");
}

/// The graph is what the links make, whether sitemaps are read or not: every graph file is
/// byte-identical, and without them there is no sitemap.csv and summary.csv's columns are
/// empty.
#[test]
fn sitemaps_change_no_graph_file() {
    let web = web();
    let hosts = hosts(&web);
    let with = common::crawl(&hosts, &[("Sitemaps", "yes")]);
    let without = common::crawl(&hosts, &[]);
    for h in ["a.test", "b.test", "c.test", "d.test"] {
        let folder = format!("{h}_{}", web.port());
        assert_eq!(
            common::result_bytes(&with.results().join(&folder)),
            common::result_bytes(&without.results().join(&folder)),
            "{h}"
        );
        assert!(!without.results().join(&folder).join("sitemap.csv").exists());
    }
    assert!(
        sitemap_counts(&without.results())
            .iter()
            .all(|(_, u, o)| u.is_empty() && o.is_empty())
    );
    // The report's sites table shows the counts where sitemaps were read.
    let report =
        |c: &common::Crawled| std::fs::read_to_string(c.results().join("report.html")).unwrap();
    assert!(report(&with).contains("<th>sitemap pages</th><th>orphans</th>"));
    assert!(!report(&without).contains("<th>orphans</th>"));
}

/// A stop while a sitemap is being read acts within seconds (the read is abandoned like a
/// page's), and the next run reads the sitemap again and writes it with the graph.
fn a_stop_during_a_slow_sitemap_acts_at_once_and_the_next_run_reads_it(downloader: &str) {
    let web = common::TestWeb::new();
    let a = web.origin("a.test");
    web.page("a.test", "/", "<html><body><a href=/x>x</a></body></html>");
    web.page("a.test", "/x", "<html><body>x</body></html>");
    let slow = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let body = urlset(&a, &[("/x", ""), ("/lone", "")]);
    let flag = Arc::clone(&slow);
    let asked = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let arrived = Arc::clone(&asked);
    web.route(
        "a.test",
        "/sitemap.xml",
        Route::Generated(Arc::new(move |_| {
            arrived.store(true, std::sync::atomic::Ordering::SeqCst);
            let delay = if flag.load(std::sync::atomic::Ordering::SeqCst) {
                Duration::from_secs(20)
            } else {
                Duration::ZERO
            };
            xml(body.clone()).delayed(delay)
        })),
    );
    let dir = common::prepare(
        std::slice::from_ref(&a),
        &[("Sitemaps", "yes"), ("DownloadingThread", downloader)],
    );
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_rccrawler"))
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let until = std::time::Instant::now() + Duration::from_secs(30);
    // Asked for (the server's record of a request is made when its answer ends).
    while !asked.load(std::sync::atomic::Ordering::SeqCst) {
        assert!(
            std::time::Instant::now() < until,
            "the sitemap was never asked for"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let stopped = std::time::Instant::now();
    std::fs::write(dir.path().join("stop.txt"), "").unwrap();
    let status = common::wait_exit(&mut child, Duration::from_secs(30), String::new);
    let took = stopped.elapsed();
    assert_eq!(status.code(), Some(0));
    // A second to abandon requests under way; generous for a loaded machine.
    assert!(took < Duration::from_secs(6), "the stop took {took:?}");
    assert_eq!(
        web.hits("a.test", "/"),
        0,
        "no page before the sitemap: {:?}",
        web.server.requests()
    );
    slow.store(false, std::sync::atomic::Ordering::SeqCst);
    std::fs::remove_file(dir.path().join("stop.txt")).unwrap();
    let out = common::run_binary(dir.path(), &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let folder = dir.path().join(format!("results/a.test_{}", web.port()));
    let (_, rows) = common::read_csv(&folder.join("sitemap.csv"));
    let rows: Vec<(String, String, String)> = rows
        .iter()
        .map(|r| (r[0].clone(), r[1].clone(), r[2].clone()))
        .collect();
    assert_eq!(
        rows,
        [
            (format!("{a}/x"), "yes".into(), "1".into()),
            (format!("{a}/lone"), "no".into(), String::new()),
        ]
    );
    assert_eq!(
        sitemap_counts(&dir.path().join("results")),
        [("a.test".into(), "2".into(), "1".into())]
    );
}

#[test]
fn a_stop_during_a_slow_sitemap_acts_at_once_dt0() {
    a_stop_during_a_slow_sitemap_acts_at_once_and_the_next_run_reads_it("DT0");
}

#[test]
fn a_stop_during_a_slow_sitemap_acts_at_once_dt1() {
    a_stop_during_a_slow_sitemap_acts_at_once_and_the_next_run_reads_it("DT1");
}

/// `SitemapSeeds = yes`: once the links lead to nothing more, the sitemap's orphans are
/// fetched — those on the site that robots.txt, hosts.txt and the URL rules allow — and are
/// nodes with an empty `Level` and `Source = sitemap`, after the others; no arc leads to them,
/// their own links are arcs where they reach a node and are not followed; one that redirects
/// or repeats a page is an address of its node; a page links reach beyond `maxCrawlLevel` is
/// no orphan.
#[test]
fn sitemap_seeds_crawl_the_orphans_as_nodes_without_a_level() {
    let web = common::TestWeb::new();
    let a = web.origin("a.test");
    let www = web.origin("www.a.test");
    web.robots("a.test", "User-agent: *\nDisallow: /private\n");
    web.page("a.test", "/", "<html><body><a href=/a>a</a></body></html>");
    let a_page = "<html><body><a href=/deep>deep</a> A</body></html>";
    web.page("a.test", "/a", a_page);
    web.page("a.test", "/deep", "<html><body>deep</body></html>");
    web.page(
        "a.test",
        "/o1",
        "<html><body><a href=/o2>o2</a> <a href=/a>a</a> <a href=/unlinked>u</a></body></html>",
    );
    web.page(
        "a.test",
        "/o2",
        "<html><body><a href=/o1>o1</a></body></html>",
    );
    web.set("a.test", "/o-redirect", Resp::redirect(301, "/o3"));
    web.page("a.test", "/o3", "<html><body>o3</body></html>");
    web.page("a.test", "/o-dup", a_page);
    for p in ["/unlinked", "/private/p", "/excluded/x", "/doc.pdf"] {
        web.page("a.test", p, "<html><body>never</body></html>");
    }
    let listed = [
        "/",
        "/a",
        "/deep",
        "/o1",
        "/o2",
        "/o-redirect",
        "/o-dup",
        "/o-404",
        "/private/p",
        "/doc.pdf",
        "/excluded/x",
    ];
    let mut body = urlset(&a, &listed.iter().map(|p| (*p, "")).collect::<Vec<_>>());
    body = body.replace(
        "</urlset>",
        &format!("<url><loc>{www}/a</loc></url></urlset>"),
    );
    web.set("a.test", "/sitemap.xml", xml(body));
    let dir = common::prepare(
        &[],
        &[
            ("SitemapSeeds", "yes"),
            ("ResultUnloaders", "GephiSiteGraphRU,TestRU,ReportRU"),
        ],
    );
    std::fs::write(
        dir.path().join("hosts.txt"),
        format!("{a};1;1;0;exclude=/excluded/"),
    )
    .unwrap();
    let report = common::run_in(dir.path());
    // TestRU's checks pass: an orphan has no level and no path from the home page.
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    let folder = dir.path().join(format!("results/a.test_{}", web.port()));
    let (h, nodes) = common::read_csv(&folder.join("nodes.csv"));
    let col = |n: &str| h.iter().position(|x| x == n).unwrap();
    let (level, source) = (col("Level"), col("Source"));
    let got: Vec<(String, String, String)> = nodes
        .iter()
        .map(|r| (r[1].replace(&a, ""), r[level].clone(), r[source].clone()))
        .collect();
    let want: Vec<(String, String, String)> = [
        ("/", "0", "link"),
        ("/a", "1", "link"),
        ("/o1", "", "sitemap"),
        ("/o2", "", "sitemap"),
        ("/o3", "", "sitemap"),
    ]
    .iter()
    .map(|(u, l, s)| (u.to_string(), l.to_string(), s.to_string()))
    .collect();
    assert_eq!(got, want);
    // Arcs: the link pages', and the orphans' own where they reach a node.
    let files = common::SiteFiles::read(&folder);
    let mut arcs: Vec<(String, String)> = files
        .edge_labels()
        .into_iter()
        .map(|(s, t, _)| (s.replace(&a, ""), t.replace(&a, "")))
        .collect();
    arcs.sort();
    let want_arcs: Vec<(String, String)> =
        [("/", "/a"), ("/o1", "/a"), ("/o1", "/o2"), ("/o2", "/o1")]
            .iter()
            .map(|(s, t)| (s.to_string(), t.to_string()))
            .collect();
    assert_eq!(arcs, want_arcs);
    let (_, dups) = common::read_csv(&folder.join("duplicates.csv"));
    let mut dups: Vec<(String, String)> = dups
        .iter()
        .map(|r| (r[0].replace(&a, ""), r[2].clone()))
        .collect();
    dups.sort();
    assert_eq!(
        dups,
        [
            ("/o-dup".to_string(), "same content".to_string()),
            ("/o-redirect".to_string(), "redirect".to_string()),
        ]
    );
    // Fetched after every page the links reach; never what the rules keep out, nor what only
    // an orphan links to.
    let requests = web.server.requests();
    let at = |p: &str| {
        requests
            .iter()
            .position(|r| r.host == "a.test" && r.target == p)
    };
    let last_link_page = at("/a").unwrap().max(at("/").unwrap());
    for p in ["/o1", "/o2", "/o-redirect", "/o-dup", "/o-404"] {
        assert!(
            at(p).unwrap() > last_link_page,
            "{p} fetched before the links ran out"
        );
    }
    for p in [
        "/private/p",
        "/excluded/x",
        "/doc.pdf",
        "/unlinked",
        "/deep",
    ] {
        assert_eq!(web.hits("a.test", p), 0, "{p}");
    }
    assert_eq!(web.hits("www.a.test", "/a"), 0);
    // sitemap.csv: orphans have no level; a page beyond maxCrawlLevel is reached, not one.
    let (_, rows) = common::read_csv(&folder.join("sitemap.csv"));
    let got: Vec<(String, String, String)> = rows
        .iter()
        .map(|r| {
            (
                r[0].replace(&a, "").replace(&www, "www"),
                r[1].clone(),
                r[2].clone(),
            )
        })
        .collect();
    let want: Vec<(String, String, String)> = [
        ("/", "yes", "0"),
        ("/a", "yes", "1"),
        ("/deep", "no", "2"),
        ("/o1", "yes", ""),
        ("/o2", "yes", ""),
        ("/o-redirect", "yes", ""),
        ("/o-dup", "yes", ""),
        ("/o-404", "no", ""),
        ("/private/p", "no", ""),
        ("/doc.pdf", "no", ""),
        ("/excluded/x", "no", ""),
        ("www/a", "no", ""),
    ]
    .iter()
    .map(|(u, g, l)| (u.to_string(), g.to_string(), l.to_string()))
    .collect();
    assert_eq!(got, want);
    assert_eq!(
        sitemap_counts(&dir.path().join("results")),
        [("a.test".into(), "12".into(), "9".into())]
    );
}

/// A site whose home page moved (`http://a.test/` → `http://www.a.test/`): its sitemap, read
/// before the move shows, names the new address, and the orphans there are crawled as the
/// site's once its links lead to nothing more.
#[test]
fn orphans_at_the_address_the_home_page_moved_to_are_the_sites() {
    let web = common::TestWeb::new();
    let www = web.origin("www.a.test");
    web.set("a.test", "/", Resp::redirect(301, &format!("{www}/")));
    web.page(
        "www.a.test",
        "/",
        "<html><body><a href=/p>p</a></body></html>",
    );
    web.page("www.a.test", "/p", "<html><body>p</body></html>");
    web.page("www.a.test", "/lonely", "<html><body>lonely</body></html>");
    web.set(
        "a.test",
        "/sitemap.xml",
        xml(urlset(&www, &[("/", ""), ("/p", ""), ("/lonely", "")])),
    );
    let c = common::crawl(&[web.origin("a.test")], &[("SitemapSeeds", "yes")]);
    let folder = c.results().join(format!("a.test_{}", web.port()));
    let (h, nodes) = common::read_csv(&folder.join("nodes.csv"));
    let (level, source) = (
        h.iter().position(|x| x == "Level").unwrap(),
        h.iter().position(|x| x == "Source").unwrap(),
    );
    let got: Vec<(String, String, String)> = nodes
        .iter()
        .map(|r| (r[1].replace(&www, ""), r[level].clone(), r[source].clone()))
        .collect();
    assert_eq!(
        got,
        [
            ("/".to_string(), "0".to_string(), "link".to_string()),
            ("/p".to_string(), "1".to_string(), "link".to_string()),
            ("/lonely".to_string(), String::new(), "sitemap".to_string()),
        ]
    );
}

// See: issue 63 item 5a — an index of 1,200 indexes each listing 50 more (an index of
// 10,000 of 10,000 queued 9,999,000 URLs): at most 1,000 files are read per site, the rest
// is neither read nor queued, and the console's error log says how many were left.
#[test]
fn sitemap_indexes_past_the_file_limit_are_neither_read_nor_queued() {
    let web = common::TestWeb::new();
    let a = web.origin("a.test");
    web.page("a.test", "/", "<p>home</p>");
    let first: Vec<String> = (0..1200).map(|i| format!("{a}/idx/{i}.xml")).collect();
    web.set("a.test", "/sitemap.xml", xml(index(&first)));
    let origin = a.clone();
    web.server.route_prefix(
        "a.test",
        "/idx/",
        Route::Generated(Arc::new(move |req: &rccrawler::base::loopback::Request| {
            let n = req
                .target
                .trim_start_matches("/idx/")
                .trim_end_matches(".xml");
            let more: Vec<String> = (0..50)
                .map(|j| format!("{origin}/idx/{n}-{j}.xml"))
                .collect();
            xml(index(&more))
        })),
    );
    let c = common::crawl(std::slice::from_ref(&a), &[("Sitemaps", "yes")]);
    let read = web
        .server
        .requests()
        .iter()
        .filter(|r| r.target.starts_with("/idx/") || r.target == "/sitemap.xml")
        .count();
    assert_eq!(read, 1000);
    let log = std::fs::read_to_string(c.dir.path().join("logs/error_log.csv")).unwrap();
    // The first file's 1,200 less the 999 queued, and every index's 50.
    let left = 1200 - 999 + 999 * 50;
    assert!(
        log.contains(&format!(
            "sitemap indexes list {left} more sitemaps than the 1000 read per site"
        )),
        "{log}"
    );
}

// See: issue 63 item 5b — sitemap URLs longer than MaxUrlLength are left out (a link that long
// is a bad link) and said; the others are kept once, with their lastmod.
#[test]
fn sitemap_urls_longer_than_max_url_length_are_left_out() {
    let web = common::TestWeb::new();
    let a = web.origin("a.test");
    web.page("a.test", "/", r#"<a href="/p0">p0</a>"#);
    let long = format!("/long/{}", "x".repeat(3000));
    let mut paths: Vec<(String, &str)> = (0..5).map(|i| (format!("/p{i}"), "2026-01-02")).collect();
    paths.extend((0..100).map(|i| (format!("{long}{i}"), "")));
    // Listed twice: kept once.
    paths.push(("/p1".to_owned(), "2026-01-03"));
    let refs: Vec<(&str, &str)> = paths.iter().map(|(p, l)| (p.as_str(), *l)).collect();
    web.set("a.test", "/sitemap.xml", xml(urlset(&a, &refs)));
    let c = common::crawl(std::slice::from_ref(&a), &[("Sitemaps", "yes")]);
    let counts = sitemap_counts(&c.dir.path().join("results"));
    assert_eq!(counts[0].1, "5", "{counts:?}");
    let log = std::fs::read_to_string(c.dir.path().join("logs/error_log.csv")).unwrap();
    assert!(
        log.contains("sitemap lists 100 URLs longer than MaxUrlLength (2048 bytes): left out"),
        "{log}"
    );
}

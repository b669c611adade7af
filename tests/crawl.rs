//! End to end: a test web with every case of SPEC §2–§4, crawled for real over loopback, and
//! the whole expected output asserted exactly (nodes with levels, arcs with weights, external
//! links with anchors, bad links with reasons, duplicates).
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::sync::Arc;

use common::{SiteFiles, TestWeb, crawl};
use pretty_assertions::assert_eq;
use rccrawler::base::loopback::{Resp, Route};

/// Builds the test web; returns it with the site's `http://a.test:PORT`.
fn build_web() -> (TestWeb, String) {
    let web = TestWeb::new();
    let a = web.origin("a.test");
    let p = web.port();
    web.robots(
        "a.test",
        "User-agent: *\nDisallow: /private/\nAllow: /private/public.html\n",
    );
    web.page(
        "a.test",
        "/",
        &format!(
            r#"<html><head><title>Home</title></head><body>
<a href="/about.html">About</a>
<a href="HTTP://A.TEST:{p}/about.html">About again</a>
<a href="/%7euser/">User</a>
<a href="/a//b/./c/../page.html#frag">Dots</a>
<a href="/search?b=2&amp;a=1&amp;empty=&amp;&amp;flag">Search</a>
<a href="/search?a=1&amp;b=2">Search again</a>
<a href="/dir/">Dir</a>
<a href="/dir/index.html">Dir index</a>
<a href="/r301">301</a> <a href="/r302">302</a> <a href="/r303">303</a> <a href="/r307">307</a> <a href="/r308">308</a>
<a href="/chain1">Chain</a>
<a href="/loop1">Loop</a>
<a href="/away">Away</a>
<a href="/rel">Relative</a>
<a href="/docs">Docs</a>
<a href="/data">Data</a>
<a href="/report.pdf">Report</a>
<a href="/missing.html">Missing</a>
<a href="/error.html">Error</a>
<a href="/private/secret.html">Secret</a>
<a href="/private/public.html">Public</a>
<a href="/cal/1.html">Calendar</a>
<a href="/frames.html">Frames</a>
<a href="/based/page.html">Based</a>
<a href="/cp1251.html">cp1251</a>
<a href="/koi8.html">koi8</a>
<a href="mailto:x@a.test">Mail</a> <a href="javascript:void(0)">JS</a> <a href="tel:+123">Tel</a>
<a href="http://sub.a.test:{p}/">Subdomain</a>
<a href="https://b.test/ext">External B</a>
</body></html>"#
        ),
    );
    web.page(
        "a.test",
        "/about.html",
        r#"<a href="/">Home</a><iframe src="/embedded.html"></iframe>"#,
    );
    web.page("a.test", "/embedded.html", "<p>embedded</p>");
    web.page("a.test", "/~user/", r#"<a href="../">Up</a>"#);
    web.page(
        "a.test",
        "/a/b/page.html",
        r#"<a href="../../about.html">About</a>"#,
    );
    web.page("a.test", "/search?a=1&b=2", "<p>results</p>");
    // Same bytes under two URLs that normalization cannot merge.
    let dir = r#"<p>directory</p><a href="sub.html">Sub</a>"#;
    web.page("a.test", "/dir/", dir);
    web.page("a.test", "/dir/index.html", dir);
    web.page("a.test", "/dir/sub.html", r#"<a href="/">Home</a>"#);
    for code in [301, 302, 303, 307, 308] {
        web.set(
            "a.test",
            &format!("/r{code}"),
            Resp::redirect(code, &format!("/target-{code}.html")),
        );
        web.page(
            "a.test",
            &format!("/target-{code}.html"),
            &format!("<p>target of {code}</p>"),
        );
    }
    web.set("a.test", "/chain1", Resp::redirect(301, "/chain2"));
    web.set(
        "a.test",
        "/chain2",
        Resp::redirect(302, &format!("{a}/chain-end.html")),
    );
    web.page("a.test", "/chain-end.html", "<p>end of chain</p>");
    web.set("a.test", "/loop1", Resp::redirect(302, "/loop2"));
    web.set("a.test", "/loop2", Resp::redirect(302, "/loop1"));
    web.set(
        "a.test",
        "/away",
        Resp::redirect(301, &format!("http://b.test:{p}/landing.html")),
    );
    web.set("a.test", "/rel", Resp::redirect(302, "sub/rel-target.html"));
    web.page("a.test", "/sub/rel-target.html", "<p>relative location</p>");
    web.set("a.test", "/docs", Resp::redirect(301, "/docs/"));
    web.page("a.test", "/docs/", r#"<a href="intro.html">Intro</a>"#);
    web.page("a.test", "/docs/intro.html", r#"<a href="/docs">Docs</a>"#);
    web.set(
        "a.test",
        "/data",
        Resp::new(200, "application/octet-stream", vec![0u8, 1, 2]),
    );
    web.set(
        "a.test",
        "/report.pdf",
        Resp::new(200, "application/pdf", "%PDF"),
    );
    web.set("a.test", "/error.html", Resp::new(500, "text/html", "oops"));
    web.page("a.test", "/private/secret.html", "secret");
    web.page("a.test", "/private/public.html", "<p>public</p>");
    // An endless URL space: every calendar page links to the next one.
    web.server.route_prefix(
        "a.test",
        "/cal/",
        Route::Generated(Arc::new(|req| {
            let n: u32 = req
                .target
                .trim_start_matches("/cal/")
                .trim_end_matches(".html")
                .parse()
                .unwrap_or(0);
            Resp::html(format!(
                "<p>month {n}</p><a href=\"/cal/{}.html\">Next</a>",
                n + 1
            ))
        })),
    );
    web.page(
        "a.test",
        "/frames.html",
        r#"<frameset><frame src="/frame-a.html"><frame src="frame-b.html"></frameset>"#,
    );
    web.page("a.test", "/frame-a.html", "<p>a</p>");
    web.page("a.test", "/frame-b.html", "<p>b</p>");
    web.page(
        "a.test",
        "/based/page.html",
        &format!(r#"<head><base href="{a}/other/"></head><a href="target.html">Based link</a>"#),
    );
    web.page("a.test", "/other/target.html", "<p>based target</p>");
    let (cp1251, _, _) = encoding_rs::WINDOWS_1251.encode(
        r#"<title>Кириллица</title><a href="http://b.test/ru">Партнёр</a> <a href="/">Главная</a>"#,
    );
    web.set(
        "a.test",
        "/cp1251.html",
        Resp::new(200, "text/html; charset=windows-1251", cp1251.into_owned()),
    );
    let (koi8, _, _) = encoding_rs::KOI8_R.encode(
        r#"<meta charset="koi8-r"><title>КОИ-8</title><a href="http://b.test/koi">Привет</a>"#,
    );
    web.set(
        "a.test",
        "/koi8.html",
        Resp::new(200, "text/html", koi8.into_owned()),
    );
    (web, a)
}

#[test]
fn small_site_gives_exactly_the_expected_graph() {
    let (web, a) = build_web();
    let p = web.port();
    let crawled = crawl(&[format!("{a};4;4;0")], &[]);
    assert_eq!(crawled.report.reason, rccrawler::StopReason::WorkDone);
    let site = crawled.site(&format!("a.test_{p}"));
    let path = |s: &str| {
        s.strip_prefix(&a)
            .map(str::to_owned)
            .unwrap_or_else(|| s.to_owned())
    };

    let nodes: Vec<(u32, String, u32)> = site
        .nodes
        .iter()
        .map(|(id, l, lv)| (*id, path(l), *lv))
        .collect();
    let expected_nodes: Vec<(u32, String, u32)> = [
        ("/", 0),
        ("/about.html", 1),
        ("/~user/", 1),
        ("/a/b/page.html", 1),
        ("/search?a=1&b=2", 1),
        ("/dir/", 1),
        ("/target-301.html", 1),
        ("/target-302.html", 1),
        ("/target-303.html", 1),
        ("/target-307.html", 1),
        ("/target-308.html", 1),
        ("/chain-end.html", 1),
        ("/sub/rel-target.html", 1),
        ("/docs/", 1),
        ("/private/public.html", 1),
        ("/cal/1.html", 1),
        ("/frames.html", 1),
        ("/based/page.html", 1),
        ("/cp1251.html", 1),
        ("/koi8.html", 1),
        ("/embedded.html", 2),
        ("/dir/sub.html", 2),
        ("/docs/intro.html", 2),
        ("/cal/2.html", 2),
        ("/frame-a.html", 2),
        ("/frame-b.html", 2),
        ("/other/target.html", 2),
        ("/cal/3.html", 3),
        ("/cal/4.html", 4),
    ]
    .iter()
    .enumerate()
    .map(|(i, (p, l))| (i as u32 + 1, (*p).to_owned(), *l))
    .collect();
    assert_eq!(nodes, expected_nodes);

    let edges: Vec<(String, String, u32)> = site
        .edge_labels()
        .into_iter()
        .map(|(s, t, w)| (path(&s), path(&t), w))
        .collect();
    let mut expected_edges: Vec<(String, String, u32)> = [
        ("/", "/about.html", 2),
        ("/", "/~user/", 1),
        ("/", "/a/b/page.html", 1),
        ("/", "/search?a=1&b=2", 2),
        ("/", "/dir/", 2),
        ("/", "/target-301.html", 1),
        ("/", "/target-302.html", 1),
        ("/", "/target-303.html", 1),
        ("/", "/target-307.html", 1),
        ("/", "/target-308.html", 1),
        ("/", "/chain-end.html", 1),
        ("/", "/sub/rel-target.html", 1),
        ("/", "/docs/", 1),
        ("/", "/private/public.html", 1),
        ("/", "/cal/1.html", 1),
        ("/", "/frames.html", 1),
        ("/", "/based/page.html", 1),
        ("/", "/cp1251.html", 1),
        ("/", "/koi8.html", 1),
        ("/about.html", "/", 1),
        ("/about.html", "/embedded.html", 1),
        ("/~user/", "/", 1),
        ("/a/b/page.html", "/about.html", 1),
        ("/dir/", "/dir/sub.html", 1),
        ("/dir/sub.html", "/", 1),
        ("/docs/", "/docs/intro.html", 1),
        ("/docs/intro.html", "/docs/", 1),
        ("/cal/1.html", "/cal/2.html", 1),
        ("/cal/2.html", "/cal/3.html", 1),
        ("/cal/3.html", "/cal/4.html", 1),
        ("/frames.html", "/frame-a.html", 1),
        ("/frames.html", "/frame-b.html", 1),
        ("/based/page.html", "/other/target.html", 1),
        ("/cp1251.html", "/", 1),
    ]
    .iter()
    .map(|(s, t, w)| ((*s).to_owned(), (*t).to_owned(), *w))
    .collect();
    expected_edges.sort();
    assert_eq!(edges, expected_edges);

    let b = |path: &str| format!("http://b.test{path}");
    assert_eq!(
        site.external,
        vec![
            (
                1,
                format!("http://b.test:{p}/landing.html"),
                "b.test".into(),
                "Away".into()
            ),
            (
                1,
                format!("http://sub.a.test:{p}/"),
                "sub.a.test".into(),
                "Subdomain".into()
            ),
            (
                1,
                "https://b.test/ext".into(),
                "b.test".into(),
                "External B".into()
            ),
            (19, b("/ru"), "b.test".into(), "Партнёр".into()),
            (20, b("/koi"), "b.test".into(), "Привет".into()),
        ]
    );

    let bad: Vec<(u32, String, String)> = site
        .bad
        .iter()
        .map(|(s, u, r)| (*s, path(u), r.clone()))
        .collect();
    assert_eq!(
        bad,
        [
            ("/loop1", "redirect loop"),
            ("/data", "not html (application/octet-stream)"),
            ("/report.pdf", "not html (extension pdf)"),
            ("/missing.html", "status 404"),
            ("/error.html", "status 500"),
            ("/private/secret.html", "robots"),
            ("mailto:x@a.test", "scheme mailto"),
            ("javascript:void(0)", "scheme javascript"),
            ("tel:+123", "scheme tel"),
        ]
        .iter()
        .map(|(u, r)| (1, (*u).to_owned(), (*r).to_owned()))
        .collect::<Vec<_>>()
    );

    let dups: Vec<(String, u32, String)> = site
        .duplicates
        .iter()
        .map(|(u, id, r)| (path(u), *id, r.clone()))
        .collect();
    assert_eq!(
        dups,
        [
            ("/dir/index.html", 6, "same content"),
            ("/r301", 7, "redirect"),
            ("/r302", 8, "redirect"),
            ("/r303", 9, "redirect"),
            ("/r307", 10, "redirect"),
            ("/r308", 11, "redirect"),
            ("/chain1", 12, "redirect"),
            ("/chain2", 12, "redirect"),
            ("/rel", 13, "redirect"),
            ("/docs", 14, "redirect"),
        ]
        .iter()
        .map(|(u, id, r)| ((*u).to_owned(), *id, (*r).to_owned()))
        .collect::<Vec<_>>()
    );

    site.assert_levels_are_bfs_depths();

    // Never fetched: excluded by extension, robots, level, or on another site.
    assert_eq!(web.hits("a.test", "/report.pdf"), 0);
    assert_eq!(web.hits("a.test", "/private/secret.html"), 0);
    assert_eq!(web.hits("a.test", "/cal/5.html"), 0);
    assert_eq!(web.hits("a.test", "/robots.txt"), 1);
    let elsewhere = web
        .server
        .requests()
        .iter()
        .filter(|r| r.host != "a.test")
        .count();
    assert_eq!(elsewhere, 0, "no request may leave the crawled site");

    let summary = common::read_csv(&crawled.results().join("summary.csv"));
    assert_eq!(summary.1.len(), 1);
    assert_eq!(
        summary.1[0][2..=9],
        [
            "29",
            &site.edges.len().to_string(),
            "5",
            "9",
            "10",
            "4",
            &summary.1[0][8],
            "done"
        ]
    );
}

#[test]
fn output_files_follow_gephi_rules() {
    let web = TestWeb::new();
    let a = web.origin("a.test");
    web.page(
        "a.test",
        "/",
        "<title>Back\\slash \"quoted\"\u{7}</title><a href=\"http://b.test/\">C:\\dir \"x\"\ttab</a><a href=\"/2024\">2024</a>",
    );
    web.page("a.test", "/2024", "<title>2024</title>");
    let crawled = crawl(&[a], &[]);
    let dir = crawled.results().join(format!("a.test_{}", web.port()));
    let nodes = std::fs::read_to_string(dir.join("nodes.csv")).unwrap();
    let ext = std::fs::read_to_string(dir.join("external_links.csv")).unwrap();
    assert!(
        nodes.starts_with(
            "Id,Label,Level,Title,OutDegree,InDegree,ExternalLinks,Bytes,ContentHash,TextHash,Canonical,Robots,Host,Source,PageRank,Harmonic\n"
        ),
        "see issue 21: the same columns whatever the URL filter, Host included: {nodes}"
    );
    assert!(
        nodes.contains(",\"Back\\\\slash \"\"quoted\"\"\","),
        "backslash doubled, quotes doubled, BEL removed: {nodes}"
    );
    assert!(
        nodes.contains(",\"2024\","),
        "a numeric-looking title is still quoted text: {nodes}"
    );
    // See: issue 21. external_links.csv is plain RFC 4180 (pandas, R, Python's csv read it
    // unchanged): the backslash stays single; only nodes.csv and edges.csv, which Gephi
    // imports, double it.
    assert_eq!(
        ext,
        "Source,Url,Host,Anchor,Rel\n1,\"http://b.test/\",\"b.test\",\"C:\\dir \"\"x\"\" tab\",\"\"\n"
    );
    let gexf = std::fs::read_to_string(dir.join("graph.gexf")).unwrap();
    assert!(gexf.contains(r#"<attribute id="level" title="Level" type="integer"/>"#));
    assert!(gexf.contains("Back\\slash &quot;quoted&quot;"), "{gexf}");
    // See: issue 21. graph.gexf carries every per-page attribute of nodes.csv, typed, with
    // the same values.
    let (_, rows) = common::read_csv(&dir.join("nodes.csv"));
    let home = &rows[0];
    for (id, title, kind, value) in [
        ("outdegree", "OutDegree", "integer", &home[4]),
        ("indegree", "InDegree", "integer", &home[5]),
        ("externallinks", "ExternalLinks", "integer", &home[6]),
        ("bytes", "Bytes", "integer", &home[7]),
        ("contenthash", "ContentHash", "string", &home[8]),
        ("canonical", "Canonical", "string", &home[10]),
        ("robots", "Robots", "string", &home[11]),
        ("host", "Host", "string", &home[12]),
        ("source", "Source", "string", &home[13]),
        ("pagerank", "PageRank", "double", &home[14]),
        ("harmonic", "Harmonic", "double", &home[15]),
    ] {
        assert!(
            gexf.contains(&format!(
                r#"<attribute id="{id}" title="{title}" type="{kind}"/>"#
            )),
            "{id}: {gexf}"
        );
        let node = gexf
            .lines()
            .find(|l| l.contains(r#"<node id="1""#))
            .unwrap();
        assert!(
            node.contains(&format!(r#"<attvalue for="{id}" value="{value}"/>"#)),
            "{id} = {value:?}: {node}"
        );
    }
    assert_eq!(&home[6], "1", "the home page has one external link");
    assert_eq!(&home[12], "a.test");
    // A static page's TextHash is its visible text's hash (issue 64, item 4).
    assert!(
        home[9].len() == 16 && home[9].bytes().all(|b| b.is_ascii_hexdigit()),
        "{:?}",
        home[9]
    );
    assert!(gexf.contains(r#"<attribute id="texthash" title="TextHash" type="string"/>"#));
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn unreachable_home_page_is_reported() {
    let web = TestWeb::new();
    web.set("a.test", "/", Resp::new(500, "text/html", "down"));
    let crawled = crawl(&[web.origin("a.test")], &[]);
    let site = crawled.site(&format!("a.test_{}", web.port()));
    assert!(site.nodes.is_empty());
    assert_eq!(
        site.bad,
        vec![(
            0,
            format!("{}/", web.origin("a.test")),
            "status 500".to_owned()
        )]
    );
    assert_eq!(
        crawled.report.sites[0].state,
        rccrawler::crawl::unload::summary::SiteState::Unreachable
    );
}

#[test]
fn robots_unavailable_disallows_everything() {
    let web = TestWeb::new();
    web.set(
        "a.test",
        "/robots.txt",
        Resp::new(503, "text/plain", "busy"),
    );
    web.page("a.test", "/", "<a href=/x>x</a>");
    let crawled = crawl(&[web.origin("a.test")], &[]);
    let site: SiteFiles = crawled.site(&format!("a.test_{}", web.port()));
    assert!(site.nodes.is_empty());
    assert_eq!(site.bad[0].2, "robots.txt unavailable (status 503)");
    assert_eq!(
        web.hits("a.test", "/"),
        0,
        "nothing is fetched while robots.txt fails"
    );
}

#[test]
fn robots_404_allows_everything_and_only_disallow_flavor_ignores_allow() {
    let web = TestWeb::new();
    web.page("a.test", "/", "<a href=/p/x.html>x</a><a href=/q/>q</a>");
    web.page("a.test", "/p/x.html", "x");
    web.page("a.test", "/q/", "q");
    let crawled = crawl(&[web.origin("a.test")], &[]);
    assert_eq!(
        crawled.report.sites[0].pages, 3,
        "no robots.txt (404): all allowed"
    );

    web.robots(
        "a.test",
        "User-agent: *\nDisallow: /p/\nAllow: /p/x.html\nDisallow: /*q\n",
    );
    let rfc = crawl(&[web.origin("a.test")], &[]);
    assert_eq!(
        rfc.report.sites[0].pages, 2,
        "RFC 9309: Allow /p/x.html wins, /*q matches /q/"
    );
    let paper = crawl(
        &[web.origin("a.test")],
        &[("RobotsTxtClass", "OnlyDisallowRobotsTxt")],
    );
    assert_eq!(
        paper.report.sites[0].pages, 2,
        "the paper's class: Disallow /p/ wins, /*q is literal"
    );
    let site = paper.site(&format!("a.test_{}", web.port()));
    let labels: Vec<_> = site
        .nodes
        .iter()
        .map(|n| {
            n.1.rsplit(&format!("{}", web.port()))
                .next()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(labels, vec!["/", "/q/"]);
}

#[test]
fn user_agent_is_sent_and_names_our_robots_group() {
    let web = TestWeb::new();
    web.robots(
        "a.test",
        "User-agent: *\nDisallow: /\n\nUser-agent: MyResearchBot\nDisallow: /not-for-us\n",
    );
    web.page(
        "a.test",
        "/",
        "<a href=/page>page</a><a href=/not-for-us>no</a>",
    );
    web.page("a.test", "/page", "page");
    let ua = "MyResearchBot/2.0 (+mailto:someone@example.org)";
    let crawled = crawl(&[web.origin("a.test")], &[("UserAgent", ua)]);
    assert_eq!(
        crawled.report.sites[0].pages, 2,
        "our group allows everything but /not-for-us"
    );
    assert_eq!(web.hits("a.test", "/not-for-us"), 0);
    for r in web.server.requests() {
        assert_eq!(r.user_agent.as_deref(), Some(ua), "{}", r.target);
    }
}

#[test]
fn external_links_carry_their_context_when_asked() {
    let web = TestWeb::new();
    web.page(
        "a.test",
        "/",
        "<title>Home</title><p>Our partners include <a href=http://partner.test/>Partner Inc</a> \
         and others, listed here since 2001.</p>\
         <ul><li>Mirror: <a href=http://mirror.test/>mirror</a></li><li><a href=/in>inside</a></li></ul>",
    );
    web.page(
        "a.test",
        "/in",
        "<p>Read <a href=http://partner.test/>it</a>.</p>",
    );
    let hosts = [format!("{};1;5;0", web.origin("a.test"))];
    let c = crawl(&hosts, &[("ExternalLinkContext", "40")]);
    let dir = c.results().join(format!("a.test_{}", web.port()));
    let (header, rows) = common::read_csv(&dir.join("external_links.csv"));
    assert_eq!(
        header,
        ["Source", "Url", "Host", "Anchor", "Context", "Rel"]
    );
    let row = |url: &str, anchor: &str| {
        rows.iter()
            .find(|r| r[1] == url && r[3] == anchor)
            .unwrap_or_else(|| panic!("no row {url} {anchor}: {rows:?}"))[4]
            .clone()
    };
    // 40 characters around the anchor, whole words, the anchor whole.
    assert_eq!(
        row("http://partner.test/", "Partner Inc"),
        "include Partner Inc and others,"
    );
    assert_eq!(row("http://mirror.test/", "mirror"), "Mirror: mirror");
    assert_eq!(row("http://partner.test/", "it"), "Read it.");
    // Off by default: no Context column.
    let plain = crawl(&hosts, &[]);
    let (header, _) = common::read_csv(
        &plain
            .results()
            .join(format!("a.test_{}", web.port()))
            .join("external_links.csv"),
    );
    assert_eq!(header, ["Source", "Url", "Host", "Anchor", "Rel"]);
}

// See: issue 17 — `Fetched` was 37 in one demo run and 38 in another: a redirect target was
// fetched twice, once by its own task and once at the end of another page's redirect chain.
// And the figures of a page with two addresses disagreed (pages recorded vs nodes).
#[test]
fn a_redirect_target_is_fetched_once_and_every_figure_counts_nodes() {
    let web = TestWeb::new();
    web.page(
        "a.test",
        "/",
        "<a href=/a>a</a><a href=/b>b</a><a href=/c>c</a><a href=/copy>copy</a>",
    );
    // /a answers slowly: the chains of /b and /c reach it while its own task is in flight.
    web.set(
        "a.test",
        "/a",
        rccrawler::base::loopback::Resp::html("<title>A</title>")
            .delayed(std::time::Duration::from_millis(300)),
    );
    for from in ["/b", "/c"] {
        web.set(
            "a.test",
            from,
            rccrawler::base::loopback::Resp::redirect(301, "/a"),
        );
    }
    web.page(
        "a.test",
        "/copy",
        "<a href=/a>a</a><a href=/b>b</a><a href=/c>c</a><a href=/copy>copy</a>",
    );
    let mut fetched = Vec::new();
    for threads in ["1", "4"] {
        let before = web.hits("a.test", "/a");
        let c = crawl(
            &[format!("{};4", web.origin("a.test"))],
            &[("DownloadingThreadsCount", threads)],
        );
        assert_eq!(
            web.hits("a.test", "/a") - before,
            1,
            "{threads} threads: /a fetched once"
        );
        let (header, rows) = common::read_csv(&c.results().join("summary.csv"));
        let col = |name: &str| header.iter().position(|h| h == name).unwrap();
        // Home and /a are nodes; /copy is the home page's content again.
        assert_eq!(rows[0][col("Pages")], "2", "{threads} threads");
        assert_eq!(c.report.sites[0].pages, 2);
        fetched.push(rows[0][col("Fetched")].clone());
        let site = c.site(&format!("a.test_{}", web.port()));
        let dups: Vec<&str> = site.duplicates.iter().map(|d| d.2.as_str()).collect();
        assert_eq!(
            dups.len(),
            3,
            "/b, /c (redirect) and /copy (same content): {dups:?}"
        );
    }
    assert_eq!(
        fetched[0], fetched[1],
        "one thread and four make as many fetches"
    );
}

// See: issue 19 — a page's parser classifies each distinct href once and every `#…` href
// once (they all resolve to the base); the results must be what classifying every copy gives.
#[test]
fn repeated_and_fragment_links_count_every_copy() {
    let web = TestWeb::new();
    let a = web.origin("a.test");
    web.robots("a.test", "User-agent: *\nDisallow: /private/\n");
    web.page(
        "a.test",
        "/",
        r##"<a href="#top">1</a><a href="#L2">2</a><a href="#">3</a><a href=" #pad">4</a>
<a href="/x.html">x1</a><a href="/x.html">x2</a><a href="x.html#f">x3</a>
<a href="/private/p.html">p1</a><a href="/private/p.html">p2</a>
<a href="mailto:m@a.test">m1</a><a href="mailto:m@a.test">m2</a>
<a href="http://ext.test/">e1</a><a href="http://ext.test/">e2</a>
<a href="/based.html">based</a>"##,
    );
    web.page(
        "a.test",
        "/x.html",
        "<a href=#again>self</a><a href=/>home</a>",
    );
    // With <base href>, `#…` resolves against the base, not the page.
    web.page(
        "a.test",
        "/based.html",
        r##"<base href="/x.html"><a href="#one">1</a><a href="#two">2</a><a href="/based.html#me">me</a>"##,
    );
    let c = crawl(&[format!("{a};1;5;0")], &[]);
    let site = c.site(&format!("a.test_{}", web.port()));
    let rel = |s: &str| s.strip_prefix(&a).unwrap_or(s).to_owned();
    let edges: Vec<(String, String, u32)> = site
        .edge_labels()
        .into_iter()
        .map(|(s, t, w)| (rel(&s), rel(&t), w))
        .collect();
    let e = |s: &str, t: &str, w: u32| (s.to_owned(), t.to_owned(), w);
    assert_eq!(
        edges,
        [
            e("/", "/", 4),
            e("/", "/based.html", 1),
            e("/", "/x.html", 3),
            e("/based.html", "/based.html", 1),
            e("/based.html", "/x.html", 2),
            e("/x.html", "/", 1),
            e("/x.html", "/x.html", 1),
        ]
    );
    let mut bad: Vec<(String, String)> = site
        .bad
        .iter()
        .map(|(_, u, r)| (rel(u), r.clone()))
        .collect();
    bad.sort();
    // One row per (page, URL), as for every bad link.
    assert_eq!(
        bad,
        [
            ("/private/p.html".to_owned(), "robots".to_owned()),
            ("mailto:m@a.test".to_owned(), "scheme mailto".to_owned())
        ]
    );
    let ext: Vec<&str> = site
        .external
        .iter()
        .map(|(_, _, _, anchor)| anchor.as_str())
        .collect();
    assert_eq!(ext, ["e1", "e2"]);
}

/// See: issue 49, item 4 — per-site control a study needs: hosts.txt's `include=` /
/// `exclude=` (robots.txt's pattern syntax, on path and query) and `pages=` after the paper's
/// four fields. URLs left out are never requested, links to them are bad links `excluded`
/// (a redirect into them too), the home page is always crawled, and `pages=` caps one site.
#[test]
fn hosts_txt_includes_excludes_and_a_page_cap_per_line() {
    let web = TestWeb::new();
    web.page(
        "a.test",
        "/",
        "<a href=/docs/a>a</a><a href=/docs/old/b>b</a><a href=/news/1>n</a>\
         <a href=/docs/moved>m</a><a href=/people/ann.html>p</a><a href=/people/ann>q</a>",
    );
    web.page(
        "a.test",
        "/docs/a",
        "<a href=/>home</a><a href=/docs/c?print=1>c</a>",
    );
    web.page("a.test", "/docs/old/b", "old");
    web.page("a.test", "/docs/c?print=1", "print");
    web.page("a.test", "/news/1", "news");
    web.page("a.test", "/news/2", "news 2");
    web.page("a.test", "/people/ann.html", "ann");
    web.page("a.test", "/people/ann", "ann too");
    web.set("a.test", "/docs/moved", Resp::redirect(301, "/news/2"));
    for n in 0..6 {
        web.page(
            "b.test",
            &format!("/p{n}"),
            &format!("<a href=/p{}>next</a>", n + 1),
        );
    }
    web.page("b.test", "/", "<a href=/p0>p0</a>");
    let lines = [
        format!(
            "{};2;5;0;include=/docs/;include=/people/*.html;exclude=/docs/old/;exclude=/*?print=",
            web.origin("a.test")
        ),
        format!("{};1;9;0;pages=3", web.origin("b.test")),
    ];
    let c = crawl(&lines, &[]);
    let a = c.site(&format!("a.test_{}", web.port()));
    let labels: Vec<String> = a
        .nodes
        .iter()
        .map(|(_, l, _)| {
            l.rsplit_once(&format!(":{}", web.port()))
                .unwrap()
                .1
                .to_owned()
        })
        .collect();
    assert_eq!(labels, ["/", "/docs/a", "/people/ann.html"]);
    let mut bad: Vec<(String, String)> = a
        .bad
        .iter()
        .map(|(_, u, r)| {
            let path = u
                .rsplit_once(&format!(":{}", web.port()))
                .unwrap()
                .1
                .to_owned();
            (path, r.clone())
        })
        .collect();
    bad.sort();
    assert_eq!(
        bad,
        [
            ("/docs/c?print=1".to_owned(), "excluded".to_owned()),
            ("/docs/moved".to_owned(), "excluded".to_owned()),
            ("/docs/old/b".to_owned(), "excluded".to_owned()),
            ("/news/1".to_owned(), "excluded".to_owned()),
            ("/people/ann".to_owned(), "excluded".to_owned()),
        ]
    );
    for path in [
        "/docs/old/b",
        "/news/1",
        "/news/2",
        "/docs/c?print=1",
        "/people/ann",
    ] {
        assert_eq!(web.hits("a.test", path), 0, "{path} was requested");
    }
    // pages=3 caps b.test alone, and summary.csv says which limit it was.
    let b = c.site(&format!("b.test_{}", web.port()));
    assert_eq!(b.nodes.len(), 3);
    let (head, rows) = common::read_csv(&c.results().join("summary.csv"));
    let col = |name: &str| head.iter().position(|h| h == name).unwrap();
    assert_eq!(rows[1][col("State")], "page limit");
    assert_eq!(rows[1][col("Reason")], "pages=3 in hosts.txt");
    assert_eq!(rows[0][col("State")], "done");
}

//! Rules that hold on sites they were not built on (issue 64): yes/no settings read one way
//! and recorded one way, …. Every case runs the real binary or a real crawl against loopback
//! servers.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::path::Path;

use common::{TestWeb, prepare, read_csv, run_binary, run_in};

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A three-page site on `host`, one of its links nofollow.
fn small_site(web: &TestWeb, host: &str) {
    web.page(
        host,
        "/",
        r#"<a href="/p1">one</a><a rel="nofollow" href="/p2">two</a>"#,
    );
    web.page(host, "/p1", "<p>one</p>");
    web.page(host, "/p2", "<p>two</p>");
}

/// The value crawl.ini records for `key`.
fn recorded(results: &Path, key: &str) -> String {
    std::fs::read_to_string(results.join("crawl.ini"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{key} = ")).map(str::to_owned))
        .unwrap()
}

/// `rccrawler compare A B` succeeds and has nothing to say about FollowNofollow.
fn says_nothing_of_follow_nofollow(work: &Path, a: &Path, b: &Path) {
    let o = run_binary(
        work,
        &[
            "compare",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--out",
            "cmp",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("FollowNofollow"), "{}", stderr(&o));
}

// See: issue 64 item 6 — every spelling of yes and no is read as yes or no and recorded as
// `yes`/`no`, so a `no` crawl and a `false` crawl compare as one setting; another value is
// refused naming the documented values.
#[test]
fn yes_no_settings_are_read_one_way_and_recorded_one_way() {
    let web = TestWeb::new();
    small_site(&web, "a.test");
    let mut folders = Vec::new();
    for (spelling, want) in [
        ("no", "no"),
        ("false", "no"),
        ("OFF", "no"),
        ("0", "no"),
        ("true", "yes"),
    ] {
        let dir = prepare(&[web.origin("a.test")], &[("FollowNofollow", spelling)]);
        run_in(dir.path());
        let results = dir.path().join("results");
        assert_eq!(recorded(&results, "FollowNofollow"), want, "{spelling}");
        let (_, nodes) = read_csv(&results.join(format!("a.test_{}/nodes.csv", web.port())));
        assert_eq!(nodes.len(), if want == "no" { 2 } else { 3 }, "{spelling}");
        folders.push((dir, results));
    }
    // `no` against `false`: nothing to say about FollowNofollow.
    let work = tempfile::tempdir().unwrap();
    let (a, b) = (&folders[0].1, &folders[1].1);
    says_nothing_of_follow_nofollow(work.path(), a, b);
    // A record written before values were normalised (`false`) compares as `no`.
    let ini = std::fs::read_to_string(a.join("crawl.ini")).unwrap();
    std::fs::write(
        a.join("crawl.ini"),
        ini.replace("FollowNofollow = no", "FollowNofollow = false"),
    )
    .unwrap();
    says_nothing_of_follow_nofollow(work.path(), a, b);
    // Anything else is refused with the values it takes.
    for (key, value) in [
        ("Sitemaps", "maybe"),
        ("FollowNofollow", "nope"),
        ("Cookies", "2"),
    ] {
        let dir = prepare(&[web.origin("a.test")], &[(key, value)]);
        let o = run_binary(dir.path(), &[]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{key} = {value}: {err}");
        assert!(
            err.contains(key) && err.contains("yes or no") && err.contains("settings.ini:"),
            "{key} = {value}: {err}"
        );
    }
}

/// Each row of a site's `file` (header, rows).
fn rows(results: &Path, web: &TestWeb, file: &str) -> (Vec<String>, Vec<Vec<String>>) {
    read_csv(&results.join(format!("a.test_{}/{file}", web.port())))
}

// See: issue 64 item 7 — with `FollowNofollow = no` and `SitemapSeeds = yes`, a page only
// nofollow links reach (a rel=nofollow link, a page whose meta robots says nofollow) and that
// the sitemap lists is an orphan node, not also a bad link; one the sitemap does not list stays
// a bad link `nofollow`.
#[test]
fn a_nofollow_target_the_sitemap_lists_is_a_node_and_not_a_bad_link() {
    let web = TestWeb::new();
    let a = web.origin("a.test");
    web.page(
        "a.test",
        "/",
        r#"<a href="/p1">one</a><a rel="nofollow" href="/listed">listed</a>
           <a rel="ugc nofollow" href="/unlisted">unlisted</a><a href="/meta">meta</a>"#,
    );
    web.page("a.test", "/p1", "<p>one</p>");
    web.page("a.test", "/listed", "<p>listed in the sitemap</p>");
    web.page("a.test", "/unlisted", "<p>in no sitemap</p>");
    web.page(
        "a.test",
        "/meta",
        r#"<meta name="robots" content="nofollow"><a href="/behind">behind</a>"#,
    );
    web.page("a.test", "/behind", "<p>behind a nofollow page</p>");
    let urlset: String = ["/", "/p1", "/listed", "/behind"]
        .iter()
        .map(|p| format!("<url><loc>{a}{p}</loc></url>"))
        .collect();
    web.set(
        "a.test",
        "/sitemap.xml",
        rccrawler::base::loopback::Resp::new(
            200,
            "application/xml",
            format!("<urlset>{urlset}</urlset>"),
        ),
    );
    let dir = prepare(
        std::slice::from_ref(&a),
        &[("FollowNofollow", "no"), ("SitemapSeeds", "yes")],
    );
    run_in(dir.path());
    let results = dir.path().join("results");
    let (h, nodes) = rows(&results, &web, "nodes.csv");
    let (label, source) = (
        h.iter().position(|c| c == "Label").unwrap(),
        h.iter().position(|c| c == "Source").unwrap(),
    );
    let node = |p: &str| nodes.iter().find(|r| r[label] == format!("{a}{p}"));
    for p in ["/listed", "/behind"] {
        let n = node(p).unwrap_or_else(|| panic!("{p} is no node: {nodes:?}"));
        assert_eq!(n[source], "sitemap", "{p}");
    }
    assert!(node("/unlisted").is_none());
    let (_, bad) = rows(&results, &web, "bad_links.csv");
    let bad_urls: Vec<&str> = bad.iter().map(|r| r[1].as_str()).collect();
    assert!(
        !bad_urls
            .iter()
            .any(|u| u.ends_with("/listed") || u.ends_with("/behind")),
        "{bad:?}"
    );
    assert!(
        bad.iter()
            .any(|r| r[1].ends_with("/unlisted") && r[2] == "nofollow"),
        "{bad:?}"
    );
}

// See: issue 64 item 8 — every SURT key of index.cdxj is the reference indexer's
// (cdxj-indexer, pywb's): folders with and without their trailing slash, query arguments out
// of order, escapes, upper case, session ids, `www.`, a port.
#[test]
fn index_keys_are_the_reference_indexers() {
    let Some(indexer) = common::warcio::cdxj_indexer() else {
        return;
    };
    let web = TestWeb::new();
    let links = [
        "/folder/",
        "/folder/sub/",
        "/Upper/Case.html",
        "/q?b=2&a=1&c",
        "/q?a=1&a",
        "/%7Etilde/x%20y",
        "/caf%C3%A9/",
        "/s?sid=0123456789abcdef0123456789abcdef&x=1",
        "/s?jsessionid=0123456789ABCDEF0123456789ABCDEF",
        "/dots/./a/../b/",
        "/empty?",
    ];
    let a: String = links
        .iter()
        .map(|l| format!(r#"<a href="{l}">{l}</a> "#))
        .collect();
    for host in ["a.test", "www.a.test"] {
        web.page(
            host,
            "/",
            &format!("{a}<a href=\"{}/\">www</a>", web.origin("www.a.test")),
        );
        web.server.route_prefix(
            host,
            "/",
            rccrawler::base::loopback::Route::Generated(std::sync::Arc::new(
                |req: &rccrawler::base::loopback::Request| {
                    rccrawler::base::loopback::Resp::html(format!("<p>page {}</p>", req.target))
                },
            )),
        );
    }
    let dir = prepare(
        &[web.origin("a.test"), web.origin("www.a.test")],
        &[("Archive", "warc")],
    );
    run_in(dir.path());
    let archive = dir.path().join("results/archive");
    let mut ours = common::warcio::our_keys(&archive);
    let mut theirs = common::warcio::reference_keys(&indexer, &archive);
    ours.sort();
    theirs.sort();
    assert!(ours.len() > 20, "{ours:?}");
    assert_eq!(ours, theirs);
}

/// The `Change` of each page of pages.csv in comparison folder `cmp`, by path.
fn changes(cmp: &Path, origin: &str) -> std::collections::BTreeMap<String, String> {
    let (h, rows) = read_csv(&cmp.join("pages.csv"));
    let (url, change) = (
        h.iter().position(|c| c == "Url").unwrap(),
        h.iter().position(|c| c == "Change").unwrap(),
    );
    rows.iter()
        .map(|r| {
            (
                r[url].trim_start_matches(origin).to_owned(),
                r[change].clone(),
            )
        })
        .collect()
}

// See: issue 64 item 4 — on a static site a page is `changed` when its text changed, not when
// only its markup did: hrefs written another way to the same target, a class, an image's
// source, indentation — while a changed word, in a paragraph or in an anchor, is a change.
#[test]
fn compare_calls_a_static_page_changed_only_when_its_text_changed() {
    let web = TestWeb::new();
    let o = web.origin("a.test");
    let pages = |v: u32| -> Vec<(&'static str, String)> {
        let (home, img, class, indent, word, anchor) = if v == 1 {
            (
                r#"<a href="index.html">home</a>"#,
                "a.png",
                "x",
                "",
                "first",
                "Next page",
            )
        } else {
            (
                r#"<a href="./">home</a>"#,
                "b.png",
                "y",
                "\n      ",
                "second",
                "Next pages",
            )
        };
        vec![
            (
                "/",
                format!(
                    r#"<h1>Home</h1>{home} <a href="/p1">p1</a> <a href="/p2">p2</a> <a href="/p3">p3</a> <a href="/p4">p4</a> <a href="/p5">p5</a> <a href="/p6">p6</a>"#
                ),
            ),
            ("/p1", format!(r#"<p>Page one</p>{home}"#)),
            ("/p2", format!(r#"<p>Page two</p><img src="{img}" alt="">"#)),
            ("/p3", format!(r#"<p class="{class}">Page three</p>"#)),
            (
                "/p4",
                format!("<div>{indent}<p>Page four</p>{indent}</div>"),
            ),
            ("/p5", format!("<p>The {word} version</p>")),
            ("/p6", format!(r#"<p>Six</p><a href="/">{anchor}</a>"#)),
        ]
    };
    let mut results = Vec::new();
    for v in [1, 2] {
        for (path, html) in pages(v) {
            web.page("a.test", path, &html);
        }
        let dir = prepare(std::slice::from_ref(&o), &[]);
        run_in(dir.path());
        results.push(dir);
    }
    let work = tempfile::tempdir().unwrap();
    let r = |i: usize| results[i].path().join("results").display().to_string();
    let out = run_binary(work.path(), &["compare", &r(0), &r(1), "--out", "cmp"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let got = changes(&work.path().join("cmp"), &o);
    let want: std::collections::BTreeMap<String, String> = [("/p5", "changed"), ("/p6", "changed")]
        .iter()
        .map(|(p, c)| ((*p).to_owned(), (*c).to_owned()))
        .collect();
    assert_eq!(got, want);
}

/// A site that writes its own URL into every page (a canonical link and a "you are here"
/// line) and enters `sections` with a session id that every link of the section then carries:
/// `(section, how the id is written: "?NAME=" or ";NAME=", the id)`. Every page is reachable
/// plain too (the home page's menu). `pages` pages a section.
fn session_site(
    web: &TestWeb,
    host: &str,
    sections: &'static [(&'static str, &'static str, &'static str)],
    pages: usize,
) {
    let origin = web.origin(host);
    web.server.route_prefix(
        host,
        "/",
        rccrawler::base::loopback::Route::Generated(std::sync::Arc::new(move |req: &rccrawler::base::loopback::Request| {
            let target = req.target.clone();
            if target == "/robots.txt" {
                return rccrawler::base::loopback::Resp::new(404, "text/plain", "none");
            }
            // The id the request carries, and the path without it.
            let mut path = target.clone();
            let mut carried = String::new();
            for (_, how, id) in sections {
                let mark = format!("{how}{id}");
                // Among other parameters, a query's id follows a `&`.
                let among = format!("&{}{id}", &how[1..]);
                if let Some(i) = path.find(&among).filter(|_| how.starts_with('?')) {
                    carried = mark.clone();
                    path = format!("{}{}", &path[..i], &path[i + among.len()..]);
                } else if let Some(i) = path.find(&mark) {
                    carried = mark.clone();
                    path = format!("{}{}", &path[..i], &path[i + mark.len()..]);
                    if how.starts_with('?') {
                        path = path.replacen('&', "?", 1);
                    }
                }
            }
            let with = |p: &str| -> String {
                if carried.is_empty() {
                    p.to_owned()
                } else if carried.starts_with('?') && p.contains('?') {
                    format!("{p}&{}", &carried[1..])
                } else if carried.starts_with('?') {
                    format!("{p}{carried}")
                } else {
                    match p.find('?') {
                        Some(q) => format!("{}{carried}{}", &p[..q], &p[q..]),
                        None => format!("{p}{carried}"),
                    }
                }
            };
            let mut body = format!(
                r#"<html><head><title>{path}</title><link rel="canonical" href="{origin}{target}"></head><body><p>You are here: {origin}{target}</p><nav><a href="/">Home</a>"#
            );
            for (s, how, id) in sections {
                body.push_str(&format!(r#" <a href="/{s}/">{s}</a> <a href="/{s}/{how}{id}">enter {s}</a>"#));
                for k in 0..pages {
                    body.push_str(&format!(r#" <a href="{}">{s} {k}</a>"#, page_of(s, k)));
                }
            }
            body.push_str("</nav><main>");
            let section = sections.iter().find(|(s, _, _)| path.starts_with(&format!("/{s}/")));
            match section {
                Some((s, _, _)) => {
                    body.push_str(&format!("<h1>Section {s}, page {path}</h1><p>Text of {path} that is long enough to be an article of its own, with a few sentences about {s}.</p>"));
                    for k in 0..pages {
                        body.push_str(&format!(r#"<a href="{}">next {k}</a> "#, with(&page_of(s, k))));
                    }
                }
                None if path == "/" => body.push_str("<h1>Home</h1><p>The home page of the site, with its sections.</p>"),
                None => return rccrawler::base::loopback::Resp::new(404, "text/html", "no such page"),
            }
            body.push_str("</main></body></html>");
            rccrawler::base::loopback::Resp::html(body)
        })),
    );
}

/// Page `k` of section `s`: `/s/pK`, or for a section named `q…` a listing with a query of
/// its own (`/s/list?page=K`), where a session id sits among other parameters.
fn page_of(s: &str, k: usize) -> String {
    if s.starts_with('q') {
        format!("/{s}/list?page={k}")
    } else {
        format!("/{s}/p{k}")
    }
}

/// The nodes of a.test's crawl with `extra` settings: their URLs, and duplicates.csv's
/// (url, reason) rows.
fn nodes_and_aliases(
    web: &TestWeb,
    extra: &[(&str, &str)],
) -> (Vec<String>, Vec<(String, String)>) {
    let dir = prepare(&[web.origin("a.test")], extra);
    run_in(dir.path());
    let results = dir.path().join("results");
    let (h, nodes) = rows(&results, web, "nodes.csv");
    let label = h.iter().position(|c| c == "Label").unwrap();
    let (_, dups) = rows(&results, web, "duplicates.csv");
    (
        nodes.iter().map(|r| r[label].clone()).collect(),
        dups.iter().map(|r| (r[0].clone(), r[2].clone())).collect(),
    )
}

// See: issue 64 item 3 — a site that echoes its own URL enters one section with `?sid=…` and
// another with `;jsessionid=…`, each id carried into every link of its section: one node a
// page, the session URLs folded with reason `session id`; and variants (other names the
// crawler knows, more pages, a section whose id sits among other parameters).
#[test]
fn session_ids_carried_through_a_section_are_folded() {
    const CASES: &[&[(&str, &str, &str)]] = &[
        &[
            ("shop", "?sid=", "8f14e45fceea167a5a36dedd4bea2543"),
            ("forum", ";jsessionid=", "1A2B3C4D5E6F7A8B9C0D1E2F3A4B5C6D"),
        ],
        &[
            ("docs", "?PHPSESSID=", "0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d"),
            ("news", "?sessionid=", "k2j3h4g5f6d7s8a9"),
        ],
        &[
            ("qshop", "?sid=", "77aa88bb99cc00dd11ee22ff33aa44bb"),
            ("qforum", ";jsessionid=", "F00DBABE0123456789ABCDEF01234567"),
        ],
    ];
    for (case, sections) in CASES.iter().enumerate() {
        let web = TestWeb::new();
        session_site(&web, "a.test", sections, 6 + 3 * case);
        let (nodes, aliases) = nodes_and_aliases(&web, &[]);
        let pages = 1 + sections.len() * (1 + 6 + 3 * case);
        let carrying: Vec<&String> = nodes
            .iter()
            .filter(|u| {
                sections
                    .iter()
                    .any(|(_, how, id)| u.contains(&format!("{how}{id}")[1..]))
            })
            .collect();
        assert!(
            carrying.is_empty(),
            "case {case}: session URLs are nodes: {carrying:?}"
        );
        assert_eq!(nodes.len(), pages, "case {case}: {nodes:?}");
        let session: Vec<_> = aliases
            .iter()
            .filter(|(u, _)| sections.iter().any(|(_, _, id)| u.contains(id)))
            .collect();
        assert!(!session.is_empty());
        assert!(
            session.iter().all(|(_, r)| r == "session id"),
            "case {case}: {session:?}"
        );
    }
}

/// A news site: `n` articles (`/news/K`) in a template of navigation, an `<article>` and a
/// footer, each linking to its print version `print(K)`, which carries the article's heading
/// and paragraphs in a template of its own — a "printed edition" note, a "Back to the article"
/// link, a copyright line, no `<article>` or `<main>`. `twin(K)` makes print version K differ
/// from its article (a number changed where it says).
fn news_site(
    web: &TestWeb,
    n: usize,
    print: fn(usize) -> String,
    twin: fn(usize) -> Option<(bool, &'static str)>,
) {
    let heading = |k: usize| format!("Council approves plan number {k} for the old harbour");
    let paragraphs = |k: usize| {
        vec![
            format!("The city council approved on Tuesday the plan number {k}, which turns the old harbour into a park with a school and four hundred homes."),
            format!("Work starts next spring and should take {} years, the mayor said after a debate that lasted most of the evening.", k % 5 + 2),
            "The opposition voted against it, saying that the homes will be too expensive for the families who live near the harbour today.".to_owned(),
        ]
    };
    let links: String = (0..n)
        .map(|k| format!(r#"<li><a href="/news/{k}">{}</a></li>"#, heading(k)))
        .collect();
    web.page(
        "a.test",
        "/",
        &format!("<html><body><nav><ul>{links}</ul></nav><h1>The Daily Test</h1></body></html>"),
    );
    for k in 0..n {
        let body: String = paragraphs(k)
            .iter()
            .map(|p| format!("<p>{p}</p>"))
            .collect();
        web.page(
            "a.test",
            &format!("/news/{k}"),
            &format!(
                r#"<html><head><title>{h}</title></head><body><header><a href="/">The Daily Test</a></header>
                <nav><a href="/">Home</a> <a href="/news/{next}">Next story</a></nav>
                <article><h1>{h}</h1>{body}<p><a href="{print}">Print this story</a></p></article>
                <footer>© 2026 The Daily Test. <a href="/">Home</a></footer></body></html>"#,
                h = heading(k),
                next = (k + 1) % n,
                print = print(k),
            ),
        );
        let mut paras = paragraphs(k);
        let mut head = heading(k);
        if let Some((in_heading, with)) = twin(k) {
            if in_heading {
                head = head.replace(&k.to_string(), with);
            } else {
                paras[0] = paras[0].replace("four hundred", with);
            }
        }
        let body: String = paras.iter().map(|p| format!("<p>{p}</p>")).collect();
        web.page(
            "a.test",
            &print(k),
            &format!(
                r#"<html><head><title>{head} (print)</title></head><body>
                <p class="edition">Printed edition of The Daily Test</p>
                <h1>{head}</h1>{body}
                <p><a href="/news/{k}">Back to the article</a></p>
                <p class="copy">© 2026 The Daily Test, all rights reserved</p></body></html>"#,
            ),
        );
    }
}

// See: issue 64 item 2 — print versions in a template of their own (their own note, back link
// and copyright line, no <article>) fold into their articles with reason `print version`,
// whatever the print URL's shape; a print version whose text differs from its article in one
// number (in a paragraph, in the heading) stays a node of its own.
#[test]
fn print_versions_with_a_template_of_their_own_are_folded() {
    fn query(k: usize) -> String {
        format!("/news/{k}?print=1")
    }
    fn path(k: usize) -> String {
        format!("/print/news/{k}")
    }
    fn none(_: usize) -> Option<(bool, &'static str)> {
        None
    }
    fn twins(k: usize) -> Option<(bool, &'static str)> {
        match k {
            3 => Some((false, "five hundred")),
            5 => Some((true, "99")),
            _ => None,
        }
    }
    for (print, twin, n) in [
        (query as fn(usize) -> String, none as fn(usize) -> _, 12),
        (path, none, 9),
        (query, twins, 8),
    ] {
        let web = TestWeb::new();
        news_site(&web, n, print, twin);
        let (nodes, aliases) = nodes_and_aliases(&web, &[]);
        let twins: Vec<usize> = (0..n).filter(|&k| twin(k).is_some()).collect();
        let prints: Vec<&String> = nodes.iter().filter(|u| u.contains("print")).collect();
        assert_eq!(
            prints.len(),
            twins.len(),
            "{}: print nodes {prints:?}",
            print(0)
        );
        for k in &twins {
            assert!(prints.iter().any(|u| u.ends_with(&print(*k))), "{prints:?}");
        }
        assert_eq!(nodes.len(), 1 + n + twins.len(), "{nodes:?}");
        let folded: Vec<&(String, String)> = aliases
            .iter()
            .filter(|(u, _)| u.contains("print"))
            .collect();
        assert_eq!(folded.len(), n - twins.len(), "{folded:?}");
        assert!(
            folded.iter().all(|(_, r)| r == "print version"),
            "{folded:?}"
        );
    }
}

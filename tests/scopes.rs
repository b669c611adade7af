//! Multi-host scopes (SPEC §6): the domain-name filter (`KeyDomainUAT`) crawls an
//! organisation across its hosts as one graph; `AllHostsUAT` follows every host; the topic
//! stage keeps pages of other hosts that are about the topic.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::collections::BTreeSet;
use std::time::Duration;

use common::{TestWeb, crawl, read_csv};
use pretty_assertions::assert_eq;
use rccrawler::base::loopback::Resp;

/// A university on four hosts, with a partner outside: cross-host arcs, a cross-host
/// redirect, a host whose robots.txt disallows everything.
fn uni_web() -> TestWeb {
    let web = TestWeb::new();
    let p = web.port();
    web.page(
        "www.uni.test",
        "/",
        &format!(
            "<title>Uni</title><a href=/about>About</a>\
             <a href=http://lib.uni.test:{p}/>Library</a>\
             <a href=http://cs.uni.test:{p}/people>People</a>\
             <a href=http://blocked.uni.test:{p}/x>Blocked</a>\
             <a href=/moved>Moved</a>\
             <a href=http://www.partner.test:{p}/>Partner</a>"
        ),
    );
    web.page(
        "www.uni.test",
        "/about",
        "<title>About</title><a href=/>Home</a>",
    );
    web.set(
        "www.uni.test",
        "/moved",
        Resp::redirect(301, &format!("http://cs.uni.test:{p}/new")),
    );
    web.page(
        "lib.uni.test",
        "/",
        &format!(
            "<title>Library</title><a href=/catalog>Catalog</a>\
             <a href=http://www.uni.test:{p}/>University</a>\
             <a href=http://cs.uni.test:{p}/>CS</a>"
        ),
    );
    web.page(
        "lib.uni.test",
        "/catalog",
        "<title>Catalog</title><a href=https://books.example/>Books</a>",
    );
    web.page(
        "cs.uni.test",
        "/people",
        "<title>People</title><a href=/new>New</a>",
    );
    web.page("cs.uni.test", "/new", "<title>New</title>");
    web.page("cs.uni.test", "/", "<title>CS</title>");
    web.robots("blocked.uni.test", "User-agent: *\nDisallow: /\n");
    web.page("blocked.uni.test", "/x", "<title>X</title>");
    web.page("www.partner.test", "/", "<title>Partner</title>");
    web
}

/// (label path with host, level, host) of every node.
fn nodes(dir: &std::path::Path) -> Vec<(String, String, String)> {
    let (header, rows) = read_csv(&dir.join("nodes.csv"));
    let host = header.iter().position(|h| h == "Host").unwrap();
    rows.iter()
        .map(|r| {
            let label = r[1].replace(&format!(":{}", port_of(&r[1])), "");
            (label, r[2].clone(), r[host].clone())
        })
        .collect()
}

fn port_of(url: &str) -> String {
    url.split(':')
        .nth(2)
        .unwrap_or("")
        .split('/')
        .next()
        .unwrap_or("")
        .to_owned()
}

#[test]
fn key_domains_make_one_graph_of_an_organisations_hosts() {
    let web = uni_web();
    let hosts = [format!("{};2;5;0", web.origin("www.uni.test"))];
    let c = crawl(&hosts, &[("UrlAnalyzingThread", "KeyDomainUAT")]);
    let dir = c.results().join(format!("www.uni.test_{}", web.port()));
    assert_eq!(
        nodes(&dir),
        vec![
            (
                "http://www.uni.test/".into(),
                "0".into(),
                "www.uni.test".into()
            ),
            (
                "http://www.uni.test/about".into(),
                "1".into(),
                "www.uni.test".into()
            ),
            (
                "http://lib.uni.test/".into(),
                "1".into(),
                "lib.uni.test".into()
            ),
            (
                "http://cs.uni.test/people".into(),
                "1".into(),
                "cs.uni.test".into()
            ),
            (
                "http://cs.uni.test/new".into(),
                "1".into(),
                "cs.uni.test".into()
            ),
            (
                "http://lib.uni.test/catalog".into(),
                "2".into(),
                "lib.uni.test".into()
            ),
            (
                "http://cs.uni.test/".into(),
                "2".into(),
                "cs.uni.test".into()
            ),
        ]
    );
    // Arcs cross hosts: the library links back to the university's home page (1).
    let (_, edges) = read_csv(&dir.join("edges.csv"));
    let arcs: BTreeSet<(String, String)> =
        edges.iter().map(|e| (e[0].clone(), e[1].clone())).collect();
    assert!(arcs.contains(&("3".into(), "1".into())), "{arcs:?}");
    assert!(
        arcs.contains(&("1".into(), "5".into())),
        "the redirect's target: {arcs:?}"
    );
    // Out of the scope: the partner (never fetched) and a book shop.
    let (_, external) = read_csv(&dir.join("external_links.csv"));
    let ext: BTreeSet<&str> = external.iter().map(|e| e[2].as_str()).collect();
    assert_eq!(ext, BTreeSet::from(["www.partner.test", "books.example"]));
    assert_eq!(web.hits("www.partner.test", "/"), 0);
    // Every host's robots.txt is obeyed: nothing of blocked.uni.test but its robots.txt.
    let (_, bad) = read_csv(&dir.join("bad_links.csv"));
    assert!(
        bad.iter()
            .any(|b| b[1].contains("blocked.uni.test") && b[2].contains("robots")),
        "{bad:?}"
    );
    assert_eq!(web.hits("blocked.uni.test", "/x"), 0);
    assert_eq!(web.hits("blocked.uni.test", "/robots.txt"), 1);
    for host in ["lib.uni.test", "cs.uni.test"] {
        assert_eq!(web.hits(host, "/robots.txt"), 1, "{host}");
    }
    // The redirected URL is another address of the page it leads to.
    let (_, dups) = read_csv(&dir.join("duplicates.csv"));
    assert!(
        dups.iter().any(|d| d[0].ends_with("/moved") && d[1] == "5"),
        "{dups:?}"
    );
    // One row, three hosts with pages, and the paper's TLP.
    let (header, summary) = read_csv(&c.results().join("summary.csv"));
    assert_eq!(summary.len(), 1);
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let row = &summary[0];
    assert_eq!(row[col("Hosts")], "3");
    let seconds: f64 = row[col("Seconds")].parse().unwrap();
    let fetched: f64 = row[col("Fetched")].parse().unwrap();
    let tlp: f64 = row[col("TLP")].parse().unwrap();
    assert!(
        (tlp - seconds * fetched).abs() <= 0.05 * fetched + 0.1,
        "{row:?}"
    );
    let _ = Duration::ZERO;
}

/// The hosts of the generated university web.
const UNI: [&str; 3] = ["www.uni.test", "lib.uni.test", "cs.uni.test"];

/// A generated web of `pages` pages on each of the university's hosts: page i links to pages
/// 2i+1 and 2i+2 of its host, to a page of the next host, to the home page, and out; every
/// answer takes `delay`.
fn generated_uni(pages: usize, delay: Duration) -> TestWeb {
    let web = TestWeb::new();
    let p = web.port();
    for (k, host) in UNI.iter().enumerate() {
        let next = UNI[(k + 1) % UNI.len()];
        for i in 0..pages {
            let path = |j: usize| {
                if j == 0 {
                    "/".to_owned()
                } else {
                    format!("/p{j}")
                }
            };
            let mut html = format!("<title>{host} {i}</title><a href=/>home</a>");
            for c in [2 * i + 1, 2 * i + 2] {
                if c < pages {
                    html.push_str(&format!("<a href={}>p{c}</a>", path(c)));
                }
            }
            let far = (i * 7 + 3) % pages;
            html.push_str(&format!(
                "<a href=http://{next}:{p}{}>next host</a><a href=http://out{k}.example/{i}>out</a>",
                path(far)
            ));
            web.set(host, &path(i), Resp::html(html.into_bytes()).delayed(delay));
        }
    }
    web
}

#[test]
fn one_thread_and_many_threads_write_the_same_multi_host_graph() {
    let web = generated_uni(60, Duration::ZERO);
    let hosts = [format!("{};4;6;0", web.origin("www.uni.test"))];
    let one = crawl(
        &hosts,
        &[
            ("UrlAnalyzingThread", "KeyDomainUAT"),
            ("DownloadingThreadsCount", "1"),
            ("ParsingThreadsCount", "1"),
        ],
    );
    let many = crawl(
        &hosts,
        &[
            ("UrlAnalyzingThread", "KeyDomainUAT"),
            ("DownloadingThreadsCount", "8"),
            ("ParsingThreadsCount", "3"),
        ],
    );
    let folder = format!("www.uni.test_{}", web.port());
    let (a, b) = (one.results().join(&folder), many.results().join(&folder));
    for file in [
        "nodes.csv",
        "edges.csv",
        "external_links.csv",
        "bad_links.csv",
        "yield.csv",
    ] {
        assert_eq!(
            std::fs::read_to_string(a.join(file)).unwrap(),
            std::fs::read_to_string(b.join(file)).unwrap(),
            "{file}"
        );
    }
    let site = one.site(&folder);
    assert_eq!(site.nodes.len(), 180, "every page of the three hosts");
    site.assert_levels_are_bfs_depths();
}

#[test]
fn every_host_of_a_scope_keeps_the_seed_lines_politeness() {
    let web = generated_uni(20, Duration::ZERO);
    let before = web.server.requests().len();
    // maxDownloadsAtTime 1, crawlDelay 30 ms, applied to each host on its own.
    let hosts = [format!("{};1;6;30", web.origin("www.uni.test"))];
    let c = crawl(
        &hosts,
        &[
            ("UrlAnalyzingThread", "KeyDomainUAT"),
            ("DownloadingThreadsCount", "6"),
        ],
    );
    assert_eq!(
        c.site(&format!("www.uni.test_{}", web.port())).nodes.len(),
        60
    );
    let requests = web.server.requests().split_off(before);
    let mut overlapping = 0;
    for host in UNI {
        let mut rs: Vec<_> = requests.iter().filter(|r| r.host == host).collect();
        rs.sort_by_key(|r| r.start);
        assert_eq!(rs.len(), 21, "{host}: robots.txt and 20 pages");
        for w in rs.windows(2) {
            assert!(w[1].start >= w[0].end, "{host}: one request at a time");
            let gap = w[1].start - w[0].start;
            assert!(
                gap >= Duration::from_millis(30),
                "{host}: {gap:?} between two starts"
            );
        }
        overlapping += requests
            .iter()
            .filter(|o| {
                o.host != host
                    && rs
                        .iter()
                        .any(|r| o.start > r.start && o.start < r.start + Duration::from_millis(30))
            })
            .count();
    }
    // The hosts are crawled side by side, not one after another.
    assert!(overlapping > 0);
}

#[test]
fn seeds_whose_key_domains_meet_share_one_scope() {
    let web = uni_web();
    let hosts = [
        format!("{};2;5;0", web.origin("www.uni.test")),
        format!("{};2;5;0", web.origin("lib.uni.test")),
    ];
    let c = crawl(&hosts, &[("UrlAnalyzingThread", "KeyDomainUAT")]);
    let (_, summary) = read_csv(&c.results().join("summary.csv"));
    assert_eq!(summary.len(), 1, "one scope: {summary:?}");
    let dir = c.results().join(format!("www.uni.test_{}", web.port()));
    let levels: Vec<(String, String)> = nodes(&dir)
        .into_iter()
        .map(|(label, level, _)| (label, level))
        .collect();
    // Both seeds' home pages are level 0; the library's catalog is one link away now.
    assert!(levels.contains(&("http://www.uni.test/".into(), "0".into())));
    assert!(levels.contains(&("http://lib.uni.test/".into(), "0".into())));
    assert!(levels.contains(&("http://lib.uni.test/catalog".into(), "1".into())));
    assert!(
        !dir.with_file_name(format!("lib.uni.test_{}", web.port()))
            .exists()
    );
}

// See: issue 17 — TestRU failed on shared scopes ("node 2: level 0, but its breadth-first
// depth is 1"; with AllHostsUAT "not reachable from node 1"), and the console said the seeds'
// key domains meet where there are none.
#[test]
fn test_ru_checks_levels_from_every_seed_home_page_of_a_shared_scope() {
    let web = uni_web();
    let hosts = [
        format!("{};2;5;0", web.origin("www.uni.test")),
        format!("{};2;5;0", web.origin("lib.uni.test")),
        format!("{};2;1;0", web.origin("www.partner.test")),
    ];
    for (filter, says) in [
        ("KeyDomainUAT", "shares the scope of http://www.uni.test"),
        ("AllHostsUAT", "AllHostsUAT crawls every seed in one scope"),
    ] {
        let dir = common::prepare(
            &hosts,
            &[
                ("UrlAnalyzingThread", filter),
                ("ResultUnloaders", "GephiSiteGraphRU,TestRU"),
            ],
        );
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_rccrawler"))
            .current_dir(dir.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{filter}: {err}");
        assert!(err.contains(says), "{filter}: {err}");
        if filter == "KeyDomainUAT" {
            assert!(err.contains("their key domains meet (uni)"), "{err}");
        }
        let report = std::fs::read_to_string(dir.path().join("results/test_report.txt")).unwrap();
        assert!(report.contains(" 0 failed"), "{filter}: {report}");
    }
}

#[test]
fn the_public_suffix_list_keeps_a_city_domain_from_joining_the_scope() {
    let web = TestWeb::new();
    let p = web.port();
    web.page(
        "www.spbu.spb.ru",
        "/",
        &format!(
            "<a href=http://lib.spbu.spb.ru:{p}/>Library</a><a href=http://www.itmo.spb.ru:{p}/>ITMO</a>"
        ),
    );
    web.page("lib.spbu.spb.ru", "/", "<title>Library</title>");
    web.page("www.itmo.spb.ru", "/", "<title>ITMO</title>");
    let hosts = [format!("{};2;3;0", web.origin("www.spbu.spb.ru"))];
    let folder = format!("www.spbu.spb.ru_{p}");
    let run = |extra: &[(&str, &str)]| {
        let mut all = vec![("UrlAnalyzingThread", "KeyDomainUAT")];
        all.extend_from_slice(extra);
        let c = crawl(&hosts, &all);
        let hosts: BTreeSet<String> = nodes(&c.results().join(&folder))
            .into_iter()
            .map(|(_, _, h)| h)
            .collect();
        hosts
    };
    // The paper's label list lacks spb: every *.spb.ru host is in scope.
    let paper = run(&[("CommonDomainLabels", "www,com,cn,edu,org,gov,net")]);
    assert!(paper.contains("www.itmo.spb.ru"), "{paper:?}");
    // The shipped list, and the Public Suffix List, keep it out.
    let shipped = run(&[]);
    let psl = run(&[("KeyDomainSource", "PublicSuffix")]);
    let spbu = BTreeSet::from(["www.spbu.spb.ru".to_owned(), "lib.spbu.spb.ru".to_owned()]);
    assert_eq!(shipped, spbu);
    assert_eq!(psl, spbu);
}

#[test]
fn all_hosts_follows_every_host_to_the_level_limit() {
    let web = uni_web();
    let hosts = [format!("{};2;1;0", web.origin("www.uni.test"))];
    let c = crawl(&hosts, &[("UrlAnalyzingThread", "AllHostsUAT")]);
    let dir = c.results().join(format!("www.uni.test_{}", web.port()));
    let hosts: BTreeSet<String> = nodes(&dir).into_iter().map(|(_, _, h)| h).collect();
    assert!(hosts.contains("www.partner.test"), "{hosts:?}");
    assert!(
        !hosts.contains("books.example"),
        "level 2: beyond maxCrawlLevel"
    );
}

#[test]
fn the_topic_stage_keeps_pages_of_other_hosts_that_are_about_the_topic() {
    let web = TestWeb::new();
    let p = web.port();
    web.page(
        "www.uni.test",
        "/",
        &format!(
            "<title>Uni</title>\
             <a href=http://sports.example.test:{p}/ru>Спорт</a>\
             <a href=http://news.example.test:{p}/zh>新闻</a>\
             <a href=http://shop.example.test:{p}/>Shop</a>"
        ),
    );
    // Russian: университет in the title (3), наука and спорт in the body (1 + 1), three
    // keywords: 5 x (1 + 0.2 x 2) = 7.
    web.page(
        "sports.example.test",
        "/ru",
        &format!(
            "<title>Университет: новости</title><p>Наука и СПОРТ.</p>\
             <a href=http://shop.example.test:{p}/deep>deeper</a>"
        ),
    );
    // Chinese: 研究生 in the title and the body (1 + 3), 论文 and 毕业 in the body: 6 x 1.4 = 8.4.
    web.page(
        "news.example.test",
        "/zh",
        "<title>研究生新闻</title><p>欢迎研究生提交毕业论文。</p>",
    );
    web.page(
        "shop.example.test",
        "/",
        "<title>Shop</title><p>Buy things.</p>",
    );
    web.page("shop.example.test", "/deep", "<title>Deep</title>");
    let hosts = [format!("{};2;3;0", web.origin("www.uni.test"))];
    let keywords = "研究生,论文,毕业,университет,наука,спорт";
    let run = |threshold: &str| {
        let c = crawl(
            &hosts,
            &[
                ("UrlAnalyzingThread", "KeyDomainUAT"),
                ("TopicFilter", "1"),
                ("TopicKeywords", keywords),
                ("TopicThreshold", threshold),
            ],
        );
        let dir = c.results().join(format!("www.uni.test_{p}"));
        let kept: BTreeSet<String> = nodes(&dir).into_iter().map(|(l, _, _)| l).collect();
        let (_, bad) = read_csv(&dir.join("bad_links.csv"));
        let rejected: BTreeSet<(String, String)> = bad
            .iter()
            .map(|b| (b[1].replace(&format!(":{p}"), ""), b[2].clone()))
            .collect();
        (kept, rejected)
    };
    // The paper's first parameter set (1, 3, 0.2, 8): the Chinese page is kept (8.4), the
    // Russian one is not (7), nor the shop (0); a rejected page's links are not followed.
    let (kept, rejected) = run("8");
    assert!(kept.contains("http://news.example.test/zh"), "{kept:?}");
    assert!(!kept.contains("http://sports.example.test/ru"));
    assert!(
        rejected.contains(&(
            "http://sports.example.test/ru".into(),
            "topic score 7.00, not above 8".into()
        )),
        "{rejected:?}"
    );
    assert!(rejected.contains(&(
        "http://shop.example.test/".into(),
        "topic score 0.00, not above 8".into()
    )));
    assert_eq!(web.hits("shop.example.test", "/deep"), 0);
    // A lower threshold keeps the Russian page, whose link leads to a page scored too.
    let (kept, rejected) = run("6.5");
    assert!(kept.contains("http://sports.example.test/ru"), "{kept:?}");
    assert!(
        rejected
            .iter()
            .any(|(u, _)| u == "http://shop.example.test/deep")
    );
}

/// The result files that describe a scope's graph (summary.csv's seconds differ run to run).
fn graph_files(results: &std::path::Path, folder: &str) -> Vec<(String, String)> {
    [
        "nodes.csv",
        "edges.csv",
        "external_links.csv",
        "bad_links.csv",
        "duplicates.csv",
        "yield.csv",
    ]
    .iter()
    .map(|f| {
        let text = std::fs::read_to_string(results.join(folder).join(f)).unwrap_or_default();
        ((*f).to_owned(), text)
    })
    .collect()
}

fn page_requests(web: &TestWeb, from: usize) -> usize {
    web.server.requests()[from..]
        .iter()
        .filter(|r| r.target != "/robots.txt")
        .count()
}

const SCOPE_SETTINGS: [(&str, &str); 3] = [
    ("UrlAnalyzingThread", "KeyDomainUAT"),
    ("DownloadingThreadsCount", "4"),
    ("SaveDuplicates", "1"),
];

#[test]
fn a_stopped_multi_host_scope_continues_to_the_uninterrupted_graph() {
    let web = generated_uni(100, Duration::from_millis(5));
    let hosts = [format!("{};2;8;0", web.origin("www.uni.test"))];
    let folder = format!("www.uni.test_{}", web.port());
    let whole = crawl(&hosts, &SCOPE_SETTINGS);
    let expected = graph_files(&whole.results(), &folder);
    let dir = common::prepare(&hosts, &SCOPE_SETTINGS);
    let before = web.server.requests().len();
    let first = {
        let path = dir.path().to_owned();
        std::thread::spawn(move || common::run_in(&path))
    };
    while page_requests(&web, before) < 60 {
        std::thread::sleep(Duration::from_millis(2));
    }
    std::fs::write(dir.path().join("stop.txt"), "").unwrap();
    let stopped = first.join().unwrap();
    assert_eq!(stopped.reason, rccrawler::StopReason::StopFile);
    let done = common::run_in(dir.path());
    assert_eq!(done.reason, rccrawler::StopReason::WorkDone);
    assert_eq!(graph_files(&dir.path().join("results"), &folder), expected);
}

#[test]
fn a_multi_host_scope_killed_hard_continues_to_the_uninterrupted_graph() {
    let web = generated_uni(100, Duration::from_millis(5));
    let hosts = [format!("{};2;8;0", web.origin("www.uni.test"))];
    let folder = format!("www.uni.test_{}", web.port());
    let whole = crawl(&hosts, &SCOPE_SETTINGS);
    let expected = graph_files(&whole.results(), &folder);
    let dir = common::prepare(&hosts, &SCOPE_SETTINGS);
    let before = web.server.requests().len();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_rccrawler"))
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let until = std::time::Instant::now() + Duration::from_secs(60);
    while page_requests(&web, before) < 120 {
        assert!(std::time::Instant::now() < until, "no progress");
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap(); // SIGKILL: the journal is all there is.
    child.wait().unwrap();
    let done = common::run_in(dir.path());
    assert_eq!(done.reason, rccrawler::StopReason::WorkDone);
    assert_eq!(graph_files(&dir.path().join("results"), &folder), expected);
}

#[test]
fn a_page_budget_spans_the_hosts_of_a_scope() {
    // See: issue 18 — with a budget of 50 this failed 1 run in 5 on a busy machine (pages on
    // 2 hosts): which hosts a small budget reaches depends on when each host's robots.txt
    // answers. 100 fetches cannot be spent on the 80 pages of two hosts: the third one must
    // get some, whatever the timing.
    let web = generated_uni(40, Duration::ZERO);
    let hosts = [format!("{};2;8;0", web.origin("www.uni.test"))];
    let before = web.server.requests().len();
    let c = crawl(
        &hosts,
        &[
            ("UrlAnalyzingThread", "KeyDomainUAT"),
            ("PageBudget", "100"),
        ],
    );
    assert_eq!(c.report.reason, rccrawler::StopReason::BudgetSpent);
    assert_eq!(page_requests(&web, before), 100);
    let fetched: u64 = c.report.sites.iter().map(|s| s.fetched).sum();
    assert_eq!(fetched, 100);
    let hosts: BTreeSet<String> = nodes(&c.results().join(format!("www.uni.test_{}", web.port())))
        .into_iter()
        .map(|(_, _, h)| h)
        .collect();
    assert_eq!(hosts.len(), 3, "{hosts:?}");
}

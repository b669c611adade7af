//! One page, one node on sites that never serve the same bytes twice (SPEC §2.6, §14; issue
//! 47): the fixture web of `common::dynweb`, each case on a site of its own and all of them on
//! one, crawled with the default `Duplicates = fold` and with `exact`. The node set must be the
//! pages a person counts — no alias kept, no near twin merged — every folded URL in
//! duplicates.csv with its reason, soft 404s as bad links, levels the true BFS depths, and the
//! extra requests within what SPEC allows.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::dynweb::DynSite;
use common::{SiteFiles, TestWeb, crawl};

/// One crawled fixture site, as paths.
struct Seen {
    nodes: BTreeSet<String>,
    /// Alias path → reason.
    duplicates: BTreeMap<String, String>,
    /// Bad link path → reason.
    bad: BTreeMap<String, String>,
    /// Requests the server answered (robots.txt included).
    requests: usize,
    files: SiteFiles,
}

fn path_of(url: &str, origin: &str) -> String {
    url.strip_prefix(origin).unwrap_or(url).to_owned()
}

fn crawl_sites(sites: &[(&str, DynSite)], extra: &[(&str, &str)]) -> Vec<Seen> {
    let web = TestWeb::new();
    for (host, site) in sites {
        site.install(&web, host);
    }
    let hosts: Vec<String> = sites.iter().map(|(h, _)| web.origin(h)).collect();
    let c = crawl(&hosts, extra);
    let log = web.server.requests();
    sites
        .iter()
        .map(|(host, _)| {
            let origin = web.origin(host);
            let files = c.site(&format!("{host}_{}", web.port()));
            Seen {
                nodes: files
                    .nodes
                    .iter()
                    .map(|(_, l, _)| path_of(l, &origin))
                    .collect(),
                duplicates: files
                    .duplicates
                    .iter()
                    .map(|(u, _, r)| (path_of(u, &origin), r.clone()))
                    .collect(),
                bad: files
                    .bad
                    .iter()
                    .map(|(_, u, r)| (path_of(u, &origin), r.clone()))
                    .collect(),
                requests: log.iter().filter(|r| r.host == *host).count(),
                files,
            }
        })
        .collect()
}

fn set(paths: &[String]) -> BTreeSet<String> {
    paths.iter().cloned().collect()
}

/// The checks every fixture site must pass under `Duplicates = fold`.
fn assert_one_page_one_node(name: &str, site: &DynSite, seen: &Seen) {
    // One node per true page, labelled with the first of its URLs in breadth-first order.
    let pages: BTreeSet<String> = seen.nodes.iter().filter_map(|n| site.page_of(n)).collect();
    assert_eq!(
        pages,
        set(&site.true_pages()),
        "{name}: nodes {:?}; duplicates {:?}",
        seen.nodes,
        seen.duplicates
    );
    assert_eq!(
        seen.nodes.len(),
        pages.len(),
        "{name}: one node per page: {:?}",
        seen.nodes
    );
    for p in site.soft_404s() {
        assert_eq!(
            seen.bad.get(&p).map(String::as_str),
            Some("soft 404"),
            "{name}: {p} in {:?}",
            seen.bad
        );
    }
    seen.files.assert_levels_are_bfs_depths();
}

#[test]
fn each_case_folds_its_aliases_and_keeps_the_twins() {
    let cases = [
        (
            "b.test",
            DynSite {
                volatile: true,
                aliases: true,
                ..DynSite::default()
            },
        ),
        (
            "c.test",
            DynSite {
                own_url: true,
                aliases: true,
                ..DynSite::default()
            },
        ),
        (
            "d.test",
            DynSite {
                aliases: true,
                ..DynSite::default()
            },
        ),
        (
            "e.test",
            DynSite {
                print: true,
                volatile: true,
                ..DynSite::default()
            },
        ),
        (
            "www.a.test",
            DynSite {
                soft404: true,
                own_url: true,
                ..DynSite::default()
            },
        ),
        ("new.test", DynSite::mixed()),
    ];
    let seen = crawl_sites(&cases, &[]);
    for ((host, site), seen) in cases.iter().zip(&seen) {
        eprintln!(
            "{host}: {} nodes, {} duplicates {:?}, {} requests",
            seen.nodes.len(),
            seen.duplicates.len(),
            seen.duplicates
                .values()
                .fold(BTreeMap::<&str, u32>::new(), |mut m, r| {
                    *m.entry(r.as_str()).or_default() += 1;
                    m
                }),
            seen.requests
        );
        assert_one_page_one_node(host, site, seen);
    }
    let reason = |i: usize, p: &str| seen[i].duplicates.get(p).cloned().unwrap_or_default();
    // Per-request parts: aliases are named by their shapes.
    assert_eq!(reason(0, "/news/1"), "tracking parameter");
    assert_eq!(reason(0, "/index.html"), "index document");
    assert_eq!(reason(0, "/About"), "case-insensitive server");
    assert_eq!(reason(0, "/about/"), "trailing slash");
    // Equal bytes stay "same content" (the paper's reason).
    assert_eq!(reason(2, "/news/index.html"), "same content");
    assert_eq!(reason(3, "/news/1?print=1"), "print version");
}

/// Requests a crawl made besides one per URL: second copies (the same target asked for again)
/// and soft-404 probes.
fn extra_requests(web: &TestWeb, host: &str) -> (usize, usize) {
    let targets: Vec<String> = web
        .server
        .requests()
        .into_iter()
        .filter(|r| r.host == host)
        .map(|r| r.target)
        .collect();
    let distinct: BTreeSet<&String> = targets.iter().collect();
    let probes = targets
        .iter()
        .filter(|t| t.contains(rccrawler::model::fold::SOFT_404_PROBE))
        .count();
    (targets.len() - distinct.len() + probes, targets.len())
}

#[test]
fn extra_requests_stay_within_a_tenth_on_the_fixture_web_and_are_logged() {
    let web = TestWeb::new();
    let hosts = ["b.test", "c.test", "new.test"];
    let sites = [
        DynSite {
            volatile: true,
            aliases: true,
            ..DynSite::default()
        },
        DynSite {
            own_url: true,
            soft404: true,
            ..DynSite::default()
        },
        DynSite::mixed(),
    ];
    for (host, site) in hosts.iter().zip(sites) {
        site.install(&web, host);
    }
    let origins: Vec<String> = hosts.iter().map(|h| web.origin(h)).collect();
    let c = crawl(&origins, &[]);
    let (mut extra, mut all) = (0, 0);
    for host in hosts {
        let (e, n) = extra_requests(&web, host);
        eprintln!("{host}: {e} extra of {n} requests");
        extra += e;
        all += n;
    }
    assert!(extra > 0, "the dynamic sites are sampled");
    assert!(extra * 10 <= all, "{extra} extra of {all} requests");
    // Every request is in the common log, and `Fetched` counts the extra ones too.
    let (_, log) = common::read_csv(&c.dir.path().join("logs/common_log.csv"));
    assert_eq!(log.len(), all, "one common log row per request");
    let (header, rows) = common::read_csv(&c.dir.path().join("results/summary.csv"));
    let col = |n: &str| header.iter().position(|h| h == n).expect(n);
    let fetched: usize = rows
        .iter()
        .map(|r| r[col("Fetched")].parse::<usize>().expect("a count"))
        .sum();
    // robots.txt is a request but no fetch of the crawl's.
    assert_eq!(fetched + hosts.len(), all, "{rows:?}");
}

#[test]
fn a_static_site_costs_no_extra_request_and_folds_like_exact() {
    let web = TestWeb::new();
    common::webgen::install(
        &web,
        common::webgen::WebSpec {
            host: "a.test",
            pages: 150,
            seed: 9,
            delay: std::time::Duration::ZERO,
            slow: vec![],
        },
    );
    let origin = web.origin("a.test");
    let folder = format!("a.test_{}", web.port());
    let fold = crawl(std::slice::from_ref(&origin), &[]);
    let (extra, all) = extra_requests(&web, "a.test");
    assert_eq!(extra, 0, "{all} requests");
    let exact = crawl(std::slice::from_ref(&origin), &[("Duplicates", "exact")]);
    let dir = |c: &common::Crawled| c.results().join(&folder);
    let (fold_files, exact_files) = (
        common::result_bytes(&dir(&fold)),
        common::result_bytes(&dir(&exact)),
    );
    assert!(
        fold.site(&folder)
            .duplicates
            .iter()
            .any(|(_, _, r)| r == "same content"),
        "the generated site has same-content copies"
    );
    for ((name, a), (_, b)) in fold_files.iter().zip(&exact_files) {
        if a != b {
            let (x, y) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
            let d: Vec<_> = x
                .lines()
                .zip(y.lines())
                .filter(|(p, q)| p != q)
                .take(3)
                .collect();
            panic!("{name} differs between fold and exact on a static site: {d:?}");
        }
    }
}

#[test]
fn duplicates_exact_keeps_the_papers_rule_on_the_fixture_web() {
    let site = DynSite::mixed();
    let seen = crawl_sites(&[("new.test", site)], &[("Duplicates", "exact")]);
    let seen = &seen[0];
    let true_pages = site.true_pages().len();
    // Every alias whose bytes differ is a node of its own, soft 404s included.
    assert!(
        seen.nodes.len() > 2 * true_pages,
        "{} nodes: {:?}",
        seen.nodes.len(),
        seen.nodes
    );
    assert!(seen.bad.values().all(|r| r != "soft 404"), "{:?}", seen.bad);
    assert!(
        seen.duplicates
            .values()
            .all(|r| matches!(r.as_str(), "same content" | "redirect" | "meta refresh")),
        "{:?}",
        seen.duplicates
    );
    // No second copies and no probes: the paper's rule needs none.
    assert_eq!(
        seen.requests,
        seen.nodes.len() + seen.duplicates.len() + seen.bad.len() + 1,
        "one request per URL, and robots.txt"
    );
}

#[test]
fn the_second_copy_waits_for_the_sites_delay_and_obeys_robots() {
    // SPEC §14: extra requests are polite. The home page's second copy comes a crawl delay
    // after the first; a site whose robots.txt disallows the probe path is not probed.
    let web = TestWeb::new();
    DynSite::mixed().install(&web, "new.test");
    web.robots(
        "new.test",
        &format!(
            "User-agent: *\nDisallow: /{}\n",
            rccrawler::model::fold::SOFT_404_PROBE
        ),
    );
    let origin = web.origin("new.test");
    crawl(
        std::slice::from_ref(&origin),
        &[("DefaultCrawlDelay", "200")],
    );
    let log = web.server.requests();
    let homes: Vec<_> = log.iter().filter(|r| r.target == "/").collect();
    assert_eq!(homes.len(), 2, "the home page and its second copy");
    let gap = homes[1].start.duration_since(homes[0].end);
    assert!(
        gap >= std::time::Duration::from_millis(190),
        "the second copy came {gap:?} after the first"
    );
    assert!(
        log.iter()
            .all(|r| !r.target.contains(rccrawler::model::fold::SOFT_404_PROBE)),
        "robots.txt disallows the probe"
    );
}

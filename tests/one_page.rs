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

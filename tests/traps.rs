//! Traps that branch (issue 49, item 3; SPEC §9): URL patterns with numbers whose pages keep
//! linking to new ones of the same pattern, many a level, are cut by `TrapPatternUrls` and
//! named in summary.csv; a large real archive or a big site of numbered pages is not.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;

use common::{Crawled, SiteFiles, TestWeb, crawl};
use rccrawler::base::loopback::{Request, Resp, Route};

/// Settings of these tests: no delay, and the size rule at `bound` URLs.
fn crawl_with(web: &TestWeb, extra: &[(&str, &str)]) -> Crawled {
    let mut settings = vec![("RequestTimeoutSeconds", "5"), ("MaxPagesPerSite", "3000")];
    settings.extend_from_slice(extra);
    crawl(&[web.origin("a.test")], &settings)
}

fn reason(c: &Crawled) -> String {
    let (header, rows) = common::read_csv(&c.results().join("summary.csv"));
    rows[0][header.iter().position(|h| h == "Reason").unwrap()].clone()
}

/// The numbers in a page's URL after `prefix`.
fn numbers(target: &str, prefix: &str) -> Vec<i64> {
    target
        .trim_start_matches(prefix)
        .split(|c: char| !c.is_ascii_digit() && c != '-')
        .filter_map(|p| p.parse().ok())
        .collect()
}

/// Pages of the graph whose URL contains `part`, per level.
fn per_level(site: &SiteFiles, part: &str) -> BTreeMap<u32, usize> {
    let mut out = BTreeMap::new();
    for n in site.nodes.iter().filter(|n| n.1.contains(part)) {
        *out.entry(n.2).or_default() += 1;
    }
    out
}

/// The cut, read back from the Reason: `deeper than level N`.
fn deepest_kept(reason: &str) -> u32 {
    let at = reason.find("deeper than level ").expect(reason) + "deeper than level ".len();
    reason[at..]
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .expect(reason)
}

/// A calendar of months that branches, as beta.test's did: every month links to the next and
/// the previous month and to the same month of the next and the previous year, so each level
/// holds about 24 new months, for ever.
fn branching_calendar() -> TestWeb {
    let web = TestWeb::new();
    web.page(
        "a.test",
        "/",
        "<title>Beta</title><a href=/calendar/2024/5>calendar</a><a href=/about>about</a>",
    );
    web.page("a.test", "/about", "<a href=/>home</a>");
    let serve = |req: &Request| {
        let t = match numbers(&req.target, "/calendar/")[..] {
            [y, m] => y * 12 + m - 1,
            _ => return Resp::html("nothing"),
        };
        let at = |t: i64| format!("/calendar/{}/{}", t.div_euclid(12), t.rem_euclid(12) + 1);
        Resp::html(format!(
            "<title>{}</title><a href={}>next</a><a href={}>previous</a>\
             <a href={}>next year</a><a href={}>previous year</a>",
            at(t),
            at(t + 1),
            at(t - 1),
            at(t + 12),
            at(t - 12)
        ))
    };
    web.server
        .route_prefix("a.test", "/calendar/", Route::Generated(Arc::new(serve)));
    web
}

#[test]
fn a_branching_calendar_is_cut_by_its_size_and_named() {
    let web = branching_calendar();
    // The level rule off: only the size rule can end this crawl before the page limit.
    let c = crawl_with(&web, &[("TrapLevels", "0"), ("TrapPatternUrls", "300")]);
    assert!(c.report.reason.is_complete(), "the crawl ends by itself");
    let reason = reason(&c);
    assert!(
        reason.starts_with("branching trap (TrapPatternUrls): /calendar/N/N deeper than level "),
        "{reason}"
    );
    let kept = deepest_kept(&reason);
    let site = c.site(&format!("a.test_{}", web.port()));
    site.assert_levels_are_bfs_depths();
    let months = per_level(&site, "/calendar/");
    // Cut at the first level with more than 300 of its URLs two levels up, its count per
    // level flat by then (24 new months a level).
    let up_to = |l: u32| months.range(..=l).map(|(_, n)| n).sum::<usize>();
    assert!(up_to(kept - 1) > 300, "{months:?}");
    assert!(up_to(kept - 2) <= 300, "{months:?}");
    assert_eq!(*months.keys().max().unwrap(), kept, "{months:?}");
    assert!(months.values().sum::<usize>() < 400, "{months:?}");
    // Every month within the cut is there: a level holds the 24 or so new months.
    assert!(months.range(10..=kept).all(|(_, &n)| n >= 20), "{months:?}");
    assert!(site.nodes.iter().any(|n| n.1.ends_with("/about")));
    assert!(
        !c.report.sites.is_empty(),
        "the console's table has the site"
    );
    // The cut is one of levels, replayed breadth-first: one downloader or eight, and the
    // other downloader, write the same files.
    let folder = format!("a.test_{}", web.port());
    let files = common::result_bytes(&c.results().join(&folder));
    for extra in [
        [
            ("DownloadingThreadsCount", "8"),
            ("DownloadingThread", "DT1"),
        ],
        [
            ("DownloadingThreadsCount", "1"),
            ("DownloadingThread", "DT0"),
        ],
    ] {
        let mut settings = vec![("TrapLevels", "0"), ("TrapPatternUrls", "300")];
        settings.extend(extra);
        let again = crawl_with(&web, &settings);
        assert_eq!(
            common::result_bytes(&again.results().join(&folder)),
            files,
            "{extra:?}"
        );
    }
}

#[test]
fn a_numbered_parameter_explosion_is_cut() {
    // A listing: every page links to the next and the previous page in each of 5 numbered
    // sort orders and 4 numbered views — 20 new URLs a level, without end.
    let web = TestWeb::new();
    web.page("a.test", "/", "<a href=/list?page=1&sort=1&view=1>list</a>");
    let serve = |req: &Request| {
        let page = match numbers(&req.target, "/list")[..] {
            [page, _, _] => page,
            _ => return Resp::html("nothing"),
        };
        let mut body = format!("<title>{}</title>", req.target);
        for p in [page - 1, page + 1].into_iter().filter(|&p| p >= 1) {
            for sort in 1..=5 {
                for view in 1..=4 {
                    body.push_str(&format!(
                        "<a href=/list?page={p}&sort={sort}&view={view}>{p}</a>"
                    ));
                }
            }
        }
        Resp::html(body)
    };
    web.server
        .route_prefix("a.test", "/list", Route::Generated(Arc::new(serve)));
    let c = crawl_with(&web, &[("TrapLevels", "0"), ("TrapPatternUrls", "300")]);
    assert!(c.report.reason.is_complete(), "the crawl ends by itself");
    let reason = reason(&c);
    assert!(
        reason.starts_with(
            "branching trap (TrapPatternUrls): /list?page=N&sort=N&view=N deeper than level "
        ),
        "{reason}"
    );
    let kept = deepest_kept(&reason);
    let site = c.site(&format!("a.test_{}", web.port()));
    let pages = per_level(&site, "/list?");
    assert_eq!(*pages.keys().max().unwrap(), kept);
    assert!(site.nodes.len() < 600, "{} pages", site.nodes.len());
}

/// An archive of 5,000 dated articles linked from one page must not be cut, even with the
/// bound far below its size: all its URLs lie at one level.
#[test]
fn an_archive_of_5000_dated_articles_at_one_level_is_not_cut() {
    let web = TestWeb::new();
    web.page("a.test", "/", "<a href=/archive>archive</a>");
    let articles: Vec<String> = (0..5_000)
        .map(|i| {
            format!(
                "/news/{}/{:02}/{:02}/{i}",
                2000 + i / 365,
                i % 12 + 1,
                i % 28 + 1
            )
        })
        .collect();
    let archive: String = articles
        .iter()
        .map(|a| format!("<a href={a}>article</a>"))
        .collect();
    web.page("a.test", "/archive", &archive);
    let serve = |req: &Request| {
        // The first 500 link to a follow-up, a level further.
        let n = numbers(&req.target, "/news/").last().copied().unwrap_or(0);
        let follow_up = if n < 500 {
            format!("<a href=/news/2099/01/01/{}>next</a>", n + 5_000)
        } else {
            String::new()
        };
        Resp::html(format!(
            "<title>{}</title><a href=/>home</a><a href=/archive>archive</a>{follow_up}",
            req.target
        ))
    };
    web.server
        .route_prefix("a.test", "/news/", Route::Generated(Arc::new(serve)));
    for bound in ["10000", "300"] {
        let c = crawl_with(
            &web,
            &[("TrapPatternUrls", bound), ("MaxPagesPerSite", "20000")],
        );
        let site = c.site(&format!("a.test_{}", web.port()));
        // Home, archive, 5,000 articles at level 2 and 500 follow-ups at level 3.
        assert_eq!(site.nodes.len(), 5_502, "TrapPatternUrls = {bound}");
        assert_eq!(reason(&c), "", "TrapPatternUrls = {bound}");
    }
}

/// A big site of numbered pages (the generated web: /p/N.html, random links) reached level
/// after level within a few levels: crawled whole with the bound far below its size.
#[test]
fn a_big_numbered_site_is_crawled_whole() {
    const PAGES: u64 = 3_000;
    const SEED: u64 = 49;
    let web = TestWeb::new();
    common::webgen::install(
        &web,
        common::webgen::WebSpec {
            host: "a.test",
            pages: PAGES,
            seed: SEED,
            delay: std::time::Duration::ZERO,
            slow: vec![],
        },
    );
    let c = crawl_with(
        &web,
        &[("TrapPatternUrls", "300"), ("MaxPagesPerSite", "0")],
    );
    let site = c.site(&format!("a.test_{}", web.port()));
    common::webgen::assert_matches_model(&site, &web.origin("a.test"), PAGES, SEED, 100);
    assert!(!reason(&c).contains("trap"), "{}", reason(&c));
}

/// A random site of few links a page (one or two) grows level after level for twenty
/// levels before it runs out: its count per level is never flat for long, so it is crawled
/// whole even with the bound far below its size. A first rule ("ten levels below the level
/// that passed the bound") cut such a web of 79,631 pages to 74,569.
#[test]
fn a_deep_random_site_of_few_links_a_page_is_crawled_whole() {
    const PAGES: u64 = 5_000;
    let web = TestWeb::new();
    web.page("a.test", "/", "<a href=/p/0>0</a>");
    let serve = |req: &Request| {
        let n: u64 = req.target.trim_start_matches("/p/").parse().unwrap_or(0);
        let mut rng = common::webgen::Rng(n.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let links: String = (0..1 + rng.below(2))
            .map(|_| format!("<a href=/p/{}>x</a>", rng.below(PAGES)))
            .collect();
        Resp::html(format!("<title>{n}</title>{links}"))
    };
    web.server
        .route_prefix("a.test", "/p/", Route::Generated(Arc::new(serve)));
    let folder = format!("a.test_{}", web.port());
    let off = crawl_with(&web, &[("TrapPatternUrls", "0"), ("TrapLevels", "0")]);
    let on = crawl_with(&web, &[("TrapPatternUrls", "100"), ("TrapLevels", "0")]);
    let (off_site, on_site) = (off.site(&folder), on.site(&folder));
    let deepest = off_site.nodes.iter().map(|n| n.2).max().unwrap();
    assert!(deepest >= 15, "a deep site: {deepest} levels");
    assert!(off_site.nodes.len() > 2_000, "{}", off_site.nodes.len());
    assert_eq!(reason(&on), "", "{:?}", per_level(&off_site, "/p/"));
    assert_eq!(on_site.nodes, off_site.nodes);
    assert_eq!(on_site.edges, off_site.edges);
}

/// A tree of numbered pages under `prefix` whose every page links `children` deeper ones, its
/// number with `suffixes` appended (`/calendar/N` → `/calendar/N1`, `/calendar/N2`), entered
/// from `entry` (a page `depth` levels below the home page); beside it a small site of
/// `others` plain pages.
fn growing_tree(
    prefix: &'static str,
    suffixes: &'static [&'static str],
    depth: u32,
    others: u32,
) -> TestWeb {
    let web = TestWeb::new();
    let mut home = format!("<title>Home</title><a href={prefix}1>tree</a>");
    for k in 0..others {
        home.push_str(&format!(
            "<a href=/page-{}>page</a>",
            char::from(b'a' + k as u8)
        ));
    }
    if depth > 1 {
        home = "<title>Home</title><a href=/section>section</a>".to_owned();
        web.page("a.test", "/section", &format!("<a href={prefix}1>tree</a>"));
    }
    web.page("a.test", "/", &home);
    for k in 0..others {
        web.page(
            "a.test",
            &format!("/page-{}", char::from(b'a' + k as u8)),
            "<a href=/>home</a>",
        );
    }
    web.server.route_prefix(
        "a.test",
        prefix,
        Route::Generated(Arc::new(move |req: &Request| {
            let n = req.target.trim_start_matches(prefix);
            let links: String = suffixes
                .iter()
                .map(|s| format!("<a href={prefix}{n}{s}>deeper</a>"))
                .collect();
            Resp::html(format!("<title>{n}</title>{links}"))
        })),
    );
    web
}

// See: issue 64 item 1 — a tree that doubles level after level, its numbers a digit longer a
// level (4,096 / 8,192 / … at levels 13–16), is cut by the default rules and named, long
// before the page limit; and variants: two digits a level, three children a page, entered two
// levels down, as a query.
#[test]
fn a_tree_whose_numbers_grow_a_digit_a_level_is_cut_with_the_defaults() {
    for (prefix, suffixes, depth) in [
        ("/calendar/", &["1", "2"][..], 1),
        ("/tree/", &["01", "02"][..], 1),
        ("/archive/day-", &["1", "2", "3"][..], 2),
        ("/cal?d=", &["5", "7"][..], 1),
    ] {
        let web = growing_tree(prefix, suffixes, depth, 5);
        let c = crawl(
            &[web.origin("a.test")],
            &[("RequestTimeoutSeconds", "5"), ("MaxPagesPerSite", "20000")],
        );
        assert!(
            c.report.reason.is_complete(),
            "{prefix}: the crawl ends by itself"
        );
        let reason = reason(&c);
        assert!(
            reason.contains("trap") && reason.contains(prefix.split('?').next().unwrap()),
            "{prefix}: {reason}"
        );
        let site = c.site(&format!("a.test_{}", web.port()));
        site.assert_levels_are_bfs_depths();
        let tree = per_level(&site, prefix.split(['?', '-']).next().unwrap());
        let pages: usize = tree.values().sum();
        // Cut once 1,000 of its URLs lie two levels up: the two levels below hold at most
        // nine times that for a tree of three children a page.
        assert!(pages < 12_000, "{prefix}: {pages} tree pages: {tree:?}");
        assert!(*tree.keys().max().unwrap() <= 13, "{prefix}: {tree:?}");
        assert!(pages > 500, "{prefix}: {pages} tree pages: {tree:?}");
    }
}

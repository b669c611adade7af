//! Scope records and graph replay under out-of-order commits.

use super::*;
use crate::crawl::data::coord::ScopeClaim;
use crate::crawl::data::{Persist, ScopeLimits, ScopeOpen};
use crate::crawl::message::{
    BadHref, Failure, Hop, HopClaim, HopKind, LinkTarget, PageLinks, PageRecord,
};
use crate::model::link_attrs::Rel;
use crate::model::url_norm::NormUrl;

const SITE: SiteId = SiteId(0);

fn u(path: &str) -> NormUrl {
    NormUrl::parse(&format!("http://a.test{path}")).unwrap()
}

fn hop(path: &str) -> Hop {
    match path.strip_prefix("refresh:") {
        Some(p) => Hop {
            url: u(p),
            kind: HopKind::MetaRefresh,
        },
        None => Hop {
            url: u(path),
            kind: HopKind::Http,
        },
    }
}

/// A page's links to `paths`, each with the anchor `to <path>`.
fn internal(paths: &[&str]) -> PageLinks {
    let anchors: Vec<String> = paths.iter().map(|p| format!("to {p}")).collect();
    paths
        .iter()
        .zip(&anchors)
        .map(|(p, a)| {
            let target = LinkTarget::Internal {
                url: u(p),
                site: SITE,
                failure: None,
            };
            (target, a.as_str(), "")
        })
        .collect()
}

/// (nodes as (path, level), arcs as (source, target, weight), aliases as (path, node, reason)).
type Replay = (
    Vec<(String, u32)>,
    Vec<(u32, u32, u32)>,
    Vec<(String, u32, &'static str)>,
);

struct Crawl {
    dm: InMemoryDataManager,
    scope: ScopeId,
}

impl Crawl {
    fn new(max_level: u32) -> Self {
        Crawl::limited(max_level, 0)
    }

    /// A crawl with `MaxUrlsPerSite = max_urls`.
    fn limited(max_level: u32, max_urls: u32) -> Self {
        let dm = InMemoryDataManager::new();
        let origin = crate::model::site::Origin::of(u("/").as_url()).unwrap();
        let (scope, _) = dm
            .open_scope(
                ScopeClaim::solo(origin),
                SITE,
                ScopeLimits {
                    max_level,
                    max_pages: 0,
                    max_urls,
                    traps: Default::default(),
                    obey_nofollow: false,
                },
            )
            .unwrap();
        Crawl { dm, scope }
    }

    /// Claims until `path` comes out (other claims are kept in `held`).
    fn claim(&self, path: &str, held: &mut Vec<FetchTask>) -> FetchTask {
        if let Some(i) = held.iter().position(|t| t.url == u(path)) {
            return held.remove(i);
        }
        while let Some(t) = self.dm.take_task(self.scope, SITE) {
            if t.url == u(path) {
                return t;
            }
            held.push(t);
        }
        panic!("{path} was not queued; held: {held:?}");
    }

    /// Records a page reached through `chain` (a hop written `refresh:/p` is a meta refresh).
    fn page(&self, task: FetchTask, chain: &[&str], body: &str, links: &[&str]) {
        let page = PageRecord {
            chain: chain.iter().map(|p| hop(p)).collect(),
            hash: xxhash_rust::xxh3::xxh3_128(body.as_bytes()),
            digests: Default::default(),
            print_sketch: String::new(),
            soft_404_suspect: false,
            learned: None,
            extra_requests: 0,
            render: Default::default(),
            cookies: None,
            bytes: body.len() as u64,
            title: String::new(),
            canonical: String::new(),
            robots: String::new(),
            links: internal(links),
            rejected: None,
            node_type: Default::default(),
            text: None,
            problem: None,
        };
        self.dm
            .commit(&Outcome::Page {
                task,
                page: Box::new(page),
            })
            .unwrap();
    }

    fn graph(&self) -> Replay {
        let mut out = (Vec::new(), Vec::new(), Vec::new());
        self.dm.with_graph(self.scope, &mut |g| {
            for (i, n) in g.nodes().iter().enumerate() {
                out.0.push((
                    g.label(n).trim_start_matches("http://a.test").to_owned(),
                    n.level,
                ));
                for a in g.arcs(n) {
                    out.1.push((i as u32 + 1, a.target, a.weight));
                }
            }
            for a in g.aliases() {
                out.2.push((
                    g.alias_url(a)
                        .trim_start_matches("http://a.test")
                        .to_owned(),
                    a.node,
                    a.reason.as_str(),
                ));
            }
        });
        out
    }
}

#[test]
fn links_to_urls_beyond_max_urls_per_site_are_left_out_and_said() {
    let c = Crawl::limited(5, 4);
    let mut held = Vec::new();
    let home = c.claim("/", &mut held);
    // "/" and three more: /d and /e are beyond the limit.
    c.page(home, &[], "home", &["/a", "/b", "/c", "/d", "/e"]);
    let a = c.claim("/a", &mut held);
    // A known URL is still linked; a new one is not.
    c.page(a, &[], "a", &["/b", "/z", "/"]);
    let mut queued = Vec::new();
    while let Some(t) = c.dm.take_task(c.scope, SITE) {
        queued.push(t.url.path().to_owned());
    }
    queued.extend(held.iter().map(|t| t.url.path().to_owned()));
    queued.sort();
    assert_eq!(queued, ["/b", "/c"]);
    let (nodes_seen, arcs, _) = c.graph();
    assert_eq!(nodes_seen, nodes(&[("/", 0), ("/a", 1)]));
    assert_eq!(arcs, vec![(1, 2, 1), (2, 1, 1)]);
    let mut limit = None;
    c.dm.with_graph(c.scope, &mut |g| limit = g.url_limit());
    assert_eq!(limit, Some(4));
    let unlimited = Crawl::new(5);
    let home = unlimited.claim("/", &mut Vec::new());
    unlimited.page(home, &[], "home", &["/a", "/b", "/c", "/d", "/e"]);
    unlimited
        .dm
        .with_graph(unlimited.scope, &mut |g| limit = g.url_limit());
    assert_eq!(limit, None);
}

fn nodes(v: &[(&str, u32)]) -> Vec<(String, u32)> {
    v.iter().map(|(p, l)| ((*p).to_owned(), *l)).collect()
}

#[test]
fn first_seen_beyond_max_level_then_found_shallower_is_fetched() {
    let c = Crawl::new(2);
    let mut held = Vec::new();
    let home = c.claim("/", &mut held);
    c.page(home, &[], "home", &["/a", "/b"]);
    let a = c.claim("/a", &mut held);
    let b = c.claim("/b", &mut held);
    c.page(b, &[], "b", &["/c"]);
    let cc = c.claim("/c", &mut held);
    c.page(cc, &[], "c", &["/d"]); // /d at level 3: beyond max, not queued
    assert!(
        c.dm.take_task(c.scope, SITE).is_none(),
        "/d must not be queued yet"
    );
    assert_eq!(c.dm.pending(), 1, "only /a is in flight");
    c.page(a, &[], "a", &["/d"]); // now /d is at level 2
    let d = c.claim("/d", &mut held);
    assert_eq!(d.level, 2);
    c.page(d, &[], "d", &[]);
    assert_eq!(c.dm.pending(), 0);
    let (n, _, _) = c.graph();
    // Replay order is a one-thread BFS: /a is expanded before /b, so /d precedes /c.
    assert_eq!(
        n,
        nodes(&[("/", 0), ("/a", 1), ("/b", 1), ("/d", 2), ("/c", 2)])
    );
}

#[test]
fn level_lowered_after_fetch_propagates_to_children() {
    let c = Crawl::new(3);
    let mut held = Vec::new();
    let home = c.claim("/", &mut held);
    c.page(home, &[], "home", &["/a", "/x"]);
    let a = c.claim("/a", &mut held);
    let x = c.claim("/x", &mut held);
    c.page(a, &[], "a", &["/b"]);
    let b = c.claim("/b", &mut held);
    c.page(b, &[], "b", &["/c"]);
    let cc = c.claim("/c", &mut held);
    assert_eq!(cc.level, 3);
    c.page(cc, &[], "c", &["/d"]); // /d at 4: beyond max
    assert!(c.dm.take_task(c.scope, SITE).is_none());
    c.page(x, &[], "x", &["/c"]); // /c drops to 2, so /d to 3: now within max
    let d = c.claim("/d", &mut held);
    assert_eq!(d.level, 3);
    c.page(d, &[], "d", &[]);
    assert_eq!(c.dm.pending(), 0);
    let (n, arcs, _) = c.graph();
    assert_eq!(
        n,
        nodes(&[
            ("/", 0),
            ("/a", 1),
            ("/x", 1),
            ("/b", 2),
            ("/c", 2),
            ("/d", 3)
        ])
    );
    // node ids: / 1, /a 2, /x 3, /b 4, /c 5, /d 6
    assert_eq!(
        arcs,
        vec![
            (1, 2, 1),
            (1, 3, 1),
            (2, 4, 1),
            (3, 5, 1),
            (4, 5, 1),
            (5, 6, 1)
        ]
    );
}

#[test]
fn redirects_and_duplicate_content_collapse_into_one_node() {
    let c = Crawl::new(5);
    let mut held = Vec::new();
    let home = c.claim("/", &mut held);
    c.page(
        home,
        &[],
        "home",
        &["/old", "/dir/", "/dir/index.html", "/old"],
    );
    let old = c.claim("/old", &mut held);
    c.page(old, &["/new"], "new", &["/"]);
    let dir = c.claim("/dir/", &mut held);
    let idx = c.claim("/dir/index.html", &mut held);
    c.page(idx, &[], "same", &["/"]);
    c.page(dir, &[], "same", &["/"]);
    assert_eq!(c.dm.pending(), 0);
    let (n, arcs, dups) = c.graph();
    assert_eq!(n, nodes(&[("/", 0), ("/new", 1), ("/dir/", 1)]));
    assert_eq!(arcs, vec![(1, 2, 2), (1, 3, 2), (2, 1, 1), (3, 1, 1)]);
    assert_eq!(
        dups,
        vec![
            ("/old".to_owned(), 2, "redirect"),
            ("/dir/index.html".to_owned(), 3, "same content")
        ]
    );
    // See: issue 17 — progress, status and the continue message counted 4 pages here (the
    // same content twice) where the results have 3 nodes.
    assert_eq!(c.dm.progress(c.scope).pages, n.len());
}

#[test]
fn a_meta_refresh_is_a_hop_and_its_page_an_alias() {
    let c = Crawl::new(5);
    let mut held = Vec::new();
    let home = c.claim("/", &mut held);
    // The home page refreshes to /ru/, which redirects to /ru/index.html.
    c.page(home, &["refresh:/ru/", "/ru/index.html"], "ru", &["/a"]);
    let a = c.claim("/a", &mut held);
    c.page(a, &[], "a", &["/ru/"]);
    let (n, arcs, dups) = c.graph();
    assert_eq!(n, nodes(&[("/ru/index.html", 0), ("/a", 1)]));
    assert_eq!(arcs, vec![(1, 2, 1), (2, 1, 1)]);
    assert_eq!(
        dups,
        vec![
            ("/".to_owned(), 1, "meta refresh"),
            ("/ru/".to_owned(), 1, "redirect")
        ]
    );
}

#[test]
fn failures_and_static_failures() {
    let c = Crawl::new(1);
    let mut held = Vec::new();
    let home = c.claim("/", &mut held);
    let page = PageRecord {
        chain: vec![],
        hash: 1,
        digests: Default::default(),
        print_sketch: String::new(),
        soft_404_suspect: false,
        learned: None,
        extra_requests: 0,
        render: Default::default(),
        cookies: None,
        bytes: 1,
        title: "Home".into(),
        canonical: "http://a.test/".into(),
        robots: String::new(),
        links: {
            let mut links = internal(&["/missing"]);
            links.push(
                LinkTarget::Internal {
                    url: u("/doc.pdf"),
                    site: SITE,
                    failure: Some(Box::new(Failure::without_request(
                        "not html (extension pdf)",
                    ))),
                },
                "",
                "",
            );
            links.push(
                LinkTarget::Bad(Box::new(BadHref {
                    raw: "mailto:x@y".into(),
                    reason: "scheme mailto".into(),
                })),
                "",
                "",
            );
            links
        },
        rejected: None,
        node_type: Default::default(),
        text: None,
        problem: None,
    };
    c.dm.commit(&Outcome::Page {
        task: home,
        page: Box::new(page),
    })
    .unwrap();
    let missing = c.claim("/missing", &mut held);
    c.dm.commit(&Outcome::Failed {
        task: missing,
        chain: vec![],
        failure: Failure::fetched("status 404"),
    })
    .unwrap();
    assert_eq!(c.dm.pending(), 0);
    c.dm.with_graph(c.scope, &mut |g| {
        let home = &g.nodes()[0];
        let bad: Vec<_> = g
            .bad_links(home)
            .into_iter()
            .map(|r| (r.url.to_owned(), r.reason.to_owned()))
            .collect();
        assert_eq!(
            bad,
            vec![
                ("http://a.test/missing".into(), "status 404".into()),
                (
                    "http://a.test/doc.pdf".into(),
                    "not html (extension pdf)".into()
                ),
                ("mailto:x@y".into(), "scheme mailto".into()),
            ]
        );
        assert_eq!(
            (
                g.out_degree(home),
                g.external_link_count(home),
                g.bad_link_count(home)
            ),
            (0, 0, 3)
        );
        assert_counts_match_rows(g);
    });
}

#[test]
fn released_tasks_are_claimed_again() {
    let c = Crawl::new(1);
    let t = c.dm.take_task(c.scope, SITE).unwrap();
    assert!(c.dm.take_task(c.scope, SITE).is_none());
    c.dm.release(&t);
    assert_eq!(c.dm.take_task(c.scope, SITE).unwrap().url, t.url);
    assert_eq!(c.dm.pending(), 1);
}

/// See: a redirect's chain took its target before any link named it, a page recorded
/// meanwhile linked to it, and the frontier handed it out too: fetched twice at once
/// (`tests/downloaders.rs` under load). The chain fetches it; if the chain is given back
/// unfinished, the frontier does.
#[test]
fn a_redirect_target_linked_while_its_chain_fetches_it_is_fetched_once() {
    for finished in [true, false] {
        let c = Crawl::new(3);
        let mut held = Vec::new();
        let home = c.claim("/", &mut held);
        c.page(home, &[], "home", &["/r", "/b"]);
        let r = c.claim("/r", &mut held);
        let b = c.claim("/b", &mut held);
        // /r answers 301 to /t, which no link named yet.
        assert_eq!(c.dm.claim_hop(&r, &u("/t")), HopClaim::Fetch);
        let other = b.clone();
        c.page(b, &[], "b", &["/t"]);
        let taken: Vec<String> = std::iter::from_fn(|| c.dm.take_task(c.scope, SITE))
            .map(|t| t.url.as_str().to_owned())
            .collect();
        assert!(taken.is_empty(), "/t is the chain's: {taken:?}");
        // Another task's chain reaching it finds it taken.
        assert_eq!(c.dm.claim_hop(&other, &u("/t")), HopClaim::Taken);
        if finished {
            c.page(r, &["/t"], "t", &[]);
            assert!(c.dm.take_task(c.scope, SITE).is_none());
            let (nodes_, _, aliases) = c.graph();
            assert_eq!(nodes_, nodes(&[("/", 0), ("/t", 1), ("/b", 1)]));
            assert_eq!(aliases, vec![("/r".to_owned(), 2, "redirect")]);
        } else {
            // A stop before its outcome: /r and /t go back to the frontier.
            c.dm.release(&r);
            let mut again: Vec<String> = std::iter::from_fn(|| c.dm.take_task(c.scope, SITE))
                .map(|t| {
                    t.url
                        .as_str()
                        .trim_start_matches("http://a.test")
                        .to_owned()
                })
                .collect();
            again.sort();
            assert_eq!(again, ["/r", "/t"]);
        }
        assert_eq!(c.dm.pending(), if finished { 0 } else { 2 });
    }
}

/// The same for a target already known but not queued (deeper than maxCrawlLevel so far): a
/// shallower link found while the chain fetches it leaves it to the chain.
#[test]
fn a_redirect_target_found_shallower_while_its_chain_fetches_it_is_fetched_once() {
    let c = Crawl::new(2);
    let mut held = Vec::new();
    let home = c.claim("/", &mut held);
    c.page(home, &[], "home", &["/a", "/r", "/b"]);
    let b = c.claim("/b", &mut held);
    c.page(b, &[], "b", &["/c"]);
    let cc = c.claim("/c", &mut held);
    c.page(cc, &[], "c", &["/d"]); // /d at level 3: beyond max, not queued
    let r = c.claim("/r", &mut held);
    let a = c.claim("/a", &mut held);
    // /r (level 1) answers 301 to /d.
    assert_eq!(c.dm.claim_hop(&r, &u("/d")), HopClaim::Fetch);
    c.page(a, &[], "a", &["/d"]); // /d is at level 2 now, and the chain's
    assert!(
        c.dm.take_task(c.scope, SITE).is_none(),
        "/d is the chain's, not the frontier's"
    );
    c.page(r, &["/d"], "d", &[]);
    assert_eq!(c.dm.pending(), 0);
    let (n, _, aliases) = c.graph();
    assert_eq!(
        n,
        nodes(&[("/", 0), ("/a", 1), ("/d", 1), ("/b", 1), ("/c", 2)])
    );
    assert_eq!(aliases, vec![("/r".to_owned(), 3, "redirect")]);
}

/// A crawl recorded with a journal, for recovery tests.
fn journaled_crawl(dir: &std::path::Path) -> (InMemoryDataManager, ScopeId, ScopeOpen) {
    journaled_crawl_obeying(dir, false)
}

/// [`journaled_crawl`], with `FollowNofollow = no` when `obey_nofollow`.
fn journaled_crawl_obeying(
    dir: &std::path::Path,
    obey_nofollow: bool,
) -> (InMemoryDataManager, ScopeId, ScopeOpen) {
    let store = crate::crawl::data::persist::FileStore::open(dir).unwrap();
    let dm = InMemoryDataManager::with_store(Box::new(store)).unwrap();
    let origin = crate::model::site::Origin::of(u("/").as_url()).unwrap();
    let (scope, open) = dm
        .open_scope(
            ScopeClaim::solo(origin),
            SITE,
            ScopeLimits {
                max_level: 3,
                max_urls: 0,
                max_pages: 0,
                traps: Default::default(),
                obey_nofollow,
            },
        )
        .unwrap();
    (dm, scope, open)
}

/// A one-byte page reached directly, with `links` and robots directives `robots`.
fn home_page(links: PageLinks, robots: &str) -> PageRecord {
    PageRecord {
        chain: Vec::new(),
        hash: 1,
        digests: Default::default(),
        print_sketch: String::new(),
        soft_404_suspect: false,
        learned: None,
        extra_requests: 0,
        render: Default::default(),
        cookies: None,
        bytes: 1,
        title: String::new(),
        canonical: String::new(),
        robots: robots.into(),
        links,
        rejected: None,
        node_type: Default::default(),
        text: None,
        problem: None,
    }
}

/// What is queued, by path, sorted.
fn queued(dm: &InMemoryDataManager, scope: ScopeId) -> Vec<String> {
    let mut taken = Vec::new();
    while let Some(t) = dm.take_task(scope, SITE) {
        taken.push(t);
    }
    let mut out: Vec<String> = taken
        .iter()
        .map(|t| {
            t.url
                .as_str()
                .trim_start_matches("http://a.test")
                .to_owned()
        })
        .collect();
    for t in &taken {
        dm.release(t);
    }
    out.sort();
    out
}

// See: issue 53 — `FollowNofollow = no` is part of the scope's saved state: a continued crawl
// queues what the first run would have (nothing only nofollow links reach), and a run that
// follows them again queues what they lead to.
#[test]
fn obeyed_nofollow_survives_the_journal_and_the_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    {
        let (dm, scope, _) = journaled_crawl_obeying(dir.path(), true);
        let home = dm.take_task(scope, SITE).unwrap();
        let mut links = PageLinks::default();
        for (p, rel) in [("/x", Rel::NOFOLLOW), ("/y", Rel::NONE), ("/w", Rel::UGC)] {
            let t = links.add_target(LinkTarget::Internal {
                url: u(p),
                site: SITE,
                failure: None,
            });
            links.push_to(t, "", "", rel);
        }
        dm.commit(&Outcome::Page {
            task: home,
            page: Box::new(home_page(links, "noarchive")),
        })
        .unwrap();
        assert_eq!(queued(&dm, scope), ["/y"]);
        dm.persist(Persist::Journal(crate::base::storage::Durability::Disk))
            .unwrap();
    }
    let (dm, scope, open) = journaled_crawl_obeying(dir.path(), true);
    assert_eq!(open, ScopeOpen::Resumed);
    assert_eq!(queued(&dm, scope), ["/y"], "from the journal");
    dm.persist(Persist::Checkpoint(
        crate::crawl::data::CrawlStatus::Unfinished,
    ))
    .unwrap();
    drop(dm);
    let (dm, scope, _) = journaled_crawl_obeying(dir.path(), true);
    assert_eq!(queued(&dm, scope), ["/y"], "from the snapshot");
    drop(dm);
    let (dm, scope, _) = journaled_crawl_obeying(dir.path(), false);
    assert_eq!(queued(&dm, scope), ["/w", "/x", "/y"], "followed again");
}

/// A sitemap of `paths` on a.test, each marked `seed` or not.
fn sitemap_of(paths: &[(&str, bool)]) -> crate::model::sitemap::Sitemap {
    crate::model::sitemap::Sitemap {
        entries: paths
            .iter()
            .map(|(p, seed)| crate::model::sitemap::SitemapEntry {
                url: u(p).as_str().into(),
                lastmod: "".into(),
                seed: *seed,
            })
            .collect(),
        files: 1,
    }
}

/// A page task committed as a page linking `paths`.
fn commit_page(dm: &InMemoryDataManager, task: FetchTask, paths: &[&str]) -> Effects {
    let mut links = PageLinks::default();
    for p in paths {
        let t = links.add_target(LinkTarget::Internal {
            url: u(p),
            site: SITE,
            failure: None,
        });
        links.push_to(t, "", "", Rel::NONE);
    }
    let mut page = home_page(links, "");
    page.hash = u128::from(task.url_id.0) + 1;
    dm.commit(&Outcome::Page {
        task,
        page: Box::new(page),
    })
    .unwrap()
}

// See: issue 53 — the orphans a sitemap lists (SitemapSeeds) wait until the links lead to
// nothing more, and the journal and the snapshot keep them: a continued crawl fetches them,
// and writes them as nodes without a level.
#[test]
fn sitemap_orphans_wait_for_the_links_and_survive_the_journal_and_the_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    {
        let (dm, scope, _) = journaled_crawl(dir.path());
        let sitemap = sitemap_of(&[("/", true), ("/o", true), ("/p", true), ("/no", false)]);
        assert!(dm.add_sitemap(scope, sitemap, true).is_empty());
        let home = dm.take_task(scope, SITE).unwrap();
        let effects = commit_page(&dm, home, &["/p"]);
        assert!(!effects.settled);
        assert_eq!(queued(&dm, scope), ["/p"], "links first");
        let p = dm.take_task(scope, SITE).unwrap();
        let effects = commit_page(&dm, p, &[]);
        assert_eq!(effects.woke, [SITE]);
        assert!(!effects.settled);
        assert_eq!(queued(&dm, scope), ["/o"], "then the orphans");
        dm.persist(Persist::Journal(crate::base::storage::Durability::Disk))
            .unwrap();
    }
    let (dm, scope, _) = journaled_crawl(dir.path());
    assert_eq!(queued(&dm, scope), ["/o"], "from the journal");
    dm.persist(Persist::Checkpoint(
        crate::crawl::data::CrawlStatus::Unfinished,
    ))
    .unwrap();
    drop(dm);
    let (dm, scope, _) = journaled_crawl(dir.path());
    assert_eq!(queued(&dm, scope), ["/o"], "from the snapshot");
    let o = dm.take_task(scope, SITE).unwrap();
    let effects = commit_page(&dm, o, &["/p", "/beyond"]);
    assert!(effects.settled, "an orphan's links are not followed");
    let mut got = Vec::new();
    dm.with_graph(scope, &mut |g| {
        for n in g.nodes() {
            let arcs: Vec<u32> = g.arcs(n).iter().map(|a| a.target).collect();
            got.push((g.label(n).replace("http://a.test", ""), n.level(), arcs));
        }
    });
    assert_eq!(
        got,
        [
            ("/".to_string(), Some(0), vec![2]),
            ("/p".to_string(), Some(1), vec![]),
            ("/o".to_string(), None, vec![2]),
        ]
    );
}

fn graph_text(dm: &InMemoryDataManager, scope: ScopeId) -> String {
    let mut out = String::new();
    dm.with_graph(scope, &mut |g| {
        assert_counts_match_rows(g);
        for n in g.nodes() {
            out.push_str(&format!("{} {} {:?}\n", g.label(n), n.level, g.arcs(n)));
        }
        for a in g.aliases() {
            out.push_str(&format!("alias {} {}\n", g.alias_url(a), a.node));
        }
        for n in g.nodes() {
            for b in g.bad_links(n) {
                out.push_str(&format!("bad {} {}\n", b.url, b.reason));
            }
        }
    });
    out
}

/// The counts nodes.csv, graph.gexf and summary.csv read (kept per node, made once) are
/// those of the rows they count.
fn assert_counts_match_rows(g: &crate::crawl::data::SiteGraph<'_>) {
    for n in g.nodes() {
        assert_eq!(g.out_degree(n), g.arcs(n).len(), "{}", g.label(n));
        assert_eq!(
            g.external_link_count(n),
            g.external_links(n).len(),
            "{}",
            g.label(n)
        );
        assert_eq!(g.bad_link_count(n), g.bad_links(n).len(), "{}", g.label(n));
    }
}

/// The small site of the recovery tests: (redirect chain, body, links) of each path.
fn serve(path: &str) -> (Vec<&'static str>, String, Vec<&'static str>) {
    match path {
        "/" => (vec![], "home".into(), vec!["/a", "/b", "/old"]),
        "/b" => (vec![], "b".into(), vec!["/c", "/dir/"]),
        "/old" => (vec!["/new"], "new page".into(), vec!["/c", "/"]),
        "/c" => (vec![], "c".into(), vec!["/d", "/dir/index.html"]),
        "/a" => (vec![], "a".into(), vec!["/d"]),
        p if p.starts_with("/dir/") => (vec![], "dir".into(), vec!["/"]),
        p => (vec![], p.to_owned(), vec!["/"]),
    }
}

fn fetch(c: &Crawl, t: FetchTask) {
    let (chain, body, links) = serve(t.url.path());
    c.page(t, &chain, &body, &links);
}

/// The small crawl's graph, crawled to its end in memory without interruption.
fn uninterrupted_graph() -> String {
    let c = Crawl::new(3);
    crawl_everything(&c);
    graph_text(&c.dm, c.scope)
}

/// A big site's per-node counts (nodes.csv's OutDegree, ExternalLinks, …) are computed in two
/// halves on two threads: the same counts, node for node, as on one.
#[test]
fn counts_made_on_two_threads_are_those_made_on_one() {
    use crate::crawl::data::scope::graph::TEST_COUNT_ON_TWO_THREADS;
    let one = uninterrupted_graph();
    TEST_COUNT_ON_TWO_THREADS.with(|t| t.set(2));
    // `graph_text` checks every node's counts against its rows.
    let two = uninterrupted_graph();
    TEST_COUNT_ON_TWO_THREADS.with(|t| t.set(usize::MAX));
    assert_eq!(one, two);
}

/// Runs the small crawl to its end, committing in an order that lowers levels on the way.
fn crawl_everything(c: &Crawl) {
    let mut held = Vec::new();
    for path in ["/", "/b", "/old", "/c", "/a"] {
        let t = c.claim(path, &mut held);
        fetch(c, t);
    }
    finish(c, held);
}

/// Fetches everything still queued (and the tasks `held`).
fn finish(c: &Crawl, held: Vec<FetchTask>) {
    for t in held {
        fetch(c, t);
    }
    while let Some(t) = c.dm.take_task(c.scope, SITE) {
        fetch(c, t);
    }
}

#[test]
fn journal_and_snapshot_rebuild_the_same_scope() {
    let dir = tempfile::tempdir().unwrap();
    let expected = {
        let (dm, scope, open) = journaled_crawl(dir.path());
        assert_eq!(open, ScopeOpen::Created);
        let c = Crawl { dm, scope };
        crawl_everything(&c);
        assert_eq!(c.dm.pending(), 0);
        c.dm.persist(Persist::Journal(crate::base::storage::Durability::Disk))
            .unwrap();
        graph_text(&c.dm, c.scope)
    };
    assert!(
        expected.contains("alias http://a.test/dir/index.html"),
        "{expected}"
    );
    // From the journal alone.
    let (dm, scope, open) = journaled_crawl(dir.path());
    assert_eq!(open, ScopeOpen::Resumed);
    assert_eq!(graph_text(&dm, scope), expected);
    assert_eq!(dm.pending(), 0);
    // From a snapshot.
    dm.persist(Persist::Checkpoint(
        crate::crawl::data::CrawlStatus::Unfinished,
    ))
    .unwrap();
    drop(dm);
    let (dm, scope, _) = journaled_crawl(dir.path());
    assert_eq!(graph_text(&dm, scope), expected);
}

#[test]
fn a_journal_cut_anywhere_recovers_a_prefix_that_completes_to_the_same_graph() {
    let dir = tempfile::tempdir().unwrap();
    let expected = {
        let (dm, scope, _) = journaled_crawl(dir.path());
        let c = Crawl { dm, scope };
        crawl_everything(&c);
        c.dm.persist(Persist::Journal(crate::base::storage::Durability::Disk))
            .unwrap();
        graph_text(&c.dm, c.scope)
    };
    let journal = std::fs::read(dir.path().join("journal-0.bin")).unwrap();
    for cut in (20..journal.len()).step_by(7) {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("journal-0.bin"), &journal[..cut]).unwrap();
        let (dm, scope, _) = journaled_crawl(d.path());
        // Whatever was lost is queued again; finishing the crawl gives the same graph.
        let c = Crawl { dm, scope };
        finish(&c, Vec::new());
        assert_eq!(c.dm.pending(), 0, "cut at {cut}");
        assert_eq!(graph_text(&c.dm, c.scope), expected, "cut at {cut}");
    }
}

// See: a page that arrives through a redirect while its own address was already queued at the
// same level had its links stored but never levelled, so they were never fetched (found by the
// stop/resume tests, where the order of fetches differs between runs).
#[test]
fn links_of_a_page_reached_through_a_redirect_are_queued() {
    let c = Crawl::new(5);
    let mut held = Vec::new();
    let home = c.claim("/", &mut held);
    c.page(home, &[], "home", &["/b", "/r"]);
    let r = c.claim("/r", &mut held);
    // /r redirects to /b, which is queued at the same level: the page comes through /r.
    c.page(r, &["/b"], "b", &["/c"]);
    let cc = c.claim("/c", &mut held);
    assert_eq!(cc.level, 2);
    c.page(cc, &[], "c", &[]);
    for t in held {
        c.page(t, &[], "stale", &[]);
    }
    assert_eq!(c.dm.pending(), 0);
    let (n, _, _) = c.graph();
    assert_eq!(n, nodes(&[("/", 0), ("/b", 1), ("/c", 2)]));
}

#[test]
fn a_second_seed_and_a_found_host_survive_the_journal_and_the_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let other = crate::model::site::Origin::parse("http://b.test").unwrap();
    let found = crate::model::site::Origin::parse("http://c.test").unwrap();
    let (b_site, c_site) = (SiteId(1), SiteId(2));
    let expected = {
        let (dm, scope, _) = journaled_crawl(dir.path());
        dm.add_seed(scope, other.clone(), b_site).unwrap();
        // Adding it again (a continued crawl) changes nothing.
        dm.add_seed(scope, other.clone(), b_site).unwrap();
        let home = dm.take_task(scope, SITE).unwrap();
        let mut links = PageLinks::default();
        links.push(
            LinkTarget::Internal {
                url: NormUrl::parse("http://c.test/x").unwrap(),
                site: c_site,
                failure: None,
            },
            "x",
            "",
        );
        let page = PageRecord {
            hash: 7,
            ..home_page(links, "")
        };
        dm.commit(&Outcome::Page {
            task: home,
            page: Box::new(page),
        })
        .unwrap();
        let b_home = dm.take_task(scope, b_site).unwrap();
        assert_eq!((b_home.url.as_str(), b_home.level), ("http://b.test/", 0));
        dm.persist(Persist::Journal(crate::base::storage::Durability::Disk))
            .unwrap();
        dm.scope_sites(scope)
    };
    assert_eq!(
        expected,
        vec![
            (
                crate::model::site::Origin::parse("http://a.test").unwrap(),
                Some(SITE)
            ),
            (other.clone(), Some(b_site)),
            (found.clone(), Some(c_site)),
        ]
    );
    let unbound = |dm: &InMemoryDataManager, scope| -> Vec<(String, Option<SiteId>)> {
        dm.scope_sites(scope)
            .into_iter()
            .map(|(o, s)| (o.to_string(), s))
            .collect()
    };
    for from_snapshot in [false, true] {
        let (dm, scope, _) = journaled_crawl(dir.path());
        // Only the listed seed is bound by opening; the others wait for this run's ids.
        assert_eq!(
            unbound(&dm, scope),
            vec![
                ("http://a.test".to_owned(), Some(SITE)),
                ("http://b.test".to_owned(), None),
                ("http://c.test".to_owned(), None),
            ]
        );
        dm.add_seed(scope, other.clone(), b_site).unwrap();
        dm.bind_site(scope, &found, c_site);
        // The second seed's home page (in flight when saved) and the found URL are queued.
        let mut queued: Vec<(String, u32)> = Vec::new();
        for site in [b_site, c_site] {
            while let Some(t) = dm.take_task(scope, site) {
                queued.push((t.url.as_str().to_owned(), t.level));
            }
        }
        assert_eq!(
            queued,
            vec![
                ("http://b.test/".to_owned(), 0),
                ("http://c.test/x".to_owned(), 1)
            ],
            "from the snapshot: {from_snapshot}"
        );
        dm.persist(Persist::Checkpoint(
            crate::crawl::data::CrawlStatus::Unfinished,
        ))
        .unwrap();
    }
}

/// `rccrawler export` reads the first saved scope of the state folder `dir` as `expected`.
fn assert_exports(dir: &std::path::Path, expected: &str) {
    let (saved, _) = crate::crawl::data::persist::FileStore::read_saved(dir).unwrap();
    let export = InMemoryDataManager::new();
    let (scope, _) = export.hold_saved(&saved[0]).unwrap();
    assert_eq!(graph_text(&export, scope), expected);
}

/// The summary row of a scope, as the retire workers make it.
fn row_of(dm: &InMemoryDataManager, scope: ScopeId) -> crate::crawl::data::summary::SiteSummary {
    let mut row = None;
    dm.with_graph(scope, &mut |g| {
        row = Some(crate::crawl::data::summary::SiteSummary::of(
            g,
            "a.test".into(),
            0,
            1.0,
            crate::model::bandit::RewardKind::NewExternal,
        ));
    });
    row.unwrap()
}

#[test]
fn a_retired_scope_leaves_memory_and_its_data_stays_in_the_state() {
    let dir = tempfile::tempdir().unwrap();
    let (expected, row) = {
        let (dm, scope, _) = journaled_crawl(dir.path());
        let c = Crawl { dm, scope };
        crawl_everything(&c);
        assert!(c.dm.settled(scope), "nothing pending, nothing in flight");
        let expected = graph_text(&c.dm, scope);
        let row = row_of(&c.dm, scope);
        let held = c.dm.memory_bytes();
        assert_eq!(c.dm.retired_row(scope), None, "live: no row yet");
        c.dm.retire(scope, Arc::new(row.clone())).unwrap();
        assert_eq!(
            c.dm.retired_row(scope),
            Some(Arc::new(row.clone())),
            "summary.csv reads it back as it was retired"
        );
        assert!(
            c.dm.memory_bytes() < held / 2,
            "released: {} of {held} bytes left",
            c.dm.memory_bytes()
        );
        assert_eq!(c.dm.progress(scope).pages, row.pages, "its figures stay");
        assert!(!c.dm.settled(scope), "a retired scope is not retired twice");
        let info = &c.dm.scopes()[0];
        assert_eq!(
            info.retired.as_ref().map(|r| r.row.clone()),
            Some(Arc::new(row.clone()))
        );
        (expected, row)
    };
    // Killed now: the next run finds it retired from the journal alone, and does not open it
    // again; its data is read back from its file.
    let (dm, _, open) = journaled_crawl(dir.path());
    assert_eq!(open, ScopeOpen::Finished);
    let info = &dm.scopes()[0];
    assert_eq!(info.retired.as_ref().map(|r| &*r.row), Some(&row));
    dm.persist(Persist::Checkpoint(
        crate::crawl::data::CrawlStatus::Unfinished,
    ))
    .unwrap();
    drop(dm);
    // From a snapshot too, and `export` reads its graph back.
    let (_, finished) = crate::crawl::data::persist::FileStore::read_saved(dir.path()).unwrap();
    assert!(!finished);
    assert_exports(dir.path(), &expected);
}

#[test]
fn a_scope_retired_while_unfinished_is_continued_by_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    let expected = uninterrupted_graph();
    {
        let (dm, scope, _) = journaled_crawl(dir.path());
        let c = Crawl { dm, scope };
        let mut held = Vec::new();
        let t = c.claim("/", &mut held);
        fetch(&c, t);
        // Its site is taken as down: it leaves the run with its queue kept.
        c.dm.suspend(scope);
        assert!(c.dm.settled(scope));
        let row = row_of(&c.dm, scope);
        c.dm.retire(scope, Arc::new(row)).unwrap();
        assert_eq!(c.dm.pending(), 0);
    }
    let (dm, scope, open) = journaled_crawl(dir.path());
    assert_eq!(
        open,
        ScopeOpen::Resumed,
        "an unfinished scope is crawled again"
    );
    let c = Crawl { dm, scope };
    finish(&c, Vec::new());
    assert_eq!(graph_text(&c.dm, c.scope), expected);
}

// See: issue 19. Links to the page itself keep no anchor (none is ever read: such a link
// never leads off the site) and equal links in a row are one record and a count; the graph
// says what it said before — every copy weighs, anchors of links that do lead off the site
// are kept — also rebuilt from the journal and from a snapshot.
#[test]
fn a_page_linking_itself_many_times_weighs_every_copy_and_keeps_other_anchors() {
    let dir = tempfile::tempdir().unwrap();
    let expected = {
        let (dm, scope, _) = journaled_crawl(dir.path());
        let c = Crawl { dm, scope };
        let mut held = Vec::new();
        let home = c.claim("/", &mut held);
        let to = |p: &str| LinkTarget::Internal {
            url: u(p),
            site: SITE,
            failure: None,
        };
        let mut links = PageLinks::default();
        for (path, anchor) in [
            ("/", "1"),
            ("/", "2"),
            ("/", "3"),
            ("/a", "A"),
            ("/a", "A"),
            ("/", "4"),
            ("/out", "leaves"),
            ("/out", "leaves"),
        ] {
            links.push(to(path), anchor, "");
        }
        c.dm.commit(&Outcome::Page {
            task: home,
            page: Box::new(home_page(links, "")),
        })
        .unwrap();
        let a = c.claim("/a", &mut held);
        c.page(a, &[], "a", &[]);
        let out = c.claim("/out", &mut held);
        c.dm.commit(&Outcome::OffSite {
            task: out,
            chain: vec![],
            target: NormUrl::parse("http://elsewhere.test/").unwrap(),
        })
        .unwrap();
        c.dm.persist(Persist::Journal(crate::base::storage::Durability::Disk))
            .unwrap();
        c.dm.with_graph(c.scope, &mut |g| {
            let home = &g.nodes()[0];
            let arcs: Vec<(u32, u32)> = g.arcs(home).iter().map(|a| (a.target, a.weight)).collect();
            assert_eq!(arcs, [(1, 4), (2, 2)], "every copy weighs");
            assert_eq!((g.out_degree(home), g.external_link_count(home)), (2, 1));
        });
        let text = with_external_rows(&c.dm, c.scope);
        assert!(
            text.ends_with(r#"[("http://elsewhere.test/", "leaves")]"#),
            "{text}"
        );
        text
    };
    let (dm, scope, _) = journaled_crawl(dir.path());
    assert_eq!(with_external_rows(&dm, scope), expected, "from the journal");
    dm.persist(Persist::Checkpoint(
        crate::crawl::data::CrawlStatus::Unfinished,
    ))
    .unwrap();
    drop(dm);
    let (dm, scope, _) = journaled_crawl(dir.path());
    assert_eq!(with_external_rows(&dm, scope), expected, "from a snapshot");
}

/// [`graph_text`] and the home page's (external URL, anchor) rows.
fn with_external_rows(dm: &InMemoryDataManager, scope: ScopeId) -> String {
    let mut text = graph_text(dm, scope);
    dm.with_graph(scope, &mut |g| {
        let rows: Vec<(String, String)> = g
            .external_links(&g.nodes()[0])
            .iter()
            .map(|r| (r.url.to_owned(), r.anchor.to_owned()))
            .collect();
        text.push_str(&format!("{rows:?}"));
    });
    text
}

// A site retired unfinished (down, or at its page limit) is crawled again by the next run,
// from its file. That run, killed before its first snapshot, left records of the scope after
// its retirement record: the state folder no longer opened ("records of scope 0 after it was
// retired") and the crawl was lost. Now the run that revives it copies its data to the
// journal first; the killed run's work is kept, and so is a second retirement's.
#[test]
fn a_revived_scope_survives_a_kill_before_the_first_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let expected = uninterrupted_graph();
    let retire_unfinished = |c: &Crawl| {
        c.dm.suspend(c.scope);
        assert!(c.dm.settled(c.scope));
        let row = row_of(&c.dm, c.scope);
        c.dm.retire(c.scope, Arc::new(row)).unwrap();
    };
    let one_page = |c: &Crawl| {
        let t = c.dm.take_task(c.scope, SITE).unwrap();
        let path = t.url.path().to_owned();
        fetch(c, t);
        c.dm.persist(Persist::Journal(crate::base::storage::Durability::Process))
            .unwrap();
        path
    };
    // Run 1: the home page, then its site is taken as down.
    {
        let (dm, scope, _) = journaled_crawl(dir.path());
        let c = Crawl { dm, scope };
        let mut held = Vec::new();
        let t = c.claim("/", &mut held);
        fetch(&c, t);
        retire_unfinished(&c);
    }
    // Run 2: one more page, then killed (no snapshot).
    let second = {
        let (dm, scope, open) = journaled_crawl(dir.path());
        assert_eq!(open, ScopeOpen::Resumed);
        one_page(&Crawl { dm, scope })
    };
    // Run 3: that page is kept; one more page, the site down again, retired (its file
    // replaced while its results are written), killed.
    let third = {
        let (mut dm, scope, open) = journaled_crawl(dir.path());
        dm.set_beside_pages(0);
        assert_eq!(open, ScopeOpen::Resumed, "the state opens");
        let c = Crawl { dm, scope };
        assert_eq!(
            c.dm.progress(c.scope).pages,
            2,
            "run 2's page {second} is kept"
        );
        let third = one_page(&c);
        c.dm.suspend(c.scope);
        let row = row_of(&c.dm, c.scope);
        c.dm.retire_with(c.scope, &mut || Ok(row.clone())).unwrap();
        third
    };
    // Run 4: revived from the second retirement's file (which replaced the first), and
    // crawled to the end: the graph of an uninterrupted crawl; `export` reads it too.
    let (dm, scope, open) = journaled_crawl(dir.path());
    assert_eq!(open, ScopeOpen::Resumed);
    let c = Crawl { dm, scope };
    assert_eq!(
        c.dm.progress(c.scope).pages,
        3,
        "run 3's page {third} is kept"
    );
    finish(&c, Vec::new());
    assert_eq!(graph_text(&c.dm, c.scope), expected);
    c.dm.persist(Persist::Journal(crate::base::storage::Durability::Process))
        .unwrap();
    drop(c);
    assert_exports(dir.path(), &expected);
}

// See: issue 19. A big scope's data is saved while its results are written (`retire_with`,
// on another thread), not after them. What is saved is what `retire` saves — also with a
// snapshot taken in between — and results that fail leave the scope live, to be retired later.
#[test]
fn a_scope_saved_beside_its_results_is_retired_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let (expected, row) = {
        let (mut dm, scope, _) = journaled_crawl(dir.path());
        dm.set_beside_pages(0);
        let c = Crawl { dm, scope };
        crawl_everything(&c);
        let expected = graph_text(&c.dm, scope);
        let row = row_of(&c.dm, scope);
        let failed = c.dm.retire_with(scope, &mut || Err("disk full".into()));
        assert!(
            matches!(failed, Err(crate::crawl::data::RetireError::Results(_))),
            "{failed:?}"
        );
        assert!(c.dm.settled(scope), "still live, and settled");
        assert_eq!(c.dm.retired_row(scope), None);
        assert_eq!(graph_text(&c.dm, scope), expected);
        let mut calls = 0;
        c.dm.retire_with(scope, &mut || {
            calls += 1;
            c.dm.persist(Persist::Checkpoint(
                crate::crawl::data::CrawlStatus::Unfinished,
            ))
            .unwrap();
            Ok(row.clone())
        })
        .unwrap();
        assert_eq!(calls, 1);
        assert_eq!(c.dm.retired_row(scope), Some(Arc::new(row.clone())));
        (expected, row)
    };
    // Killed now: the next run finds it retired, its data in its file.
    let (dm, _, open) = journaled_crawl(dir.path());
    assert_eq!(open, ScopeOpen::Finished);
    assert_eq!(dm.scopes()[0].retired.as_ref().map(|r| &*r.row), Some(&row));
    drop(dm);
    assert_exports(dir.path(), &expected);
}

/// A page names most of its targets several times; the parser adds each target once and
/// points every copy at it. The graph is the same as with a target for every link: arcs and
/// their weights, anchors, external links, bad links and robots' reasons.
#[test]
fn links_sharing_their_targets_record_the_same_graph_as_links_with_their_own() {
    let targets = || {
        vec![
            LinkTarget::Internal {
                url: u("/b"),
                site: SITE,
                failure: None,
            },
            LinkTarget::Internal {
                url: u("/private"),
                site: SITE,
                failure: Some(Box::new(Failure::without_request("robots.txt"))),
            },
            LinkTarget::External(NormUrl::parse("http://other.test/x").unwrap()),
            LinkTarget::Bad(Box::new(BadHref {
                raw: "mailto:x@y".into(),
                reason: "scheme mailto".into(),
            })),
            LinkTarget::Internal {
                url: u("/"),
                site: SITE,
                failure: None,
            },
        ]
    };
    // (target, anchor) in document order: every target several times, with other anchors.
    let order = [
        (0, "b"),
        (2, "out"),
        (1, "p"),
        (3, "mail"),
        (0, "b again"),
        (4, "home"),
        (2, "out again"),
        (1, ""),
        (3, ""),
        (0, ""),
        (0, ""),
        (2, "out"),
    ];
    let record = |shared: bool| {
        let c = Crawl::new(3);
        let mut held = Vec::new();
        let home = c.claim("/", &mut held);
        let mut links = PageLinks::default();
        let all = targets();
        let ids: Vec<u32> = if shared {
            all.into_iter().map(|t| links.add_target(t)).collect()
        } else {
            Vec::new()
        };
        for &(t, anchor) in &order {
            if shared {
                links.push_to(ids[t], anchor, "", Rel::NONE);
            } else {
                let own = links.add_target(targets().swap_remove(t));
                links.push_to(own, anchor, "", Rel::NONE);
            }
        }
        assert_eq!(links.target_count(), if shared { 5 } else { order.len() });
        let page = PageRecord {
            title: "Home".into(),
            ..home_page(links, "")
        };
        c.dm.commit(&Outcome::Page {
            task: home,
            page: Box::new(page),
        })
        .unwrap();
        let mut out = format!("{:?}\n", c.graph());
        c.dm.with_graph(c.scope, &mut |g| {
            external_hosts_are_the_rows_hosts(g);
            for n in g.nodes() {
                for r in g.external_links(n) {
                    out.push_str(&format!("external {} {}\n", r.url, r.anchor));
                }
                for r in g.bad_links(n) {
                    out.push_str(&format!("bad {} {}\n", r.url, r.reason));
                }
            }
        });
        out
    };
    let own = record(false);
    assert_eq!(record(true), own);
    for expected in [
        "external http://other.test/x out",
        "bad mailto:x@y scheme mailto",
        "bad http://a.test/private robots.txt",
    ] {
        assert!(own.contains(expected), "{expected} in\n{own}");
    }
}

/// The hosts the live network counts a site by are its external_links.csv rows' hosts, each
/// once (it has some).
fn external_hosts_are_the_rows_hosts(g: &crate::crawl::data::SiteGraph<'_>) {
    let rows: hashbrown::HashSet<&str> = g
        .nodes()
        .iter()
        .flat_map(|n| g.external_links(n))
        .map(|r| r.host)
        .collect();
    assert_eq!(g.external_hosts(), rows);
    assert!(!rows.is_empty());
}

/// A page fetched at a second address that only the fold digests recognise (SPEC §14) finds
/// no new page: its fetch yields nothing to the budget, live and in the replayed yield.csv
/// rows, even where its links name external URLs not seen before; a byte-identical copy keeps
/// the paper's count.
#[test]
fn an_alias_folded_by_its_digests_yields_nothing() {
    let c = Crawl::new(2);
    let mut held = Vec::new();
    let commit = |task: FetchTask, body: &str, request: u64, links: &[&str], ext: &[&str]| {
        let mut targets = internal(links);
        for e in ext {
            targets.push(LinkTarget::External(NormUrl::parse(e).unwrap()), "out", "");
        }
        let page = PageRecord {
            chain: Vec::new(),
            hash: xxhash_rust::xxh3::xxh3_128(body.as_bytes()),
            print_sketch: String::new(),
            digests: crate::model::fold::Digests {
                request,
                own: request,
                text: 1,
                names_itself: false,
            },
            soft_404_suspect: false,
            learned: None,
            extra_requests: 0,
            render: Default::default(),
            cookies: None,
            bytes: body.len() as u64,
            title: String::new(),
            canonical: String::new(),
            robots: String::new(),
            links: targets,
            rejected: None,
            node_type: Default::default(),
            text: None,
            problem: None,
        };
        c.dm.commit(&Outcome::Page {
            task,
            page: Box::new(page),
        })
        .unwrap()
        .yielded
    };
    let home = c.claim("/", &mut held);
    let y = commit(home, "home", 7, &["/a", "/b", "/c"], &["http://x.test/"]);
    assert_eq!((y.external, y.new_external), (1, 1));
    // /a: the home page with another nonce and a new external link in its per-request part.
    let a = c.claim("/a", &mut held);
    let y = commit(
        a,
        "home, nonce 2",
        7,
        &[],
        &["http://x.test/", "http://y.test/"],
    );
    assert_eq!(
        (y.external, y.new_external),
        (0, 0),
        "a folded alias pays nothing"
    );
    // /b: the home page's very bytes (the paper's duplicate): counted as it always was.
    let b = c.claim("/b", &mut held);
    let y = commit(b, "home", 7, &[], &["http://x.test/"]);
    assert_eq!((y.external, y.new_external), (1, 0));
    // /c: a page of its own.
    let cc = c.claim("/c", &mut held);
    let y = commit(cc, "c", 9, &[], &["http://z.test/"]);
    assert_eq!((y.external, y.new_external), (1, 1));
    let mut rows = Vec::new();
    c.dm.with_graph(c.scope, &mut |g| {
        for y in g.yields() {
            rows.push((
                y.url.trim_start_matches("http://a.test").to_owned(),
                y.yielded.external,
                y.yielded.new_external,
            ));
        }
    });
    let row = |p: &str| rows.iter().find(|r| r.0 == p).cloned();
    assert_eq!(row("/a"), Some(("/a".into(), 0, 0)), "{rows:?}");
    assert_eq!(row("/b"), Some(("/b".into(), 1, 0)), "{rows:?}");
    assert_eq!(row("/c"), Some(("/c".into(), 1, 1)), "{rows:?}");
    assert_eq!(row("/"), Some(("/".into(), 1, 1)), "{rows:?}");
    let (nodes, _, aliases) = c.graph();
    assert_eq!(nodes.len(), 2, "{nodes:?}");
    assert_eq!(aliases.len(), 2, "{aliases:?}");
}

/// A site whose numbered URLs have trap shapes, one reached deep first and then shallower
/// (its level falls: the shape's histogram keeps the fallen level's digit range), a redirect
/// and a copy of a page.
fn serve_numbered(path: &str) -> (Vec<&'static str>, String, Vec<String>) {
    let links = |l: &[&str]| l.iter().map(|s| s.to_string()).collect();
    match path {
        "/" => (vec![], "home".into(), links(&["/a", "/b", "/n/1"])),
        "/a" => (vec![], "a".into(), links(&["/c", "/n/22"])),
        "/c" => (vec![], "c".into(), links(&["/n/333", "/d"])),
        "/b" => (vec![], "b".into(), links(&["/n/333", "/old"])),
        "/old" => (vec!["/new"], "new".into(), links(&["/n/4444", "/"])),
        "/d" => (vec![], "a".into(), links(&["/"])),
        p if p.starts_with("/n/") && p.len() < 9 => {
            (vec![], p.into(), vec![format!("{p}5"), "/".into()])
        }
        p => (vec![], p.into(), links(&["/"])),
    }
}

/// Crawls the numbered site with `c` in an order that lowers a level, nothing held in flight
/// between fetches; after each fetch `between` runs. Returns the paths in the order fetched.
fn crawl_numbered(c: &Crawl, mut between: impl FnMut()) -> Vec<String> {
    let mut fetched = Vec::new();
    let mut fetch_one = |t: FetchTask| {
        let (chain, body, links) = serve_numbered(t.url.path());
        let links: Vec<&str> = links.iter().map(String::as_str).collect();
        fetched.push(t.url.path().to_owned());
        c.page(t, &chain, &body, &links);
    };
    for path in ["/", "/a", "/c", "/b"] {
        let mut held = Vec::new();
        let t = c.claim(path, &mut held);
        for h in held {
            c.dm.release(&h);
        }
        fetch_one(t);
        between();
    }
    while let Some(t) = c.dm.take_task(c.scope, SITE) {
        fetch_one(t);
        between();
    }
    fetched
}

/// A parked scope thaws exactly as it was (its records, frontiers in order, trap shapes with
/// their histories, content keys, journal records not handed over), so a crawl parked after
/// every fetch fetches in the same order and writes the same graph as one never parked; its
/// journal and snapshots, taken while it is parked, rebuild that graph too.
#[test]
fn a_scope_parked_after_every_fetch_crawls_and_saves_as_one_never_parked() {
    // The same settings as `journaled_crawl`'s, saving nothing.
    let plain = Crawl::new(3);
    let plain_order = crawl_numbered(&plain, || {});
    let expected = graph_text(&plain.dm, plain.scope);
    assert!(expected.contains("alias http://a.test/d"), "{expected}");
    assert!(plain_order.len() > 10, "{plain_order:?}");
    assert!(
        plain_order.contains(&"/n/4444".to_owned()),
        "{plain_order:?}"
    );

    let dir = tempfile::tempdir().unwrap();
    let (dm, scope, _) = journaled_crawl(dir.path());
    let parked = Crawl { dm, scope };
    let (mut parks, mut step) = (0, 0);
    let order = crawl_numbered(&parked, || {
        let before = parked.dm.state_text(parked.scope);
        assert_eq!(
            parked.dm.park_all(),
            1,
            "nothing is in flight between fetches"
        );
        assert!(parked.dm.is_parked(parked.scope));
        parks += 1;
        step += 1;
        // What a parked scope answers without thawing: figures, the journal, the snapshot.
        let p = parked.dm.progress(parked.scope);
        assert_eq!(p.pending, parked.dm.pending());
        if step % 3 == 0 {
            parked
                .dm
                .persist(Persist::Journal(crate::base::storage::Durability::Process))
                .unwrap();
        }
        if step % 7 == 0 {
            parked
                .dm
                .persist(Persist::Checkpoint(
                    crate::crawl::data::CrawlStatus::Unfinished,
                ))
                .unwrap();
        }
        assert!(parked.dm.is_parked(parked.scope), "saving does not thaw");
        let after = parked.dm.state_text(parked.scope);
        if step % 3 == 0 || step % 7 == 0 {
            // Saved while parked: the journal's records were handed over.
            assert!(after.contains("\njournal []\n"), "step {step}");
            let without = |t: &str| -> String {
                t.lines()
                    .filter(|l| !l.starts_with("journal "))
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            assert_eq!(without(&after), without(&before), "step {step}");
        } else {
            assert_eq!(after, before, "step {step}");
        }
    });
    assert_eq!(order, plain_order);
    assert_eq!(parks, order.len());
    parked.dm.park_all();
    // Written from a copy: the scope stays parked.
    assert_eq!(graph_text(&parked.dm, parked.scope), expected);
    assert!(parked.dm.is_parked(parked.scope));
    parked
        .dm
        .persist(Persist::Journal(crate::base::storage::Durability::Disk))
        .unwrap();
    drop(parked);
    let (dm, scope, open) = journaled_crawl(dir.path());
    assert_eq!(open, ScopeOpen::Resumed);
    assert_eq!(
        graph_text(&dm, scope),
        expected,
        "from the snapshot and journal"
    );
}

/// Past `ScopesInMemory` live scopes, the ones used least recently with nothing in flight are
/// parked as the crawl goes (about three quarters of the limit stay live), and one parked is
/// thawed when used: its next task comes out as if it had never been parked.
/// Opens site `s<i>.test` in `dm` and takes its home page's task.
fn open_numbered_site(dm: &InMemoryDataManager, i: u32) -> (ScopeId, FetchTask) {
    let limits = ScopeLimits {
        max_level: 3,
        max_pages: 0,
        max_urls: 0,
        traps: Default::default(),
        obey_nofollow: false,
    };
    let url = NormUrl::parse(&format!("http://s{i}.test/")).unwrap();
    let origin = crate::model::site::Origin::of(url.as_url()).unwrap();
    let (scope, _) = dm
        .open_scope(ScopeClaim::solo(origin), SiteId(i), limits)
        .unwrap();
    (scope, dm.take_task(scope, SiteId(i)).unwrap())
}

/// Commits home page `home` of site `s<i>.test`, linking five pages of its own.
fn commit_numbered_home(dm: &InMemoryDataManager, i: u32, home: FetchTask) {
    let links: Vec<String> = (0..5).map(|k| format!("http://s{i}.test/p{k}")).collect();
    let page = home_page(
        links
            .iter()
            .map(|l| {
                let target = LinkTarget::Internal {
                    url: NormUrl::parse(l).unwrap(),
                    site: SiteId(i),
                    failure: None,
                };
                (target, "p", "")
            })
            .collect(),
        "",
    );
    dm.commit(&Outcome::Page {
        task: home,
        page: Box::new(page),
    })
    .unwrap();
}

/// While the live scopes are busy (a task of each under way) and too few are idle to come
/// under the limit, commits do not look at every live scope again: the next sweep waits for
/// more scopes to go live.
#[test]
fn a_sweep_that_cannot_come_under_the_limit_is_not_repeated_at_every_commit() {
    let mut dm = InMemoryDataManager::new();
    dm.set_scopes_in_memory(4);
    let tasks: Vec<(ScopeId, FetchTask)> = (0..12).map(|i| open_numbered_site(&dm, i)).collect();
    let opened = dm.sweeps();
    for (i, (_, home)) in tasks.into_iter().enumerate() {
        commit_numbered_home(&dm, i as u32, home);
    }
    assert!(
        dm.sweeps() - opened <= 2,
        "{} sweeps for 12 commits",
        dm.sweeps() - opened
    );
    // More scopes going live start sweeps again, which park the idle ones.
    for i in 12..20 {
        let (_, home) = open_numbered_site(&dm, i);
        commit_numbered_home(&dm, i, home);
    }
    let parked = (0..20).filter(|&i| dm.is_parked(ScopeId(i))).count();
    assert!(parked >= 12, "{parked} parked");
}

#[test]
fn scopes_beyond_the_limit_are_parked_least_recently_used_first() {
    let mut dm = InMemoryDataManager::new();
    dm.set_scopes_in_memory(4);
    let mut scopes = Vec::new();
    for i in 0..12u32 {
        let (scope, home) = open_numbered_site(&dm, i);
        commit_numbered_home(&dm, i, home);
        scopes.push(scope);
    }
    let parked: Vec<bool> = scopes.iter().map(|&s| dm.is_parked(s)).collect();
    let live = parked.iter().filter(|&&p| !p).count();
    assert!((1..=4).contains(&live), "{parked:?}");
    assert!(
        parked[0] && !parked[11],
        "least recently used first: {parked:?}"
    );
    assert_eq!(
        dm.pending(),
        12 * 5,
        "parked scopes still count their queued URLs"
    );
    // A parked scope hands out its next URL without thawing (the thread that hands out
    // downloads does not decode it); the next use of its records thaws it, that URL in flight.
    let t = dm.take_task(scopes[0], SiteId(0)).unwrap();
    assert!(dm.is_parked(scopes[0]), "handed out parked");
    assert_eq!(t.url.as_str(), "http://s0.test/p0");
    assert_eq!(t.level, 1);
    assert_eq!(dm.pending(), 12 * 5, "a URL in flight is still pending");
    let t2 = dm.take_task(scopes[0], SiteId(0)).unwrap();
    assert!(!dm.is_parked(scopes[0]), "a second URL: thawed");
    assert_eq!(t2.url.as_str(), "http://s0.test/p1");
    // The URL handed out while parked is in flight in the thawed records: given back, it is
    // queued again behind its level's others, as in a scope never parked.
    dm.release(&t);
    let rest: Vec<String> = (0..4)
        .map(|_| {
            dm.take_task(scopes[0], SiteId(0))
                .unwrap()
                .url
                .as_str()
                .to_owned()
        })
        .collect();
    assert_eq!(
        rest,
        [
            "http://s0.test/p2",
            "http://s0.test/p3",
            "http://s0.test/p4",
            "http://s0.test/p0"
        ]
    );
}

/// What a parked scope saves while a URL it handed out is in flight says that URL is in
/// flight, as a scope never parked says: the bytes parked (queued) are not written as they are.
#[test]
fn a_url_handed_out_parked_is_in_flight_in_what_the_scope_saves() {
    use crate::crawl::data::persist::ScopeSource;
    let twin = |park: bool| {
        let dm = InMemoryDataManager::new();
        let (scope, home) = open_numbered_site(&dm, 0);
        commit_numbered_home(&dm, 0, home);
        if park {
            assert_eq!(dm.park_all(), 1);
        }
        let t = dm.take_task(scope, SiteId(0)).unwrap();
        assert_eq!(dm.is_parked(scope), park);
        let mut bytes = Vec::new();
        dm.write_data(scope, &mut bytes).unwrap();
        (t.url.as_str().to_owned(), bytes)
    };
    let (parked, live) = (twin(true), twin(false));
    assert_eq!(parked.0, "http://s0.test/p0");
    assert!(parked == live, "the snapshot's bytes differ");
}

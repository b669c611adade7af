//! What links and pages say about themselves (SPEC §17): edges.csv's `Nofollow`,
//! external_links.csv's `Rel`, nodes.csv's `Robots` (meta robots and `X-Robots-Tag`), the same
//! in graph.gexf, and `FollowNofollow = no`, which crawls as Nutch does — on a loopback site
//! with every spelling the issue names.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use rccrawler::base::loopback::Resp;

/// A page whose response carries `X-Robots-Tag` headers.
fn with_robots_tag(html: &str, values: &[&str]) -> Resp {
    let mut r = Resp::html(html.as_bytes().to_vec());
    for v in values {
        r.headers.push(("X-Robots-Tag".into(), (*v).into()));
    }
    r
}

/// The site: the home page links `/p1` twice (once `rel="NoFollow ugc"`), `/only-nf` only with
/// nofollow, `/area` through an `<area rel=SPONSORED>`, `/both` with nofollow (and `/p1`
/// links it plainly), pages with robots directives in a meta tag, in a header for us, and in
/// a header for another crawler; and external links with and without qualifiers.
fn site(web: &common::TestWeb) -> String {
    let h = "a.test";
    web.page(
        h,
        "/",
        r#"<html><body><div rel=nofollow><a href=/p1>one</a></div>
        <a href=/p1 rel="NoFollow ugc">one again</a>
        <a href=/only-nf rel=nofollow>hidden</a>
        <a href=/both REL="nofollow">both</a>
        <map name=m><area href=/area rel=SPONSORED alt=ad></map>
        <a href=/meta>meta</a> <a href=/hdr>hdr</a> <a href=/hdr-other>other</a>
        <a href="http://b.test/x" rel=nofollow>B</a> <a href="http://b.test/x">B</a>
        <a href="http://c.test/" rel="sponsored noopener">C</a>
        </body></html>"#,
    );
    web.page(
        h,
        "/p1",
        "<html><body><a href=/>home</a> <a href=/both>both</a> <a href=/meta-copy>copy</a></body></html>",
    );
    let meta = r#"<html><head><META NAME="Robots" CONTENT="NoIndex, NOFOLLOW"><meta name=googlebot content=noarchive></head>
        <body><a href=/from-meta>x</a></body></html>"#;
    web.page(h, "/meta", meta);
    // The same bytes at another address: one node, its alias in duplicates.csv.
    web.page(h, "/meta-copy", meta);
    web.set(
        h,
        "/hdr",
        with_robots_tag(
            "<html><body><a href=/from-hdr>y</a></body></html>",
            &["rccrawler: none", "otherbot: noarchive"],
        ),
    );
    web.set(
        h,
        "/hdr-other",
        with_robots_tag(
            "<html><body><a href=/from-hdr-other>z</a></body></html>",
            &["googlebot: nofollow, noindex"],
        ),
    );
    for p in [
        "/only-nf",
        "/both",
        "/area",
        "/from-meta",
        "/from-hdr",
        "/from-hdr-other",
    ] {
        web.page(h, p, &format!("<html><body>{p}</body></html>"));
    }
    web.origin(h)
}

/// A site folder's files, read by column name.
struct Files {
    /// label → (level, robots)
    nodes: BTreeMap<String, (u32, String)>,
    /// (source label, target label) → (weight, nofollow)
    edges: BTreeMap<(String, String), (u32, u32)>,
    /// (source label, url, anchor, rel)
    external: Vec<(String, String, String, String)>,
    /// (source label, url, reason)
    bad: Vec<(String, String, String)>,
    files: common::SiteFiles,
}

fn read(folder: &Path) -> Files {
    let (h, nodes) = common::read_csv(&folder.join("nodes.csv"));
    let col = |name: &str| h.iter().position(|x| x == name).unwrap();
    let (level, robots) = (col("Level"), col("Robots"));
    assert_eq!(h[col("Canonical") + 1], "Robots", "after Canonical: {h:?}");
    let label: BTreeMap<String, String> =
        nodes.iter().map(|r| (r[0].clone(), r[1].clone())).collect();
    let (h, edges) = common::read_csv(&folder.join("edges.csv"));
    assert_eq!(h, ["Source", "Target", "Type", "Weight", "Nofollow"]);
    let (h, external) = common::read_csv(&folder.join("external_links.csv"));
    assert_eq!(h, ["Source", "Url", "Host", "Anchor", "Rel"]);
    let (_, bad) = common::read_csv(&folder.join("bad_links.csv"));
    Files {
        nodes: nodes
            .iter()
            .map(|r| (r[1].clone(), (r[level].parse().unwrap(), r[robots].clone())))
            .collect(),
        edges: edges
            .iter()
            .map(|r| {
                (
                    (label[&r[0]].clone(), label[&r[1]].clone()),
                    (r[3].parse().unwrap(), r[4].parse().unwrap()),
                )
            })
            .collect(),
        external: external
            .iter()
            .map(|r| {
                (
                    label[&r[0]].clone(),
                    r[1].clone(),
                    r[3].clone(),
                    r[4].clone(),
                )
            })
            .collect(),
        bad: bad
            .iter()
            .map(|r| (label[&r[0]].clone(), r[1].clone(), r[2].clone()))
            .collect(),
        files: common::SiteFiles::read(folder),
    }
}

impl Files {
    /// Levels by label.
    fn levels(&self) -> BTreeMap<String, u32> {
        self.nodes.iter().map(|(k, v)| (k.clone(), v.0)).collect()
    }
}

/// The site served and crawled with `settings`.
fn crawl(settings: &[(&str, &str)]) -> (common::TestWeb, String, common::Crawled) {
    let web = common::TestWeb::new();
    let origin = site(&web);
    let crawled = common::crawl(std::slice::from_ref(&origin), settings);
    (web, origin, crawled)
}

fn u(origin: &str, path: &str) -> String {
    format!("{origin}{path}")
}

#[test]
fn links_and_pages_say_what_they_carry_and_are_all_followed_by_default() {
    everything_recorded_and_followed("DT1");
}

/// The blocking downloader reads the same headers.
#[test]
fn the_blocking_downloader_reads_x_robots_tag_too() {
    everything_recorded_and_followed("DT0");
}

fn everything_recorded_and_followed(downloader: &str) {
    let (web, origin, crawled) = crawl(&[("DownloadingThread", downloader)]);
    let folder = crawled.results().join(format!("a.test_{}", web.port()));
    let f = read(&folder);
    let at = |p: &str| u(&origin, p);
    // Every page is a node at its breadth-first level: the qualifiers change nothing.
    let levels = f.levels();
    let want: BTreeMap<String, u32> = [
        ("/", 0),
        ("/p1", 1),
        ("/only-nf", 1),
        ("/both", 1),
        ("/area", 1),
        ("/meta", 1),
        ("/hdr", 1),
        ("/hdr-other", 1),
        ("/from-meta", 2),
        ("/from-hdr", 2),
        ("/from-hdr-other", 2),
    ]
    .iter()
    .map(|(p, l)| (at(p), *l))
    .collect();
    assert_eq!(levels, want);
    f.files.assert_levels_are_bfs_depths();
    // Robots: meta in any case (`none` spelled out), a header for us, not one for another.
    let robots = |p: &str| f.nodes[&at(p)].1.clone();
    assert_eq!(robots("/meta"), "noindex,nofollow");
    assert_eq!(robots("/hdr"), "noindex,nofollow");
    assert_eq!(robots("/hdr-other"), "");
    assert_eq!(robots("/"), "");
    // The page that is also a duplicate: one node, with its directives; the copy an alias.
    assert!(
        f.files
            .duplicates
            .iter()
            .any(|(url, _, reason)| url == &at("/meta-copy") && reason == "same content"),
        "{:?}",
        f.files.duplicates
    );
    // Nofollow per arc: the arc's links carrying nofollow, ugc or sponsored.
    let arc = |s: &str, t: &str| f.edges[&(at(s), at(t))];
    assert_eq!(
        arc("/", "/p1"),
        (2, 1),
        "one of two links is rel=NoFollow ugc"
    );
    assert_eq!(arc("/", "/only-nf"), (1, 1));
    assert_eq!(arc("/", "/both"), (1, 1));
    assert_eq!(arc("/", "/area"), (1, 1), "<area rel=SPONSORED>");
    assert_eq!(arc("/", "/meta"), (1, 0));
    assert_eq!(arc("/p1", "/both"), (1, 0));
    assert_eq!(
        arc("/meta", "/from-meta"),
        (1, 0),
        "a page's nofollow is not its links'"
    );
    let nofollow: u32 = f.edges.values().map(|e| e.1).sum();
    assert_eq!(nofollow, 4);
    // Rel per external link: a row per (url, anchor, rel).
    let home = at("/");
    assert_eq!(
        f.external,
        vec![
            (
                home.clone(),
                "http://b.test/x".into(),
                "B".into(),
                "nofollow".into()
            ),
            (
                home.clone(),
                "http://b.test/x".into(),
                "B".into(),
                String::new()
            ),
            (
                home.clone(),
                "http://c.test/".into(),
                "C".into(),
                "sponsored".into()
            ),
        ]
    );
    assert!(f.bad.is_empty(), "{:?}", f.bad);
    // graph.gexf: the page's directives and the arcs' nofollow counts, typed.
    let gexf = std::fs::read_to_string(folder.join("graph.gexf")).unwrap();
    assert!(gexf.contains(r#"<attribute id="robots" title="Robots" type="string"/>"#));
    assert!(gexf.contains(r#"<attribute id="nofollow" title="Nofollow" type="integer"><default>0</default></attribute>"#));
    assert!(gexf.contains(r#"<attvalue for="robots" value="noindex,nofollow"/>"#));
    let weighted = gexf
        .lines()
        .filter(|l| l.contains(r#"<attvalue for="nofollow" value="1"/>"#))
        .count();
    assert_eq!(weighted, 4, "{gexf}");
}

#[test]
fn follow_nofollow_no_crawls_as_nutch_does_and_still_records_every_link() {
    let (web, origin, crawled) = crawl(&[("FollowNofollow", "no")]);
    let f = read(&crawled.results().join(format!("a.test_{}", web.port())));
    let at = |p: &str| u(&origin, p);
    // Pages only nofollow links reach are not fetched; /both is reached from /p1, a level
    // further; the links of pages that say nofollow for us are not followed.
    let levels = f.levels();
    let want: BTreeMap<String, u32> = [
        ("/", 0),
        ("/p1", 1),
        ("/meta", 1),
        ("/hdr", 1),
        ("/hdr-other", 1),
        ("/both", 2),
        ("/from-hdr-other", 2),
    ]
    .iter()
    .map(|(p, l)| (at(p), *l))
    .collect();
    assert_eq!(levels, want);
    // Levels are breadth-first depths over the links followed: arcs with a link without
    // qualifiers, out of pages that do not say nofollow.
    let mut depth: BTreeMap<String, u32> = BTreeMap::from([(at("/"), 0)]);
    let mut queue = std::collections::VecDeque::from([at("/")]);
    while let Some(page) = queue.pop_front() {
        if f.nodes[&page].1.split(',').any(|d| d == "nofollow") {
            continue;
        }
        for ((s, t), (weight, nofollow)) in &f.edges {
            if *s == page && nofollow < weight && !depth.contains_key(t) {
                depth.insert(t.clone(), depth[&page] + 1);
                queue.push_back(t.clone());
            }
        }
    }
    assert_eq!(depth, levels);
    for p in ["/only-nf", "/area", "/from-meta", "/from-hdr"] {
        assert_eq!(web.hits("a.test", p), 0, "{p} was fetched");
    }
    assert_eq!(web.hits("a.test", "/both"), 1);
    // Every link is still recorded: the arcs between pages with their counts, and the
    // links not followed as bad links saying why.
    let arc = |s: &str, t: &str| f.edges[&(at(s), at(t))];
    assert_eq!(arc("/", "/p1"), (2, 1));
    assert_eq!(arc("/", "/both"), (1, 1));
    assert_eq!(arc("/p1", "/both"), (1, 0));
    let mut bad = f.bad.clone();
    bad.sort();
    let mut want: Vec<(String, String, String)> = [
        ("/", "/only-nf"),
        ("/", "/area"),
        ("/meta", "/from-meta"),
        ("/hdr", "/from-hdr"),
    ]
    .iter()
    .map(|(s, t)| (at(s), at(t), "nofollow".to_owned()))
    .collect();
    want.sort();
    assert_eq!(bad, want);
    assert_eq!(f.external.len(), 3, "external links are recorded too");
}

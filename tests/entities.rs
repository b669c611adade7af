//! Web entities (SPEC §20, issue 68): the network of sites in the study's own units — targets
//! merged into one entity, a path split out of a target, accompanying domains merged, an
//! `=host`, an entity nothing falls in — checked against an independent recomputation from the
//! written nodes.csv, edges.csv and external_links.csv files (the rules as SPEC §20 states
//! them, written here without the crate's code); a bad file refused with its line.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use common::{TestWeb, read_csv, run_binary};
use pretty_assertions::assert_eq;

const ENTITIES: &str = "# the study's actors\n\
University: uni.test uni-press.test\n\
Professor: uni.test/~prof/\n\
Front: =www.uni.test\n\
\n\
Media: news.example.test sports.example.test\n\
Ghost: ghost.test\n";

/// The binary run in `dir` with `args`, which must succeed (its stderr shown if not).
fn crawl_ok(dir: &Path, args: &[&str]) -> std::process::Output {
    let out = run_binary(dir, args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The study's web: three targets (uni.test, uni-press.test, www.partner.test).
fn study_web() -> (TestWeb, Vec<String>) {
    let web = TestWeb::new();
    let o = |h: &str| web.origin(h);
    let page = |host: &str, path: &str, links: &[String]| {
        let body: String = links
            .iter()
            .map(|l| format!("<a href=\"{l}\">x</a> "))
            .collect();
        web.page(host, path, &format!("<html><body>{body}</body></html>"));
    };
    page(
        "uni.test",
        "/",
        &[
            "/a.html".into(),
            "/~prof/".into(),
            format!("{}/", o("www.partner.test")),
            format!("{}/x", o("news.example.test")),
            format!("{}/", o("uni-press.test")),
        ],
    );
    page(
        "uni.test",
        "/a.html",
        &["/".into(), format!("{}/", o("shop.example.test"))],
    );
    page(
        "uni.test",
        "/~prof/",
        &[
            "/~prof/cv.html".into(),
            "/a.html".into(),
            format!("{}/p.html", o("www.partner.test")),
            format!("{}/", o("sports.example.test")),
        ],
    );
    page(
        "uni.test",
        "/~prof/cv.html",
        &[format!("{}/", o("lib.uni.test")), "/~prof/".into()],
    );
    page(
        "uni-press.test",
        "/",
        &[
            format!("{}/~prof/", o("uni.test")),
            format!("{}/", o("www.uni.test")),
            format!("{}/", o("news.example.test")),
        ],
    );
    page(
        "www.partner.test",
        "/",
        &[
            "/p.html".into(),
            format!("{}/", o("uni.test")),
            format!("{}/~prof/cv.html", o("uni.test")),
            format!("{}/", o("lib.uni.test")),
            format!("{}/", o("shop.example.test")),
        ],
    );
    page(
        "www.partner.test",
        "/p.html",
        &[
            format!("{}/", o("www.uni.test")),
            format!("{}/", o("www.other.test")),
        ],
    );
    let hosts = ["uni.test", "uni-press.test", "www.partner.test"]
        .iter()
        .map(|h| format!("{};2;3;0", o(h)))
        .collect();
    (web, hosts)
}

/// The entity of a URL by SPEC §20, written for this test: every prefix of the file tried,
/// the best kept by (kind, length): a path beats `=host`, `=host` beats `host`.
fn entity_of(url: &str, entities: &str) -> Option<String> {
    let u = url::Url::parse(url).ok()?;
    let host = u.host_str()?.to_owned();
    let path = u.path();
    let mut best: Option<((u8, usize), String)> = None;
    for line in entities.lines() {
        let Some((name, prefixes)) = line.split_once(':') else {
            continue;
        };
        if line.starts_with('#') {
            continue;
        }
        for p in prefixes.split_whitespace() {
            let rank = if let Some(exact) = p.strip_prefix('=') {
                (exact == host).then_some((1, exact.len()))
            } else if let Some(i) = p.find('/') {
                (p[..i] == host && path.starts_with(&p[i..])).then_some((2, p.len()))
            } else {
                (host == p || host.ends_with(&format!(".{p}"))).then_some((0, p.len()))
            };
            if let Some(r) = rank
                && best.as_ref().is_none_or(|(b, _)| r > *b)
            {
                best = Some((r, name.trim().to_owned()));
            }
        }
    }
    best.map(|(_, n)| n)
}

/// How a study is read: its entities file, and `NetworkUnit = host`.
#[derive(Clone, Copy)]
struct Study<'a> {
    entities: &'a str,
    by_host: bool,
}

/// The network node of a URL: its entity, a target's `Site`, or its unit — the host, or its
/// registrable domain (the test's hosts are `x.y.test`: the domain is the last two labels).
fn node_of(url: &str, targets: &HashMap<String, String>, study: Study<'_>) -> String {
    if let Some(e) = entity_of(url, study.entities) {
        return e;
    }
    let host = url::Url::parse(url).unwrap().host_str().unwrap().to_owned();
    if let Some(site) = targets.get(&host) {
        return site.clone();
    }
    if study.by_host {
        return host;
    }
    let labels: Vec<&str> = host.split('.').collect();
    labels[labels.len().saturating_sub(2)..].join(".")
}

/// What the network must be: (label -> pages) of nodes with pages, and (from, to) -> links.
fn expected(
    results: &Path,
    study: Study<'_>,
) -> (BTreeMap<String, u64>, BTreeMap<(String, String), u64>) {
    let (h, rows) = read_csv(&results.join("summary.csv"));
    let col = |n: &str| h.iter().position(|c| c == n).unwrap();
    let mut targets = HashMap::new();
    let mut folders = Vec::new();
    for r in &rows {
        let site = r[col("Site")].clone();
        let host = url::Url::parse(&site)
            .unwrap()
            .host_str()
            .unwrap()
            .to_owned();
        targets.insert(host, site.clone());
        folders.push((site, r[col("Folder")].clone()));
    }
    let mut pages = BTreeMap::new();
    let mut arcs: BTreeMap<(String, String), u64> = BTreeMap::new();
    for (site, folder) in &folders {
        let dir = results.join(folder);
        let home = node_of(site, &targets, study);
        pages.entry(home.clone()).or_insert(0);
        let (_, nodes) = read_csv(&dir.join("nodes.csv"));
        let mut page_node = HashMap::new();
        for n in &nodes {
            let node = entity_of(&n[1], study.entities).unwrap_or_else(|| home.clone());
            *pages.entry(node.clone()).or_insert(0) += 1;
            page_node.insert(n[0].clone(), node);
        }
        let (_, edges) = read_csv(&dir.join("edges.csv"));
        for e in &edges {
            let (a, b) = (&page_node[&e[0]], &page_node[&e[1]]);
            if a != b {
                *arcs.entry((a.clone(), b.clone())).or_insert(0) += e[3].parse::<u64>().unwrap();
            }
        }
        let (_, ext) = read_csv(&dir.join("external_links.csv"));
        for x in &ext {
            let (a, b) = (page_node[&x[0]].clone(), node_of(&x[1], &targets, study));
            if a != b {
                *arcs.entry((a, b)).or_insert(0) += 1;
            }
        }
    }
    (pages, arcs)
}

/// network/nodes.csv's rows as (label, row by column name), in id order.
type WrittenNodes = Vec<(String, HashMap<String, String>)>;

/// network/nodes.csv, and edges.csv as (from, to) -> Weight.
fn written(results: &Path) -> (WrittenNodes, BTreeMap<(String, String), u64>) {
    let (h, rows) = read_csv(&results.join("network/nodes.csv"));
    let nodes: Vec<(String, HashMap<String, String>)> = rows
        .iter()
        .map(|r| {
            let row = h.iter().cloned().zip(r.iter().cloned()).collect();
            (r[1].clone(), row)
        })
        .collect();
    let label: HashMap<String, String> =
        rows.iter().map(|r| (r[0].clone(), r[1].clone())).collect();
    let (_, edges) = read_csv(&results.join("network/edges.csv"));
    let arcs = edges
        .iter()
        .map(|e| {
            (
                (label[&e[0]].clone(), label[&e[1]].clone()),
                e[3].parse().unwrap(),
            )
        })
        .collect();
    (nodes, arcs)
}

#[test]
fn entities_merge_targets_split_paths_merge_domains_and_count_as_an_independent_reading_does() {
    let (_web, hosts) = study_web();
    let dir = common::prepare(&hosts, &[]);
    std::fs::write(dir.path().join("entities.txt"), ENTITIES).unwrap();
    crawl_ok(dir.path(), &[]);
    let results = dir.path().join("results");
    crawl_ok(
        dir.path(),
        &[
            "network",
            "results",
            "--entities",
            "entities.txt",
            "--prospects",
            "2",
        ],
    );
    let (nodes, arcs) = written(&results);
    let study = Study {
        entities: ENTITIES,
        by_host: false,
    };
    let (pages, want_arcs) = expected(&results, study);
    assert_eq!(arcs, want_arcs, "arcs");
    // Nodes with pages first (the targets' order), then the linked ones by InTargets, name.
    let labels: Vec<&str> = nodes.iter().map(|(l, _)| l.as_str()).collect();
    let partner = hosts[2].split(';').next().unwrap().to_owned();
    assert_eq!(
        labels,
        [
            "University",
            "Professor",
            partner.as_str(),
            "Front",
            "Media",
            "example.test",
            "other.test"
        ]
    );
    for (label, row) in &nodes {
        if let Some(p) = pages.get(label) {
            assert_eq!(row["Set"], "target", "{label}");
            assert_eq!(row["Pages"], p.to_string(), "{label}");
        } else {
            assert_eq!(row["Set"], "accompanying", "{label}");
        }
        // Counts of targets count network nodes.
        let from: BTreeSet<&String> = want_arcs
            .keys()
            .filter(|(_, t)| t == label)
            .map(|(f, _)| f)
            .collect();
        let links: u64 = want_arcs
            .iter()
            .filter(|((_, t), _)| t == label)
            .map(|(_, w)| w)
            .sum();
        assert_eq!(row["InTargets"], from.len().to_string(), "{label}");
        assert_eq!(row["InLinks"], links.to_string(), "{label}");
        if row["Set"] == "target" {
            let to = want_arcs.keys().filter(|(f, _)| f == label).count();
            assert_eq!(row["OutTargets"], to.to_string(), "{label}");
        }
    }
    // Two targets in one: one node, pages summed; a path split out; Ghost is no node.
    let row = |l: &str| &nodes.iter().find(|(n, _)| n == l).unwrap().1;
    assert_eq!(row("University")["Pages"], "3");
    assert_eq!(row("Professor")["Pages"], "2");
    assert!(!labels.contains(&"Ghost"));
    // The hosts merged into each node.
    assert_eq!(
        row("University")["Hosts"],
        "lib.uni.test;uni-press.test;uni.test"
    );
    assert_eq!(
        row("Media")["Hosts"],
        "news.example.test;sports.example.test"
    );
    assert_eq!(row("Front")["Hosts"], "www.uni.test");
    assert_eq!(row("example.test")["Hosts"], "shop.example.test");
    // Prospects list entities by name, with their prefixes.
    let prospects = std::fs::read_to_string(results.join("network/prospects.txt")).unwrap();
    assert!(
        prospects.contains("# Front (entity: =www.uni.test): linked by 2 targets"),
        "{prospects}"
    );
    assert!(
        prospects.contains(
            "# Media (entity: news.example.test sports.example.test): linked by 2 targets"
        ),
        "{prospects}"
    );
    assert!(
        prospects.contains("# example.test: linked by 2 targets"),
        "{prospects}"
    );
    assert!(!prospects.contains("other.test"), "{prospects}");
    common::xmllint_validates(&results.join("network/graph.gexf"));
}

#[test]
fn the_crawl_s_own_network_uses_network_entities_and_a_bad_file_is_refused_with_its_line() {
    let (web, hosts) = study_web();
    let dir = common::prepare(&hosts, &[("NetworkEntities", "entities.txt")]);
    std::fs::write(dir.path().join("entities.txt"), ENTITIES).unwrap();
    crawl_ok(dir.path(), &[]);
    let results = dir.path().join("results");
    let (nodes, _) = written(&results);
    assert_eq!(nodes[0].0, "University");
    let before = std::fs::read(results.join("network/nodes.csv")).unwrap();
    // A bad file: exit 2 naming FILE:LINE, network/ unchanged.
    std::fs::write(
        dir.path().join("bad.txt"),
        "University: uni.test\n# fine so far\nProfessor: uni.test/~prof/ uni.test\n",
    )
    .unwrap();
    let out = run_binary(dir.path(), &["network", "results", "--entities", "bad.txt"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("bad.txt:3: the prefix uni.test is written twice (also line 1)"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(results.join("network/nodes.csv")).unwrap(),
        before
    );
    // A crawl whose NetworkEntities is bad does not start.
    let requests = web.server.requests().len();
    let again = common::prepare(&hosts, &[("NetworkEntities", "entities.txt")]);
    std::fs::write(again.path().join("entities.txt"), ": a.test\n").unwrap();
    let out = run_binary(again.path(), &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("entities.txt:1: an entity without a name"),
        "{err}"
    );
    assert_eq!(web.server.requests().len(), requests, "nothing was fetched");
}

#[test]
fn by_host_and_across_a_multi_host_scope_entities_count_as_an_independent_reading_does() {
    // NetworkUnit = host: what no entity takes is its host.
    let (_web, hosts) = study_web();
    let dir = common::prepare(&hosts, &[("NetworkUnit", "host")]);
    std::fs::write(dir.path().join("entities.txt"), ENTITIES).unwrap();
    crawl_ok(dir.path(), &[]);
    crawl_ok(
        dir.path(),
        &["network", "results", "--entities", "entities.txt"],
    );
    let results = dir.path().join("results");
    let study = Study {
        entities: ENTITIES,
        by_host: true,
    };
    let (pages, arcs) = expected(&results, study);
    let (nodes, written_arcs) = written(&results);
    assert_eq!(written_arcs, arcs);
    assert!(nodes.iter().any(|(l, _)| l == "shop.example.test"));
    for (label, p) in &pages {
        let row = &nodes.iter().find(|(l, _)| l == label).unwrap().1;
        assert_eq!(row["Pages"], p.to_string(), "{label}");
    }

    // A scope over several hosts (KeyDomainUAT): an entity takes a host of it.
    let web = TestWeb::new();
    let o = |h: &str| web.origin(h);
    web.page(
        "uni.test",
        "/",
        &format!(
            "<a href=\"{}/\">Library</a> <a href=/n.html>N</a>",
            o("lib.uni.test")
        ),
    );
    web.page(
        "uni.test",
        "/n.html",
        &format!("<a href=\"{}/b.html\">B</a>", o("lib.uni.test")),
    );
    web.page(
        "lib.uni.test",
        "/",
        &format!(
            "<a href=/b.html>B</a> <a href=\"{}/\">Partner</a>",
            o("www.partner.test")
        ),
    );
    web.page(
        "lib.uni.test",
        "/b.html",
        &format!("<a href=\"{}/\">Home</a>", o("uni.test")),
    );
    web.page(
        "www.partner.test",
        "/",
        &format!("<a href=\"{}/b.html\">B</a>", o("lib.uni.test")),
    );
    let hosts = vec![
        format!("{};2;3;0", o("uni.test")),
        format!("{};2;3;0", o("www.partner.test")),
    ];
    let entities = "Library: lib.uni.test\nUniversity: uni.test\n";
    let dir = common::prepare(
        &hosts,
        &[
            ("UrlAnalyzingThread", "KeyDomainUAT"),
            ("NetworkEntities", "entities.txt"),
        ],
    );
    std::fs::write(dir.path().join("entities.txt"), entities).unwrap();
    crawl_ok(dir.path(), &[]);
    let results = dir.path().join("results");
    let study = Study {
        entities,
        by_host: false,
    };
    let (pages, arcs) = expected(&results, study);
    let (nodes, written_arcs) = written(&results);
    assert_eq!(written_arcs, arcs);
    assert_eq!(pages.get("Library"), Some(&2), "{pages:?}");
    assert_eq!(pages.get("University"), Some(&2), "{pages:?}");
    let labels: Vec<&str> = nodes.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(labels[..2], ["University", "Library"]);
    // The internal links between the two entities are arcs, both ways.
    assert_eq!(arcs.get(&("University".into(), "Library".into())), Some(&2));
    assert_eq!(arcs.get(&("Library".into(), "University".into())), Some(&1));
}

#[test]
fn an_entities_file_that_names_nothing_gives_the_network_without_entities_byte_for_byte() {
    let (_web, hosts) = study_web();
    let dir = common::prepare(&hosts, &[]);
    crawl_ok(dir.path(), &[]);
    let network = dir.path().join("results/network");
    let files = ["nodes.csv", "edges.csv", "subsets.csv", "graph.gexf"];
    let read = || -> Vec<Vec<u8>> {
        files
            .iter()
            .map(|f| std::fs::read(network.join(f)).unwrap())
            .collect()
    };
    let without = read();
    // Comments, blank lines, a byte-order mark and Windows line ends: no entity at all; and
    // an entity only of hosts no link names.
    for text in [
        "\u{feff}# nothing yet\r\n\r\n",
        "Ghost: ghost.test # not in this crawl\n",
    ] {
        std::fs::write(dir.path().join("entities.txt"), text).unwrap();
        crawl_ok(
            dir.path(),
            &["network", "results", "--entities", "entities.txt"],
        );
        let with = read();
        for (i, f) in files.iter().enumerate() {
            assert_eq!(
                String::from_utf8_lossy(&with[i]),
                String::from_utf8_lossy(&without[i]),
                "{f} with {text:?}"
            );
        }
    }
}

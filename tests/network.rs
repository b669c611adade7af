//! The network of sites (SPEC §13): after a crawl, results/network/ holds the targets, the
//! accompanying sites and the arcs between them. Checked against an independent computation
//! from the written external_links.csv files (written here from the rules as SPEC §13 states
//! them), on a loopback web with every case the rules distinguish; rebuilt by
//! `rccrawler network` byte for byte; and refused on bad input without touching the folder.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::net::IpAddr;
use std::path::Path;

use common::{Crawled, TestWeb, read_csv};
use pretty_assertions::assert_eq;
use rccrawler::base::loopback::Resp;

/// A network as its files say it: nodes by label, arcs by (source label, target label).
#[derive(Debug, PartialEq, Eq)]
struct Net {
    /// Label -> (Set, Subset, InTargets, InLinks, InPages, OutTargets, OutLinks, Pages).
    nodes: BTreeMap<String, [String; 8]>,
    /// Node labels in id order.
    order: Vec<String>,
    /// (source, target) -> (Weight, Pages, Nofollow, NofollowShare).
    arcs: BTreeMap<(String, String), (u64, u64, u64, String)>,
    /// Subset -> (Sites, Links).
    subsets: Vec<(String, u64, u64)>,
}

fn read_net(results: &Path) -> Net {
    let dir = results.join("network");
    let (header, rows) = read_csv(&dir.join("nodes.csv"));
    assert_eq!(
        header,
        [
            "Id",
            "Label",
            "Set",
            "Subset",
            "InTargets",
            "InLinks",
            "InPages",
            "OutTargets",
            "OutLinks",
            "Pages",
            "Hosts",
            "PageRank",
            "Harmonic"
        ]
    );
    let mut nodes = BTreeMap::new();
    let mut order = Vec::new();
    let mut label_of = HashMap::new();
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r[0], (i + 1).to_string(), "ids are 1, 2, 3…");
        label_of.insert(r[0].clone(), r[1].clone());
        order.push(r[1].clone());
        let fields: [String; 8] = std::array::from_fn(|k| r[k + 2].clone());
        assert!(
            nodes.insert(r[1].clone(), fields).is_none(),
            "{} twice",
            r[1]
        );
    }
    let (header, rows) = read_csv(&dir.join("edges.csv"));
    assert_eq!(
        header,
        [
            "Source",
            "Target",
            "Type",
            "Weight",
            "Pages",
            "Nofollow",
            "NofollowShare"
        ]
    );
    let mut arcs = BTreeMap::new();
    let mut last = (0u64, 0u64);
    for r in rows {
        let key = (r[0].parse::<u64>().unwrap(), r[1].parse::<u64>().unwrap());
        assert!(
            key > last,
            "edges.csv sorted by source, then target: {key:?}"
        );
        last = key;
        assert_eq!(r[2], "Directed");
        arcs.insert(
            (label_of[&r[0]].clone(), label_of[&r[1]].clone()),
            (
                r[3].parse().unwrap(),
                r[4].parse().unwrap(),
                r[5].parse().unwrap(),
                r[6].clone(),
            ),
        );
    }
    let (header, rows) = read_csv(&dir.join("subsets.csv"));
    assert_eq!(header, ["Subset", "Sites", "Links"]);
    let subsets = rows
        .iter()
        .map(|r| (r[0].clone(), r[1].parse().unwrap(), r[2].parse().unwrap()))
        .collect();
    Net {
        nodes,
        order,
        arcs,
        subsets,
    }
}

/// The unit of a host by SPEC §13: its registrable domain, or the host when it has none.
/// See: issue 53 — the network's PageRank (arcs weighted by their links) and harmonic
/// centrality, in nodes.csv and graph.gexf, equal an independent computation from its
/// edges.csv.
fn check_measures(results: &Path) {
    let dir = results.join("network");
    let (header, rows) = read_csv(&dir.join("nodes.csv"));
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let values: Vec<(f64, f64)> = rows
        .iter()
        .map(|r| {
            (
                r[col("PageRank")].parse().unwrap(),
                r[col("Harmonic")].parse().unwrap(),
            )
        })
        .collect();
    let (_, edges) = read_csv(&dir.join("edges.csv"));
    let arcs: Vec<(usize, usize, f64)> = edges
        .iter()
        .map(|e| {
            let id = |s: &str| s.parse::<usize>().unwrap() - 1;
            (id(&e[0]), id(&e[1]), e[3].parse().unwrap())
        })
        .collect();
    let n = values.len();
    common::measures::assert_close(
        &values,
        &common::measures::pagerank(n, &arcs),
        &common::measures::harmonic(n, &arcs),
    );
    let gexf = std::fs::read_to_string(dir.join("graph.gexf")).unwrap();
    assert!(gexf.contains(r#"<attribute id="harmonic" title="Harmonic" type="double"/>"#));
    let first = &rows[0][col("PageRank")];
    assert!(
        gexf.contains(&format!(r#"<attvalue for="pagerank" value="{first}"/>"#)),
        "{gexf}"
    );
}

fn unit(host: &str) -> String {
    if host.parse::<IpAddr>().is_ok() || host.starts_with('[') || !host.contains('.') {
        return host.to_owned();
    }
    psl::domain_str(host).unwrap_or(host).to_owned()
}

fn host(url: &str) -> String {
    url::Url::parse(url).unwrap().host_str().unwrap().to_owned()
}

/// The network SPEC §13 describes, computed from summary.csv and each site's
/// external_links.csv, written apart from the crawler's code: `keys` are the key domains of
/// each target (by `Site`) for a key-domain crawl.
fn expected(results: &Path, keys: &HashMap<String, Vec<&str>>) -> Net {
    let (h, rows) = read_csv(&results.join("summary.csv"));
    let col = |n: &str| h.iter().position(|c| c == n).unwrap();
    let (site, folder, pages, home) = (col("Site"), col("Folder"), col("Pages"), col("Home"));
    let targets: Vec<Vec<String>> = rows;
    // Which target a host belongs to: the first whose site or home host it is, or (a
    // key-domain crawl) one of whose key domains is a label of it.
    let owner = |h: &str| -> Option<usize> {
        targets.iter().position(|t| {
            let mut hosts = vec![host(&t[site])];
            if !t[home].is_empty() {
                hosts.push(host(&t[home]));
            }
            hosts.iter().any(|x| x == h)
                || keys
                    .get(&t[site])
                    .is_some_and(|k| h.split('.').any(|l| k.contains(&l)))
        })
    };
    // (source target, node label) -> (links, pages, links with a rel qualifier)
    let mut arcs: BTreeMap<(usize, String), (u64, BTreeSet<String>, u64)> = BTreeMap::new();
    for (t, row) in targets.iter().enumerate() {
        let own = unit(&host(&row[site]));
        let path = results.join(&row[folder]).join("external_links.csv");
        if !path.exists() {
            continue;
        }
        let (header, links) = read_csv(&path);
        let rel = header.iter().position(|h| h == "Rel").unwrap();
        for l in links {
            let node = match owner(&l[2]) {
                Some(o) if o == t => continue,
                Some(o) => targets[o][site].clone(),
                None if unit(&l[2]) == own => continue,
                None => unit(&l[2]),
            };
            let e = arcs.entry((t, node)).or_default();
            e.0 += 1;
            e.1.insert(l[0].clone());
            e.2 += u64::from(!l[rel].is_empty());
        }
    }
    let target_labels: Vec<String> = targets.iter().map(|t| t[site].clone()).collect();
    let mut inbound: BTreeMap<String, (u64, u64, u64)> = BTreeMap::new();
    let mut outbound: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for ((t, node), (links, pages, _)) in &arcs {
        let i = inbound.entry(node.clone()).or_default();
        i.0 += 1;
        i.1 += links;
        i.2 += pages.len() as u64;
        let o = outbound.entry(target_labels[*t].clone()).or_default();
        o.0 += 1;
        o.1 += links;
    }
    let class = |n: u64| match n {
        1 => "1",
        2..=4 => "2-4",
        5..=9 => "5-9",
        _ => "10+",
    };
    let mut nodes = BTreeMap::new();
    for (t, row) in targets.iter().enumerate() {
        let (a, b, c) = inbound.get(&target_labels[t]).copied().unwrap_or_default();
        let (d, e) = outbound.get(&target_labels[t]).copied().unwrap_or_default();
        let f = [
            "target".to_owned(),
            "target".to_owned(),
            a.to_string(),
            b.to_string(),
            c.to_string(),
            d.to_string(),
            e.to_string(),
            row[pages].clone(),
        ];
        nodes.insert(target_labels[t].clone(), f);
    }
    let mut accompanying: Vec<(String, (u64, u64, u64))> = inbound
        .iter()
        .filter(|(l, _)| !target_labels.contains(l))
        .map(|(l, v)| (l.clone(), *v))
        .collect();
    accompanying.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(&b.0)));
    let mut subsets: Vec<(String, u64, u64)> = ["1", "2-4", "5-9", "10+"]
        .iter()
        .map(|s| (s.to_string(), 0, 0))
        .collect();
    for (l, (a, b, c)) in &accompanying {
        let s = subsets.iter_mut().find(|s| s.0 == class(*a)).unwrap();
        s.1 += 1;
        s.2 += b;
        let f = [
            "accompanying".to_owned(),
            class(*a).to_owned(),
            a.to_string(),
            b.to_string(),
            c.to_string(),
            String::new(),
            String::new(),
            String::new(),
        ];
        nodes.insert(l.clone(), f);
    }
    let mut order = target_labels.clone();
    order.extend(accompanying.iter().map(|(l, _)| l.clone()));
    let arcs = arcs
        .into_iter()
        .map(|((t, n), (links, pages, nofollow))| {
            // The share as the file writes it: the shortest decimal that reads back.
            let share = (nofollow as f64 / links as f64).to_string();
            (
                (target_labels[t].clone(), n),
                (links, pages.len() as u64, nofollow, share),
            )
        })
        .collect();
    Net {
        nodes,
        order,
        arcs,
        subsets,
    }
}

/// A web with every case SPEC §13 tells apart, crawled with the default URL filter: links
/// between targets; two targets on one registrable domain (`www.uni.test`, `lib.uni.test`)
/// listed separately; a link into a target's own unit (`cs.uni.test`); a target whose home page
/// moved (`old.test` -> `new.test`); multi-label public suffixes (`b.co.uk`, a regional
/// `spb.ru`); an IP address and a dotless host; an internal link that redirects off-site.
fn case_web() -> (TestWeb, Vec<String>) {
    let web = TestWeb::new();
    let o = |h: &str| web.origin(h);
    web.page(
        "www.uni.test",
        "/",
        &format!(
            "<a href={}/x>library</a><a href=http://cs.uni.test/>cs</a><a href={}/>a</a>\
             <a href=http://x.a.b.co.uk/>b</a><a href=http://www.foo.spb.ru/>spb</a>\
             <a href=http://10.1.2.3/>ip</a><a href=http://intranet/>intranet</a>\
             <a href=/go>go</a><a href={}/page>moved</a><a href=/p2>p2</a>\
             <a href=http://x.a.b.co.uk/ads rel=sponsored>ad</a>",
            o("lib.uni.test"),
            o("a.test"),
            o("new.test")
        ),
    );
    web.page(
        "www.uni.test",
        "/p2",
        &format!(
            "<a href={}/x rel=nofollow>library again</a><a href=http://x.a.b.co.uk/y rel=UGC>b</a>",
            o("lib.uni.test")
        ),
    );
    web.set(
        "www.uni.test",
        "/go",
        Resp::redirect(302, "http://www.example.org/landing"),
    );
    web.page(
        "lib.uni.test",
        "/",
        &format!(
            "<a href={}/>uni</a><a href=https://www.example.org/>ex</a>\
             <a href=http://x.a.b.co.uk/>b</a><a href=/x>x</a>",
            o("www.uni.test")
        ),
    );
    web.page("lib.uni.test", "/x", "<p>x</p>");
    web.page(
        "a.test",
        "/",
        "<a href=http://www.example.org/>ex</a><a href=http://sub.a.test/>own</a>\
         <a href=http://c.test/>c</a><a href=/two>two</a>",
    );
    web.page(
        "a.test",
        "/two",
        "<a href=http://www.example.org/two>ex</a><a href=http://c.test/>c again</a>",
    );
    web.set(
        "old.test",
        "/",
        Resp::redirect(301, &format!("{}/", o("new.test"))),
    );
    web.page(
        "new.test",
        "/",
        "<a href=http://example.org/>ex</a><a href=/page>page</a>",
    );
    web.page("new.test", "/page", "<a href=http://intranet/x>in</a>");
    let hosts = ["www.uni.test", "lib.uni.test", "a.test", "old.test"]
        .iter()
        .map(|h| web.origin(h))
        .collect();
    (web, hosts)
}

fn crawl(hosts: &[String], extra: &[(&str, &str)]) -> Crawled {
    common::crawl(hosts, extra)
}

#[test]
fn the_network_of_a_crawl_is_what_the_rules_give_from_its_external_links() {
    let (web, hosts) = case_web();
    let c = crawl(&hosts, &[]);
    let results = c.results();
    let got = read_net(&results);
    assert_eq!(got, expected(&results, &HashMap::new()));
    check_measures(&results);
    // And what a person expects of this web, said outright.
    let uni = web.origin("www.uni.test");
    let lib = web.origin("lib.uni.test");
    let old = web.origin("old.test");
    assert!(
        got.arcs.contains_key(&(uni.clone(), lib.clone())),
        "two targets on one domain, listed apart: an arc ({:?})",
        got.arcs
    );
    assert_eq!(
        got.arcs[&(uni.clone(), lib.clone())],
        (2, 2, 1, "0.5".to_owned()),
        "2 links, 2 pages, one of them nofollow (SPEC §17)"
    );
    let b = "b.co.uk".to_owned();
    assert_eq!(
        got.arcs[&(uni.clone(), b)],
        (3, 2, 2, (2.0f64 / 3.0).to_string()),
        "rel=sponsored and rel=UGC count as nofollow"
    );
    assert!(
        got.arcs.contains_key(&(uni.clone(), old)),
        "a link to the host a target's home moved to is a link to that target"
    );
    assert!(
        !got.nodes.contains_key("uni.test"),
        "cs.uni.test is uni's own unit"
    );
    assert!(
        !got.nodes.contains_key("a.test"),
        "sub.a.test is a.test's own unit"
    );
    for unit in [
        "b.co.uk",
        "foo.spb.ru",
        "10.1.2.3",
        "intranet",
        "example.org",
        "c.test",
    ] {
        assert_eq!(got.nodes[unit][0], "accompanying", "{unit}");
    }
    let ex = &got.nodes["example.org"];
    assert_eq!(
        (
            ex[1].as_str(),
            ex[2].as_str(),
            ex[3].as_str(),
            ex[4].as_str()
        ),
        ("2-4", "4", "5", "5"),
        "example.org: linked by all four targets (uni through a redirect), 5 links, 5 pages"
    );
    assert_eq!(
        got.order[..4],
        hosts[..],
        "targets first, in hosts.txt order"
    );
    assert_eq!(
        got.order[4], "example.org",
        "then the most linked accompanying site"
    );
    // rccrawler network rebuilds the same files, byte for byte.
    let files = ["nodes.csv", "edges.csv", "subsets.csv", "graph.gexf"];
    let before: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(results.join("network").join(f)).unwrap())
        .collect();
    std::fs::remove_dir_all(results.join("network")).unwrap();
    let out = common::run_binary(c.dir.path(), &["network"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (f, b) in files.iter().zip(&before) {
        assert_eq!(
            &std::fs::read(results.join("network").join(f)).unwrap(),
            b,
            "{f} rebuilt"
        );
    }
    // graph.gexf is well-formed XML with a node per row and an edge per arc.
    let gexf = String::from_utf8(before[3].clone()).unwrap();
    assert_eq!(gexf.matches("<node ").count(), got.nodes.len());
    assert_eq!(gexf.matches("<edge ").count(), got.arcs.len());
    assert!(gexf.contains(r#"<attribute id="subset" title="Subset" type="string"/>"#));
    assert!(gexf.trim_end().ends_with("</gexf>"));
}

/// Under `KeyDomainUAT` a target's scope is its organisation: a link to another target's
/// sub-host (`lib.spbu.spb.ru`, which `www.spbu.spb.ru`'s scope takes in by its key domain
/// `spbu`) is an arc to that target, not to an accompanying site.
#[test]
fn under_key_domains_a_link_to_another_targets_sub_host_is_an_arc_to_it() {
    let web = TestWeb::new();
    web.page(
        "www.spbu.spb.ru",
        "/",
        &format!(
            "<a href={}/>itmo</a><a href=http://www.other.test/>other</a>",
            web.origin("www.itmo.spb.ru")
        ),
    );
    web.page(
        "www.itmo.spb.ru",
        "/",
        "<a href=http://lib.spbu.spb.ru/books>spbu's library</a>\
         <a href=http://www.other.test/x>other</a><a href=http://news.other.test/>news</a>",
    );
    let hosts: Vec<String> = ["www.spbu.spb.ru", "www.itmo.spb.ru"]
        .iter()
        .map(|h| web.origin(h))
        .collect();
    let c = crawl(&hosts, &[("UrlAnalyzingThread", "KeyDomainUAT")]);
    let results = c.results();
    let keys: HashMap<String, Vec<&str>> = [
        (hosts[0].clone(), vec!["spbu"]),
        (hosts[1].clone(), vec!["itmo"]),
    ]
    .into_iter()
    .collect();
    let got = read_net(&results);
    assert_eq!(got, expected(&results, &keys));
    let one = (1, 1, 0, "0".to_owned());
    assert_eq!(got.arcs[&(hosts[1].clone(), hosts[0].clone())], one);
    assert_eq!(got.arcs[&(hosts[0].clone(), hosts[1].clone())], one);
    assert_eq!(got.nodes["other.test"][2], "2", "other.test: both targets");
    assert_eq!(
        got.nodes["other.test"][3], "3",
        "three links to other.test's hosts"
    );
}

#[test]
fn network_unit_host_and_other_subsets_are_honoured() {
    let (_web, hosts) = case_web();
    let c = crawl(
        &hosts,
        &[("NetworkUnit", "host"), ("NetworkSubsets", "1,3")],
    );
    let got = read_net(&c.results());
    assert!(got.nodes.contains_key("www.example.org"), "{:?}", got.order);
    assert!(
        got.nodes.contains_key("cs.uni.test"),
        "a host of uni's domain is not its own host"
    );
    assert_eq!(
        got.subsets.iter().map(|s| s.0.as_str()).collect::<Vec<_>>(),
        ["1-2", "3+"]
    );
}

#[test]
fn prospects_are_hosts_txt_lines_of_the_sites_k_targets_link_to() {
    let (_web, hosts) = case_web();
    let c = crawl(&hosts, &[]);
    let out = common::run_binary(c.dir.path(), &["network", "--prospects", "2"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(c.results().join("network/prospects.txt")).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    // example.org (4 targets), b.co.uk (www.uni, lib.uni) and intranet (www.uni, old/new)
    // qualify, most linked first; each by its most linked home.
    assert_eq!(
        lines,
        [
            "http://www.example.org",
            "http://x.a.b.co.uk",
            "http://intranet"
        ],
        "{text}"
    );
    // They read as a hosts.txt.
    let path = c.dir.path().join("more_hosts.txt");
    std::fs::write(&path, &text).unwrap();
    let defaults = rccrawler::Settings::defaults(c.dir.path()).sites.defaults;
    let sites = rccrawler::load_hosts(&path, defaults).unwrap();
    assert_eq!(sites.len(), 3);
}

#[test]
fn bad_input_is_refused_naming_the_file_and_line_and_changes_nothing() {
    let (_web, hosts) = case_web();
    let c = crawl(&hosts, &[]);
    let results = c.results();
    let network = |dir: &Path| -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.join("network"))
            .unwrap()
            .flatten()
            .map(|e| {
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        files.sort();
        files
    };
    let before = network(&results);
    // A truncated external_links.csv: cut inside its last row.
    let uni = std::fs::read_dir(&results)
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("www.uni.test"))
        .unwrap()
        .path();
    let links = uni.join("external_links.csv");
    let text = std::fs::read_to_string(&links).unwrap();
    let rows = text.lines().count();
    std::fs::write(&links, &text[..text.len() - 5]).unwrap();
    let out = common::run_binary(c.dir.path(), &["network"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("external_links.csv:{rows}:")),
        "names the file and its last line ({rows}): {err}"
    );
    assert_eq!(network(&results), before, "network/ untouched");
    std::fs::write(&links, &text).unwrap();
    // An unknown NetworkUnit: settings.ini's line.
    let settings = c.dir.path().join("settings.ini");
    let good = std::fs::read_to_string(&settings).unwrap();
    std::fs::write(&settings, format!("{good}\nNetworkUnit = planet\n")).unwrap();
    let out = common::run_binary(c.dir.path(), &["network"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("settings.ini:") && err.contains("NetworkUnit") && err.contains("planet"),
        "{err}"
    );
    std::fs::write(&settings, good).unwrap();
    // A folder with no summary.csv.
    let empty = c.dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = common::run_binary(c.dir.path(), &["network", "empty"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no summary.csv"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!empty.join("network").exists());
    assert_eq!(network(&results), before);
}

/// The report opens with the network (SPEC §13): drawn, its subsets, the accompanying sites
/// most targets link to, the targets' matrix — and the drawing in headless Chromium has a
/// circle per drawn site, with no script error (it pans and zooms).
#[test]
fn the_report_opens_with_the_network_drawn_and_its_tables() {
    let (_web, hosts) = case_web();
    let c = crawl(&hosts, &[]);
    let html = std::fs::read_to_string(c.results().join("report.html")).unwrap();
    let net = read_net(&c.results());
    let at = |needle: &str| {
        html.find(needle)
            .unwrap_or_else(|| panic!("report lacks {needle}"))
    };
    assert!(
        at("id=\"network\"") < at("id=\"sites-table\""),
        "the network comes first"
    );
    let drawing = &html[at("id=\"network-drawing\"")..];
    let drawing = &drawing[..drawing.find("</svg>").unwrap()];
    // Every site with an arc to another site is drawn (this network is small).
    let linked: BTreeSet<&String> = net.arcs.keys().flat_map(|(s, t)| [s, t]).collect();
    assert_eq!(drawing.matches("<circle").count(), linked.len());
    for label in &linked {
        let shown = label.trim_start_matches("http://");
        assert!(drawing.contains(shown), "{shown} named on hover");
    }
    let subsets = &html[at("id=\"network-subsets\"")..];
    assert!(subsets.contains("<td>2-4</td>"));
    let prospects = &html[at("id=\"network-prospects\"")..];
    let first_row = &prospects[prospects.find("<tbody>").unwrap()..];
    assert!(
        first_row.starts_with("<tbody><tr><td>example.org</td>"),
        "{first_row:.200}"
    );
    assert!(html.contains("id=\"network-matrix\""));
    if let Some((dom, console)) = common::chromium::dump_dom(&format!(
        "file://{}",
        c.results().join("report.html").display()
    )) {
        assert!(!console.contains("Uncaught"), "script errors: {console}");
        let drawn = &dom[dom.find("id=\"network-drawing\"").unwrap()..];
        assert_eq!(
            drawn[..drawn.find("</svg>").unwrap()]
                .matches("<circle")
                .count(),
            linked.len()
        );
    }
}

//! `rccrawler compare` (SPEC §16), end to end: a loopback web is crawled, changed — pages
//! added, removed, moved deeper, edited, renamed, one behind a new redirect; links added
//! between sites; a site gone; another crawled deeper — crawled again, and the two results
//! folders compared with the binary. Every row of every file is checked against the changes
//! made; the dynamic GEXF files are validated against the GEXF 1.3 schema (vendored in
//! tests/data/gexf-1.3, with xmllint); report.html is loaded in headless Chromium.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::{TestWeb, prepare, read_csv, run_binary, run_in};
use rccrawler::base::loopback::Resp;

type Row = BTreeMap<String, String>;

/// A CSV file's rows, each by column name.
fn rows(path: &Path) -> Vec<Row> {
    let (header, rows) = read_csv(path);
    rows.into_iter()
        .map(|r| header.iter().cloned().zip(r).collect())
        .collect()
}

/// The values of columns `cols` of each row of `path` that `keep` keeps, as a set.
fn pick(path: &Path, cols: &[&str], keep: impl Fn(&Row) -> bool) -> BTreeSet<Vec<String>> {
    rows(path)
        .iter()
        .filter(|r| keep(r))
        .map(|r| cols.iter().map(|c| r[*c].clone()).collect())
        .collect()
}

/// Owned strings, for the rows a test expects.
fn v(fields: &[&str]) -> Vec<String> {
    fields.iter().map(|f| (*f).to_owned()).collect()
}

/// Runs `rccrawler compare FOLDERS --out cmp` in `work`, which must succeed; its stderr.
fn compare_ok(work: &Path, folders: &[&Path]) -> String {
    let mut args = vec!["compare".to_owned()];
    args.extend(folders.iter().map(|f| f.display().to_string()));
    args.extend(["--out".to_owned(), "cmp".to_owned()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = run_binary(work, &args);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{stderr}");
    stderr
}

fn header(path: &Path) -> Vec<String> {
    read_csv(path).0
}

/// The web as first crawled: a.test (the changing site), b.test (unchanged), c.test (gone
/// later), d.test (three levels deep, crawled to level 1 first and level 2 later).
fn first_web(web: &TestWeb) {
    web.page(
        "a.test",
        "/",
        r#"<a href="/p1">p1</a><a href="/p2">p2</a><a href="/edit">edit</a>
           <a href="/old-name">r</a><a href="/redir-src">s</a>
           <a href="http://www.ext-one.org/x">Ext one</a>"#,
    );
    web.page("a.test", "/p1", r#"<p>one</p><a href="/p3">p3</a>"#);
    web.page("a.test", "/p2", "<p>two, unchanged</p>");
    web.page("a.test", "/p3", "<p>three</p>");
    web.page("a.test", "/edit", "<p>first version</p>");
    web.page("a.test", "/old-name", "<p>the page that is renamed</p>");
    web.page(
        "a.test",
        "/redir-src",
        "<p>the page behind a redirect later</p>",
    );
    web.page("b.test", "/", r#"<a href="/b1">b1</a>"#);
    web.page("b.test", "/b1", "<p>b one</p>");
    web.page("c.test", "/", r#"<a href="/c1">c1</a>"#);
    web.page("c.test", "/c1", "<p>c one</p>");
    web.page("d.test", "/", r#"<a href="/d1">d1</a>"#);
    web.page("d.test", "/d1", r#"<a href="/d2">d2</a>"#);
    web.page("d.test", "/d2", "<p>d two</p>");
}

/// The changes made before the second crawl.
fn change_web(web: &TestWeb) {
    let b = web.origin("b.test");
    web.page(
        "a.test",
        "/",
        &format!(
            r#"<a href="/p1">p1</a><a href="/edit">edit</a><a href="/edit">edit again</a>
           <a href="/new-name">r</a><a href="/redir-src">s</a><a href="/added">new</a>
           <a href="http://www.ext-two.org/y">Ext two</a><a href="{b}/">B</a>"#
        ),
    );
    // /p2 is now linked from /p1 only (one level deeper); /p3 from nowhere.
    web.page("a.test", "/p1", r#"<p>one</p><a href="/p2">p2</a>"#);
    web.page("a.test", "/edit", "<p>second version</p>");
    web.page("a.test", "/new-name", "<p>the page that is renamed</p>");
    web.page("a.test", "/old-name", "<p>not linked any more</p>");
    web.set("a.test", "/redir-src", Resp::redirect(301, "/redir-dst"));
    web.page(
        "a.test",
        "/redir-dst",
        "<p>the page behind a redirect later</p>",
    );
    web.page("a.test", "/added", "<p>a new page</p>");
    web.set("c.test", "/", Resp::new(404, "text/html", "gone"));
}

fn hosts(web: &TestWeb, d_level: u32) -> Vec<String> {
    vec![
        web.origin("a.test"),
        web.origin("b.test"),
        web.origin("c.test"),
        format!("{};2;{d_level};0", web.origin("d.test")),
    ]
}

/// A crawl of `web` into a new folder; its results folder.
fn crawl(web: &TestWeb, d_level: u32, extra: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let dir = prepare(&hosts(web, d_level), extra);
    run_in(dir.path());
    let results = dir.path().join("results");
    (dir, results)
}

/// Each page's (level, content hash) in a crawl's site folder.
fn pages_of(results: &Path, folder: &str) -> BTreeMap<String, (String, String)> {
    rows(&results.join(folder).join("nodes.csv"))
        .into_iter()
        .map(|r| {
            (
                r["Label"].clone(),
                (r["Level"].clone(), r["ContentHash"].clone()),
            )
        })
        .collect()
}

#[test]
fn two_crawls_of_a_changed_web_are_compared_row_by_row() {
    let web = TestWeb::new();
    first_web(&web);
    let (_one, r1) = crawl(&web, 1, &[]);
    change_web(&web);
    let (_two, r2) = crawl(&web, 2, &[]);
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("cmp");
    let before: Vec<_> = [&r1, &r2].iter().map(|r| snapshot_tree(r)).collect();
    let stderr = compare_ok(work.path(), &[&r1, &r2]);
    // Nothing in the compared folders was written.
    let after: Vec<_> = [&r1, &r2].iter().map(|r| snapshot_tree(r)).collect();
    assert_eq!(before, after);
    // d.test was crawled one level deeper: said, and said per site.
    let d = web.origin("d.test");
    assert!(
        stderr.contains(&format!("{d}: not comparable: maxCrawlLevel 1 → 2")),
        "{stderr}"
    );

    let (a, b, c) = (
        web.origin("a.test"),
        web.origin("b.test"),
        web.origin("c.test"),
    );
    let port = web.port();
    let fa = format!("a.test_{port}");
    let (old_a, new_a) = (pages_of(&r1, &fa), pages_of(&r2, &fa));
    let url = |p: &str| format!("{a}{p}");

    // pages.csv, a.test: every change made, and nothing else.
    assert_eq!(
        header(&out.join("pages.csv")),
        [
            "Site", "Url", "Change", "OldLevel", "NewLevel", "OldHash", "NewHash"
        ]
    );
    let pages = rows(&out.join("pages.csv"));
    let got = pick(
        &out.join("pages.csv"),
        &[
            "Url", "Change", "OldLevel", "NewLevel", "OldHash", "NewHash",
        ],
        |r| r["Site"] == a,
    );
    let row = |new: &str, change: &str, old: &str| {
        let o = old_a.get(&url(old)).cloned().unwrap_or_default();
        let n = new_a.get(&url(new)).cloned().unwrap_or_default();
        let shown = if change == "removed" {
            url(old)
        } else {
            url(new)
        };
        vec![shown, change.to_owned(), o.0, n.0, o.1, n.1]
    };
    let want: BTreeSet<_> = [
        row("/", "changed", "/"),
        row("/p1", "changed", "/p1"),
        row("/edit", "changed", "/edit"),
        row("/p2", "level", "/p2"),
        row("/new-name", "renamed", "/old-name"),
        row("/redir-dst", "renamed", "/redir-src"),
        row("/added", "added", "-"),
        row("-", "removed", "/p3"),
    ]
    .into_iter()
    .collect();
    assert_eq!(got, want);
    // The levels behind those rows are the crawls' own: /p2 went from 1 to 2.
    assert_eq!(
        (old_a[&url("/p2")].0.as_str(), new_a[&url("/p2")].0.as_str()),
        ("1", "2")
    );
    assert_ne!(old_a[&url("/edit")].1, new_a[&url("/edit")].1);
    assert_eq!(old_a[&url("/old-name")].1, new_a[&url("/new-name")].1);
    // renamed.csv: where each renamed page was, matched by its bytes.
    assert_eq!(
        header(&out.join("renamed.csv")),
        ["Site", "OldUrl", "NewUrl", "By"]
    );
    assert_eq!(
        pick(
            &out.join("renamed.csv"),
            &["Site", "OldUrl", "NewUrl", "By"],
            |_| true
        ),
        [
            v(&[&a, &url("/old-name"), &url("/new-name"), "bytes"]),
            v(&[&a, &url("/redir-src"), &url("/redir-dst"), "bytes"]),
        ]
        .into_iter()
        .collect()
    );
    // b.test did not change; c.test is gone (every page removed); d.test has its new level.
    assert!(pages.iter().all(|r| r["Site"] != b), "{pages:?}");
    let c_rows: BTreeSet<(String, String)> = pages
        .iter()
        .filter(|r| r["Site"] == c)
        .map(|r| (r["Url"].clone(), r["Change"].clone()))
        .collect();
    assert_eq!(
        c_rows,
        [
            (format!("{c}/"), "removed".into()),
            (format!("{c}/c1"), "removed".into())
        ]
        .into_iter()
        .collect()
    );
    let d_rows: Vec<(String, String, String)> = pages
        .iter()
        .filter(|r| r["Site"] == d)
        .map(|r| (r["Url"].clone(), r["Change"].clone(), r["NewLevel"].clone()))
        .collect();
    assert_eq!(d_rows, [(format!("{d}/d2"), "added".into(), "2".into())]);

    // arcs.csv: through the renamed pages, an arc is the same arc.
    let arcs = pick(
        &out.join("arcs.csv"),
        &[
            "Site",
            "Source",
            "Target",
            "Change",
            "OldWeight",
            "NewWeight",
        ],
        |_| true,
    );
    let arc = |site: &str, s: String, t: String, ch: &str, ow: &str, nw: &str| {
        vec![
            site.to_owned(),
            s,
            t,
            ch.to_owned(),
            ow.to_owned(),
            nw.to_owned(),
        ]
    };
    let want: BTreeSet<_> = [
        arc(&a, url("/"), url("/p2"), "removed", "1", ""),
        arc(&a, url("/p1"), url("/p3"), "removed", "1", ""),
        arc(&a, url("/p1"), url("/p2"), "added", "", "1"),
        arc(&a, url("/"), url("/added"), "added", "", "1"),
        arc(&a, url("/"), url("/edit"), "reweighted", "1", "2"),
        arc(&c, format!("{c}/"), format!("{c}/c1"), "removed", "1", ""),
        arc(&d, format!("{d}/d1"), format!("{d}/d2"), "added", "", "1"),
    ]
    .into_iter()
    .collect();
    assert_eq!(arcs, want);

    // external.csv: the link to another partner, and the new link to b.test.
    assert!(
        rows(&out.join("external.csv"))
            .iter()
            .all(|r| r["Site"] == a)
    );
    let ext = pick(
        &out.join("external.csv"),
        &["Page", "Url", "Host", "Anchor", "Change"],
        |_| true,
    );
    let e = |u: &str, h: &str, anchor: &str, ch: &str| {
        vec![
            url("/"),
            u.to_owned(),
            h.to_owned(),
            anchor.to_owned(),
            ch.to_owned(),
        ]
    };
    let want: BTreeSet<_> = [
        e(
            "http://www.ext-one.org/x",
            "www.ext-one.org",
            "Ext one",
            "removed",
        ),
        e(
            "http://www.ext-two.org/y",
            "www.ext-two.org",
            "Ext two",
            "added",
        ),
        e(&format!("{b}/"), "b.test", "B", "added"),
    ]
    .into_iter()
    .collect();
    assert_eq!(ext, want);

    // sites.csv: each site's figures in both crawls, its changes, whether comparable.
    let sites: BTreeMap<String, Row> = rows(&out.join("sites.csv"))
        .into_iter()
        .map(|r| (r["Site"].clone(), r))
        .collect();
    assert_eq!(sites.len(), 4);
    let summary = |r: &Path| -> BTreeMap<String, Row> {
        rows(&r.join("summary.csv"))
            .into_iter()
            .map(|r| (r["Site"].clone(), r))
            .collect()
    };
    let (s1, s2) = (summary(&r1), summary(&r2));
    for (site, row) in &sites {
        for (col, old, new) in [
            ("Pages", "OldPages", "NewPages"),
            ("Arcs", "OldArcs", "NewArcs"),
            ("ExternalLinks", "OldExternalLinks", "NewExternalLinks"),
            ("BadLinks", "OldBadLinks", "NewBadLinks"),
        ] {
            assert_eq!(row[old], s1[site][col], "{site} {old}");
            assert_eq!(row[new], s2[site][col], "{site} {new}");
            let change: i64 = row[new].parse::<i64>().unwrap() - row[old].parse::<i64>().unwrap();
            let key = format!("{}Change", old.trim_start_matches("Old"));
            assert_eq!(row[&key], change.to_string(), "{site} {key}");
        }
        assert_eq!(row["OldState"], s1[site]["State"]);
        assert_eq!(row["NewState"], s2[site]["State"]);
    }
    let counts = |site: &str, cols: &[&str]| -> Vec<String> {
        cols.iter().map(|c| sites[site][*c].clone()).collect()
    };
    let cols = [
        "Comparable",
        "Unchanged",
        "Added",
        "Removed",
        "Changed",
        "Renamed",
        "Moved",
        "ArcsAdded",
        "ArcsRemoved",
        "ArcsReweighted",
        "ExternalAdded",
        "ExternalRemoved",
    ];
    assert_eq!(
        counts(&a, &cols),
        ["yes", "0", "1", "1", "3", "2", "1", "2", "2", "1", "2", "1"]
    );
    assert_eq!(
        counts(&b, &cols),
        ["yes", "2", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0"]
    );
    assert_eq!(
        counts(&c, &cols),
        ["yes", "0", "0", "2", "0", "0", "0", "0", "1", "0", "0", "0"]
    );
    assert_eq!(
        counts(&d, &cols),
        ["no", "2", "1", "0", "0", "0", "0", "1", "0", "0", "0", "0"]
    );
    assert_eq!(sites[&d]["Notes"], "maxCrawlLevel 1 → 2");
    assert_eq!(
        (
            sites[&c]["OldState"].as_str(),
            sites[&c]["NewState"].as_str()
        ),
        ("done", "unreachable")
    );

    // The network of sites: ext-two.org new, ext-one.org gone, a.test → b.test gained.
    assert_eq!(
        pick(&out.join("network/sites.csv"), &["Site", "Change"], |_| {
            true
        }),
        [v(&["ext-two.org", "added"]), v(&["ext-one.org", "removed"])]
            .into_iter()
            .collect()
    );
    assert_eq!(
        pick(
            &out.join("network/arcs.csv"),
            &["Source", "Target", "Change"],
            |_| true
        ),
        [
            v(&[&a, "ext-two.org", "added"]),
            v(&[&a, &b, "added"]),
            v(&[&a, "ext-one.org", "removed"]),
        ]
        .into_iter()
        .collect()
    );

    // One dynamic GEXF per site and for the network, valid GEXF 1.3.
    for f in [fa.clone(), format!("c.test_{port}"), "network".into()] {
        let gexf = out.join(&f).join("graph.gexf");
        let text = std::fs::read_to_string(&gexf).unwrap();
        assert!(text.contains("mode=\"dynamic\""), "{f}");
        common::xmllint_validates(&gexf);
    }
    let gexf = std::fs::read_to_string(out.join(&fa).join("graph.gexf")).unwrap();
    // /p3 is only in crawl 1, /added only in crawl 2, / in both.
    for (page, spells) in [
        ("/p3", "<spell start=\"1\" end=\"1\"/>"),
        ("/added", "<spell start=\"2\" end=\"2\"/>"),
        (
            "/",
            "<spell start=\"1\" end=\"1\"/><spell start=\"2\" end=\"2\"/>",
        ),
        // See: issue 64 item 5 — the renamed page is one node over both crawls, labelled
        // with its newer URL.
        (
            "/new-name",
            "<spell start=\"1\" end=\"1\"/><spell start=\"2\" end=\"2\"/>",
        ),
    ] {
        let at = gexf.find(&format!("label=\"{}\"", url(page))).unwrap();
        let node = &gexf[at..at + gexf[at..].find("</node>").unwrap()];
        assert!(
            node.ends_with(&format!("<spells>{spells}</spells>")),
            "{page}: {node}"
        );
    }

    assert!(
        !gexf.contains(&format!("label=\"{}\"", url("/old-name"))),
        "{gexf}"
    );
    let node_of = |page: &str| {
        let at = gexf.find(&format!("label=\"{}\"", url(page))).unwrap();
        gexf[at..at + gexf[at..].find("</node>").unwrap()].to_owned()
    };
    let renamed = node_of("/new-name");
    for part in [
        format!(
            "<attvalue for=\"url\" value=\"{}\" start=\"1\" end=\"1\"/>",
            url("/old-name")
        ),
        format!(
            "<attvalue for=\"url\" value=\"{}\" start=\"2\" end=\"2\"/>",
            url("/new-name")
        ),
        "<attvalue for=\"change\" value=\"renamed\" start=\"2\" end=\"2\"/>".to_owned(),
        "<attvalue for=\"hash\" value=\"".to_owned(),
    ] {
        assert!(renamed.contains(&part), "{part}: {renamed}");
    }

    // / → /edit, one link then two: its weight over time; /p2 one level deeper in crawl 2.
    assert!(
        gexf.contains("<attvalue for=\"weight\" value=\"1\" start=\"1\" end=\"1\"/><attvalue for=\"weight\" value=\"2\" start=\"2\" end=\"2\"/>"),
        "{gexf}"
    );
    let p2 = node_of("/p2");
    for part in [
        "<attvalue for=\"level\" value=\"1\" start=\"1\" end=\"1\"/>",
        "<attvalue for=\"level\" value=\"2\" start=\"2\" end=\"2\"/>",
        "<attvalue for=\"change\" value=\"level\" start=\"2\" end=\"2\"/>",
    ] {
        assert!(p2.contains(part), "{part}: {p2}");
    }
    // networkx reads it, as Gephi does: one node a page over time, its attributes per crawl.
    if let Some(nodes) = common::networkx::read_gexf(&out.join(&fa).join("graph.gexf")) {
        let renamed = &nodes[&url("/new-name")];
        assert_eq!(
            renamed["spells"],
            serde_json::json!([[1, 1], [2, 2]]),
            "{renamed}"
        );
        assert_eq!(
            renamed["change"],
            serde_json::json!([["renamed", 2, 2]]),
            "{renamed}"
        );
        assert!(
            renamed["hash"].as_array().is_some_and(|h| h.len() == 2),
            "{renamed}"
        );
        assert!(!nodes.contains_key(&url("/old-name")));
        for f in [format!("c.test_{port}"), "network".into()] {
            assert!(common::networkx::read_gexf(&out.join(&f).join("graph.gexf")).is_some());
        }
    }

    // The report opens in a browser and shows the change.
    let report = out.join("report.html");
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.contains("2 crawls compared"), "{html}");
    if let Some((dom, _log)) = common::chromium::dump_dom(&format!("file://{}", report.display())) {
        assert!(dom.contains("id=\"change-counts\""), "{dom}");
        assert!(
            dom.contains("3 sites comparable, 1 not, 0 unknown"),
            "{dom}"
        );
        assert!(dom.contains("data-marks="), "the levels plot is drawn");
        assert!(dom.contains("ext-two.org"), "new accompanying site listed");
    }
}

/// Every file under `dir` with its bytes.
fn snapshot_tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

#[test]
fn three_crawls_give_steps_and_a_changed_duplicate_rule_is_said_for_every_site() {
    let web = TestWeb::new();
    first_web(&web);
    let (_one, r1) = crawl(&web, 1, &[]);
    change_web(&web);
    let (_two, r2) = crawl(&web, 1, &[]);
    let (_three, r3) = crawl(&web, 1, &[("Duplicates", "exact")]);
    let work = tempfile::tempdir().unwrap();
    let stderr = compare_ok(work.path(), &[&r1, &r2, &r3]);
    assert!(
        stderr.contains("duplicate rule: Duplicates fold → exact"),
        "{stderr}"
    );
    let out = work.path().join("cmp");
    // The first against the last, then each step; the steps add up to the whole for a.test.
    let a = web.origin("a.test");
    let changes = |dir: &Path| -> BTreeSet<(String, String)> {
        rows(&dir.join("pages.csv"))
            .into_iter()
            .filter(|r| r["Site"] == a)
            .map(|r| (r["Url"].clone(), r["Change"].clone()))
            .collect()
    };
    let whole = changes(&out);
    let first = changes(&out.join("steps/1-2"));
    let second = changes(&out.join("steps/2-3"));
    assert_eq!(whole, first, "crawl 3 fetched the same web as crawl 2");
    assert!(second.is_empty(), "{second:?}");
    for dir in [out.clone(), out.join("steps/2-3")] {
        for r in rows(&dir.join("sites.csv")) {
            if r["OldState"] == "absent" || r["NewState"] == "absent" {
                continue;
            }
            assert_eq!(r["Comparable"], "no", "{r:?}");
            assert!(r["Notes"].contains("Duplicates fold → exact"), "{r:?}");
        }
    }
    for r in rows(&out.join("steps/1-2/sites.csv")) {
        assert_eq!(r["Comparable"], "yes", "{r:?}");
    }
    // Three crawls on the timeline.
    let gexf = std::fs::read_to_string(
        out.join(format!("a.test_{}", web.port()))
            .join("graph.gexf"),
    )
    .unwrap();
    assert!(gexf.contains("start=\"3\" end=\"3\""));
    common::xmllint_validates(
        &out.join(format!("a.test_{}", web.port()))
            .join("graph.gexf"),
    );
}

#[test]
fn what_cannot_be_compared_exits_2_and_writes_nothing() {
    let web = TestWeb::new();
    first_web(&web);
    let (_one, r1) = crawl(&web, 1, &[]);
    let other = TestWeb::new();
    other.page("e.test", "/", "<p>alone</p>");
    let dir = prepare(&[other.origin("e.test")], &[]);
    run_in(dir.path());
    let r_other = dir.path().join("results");
    let work = tempfile::tempdir().unwrap();
    let not_results = work.path().join("notes");
    std::fs::create_dir(&not_results).unwrap();
    std::fs::write(not_results.join("readme.txt"), "no crawl here").unwrap();
    // A results folder from a newer rccrawler.
    let newer = work.path().join("newer");
    std::fs::create_dir(&newer).unwrap();
    for f in ["summary.csv", "crawl.ini", "hosts.txt"] {
        std::fs::copy(r1.join(f), newer.join(f)).unwrap();
    }
    let ini = std::fs::read_to_string(newer.join("crawl.ini")).unwrap();
    std::fs::write(
        newer.join("crawl.ini"),
        ini.replace("ResultsFormat = 1", "ResultsFormat = 99"),
    )
    .unwrap();
    let s = |p: &Path| p.to_str().unwrap().to_owned();
    let inside = format!("{}/cmp", s(&r1));
    for (args, says) in [
        (vec![s(&r1), s(&not_results)], "no summary.csv"),
        (vec![s(&r1), s(&r_other)], "no site in common"),
        (vec![s(&r1), s(&newer)], "results format 99"),
        (
            vec![s(&r1), s(&work.path().join("missing"))],
            "not a folder",
        ),
    ] {
        let mut argv = vec!["compare".to_owned()];
        argv.extend(args);
        argv.extend(["--out".into(), "cmp".into()]);
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        let before = snapshot_tree(&r1);
        let o = run_binary(work.path(), &argv);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{argv:?}: {stderr}");
        assert!(stderr.contains(says), "{argv:?}: {stderr}");
        assert!(
            !work.path().join("cmp").exists(),
            "{argv:?} wrote its output"
        );
        assert_eq!(snapshot_tree(&r1), before);
    }
    // --out inside a compared folder.
    let o = run_binary(
        work.path(),
        &["compare", &s(&r1), &s(&r1), "--out", &inside],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("overlaps"));
    assert!(!Path::new(&inside).exists());
}

#[test]
fn an_earlier_comparison_is_replaced_and_other_files_are_not_touched() {
    let web = TestWeb::new();
    first_web(&web);
    let (_one, r1) = crawl(&web, 1, &[]);
    change_web(&web);
    let (_two, r2) = crawl(&web, 1, &[]);
    let work = tempfile::tempdir().unwrap();
    compare_ok(work.path(), &[&r1, &r2]);
    // A file of the earlier comparison that this one would not write goes.
    let stale = work.path().join("cmp/stale.example_1/graph.gexf");
    std::fs::create_dir_all(stale.parent().unwrap()).unwrap();
    std::fs::write(&stale, "old").unwrap();
    compare_ok(work.path(), &[&r2, &r1]);
    assert!(!stale.exists());
    // The reversed comparison: crawl 2's new pages are crawl 1's removed ones.
    let removed = rows(&work.path().join("cmp/pages.csv"))
        .into_iter()
        .filter(|r| r["Url"] == format!("{}/added", web.origin("a.test")))
        .map(|r| r["Change"].clone())
        .collect::<Vec<_>>();
    assert_eq!(removed, ["removed"]);
    // A folder with other files is refused, and left as it was.
    let mine = work.path().join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("notes.txt"), "mine").unwrap();
    let (a, b) = (r1.to_str().unwrap(), r2.to_str().unwrap());
    let o = run_binary(work.path(), &["compare", a, b, "--out", "mine"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not empty"));
    assert_eq!(std::fs::read_dir(&mine).unwrap().count(), 1);
}

// A site that never serves the same bytes twice (tokens, times, shuffled boxes, its own
// address in the page) crawled twice: its pages did not change, and compare says so — by
// their text, since their bytes differ every time.
#[test]
fn a_dynamic_site_crawled_twice_has_not_changed() {
    let web = TestWeb::new();
    common::dynweb::DynSite::mixed().install(&web, "e.test");
    let hosts = vec![web.origin("e.test")];
    let one = prepare(&hosts, &[]);
    run_in(one.path());
    let two = prepare(&hosts, &[]);
    run_in(two.path());
    let (r1, r2) = (one.path().join("results"), two.path().join("results"));
    let folder = format!("e.test_{}", web.port());
    // The bytes did differ: every page's ContentHash is another.
    let (a, b) = (pages_of(&r1, &folder), pages_of(&r2, &folder));
    assert_eq!(a.len(), b.len());
    assert!(
        a.iter()
            .all(|(url, (_, h))| b.get(url).is_some_and(|(_, h2)| h2 != h)),
        "{a:?} {b:?}"
    );
    let work = tempfile::tempdir().unwrap();
    compare_ok(work.path(), &[&r1, &r2]);
    let pages = rows(&work.path().join("cmp/pages.csv"));
    assert!(pages.is_empty(), "{pages:?}");
    let site = &rows(&work.path().join("cmp/sites.csv"))[0];
    assert_eq!(site["Unchanged"], a.len().to_string());
    assert_eq!(site["Changed"], "0");
}

// A site crawled to its page limit in one crawl and not the other, and one whose line excludes
// a path in the second crawl: each said on its own row, the others comparable.
#[test]
fn a_page_limit_and_a_path_filter_of_one_crawl_are_said_per_site() {
    let web = TestWeb::new();
    first_web(&web);
    let lines = |a_fields: &str, b_fields: &str| {
        vec![
            format!("{};2;100;0{a_fields}", web.origin("a.test")),
            format!("{};2;100;0{b_fields}", web.origin("b.test")),
            web.origin("c.test"),
        ]
    };
    let one = prepare(&lines(";pages=2", ""), &[]);
    run_in(one.path());
    let two = prepare(&lines("", ";exclude=/b1"), &[]);
    run_in(two.path());
    let (r1, r2) = (one.path().join("results"), two.path().join("results"));
    let work = tempfile::tempdir().unwrap();
    compare_ok(work.path(), &[&r1, &r2]);
    let sites: BTreeMap<String, Row> = rows(&work.path().join("cmp/sites.csv"))
        .into_iter()
        .map(|r| (r["Site"].clone(), r))
        .collect();
    let a = &sites[&web.origin("a.test")];
    assert_eq!(
        (a["OldState"].as_str(), a["NewState"].as_str()),
        ("page limit", "done")
    );
    assert_eq!(a["Comparable"], "no");
    assert_eq!(
        a["Notes"],
        "page limit: pages=2 → (none); state: page limit → done"
    );
    let b = &sites[&web.origin("b.test")];
    assert_eq!(b["Comparable"], "no");
    assert_eq!(b["Notes"], "URL filter: (none) → exclude=/b1");
    assert_eq!(sites[&web.origin("c.test")]["Comparable"], "yes");
}

//! Pages whose links scripts build (SPEC §18, issue 66), through a real crawl of the loopback
//! kit (`common::script_web`) with the system's Chromium: what `Render = all` and `auto` read,
//! what `no` says, and that every other rule holds on rendered pages.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::site_folder as folder;
use common::{TestWeb, crawl, prepare, read_csv, run_binary, script_web};

/// Whether a browser is here; in CI its absence fails the test.
fn have_browser() -> bool {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .any(|b| {
            std::env::var_os("PATH")
                .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(b).is_file()))
        });
    assert!(
        found || std::env::var_os("CI").is_none(),
        "CI: Chromium is missing (.ci/run installs Debian's chromium)"
    );
    found
}

fn kit() -> (TestWeb, Vec<String>) {
    let web = TestWeb::new();
    script_web::serve(&web);
    let hosts = ["a.test", "b.test", "c.test", "d.test"]
        .iter()
        .map(|h| format!("{};2;6;0", web.origin(h)))
        .collect();
    (web, hosts)
}

/// A site's graph as plain values: (path, level, rendered) per node, (from, to, weight,
/// script-only) per arc.
#[derive(Debug, PartialEq, Eq)]
struct Graph {
    nodes: Nodes,
    rendered: BTreeSet<String>,
    arcs: Arcs,
    external: BTreeSet<(String, String, String)>,
}

fn graph(results: &Path, host: &str) -> Graph {
    let dir = folder(results, host);
    let (h, nodes) = read_csv(&dir.join("nodes.csv"));
    let col = |name: &str| h.iter().position(|c| c == name);
    let path = |url: &str| url::Url::parse(url).unwrap().path().to_owned();
    let label: Vec<String> = nodes.iter().map(|r| path(&r[1])).collect();
    let rendered_col = col("Rendered");
    let (eh, edges) = read_csv(&dir.join("edges.csv"));
    let script = eh.iter().position(|c| c == "ScriptOnly");
    let (xh, external) = read_csv(&dir.join("external_links.csv"));
    let xscript = xh.iter().position(|c| c == "ScriptOnly");
    Graph {
        nodes: nodes.iter().map(|r| (path(&r[1]), r[2].clone())).collect(),
        rendered: nodes
            .iter()
            .filter(|r| rendered_col.is_some_and(|c| r[c] == "yes"))
            .map(|r| path(&r[1]))
            .collect(),
        arcs: edges
            .iter()
            .map(|r| {
                let at = |i: &str| label[i.parse::<usize>().unwrap() - 1].clone();
                (
                    at(&r[0]),
                    at(&r[1]),
                    r[3].clone(),
                    script.map_or(String::new(), |c| r[c].clone()),
                )
            })
            .collect(),
        external: external
            .iter()
            .map(|r| {
                (
                    label[r[0].parse::<usize>().unwrap() - 1].clone(),
                    r[1].clone(),
                    xscript.map_or(String::new(), |c| r[c].clone()),
                )
            })
            .collect(),
    }
}

/// (path, level) per node.
type Nodes = BTreeSet<(String, String)>;
/// (from, to, weight, script-only) per arc.
type Arcs = BTreeSet<(String, String, String, String)>;

/// (from, to, weight, script-only) arcs, from a compact list.
fn arcs(list: &[(&str, &str, u32, u32)]) -> Arcs {
    list.iter()
        .map(|(a, b, w, s)| (a.to_string(), b.to_string(), w.to_string(), s.to_string()))
        .collect()
}

fn nodes(list: &[(&str, u32)]) -> Nodes {
    list.iter()
        .map(|(p, l)| (p.to_string(), l.to_string()))
        .collect()
}

/// The application as a visitor's browser shows it: every route, true levels, every arc only
/// scripts make.
fn expected_app() -> (Nodes, Arcs) {
    (
        nodes(&[
            ("/", 0),
            ("/p/1", 1),
            ("/p/2", 1),
            ("/p/3", 1),
            ("/about", 1),
            ("/go", 1),
            ("/p/4", 2),
            // Linked after a timer on /about (level 1), and by /p/4 (level 2).
            ("/p/5", 2),
            // /go moves to /deep/ (history.pushState) before it links `a`.
            ("/deep/a", 2),
        ]),
        arcs(&[
            ("/", "/p/1", 1, 1),
            ("/", "/p/2", 1, 1),
            ("/", "/p/3", 1, 1),
            ("/", "/about", 1, 1),
            ("/", "/go", 1, 1),
            ("/about", "/p/5", 1, 1),
            ("/go", "/deep/a", 1, 1),
            ("/p/1", "/", 1, 1),
            ("/p/1", "/p/2", 1, 1),
            ("/p/2", "/", 1, 1),
            ("/p/2", "/p/3", 1, 1),
            ("/p/3", "/", 1, 1),
            ("/p/3", "/p/4", 1, 1),
            ("/p/4", "/", 1, 1),
            ("/p/4", "/p/5", 1, 1),
            ("/p/5", "/", 1, 1),
        ]),
    )
}

/// The server-rendered site with its script-built box: the box's pages, a failing script's
/// one link, not the link of a script robots.txt keeps from the crawl.
fn expected_boxes() -> (Nodes, Arcs) {
    (
        nodes(&[
            ("/", 0),
            ("/one", 1),
            ("/two", 1),
            ("/hidden1", 1),
            ("/hidden2", 1),
            ("/three", 2),
            ("/after-timer-free", 3),
        ]),
        arcs(&[
            ("/", "/one", 1, 0),
            ("/", "/two", 1, 0),
            ("/", "/hidden1", 1, 1),
            ("/", "/hidden2", 1, 1),
            ("/one", "/", 1, 0),
            ("/one", "/three", 1, 0),
            ("/one", "/hidden1", 1, 1),
            ("/one", "/hidden2", 1, 1),
            ("/two", "/", 1, 0),
            ("/three", "/two", 1, 0),
            ("/three", "/after-timer-free", 1, 1),
            ("/hidden1", "/hidden2", 1, 0),
        ]),
    )
}

/// Arcs without their script-only counts.
fn plain_arcs(g: &Graph) -> BTreeSet<(String, String, String)> {
    g.arcs
        .iter()
        .map(|(a, b, w, _)| (a.clone(), b.clone(), w.clone()))
        .collect()
}

#[test]
fn render_all_reads_what_scripts_build() {
    if !have_browser() {
        return;
    }
    let (_web, hosts) = kit();
    let c = crawl(&hosts, &[("Render", "all")]);
    let results = c.results();
    let app = graph(&results, "a.test");
    assert_eq!(
        (app.nodes.clone(), app.arcs.clone()),
        expected_app(),
        "{app:#?}"
    );
    assert_eq!(app.rendered.len(), 9, "every page rendered");
    let partner = app.external.iter().next().unwrap();
    assert_eq!(
        (partner.0.as_str(), partner.2.as_str()),
        ("/", "yes"),
        "{partner:?}"
    );
    assert!(partner.1.starts_with("http://d.test"));
    let boxes = graph(&results, "b.test");
    assert_eq!(
        (boxes.nodes.clone(), boxes.arcs.clone()),
        expected_boxes(),
        "{boxes:#?}"
    );
    // The hydrated and the plain sites: the same graph as the server's.
    let raw = crawl(&hosts, &[]);
    for host in ["c.test", "d.test"] {
        let (r, s) = (graph(&raw.results(), host), graph(&results, host));
        assert_eq!(r.nodes, s.nodes, "{host}");
        assert_eq!(plain_arcs(&r), plain_arcs(&s), "{host}");
        assert!(s.arcs.iter().all(|a| a.3 == "0"), "{host}: {s:#?}");
    }
    // summary.csv: pages rendered and arcs only scripts make; the browser's requests counted.
    let (h, rows) = read_csv(&results.join("summary.csv"));
    let col = |n: &str| h.iter().position(|c| c == n).unwrap();
    let row = |host: &str| rows.iter().find(|r| r[0].contains(host)).unwrap().clone();
    assert_eq!(
        (
            &row("a.test")[col("Rendered")][..],
            &row("a.test")[col("ScriptOnlyArcs")][..]
        ),
        ("9", "16")
    );
    assert_eq!(row("b.test")[col("ScriptOnlyArcs")], "5");
    assert_eq!(row("d.test")[col("ScriptOnlyArcs")], "0");
    // 9 pages, the application's script once (the browser is given it again from the
    // crawl's copy, as a visitor's browser keeps it), its data once, and the one request to
    // the widget's host where nobody answers (not asked again).
    assert_eq!(row("a.test")[col("Fetched")], "12");
    // The browser's requests are in the common log; robots.txt kept one script out.
    let common = std::fs::read_to_string(c.dir.path().join("logs/common_log.csv")).unwrap();
    assert_eq!(common.matches("/app.js").count(), 1, "{common}");
    assert_eq!(common.matches("/api/items.json").count(), 1, "{common}");
    assert!(!common.contains("/private/track.js"), "{common}");
    let errors = std::fs::read_to_string(c.dir.path().join("logs/error_log.csv")).unwrap();
    assert!(
        errors.contains("/private/track.js") && errors.contains("robots.txt"),
        "{errors}"
    );
    // The widget's host outside the crawl, where nobody answers, is asked once, not once a
    // page.
    assert_eq!(common.matches("e.test:1/widget.js").count(), 1, "{common}");
    assert_eq!(errors.matches("e.test:1/widget.js").count(), 1, "{errors}");
    assert!(
        errors.contains("later requests to e.test are refused without asking"),
        "{errors}"
    );
    // graph.gexf carries Rendered on its nodes and ScriptOnly on its arcs, and validates.
    let gexf = folder(&results, "a.test").join("graph.gexf");
    let text = std::fs::read_to_string(&gexf).unwrap();
    assert!(text.contains("title=\"Rendered\"") && text.contains("title=\"ScriptOnly\""));
    assert_eq!(text.matches("for=\"rendered\" value=\"yes\"").count(), 9);
    assert_eq!(text.matches("for=\"scriptonly\" value=\"1\"").count(), 16);
    common::xmllint_validates(&gexf);
    // The report, as a browser shows it: the share of each site's arcs only scripts make.
    let report = format!("file://{}", results.join("report.html").display());
    if let Some((dom, _)) = common::chromium::dump_dom(&report) {
        let table = &dom[dom.find("id=\"sites-table\"").unwrap()..];
        let table = &table[..table.find("</table>").unwrap()];
        assert!(table.contains("script-only arcs %"), "{table}");
        let row = |host: &str| {
            let at = table.find(host).unwrap();
            table[at..at + table[at..].find("</tr>").unwrap()].to_owned()
        };
        // a.test: all 16 arcs; b.test: 5 of 12 (41.7 %); d.test: none.
        assert!(row("a.test").contains(">100.0<"), "{}", row("a.test"));
        assert!(row("b.test").contains(">41.7<"), "{}", row("b.test"));
        assert!(row("d.test").contains(">0.0<"), "{}", row("d.test"));
    }
}

#[test]
fn render_auto_gives_the_same_graphs_and_leaves_plain_sites_alone() {
    if !have_browser() {
        return;
    }
    let (_web, hosts) = kit();
    // One parser: the sample's pages are decided in the order they are parsed.
    let auto = crawl(&hosts, &[("Render", "auto"), ("ParsingThreadsCount", "1")]);
    let all = crawl(&hosts, &[("Render", "all")]);
    for host in ["a.test", "b.test", "c.test", "d.test"] {
        let (a, b) = (graph(&auto.results(), host), graph(&all.results(), host));
        assert_eq!(
            (&a.nodes, &a.arcs, &a.external),
            (&b.nodes, &b.arcs, &b.external),
            "{host}"
        );
    }
    let rendered = |host: &str| graph(&auto.results(), host).rendered;
    assert_eq!(
        rendered("a.test").len(),
        9,
        "an application is rendered through"
    );
    // Its three pages with scripts (the box on two); a page with no script is never rendered.
    assert_eq!(
        rendered("b.test"),
        ["/", "/one", "/three"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    );
    // The hydrated site: its home page and the first two pages of its one other shape.
    assert_eq!(rendered("c.test").len(), 3, "{:?}", rendered("c.test"));
    // The plain site: no script, nothing rendered; its files are Render = no's but for the
    // new columns.
    assert!(rendered("d.test").is_empty());
    let raw = crawl(&hosts, &[]);
    let (with, without) = (
        folder(&auto.results(), "d.test"),
        folder(&raw.results(), "d.test"),
    );
    let strip = |text: String, column: &str| -> String {
        let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
        let Some(at) = header.iter().position(|c| *c == column) else {
            return text;
        };
        text.lines()
            .map(|l| {
                let mut cells: Vec<&str> = l.split(',').collect();
                cells.remove(at);
                cells.join(",") + "\n"
            })
            .collect()
    };
    for (file, column) in [
        ("nodes.csv", "Rendered"),
        ("edges.csv", "ScriptOnly"),
        ("external_links.csv", "ScriptOnly"),
        ("bad_links.csv", ""),
    ] {
        let a = strip(std::fs::read_to_string(with.join(file)).unwrap(), column);
        let b = std::fs::read_to_string(without.join(file)).unwrap();
        assert_eq!(a, b, "{file}");
    }
}

#[test]
fn render_no_names_the_sites_that_look_script_built() {
    let web = TestWeb::new();
    script_web::serve(&web);
    let hosts: Vec<String> = ["a.test", "b.test", "c.test", "d.test"]
        .iter()
        .map(|h| format!("{};2;6;0", web.origin(h)))
        .collect();
    let dir = prepare(&hosts, &[("DisplayErrorLog", "0")]);
    let out = run_binary(dir.path(), &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let console = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        console.contains("home page looks script-built (an empty application root)"),
        "{console}"
    );
    assert!(
        !console.contains("b.test") || !console.contains("b.test: its home page"),
        "{console}"
    );
    let results = dir.path().join("results");
    let (h, rows) = read_csv(&results.join("summary.csv"));
    let col = |n: &str| h.iter().position(|c| c == n).unwrap();
    for r in &rows {
        let named = r[col("Reason")].contains("looks script-built");
        assert_eq!(named, r[0].contains("a.test"), "{r:?}");
        assert_eq!(
            (
                r[col("Rendered")].as_str(),
                r[col("ScriptOnlyArcs")].as_str()
            ),
            ("", "")
        );
    }
    // The server's graph of the application: its shell, no link.
    assert_eq!(graph(&results, "a.test").nodes, nodes(&[("/", 0)]));
    // The report marks it in its sites table.
    let report = std::fs::read_to_string(results.join("report.html")).unwrap();
    assert_eq!(
        report.matches("class=\"warn\"").count(),
        1,
        "one site marked"
    );
    let at = report.find("class=\"warn\"").unwrap();
    let before = &report[..at];
    assert!(before[before.rfind("<tr").unwrap()..].contains("a.test"));
    assert!(
        !report.contains("script-only arcs %"),
        "nothing was rendered"
    );
}

#[test]
fn rendered_graphs_are_equal_across_downloaders_and_threads() {
    if !have_browser() {
        return;
    }
    let (_web, hosts) = kit();
    let one = crawl(
        &hosts,
        &[
            ("Render", "all"),
            ("DownloadingThread", "DT0"),
            ("ParsingThreadsCount", "1"),
            ("RenderTabs", "1"),
        ],
    );
    let many = crawl(
        &hosts,
        &[
            ("Render", "all"),
            ("DownloadingThread", "DT1"),
            ("ParsingThreadsCount", "4"),
            ("RenderTabs", "3"),
        ],
    );
    for host in ["a.test", "b.test", "c.test", "d.test"] {
        assert_eq!(
            graph(&one.results(), host),
            graph(&many.results(), host),
            "{host}"
        );
    }
}

#[test]
fn a_missing_browser_stops_the_run_before_it_starts() {
    let web = TestWeb::new();
    script_web::serve(&web);
    let dir = prepare(
        &[web.origin("d.test")],
        &[
            ("Render", "auto"),
            ("ChromiumPath", "/nonexistent/chromium"),
        ],
    );
    let out = run_binary(dir.path(), &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("Render") && stderr.contains("apt install chromium"),
        "{stderr}"
    );
    assert!(!dir.path().join("results").exists());
    assert_eq!(web.hits("d.test", "/"), 0);
}

#[test]
fn the_archive_keeps_the_rendered_dom_and_rebuild_needs_no_browser() {
    if !have_browser() {
        return;
    }
    let (_web, hosts) = kit();
    let c = crawl(&hosts, &[("Render", "auto"), ("Archive", "warc")]);
    let archive = c.results().join("archive");
    // warcio verifies every record's digests, conversion records included; each rendered page
    // has one, referring to its response, and the browser's requests are archived too.
    if let Some(warcio) = common::warcio::program() {
        let mut conversions = 0;
        for name in common::warcio::files(&archive) {
            common::warcio::check(&warcio, &archive, &name);
            let index =
                common::warcio::index(&warcio, &archive, &name, "warc-type,warc-target-uri");
            conversions += index
                .iter()
                .filter(|r| r["warc-type"] == "conversion")
                .count();
            assert!(
                index.iter().any(|r| r["warc-type"] == "response"
                    && r["warc-target-uri"]
                        .as_str()
                        .is_some_and(|u| u.ends_with("/api/items.json"))),
                "the data the application asked for is archived"
            );
        }
        let rendered: usize = ["a.test", "b.test", "c.test", "d.test"]
            .iter()
            .map(|h| graph(&c.results(), h).rendered.len())
            .sum();
        assert_eq!(conversions, rendered);
    }
    // The rebuild runs where no browser is: the same graphs, the same rendered pages, the same
    // script-only arcs and fetches.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rccrawler"))
        .args(["rebuild", "results/archive", "--out", "rebuilt"])
        .current_dir(c.dir.path())
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rebuilt = c.dir.path().join("rebuilt/results");
    for host in ["a.test", "b.test", "c.test", "d.test"] {
        assert_eq!(graph(&rebuilt, host), graph(&c.results(), host), "{host}");
    }
    let summary = |dir: &Path| {
        let (h, rows) = read_csv(&dir.join("summary.csv"));
        let keep: Vec<usize> = [
            "Pages",
            "Arcs",
            "ExternalLinks",
            "Fetched",
            "Rendered",
            "ScriptOnlyArcs",
        ]
        .iter()
        .map(|n| h.iter().position(|c| c == n).unwrap())
        .collect();
        rows.iter()
            .map(|r| keep.iter().map(|&i| r[i].clone()).collect::<Vec<_>>())
            .collect::<Vec<_>>()
    };
    assert_eq!(summary(&rebuilt), summary(&c.results()));
}

/// Waits until the test web has answered `n` requests to `host`'s pages in `routes` (or fails
/// after 60 s).
fn wait_for_pages(web: &TestWeb, host: &str, routes: &[&str], n: usize) {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while routes.iter().map(|r| web.hits(host, r)).sum::<usize>() < n {
        assert!(
            std::time::Instant::now() < until,
            "the crawl did not get going"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn a_crawl_killed_while_it_renders_continues_to_the_uninterrupted_graphs() {
    if !have_browser() {
        return;
    }
    let (web, _) = kit();
    // Slow: a delay between a site's requests, so that the kill falls mid-crawl.
    let hosts: Vec<String> = ["a.test", "b.test", "c.test", "d.test"]
        .iter()
        .map(|h| format!("{};2;6;150", web.origin(h)))
        .collect();
    let reference = crawl(&hosts, &[("Render", "auto")]);
    let dir = prepare(&hosts, &[("Render", "auto")]);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_rccrawler"))
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let before = script_web::SPA_ROUTES
        .iter()
        .map(|r| web.hits("a.test", r))
        .sum::<usize>();
    wait_for_pages(&web, "a.test", script_web::SPA_ROUTES, before + 4);
    child.kill().unwrap();
    child.wait().unwrap();
    let out = run_binary(dir.path(), &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results = dir.path().join("results");
    for host in ["a.test", "b.test", "c.test", "d.test"] {
        let (got, want) = (graph(&results, host), graph(&reference.results(), host));
        assert_eq!(
            (&got.nodes, &got.arcs, &got.external),
            (&want.nodes, &want.arcs, &want.external),
            "{host}"
        );
    }
    assert_eq!(graph(&results, "a.test").rendered.len(), 9);
}

#[test]
fn ctrl_c_at_the_terminal_stops_the_crawl_not_its_browser_and_the_graphs_stay_exact() {
    if !have_browser() {
        return;
    }
    let (web, _) = kit();
    let hosts: Vec<String> = ["a.test", "b.test", "c.test", "d.test"]
        .iter()
        .map(|h| format!("{};2;6;150", web.origin(h)))
        .collect();
    let reference = crawl(&hosts, &[("Render", "all")]);
    let dir = prepare(&hosts, &[("Render", "all")]);
    let mut child = common::spawn_in_own_group(dir.path());
    let before = script_web::SPA_ROUTES
        .iter()
        .map(|r| web.hits("a.test", r))
        .sum::<usize>();
    wait_for_pages(&web, "a.test", script_web::SPA_ROUTES, before + 3);
    // Ctrl+C: SIGINT to the whole foreground group, the browser's processes too unless they
    // are in a group of their own.
    common::ctrl_c_group(&child);
    let status = common::wait_exit(&mut child, std::time::Duration::from_secs(90), String::new);
    assert_eq!(status.code(), Some(0));
    let out = run_binary(dir.path(), &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results = dir.path().join("results");
    for host in ["a.test", "b.test", "c.test", "d.test"] {
        let (got, want) = (graph(&results, host), graph(&reference.results(), host));
        assert_eq!(
            (&got.nodes, &got.arcs, &got.external, &got.rendered),
            (&want.nodes, &want.arcs, &want.external, &want.rendered),
            "{host}"
        );
    }
}

#[test]
fn a_browser_killed_mid_crawl_is_started_again_and_nothing_is_lost() {
    if !have_browser() {
        return;
    }
    let (web, _) = kit();
    let hosts: Vec<String> = ["a.test", "b.test"]
        .iter()
        .map(|h| format!("{};2;6;150", web.origin(h)))
        .collect();
    let dir = prepare(&hosts, &[("Render", "all")]);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_rccrawler"))
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for_pages(&web, "a.test", script_web::SPA_ROUTES, 3);
    // The crawler's browser: its child process started with the pipe (read from /proc, as a
    // fresh machine may have no pkill).
    let browser = browser_of(child.id()).expect("no browser to kill");
    let killed = std::process::Command::new("kill")
        .args(["-9", &browser.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = common::wait_exit(&mut child, std::time::Duration::from_secs(120), String::new);
    assert!(status.success());
    let results = dir.path().join("results");
    let app = graph(&results, "a.test");
    assert_eq!(
        (app.nodes.clone(), app.arcs.clone()),
        expected_app(),
        "{app:#?}"
    );
    assert_eq!(app.rendered.len(), 9);
    let boxes = graph(&results, "b.test");
    assert_eq!((boxes.nodes.clone(), boxes.arcs.clone()), expected_boxes());
}

/// The browser process `parent` started (`--remote-debugging-pipe` in its command line).
fn browser_of(parent: u32) -> Option<u32> {
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid: u32 = e.file_name().to_str()?.parse().ok()?;
        let status = std::fs::read_to_string(e.path().join("status")).ok()?;
        let ppid: u32 = status
            .lines()
            .find_map(|l| l.strip_prefix("PPid:"))?
            .trim()
            .parse()
            .ok()?;
        let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
        let piped = String::from_utf8_lossy(&cmdline).contains("remote-debugging-pipe");
        (ppid == parent && piped).then_some(pid)
    })
}

//! The study's workflow (issue 68) through the binary: a crawl repeated from its record —
//! `rccrawler --settings results/crawl.ini --hosts results/hosts.txt` in another folder gives
//! the same graphs (SPEC §16) — and a rebuild that says nothing about keys nobody set.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::path::{Path, PathBuf};

use common::run_binary as run;
use common::{TestWeb, result_bytes, settings_text};

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A web of two sites with a trap-free graph of a few levels.
fn web() -> TestWeb {
    let web = TestWeb::new();
    web.page(
        "a.test",
        "/",
        "<a href=/x>x</a><a href=/y?b=2&a=1>y</a><a href=http://b.test/>b</a>",
    );
    web.page("a.test", "/x", "<a href=/z>z</a><a href=/>home</a>");
    web.page(
        "a.test",
        "/y?a=1&b=2",
        "<a href=/x>x</a><a href=/missing>m</a>",
    );
    web.page("a.test", "/z", "<a href=/deeper>d</a>");
    web.page("a.test", "/deeper", "<p>too deep for level 2</p>");
    web.page("b.test", "/", "<a href=/p>p</a>");
    web.page("b.test", "/p", "<p>b</p>");
    web
}

/// The site folders of a results folder (not its network/).
fn site_folders(results: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(results)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("nodes.csv").exists() && p.to_string_lossy().contains(".test_"))
        .collect();
    out.sort();
    out
}

/// The results folders a fresh crawl in `dir` moved aside (`results.old-…`).
fn moved_aside(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().contains("results.old-"))
        .collect()
}

/// Copies the record's two files (and nothing else) into `to`; adds back `Resolve`, which a
/// record leaves out (a real web needs none; these sites are on loopback).
fn copy_record(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    let ini = std::fs::read_to_string(from.join("crawl.ini")).unwrap();
    let resolve = settings_text(&[])
        .lines()
        .find(|l| l.starts_with("Resolve"))
        .unwrap()
        .to_owned();
    std::fs::write(to.join("crawl.ini"), format!("{ini}{resolve}\n")).unwrap();
    std::fs::copy(from.join("hosts.txt"), to.join("hosts.txt")).unwrap();
}

/// The first crawl: settings away from their defaults (so that the repeat must read them) and
/// one site's level limit and page limit in hosts.txt.
fn first_crawl(web: &TestWeb) -> tempfile::TempDir {
    let hosts = [
        format!("{};1;2;0;pages=50", web.origin("a.test")),
        web.origin("b.test"),
    ];
    let dir = common::prepare(
        &hosts,
        &[
            ("Duplicates", "exact"),
            ("ExternalLinkContext", "40"),
            ("ParsingThreadSleepTime", "7"),
        ],
    );
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    dir
}

#[test]
fn a_crawl_repeats_from_its_record_in_another_folder() {
    let web = web();
    let first = first_crawl(&web);
    let results = first.path().join("results");
    // Elsewhere: the record only, run from that folder.
    let fresh = tempfile::tempdir().unwrap();
    copy_record(&results, &fresh.path().join("old"));
    let o = run(
        fresh.path(),
        &["--settings", "old/crawl.ini", "--hosts", "old/hosts.txt"],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("a crawl's record"), "{err}");
    assert!(!err.contains("accepted, not used"), "{err}");
    // Written where it was run, as the record's own ResultFolder says (not inside old/).
    let again = fresh.path().join("results");
    assert!(!fresh.path().join("old/results").exists());
    let (a, b) = (site_folders(&results), site_folders(&again));
    assert_eq!(a.len(), 2, "{a:?}");
    assert_eq!(
        a.iter().map(|p| p.file_name()).collect::<Vec<_>>(),
        b.iter().map(|p| p.file_name()).collect::<Vec<_>>()
    );
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(result_bytes(x), result_bytes(y), "{}", x.display());
    }
    // The settings it ran with are the record's: the same record again (but when it started).
    let settings_of = |folder: &Path| {
        let r = rccrawler::formats::crawl_record::read(folder)
            .unwrap()
            .unwrap();
        (r.settings, r.sites)
    };
    let (s1, h1) = settings_of(&results);
    let (s2, h2) = settings_of(&again);
    assert_eq!(s1, s2);
    assert_eq!(h1, h2);
    assert_eq!(s2["Duplicates"], "exact");
    assert_eq!(h2[&web.origin("a.test")].max_level, 2);
}

#[test]
fn the_record_named_where_it_lies_repeats_the_crawl_and_keeps_the_first() {
    let web = web();
    let first = first_crawl(&web);
    // The issue's own words: in a folder holding the first crawl's results/, name its record.
    let fresh = tempfile::tempdir().unwrap();
    let results = fresh.path().join("results");
    copy_record(&first.path().join("results"), &results);
    for f in site_folders(&first.path().join("results")) {
        let to = results.join(f.file_name().unwrap());
        std::fs::create_dir_all(&to).unwrap();
        for file in std::fs::read_dir(&f).unwrap().flatten() {
            std::fs::copy(file.path(), to.join(file.file_name())).unwrap();
        }
    }
    std::fs::copy(
        first.path().join("results/.rccrawler-crawl"),
        results.join(".rccrawler-crawl"),
    )
    .unwrap();
    let o = run(
        fresh.path(),
        &[
            "--settings",
            "results/crawl.ini",
            "--hosts",
            "results/hosts.txt",
        ],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    // The copied results were another crawl's: moved aside whole, record included.
    let old = moved_aside(fresh.path());
    assert_eq!(old.len(), 1, "{err}");
    assert!(old[0].join("crawl.ini").exists());
    for (x, y) in site_folders(&first.path().join("results"))
        .iter()
        .zip(&site_folders(&results))
    {
        assert_eq!(result_bytes(x), result_bytes(y), "{}", x.display());
    }
}

#[test]
fn a_settings_file_with_a_section_is_still_refused_unless_it_is_a_record() {
    let web = web();
    let dir = common::prepare(&[web.origin("a.test")], &[]);
    let ini = std::fs::read_to_string(dir.path().join("settings.ini")).unwrap();
    // A [settings] section without the [crawl] one is a section, as before.
    std::fs::write(
        dir.path().join("settings.ini"),
        format!("[settings]\n{ini}"),
    )
    .unwrap();
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("settings"), "{}", stderr(&o));
    // A record with a key it does not know names the key, as settings.ini does.
    std::fs::write(
        dir.path().join("settings.ini"),
        format!("[crawl]\nResultsFormat = 1\n[settings]\n{ini}MaxDepht = 3\n"),
    )
    .unwrap();
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("MaxDepht"), "{}", stderr(&o));
}

#[test]
fn a_rebuild_says_nothing_of_keys_nobody_set() {
    let web = web();
    let hosts = [web.origin("a.test")];
    let dir = common::prepare(&hosts, &[("Archive", "warc")]);
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(
        dir.path(),
        &["rebuild", "results/archive", "--out", "rebuilt"],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(!err.contains("accepted, not used"), "{err}");
    assert!(!err.contains("note:"), "{err}");
    let a = site_folders(&dir.path().join("results"));
    let b = site_folders(&dir.path().join("rebuilt/results"));
    assert_eq!(a.len(), 1);
    assert_eq!(result_bytes(&a[0]), result_bytes(&b[0]));
}

/// nodes.csv's `InDegree` (issue 68, item 2): the distinct pages linking to each node, as
/// edges.csv counts them (recomputed here), in graph.gexf too.
#[test]
fn in_degree_counts_the_pages_linking_to_a_node() {
    let web = web();
    let crawled = common::crawl(&[web.origin("a.test")], &[]);
    let dir = crawled.results().join(format!("a.test_{}", web.port()));
    let (header, nodes) = common::read_csv(&dir.join("nodes.csv"));
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    assert_eq!(col("InDegree"), col("OutDegree") + 1);
    let (eh, edges) = common::read_csv(&dir.join("edges.csv"));
    let target = eh.iter().position(|h| h == "Target").unwrap();
    let mut by_label = std::collections::BTreeMap::new();
    for n in &nodes {
        let linking = edges.iter().filter(|e| e[target] == n[0]).count();
        assert_eq!(n[col("InDegree")], linking.to_string(), "{n:?}");
        by_label.insert(n[col("Label")].clone(), n[col("InDegree")].clone());
    }
    // / ← /x; /x ← /, /y; /y ← /; /z ← /x.
    let url = |p: &str| format!("{}{p}", web.origin("a.test"));
    assert_eq!(by_label[&url("/")], "1");
    assert_eq!(by_label[&url("/x")], "2");
    assert_eq!(by_label[&url("/z")], "1");
    let gexf = std::fs::read_to_string(dir.join("graph.gexf")).unwrap();
    assert!(gexf.contains(r#"<attribute id="indegree" title="InDegree" type="integer"/>"#));
    assert!(
        gexf.contains(r#"<attvalue for="indegree" value="2"/>"#),
        "{gexf}"
    );
}

/// See: issue 68, item 5 — README's list of subcommands is `--help`'s.
#[test]
fn the_readme_lists_the_subcommands_help_lists() {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_rccrawler"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&o.stdout).into_owned();
    let commands = help.split("Commands:").nth(1).unwrap();
    let commands = commands.split("\n\n").next().unwrap();
    let mut from_help: Vec<String> = commands
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_owned)
        .collect();
    from_help.sort();
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let list = readme
        .split("lists the subcommands (")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap();
    let mut from_readme: Vec<String> = list
        .split(',')
        .map(|c| c.trim().trim_matches('`').to_owned())
        .collect();
    from_readme.sort();
    assert!(from_help.len() >= 8, "{help}");
    assert_eq!(from_readme, from_help);
}

/// See: issue 68, item 5 — `compare` and `rebuild` given a crawl's folder (not its results/
/// or its archive/) say where those are.
#[test]
fn compare_and_rebuild_given_a_crawl_folder_point_inside_it() {
    let web = web();
    let dir = common::prepare(&[web.origin("a.test")], &[("Archive", "warc")]);
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let crawl = dir.path().display().to_string();
    let o = run(dir.path(), &["compare", &crawl, "results", "--out", "cmp"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("a crawl's folder? its results:") && err.contains("results"),
        "{err}"
    );
    let o = run(dir.path(), &["rebuild", &crawl, "--out", "rebuilt"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("holds an archive: rccrawler rebuild"), "{err}");
    assert!(err.contains("results/archive"), "{err}");
    // Named as suggested, both run.
    let o = run(
        dir.path(),
        &["rebuild", "results/archive", "--out", "rebuilt"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// See: issue 68, item 5 — a host without a dot (`sec0` from a `//sec0/…` link) is flagged in
/// the network's prospects and listed after the public sites, though more targets link to it.
#[test]
fn dotless_hosts_are_flagged_and_not_ranked_first_among_prospects() {
    let web = TestWeb::new();
    for h in ["a.test", "b.test", "c.test"] {
        web.page(h, "/", "<a href=//sec0/x>intranet</a><a href=/p>p</a>");
    }
    for h in ["a.test", "b.test"] {
        web.page(h, "/p", "<a href=http://www.example.org/>example</a>");
    }
    web.page("c.test", "/p", "<p>none</p>");
    let hosts: Vec<String> = ["a.test", "b.test", "c.test"]
        .iter()
        .map(|h| web.origin(h))
        .collect();
    let c = common::crawl(&hosts, &[]);
    let o = run(c.dir.path(), &["network", "--prospects", "1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(c.results().join("network/prospects.txt")).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(lines, ["http://www.example.org", "http://sec0"], "{text}");
    assert!(
        text.contains("# sec0: linked by 3 targets, 3 links — no dot:"),
        "{text}"
    );
    let html = std::fs::read_to_string(c.results().join("report.html")).unwrap();
    let table = &html[html.find("id=\"network-prospects\"").unwrap()..];
    let body = &table[table.find("<tbody>").unwrap()..];
    assert!(
        body.starts_with("<tbody><tr><td>example.org</td>"),
        "{body:.300}"
    );
    assert!(
        body.contains("<td>sec0 (no dot: not a public site)</td>"),
        "{body:.600}"
    );
}

/// See: issue 68, item 5 — a second crawl in a folder where one runs says so first, also when
/// the status page's fixed port (taken by the first) would fail too.
#[test]
fn a_second_crawl_says_the_folder_is_in_use_before_the_port() {
    let web = TestWeb::new();
    web.page("a.test", "/", "<a href=/slow>slow</a>");
    web.set(
        "a.test",
        "/slow",
        rccrawler::base::loopback::Resp::html("slow").delayed(std::time::Duration::from_secs(3)),
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let address = format!("127.0.0.1:{port}");
    let dir = common::prepare(&[web.origin("a.test")], &[("StatusAddress", &address)]);
    let mut first = std::process::Command::new(env!("CARGO_BIN_EXE_rccrawler"))
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !web.server.requests().iter().any(|r| r.target == "/slow") {
        assert!(started.elapsed() < std::time::Duration::from_secs(60));
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let second = run(dir.path(), &[]);
    let first_status = first.wait().unwrap();
    let err = stderr(&second);
    assert_eq!(second.status.code(), Some(2), "{err}");
    let first_error = err.lines().find(|l| l.starts_with("error")).unwrap_or("");
    assert!(
        first_error.contains("in use by another running rccrawler"),
        "{err}"
    );
    assert!(
        !err.contains(&address),
        "the port is not what is said: {err}"
    );
    assert_eq!(first_status.code(), Some(0));
}

/// See: issue 68, item 5 — a fresh crawl's logs start afresh: the logs of the crawl whose
/// results it moves aside go with them.
#[test]
fn a_fresh_crawls_logs_start_afresh_beside_the_moved_results() {
    let web = web();
    let dir = common::prepare(&[web.origin("a.test")], &[]);
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let log = dir.path().join("logs/common_log.csv");
    let first = std::fs::read_to_string(&log).unwrap();
    let requests = first.lines().count() - 1;
    assert!(requests >= 5, "{first}");
    let o = run(dir.path(), &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("held the results of another crawl"), "{err}");
    let old = moved_aside(dir.path());
    assert_eq!(old.len(), 1);
    assert_eq!(
        std::fs::read_to_string(old[0].join("logs/common_log.csv")).unwrap(),
        first
    );
    let second = std::fs::read_to_string(&log).unwrap();
    assert_eq!(second.lines().count() - 1, requests, "{second}");
    assert!(second.starts_with("Time,"), "one header: {second}");
    assert!(old[0].join("logs/error_log.csv").exists());
}

/// See: issue 68, item 5 — the common log's `Time` is when each request started, not when
/// the routine wrote its line (after the answer, on a 20 ms tick).
#[test]
fn the_common_logs_time_is_each_requests_own_start() {
    let web = TestWeb::new();
    web.page("a.test", "/", "<a href=/slow>slow</a>");
    web.set(
        "a.test",
        "/slow",
        rccrawler::base::loopback::Resp::html("slow")
            .delayed(std::time::Duration::from_millis(700)),
    );
    let dir = common::prepare(&[web.origin("a.test")], &[]);
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // When the server saw the request, on the wall clock.
    let (now_wall, now_mono) = (std::time::SystemTime::now(), std::time::Instant::now());
    let seen = web
        .server
        .requests()
        .into_iter()
        .find(|r| r.target == "/slow")
        .unwrap()
        .start;
    let seen_wall = now_wall - (now_mono - seen);
    let ms_of_day = |t: &str| -> i64 {
        // `2026-11-29T00:55:01.123Z`
        let (h, m, s) = (&t[11..13], &t[14..16], &t[17..23]);
        let secs: f64 = s.parse().unwrap();
        (h.parse::<i64>().unwrap() * 3600 + m.parse::<i64>().unwrap() * 60) * 1000
            + (secs * 1000.0).round() as i64
    };
    let (header, rows) = common::read_csv(&dir.path().join("logs/common_log.csv"));
    let col = |n: &str| header.iter().position(|h| h == n).unwrap();
    let slow = rows
        .iter()
        .find(|r| r[col("Url")].ends_with("/slow"))
        .unwrap();
    let logged = ms_of_day(&slow[col("Time")]);
    let expected = ms_of_day(&rccrawler::base::utc::utc_timestamp(seen_wall));
    let day = 86_400_000;
    let off = ((logged - expected) % day + day) % day;
    let off = off.min(day - off);
    // The request leaves before the server sees it; its answer came 700 ms later.
    assert!(
        off < 300,
        "logged {} for a request seen at {expected} ms: {off} ms off",
        slow[col("Time")]
    );
    assert!(slow[col("Milliseconds")].parse::<u64>().unwrap() >= 650);
}

/// See: issue 68, item 5 — `rccrawler status` lines its columns up under their headers, a
/// site's name longer than the old 40 characters included.
#[test]
fn status_columns_line_up_under_their_headers() {
    let long = "a-site-with-a-rather-long-host-name.example.test";
    let web = TestWeb::new();
    web.page("a.test", "/", "<a href=/x>x</a>");
    web.page("a.test", "/x", "x");
    web.page(long, "/", "<p>one page</p>");
    let resolve = format!(
        "{},{long}:127.0.0.1",
        settings_text(&[])
            .lines()
            .find_map(|l| l.strip_prefix("Resolve = "))
            .unwrap()
    );
    let dir = common::prepare(
        &[web.origin("a.test"), web.origin(long)],
        &[("Resolve", &resolve)],
    );
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(dir.path(), &["status"]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let lines: Vec<&str> = out.lines().skip_while(|l| !l.starts_with("site")).collect();
    assert_eq!(lines.len(), 3, "{out}");
    let header = lines[0];
    for (column, value_of) in [("pages", 1), ("arcs", 2)] {
        let end = header.find(column).unwrap() + column.len();
        for row in &lines[1..] {
            let cells: Vec<&str> = row.split_whitespace().collect();
            assert!(
                row[..end].ends_with(cells[value_of]),
                "{column} of {row:?} under {header:?}"
            );
        }
    }
    let state = header.find("state").unwrap();
    for row in &lines[1..] {
        assert_eq!(row.find("done"), Some(state), "{out}");
    }
}

/// See: issue 68, item 4 — the report says "no target links another" instead of an empty
/// matrix, and the compare report "no site grew or shrank" instead of empty tables.
#[test]
fn empty_tables_say_so_in_words() {
    let web = TestWeb::new();
    for h in ["c.test", "d.test"] {
        web.page(
            h,
            "/",
            "<a href=/p>p</a><a href=http://www.example.org/>e</a>",
        );
        web.page(h, "/p", "p");
    }
    let hosts = [web.origin("c.test"), web.origin("d.test")];
    let dir = common::prepare(&hosts, &[]);
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report = std::fs::read_to_string(dir.path().join("results/report.html")).unwrap();
    assert!(report.contains("No target links another."), "{report:.300}");
    assert!(!report.contains("id=\"network-matrix\""));
    // The same web crawled again: nothing grew or shrank.
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let old = moved_aside(dir.path()).remove(0);
    let o = run(
        dir.path(),
        &[
            "compare",
            &old.display().to_string(),
            "results",
            "--out",
            "cmp",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let cmp = std::fs::read_to_string(dir.path().join("cmp/report.html")).unwrap();
    assert!(cmp.contains("No site grew or shrank."), "{cmp:.300}");
    assert!(!cmp.contains("id=\"grew\""));
}

/// See: issue 68, item 4 — report.html links each site's files and the network's, relative to
/// itself (opened from disk or served alike).
#[test]
fn the_report_links_the_files_it_describes() {
    let web = web();
    let c = common::crawl(&[web.origin("a.test"), web.origin("b.test")], &[]);
    let results = c.results();
    let report = std::fs::read_to_string(results.join("report.html")).unwrap();
    let hrefs: Vec<&str> = report
        .split("href=\"")
        .skip(1)
        .filter_map(|h| h.split('"').next())
        .filter(|h| h.ends_with(".csv") || h.ends_with(".gexf"))
        .collect();
    for site in site_folders(&results) {
        let folder = site.file_name().unwrap().to_string_lossy().into_owned();
        for file in ["nodes.csv", "edges.csv", "graph.gexf", "external_links.csv"] {
            let href = format!("{folder}/{file}");
            assert!(hrefs.contains(&href.as_str()), "{href} in {hrefs:?}");
        }
    }
    for file in ["nodes.csv", "edges.csv", "graph.gexf"] {
        assert!(
            hrefs.contains(&format!("network/{file}").as_str()),
            "{hrefs:?}"
        );
    }
    // Every link resolves to a file beside the report.
    for h in &hrefs {
        assert!(results.join(h).is_file(), "{h}");
    }
}

/// See: issue 68, item 4 — one site's pages-per-level bars carry their counts: a level of a
/// few pages beside one of many is too low to see.
#[test]
fn the_pages_per_level_bars_carry_their_counts() {
    let web = TestWeb::new();
    let five: String = ["a", "b", "c", "d", "e"]
        .iter()
        .map(|p| format!("<a href=/{p}>{p}</a>"))
        .collect();
    web.page("a.test", "/", &five);
    for p in ["a", "b", "c", "d", "e"] {
        web.page(
            "a.test",
            &format!("/{p}"),
            &format!("<a href=/{p}/1>1</a><a href=/{p}/2>2</a>"),
        );
        for q in 1..=2 {
            // Each its own text: equal pages would be one node.
            web.page(
                "a.test",
                &format!("/{p}/{q}"),
                &format!("<p>leaf {p}{q}</p>"),
            );
        }
    }
    let c = common::crawl(&[web.origin("a.test")], &[]);
    let report = std::fs::read_to_string(c.results().join("report.html")).unwrap();
    let caption = report.find("Pages per level").unwrap();
    let svg = &report[report[..caption].rfind("<svg").unwrap()..caption];
    // The bars' labels sit above them (`dy="-0.5ex"`, centred): 1 home page, 5, then 10.
    let labels: Vec<&str> = svg
        .split("<text ")
        .skip(1)
        .filter(|t| t.contains("dy=\"-0.5ex\" text-anchor=\"middle\"") && !t.contains(">\nlevel"))
        .filter_map(|t| t.split('>').nth(1)?.split("</text").next())
        .map(str::trim)
        .collect();
    assert_eq!(labels, ["1", "5", "10"], "{svg}");
}

/// See: issue 68, item 4 — the report's sites table gives each site's share of external links
/// marked nofollow, ugc, sponsored (SPEC §17's qualifiers, from external_links.csv's Rel).
#[test]
fn the_sites_table_shows_the_shares_of_marked_external_links() {
    let web = TestWeb::new();
    web.page(
        "a.test",
        "/",
        "<a href=http://x.example.org/ rel=nofollow>1</a>\
         <a href=http://y.example.org/ rel='ugc nofollow'>2</a>\
         <a href=http://z.example.org/ rel=sponsored>3</a>\
         <a href=http://w.example.org/>4</a>",
    );
    web.page("b.test", "/", "<a href=http://w.example.org/>plain</a>");
    let c = common::crawl(&[web.origin("a.test"), web.origin("b.test")], &[]);
    let report = std::fs::read_to_string(c.results().join("report.html")).unwrap();
    let table = &report[report.find("id=\"sites-table\"").unwrap()..];
    let table = &table[..table.find("</table>").unwrap()];
    assert!(
        table.contains("<th>nofollow %</th>") || table.contains(">nofollow %<"),
        "{table}"
    );
    let row_of = |host: &str| {
        let at = table.find(host).unwrap();
        let row = &table[at..];
        row[..row.find("</tr>").unwrap()].to_owned()
    };
    // a.test: 4 external links, 2 nofollow, 1 ugc, 1 sponsored.
    let a = row_of("a.test");
    assert!(a.contains(">50.0<") && a.contains(">25.0<"), "{a}");
    let b = row_of("b.test");
    assert!(b.contains(">0.0<"), "{b}");
}

/// See: issue 68, item 4 — the compare report lists the pages added, removed, renamed and
/// changed: every one in a small study, the first 100 of a kind with a link to the file that
/// has them all in a large one.
#[test]
fn the_compare_report_lists_the_pages_that_changed() {
    let web = TestWeb::new();
    let links = |n: usize| -> String {
        (0..n)
            .map(|i| format!("<a href=/many/{i}>{i}</a>"))
            .collect::<String>()
    };
    web.page(
        "a.test",
        "/",
        &format!(
            "<a href=/keep>k</a><a href=/edit>e</a><a href=/gone>g</a><a href=/old-name>o</a>{}",
            links(3)
        ),
    );
    web.page("a.test", "/keep", "<p>the same</p>");
    web.page("a.test", "/edit", "<p>first text of the edited page</p>");
    web.page("a.test", "/gone", "<p>removed later</p>");
    web.page(
        "a.test",
        "/old-name",
        "<p>a page that moves to a new address</p>",
    );
    for i in 0..150 {
        web.page("a.test", &format!("/many/{i}"), &format!("<p>page {i}</p>"));
    }
    let dir = common::prepare(&[web.origin("a.test")], &[]);
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // The second crawl: /edit edited, /gone gone, /old-name at /new-name, 147 more pages.
    web.page(
        "a.test",
        "/",
        &format!(
            "<a href=/keep>k</a><a href=/edit>e</a><a href=/new-name>n</a>{}",
            links(150)
        ),
    );
    web.page("a.test", "/edit", "<p>second text, quite another one</p>");
    web.page(
        "a.test",
        "/new-name",
        "<p>a page that moves to a new address</p>",
    );
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let old = moved_aside(dir.path()).remove(0);
    let o = run(
        dir.path(),
        &[
            "compare",
            &old.display().to_string(),
            "results",
            "--out",
            "cmp",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let html = std::fs::read_to_string(dir.path().join("cmp/report.html")).unwrap();
    let section = |id: &str| -> String {
        let at = html
            .find(&format!("id=\"{id}\""))
            .unwrap_or_else(|| panic!("{id}: {html}"));
        html[at..at + html[at..].find("</table>").unwrap()].to_owned()
    };
    let url = |p: &str| format!("{}{p}", web.origin("a.test"));
    assert!(html.contains("<h3>Added (147)</h3>"), "{html}");
    let added = section("pages-added");
    assert_eq!(
        added.matches("<tr>").count(),
        1 + 100,
        "header and the first 100"
    );
    assert!(html.contains("The first 100 of 147; all in <a href=\"pages.csv\">pages.csv</a>."));
    assert!(html.contains("<h3>Removed (1)</h3>"));
    assert!(section("pages-removed").contains(&url("/gone")));
    assert!(html.contains("<h3>Renamed (1)</h3>"));
    let renamed = section("pages-renamed");
    assert!(
        renamed.contains(&url("/old-name")) && renamed.contains(&url("/new-name")),
        "{renamed}"
    );
    assert!(html.contains("<h3>Changed ("), "{html}");
    assert!(section("pages-changed").contains(&url("/edit")));
    // Every pages.csv row of a kind is counted.
    let (h, rows) = common::read_csv(&dir.path().join("cmp/pages.csv"));
    let change = h.iter().position(|c| c == "Change").unwrap();
    assert_eq!(rows.iter().filter(|r| r[change] == "added").count(), 147);
}

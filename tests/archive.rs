//! The crawl's archive (SPEC §15, `Archive = warc`) and `rccrawler rebuild`: the real binary
//! crawls a web served by this test process — a generated site, a hand-made one with every
//! kind of answer (robots.txt, redirects, a 404 and a 500 with bodies, a file that is not
//! HTML, gzip and chunked bodies, a same-content copy, an external link, a page too large, an
//! answer that never comes), a dynamic site whose every answer differs — and keeps every
//! exchange in WARC files that `warcio` accepts; a rebuild from the archive alone gives the
//! crawl's results byte for byte (but for the wall-clock figures), and with other settings
//! what a crawl with them gives. A crawl killed with SIGKILL and continued leaves an archive
//! `warcio` accepts and the uninterrupted crawl's results; a full disk stops the crawl with a
//! message and its state saved. A re-crawl from the archive asks with validators and takes
//! its 304s from the earlier archive, to the graph a full crawl gives.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use common::webgen::{self, WebSpec};
use common::{TestWeb, run_binary, settings_text, warcio};
use rccrawler::base::loopback::{Request, Resp, Route};

/// The hand-made site: one of each kind of answer.
fn install_kinds(web: &TestWeb, host: &str) {
    web.robots(host, "User-agent: *\nDisallow: /private\n");
    web.page(
        host,
        "/",
        "<title>home</title><a href=/moved>moved</a> <a href=/gone>gone</a> \
         <a href=/broken>broken</a> <a href=/data>data</a> <a href=/zipped>zipped</a> \
         <a href=/chunks>chunks</a> <a href=/copy>home again</a> \
         <a href=/private/x>private</a> <a href=/huge>huge</a> <a href=/slow>slow</a> \
         <a href=http://x.test/out>out</a>",
    );
    web.set(host, "/moved", Resp::redirect(301, "/new"));
    web.page(host, "/new", "<title>new</title><a href=/>home</a>");
    web.set(
        host,
        "/gone",
        Resp::new(404, "text/html", "<p>not here</p>"),
    );
    web.set(host, "/broken", Resp::new(500, "text/html", "<p>oops</p>"));
    // Not HTML, at a URL without an extension: a link to a .pdf is refused without a request.
    web.set(
        host,
        "/data",
        Resp::new(200, "application/pdf", "%PDF-1.4 data"),
    );
    web.set(
        host,
        "/zipped",
        Resp::html("<title>zipped</title><a href=/new>new</a>".repeat(20)).gzipped(),
    );
    web.set(
        host,
        "/chunks",
        Resp::html("<title>chunks</title><a href=/gone>gone</a>").chunked(),
    );
    // The home page's bytes at another address.
    web.page(
        host,
        "/copy",
        "<title>home</title><a href=/moved>moved</a> <a href=/gone>gone</a> \
         <a href=/broken>broken</a> <a href=/data>data</a> <a href=/zipped>zipped</a> \
         <a href=/chunks>chunks</a> <a href=/copy>home again</a> \
         <a href=/private/x>private</a> <a href=/huge>huge</a> <a href=/slow>slow</a> \
         <a href=http://x.test/out>out</a>",
    );
    web.set(host, "/huge", Resp::html("x".repeat(300_000)));
    // Answers after the request timeout: a failure without an answer.
    web.set(
        host,
        "/slow",
        Resp::html("<title>late</title>").delayed(Duration::from_secs(3)),
    );
}

/// A web of a generated site (a.test) and the hand-made one (b.test).
fn mixed_web() -> TestWeb {
    let web = TestWeb::new();
    let spec = WebSpec {
        host: "a.test",
        pages: 120,
        seed: 11,
        delay: Duration::ZERO,
        slow: Vec::new(),
    };
    webgen::install(&web, spec);
    install_kinds(&web, "b.test");
    web
}

/// Settings of the test crawls: a page over 200,000 bytes is too large, a request over two
/// seconds times out, one retry.
const SETTINGS: &[(&str, &str)] = &[
    ("MaxPageBytes", "200000"),
    ("RequestTimeoutSeconds", "2"),
    ("MaxRetries", "1"),
];

fn hosts(web: &TestWeb, names: &[&str], level: u32) -> String {
    names
        .iter()
        .map(|h| format!("{};2;{level};0\n", web.origin(h)))
        .collect()
}

/// A crawl folder: settings.ini (the test settings, `extra` on top) and hosts.txt.
fn folder(web: &TestWeb, names: &[&str], extra: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut keys: Vec<(&str, &str)> = SETTINGS.to_vec();
    keys.extend_from_slice(extra);
    std::fs::write(dir.path().join("settings.ini"), settings_text(&keys)).unwrap();
    std::fs::write(dir.path().join("hosts.txt"), hosts(web, names, 100)).unwrap();
    dir
}

/// Runs the binary in `dir` with `args`; it must exit 0. Returns its stderr.
fn run_ok(dir: &Path, args: &[&str]) -> String {
    ok(&run_binary(dir, args))
}

/// Runs `rccrawler rebuild results/archive [OPTION VALUE] --out OUT` in `dir`.
fn rebuild(dir: &Path, option: Option<(&str, &str)>, out: &str) -> std::process::Output {
    let mut args = vec!["rebuild", "results/archive"];
    if let Some((name, value)) = option {
        args.extend([name, value]);
    }
    args.extend(["--out", out]);
    run_binary(dir, &args)
}

/// A command's output when it exited 0 (its stderr in the message otherwise); its stderr.
fn ok(out: &std::process::Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{err}");
    err
}

/// Every file under `dir` (but `skip`), by path relative to it.
fn files_under(dir: &Path, skip: &[&str]) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let path = e.unwrap().path();
            let rel = path
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if skip.iter().any(|s| rel == *s) {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push((rel, std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// A result file with the figures of the run blanked: crawl.ini's `Started` and `Rebuilt`,
/// summary.csv's `Seconds` and `TLP` (the clock) and `Fetched` (the tasks: a redirect and its
/// target are one task or two as the run's timing has it, in two crawls of one web too).
fn without_clock(name: &str, bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    if name == "crawl.ini" {
        return text
            .lines()
            // The clock, and whether the crawl kept an archive (a rebuild keeps none).
            .filter(|l| {
                !["Started = ", "Rebuilt = ", "Archive = ", "ArchiveFileMB = "]
                    .iter()
                    .any(|k| l.starts_with(k))
            })
            .collect::<Vec<_>>()
            .join("\n");
    }
    if name == "summary.csv" {
        let mut rows = text.lines();
        let header: Vec<&str> = rows.next().unwrap_or_default().split(',').collect();
        let clock: Vec<usize> = ["Seconds", "TLP", "Fetched"]
            .iter()
            .map(|c| header.iter().position(|h| h == c).unwrap())
            .collect();
        let mut out = vec![header.join(",")];
        for row in rows {
            let cells: Vec<&str> = row
                .split(',')
                .enumerate()
                .map(|(i, c)| if clock.contains(&i) { "-" } else { c })
                .collect();
            out.push(cells.join(","));
        }
        return out.join("\n");
    }
    text.into_owned()
}

/// The results folders `a` and `b` hold the same files with the same bytes — but for the
/// archive, the report (its folder and times), the marker naming the crawl, the wall-clock
/// figures, and the files `skip` names.
fn assert_same_results(a: &Path, b: &Path) {
    assert_same_results_but(a, b, &[]);
}

/// [`assert_same_results`] for the site folders and the network alone: a crawl stopped and
/// continued counts its requests and settings otherwise (summary.csv, crawl.ini).
fn assert_same_graphs(a: &Path, b: &Path) {
    assert_same_results_but(a, b, &["summary.csv", "crawl.ini"]);
}

fn assert_same_results_but(a: &Path, b: &Path, skip: &[&str]) {
    let mut skip = skip.to_vec();
    skip.extend(["archive", "report.html", ".rccrawler-crawl"]);
    let (fa, fb) = (files_under(a, &skip), files_under(b, &skip));
    let names = |f: &[(String, Vec<u8>)]| f.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&fa), names(&fb), "the same result files");
    for ((name, x), (_, y)) in fa.iter().zip(&fb) {
        let base = Path::new(name).file_name().unwrap().to_string_lossy();
        let (x, y) = (without_clock(&base, x), without_clock(&base, y));
        if x != y {
            let diff: Vec<String> = x
                .lines()
                .zip(y.lines())
                .filter(|(p, q)| p != q)
                .take(6)
                .map(|(p, q)| format!("  crawl   {p}\n  rebuilt {q}"))
                .collect();
            panic!(
                "{name} differs ({} vs {} lines):\n{}",
                x.lines().count(),
                y.lines().count(),
                diff.join("\n")
            );
        }
    }
}

/// Every record of the archive in `dir`, as warcio reads it: (type, target URI, status).
fn archived(dir: &Path) -> Vec<(String, String, String)> {
    let Some(warcio) = warcio::program() else {
        return Vec::new();
    };
    let mut all = Vec::new();
    for f in warcio::files(dir) {
        warcio::check(&warcio, dir, &f);
        for v in warcio::index(&warcio, dir, &f, "warc-type,warc-target-uri,http:status") {
            let s = |k: &str| v[k].as_str().unwrap_or("").to_owned();
            all.push((s("warc-type"), s("warc-target-uri"), s("http:status")));
        }
    }
    all
}

/// Crawls the mixed web with `downloader` and checks its archive against what the server saw;
/// then rebuilds it and checks the results are the crawl's.
fn archive_and_rebuild(downloader: &str) {
    let web = mixed_web();
    let dir = folder(
        &web,
        &["a.test", "b.test"],
        &[("Archive", "warc"), ("DownloadingThread", downloader)],
    );
    let before = web.server.requests().len();
    let err = run_ok(dir.path(), &[]);
    // The server logs a request once it answers: /slow answers after the crawl gave up on it.
    let slow = |t: &str| t == "/slow";
    let until = std::time::Instant::now() + Duration::from_secs(10);
    while web.server.requests()[before..]
        .iter()
        .filter(|r| slow(&r.target))
        .count()
        < 2
    {
        assert!(
            std::time::Instant::now() < until,
            "/slow was asked for twice"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let served = web.server.requests()[before..].to_vec();
    assert!(err.contains("answers archived by this run"), "{err}");
    let archive = dir.path().join("results/archive");
    assert!(archive.join("index.cdxj").exists());
    let records = archived(&archive);
    if !records.is_empty() {
        let requests = records.iter().filter(|r| r.0 == "request").count();
        // Every request the server saw — /slow's too, whose answer came after the crawler gave
        // up: a request record and a failure.
        assert_eq!(requests, served.len(), "a request record per request sent");
        let kinds = |uri: &str| -> Vec<(String, String)> {
            records
                .iter()
                .filter(|r| r.1 == format!("{}{uri}", web.origin("b.test")) && r.0 != "request")
                .map(|r| (r.0.clone(), r.2.clone()))
                .collect()
        };
        let pair = |t: &str, s: &str| (t.to_owned(), s.to_owned());
        assert_eq!(kinds("/robots.txt"), vec![pair("response", "200")]);
        assert_eq!(kinds("/moved"), vec![pair("response", "301")]);
        assert_eq!(kinds("/gone"), vec![pair("response", "404")]);
        // Retried once.
        assert_eq!(
            kinds("/broken"),
            vec![pair("response", "500"), pair("response", "500")]
        );
        assert_eq!(kinds("/data"), vec![pair("response", "200")]);
        assert_eq!(
            kinds("/zipped"),
            vec![pair("response", "200"), pair("metadata", "")]
        );
        // The copy of the home page: a revisit naming the first.
        assert_eq!(
            kinds("/copy"),
            vec![pair("revisit", "200"), pair("metadata", "")]
        );
        assert_eq!(kinds("/huge"), vec![pair("response", "200")]);
        assert_eq!(kinds("/private/x"), Vec::<(String, String)>::new());
        assert_eq!(
            kinds("/slow"),
            vec![pair("metadata", ""), pair("metadata", "")]
        );
        let pages = records.iter().filter(|r| r.0 == "metadata").count();
        assert!(pages > 120, "a metadata record per page: {pages}");
    }
    let out = dir.path().join("rebuilt");
    let err = ok(&rebuild(dir.path(), None, "rebuilt"));
    assert!(err.contains("rebuilding from"), "{err}");
    assert_same_results(&dir.path().join("results"), &out.join("results"));
    let record = std::fs::read_to_string(out.join("results/crawl.ini")).unwrap();
    assert!(record.contains("Rebuilt = from the archive"), "{record}");
    // Nothing was fetched.
    assert_eq!(web.server.requests().len(), before + served.len());
}

#[test]
fn dt1_archives_every_exchange_and_the_rebuild_is_the_crawl() {
    archive_and_rebuild("DT1");
}

#[test]
fn dt0_archives_every_exchange_and_the_rebuild_is_the_crawl() {
    archive_and_rebuild("DT0");
}

/// A crawl's results folder for `names` with `extra` settings and hosts at `level`
/// (in-process, without an archive).
fn direct(web: &TestWeb, names: &[&str], level: u32, extra: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = folder(web, names, extra);
    std::fs::write(dir.path().join("hosts.txt"), hosts(web, names, level)).unwrap();
    common::run_in(dir.path());
    dir
}

#[test]
fn a_rebuild_with_other_settings_gives_what_a_crawl_with_them_gives() {
    let web = mixed_web();
    let dir = folder(&web, &["a.test", "b.test"], &[("Archive", "warc")]);
    run_ok(dir.path(), &[]);
    // A lower maxCrawlLevel: the hosts.txt named.
    std::fs::write(
        dir.path().join("level2.txt"),
        hosts(&web, &["a.test", "b.test"], 2),
    )
    .unwrap();
    ok(&rebuild(dir.path(), Some(("--hosts", "level2.txt")), "low"));
    let want = direct(&web, &["a.test", "b.test"], 2, &[]);
    assert_same_results(
        &want.path().join("results"),
        &dir.path().join("low/results"),
    );
    // Another duplicate rule: the settings named.
    let mut keys: Vec<(&str, &str)> = SETTINGS.to_vec();
    keys.push(("Duplicates", "exact"));
    std::fs::write(dir.path().join("exact.ini"), settings_text(&keys)).unwrap();
    ok(&rebuild(
        dir.path(),
        Some(("--settings", "exact.ini")),
        "exact",
    ));
    let want = direct(&web, &["a.test", "b.test"], 100, &[("Duplicates", "exact")]);
    assert_same_results(
        &want.path().join("results"),
        &dir.path().join("exact/results"),
    );
    // A deeper crawl than the archive holds: what it lacks is reported, never fetched.
    let before = web.server.requests().len();
    let deeper = dir.path().join("deeper.txt");
    std::fs::write(&deeper, format!("{};2;100;0\n", web.origin("c.test"))).unwrap();
    let out = rebuild(dir.path(), Some(("--hosts", "deeper.txt")), "c");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the archive lacks"), "{err}");
    assert_eq!(web.server.requests().len(), before, "nothing fetched");
    // The same folder again: an earlier rebuild is replaced; another folder is refused.
    ok(&rebuild(dir.path(), Some(("--hosts", "level2.txt")), "low"));
    let out = rebuild(dir.path(), None, "results");
    assert_eq!(out.status.code(), Some(2));
    let out = run_binary(dir.path(), &["rebuild", "hosts.txt", "--out", "x"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_dynamic_site_rebuilds_to_the_same_graph() {
    // Every answer differs (tokens, times, shuffled boxes): the page's two copies, the
    // soft-404 probes and the per-site rules learnt from them come back in the same order.
    let web = TestWeb::new();
    common::dynweb::DynSite::mixed().install(&web, "e.test");
    let dir = folder(&web, &["e.test"], &[("Archive", "warc")]);
    run_ok(dir.path(), &[]);
    ok(&rebuild(dir.path(), None, "rebuilt"));
    assert_same_results(
        &dir.path().join("results"),
        &dir.path().join("rebuilt/results"),
    );
}

/// A generated site slow enough (about 6 ms an answer) that a crawl can be killed midway.
fn slow_site() -> TestWeb {
    let web = TestWeb::new();
    let spec = WebSpec {
        host: "c.test",
        pages: 400,
        seed: 5,
        delay: Duration::from_millis(6),
        slow: Vec::new(),
    };
    webgen::install(&web, spec);
    web
}

fn wait_for_requests(web: &TestWeb, n: usize) {
    let until = std::time::Instant::now() + Duration::from_secs(60);
    while web.server.requests().len() < n {
        assert!(std::time::Instant::now() < until, "fewer than {n} requests");
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn killed_twice_then_continued_the_archive_is_whole_and_the_results_exact() {
    let web = slow_site();
    let want = direct(&web, &["c.test"], 100, &[("DownloadingThreadsCount", "4")]);
    let total = web.server.requests().len();
    let extra = [("Archive", "warc"), ("DownloadingThreadsCount", "4")];
    let dir = folder(&web, &["c.test"], &extra);
    for fraction in [3, 6] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rccrawler"))
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_for_requests(&web, total + total * fraction / 10);
        child.kill().unwrap();
        child.wait().unwrap();
    }
    // Killed: a file is left open (`.warc.gz.open`), perhaps with a torn tail.
    let archive = dir.path().join("results/archive");
    let open: Vec<PathBuf> = std::fs::read_dir(&archive)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".open"))
        .collect();
    assert_eq!(open.len(), 1, "{open:?}");
    run_ok(dir.path(), &[]);
    assert_same_graphs(&want.path().join("results"), &dir.path().join("results"));
    let records = archived(&archive);
    if !records.is_empty() {
        // Every page has its answer and its links in the archive, once or (fetched again
        // after a kill) more.
        let nodes = std::fs::read_to_string(
            dir.path()
                .join(format!("results/c.test_{}/nodes.csv", web.port())),
        )
        .unwrap();
        for line in nodes.lines().skip(1) {
            let url = line.split(',').nth(1).unwrap().trim_matches('"');
            assert!(
                records.iter().any(|r| r.0 == "metadata" && r.1 == url),
                "{url} has no metadata record"
            );
        }
    }
    // Fetched (summary.csv) counts a page fetched again after a kill once per fetch.
    ok(&rebuild(dir.path(), None, "rebuilt"));
    assert_same_graphs(
        &dir.path().join("results"),
        &dir.path().join("rebuilt/results"),
    );
}

#[test]
fn a_full_disk_stops_the_crawl_with_a_message_and_its_state_saved() {
    let web = slow_site();
    let want = direct(&web, &["c.test"], 100, &[]);
    let dir = folder(&web, &["c.test"], &[("Archive", "warc")]);
    let archive = dir.path().join("results/archive");
    std::fs::create_dir_all(&archive).unwrap();
    // A filesystem of 64 KiB: the archive fills it after a few dozen pages.
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
        .arg(&archive)
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI: cannot mount a small tmpfs (the full-disk test needs root)"
        );
        eprintln!("cannot mount a tmpfs here: the full-disk check is left out");
        return;
    }
    let out = run_binary(dir.path(), &[]);
    let _ = Command::new("umount").arg(&archive).status();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot write the archive"), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    let summary = std::fs::read_to_string(dir.path().join("results/summary.csv")).unwrap();
    assert!(summary.contains("stopped"), "{summary}");
    // With room again, the crawl continues from its saved state to the uninterrupted results.
    run_ok(dir.path(), &[]);
    assert_same_graphs(&want.path().join("results"), &dir.path().join("results"));
}

/// A site whose pages carry an `ETag` and a `Last-Modified` and answer `304` to a matching
/// `If-None-Match`; from `edition` 2 on, page /p/3 has other contents (and another ETag).
fn etag_site(web: &TestWeb, host: &str, edition: Arc<AtomicU32>) {
    let serve = move |req: &Request| {
        let path = req.target.as_str();
        let n: Option<u32> = path.strip_prefix("/p/").and_then(|n| n.parse().ok());
        let body = match (path, n) {
            ("/", _) => (0..10)
                .map(|i| format!("<a href=/p/{i}>page {i}</a> "))
                .collect(),
            (_, Some(i)) if i < 10 => {
                let edited = i == 3 && edition.load(Ordering::SeqCst) >= 2;
                format!(
                    "<title>page {i}{}</title><a href=/p/{}>next</a> <a href=/>home</a>",
                    if edited { ", edited" } else { "" },
                    (i + 1) % 10
                )
            }
            _ => return Resp::new(404, "text/html", "none"),
        };
        let etag = format!(
            "\"{:x}\"",
            body.len() * 7919 + body.bytes().map(usize::from).sum::<usize>()
        );
        if req.header("if-none-match") == Some(etag.as_str()) {
            return Resp::new(304, "text/html", "").header("ETag", &etag);
        }
        Resp::html(body)
            .header("ETag", &etag)
            .header("Last-Modified", "Wed, 21 Oct 2026 07:28:00 GMT")
    };
    web.server
        .route_prefix(host, "/", Route::Generated(Arc::new(serve)));
}

#[test]
fn a_recrawl_asks_with_validators_and_takes_304s_from_the_earlier_archive() {
    let web = TestWeb::new();
    let edition = Arc::new(AtomicU32::new(1));
    etag_site(&web, "d.test", Arc::clone(&edition));
    let first = folder(&web, &["d.test"], &[("Archive", "warc")]);
    run_ok(first.path(), &[]);
    let earlier = first.path().join("results/archive");
    edition.store(2, Ordering::SeqCst);
    let before = web.server.requests().len();
    let recrawl = earlier.display().to_string();
    let dir = folder(
        &web,
        &["d.test"],
        &[("Archive", "warc"), ("Recrawl", recrawl.as_str())],
    );
    let err = run_ok(dir.path(), &[]);
    let statuses: Vec<u16> = web.server.requests()[before..]
        .iter()
        .map(|r| r.status)
        .collect();
    // Every page but the edited one is unchanged: ten 304s (the home page and nine others).
    let not_modified = statuses.iter().filter(|&&s| s == 304).count();
    assert_eq!(not_modified, 10, "{statuses:?}");
    assert!(
        err.contains("re-crawl: 10 answers were 304 Not Modified"),
        "{err}"
    );
    let log = std::fs::read_to_string(dir.path().join("logs/common_log.csv")).unwrap();
    assert_eq!(
        log.lines().filter(|l| l.contains(",304,0,")).count(),
        10,
        "{log}"
    );
    // The graph is what a full crawl of the same answers gives.
    let want = direct(&web, &["d.test"], 100, &[]);
    assert_same_graphs(&want.path().join("results"), &dir.path().join("results"));
    let title = std::fs::read_to_string(
        dir.path()
            .join(format!("results/d.test_{}/nodes.csv", web.port())),
    )
    .unwrap();
    assert!(title.contains("page 3, edited"), "{title}");
    // The 304s are revisits of the earlier archive's answers; a rebuild finds their bodies
    // there.
    let archive = dir.path().join("results/archive");
    let records = archived(&archive);
    if !records.is_empty() {
        let revisits = records
            .iter()
            .filter(|r| r.0 == "revisit" && r.2 == "304")
            .count();
        assert_eq!(revisits, 10, "{records:?}");
    }
    ok(&rebuild(dir.path(), None, "rebuilt"));
    assert_same_results(
        &dir.path().join("results"),
        &dir.path().join("rebuilt/results"),
    );
    // Not an archive: bad input.
    std::fs::write(
        dir.path().join("settings.ini"),
        settings_text(&[("Recrawl", "hosts.txt")]),
    )
    .unwrap();
    assert_eq!(run_binary(dir.path(), &[]).status.code(), Some(2));
}

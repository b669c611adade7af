//! The live status page (SPEC §12, `StatusAddress`): while a crawl runs, /status.json says
//! what is crawled and what is finished, finished sites' files can be opened, nothing outside
//! ResultFolder can, and the page itself loads. Drives the real binary.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::http_get as get;
use common::{TestWeb, free_port};
use rccrawler::base::loopback::Resp;

/// See: issue 21.
#[test]
fn the_status_page_shows_the_crawl_and_serves_finished_sites_files_only() {
    let web = TestWeb::new();
    // a.test: 20 pages answering in 500 ms each, one download at a time: about 10 s, time
    // for a browser to start (slowly, on a busy machine) and load the page while the crawl
    // runs.
    let links: String = (1..20).map(|i| format!("<a href=/p{i}>p{i}</a>")).collect();
    web.page("a.test", "/", &links);
    for i in 1..20 {
        web.set(
            "a.test",
            &format!("/p{i}"),
            Resp::html(format!("<p>slow page {i}</p>")).delayed(Duration::from_millis(500)),
        );
    }
    // b.test: one page, finished at once.
    web.page("b.test", "/", "<a href=http://elsewhere.test/>out</a>");
    let port = free_port();
    let address = format!("127.0.0.1:{port}");
    let dir = common::prepare(
        &[
            format!("{};1;100;0", web.origin("a.test")),
            format!("{};1;100;0", web.origin("b.test")),
        ],
        &[("StatusAddress", &address)],
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_rccrawler"))
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait (at most 10 s) until b.test is listed as finished while a.test is still crawled.
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        assert!(
            Instant::now() < deadline,
            "the status page never showed b.test finished"
        );
        if let Some((200, body)) = get(port, "/status.json") {
            let s: serde_json::Value = serde_json::from_str(&body).unwrap();
            let finished = s["finished"].as_array().unwrap();
            if finished
                .iter()
                .any(|f| f["site"].as_str().unwrap().contains("b.test"))
            {
                break s;
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status["state"], "crawling", "{status:#}");
    // See: issue 68, item 5 — the header's totals are the tables': b.test finished and
    // written, a.test crawled.
    assert_eq!(
        status["sites_written"],
        status["finished"].as_array().unwrap().len(),
        "{status:#}"
    );
    assert_eq!(
        status["sites_crawling"],
        status["sites"].as_array().unwrap().len(),
        "{status:#}"
    );
    assert_eq!(status["sites_written"], 1, "{status:#}");
    assert_eq!(status["sites_crawling"], 1, "{status:#}");
    let live = status["sites"].as_array().unwrap();
    assert!(
        live.iter()
            .any(|s| s["site"].as_str().unwrap().contains("a.test")
                && s["queued"].as_u64().unwrap() > 0),
        "a.test is being crawled: {status:#}"
    );
    // See: issue 49, item 8 — once a.test has a rate, the time its queue needs at that rate
    // (19 pages of 500 ms one at a time: about 10 s at the start).
    let deadline = Instant::now() + Duration::from_secs(8);
    let a_left = loop {
        let (_, body) = get(port, "/status.json").unwrap();
        let s: serde_json::Value = serde_json::from_str(&body).unwrap();
        let a = s["sites"]
            .as_array()
            .and_then(|l| {
                l.iter()
                    .find(|x| x["site"].as_str().unwrap_or("").contains("a.test"))
            })
            .cloned();
        if let Some(left) = a.as_ref().and_then(|a| a["time_left_seconds"].as_f64()) {
            // The crawl's own estimate: only a.test is left, so it is a.test's.
            assert_eq!(s["time_left_seconds"].as_f64(), Some(left), "{s:#}");
            break left;
        }
        assert!(Instant::now() < deadline, "no time left for a.test: {s:#}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!((1.0..=30.0).contains(&a_left), "a.test: {a_left} s left");
    let b = status["finished"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["site"].as_str().unwrap().contains("b.test"))
        .unwrap()
        .clone();
    assert_eq!(b["pages"], 1);
    assert_eq!(b["external_links"], 1);
    // See: issue 46 — the network's totals as sites are written: b.test's link to
    // elsewhere.test (the snapshot is renewed twice a second).
    let deadline = Instant::now() + Duration::from_secs(5);
    let network = loop {
        let (_, body) = get(port, "/status.json").unwrap();
        let s: serde_json::Value = serde_json::from_str(&body).unwrap();
        if s["network"]["targets_counted"] == 1 || Instant::now() > deadline {
            break s["network"].clone();
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(
        network,
        serde_json::json!({"targets": 2, "targets_counted": 1, "accompanying": 1, "arcs": 1}),
        "{network:#}"
    );
    // Its files, as linked, are the files on disk.
    let nodes_link = b["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_owned())
        .find(|f| f.ends_with("/nodes.csv"))
        .unwrap();
    let (code, body) = get(port, &nodes_link).unwrap();
    assert_eq!(code, 200);
    let on_disk = std::fs::read_to_string(
        dir.path()
            .join("results")
            .join(nodes_link.trim_start_matches("/results/")),
    )
    .unwrap();
    assert_eq!(body, on_disk);
    // Nothing outside ResultFolder.
    for path in [
        "/results/../settings.ini",
        "/results/%2e%2e/settings.ini",
        "/results/..%2fsettings.ini",
        "/settings.ini",
    ] {
        let (code, _) = get(port, path).unwrap();
        assert!(code == 403 || code == 404, "{path}: {code}");
    }
    // The page a person opens.
    let (code, html) = get(port, "/").unwrap();
    assert_eq!(code, 200);
    assert!(html.contains("crawl status") && html.contains("/status.json"));
    // What a person sees: the page in headless Chromium, after its script ran.
    if let Some(dom) = common::chromium::dump_dom(&format!("http://127.0.0.1:{port}/")) {
        let (dom, console) = dom;
        assert!(!console.contains("Uncaught"), "script errors: {console}");
        assert!(dom.contains("crawling after"), "the totals line: {dom}");
        assert!(
            dom.contains("network of sites: 2 targets"),
            "the network's line: {dom}"
        );
        let finished = dom.split("id=\"finished\"").nth(1).unwrap();
        assert!(
            finished.contains("b.test") && finished.contains("nodes.csv</a>"),
            "b.test finished, with a link to its nodes.csv: {finished}"
        );
        let live = dom.split("id=\"live\"").nth(1).unwrap();
        let live = live.split("id=\"finished\"").next().unwrap();
        assert!(live.contains("a.test"), "a.test being crawled: {live}");
        assert!(live.contains("time left"), "the time left column: {live}");
        assert!(dom.contains(" left"), "the crawl's time left: {dom}");
    }
    // The crawl itself is not changed by any of this.
    let exit = child.wait().unwrap();
    assert_eq!(exit.code(), Some(0));
    let (_, rows) = common::read_csv(&dir.path().join("results/summary.csv"));
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0][2], "20", "a.test: every page");
}

/// See: issue 49 — a `StatusAddress` whose port was in use was a warning, then a crawl without
/// the page asked for. It is refused before anything is fetched: exit code 2, naming
/// settings.ini's line, and no request sent.
#[test]
fn a_status_address_in_use_is_refused_before_the_crawl() {
    let web = TestWeb::new();
    web.page("a.test", "/", "a");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let dir = common::prepare(
        &[format!("{};1;100;0", web.origin("a.test"))],
        &[("StatusAddress", &address)],
    );
    let out = common::run_binary(dir.path(), &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("settings.ini:") && err.contains(&format!("StatusAddress = {address}")),
        "{err}"
    );
    assert_eq!(web.server.requests().len(), 0, "nothing is fetched");
}

/// See: issue 49, item 8 — every crawl serves its page (a free loopback port by default), and
/// `rccrawler status` of a crawl of one process reads it while the crawl runs, then the
/// crawl's summary.csv; `status --serve` keeps a page over the ended crawl until stopped.
#[test]
fn rccrawler_status_reads_the_running_crawl_then_its_results() {
    let web = TestWeb::new();
    let links: String = (1..12).map(|i| format!("<a href=/p{i}>p{i}</a>")).collect();
    web.page("a.test", "/", &links);
    for i in 1..12 {
        web.set(
            "a.test",
            &format!("/p{i}"),
            Resp::html(format!("<p>page {i}</p>")).delayed(Duration::from_millis(300)),
        );
    }
    // No StatusAddress: the default.
    let dir = common::prepare(&[format!("{};1;100;0", web.origin("a.test"))], &[]);
    let nothing = common::run_binary(dir.path(), &["status"]);
    assert_eq!(nothing.status.code(), Some(3), "no crawl here yet");
    let mut child = Command::new(env!("CARGO_BIN_EXE_rccrawler"))
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let marker = dir.path().join("results/.rccrawler-live");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !marker.exists() {
        assert!(Instant::now() < deadline, "no live page address");
        std::thread::sleep(Duration::from_millis(20));
    }
    let running = common::run_binary(dir.path(), &["status"]);
    let out = String::from_utf8_lossy(&running.stdout);
    assert_eq!(running.status.code(), Some(0), "{out}");
    assert!(out.starts_with("crawling for "), "{out}");
    assert!(out.contains(&web.origin("a.test")), "{out}");
    assert_eq!(child.wait().unwrap().code(), Some(0));
    assert!(!marker.exists(), "the address goes with the crawl");
    let ended = common::run_binary(dir.path(), &["status"]);
    let out = String::from_utf8_lossy(&ended.stdout);
    assert_eq!(ended.status.code(), Some(0), "{out}");
    assert!(out.starts_with("not running; 1 site in "), "{out}");
    assert!(
        out.lines().any(|l| l.starts_with(&web.origin("a.test"))
            && l.contains(" 12 ")
            && l.ends_with("done")),
        "{out}"
    );
    // The page over the ended crawl, until stopped.
    let port = free_port();
    let mut serving = Command::new(env!("CARGO_BIN_EXE_rccrawler"))
        .args(["status", "--serve", &format!("127.0.0.1:{port}")])
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some((200, body)) = get(port, "/status.json") {
            break serde_json::from_str::<serde_json::Value>(&body).unwrap();
        }
        assert!(Instant::now() < deadline, "status --serve does not answer");
        std::thread::sleep(Duration::from_millis(50));
    };
    // What a person sees: the report and the network linked (issue 68, item 4).
    if let Some((dom, console)) = common::chromium::dump_dom(&format!("http://127.0.0.1:{port}/")) {
        assert!(!console.contains("Uncaught"), "script errors: {console}");
        let links = dom.split("id=\"links\"").nth(1).unwrap();
        let links = links.split("</p>").next().unwrap();
        assert!(
            links.contains("href=\"/results/report.html\"") && links.contains("report.html</a>"),
            "{links}"
        );
        assert!(links.contains("network/graph.gexf</a>"), "{links}");
    }
    let _ = serving.kill();
    let _ = serving.wait();
    assert_eq!(status["state"], "finished", "{status:#}");
    assert_eq!(status["pages"], 12, "{status:#}");
    let finished = status["finished"].as_array().unwrap();
    assert_eq!(finished.len(), 1, "{status:#}");
    assert!(
        finished[0]["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f.as_str().unwrap().ends_with("/nodes.csv")),
        "{status:#}"
    );
    // See: issue 68, item 4 — the page links the report and the network's files.
    let links: Vec<&str> = status["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["href"].as_str().unwrap())
        .collect();
    assert!(links.contains(&"/results/report.html"), "{status:#}");
    assert!(links.contains(&"/results/network/graph.gexf"), "{status:#}");
}

/// See: issue 49, item 8 — `rccrawler --serve` crawls, then keeps the page up at the address
/// the crawl's page had (printed once, a free port here) until Ctrl+C; the crawl's exit code.
#[test]
fn a_crawl_with_serve_keeps_its_page_up_after_it_ends_until_ctrl_c() {
    let web = TestWeb::new();
    web.page("a.test", "/", "<a href=/x>x</a>");
    web.page("a.test", "/x", "<p>x</p>");
    let dir = common::prepare(&[web.origin("a.test")], &[]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_rccrawler"))
        .arg("--serve")
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The crawl's page address, from its console line.
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send(line);
        }
    });
    let port: u16 = loop {
        let line = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("a status page line");
        if let Some(rest) = line.strip_prefix("status page: http://127.0.0.1:") {
            break rest.split('/').next().unwrap().parse().unwrap();
        }
    };
    // Once the crawl has ended (its results written), the page says so, and stays.
    let summary = dir.path().join("results/summary.csv");
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if summary.exists()
            && let Some((200, body)) = get(port, "/status.json")
        {
            let s = serde_json::from_str::<serde_json::Value>(&body).unwrap();
            if s["state"] == "finished" {
                break s;
            }
        }
        assert!(Instant::now() < deadline, "no page over the ended crawl");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status["pages"], 2, "{status:#}");
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        child.try_wait().unwrap().is_none(),
        "it serves until Ctrl+C"
    );
    assert!(get(port, "/status.json").is_some());
    common::signal(&child, "INT");
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

/// The crawler's peak resident memory so far, in kB (Linux).
fn peak_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

// See: issue 63 items 4 and 5d — clients that never finish their request (one header line a
// second; 100 idle connections) hold neither /status.json nor the crawl's exit; a large file
// under results/ is streamed, not read whole; the archive is not served.
#[test]
fn slow_and_idle_clients_hold_nothing_and_files_are_streamed() {
    use std::io::{Read, Write};
    use std::net::TcpStream;
    let web = TestWeb::new();
    // 12 pages of 300 ms, one at a time: ~4 s of crawling.
    let links: String = (1..12).map(|i| format!("<a href=/p{i}>p{i}</a>")).collect();
    web.page("a.test", "/", &links);
    for i in 1..12 {
        web.set(
            "a.test",
            &format!("/p{i}"),
            Resp::html(format!("<p>slow page {i}</p>")).delayed(Duration::from_millis(300)),
        );
    }
    let port = free_port();
    let address = format!("127.0.0.1:{port}");
    let dir = common::prepare(
        &[format!("{};1;100;0", web.origin("a.test"))],
        &[("StatusAddress", &address), ("Archive", "warc")],
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_rccrawler"))
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while get(port, "/status.json").is_none() {
        assert!(Instant::now() < deadline, "no status page");
        std::thread::sleep(Duration::from_millis(20));
    }
    // A client that sends a header line a second, for a minute.
    let slow = std::thread::spawn(move || {
        let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else {
            return;
        };
        let _ = s.write_all(b"GET /status.json HTTP/1.1\r\n");
        for i in 0..60 {
            std::thread::sleep(Duration::from_secs(1));
            if s.write_all(format!("X-Slow-{i}: 1\r\n").as_bytes())
                .is_err()
            {
                return;
            }
        }
    });
    let idle: Vec<TcpStream> = (0..100)
        .filter_map(|_| TcpStream::connect(("127.0.0.1", port)).ok())
        .collect();
    assert_eq!(idle.len(), 100);
    std::thread::sleep(Duration::from_millis(200));
    let t = Instant::now();
    let (code, _) = get(port, "/status.json").expect("/status.json answers");
    assert_eq!(code, 200);
    assert!(t.elapsed() <= Duration::from_secs(2), "{:?}", t.elapsed());
    // A 300 MB file under results/ is streamed: the crawler's peak grows by a buffer.
    let results = dir.path().join("results");
    let big = std::fs::File::create(results.join("big.csv")).unwrap();
    big.set_len(300 << 20).unwrap();
    let before = peak_kb(child.id());
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.write_all(b"GET /results/big.csv HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut got = 0u64;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got += n as u64,
        }
    }
    assert!(got > 300 << 20, "{got} bytes");
    let after = peak_kb(child.id());
    assert!(
        after < before + 50 * 1024,
        "peak {before} kB → {after} kB serving a 300 MB file"
    );
    // The archive (every request with its cookies) is not served, being written or not.
    let archived: Vec<String> = std::fs::read_dir(results.join("archive"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(!archived.is_empty());
    for name in archived {
        let (code, _) = get(port, &format!("/results/archive/{name}")).unwrap();
        assert_eq!(code, 403, "{name}");
    }
    // The crawl's exit: within 3 s of its work's end, whatever the clients do. Its work ends
    // when summary.csv has its row; then the process exits.
    let deadline = Instant::now() + Duration::from_secs(60);
    let written = loop {
        let summary = std::fs::read_to_string(results.join("summary.csv")).unwrap_or_default();
        if summary.lines().count() >= 2 {
            break Instant::now();
        }
        assert!(Instant::now() < deadline, "the crawl did not finish");
        std::thread::sleep(Duration::from_millis(20));
    };
    let status = common::wait_exit(&mut child, Duration::from_secs(30), String::new);
    assert!(status.success());
    assert!(
        written.elapsed() <= Duration::from_secs(3),
        "exited {:?} after summary.csv",
        written.elapsed()
    );
    drop(idle);
    let _ = slow.join();
}

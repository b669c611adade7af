//! Helpers shared by the integration tests (each test file uses a subset, hence the allow):
//! an in-process test web on 127.0.0.1 with several host names, a crawl runner that writes a
//! real settings.ini and hosts.txt into a temporary folder, and readers for the result files.
#![allow(dead_code, unreachable_pub, clippy::unwrap_used)]

pub mod chromium;
pub mod conformance;
pub mod cookie_sites;
pub mod docs;
pub mod dynweb;
pub mod measures;
pub mod networkx;
pub mod pg;
pub mod routine;
pub mod script_web;
pub mod tls;
pub mod warcio;
pub mod webgen;
pub mod yield_web;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rccrawler::Registry;
use rccrawler::Settings;
use rccrawler::base::loopback::{Resp, Route, Server};
use rccrawler::crawl::app::{AppError, RunReport};

/// Host names every test web answers for (all mapped to 127.0.0.1 through `Resolve`).
pub const HOSTS: &[&str] = &[
    "a.test",
    "sub.a.test",
    "www.a.test",
    "b.test",
    "c.test",
    "d.test",
    "e.test",
    "old.test",
    "new.test",
    // Multi-host scopes (tests/scopes.rs).
    "www.uni.test",
    "uni.test",
    "lib.uni.test",
    "cs.uni.test",
    "blocked.uni.test",
    "www.other.test",
    "www.partner.test",
    "uni-press.test",
    "www.spbu.spb.ru",
    "lib.spbu.spb.ru",
    "www.itmo.spb.ru",
    "news.bbc.co.uk",
    "www.bbc.co.uk",
    "www.co.uk",
    "sports.example.test",
    "news.example.test",
    "shop.example.test",
    // Sites shared by several processes (tests/pg.rs).
    "s01.test",
    "s02.test",
    "s03.test",
    "s04.test",
    "s05.test",
    "s06.test",
    "s07.test",
    "s08.test",
    "s09.test",
    "s10.test",
    "s11.test",
    "s12.test",
];

/// A web served by the test process.
pub struct TestWeb {
    pub server: Server,
}

impl TestWeb {
    pub fn new() -> Self {
        TestWeb {
            server: Server::start().expect("a loopback port"),
        }
    }

    /// A web served over HTTPS with `config`'s certificate (see [`tls::Pki`]).
    pub fn https(config: std::sync::Arc<rustls::ServerConfig>) -> Self {
        TestWeb {
            server: Server::start_tls(config).expect("a loopback port"),
        }
    }

    /// `https://host:port` of this web (when it speaks HTTPS).
    pub fn https_origin(&self, host: &str) -> String {
        format!("https://{host}:{}", self.port())
    }

    pub fn port(&self) -> u16 {
        self.server.port()
    }

    /// `http://host:port` of this web.
    pub fn origin(&self, host: &str) -> String {
        format!("http://{host}:{}", self.port())
    }

    /// An HTML page.
    pub fn page(&self, host: &str, target: &str, html: &str) {
        self.server
            .set(host, target, Resp::html(html.as_bytes().to_vec()));
    }

    pub fn set(&self, host: &str, target: &str, resp: Resp) {
        self.server.set(host, target, resp);
    }

    pub fn route(&self, host: &str, target: &str, route: Route) {
        self.server.route(host, target, route);
    }

    pub fn robots(&self, host: &str, body: &str) {
        self.server
            .set(host, "/robots.txt", Resp::new(200, "text/plain", body));
    }

    pub fn hits(&self, host: &str, target: &str) -> usize {
        self.server.hits(host, target)
    }
}

/// A finished crawl and its folder.
pub struct Crawled {
    pub dir: tempfile::TempDir,
    pub report: RunReport,
}

/// Settings text for a test crawl: every host resolved to 127.0.0.1, a timeout so a hang
/// fails the test, no delay between requests unless a test asks for one (the shipped default
/// is polite to real servers: a second), then `extra` keys (which win; each key is written
/// once, as settings.ini wants).
pub fn settings_text(extra: &[(&str, &str)]) -> String {
    let resolve: Vec<String> = HOSTS.iter().map(|h| format!("{h}:127.0.0.1")).collect();
    let resolve = resolve.join(",");
    let mut keys: Vec<(&str, &str)> = vec![
        ("Resolve", &resolve),
        ("TimeoutSeconds", "60"),
        ("RequestTimeoutSeconds", "10"),
        ("ConnectTimeoutSeconds", "5"),
        ("ProgressSeconds", "3600"),
        ("RetryBaseDelayMs", "20"),
        ("DefaultCrawlDelay", "0"),
    ];
    for &(k, v) in extra {
        match keys.iter_mut().find(|(key, _)| *key == k) {
            Some(slot) => slot.1 = v,
            None => keys.push((k, v)),
        }
    }
    keys.iter().map(|(k, v)| format!("{k} = {v}\n")).collect()
}

/// Waits for a crawler process to exit; past `limit` it is killed and the test fails with
/// `describe()` (its output, say).
pub fn wait_exit(
    child: &mut std::process::Child,
    limit: std::time::Duration,
    describe: impl Fn() -> String,
) -> std::process::ExitStatus {
    let until = std::time::Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("the child's status") {
            return status;
        }
        if std::time::Instant::now() > until {
            let _ = child.kill();
            panic!("the crawler did not exit within {limit:?}: {}", describe());
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Writes settings.ini and hosts.txt into a new temporary folder.
pub fn prepare(hosts: &[String], extra: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::write(dir.path().join("settings.ini"), settings_text(extra)).expect("settings.ini");
    std::fs::write(dir.path().join("hosts.txt"), hosts.join("\n")).expect("hosts.txt");
    dir
}

/// Runs a crawl in-process with the components of `registry`.
pub fn try_run_with(registry: &Registry, dir: &Path) -> Result<RunReport, AppError> {
    let (settings, warnings) = Settings::load(&dir.join("settings.ini")).expect("valid settings");
    assert!(warnings.iter().all(|w| w.is_note()), "{warnings:?}");
    let sites = rccrawler::load_hosts(&dir.join("hosts.txt"), settings.sites.defaults)
        .expect("valid hosts");
    registry.run(&settings, &sites, crossbeam_channel::never())
}

/// Runs a crawl in-process and returns its report.
pub fn run_in(dir: &Path) -> RunReport {
    try_run_with(&Registry::builtin(), dir).expect("the crawl runs")
}

/// Prepares and runs a crawl.
pub fn crawl(hosts: &[String], extra: &[(&str, &str)]) -> Crawled {
    let dir = prepare(hosts, extra);
    let report = run_in(dir.path());
    Crawled { dir, report }
}

impl Crawled {
    pub fn results(&self) -> PathBuf {
        self.dir.path().join("results")
    }

    /// Reads one site folder.
    pub fn site(&self, folder: &str) -> SiteFiles {
        SiteFiles::read(&self.results().join(folder))
    }
}

/// The result files of one site, as (name, bytes), for byte-for-byte comparisons.
pub type ResultBytes = Vec<(String, Vec<u8>)>;

/// A site's folder in `results` (`HOST_PORT`: the test web's sites have a port).
pub fn site_folder(results: &Path, host: &str) -> PathBuf {
    std::fs::read_dir(results)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(&format!("{host}_")))
        })
        .unwrap_or_else(|| panic!("no folder for {host} in {}", results.display()))
}

/// Reads every result file of one site folder (panics naming a missing one).
pub fn result_bytes(dir: &Path) -> ResultBytes {
    [
        "nodes.csv",
        "edges.csv",
        "external_links.csv",
        "bad_links.csv",
        "duplicates.csv",
        "graph.gexf",
    ]
    .iter()
    .map(|f| {
        let path = dir.join(f);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        (f.to_string(), bytes)
    })
    .collect()
}

/// Reads a results CSV: header row, then rows of fields (the Gephi escaping of nodes.csv and
/// edges.csv undone).
pub fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_path(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header = rdr
        .headers()
        .expect("a header")
        .iter()
        .map(str::to_owned)
        .collect();
    // nodes.csv and edges.csv are written for Gephi (a backslash doubled); the other files
    // are plain RFC 4180.
    let gephi = path
        .file_name()
        .is_some_and(|n| n == "nodes.csv" || n == "edges.csv");
    let rows = rdr
        .records()
        .map(|r| {
            r.expect("a row")
                .iter()
                .map(|f| {
                    if gephi {
                        f.replace("\\\\", "\\")
                    } else {
                        f.to_owned()
                    }
                })
                .collect()
        })
        .collect();
    (header, rows)
}

/// The result files of one site, as plain values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteFiles {
    /// (id, label, level)
    pub nodes: Vec<(u32, String, u32)>,
    /// (source, target, weight)
    pub edges: Vec<(u32, u32, u32)>,
    /// (source, url, host, anchor)
    pub external: Vec<(u32, String, String, String)>,
    /// (source or 0, url, reason)
    pub bad: Vec<(u32, String, String)>,
    /// (url, id, reason)
    pub duplicates: Vec<(String, u32, String)>,
}

fn num(s: &str) -> u32 {
    if s.is_empty() {
        0
    } else {
        s.parse().unwrap_or_else(|_| panic!("not a number: {s:?}"))
    }
}

impl SiteFiles {
    pub fn read(dir: &Path) -> Self {
        let (h, nodes) = read_csv(&dir.join("nodes.csv"));
        assert_eq!(&h[..3], ["Id", "Label", "Level"]);
        let (h, edges) = read_csv(&dir.join("edges.csv"));
        // `ScriptOnly` follows when pages may be rendered (Render = auto or all).
        assert_eq!(&h[..5], ["Source", "Target", "Type", "Weight", "Nofollow"]);
        let (h, external) = read_csv(&dir.join("external_links.csv"));
        assert_eq!(&h[..4], ["Source", "Url", "Host", "Anchor"]);
        let rel = h.iter().position(|c| c == "Rel");
        assert!(
            rel.is_some_and(|r| r + 1 == h.len() || h[r + 1] == "ScriptOnly"),
            "{h:?}"
        );
        let (h, bad) = read_csv(&dir.join("bad_links.csv"));
        assert_eq!(h, ["Source", "Url", "Reason"]);
        let dup_path = dir.join("duplicates.csv");
        let duplicates = if dup_path.exists() {
            read_csv(&dup_path).1
        } else {
            Vec::new()
        };
        SiteFiles {
            nodes: nodes
                .iter()
                .map(|r| (num(&r[0]), r[1].clone(), num(&r[2])))
                .collect(),
            edges: edges
                .iter()
                .map(|r| {
                    assert_eq!(r[2], "Directed");
                    (num(&r[0]), num(&r[1]), num(&r[3]))
                })
                .collect(),
            external: external
                .iter()
                .map(|r| (num(&r[0]), r[1].clone(), r[2].clone(), r[3].clone()))
                .collect(),
            bad: bad
                .iter()
                .map(|r| (num(&r[0]), r[1].clone(), r[2].clone()))
                .collect(),
            duplicates: duplicates
                .iter()
                .map(|r| (r[0].clone(), num(&r[1]), r[2].clone()))
                .collect(),
        }
    }

    /// Labels by id.
    pub fn labels(&self) -> BTreeMap<u32, String> {
        self.nodes
            .iter()
            .map(|(id, l, _)| (*id, l.clone()))
            .collect()
    }

    /// Edges as (source label, target label, weight), sorted.
    pub fn edge_labels(&self) -> Vec<(String, String, u32)> {
        let l = self.labels();
        let mut v: Vec<_> = self
            .edges
            .iter()
            .map(|(s, t, w)| (l[s].clone(), l[t].clone(), *w))
            .collect();
        v.sort();
        v
    }

    /// Checks every level against a breadth-first search over edges.csv (with petgraph).
    pub fn assert_levels_are_bfs_depths(&self) {
        use petgraph::graph::{DiGraph, NodeIndex};
        let mut g = DiGraph::<u32, ()>::new();
        let idx: BTreeMap<u32, NodeIndex> = self
            .nodes
            .iter()
            .map(|(id, _, _)| (*id, g.add_node(*id)))
            .collect();
        for (s, t, _) in &self.edges {
            g.add_edge(idx[s], idx[t], ());
        }
        // Every seed's home page is level 0: depths count from all of them.
        let source = g.add_node(0);
        for (id, _, level) in &self.nodes {
            if *level == 0 {
                g.add_edge(source, idx[id], ());
            }
        }
        let dist = petgraph::algo::dijkstra(&g, source, None, |_| 1u32);
        for (id, label, level) in &self.nodes {
            assert_eq!(
                dist.get(&idx[id]).map(|d| d - 1),
                Some(*level),
                "level of {label}"
            );
        }
    }
}

/// Runs the rccrawler binary in `dir` with `args` to its end.
pub fn run_binary(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_rccrawler"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

/// Sends signal `name` (`INT`, `TERM`, …) to a child process.
pub fn signal(child: &std::process::Child, name: &str) {
    let ok = std::process::Command::new("kill")
        .args([format!("-{name}"), child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(ok.success(), "kill -{name} failed");
}

/// The binary started in `dir` in a process group of its own, as a shell runs a command in
/// the terminal's: what Ctrl+C reaches is then the crawl and whatever it did not move out of
/// its group (a browser, a PDF reader).
pub fn spawn_in_own_group(dir: &Path) -> std::process::Child {
    use std::os::unix::process::CommandExt;
    std::process::Command::new(env!("CARGO_BIN_EXE_rccrawler"))
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .expect("the binary starts")
}

/// Ctrl+C at the terminal: SIGINT to the whole process group `child` leads (started by
/// [`spawn_in_own_group`]).
pub fn ctrl_c_group(child: &std::process::Child) {
    let ok = std::process::Command::new("kill")
        .args(["-INT", "--", &format!("-{}", child.id())])
        .status()
        .expect("kill runs");
    assert!(ok.success(), "kill -INT to the group failed");
}

/// A loopback port nothing listens on now (for a status page, or a connection refused).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// GET `path` from a page served on 127.0.0.1:`port` (the status page): (status, body), or
/// `None` while nothing answers.
pub fn http_get(port: u16, path: &str) -> Option<(u16, String)> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(std::time::Duration::from_secs(5)))
        .build()
        .into();
    let mut r = agent
        .get(format!("http://127.0.0.1:{port}{path}"))
        .call()
        .ok()?;
    let status = r.status().as_u16();
    Some((status, r.body_mut().read_to_string().unwrap_or_default()))
}

/// `file` validates against the GEXF 1.3 schema (tests/data/gexf-1.3) with xmllint (in CI a
/// missing xmllint fails the test).
pub fn xmllint_validates(file: &Path) {
    let xsd = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/gexf-1.3/gexf.xsd");
    let out = std::process::Command::new("xmllint")
        .args(["--noout", "--schema"])
        .arg(&xsd)
        .arg(file)
        .output();
    match out {
        Ok(o) => assert!(
            o.status.success(),
            "{} does not validate against GEXF 1.3: {}",
            file.display(),
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI: xmllint is missing (.ci/run installs Debian's libxml2-utils): {e}"
            );
            eprintln!("no xmllint here: the GEXF schema check is left out");
        }
    }
}

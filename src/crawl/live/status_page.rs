//! The live status page (SPEC §12, `StatusAddress`): while the crawl runs, a read-only page
//! with the crawl's totals, every open site's pages and queue, and the sites already finished
//! with links to their result files; the same as JSON at `/status.json` for scripts.
//!
//! It never changes the crawl: the engine publishes a snapshot twice a second, and the
//! server only reads that snapshot, `summary.csv` and files under `ResultFolder`. A path that
//! would leave that folder (`..`, an encoded character, a link pointing outside) is refused,
//! and so are the archive and the state (every request with its cookies), names starting with
//! `.` and files being written. Each connection on a thread of its own, with a deadline for its
//! request ([`super::serve`]), `Connection: close`: a page for a person and a script, not a
//! web server.
//!
//! `rccrawler status --serve` serves the same page for a PgDM crawl from its database
//! ([`database_snapshot`]): every process's sites, whichever machine runs them.

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;
use serde_json::{Value, json};

use super::CrawlView;
use super::serve::Request;
use super::tally::{OpenedScopes, Tally};
use crate::analysis::report::read_summary;
use crate::crawl::data::pg::{ScopeState, ScopeStatus};

/// The page a person opens: it fetches `/status.json` every two seconds.
const INDEX_HTML: &str = include_str!("status_page.html");

/// The files of the whole results folder the page links when they exist.
const RESULT_LINKS: [&str; 4] = [
    "report.html",
    "network/nodes.csv",
    "network/edges.csv",
    "network/graph.gexf",
];

/// What `/status.json` is read from at each request.
type Source = Box<dyn Fn() -> Value + Send + Sync>;

/// The server's side of the status page.
pub struct StatusPage {
    listener: TcpListener,
    addr: SocketAddr,
    /// `ResultFolder`.
    results: PathBuf,
    /// The running crawl's totals and its open sites, as last published.
    snapshot: Mutex<(Value, Arc<[OpenSite]>)>,
    /// Where `/status.json` comes from when it is read at each request (a database) rather
    /// than published by a crawl.
    source: Option<Source>,
    stop: AtomicBool,
    /// Folders under `results` not served (see [`Self::hiding`]).
    hidden: Vec<PathBuf>,
}

impl std::fmt::Debug for StatusPage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StatusPage")
            .field("addr", &self.addr)
            .field("results", &self.results)
            .finish_non_exhaustive()
    }
}

impl StatusPage {
    /// Listens on `addr` for a crawl writing into `results`.
    pub fn bind(addr: SocketAddr, results: &Path) -> io::Result<Self> {
        let listener = TcpListener::bind(addr)?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        Ok(StatusPage {
            listener,
            addr,
            results: results.to_path_buf(),
            snapshot: Mutex::new((json!({}), Arc::from([]))),
            source: None,
            stop: AtomicBool::new(false),
            hidden: Vec::new(),
        })
    }

    /// Reads `/status.json`'s content with `read` at each request instead of serving what
    /// [`Self::publish`] left (`rccrawler status --serve`: the database is read when asked).
    pub fn read_with(mut self, read: impl Fn() -> Value + Send + Sync + 'static) -> Self {
        self.source = Some(Box::new(read));
        self
    }

    /// Its URL, for the console.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Replaces what `/status.json` says about the running crawl.
    pub fn publish(&self, snapshot: Value) {
        *self.snapshot.lock() = (snapshot, Arc::from([]));
    }

    /// Replaces what `/status.json` says about the running crawl: its totals, and its open
    /// sites, made JSON when the page is asked for.
    pub(crate) fn publish_snapshot(&self, snapshot: Snapshot) {
        *self.snapshot.lock() = (snapshot.totals, Arc::from(snapshot.open));
    }

    /// Answers requests until [`Self::stop`], each connection on a thread of its own
    /// ([`super::serve`]); returns once every connection is closed.
    pub fn serve(&self) {
        super::serve::serve(&self.listener, &self.stop, &|request, out| {
            self.answer(request, out)
        });
    }

    /// Ends [`Self::serve`]: open connections are closed.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Leaves `folder` (and what is under it) out of what the page serves, where it is under
    /// `ResultFolder`: the archive (every request with its cookies), the state.
    pub fn hiding(mut self, folder: &Path) -> Self {
        self.hidden.push(folder.to_path_buf());
        self
    }

    /// [`Self::hiding`] what a crawl with `settings` keeps private under `ResultFolder`: its
    /// archive (every request with its cookies) and, when they are there, its state and logs.
    pub fn hiding_private(self, settings: &crate::crawl::settings::Settings) -> Self {
        self.hiding(
            &settings
                .results
                .folder
                .join(crate::formats::warc::ARCHIVE_FOLDER),
        )
        .hiding(&settings.state.folder)
        .hiding(&settings.logs.common_log)
        .hiding(&settings.logs.error_log)
    }

    fn answer(&self, request: &Request, out: &mut TcpStream) -> io::Result<()> {
        let (method, target) = (request.method.as_str(), request.target.as_str());
        let head = method == "HEAD";
        if method != "GET" && !head {
            return respond(out, 405, "text/plain", b"only GET\n", head);
        }
        let path = target.split(['?', '#']).next().unwrap_or("");
        match path {
            "/" | "/index.html" => respond(
                out,
                200,
                "text/html; charset=utf-8",
                INDEX_HTML.as_bytes(),
                head,
            ),
            "/status.json" => {
                let text = serde_json::to_vec_pretty(&self.status()).unwrap_or_default();
                respond(out, 200, "application/json", &text, head)
            }
            _ => match path.strip_prefix("/results/").map(|rel| self.file(rel)) {
                Some(Ok((file, len))) => {
                    respond_head(out, 200, content_type(path), len)?;
                    if !head {
                        // Streamed: a 500 MB file costs a buffer, not its size.
                        io::copy(&mut BufReader::with_capacity(1 << 16, file).take(len), out)?;
                    }
                    out.flush()
                }
                Some(Err(Refused)) => respond(out, 403, "text/plain", b"refused\n", head),
                None => respond(out, 404, "text/plain", b"not found\n", head),
            },
        }
    }

    /// What `/status.json` says now.
    fn status(&self) -> Value {
        let (mut body, open) = match &self.source {
            Some(read) => (read(), Arc::from([])),
            None => {
                let published = self.snapshot.lock();
                (published.0.clone(), Arc::clone(&published.1))
            }
        };
        let finished = finished_sites(&self.results);
        let done: HashSet<&str> = finished.iter().filter_map(|f| f["site"].as_str()).collect();
        // The snapshot is up to half a second old: a site finished since is listed as
        // finished only.
        if !open.is_empty() {
            body["sites"] = open
                .iter()
                .filter(|s| !done.contains(s.site.as_str()))
                .map(OpenSite::json)
                .collect();
        } else if let Some(sites) = body["sites"].as_array_mut() {
            sites.retain(|s| !s["site"].as_str().is_some_and(|n| done.contains(n)));
        }
        let mut finished = finished;
        // Sites finished by processes elsewhere (PgDM): listed without files.
        if let Some(Value::Array(more)) = body.get_mut("finished_elsewhere").map(Value::take) {
            for site in more {
                if !finished.iter().any(|f| f["site"] == site["site"]) {
                    finished.push(site);
                }
            }
        }
        if let Some(map) = body.as_object_mut() {
            map.remove("finished_elsewhere");
        }
        // The header's totals are the tables' own (issue 68): the snapshot's counts could say
        // "0 written" beside a site listed as finished.
        let count = |key: &str| body[key].as_u64().unwrap_or(0);
        let total = count("sites_crawling") + count("sites_written") + count("sites_waiting");
        let crawling = body["sites"].as_array().map_or(0, Vec::len) as u64;
        let written = finished.len() as u64;
        body["sites_crawling"] = crawling.into();
        body["sites_written"] = written.into();
        body["sites_waiting"] = total.saturating_sub(crawling + written).into();
        body["finished"] = Value::Array(finished);
        // The report and the network's files, once written (issue 68: found by guessing).
        let links: Vec<Value> = RESULT_LINKS
            .iter()
            .filter(|rel| self.file(rel).is_ok())
            .map(|rel| json!({"name": rel, "href": format!("/results/{rel}")}))
            .collect();
        body["links"] = Value::Array(links);
        body
    }

    /// A result file under `ResultFolder` and its length, or `Refused`: outside it, missing,
    /// not a file, hidden (a name starting with `.`, a file being written, a folder
    /// [`Self::hiding`] names).
    fn file(&self, rel: &str) -> Result<(File, u64), Refused> {
        let clean = !rel.is_empty()
            && !rel.contains(['%', '\\', '\0'])
            && rel.split('/').all(|s| !s.is_empty() && !s.starts_with('.'))
            && !rel.ends_with(".open")
            && !rel.ends_with(".tmp");
        if !clean {
            return Err(Refused);
        }
        // Links resolved: a link inside the folder that points outside it is refused too.
        let root = self.results.canonicalize().map_err(|_| Refused)?;
        let path = root.join(rel).canonicalize().map_err(|_| Refused)?;
        let hidden = self
            .hidden
            .iter()
            .filter_map(|h| h.canonicalize().ok())
            .any(|h| path.starts_with(h));
        if !path.starts_with(&root) || hidden || !path.is_file() {
            return Err(Refused);
        }
        let file = File::open(path).map_err(|_| Refused)?;
        let len = file.metadata().map_err(|_| Refused)?.len();
        Ok((file, len))
    }
}

/// The file in `ResultFolder` that holds the running crawl's page address while it runs
/// (`rccrawler status` reads it; a crawl killed with -9 leaves it, and its address no longer
/// answers).
pub const LIVE_MARKER: &str = ".rccrawler-live";

/// An open site as the page lists it, kept as its figures between requests: a JSON object
/// each for the 4,000 open sites of a budgeted crawl, rebuilt twice a second, was 8.5 MB (a
/// ninth of that crawl's heap at its peak).
#[derive(Debug, Clone)]
pub(crate) struct OpenSite {
    site: String,
    pages: u64,
    queued: usize,
    time_left: Option<f64>,
}

impl OpenSite {
    fn json(&self) -> Value {
        json!({
            "site": self.site,
            "shown": crate::base::words::shown_origin(&self.site),
            "pages": self.pages,
            "queued": self.queued,
            "time_left_seconds": self.time_left.map(f64::round),
        })
    }
}

/// What the running crawl publishes to its page: totals, and every open site.
#[derive(Debug)]
pub(crate) struct Snapshot {
    pub(crate) totals: Value,
    pub(crate) open: Vec<OpenSite>,
}

/// What the running crawl looks like now: totals, and each open site's pages and queue
/// (`finished` is added from summary.csv when the page is asked for).
pub(crate) fn snapshot(crawl: &dyn CrawlView, scopes: &mut OpenedScopes) -> Snapshot {
    let elapsed = crawl.started().elapsed().as_secs_f64();
    let tally = scopes.tally(crawl);
    let counts = crawl.scope_counts();
    let time_left = tally.time_left();
    let Tally {
        pages,
        new_pages,
        open,
        ..
    } = tally;
    let seconds = |t: Option<f64>| t.map(f64::round);
    let sites: Vec<OpenSite> = open
        .iter()
        .map(|s| OpenSite {
            site: s.name.to_owned(),
            pages: s.pages,
            queued: s.queued,
            time_left: s.time_left,
        })
        .collect();
    let totals = json!({
        // The work done ends the crawl as a stop does: the page says which.
        "state": match crawl.stop().reason() {
            None => "crawling",
            Some(r) if r.is_complete() => "finishing",
            Some(_) => "stopping",
        },
        "elapsed_seconds": (elapsed * 10.0).round() / 10.0,
        "pages": pages,
        "queued": crawl.queued(),
        // This run's pages over this run's time: a continued crawl's saved pages were not
        // fetched in it.
        "pages_per_second": if elapsed > 0.0 { (new_pages as f64 / elapsed).round() } else { 0.0 },
        "problems": crawl.problems(),
        "time_left_seconds": seconds(time_left),
        "sites_crawling": counts.map_or(open.len(), |n| n.live),
        "sites_written": counts.map_or(0, |n| n.written),
        "sites_waiting": counts.map_or(0, |n| n.waiting),
        "sites": [],
        "network": crawl.network().map(|t| {
            json!({
                "targets": t.targets,
                "targets_counted": t.counted,
                "accompanying": t.accompanying,
                "arcs": t.arcs,
            })
        }),
    });
    Snapshot {
        totals,
        open: sites,
    }
}

/// What a PgDM crawl looks like in its database: every scope not done with its pages, queue
/// and owner, the done ones (as `finished_elsewhere`: the page lists them among the finished
/// sites, with links when their files are in this machine's `ResultFolder`), and the totals.
/// `rate` is the pages per second since the last look.
pub fn database_snapshot(scopes: &[ScopeStatus], rate: f64) -> Value {
    let done = |s: &&ScopeStatus| s.state == ScopeState::Done;
    let pages: i64 = scopes.iter().map(|s| s.pages).sum();
    let queued: i64 = scopes.iter().map(|s| s.pending).sum();
    let crawling = scopes
        .iter()
        .filter(|s| !done(s) && s.owner.is_some())
        .count();
    let written = scopes.iter().filter(done).count();
    let sites: Vec<Value> = scopes
        .iter()
        .filter(|s| !done(s))
        .map(|s| {
            json!({
                "site": s.origin,
                "shown": crate::base::words::shown_origin(&s.origin),
                "pages": s.pages,
                "queued": s.pending,
                "state": s.shown_state(),
                "owner": s.owner,
            })
        })
        .collect();
    let finished: Vec<Value> = scopes
        .iter()
        .filter(done)
        .map(|s| json!({"site": s.origin, "shown": crate::base::words::shown_origin(&s.origin), "state": "done", "pages": s.pages, "files": []}))
        .collect();
    json!({
        "state": if written == scopes.len() { "finished" } else { "crawling" },
        "pages": pages,
        "queued": queued,
        "pages_per_second": rate.round(),
        "sites_crawling": crawling,
        "sites_written": written,
        "sites_waiting": scopes.len() - written - crawling,
        "sites": sites,
        "finished_elsewhere": finished,
    })
}

/// A path the page does not serve.
#[derive(Debug)]
struct Refused;

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("csv") => "text/csv; charset=utf-8",
        Some("gexf") => "application/xml",
        Some("html") => "text/html; charset=utf-8",
        _ => "text/plain; charset=utf-8",
    }
}

fn respond(
    out: &mut TcpStream,
    status: u16,
    kind: &str,
    body: &[u8],
    head: bool,
) -> io::Result<()> {
    respond_head(out, status, kind, body.len() as u64)?;
    if !head {
        out.write_all(body)?;
    }
    out.flush()
}

fn respond_head(out: &mut TcpStream, status: u16, kind: &str, len: u64) -> io::Result<()> {
    let reason = match status {
        200 => "OK",
        403 => "Forbidden",
        404 => "Not Found",
        _ => "Method Not Allowed",
    };
    write!(
        out,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {kind}\r\nContent-Length: {len}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
    )
}

/// The sites finished so far: summary.csv's rows (rewritten as sites finish), each with the
/// links to its result files.
fn finished_sites(results: &Path) -> Vec<Value> {
    // Not there yet, or being replaced: no site finished to show this time.
    let Ok(rows) = read_summary(&results.join("summary.csv")) else {
        return Vec::new();
    };
    rows.into_iter()
        .map(|r| {
            let files: Vec<String> = ["nodes.csv", "edges.csv", "graph.gexf", "external_links.csv"]
                .iter()
                .filter(|f| results.join(&r.folder).join(f).is_file())
                .map(|f| format!("/results/{}/{f}", r.folder))
                .collect();
            json!({
                "site": r.site,
                "shown": crate::base::words::shown_origin(&r.site),
                "state": r.shown_state(),
                "pages": r.pages,
                "arcs": r.arcs,
                "external_links": r.external_links,
                "files": files,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::ids::{ScopeId, SiteId};
    use crate::base::stop::{Stop, StopReason};
    use crate::crawl::data::Progress;
    use crate::crawl::finish::Tick;
    use crate::crawl::live::{NetworkTotals, ScopeCounts};
    use crate::crawl::settings::{RawSettings, Settings};
    use crate::model::site::Origin;

    /// A crawl of `scopes` open scopes (scope `i` with `i + 1` URLs queued), stopped or not.
    struct Still {
        settings: Settings,
        stop: Stop,
        started: std::time::Instant,
        scopes: usize,
    }

    impl CrawlView for Still {
        fn settings(&self) -> &Settings {
            &self.settings
        }
        fn started(&self) -> std::time::Instant {
            self.started
        }
        fn stop(&self) -> &Stop {
            &self.stop
        }
        fn tick(&self) -> Tick {
            Tick {
                now: std::time::Instant::now(),
                pending: 0,
                robots_pending: 0,
                budget: None,
            }
        }
        fn origin(&self, _site: SiteId) -> Origin {
            unreachable!("no site")
        }
        fn queued(&self) -> usize {
            0
        }
        fn scope_count(&self) -> usize {
            self.scopes
        }
        fn scope_progress(&self, scope: ScopeId) -> Progress {
            Progress {
                pages: 1,
                pending: scope.0 as usize + 1,
                ..Progress::default()
            }
        }
        fn is_retired(&self, _scope: ScopeId) -> bool {
            false
        }
        fn retired_pages(&self, _scope: ScopeId) -> Option<u64> {
            None
        }
        fn scope_counts(&self) -> Option<ScopeCounts> {
            None
        }
        fn downloaders(&self) -> usize {
            0
        }
        fn waiting(&self) -> (usize, usize) {
            (0, 0)
        }
        fn network(&self) -> Option<NetworkTotals> {
            None
        }
        fn problems(&self) -> u64 {
            3
        }
    }

    /// A crawl of `scopes` open scopes, not stopped.
    fn still(scopes: usize) -> Still {
        let raw = RawSettings::from_ini("", std::path::Path::new("settings.ini")).unwrap();
        Still {
            settings: Settings::from_raw(&raw, std::path::Path::new("/base"))
                .unwrap()
                .0,
            stop: Stop::new(),
            started: std::time::Instant::now(),
            scopes,
        }
    }

    // See: issue 69 item 2 — a budgeted crawl keeps every site open: the snapshot keeps each
    // open site's figures, and the page makes them JSON when asked, every one in its order.
    #[test]
    fn every_open_site_is_listed_from_the_figures_the_snapshot_keeps() {
        let n = 250;
        let c = still(n);
        let names: Vec<(ScopeId, String)> = (0..n)
            .map(|i| (ScopeId(i as u32), format!("http://s{i}.test")))
            .collect();
        let snap = snapshot(&c, &mut OpenedScopes::new(&c, &names));
        assert_eq!(snap.open.len(), n);
        assert_eq!(
            snap.totals["sites"],
            json!([]),
            "no JSON row is kept per site"
        );
        assert_eq!(snap.totals["sites_crawling"], n);
        let dir = tempfile::tempdir().unwrap();
        let page = StatusPage::bind("127.0.0.1:0".parse().unwrap(), dir.path()).unwrap();
        page.publish_snapshot(snap);
        let served = page.status();
        let listed: Vec<(&str, u64)> = served["sites"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (s["site"].as_str().unwrap(), s["queued"].as_u64().unwrap()))
            .collect();
        let expected: Vec<(String, u64)> = (0..n)
            .map(|i| (format!("http://s{i}.test"), i as u64 + 1))
            .collect();
        let expected: Vec<(&str, u64)> = expected.iter().map(|(s, q)| (s.as_str(), *q)).collect();
        assert_eq!(listed, expected);
        // Its header's totals are its tables'.
        assert_eq!(served["sites_crawling"], n, "{served:#}");
        assert_eq!(served["sites"][0]["shown"], "http://s0.test", "{served:#}");
    }

    #[test]
    fn the_state_says_whether_the_crawl_runs_stops_or_finishes() {
        let still = || still(0);
        let state = |c: &Still| snapshot(c, &mut OpenedScopes::default()).totals["state"].clone();
        let c = still();
        assert_eq!(state(&c), "crawling");
        assert_eq!(
            snapshot(&c, &mut OpenedScopes::default()).totals["problems"],
            3
        );
        c.stop.request(StopReason::StopFile);
        assert_eq!(state(&c), "stopping");
        let c = still();
        c.stop.request(StopReason::WorkDone);
        assert_eq!(state(&c), "finishing");
    }

    // See: issue 63 item 1 — a summary.csv whose Folder names a path lists no finished site
    // (and no file outside the results folder): the reader refuses it whole.
    #[test]
    fn a_summary_whose_folder_is_a_path_lists_nothing() {
        let base = tempfile::tempdir().unwrap();
        let results = base.path().join("results");
        std::fs::create_dir_all(results.join("a.test")).unwrap();
        std::fs::create_dir_all(base.path().join("outside")).unwrap();
        std::fs::write(base.path().join("outside/nodes.csv"), "Id\n").unwrap();
        std::fs::write(results.join("a.test/nodes.csv"), "Id\n").unwrap();
        let summary = |folder: &str| {
            std::fs::write(
                results.join("summary.csv"),
                format!("Site,Folder,Pages\nhttp://a.test,{folder},1\n"),
            )
            .unwrap();
            finished_sites(&results)
        };
        assert_eq!(summary("a.test").len(), 1);
        for bad in ["../outside", "/etc", "a/b"] {
            assert!(summary(bad).is_empty(), "{bad}");
        }
    }

    #[test]
    fn files_outside_the_result_folder_are_refused() {
        let base = tempfile::tempdir().unwrap();
        let results = base.path().join("results");
        std::fs::create_dir_all(results.join("a.test")).unwrap();
        std::fs::write(results.join("a.test/nodes.csv"), "Id\n").unwrap();
        std::fs::write(base.path().join("secret.txt"), "no").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(base.path().join("secret.txt"), results.join("link.txt"))
            .unwrap();
        // What a crawl keeps private under its results folder.
        for f in [
            "archive/x.warc.gz",
            "archive/x.warc.gz.open",
            "state/journal-0.bin",
        ] {
            let p = results.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "private").unwrap();
        }
        std::fs::write(results.join(".rccrawler-live"), "http://x/").unwrap();
        std::fs::write(results.join("summary.csv.tmp"), "half").unwrap();
        let page = StatusPage::bind("127.0.0.1:0".parse().unwrap(), &results)
            .unwrap()
            .hiding(&results.join("archive"))
            .hiding(&results.join("state"));
        let (mut file, len) = page.file("a.test/nodes.csv").unwrap();
        let mut text = String::new();
        file.read_to_string(&mut text).unwrap();
        assert_eq!((text.as_str(), len), ("Id\n", 3));
        for bad in [
            "../secret.txt",
            "a.test/../../secret.txt",
            "%2e%2e/secret.txt",
            "/etc/passwd",
            "a.test",
            "link.txt",
            "",
            "archive/x.warc.gz",
            "archive/x.warc.gz.open",
            "state/journal-0.bin",
            ".rccrawler-live",
            "summary.csv.tmp",
        ] {
            assert!(page.file(bad).is_err(), "{bad}");
        }
    }
}

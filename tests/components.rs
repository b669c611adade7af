//! The paper's components are chosen by name (SPEC §1): a program registers its own
//! `ApplicationManager`, `DownloadingThread`, `ParsingThread` and `RoutineThread` under new
//! names, and a crawl whose settings.ini names them runs them — and only then.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;
use rccrawler::base::loopback::Resp;
// The face: the component traits and what a run needs.
use rccrawler::crawl::app::{AppError, TextFileManager};
use rccrawler::crawl::fetch::{FetchEnv, HttpDownloader, PageResult, RobotsAnswer};
use rccrawler::crawl::live::CrawlView;
use rccrawler::crawl::live::status_page::LIVE_MARKER;
use rccrawler::crawl::message::{Downloaded, FetchTask, Log, PageRecord};
use rccrawler::crawl::parse::{HtmlParser, ParseEnv};
use rccrawler::crawl::routine::{ConsoleRoutine, RoutineIo};
use rccrawler::crawl::unload::UnloadError;
use rccrawler::{
    ApplicationManager, Components, Downloader, PageParser, ParseWorker, Registry, Routine,
    RunReport, Settings, SiteGraph, SiteSpec, Unloader,
};

/// How often each test double was used.
#[derive(Debug, Default)]
struct Counts {
    managed: AtomicUsize,
    robots: AtomicUsize,
    pages: AtomicUsize,
    workers: AtomicUsize,
    parsed: AtomicUsize,
    routines: AtomicUsize,
    events: AtomicUsize,
}

#[derive(Debug)]
struct CountingManager(Arc<Counts>);

impl ApplicationManager for CountingManager {
    fn run(
        &self,
        settings: &Settings,
        hosts: &[SiteSpec],
        parts: Components,
        ctrl_c: Receiver<()>,
    ) -> Result<RunReport, AppError> {
        self.0.managed.fetch_add(1, Ordering::SeqCst);
        TextFileManager.run(settings, hosts, parts, ctrl_c)
    }
}

#[derive(Debug)]
struct CountingDownloader(Arc<Counts>, HttpDownloader);

impl Downloader for CountingDownloader {
    fn fetch_robots(&self, env: &FetchEnv<'_>, task: &FetchTask, log: &Log) -> RobotsAnswer {
        self.0.robots.fetch_add(1, Ordering::SeqCst);
        self.1.fetch_robots(env, task, log)
    }
    fn fetch_page(&self, env: &FetchEnv<'_>, task: &FetchTask, log: &Log) -> PageResult {
        self.0.pages.fetch_add(1, Ordering::SeqCst);
        self.1.fetch_page(env, task, log)
    }
    fn fetch_sitemaps(
        &self,
        env: &FetchEnv<'_>,
        task: &FetchTask,
        log: &Log,
    ) -> Option<rccrawler::model::sitemap::Sitemap> {
        self.1.fetch_sitemaps(env, task, log)
    }
}

/// Parses like PT0, then marks every title: the mark must reach nodes.csv.
#[derive(Debug)]
struct MarkingParser(Arc<Counts>);

struct MarkingWorker(Arc<Counts>, Box<dyn ParseWorker>);

impl PageParser for MarkingParser {
    fn worker(&self, env: &ParseEnv<'_>) -> Box<dyn ParseWorker> {
        self.0.workers.fetch_add(1, Ordering::SeqCst);
        Box::new(MarkingWorker(Arc::clone(&self.0), HtmlParser.worker(env)))
    }
}

impl ParseWorker for MarkingWorker {
    fn parse(&mut self, env: &ParseEnv<'_>, task: &FetchTask, page: Downloaded) -> PageRecord {
        self.0.parsed.fetch_add(1, Ordering::SeqCst);
        let mut record = self.1.parse(env, task, page);
        record.title.push_str(" [marked]");
        record
    }
}

/// Counts the log events it is given, then hands them to RT0 through a channel of its own.
#[derive(Debug)]
struct CountingRoutine(Arc<Counts>);

impl Routine for CountingRoutine {
    fn run(&self, crawl: &dyn CrawlView, io: RoutineIo<'_>) {
        self.0.routines.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = crossbeam_channel::unbounded();
        let events = io.events.clone();
        let counts = Arc::clone(&self.0);
        std::thread::scope(|s| {
            s.spawn(move || {
                for ev in events.iter() {
                    counts.events.fetch_add(1, Ordering::SeqCst);
                    if tx.send(ev).is_err() {
                        break;
                    }
                }
            });
            ConsoleRoutine.run(crawl, RoutineIo { events: rx, ..io });
        });
    }
}

fn registry(counts: &Arc<Counts>) -> Registry {
    let mut r = Registry::builtin();
    let c = Arc::clone(counts);
    r.register_manager("CountingAM", move |_| {
        Box::new(CountingManager(Arc::clone(&c)))
    });
    let c = Arc::clone(counts);
    r.register_downloader("CountingDT", move |s| {
        Ok(Arc::new(CountingDownloader(
            Arc::clone(&c),
            HttpDownloader::new(s)?,
        )))
    });
    let c = Arc::clone(counts);
    r.register_parser("MarkingPT", move |_| {
        Arc::new(MarkingParser(Arc::clone(&c)))
    });
    let c = Arc::clone(counts);
    r.register_routine("CountingRT", move |_| {
        Arc::new(CountingRoutine(Arc::clone(&c)))
    });
    r.register_routine("ContractRT", |_| Arc::new(common::routine::ContractRoutine));
    r
}

/// See: issue 45 — opening scopes beyond the first window and topping up a shared budget were
/// RT0's work, so a routine written to the `Routine` contract crawled the first 16 sites and
/// then waited for its timeout. The engine does both now.
#[test]
fn a_routine_written_to_its_contract_crawls_every_scope() {
    let web = common::TestWeb::new();
    let hosts: Vec<String> = common::HOSTS[..20]
        .iter()
        .map(|h| {
            web.page(h, "/", "<title>Home</title><a href=/a>a</a>");
            web.page(h, "/a", "<title>A</title>");
            web.origin(h)
        })
        .collect();
    let dir = common::prepare(
        &hosts,
        &[("RoutineThread", "ContractRT"), ("TimeoutSeconds", "20")],
    );
    let counts = Arc::new(Counts::default());
    let report = common::try_run_with(&registry(&counts), dir.path()).unwrap();
    assert_eq!(report.reason, rccrawler::StopReason::WorkDone);
    assert_eq!(report.sites.len(), 20);
    assert!(
        report.sites.iter().all(|s| s.pages == 2),
        "every site crawled: {:?}",
        report
            .sites
            .iter()
            .map(|s| (&s.site, s.pages))
            .collect::<Vec<_>>()
    );
}

/// See: issue 45 — the status page was published by RT0's loop, so a routine written to the
/// `Routine` contract crawled with a dead page. The engine publishes it now: it answers while
/// the crawl runs (the sites, the problems the workers reported) and is closed at its end.
#[test]
fn the_status_page_is_the_engines_whatever_routine_runs() {
    let web = common::TestWeb::new();
    let links: String = (1..12).map(|i| format!("<a href=/p{i}>p{i}</a>")).collect();
    web.page("a.test", "/", &format!("<a href=/broken>broken</a>{links}"));
    for i in 1..12 {
        web.set(
            "a.test",
            &format!("/p{i}"),
            Resp::html(format!("<p>slow page {i}</p>")).delayed(Duration::from_millis(300)),
        );
    }
    // An overloaded answer is retried: each retry is a problem the workers report.
    web.set("a.test", "/broken", Resp::new(503, "text/plain", "busy"));
    let port = common::free_port();
    let address = format!("127.0.0.1:{port}");
    let dir = common::prepare(
        &[format!("{};1;100;0", web.origin("a.test"))],
        &[
            ("RoutineThread", "ContractRT"),
            ("StatusAddress", &address),
            ("MaxRetries", "1"),
            ("RetryBaseDelayMs", "100"),
            ("TimeoutSeconds", "60"),
        ],
    );
    let counts = Arc::new(Counts::default());
    let reg = registry(&counts);
    let path = dir.path().to_path_buf();
    let crawl = std::thread::spawn(move || common::try_run_with(&reg, &path));
    // While the crawl runs (about 4 s of slow pages one at a time): the page lists a.test and,
    // once the broken page was tried, counts its problem.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut last = None;
    let status = loop {
        assert!(
            Instant::now() < deadline,
            "the status page never showed a.test with a problem: {last:?}"
        );
        let got = common::http_get(port, "/status.json");
        if got.is_some() {
            last = got.clone();
        }
        if let Some((200, body)) = got {
            let s: serde_json::Value = serde_json::from_str(&body).unwrap();
            if s["problems"].as_u64().unwrap_or(0) > 0 && s["state"] == "crawling" {
                break s;
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        status["sites"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["site"].as_str().unwrap().contains("a.test")),
        "{status:#}"
    );
    assert!(
        dir.path().join("results").join(LIVE_MARKER).exists(),
        "the marker says where the page is"
    );
    let report = crawl.join().unwrap().unwrap();
    assert_eq!(report.reason, rccrawler::StopReason::WorkDone);
    assert_eq!(report.sites[0].pages, 12, "{:?}", report.sites);
    assert_eq!(
        common::http_get(port, "/status.json"),
        None,
        "closed at the end"
    );
    assert!(!dir.path().join("results").join(LIVE_MARKER).exists());
}

/// Writes a nodes.csv whose ids skip one, over the one GephiSiteGraphRU wrote.
#[derive(Debug)]
struct BrokenNodes;

impl Unloader for BrokenNodes {
    fn unload(&self, _graph: &SiteGraph<'_>, folder: &Path) -> Result<(), UnloadError> {
        let path = folder.join("nodes.csv");
        std::fs::write(&path, "Id,Label,Level\n1,\"x\",0\n3,\"y\",1\n")
            .map_err(|source| UnloadError { path, source })
    }
}

/// A failed result check (TestRU after an unloader that breaks nodes.csv) makes the run a
/// failure (exit code 1) and says what failed in test_report.txt.
#[test]
fn a_failed_result_check_fails_the_run_with_a_report() {
    let web = web();
    let dir = common::prepare(
        &[web.origin("a.test")],
        &[("ResultUnloaders", "GephiSiteGraphRU,BrokenRU,TestRU")],
    );
    let mut reg = Registry::builtin();
    reg.register_unloader("BrokenRU", |_, _| Box::new(BrokenNodes));
    let report = common::try_run_with(&reg, dir.path()).unwrap();
    assert!(report.is_failure(), "{:?}", report.problems);
    let text = std::fs::read_to_string(dir.path().join("results/test_report.txt")).unwrap();
    assert!(text.contains(" failed"), "{text}");
    assert!(!text.contains(", 0 failed"), "{text}");
}

fn web() -> common::TestWeb {
    let web = common::TestWeb::new();
    web.page(
        "a.test",
        "/",
        "<title>Home</title><a href=/a>a</a><a href=/b>b</a>",
    );
    web.page("a.test", "/a", "<title>A</title><a href=/>home</a>");
    web.page("a.test", "/b", "<title>B</title><a href=/a>a</a>");
    web
}

#[test]
fn the_engine_runs_the_components_settings_ini_names() {
    let web = web();
    let counts = Arc::new(Counts::default());
    let dir = common::prepare(
        &[web.origin("a.test")],
        &[
            ("ApplicationManager", "CountingAM"),
            ("DownloadingThread", "CountingDT"),
            ("ParsingThread", "MarkingPT"),
            ("ParsingThreadsCount", "3"),
            ("RoutineThread", "CountingRT"),
        ],
    );
    let report = common::try_run_with(&registry(&counts), dir.path()).unwrap();
    assert_eq!(report.reason, rccrawler::StopReason::WorkDone);
    let c = |a: &AtomicUsize| a.load(Ordering::SeqCst);
    assert_eq!(c(&counts.managed), 1, "the manager ran the crawl");
    assert_eq!(c(&counts.robots), 1, "robots.txt through the downloader");
    assert_eq!(c(&counts.pages), 3, "every page through the downloader");
    assert_eq!(c(&counts.workers), 3, "one parse worker per parsing thread");
    assert_eq!(c(&counts.parsed), 3, "every page through the parser");
    assert_eq!(c(&counts.routines), 1, "one routine thread");
    assert!(
        c(&counts.events) >= 4,
        "the requests' log events reached it"
    );
    let folder = format!("a.test_{}", web.port());
    let (_, nodes) = common::read_csv(&dir.path().join("results").join(folder).join("nodes.csv"));
    assert_eq!(nodes.len(), 3);
    assert!(
        nodes.iter().all(|n| n[3].ends_with(" [marked]")),
        "the parser's records are what was written: {nodes:?}"
    );
}

#[test]
fn registered_components_run_only_when_named() {
    let web = web();
    let counts = Arc::new(Counts::default());
    let dir = common::prepare(&[web.origin("a.test")], &[]);
    common::try_run_with(&registry(&counts), dir.path()).unwrap();
    let total = [
        &counts.managed,
        &counts.robots,
        &counts.pages,
        &counts.workers,
        &counts.routines,
    ]
    .iter()
    .map(|a| a.load(Ordering::SeqCst))
    .sum::<usize>();
    assert_eq!(total, 0, "the built-in components ran");
    // And a name nobody registered is refused before anything starts, listing the valid ones.
    let dir = common::prepare(&[web.origin("a.test")], &[("ParsingThread", "Nope")]);
    let err = common::try_run_with(&registry(&counts), dir.path()).unwrap_err();
    assert!(
        matches!(err, AppError::Settings(_)) && err.to_string().contains("PT0, MarkingPT"),
        "{err}"
    );
}

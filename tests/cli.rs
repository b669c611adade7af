//! The real binary: exit codes (SPEC §7), input errors that start nothing, the shipped
//! settings.ini and README naming every key, and a crawl run as a child process.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::run_binary as run;
use common::{TestWeb, settings_text};

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn nothing_started(dir: &Path) {
    assert!(!dir.join("results").exists(), "no results may be written");
    assert!(!dir.join("logs").exists(), "no logs may be written");
}

#[test]
fn bad_hosts_line_names_file_and_line_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("settings.ini"), "").unwrap();
    std::fs::write(
        dir.path().join("hosts.txt"),
        "# sites\nhttp://ok.test\nhttp://bad.test;two\n",
    )
    .unwrap();
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("hosts.txt:3: maxDownloadsAtTime must be an integer from 1 to 1000"),
        "{}",
        stderr(&o)
    );
    nothing_started(dir.path());
}

#[test]
fn unknown_component_lists_valid_names_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("settings.ini"),
        "DataManager = PostgresDM\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("hosts.txt"), "http://ok.test\n").unwrap();
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("DataManager = PostgresDM: unknown component; valid names: BMICDM"),
        "{}",
        stderr(&o)
    );
    nothing_started(dir.path());
}

#[test]
fn invalid_value_names_key_and_range_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("settings.ini"),
        "ParsingThreadsCount = lots\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("hosts.txt"), "").unwrap();
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("ParsingThreadsCount = \"lots\": an integer from 1 to 256"),
        "{}",
        stderr(&o)
    );
    nothing_started(dir.path());
}

#[test]
fn missing_files_and_bad_arguments_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("settings.ini"), "{}", stderr(&o));
    let o = run(dir.path(), &["--frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("Usage:"), "{}", stderr(&o));
    assert_eq!(run(dir.path(), &["--help"]).status.code(), Some(0));
    let v = run(dir.path(), &["--version"]);
    assert_eq!(
        String::from_utf8_lossy(&v.stdout).trim(),
        format!("rccrawler {}", env!("CARGO_PKG_VERSION"))
    );
}

// See: issue 17 — `PageBudgt = 100` was a warning with no suggestion, then an unbudgeted crawl.
#[test]
fn a_misspelled_key_is_an_error_that_suggests_the_known_one() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("settings.ini"),
        "DownloadingThreadPDChunkSizeMultiplier = 5\nPageBudgt = 100\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("hosts.txt"), "http://ok.test\n").unwrap();
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("error: settings.ini:2: unknown key PageBudgt (did you mean PageBudget?)"),
        "{err}"
    );
    nothing_started(dir.path());
    // The paper's tuning keys are known: a note, not an error.
    std::fs::write(
        dir.path().join("settings.ini"),
        "DownloadingThreadPDChunkSizeMultiplier = 5\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("hosts.txt"), "# none yet\n").unwrap();
    let err = stderr(&run(dir.path(), &[]));
    assert!(
        err.contains(
            "note: settings.ini:1: DownloadingThreadPDChunkSizeMultiplier is a tuning knob"
        ),
        "{err}"
    );
}

// See: issue 17 — warnings said settings.ini for --settings s3.ini and gave no line; hosts.txt
// was read from the current folder, and its error gave no path.
#[test]
fn messages_name_the_settings_file_given_and_hosts_txt_is_found_beside_it() {
    let top = tempfile::tempdir().unwrap();
    let proj = top.path().join("proj");
    std::fs::create_dir(&proj).unwrap();
    std::fs::write(proj.join("s3.ini"), "\nTimeoutSeconds = soon\n").unwrap();
    let o = run(top.path(), &["--settings", "proj/s3.ini"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("proj/s3.ini:2: TimeoutSeconds = \"soon\""),
        "{}",
        stderr(&o)
    );
    std::fs::write(proj.join("s3.ini"), "").unwrap();
    let o = run(top.path(), &["--settings", "proj/s3.ini"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    let expected = std::path::absolute(proj.join("hosts.txt")).unwrap();
    assert!(
        err.contains(&format!("error: {}: ", expected.display())),
        "the missing hosts.txt is named with its whole path: {err}"
    );
    std::fs::write(proj.join("hosts.txt"), "http://a,2,1,0\n").unwrap();
    let err = stderr(&run(top.path(), &["--settings", "proj/s3.ini"]));
    assert!(
        err.contains("sites from proj/hosts.txt") && err.contains("proj/hosts.txt:1:"),
        "hosts.txt beside settings.ini is read: {err}"
    );
}

#[test]
fn a_crawl_as_a_child_process_exits_0_with_results() {
    let web = TestWeb::new();
    web.page("a.test", "/", "<a href=/x.html>x</a>");
    web.page("a.test", "/x.html", "<a href=/>home</a>");
    web.robots("a.test", "User-agent: *\nDisallow: /private/\n");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.ini"), settings_text(&[])).unwrap();
    std::fs::write(
        dir.path().join("h.txt"),
        format!("{}\n", web.origin("a.test")),
    )
    .unwrap();
    // A stop file left over from an earlier run is removed, not obeyed.
    std::fs::write(dir.path().join("stop.txt"), "").unwrap();
    let o = run(dir.path(), &["--settings", "s.ini", "--hosts", "h.txt"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("removed the stop file"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.path().join("stop.txt").exists());
    let site = common::SiteFiles::read(&dir.path().join(format!("results/a.test_{}", web.port())));
    assert_eq!(site.nodes.len(), 2);
    assert_eq!(site.edges.len(), 2);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("finished after"), "{stdout}");
    let log = std::fs::read_to_string(dir.path().join("logs/common_log.csv")).unwrap();
    assert_eq!(
        log.lines().count(),
        4,
        "header + robots.txt + 2 pages: {log}"
    );
    // See: issue 17 — common_log.csv said Bytes 0 for a 114-byte robots.txt.
    let (header, rows) = common::read_csv(&dir.path().join("logs/common_log.csv"));
    let bytes = header.iter().position(|h| h == "Bytes").unwrap();
    let robots = rows
        .iter()
        .find(|r| r.iter().any(|f| f.ends_with("/robots.txt")))
        .unwrap();
    assert_eq!(robots[bytes], "34", "{robots:?}");
}

fn repo_file(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn shipped_settings_ini_is_the_key_table_and_loads_cleanly() {
    let shipped = repo_file("settings.ini");
    assert_eq!(
        shipped,
        rccrawler::formats::setting_keys::render_ini(),
        "settings.ini must list every key with its default: regenerate it with `cargo run --example render_settings > settings.ini`"
    );
    let (_, warnings) =
        rccrawler::Settings::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("settings.ini"))
            .unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    for key in rccrawler::formats::setting_keys::KEYS {
        // The paper's tuning keys and Scheduler are listed commented out.
        let comment = if rccrawler::formats::setting_keys::listed_commented(key) {
            "; "
        } else {
            ""
        };
        assert!(
            shipped.contains(&format!("\n{comment}{} = {}\n", key.name, key.default)),
            "{}",
            key.name
        );
    }
}

#[test]
fn the_settings_doc_names_every_key_and_component_and_the_readme_links_it() {
    // The reference of every key lives in docs/settings.md; the README (a first study) points
    // there.
    let doc = repo_file("docs/settings.md");
    for key in rccrawler::formats::setting_keys::KEYS {
        assert!(
            doc.contains(&format!("`{}`", key.name)),
            "docs/settings.md lacks {}",
            key.name
        );
        for name in rccrawler::Registry::builtin().names(key.name) {
            assert!(
                doc.contains(name),
                "docs/settings.md lacks component {name}"
            );
        }
    }
    assert!(
        doc.contains(&rccrawler::formats::setting_keys::render_markdown_table()),
        "docs/settings.md's key table is out of date"
    );
    let readme = repo_file("README.md");
    assert!(readme.contains("](docs/settings.md)"));
    // A newcomer reads it in ten minutes: at most 400 lines, the first study in the first 120.
    assert!(
        readme.lines().count() <= 400,
        "README has {} lines",
        readme.lines().count()
    );
    let study = readme
        .lines()
        .position(|l| l == "## Your first study")
        .expect("a first study");
    let next = readme
        .lines()
        .skip(study + 1)
        .position(|l| l.starts_with("## "))
        .map_or(usize::MAX, |n| study + 1 + n);
    assert!(next <= 120, "the first study ends at line {next}");
    // Every link to a file of the repository leads to one.
    for doc in [
        "README.md",
        "docs/results.md",
        "docs/settings.md",
        "docs/crawling.md",
        "docs/compare.md",
        "docs/archive.md",
        "docs/one-page-one-node.md",
        "docs/watching.md",
    ] {
        let text = repo_file(doc);
        let dir = std::path::Path::new(doc).parent().unwrap();
        for link in text.split("](").skip(1).filter_map(|l| l.split(')').next()) {
            let target = link.split('#').next().unwrap();
            if target.is_empty() || target.contains("://") {
                continue;
            }
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(dir)
                .join(target);
            assert!(path.exists(), "{doc}: a link to {link} leads nowhere");
        }
    }
}

#[test]
fn input_files_with_bom_crlf_blank_lines_and_comments_work() {
    let web = TestWeb::new();
    web.page("a.test", "/", "<a href=/x>x</a>");
    web.page("a.test", "/x", "x");
    let dir = tempfile::tempdir().unwrap();
    let settings = format!("\u{feff}{}", settings_text(&[]).replace('\n', "\r\n"));
    std::fs::write(dir.path().join("settings.ini"), settings).unwrap();
    let hosts = format!("\u{feff}# sites\r\n\r\n{};1;5;0\r\n", web.origin("a.test"));
    std::fs::write(dir.path().join("hosts.txt"), hosts).unwrap();
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    assert_eq!(
        common::SiteFiles::read(&dir.path().join(format!("results/a.test_{}", web.port())))
            .nodes
            .len(),
        2
    );
}

// See: issue 17 — an empty hosts.txt, or a run where every site is unreachable, exited 0
// saying `stopped: work is done`.
#[test]
fn nothing_to_crawl_is_exit_code_3() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("settings.ini"), "").unwrap();
    std::fs::write(dir.path().join("hosts.txt"), "# nothing yet\n").unwrap();
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("lists no sites"), "{}", stderr(&o));
    nothing_started(dir.path());
    let closed = common::free_port();
    std::fs::write(
        dir.path().join("settings.ini"),
        settings_text(&[("MaxRetries", "0"), ("SiteDownAfterFailures", "1")]),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("hosts.txt"),
        format!("http://a.test:{closed}\nhttp://b.test:{closed}\n"),
    )
    .unwrap();
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("nothing was crawled"), "{}", stderr(&o));
    let (_, rows) = common::read_csv(&dir.path().join("results/summary.csv"));
    assert_eq!(
        rows.len(),
        2,
        "summary.csv still says what became of each site"
    );
}

// See: issue 17 — `ResultFolder = resfile` (a file) ran the whole crawl, then failed to write it.
#[test]
fn a_folder_that_cannot_be_written_is_bad_input_before_any_request() {
    let web = TestWeb::new();
    web.page("a.test", "/", "<title>A</title>");
    for key in ["ResultFolder", "StateFolder", "CommonLogFile"] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("resfile"), "a file").unwrap();
        let value = if key == "CommonLogFile" {
            "resfile/common.csv"
        } else {
            "resfile"
        };
        std::fs::write(
            dir.path().join("settings.ini"),
            settings_text(&[(key, value)]),
        )
        .unwrap();
        std::fs::write(dir.path().join("hosts.txt"), web.origin("a.test")).unwrap();
        let before = web.server.requests().len();
        let o = run(dir.path(), &[]);
        assert_eq!(o.status.code(), Some(2), "{key}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("{key} = ")) && stderr(&o).contains("cannot write there"),
            "{key}: {}",
            stderr(&o)
        );
        assert_eq!(web.server.requests().len(), before, "{key}: no request");
    }
}

#[test]
fn bad_hosts_lines_each_name_their_line() {
    let cases = [
        (
            "http://a.test\nhttp://A.test/\n",
            "hosts.txt:2: http://a.test is already listed on line 1",
        ),
        (
            "http://a.test;1;-3\n",
            "hosts.txt:1: maxCrawlLevel must be an integer from 0 to 10000, got \"-3\"",
        ),
        (
            "http://a.test;x\n",
            "hosts.txt:1: maxDownloadsAtTime must be an integer from 1 to 1000, got \"x\"",
        ),
        (
            "\n\nhttp://a.test;1;2;soon\n",
            "hosts.txt:3: crawlDelay must be an integer from 0 to 3600000, got \"soon\"",
        ),
        (
            "gopher://a.test\n",
            "hosts.txt:1: \"gopher://a.test\" is not a site address",
        ),
    ];
    for (hosts, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("settings.ini"), "").unwrap();
        std::fs::write(dir.path().join("hosts.txt"), hosts).unwrap();
        let o = run(dir.path(), &[]);
        assert_eq!(o.status.code(), Some(2), "{hosts:?}");
        assert!(stderr(&o).contains(expected), "{hosts:?}: {}", stderr(&o));
        nothing_started(dir.path());
    }
}

#[test]
fn max_pages_per_site_stops_that_site() {
    let web = TestWeb::new();
    common::webgen::install(
        &web,
        common::webgen::WebSpec {
            host: "a.test",
            pages: 100,
            seed: 5,
            delay: std::time::Duration::ZERO,
            slow: vec![],
        },
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("settings.ini"),
        settings_text(&[("MaxPagesPerSite", "10")]),
    )
    .unwrap();
    std::fs::write(dir.path().join("hosts.txt"), web.origin("a.test")).unwrap();
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (_, rows) = common::read_csv(&dir.path().join("results/summary.csv"));
    assert_eq!(rows[0][9], "page limit");
    let pages: usize = rows[0][2].parse().unwrap();
    assert!((1..=10).contains(&pages), "{pages}");
    assert!(
        stderr(&o).contains("MaxPagesPerSite reached"),
        "{}",
        stderr(&o)
    );
}

/// The RCCrawler paper's experiment settings.ini (section "ЭКСПЕРИМЕНТЫ"), exactly as the
/// paper prints it: quoted values, a list broken over two lines, trailing spaces, a blank line
/// between its two halves, and its engine's tuning keys.
const PAPER_SETTINGS: &str = "ApplicationManager = \"TextFileAM\"  \n\
ApplicationFinishers = \"WorkIsDoneAF,  \n\
TimeoutAF,StopFileAF\"  \n\
DataManager = \"BMICDM\"  \n\
DownloadingThread = \"DT0\"  \n\
ParsingThread = \"PT0\"  \n\
ParsingThreadsCount = 2  \n\
RoutineThread = \"RT0\"  \n\
UrlAnalyzingThread = \"EmptyUAT\"  \n\
ResultUnloaders = \"GephiSiteGraphRU,TestRU\"  \n\
DownloadingThreadPDChunkSizeMultiplier = 5\n\
\n\
ParsingThreadPDChunkSize = 20  \n\
DownloadingThreadSleepTime = 1  \n\
ParsingThreadSleepTime = 1  \n\
RoutineThreadSleepTime = 1000  \n\
CommonLogFile = \"logs/common_log.csv\"  \n\
ErrorLogFile = \"logs/error_log.csv\"  \n\
DisplayCommonLog = 1  \n\
DisplayErrorLog = 1  \n\
RobotsTxtClass = \"OnlyDisallowRobotsTxt\"  \n\
TimeoutSeconds = 240000  \n\
ResultFolder = \"result\"  \n\
SaveDuplicates = 1  \n";

#[test]
fn the_papers_settings_ini_runs_unchanged() {
    let web = TestWeb::new();
    let host = "127.0.0.1";
    web.page(
        host,
        "/",
        "<title>Home</title><a href=/a>a</a><a href=/b>b</a><a href=/private/x>x</a>",
    );
    web.page(host, "/a", "<a href=/b>b</a><a href=/>home</a>");
    web.page(host, "/b", "b");
    // OnlyDisallowRobotsTxt (the paper's): Disallow prefixes only, Allow lines ignored.
    web.robots(
        host,
        "User-agent: *\nAllow: /private/x\nDisallow: /private/\n",
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("settings.ini"), PAPER_SETTINGS).unwrap();
    std::fs::write(
        dir.path().join("hosts.txt"),
        format!("http://{host}:{}\n", web.port()),
    )
    .unwrap();
    let o = run(dir.path(), &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        !err.contains("warning"),
        "the paper's keys are all known: {err}"
    );
    assert!(
        err.contains("note: settings.ini:")
            && err.contains(" RoutineThreadSleepTime is a tuning knob"),
        "{err}"
    );
    // DisplayCommonLog / DisplayErrorLog echo the log rows on the console.
    assert!(err.contains("/robots.txt 200"), "{err}");
    let result = dir.path().join("result");
    let folder = result.join(format!("{host}_{}", web.port()));
    let files = common::SiteFiles::read(&folder);
    assert_eq!(files.nodes.len(), 3);
    assert_eq!(
        files.bad,
        vec![(
            1,
            format!("http://{host}:{}/private/x", web.port()),
            "robots".to_owned()
        )]
    );
    let report = std::fs::read_to_string(result.join("test_report.txt")).unwrap();
    assert!(report.contains("1 scope, 1 passed, 0 failed"), "{report}");
    assert!(dir.path().join("logs/common_log.csv").exists());
}

// See: issue 49 — `ResultUnloaders = TestRU` alone checked files nobody wrote and failed
// at the end of the crawl (exit 1); it is refused before anything starts. (A failed check
// is exit code 1: tests/components.rs, with an unloader that writes a broken nodes.csv.)
#[test]
fn test_ru_without_the_files_it_checks_is_refused_up_front() {
    let web = TestWeb::new();
    web.page("a.test", "/", "<a href=/x>x</a>");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("settings.ini"),
        settings_text(&[("ResultUnloaders", "TestRU")]),
    )
    .unwrap();
    std::fs::write(dir.path().join("hosts.txt"), web.origin("a.test")).unwrap();
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("name GephiSiteGraphRU before it"),
        "{}",
        stderr(&o)
    );
    assert_eq!(web.server.hits("a.test", "/"), 0, "nothing crawled");
    assert!(!dir.path().join("results/test_report.txt").exists());
}

// See: issue 17 — `rccrawler demo` run inside a crawl folder overwrote that crawl's
// results/summary.csv.
#[test]
fn the_demo_runs_with_the_shipped_settings_and_writes_only_into_its_own_folder() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("settings.ini"), repo_file("settings.ini")).unwrap();
    std::fs::create_dir(dir.path().join("results")).unwrap();
    std::fs::write(dir.path().join("results/summary.csv"), "a crawl's summary").unwrap();
    let o = run(dir.path(), &["demo"]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(out.contains("writing into demo"), "it says where: {out}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("results/summary.csv")).unwrap(),
        "a crawl's summary",
        "the crawl's files are left alone"
    );
    let summary = common::read_csv(&dir.path().join("demo/results/summary.csv"));
    assert_eq!(summary.1.len(), 1);
    assert_eq!(summary.1[0][9], "done");
    let folder = dir.path().join("demo/results").join(&summary.1[0][1]);
    let files = common::SiteFiles::read(&folder);
    assert!(files.nodes.len() > 10, "{}", files.nodes.len());
    assert!(dir.path().join("demo/state").exists());
    assert!(!dir.path().join("state").exists());
    // Run again, twice: each run is a fresh crawl of the demo (issue 49: a results folder
    // belongs to one crawl); the last one's results are moved aside, and only that one is
    // kept there.
    for _ in 0..2 {
        let o = run(dir.path(), &["demo"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("held the results of another crawl"),
            "{}",
            stderr(&o)
        );
    }
    let old: Vec<_> = std::fs::read_dir(dir.path().join("demo"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("results.old-"))
        .collect();
    assert_eq!(old.len(), 1, "{old:?}");
    assert_eq!(
        common::read_csv(&dir.path().join("demo/results/summary.csv"))
            .1
            .len(),
        1
    );
}

/// See: issue 20 — replay's table cut site names to 6 characters, explained SR(N) nowhere,
/// said nothing when N covered every recorded page, accepted `--budget 0`, and failed with
/// `error: Broken pipe` under `| head -1`.
#[test]
fn replay_names_sites_whole_marks_the_default_rule_and_warns_when_n_covers_every_page() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("Site,Page,Reward\n");
    for (site, pages) in [
        ("www.university-one.test", 30),
        ("library.university-two.test", 20),
    ] {
        for p in 0..pages {
            csv.push_str(&format!("{site},{p},{}\n", (p * 7 + pages) % 5));
        }
    }
    std::fs::write(dir.path().join("yields.csv"), csv).unwrap();
    let o = run(dir.path(), &["replay", "yields.csv", "--budget", "20,50"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("#1   www.university-one.test (30 pages)"),
        "{out}"
    );
    assert!(
        out.contains("#2   library.university-two.test (20 pages)"),
        "{out}"
    );
    assert!(out.contains("SR(N): the reward a rule collects"), "{out}");
    assert!(out.contains("DiscountedUcb (default)"), "{out}");
    assert_eq!(
        out.matches("(default)").count(),
        2,
        "once per budget: {out}"
    );
    let warned: Vec<&str> = out.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(
        warned,
        [
            "warning: N = 50 covers all 50 recorded pages: every rule fetches them all (ratio 1.000); a budget below 50 tells the rules apart"
        ],
        "{out}"
    );
    let o = run(dir.path(), &["replay", "yields.csv", "--budget", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("above 0"), "{}", stderr(&o));
    // A reader that has gone: the table ends quietly, exit 0.
    let mut child = Command::new(env!("CARGO_BIN_EXE_rccrawler"))
        .args(["replay", "yields.csv", "--budget", "20,30,40"])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
}

/// See: issue 20 — which rule a budgeted crawl ran was said nowhere.
#[test]
fn a_budgeted_crawl_names_its_rule_and_parameters() {
    let web = TestWeb::new();
    web.page(
        "a.test",
        "/",
        "<a href=/x.html>x</a> <a href=http://elsewhere.test/>e</a>",
    );
    web.page("a.test", "/x.html", "<a href=/>home</a>");
    let dir = common::prepare(&[web.origin("a.test")], &[("PageBudget", "5")]);
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "budget: 5 pages split between 1 site by DiscountedUcb (the default rule): discount 0.8000 (a memory of about 5 pages), exploration 1"
        ),
        "{}",
        stderr(&o)
    );
}

/// See: issue 21. The end-of-crawl table's first column was 40 characters wide: a longer site
/// name pushed its row's figures out of line. It is as wide as the longest name now, and the
/// run says it finished and where the results are.
#[test]
fn the_end_of_crawl_table_lines_up_whatever_the_site_names() {
    let web = TestWeb::new();
    let long = "a-site-name-much-longer-than-forty-characters.example.test";
    web.page("a.test", "/", "<a href=/b>b</a>");
    web.page("a.test", "/b", "b");
    web.page(long, "/", "home");
    let dir = common::prepare(&[web.origin("a.test"), web.origin(long)], &[]);
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(out.starts_with("finished after "), "{out}");
    assert!(out.contains("results in "), "{out}");
    let table: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("site "))
        .take(3)
        .collect();
    assert_eq!(table.len(), 3, "{out}");
    // The right edge of the pages column, in every row.
    let edges: Vec<usize> = table
        .iter()
        .map(|l| {
            let name_end = l.find(' ').unwrap();
            let rest = &l[name_end..];
            name_end + rest.len() - rest.trim_start().len() + rest.trim_start().find(' ').unwrap()
        })
        .collect();
    assert!(edges.windows(2).all(|w| w[0] == w[1]), "{edges:?}\n{out}");
}

/// Runs `rccrawler demo` in `dir` under a pseudo-terminal (util-linux's `script`, in every
/// Debian image), with `env` set: what a person at a terminal sees.
fn demo_on_a_terminal(dir: &Path, env: &str) -> String {
    let cmd = format!("env {env} {} demo", env!("CARGO_BIN_EXE_rccrawler"));
    let o = Command::new("script")
        .args(["-qfec", &cmd, "/dev/null"])
        .current_dir(dir)
        .output()
        .expect("util-linux's script runs (it gives the crawl a terminal)");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// See: issue 21. On a terminal the progress is a live display redrawn in place (it does not
/// scroll), and its last totals stay as a line when the crawl ends; asked for plain lines
/// (and wherever stderr is not a terminal) it prints the lines of before.
#[test]
fn on_a_terminal_the_progress_is_redrawn_in_place() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("settings.ini"),
        dir.path().join("settings.ini"),
    )
    .unwrap();
    let live = demo_on_a_terminal(dir.path(), "RCCRAWLER_PLAIN_PROGRESS=");
    assert!(
        live.contains("\u{1b}[1A") && live.contains("\u{1b}[2K"),
        "cursor up and line clear: redrawn in place\n{live:?}"
    );
    // After the display's last clear: its totals once more, as a line that stays.
    let (_, after) = live.rsplit_once('\u{1b}').unwrap();
    let after = after.trim_start_matches("[1A");
    assert!(
        after.starts_with("[") && after.lines().next().unwrap().contains("] pages "),
        "the last totals stay as a plain line\n{after:?}"
    );
    assert!(live.contains("finished after"), "{live}");
    let plain = demo_on_a_terminal(dir.path(), "RCCRAWLER_PLAIN_PROGRESS=1");
    assert!(!plain.contains('\u{1b}'), "plain lines only\n{plain:?}");
    assert!(plain.contains("finished after"), "{plain}");
}

/// See: issue 49 — `ApplicationFinishers =` (empty) was accepted and the crawl never ended
/// once its work was done. The work-done finisher is always there now, and the note says so.
#[test]
fn a_crawl_without_the_work_done_finisher_listed_still_ends() {
    let web = TestWeb::new();
    web.page("a.test", "/", "<a href=/x>x</a>");
    web.page("a.test", "/x", "<p>x</p>");
    let dir = common::prepare(&[web.origin("a.test")], &[("ApplicationFinishers", "")]);
    let started = std::time::Instant::now();
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "it ended with its work, not at TimeoutSeconds"
    );
    assert!(
        stderr(&o).contains("WorkIsDoneAF is added to ApplicationFinishers"),
        "{}",
        stderr(&o)
    );
}

/// See: issue 49, item 7 — a site listed with an internationalised host is shown on the
/// console as it was written; its results keep the punycode every tool reads.
#[test]
fn an_international_host_is_shown_as_written() {
    let web = TestWeb::new();
    web.page(
        "xn--bcher-kva.test",
        "/",
        "<title>Bücher</title><a href=/b>b</a>",
    );
    // Slow enough for the progress line to name the site while it is crawled.
    web.set(
        "xn--bcher-kva.test",
        "/b",
        rccrawler::base::loopback::Resp::html("b").delayed(std::time::Duration::from_millis(2500)),
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("settings.ini"),
        settings_text(&[
            ("Resolve", "xn--bcher-kva.test:127.0.0.1"),
            ("ProgressSeconds", "1"),
        ]),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("hosts.txt"),
        format!("http://bücher.test:{}\n", web.port()),
    )
    .unwrap();
    let o = run(dir.path(), &[]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    let row = out
        .lines()
        .find(|l| l.starts_with("http://bücher.test:"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(row.contains(" 2 ") && row.ends_with("done"), "{row}");
    let summary = std::fs::read_to_string(dir.path().join("results/summary.csv")).unwrap();
    assert!(
        summary.contains("\"http://xn--bcher-kva.test:"),
        "{summary}"
    );
    // The progress line, and `rccrawler status` once the crawl has ended, say it as written.
    let console = format!("{out}{}", stderr(&o));
    assert!(
        console
            .lines()
            .any(|l| l.starts_with('[') && l.contains("http://bücher.test:")),
        "{console}"
    );
    assert!(!console.contains("xn--"), "{console}");
    let status = run(dir.path(), &["status"]);
    let status_out = String::from_utf8_lossy(&status.stdout);
    assert!(
        status_out.contains("http://bücher.test:") && !status_out.contains("xn--"),
        "{status_out}"
    );
}

/// See: issue 49, item 7 — a second crawl in a state folder another running crawl holds
/// exited 1; nothing started, so it is exit code 2, naming the folder.
#[test]
fn a_second_crawl_in_a_folder_in_use_exits_2() {
    let web = TestWeb::new();
    web.page("a.test", "/", "<a href=/slow>slow</a>");
    web.set(
        "a.test",
        "/slow",
        rccrawler::base::loopback::Resp::html("slow").delayed(std::time::Duration::from_secs(3)),
    );
    let dir = common::prepare(&[web.origin("a.test")], &[]);
    let mut first = Command::new(env!("CARGO_BIN_EXE_rccrawler"))
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The first crawl holds the lock once it has asked for the home page.
    let started = std::time::Instant::now();
    while !web.server.requests().iter().any(|r| r.target == "/slow") {
        assert!(started.elapsed() < std::time::Duration::from_secs(60));
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let second = run(dir.path(), &[]);
    let first_status = first.wait().unwrap();
    assert_eq!(second.status.code(), Some(2), "{}", stderr(&second));
    assert!(
        stderr(&second).contains("in use by another running rccrawler"),
        "{}",
        stderr(&second)
    );
    assert_eq!(
        first_status.code(),
        Some(0),
        "the first crawl is not disturbed"
    );
}

/// See: issue 49, item 7 — `export` of a finished crawl said "the state keeps nothing to
/// export" (exit 3): a finished crawl keeps its data until the next run starts afresh, and
/// export writes its results again, the same files, its own crawl time kept.
#[test]
fn a_finished_crawl_can_be_exported_until_the_next_run() {
    let web = TestWeb::new();
    web.page(
        "a.test",
        "/",
        "<a href=/x>x</a><a href=http://b.test/>b</a>",
    );
    web.page("a.test", "/x", "<a href=/>home</a><a href=/missing>m</a>");
    web.page("b.test", "/", "<p>b</p>");
    let dir = common::prepare(&[web.origin("a.test"), web.origin("b.test")], &[]);
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = run(dir.path(), &["export", "--to", "exported"]);
    assert_eq!(e.status.code(), Some(0), "{}", stderr(&e));
    for host in ["a.test", "b.test"] {
        let folder = format!("{host}_{}", web.port());
        assert_eq!(
            common::result_bytes(&dir.path().join("exported").join(&folder)),
            common::result_bytes(&dir.path().join("results").join(&folder)),
            "{host}"
        );
    }
    let seconds = |folder: &str| {
        let (header, rows) = common::read_csv(&dir.path().join(folder).join("summary.csv"));
        let i = header.iter().position(|h| h == "Seconds").unwrap();
        rows.iter().map(|r| r[i].clone()).collect::<Vec<_>>()
    };
    assert_eq!(seconds("exported"), seconds("results"));
    // The exported folder records the crawl as the crawl's does: the same sites, settings.
    let record = |folder: &str| {
        rccrawler::formats::crawl_record::read(&dir.path().join(folder))
            .unwrap()
            .unwrap()
    };
    let (crawled, exported) = (record("results"), record("exported"));
    assert_eq!(exported.sites, crawled.sites);
    assert_eq!(exported.sites.len(), 2);
    assert_eq!(
        exported.setting("Duplicates"),
        crawled.setting("Duplicates")
    );
    // The next run starts afresh (and says so); the finished crawl is gone after it.
    let again = run(dir.path(), &[]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("had finished: starting a fresh crawl"),
        "{}",
        stderr(&again)
    );
}

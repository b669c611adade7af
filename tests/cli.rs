//! The real binary: exit codes (SPEC §7), input errors that start nothing, the shipped
//! settings.ini and README naming every key, and a crawl run as a child process.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{TestWeb, settings_text};

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rccrawler"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

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
    assert!(stderr(&o).contains("usage:"));
    assert_eq!(run(dir.path(), &["--help"]).status.code(), Some(0));
    let v = run(dir.path(), &["--version"]);
    assert_eq!(
        String::from_utf8_lossy(&v.stdout).trim(),
        format!("rccrawler {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn unknown_key_is_a_warning_and_the_crawl_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("settings.ini"),
        "DownloadingThreadPDChunkSizeMultiplier = 5\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("hosts.txt"), "").unwrap();
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains(
        "warning: settings.ini: unknown key DownloadingThreadPDChunkSizeMultiplier ignored"
    ));
    assert!(dir.path().join("results/summary.csv").exists());
}

#[test]
fn a_crawl_as_a_child_process_exits_0_with_results() {
    let web = TestWeb::new();
    web.page("a.test", "/", "<a href=/x.html>x</a>");
    web.page("a.test", "/x.html", "<a href=/>home</a>");
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
    assert!(stdout.contains("stopped: work is done"), "{stdout}");
    let log = std::fs::read_to_string(dir.path().join("logs/common_log.csv")).unwrap();
    assert_eq!(
        log.lines().count(),
        4,
        "header + robots.txt + 2 pages: {log}"
    );
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
        rccrawler::settings::keys::render_ini(),
        "settings.ini must list every key with its default: regenerate it with `cargo run --example render_settings > settings.ini`"
    );
    let (_, warnings) = rccrawler::settings::Settings::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("settings.ini"),
    )
    .unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    for key in rccrawler::settings::keys::KEYS {
        assert!(
            shipped.contains(&format!("\n{} = {}\n", key.name, key.default)),
            "{}",
            key.name
        );
    }
}

#[test]
fn readme_names_every_key_and_component() {
    let readme = repo_file("README.md");
    for key in rccrawler::settings::keys::KEYS {
        assert!(
            readme.contains(&format!("`{}`", key.name)),
            "README lacks {}",
            key.name
        );
        for name in rccrawler::settings::registry::names_for(key.name) {
            assert!(readme.contains(name), "README lacks component {name}");
        }
    }
    assert!(
        readme.contains(&rccrawler::settings::keys::render_markdown_table()),
        "README's key table is out of date"
    );
}

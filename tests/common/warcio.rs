//! The Python `warcio` library's command line, the web archives' own reader: .ci/run installs
//! it into a virtual environment it names in RCCRAWLER_WARCIO; elsewhere a `warcio` on the
//! PATH is used, or the check is left out with a message (never in CI).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `warcio` program, if there is one.
pub fn program() -> Option<PathBuf> {
    let named = std::env::var_os("RCCRAWLER_WARCIO").map(PathBuf::from);
    tool(
        named.into_iter().chain([PathBuf::from("warcio")]),
        &["-V"],
        "warcio",
        "the interoperability check",
    )
}

/// A program of the virtual environment .ci/run makes beside warcio (RCCRAWLER_WARCIO's
/// folder), named `name`.
pub fn beside_warcio(name: &str) -> Option<PathBuf> {
    std::env::var_os("RCCRAWLER_WARCIO")
        .map(PathBuf::from)
        .and_then(|w| w.parent().map(|d| d.join(name)))
}

/// The first of `candidates` that runs with `args` and succeeds; `None` (with a message, never
/// in CI) when none does — `what` is the program, `check` what is left out without it.
pub fn tool(
    candidates: impl IntoIterator<Item = PathBuf>,
    args: &[&str],
    what: &str,
    check: &str,
) -> Option<PathBuf> {
    let found = candidates.into_iter().find(|p| {
        Command::new(p)
            .args(args)
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI: {what} is missing (.ci/run installs it into the virtual environment of RCCRAWLER_WARCIO)"
        );
        eprintln!("no {what} here: {check} is left out");
    }
    found
}

/// The finished WARC files of archive folder `dir`, by name.
pub fn files(dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .expect("the archive folder")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .into_string()
                .expect("a name")
        })
        .filter(|n| n.ends_with(".warc.gz"))
        .collect();
    files.sort();
    files
}

/// `warcio check -v` passes file `name` of `dir`: every record's digests verified.
pub fn check(warcio: &Path, dir: &Path, name: &str) {
    let o = Command::new(warcio)
        .args(["check", "-v"])
        .arg(dir.join(name))
        .output()
        .expect("warcio runs");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "warcio check {name}: {out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("digest pass"), "{out}");
    assert!(!out.contains("fail"), "{out}");
}

/// `warcio index` of file `name` of `dir` with `fields`: one JSON object a record.
pub fn index(warcio: &Path, dir: &Path, name: &str, fields: &str) -> Vec<serde_json::Value> {
    let o = Command::new(warcio)
        .args(["index", "-f", fields])
        .arg(name)
        .current_dir(dir)
        .output()
        .expect("warcio runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// The `cdxj-indexer` program (pywb's indexer, the reference for SURT keys): beside
/// RCCRAWLER_WARCIO in its virtual environment (.ci/run installs both), else on the PATH, else
/// `None` with a message (never in CI).
pub fn cdxj_indexer() -> Option<PathBuf> {
    tool(
        beside_warcio("cdxj-indexer")
            .into_iter()
            .chain([PathBuf::from("cdxj-indexer")]),
        &["-h"],
        "cdxj-indexer",
        "the comparison of the SURT keys with the reference's",
    )
}

/// The reference's index of the finished files of archive folder `dir`: (SURT key, file,
/// offset) for every response and revisit.
pub fn reference_keys(indexer: &Path, dir: &Path) -> Vec<(String, String, u64)> {
    let o = Command::new(indexer)
        .args(["--records", "response,revisit"])
        .args(files(dir))
        .current_dir(dir)
        .output()
        .expect("cdxj-indexer runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| {
            let key = l.split(' ').next().expect("a key").to_owned();
            let json: serde_json::Value =
                serde_json::from_str(&l[l.find('{').expect("a JSON part")..]).expect("JSON");
            let field = |k: &str| json[k].as_str().expect("a field").to_owned();
            (
                key,
                field("filename"),
                field("offset").parse().expect("an offset"),
            )
        })
        .collect()
}

/// Our index.cdxj of `dir` as (SURT key, file, offset).
pub fn our_keys(dir: &Path) -> Vec<(String, String, u64)> {
    std::fs::read_to_string(dir.join("index.cdxj"))
        .expect("index.cdxj")
        .lines()
        .map(|l| {
            let key = l.split(' ').next().expect("a key").to_owned();
            let json: serde_json::Value =
                serde_json::from_str(&l[l.find('{').expect("a JSON part")..]).expect("JSON");
            let field = |k: &str| json[k].as_str().expect("a field").to_owned();
            (
                key,
                field("filename"),
                field("offset").parse().expect("an offset"),
            )
        })
        .collect()
}

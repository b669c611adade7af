//! The Python `warcio` library's command line, the web archives' own reader: .ci/run installs
//! it into a virtual environment it names in RCCRAWLER_WARCIO; elsewhere a `warcio` on the
//! PATH is used, or the check is left out with a message (never in CI).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `warcio` program, if there is one.
pub fn program() -> Option<PathBuf> {
    let named = std::env::var_os("RCCRAWLER_WARCIO").map(PathBuf::from);
    let found = named.or_else(|| Some(PathBuf::from("warcio"))).filter(|w| {
        Command::new(w)
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI: warcio is missing (.ci/run installs it and sets RCCRAWLER_WARCIO)"
        );
        eprintln!("no warcio here: the interoperability check is left out");
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

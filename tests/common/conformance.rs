//! Locates `../shared/conformance/` (the public test vectors) without copying them.

use std::path::PathBuf;

/// The conformance folder, or `None` (after saying so) when it is absent outside CI.
/// With `CI` set, a missing folder is a test failure: CI must run the vectors.
pub fn dir() -> Option<PathBuf> {
    let dir = std::env::var_os("RCCRAWLER_CONFORMANCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance"));
    if dir.join("README.md").is_file() {
        return Some(dir);
    }
    if std::env::var_os("CI").is_some() {
        panic!(
            "conformance vectors not found at {} (CI is set, so this is a failure; \
             set RCCRAWLER_CONFORMANCE_DIR to their folder)",
            dir.display()
        );
    }
    eprintln!(
        "SKIPPED: conformance vectors not found at {}",
        dir.display()
    );
    None
}

/// Reads one JSON Lines file of the folder.
pub fn records(name: &str) -> Option<Vec<serde_json::Value>> {
    let path = dir()?.join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Some(
        text.lines()
            .enumerate()
            .map(|(i, line)| {
                serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1))
            })
            .collect(),
    )
}

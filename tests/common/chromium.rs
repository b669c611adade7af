//! Headless Chromium (Debian's `chromium`, which .ci/run installs) for the pages a person
//! looks at: the status page and report.html.

use std::process::{Command, Stdio};

/// The DOM of `url` after its scripts ran, and what Chromium logged; `None` when no browser
/// is installed outside CI (in CI a missing browser fails the test).
pub fn dump_dom(url: &str) -> Option<(String, String)> {
    let browser = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            Command::new(b)
                .arg("--version")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        });
    let Some(browser) = browser else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI: headless Chromium is missing (.ci/run installs Debian's chromium)"
        );
        eprintln!("no chromium here: the browser check is left out");
        return None;
    };
    let profile = tempfile::tempdir().unwrap();
    let o = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--enable-logging=stderr",
            "--virtual-time-budget=3000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(url)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    Some((
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    ))
}

//! Starting the system's Chromium for the crawl: headless, its profile in a temporary folder,
//! the DevTools protocol on the pipe (file descriptors 3 and 4), and its own network stack
//! shut: every name resolves to nothing and every request would go to a dead proxy. The crawl
//! answers each request the browser makes itself (the tab's `Fetch` interception), so nothing
//! the browser does reaches a network the crawl did not choose — not its background updates,
//! not a popup nobody intercepts.

use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use super::CdpError;
use super::pipe::Pipe;

/// A running browser: its process, its profile folder and its DevTools connection.
#[derive(Debug)]
pub(super) struct Browser {
    child: Child,
    /// Removed when the browser is dropped.
    _profile: tempfile::TempDir,
    pub(super) pipe: Pipe,
}

/// The arguments every start gives: headless, no first-run work, no background traffic, no
/// images, and the network stack pointed at nothing (see the module's comment).
const ARGS: &[&str] = &[
    "--headless",
    "--remote-debugging-pipe",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-sync",
    "--disable-breakpad",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    // The back-forward cache would keep every page a tab left alive in memory.
    "--disable-features=Translate,OptimizationHints,MediaRouter,InterestFeedContentSuggestions,AutofillServerCommunication,CertificateTransparencyComponentUpdater,BackForwardCache",
    // Every tab renders as if it were the one in front: a background tab's timers run at most
    // once a second, and a link a page adds 150 ms after loading was missed in a tab behind
    // another (Puppeteer starts Chromium with the same three).
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-renderer-backgrounding",
    "--mute-audio",
    "--hide-scrollbars",
    "--blink-settings=imagesEnabled=false",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
    "about:blank",
];

/// The browser to run: `ChromiumPath` when set, else the first of Debian's, Ubuntu's and
/// Google's names found on `PATH`.
pub fn find(configured: Option<&Path>) -> Result<PathBuf, CdpError> {
    if let Some(path) = configured {
        return if path.is_file() {
            Ok(path.to_owned())
        } else {
            Err(CdpError::Missing(format!(
                "ChromiumPath = {} is not a file",
                path.display()
            )))
        };
    }
    let dirs = std::env::var_os("PATH").unwrap_or_default();
    for name in [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ] {
        for dir in std::env::split_paths(&dirs) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    Err(CdpError::Missing(
        "no chromium, chromium-browser or google-chrome on PATH".to_owned(),
    ))
}

impl Browser {
    /// Starts `program` and connects to it.
    pub(super) fn launch(program: &Path) -> Result<Self, CdpError> {
        let profile = tempfile::Builder::new()
            .prefix("rccrawler-chromium-")
            .tempdir()
            .map_err(CdpError::Io)?;
        let (from_browser, browser_writes) = std::io::pipe().map_err(CdpError::Io)?;
        let (browser_reads, to_browser) = std::io::pipe().map_err(CdpError::Io)?;
        let (read_fd, write_fd) = (browser_reads.as_raw_fd(), browser_writes.as_raw_fd());
        let mut command = Command::new(program);
        command
            .args(ARGS)
            .arg(format!("--user-data-dir={}", profile.path().display()))
            // Its own temporary files (a singleton socket folder a run) inside the profile,
            // removed with it: a browser the crawl kills leaves nothing in the system's /tmp.
            .env("TMPDIR", profile.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: between fork and exec only async-signal-safe calls (fcntl, dup2) run; they
        // put the browser's ends of the two pipes on descriptors 3 and 4, where
        // --remote-debugging-pipe looks for them. Both ends are first copied above 10 so that
        // neither dup2 overwrites the other's source; dup2 clears close-on-exec on 3 and 4.
        unsafe {
            command.pre_exec(move || {
                let r = libc::fcntl(read_fd, libc::F_DUPFD, 10);
                let w = libc::fcntl(write_fd, libc::F_DUPFD, 10);
                if r < 0 || w < 0 || libc::dup2(r, 3) < 0 || libc::dup2(w, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().map_err(CdpError::Io)?;
        // The browser's ends live in the browser now: closed here, so that its death ends
        // the pipe for the reader.
        drop((browser_reads, browser_writes));
        let pipe = Pipe::start(to_browser, from_browser)?;
        Ok(Browser {
            child,
            _profile: profile,
            pipe,
        })
    }

    /// The browser's process id (the fault tests kill it).
    pub(super) fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

//! PDFs are read in a child process (SPEC §19): a PDF is input from anywhere, and what lopdf
//! builds of one in memory is bounded by nothing but the file (50 MB of `0 0 0 …` in an array
//! is tens of millions of objects). The child is this binary, run with [`CHILD_ARG`]: it
//! lowers its own limits first — [`CHILD_MEMORY`] of address space, [`CHILD_CPU_SECONDS`] of
//! CPU — reads the PDF on stdin and writes what it found as JSON on stdout. The parent waits
//! [`CHILD_WAIT`] at most and kills it after. A PDF that costs more than that is a node
//! without links and a line on the error log; the crawl never holds more than the body and
//! the child's answer.
//!
//! A program that uses the library without naming a reader ([`use_reader`]: the binary names
//! itself) reads PDFs in its own process, within lopdf's bounds only.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::formats::pdf::{self, PdfContent, PdfLimits, PdfLink};

/// The first argument that makes the binary a PDF reader.
pub const CHILD_ARG: &str = "__read-pdf";

/// The child's address space (`RLIMIT_AS`): the PDF, lopdf's objects, the answer.
pub const CHILD_MEMORY: u64 = 768 << 20;

/// The child's CPU time (`RLIMIT_CPU`).
pub const CHILD_CPU_SECONDS: u64 = 20;

/// How long the parent waits for the child's answer (a child that sleeps on a lock costs
/// no CPU).
pub const CHILD_WAIT: Duration = Duration::from_secs(30);

/// The largest answer read from the child: text is cut by the child, links are at most
/// [`PdfLimits::max_links`].
const MAX_ANSWER: u64 = 256 << 20;

static READER: OnceLock<PathBuf> = OnceLock::new();

/// Reads PDFs with `exe` (an rccrawler binary) in a child process from now on.
pub fn use_reader(exe: PathBuf) {
    let _ = READER.set(exe);
}

/// Why a PDF gave no links.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// The PDF itself (damaged, truncated, encrypted).
    #[error("{0}")]
    Pdf(#[from] pdf::PdfError),
    /// The child passed a bound or failed (the whole reason).
    #[error("{0}")]
    Child(String),
}

/// `body`'s links and text within `limits`: in a child when a reader is named, else here.
pub(crate) fn read(body: &[u8], limits: PdfLimits) -> Result<PdfContent, ReadError> {
    match READER.get() {
        Some(exe) => read_in_child(exe, body, limits),
        None => Ok(pdf::read(body, limits)?),
    }
}

fn read_in_child(exe: &PathBuf, body: &[u8], limits: PdfLimits) -> Result<PdfContent, ReadError> {
    let child_failed = |what: String| ReadError::Child(format!("unreadable PDF ({what})"));
    let mut child = Command::new(exe)
        .arg(CHILD_ARG)
        .arg(limits.max_text_bytes.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| child_failed(format!("the reader did not start: {e}")))?;
    let started = Instant::now();
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let answer = std::thread::scope(|s| {
        // The body goes in while the answer comes out: a child that answers before it read
        // everything (an error) must not block the parent on a full pipe.
        s.spawn(move || {
            if let Some(mut stdin) = stdin {
                let _ = stdin.write_all(body);
            }
        });
        let reader = s.spawn(move || {
            let mut out = Vec::new();
            if let Some(stdout) = stdout {
                let _ = stdout.take(MAX_ANSWER).read_to_end(&mut out);
            }
            out
        });
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if started.elapsed() < CHILD_WAIT => {
                    std::thread::sleep(Duration::from_millis(2));
                }
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
            }
        };
        (status, reader.join().unwrap_or_default())
    });
    match answer {
        (None, _) => Err(child_failed(format!(
            "reading it took over {} s",
            CHILD_WAIT.as_secs()
        ))),
        (Some(status), out) if status.success() => decode(&out),
        (Some(status), _) => Err(child_failed(match status_signal(&status) {
            Some(_) => format!(
                "the reader passed its bounds ({} MB of memory, {} s of CPU)",
                CHILD_MEMORY >> 20,
                CHILD_CPU_SECONDS
            ),
            None => format!("the reader failed ({status})"),
        })),
    }
}

#[cfg(unix)]
fn status_signal(status: &std::process::ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(status)
}

#[cfg(not(unix))]
fn status_signal(_: &std::process::ExitStatus) -> Option<i32> {
    None
}

/// The child's answer: `{"pages":N,"links":[[uri,anchor],…],"text":"…"}` or
/// `{"error":"…"}`.
fn decode(out: &[u8]) -> Result<PdfContent, ReadError> {
    let bad =
        || ReadError::Child("unreadable PDF (the reader's answer was cut or malformed)".into());
    let v: serde_json::Value = serde_json::from_slice(out).map_err(|_| bad())?;
    if let Some(e) = v.get("error").and_then(|e| e.as_str()) {
        return Err(ReadError::Child(e.to_owned()));
    }
    let links = v
        .get("links")
        .and_then(|l| l.as_array())
        .ok_or_else(bad)?
        .iter()
        .filter_map(|pair| {
            let uri = pair.get(0)?.as_str()?.to_owned();
            let anchor = pair.get(1)?.as_str()?.to_owned();
            Some(PdfLink { uri, anchor })
        })
        .collect();
    Ok(PdfContent {
        links,
        text: v
            .get("text")
            .and_then(|t| t.as_str())
            .unwrap_or("")
            .to_owned(),
        pages: v
            .get("pages")
            .and_then(|p| p.as_u64())
            .and_then(|p| u32::try_from(p).ok())
            .unwrap_or(0),
    })
}

/// The child: `rccrawler __read-pdf MAX_TEXT_BYTES`, the PDF on stdin. Returns the exit code.
pub fn run_child(max_text: &str) -> u8 {
    // Limits first, before the PDF is read: nothing the PDF does happens outside them.
    let _ = rlimit::setrlimit(rlimit::Resource::AS, CHILD_MEMORY, CHILD_MEMORY);
    let _ = rlimit::setrlimit(
        rlimit::Resource::CPU,
        CHILD_CPU_SECONDS,
        CHILD_CPU_SECONDS + 1,
    );
    let limits = PdfLimits {
        max_text_bytes: max_text.parse().unwrap_or(0),
        ..PdfLimits::default()
    };
    let mut body = Vec::new();
    if std::io::stdin().read_to_end(&mut body).is_err() {
        return 1;
    }
    let answer = match pdf::read(&body, limits) {
        Ok(c) => serde_json::json!({
            "pages": c.pages,
            "links": c.links.iter().map(|l| [&l.uri, &l.anchor]).collect::<Vec<_>>(),
            "text": c.text,
        }),
        Err(e) => serde_json::json!({ "error": e.to_string() }),
    };
    drop(body);
    let mut out = std::io::stdout().lock();
    let written = serde_json::to_writer(&mut out, &answer).is_ok() && out.flush().is_ok();
    u8::from(!written)
}

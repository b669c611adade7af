//! PDFs are read in a child process (SPEC §19): a PDF is input from anywhere, and what lopdf
//! builds of one in memory is bounded by nothing but the file (50 MB of `0 0 0 …` in an array
//! is tens of millions of objects). The child is this binary, run with [`CHILD_ARG`]: it
//! lowers its own address space to [`CHILD_MEMORY`] first, then reads PDFs from stdin and
//! answers each with JSON on stdout. The parent waits [`CHILD_WAIT`] for an answer at most and
//! kills the child after; a child that died (past its memory, killed) is started again for the
//! next PDF. A PDF that costs more than that is a node without links and a line on the error
//! log; the crawl never holds more than the body and the child's answer.
//!
//! Each parsing thread keeps its child ([`PdfReader`]) from PDF to PDF: starting one costs
//! ~1.8 ms, as much as reading a small PDF, and a site's PDFs come by the hundred. It is
//! started afresh every [`RECYCLE_AFTER`] PDFs, so that what its allocator keeps does not
//! grow.
//!
//! A program that uses the library without naming a reader ([`use_reader`]: the binary names
//! itself) reads PDFs in its own process, within lopdf's bounds only.
//!
//! The pipe: the parent writes `max_text: u64 LE`, `length: u64 LE` and the PDF; the child
//! writes `length: u64 LE` and the JSON answer
//! (`{"pages":N,"links":[[uri,anchor],…],"text":"…"}` or `{"error":"…"}`).

use std::io::{BufReader, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError};

use crate::formats::pdf::{self, PdfContent, PdfLimits, PdfLink};

/// The first argument that makes the binary a PDF reader.
pub const CHILD_ARG: &str = "__read-pdf";

/// The child's address space (`RLIMIT_AS`): the PDF, lopdf's objects, the answer.
pub const CHILD_MEMORY: u64 = 768 << 20;

/// How long the parent waits for the child's answer to one PDF (also the bound on the CPU a
/// PDF costs).
pub const CHILD_WAIT: Duration = Duration::from_secs(30);

/// PDFs a child reads before it is started afresh.
pub const RECYCLE_AFTER: u32 = 500;

/// The largest answer read from the child: text is cut by the child, links are at most
/// [`PdfLimits::max_links`].
const MAX_ANSWER: u64 = 256 << 20;

/// The largest PDF the child reads (`MaxDocumentBytes`' largest).
const MAX_PDF: u64 = 1 << 30;

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

fn child_failed(what: impl std::fmt::Display) -> ReadError {
    ReadError::Child(format!("unreadable PDF ({what})"))
}

/// A parsing thread's PDF reader: its child, started when the first PDF comes.
#[derive(Debug, Default)]
pub struct PdfReader {
    child: Option<Running>,
}

/// A child and its pipes: the answers come through a thread that reads them, so that the
/// parent can stop waiting.
#[derive(Debug)]
struct Running {
    process: Child,
    stdin: BufWriter<ChildStdin>,
    answers: Receiver<std::io::Result<Vec<u8>>>,
    read: u32,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

impl PdfReader {
    /// `body`'s links and text within `limits`: in the child when a reader is named, else here.
    pub fn read(&mut self, body: &[u8], limits: PdfLimits) -> Result<PdfContent, ReadError> {
        let Some(exe) = READER.get() else {
            return Ok(pdf::read(body, limits)?);
        };
        if self.child.as_ref().is_some_and(|c| c.read >= RECYCLE_AFTER) {
            self.child = None;
        }
        let mut running = match self.child.take() {
            Some(c) => c,
            None => match start(exe) {
                Ok(c) => c,
                // No process or pipe to be had now (the open-file limit, a busy machine): read
                // it here, within lopdf's bounds, rather than record a node without its links.
                Err(_) => return Ok(pdf::read(body, limits)?),
            },
        };
        let sent = send(&mut running.stdin, body, limits.max_text_bytes as u64);
        let answer = match sent {
            Ok(()) => running.answers.recv_timeout(CHILD_WAIT),
            // A child that died before it read everything: its answer says why.
            Err(_) => running.answers.recv_timeout(Duration::from_secs(1)),
        };
        match answer {
            Ok(Ok(json)) => {
                running.read += 1;
                self.child = Some(running);
                decode(&json)
            }
            Err(RecvTimeoutError::Timeout) => Err(child_failed(format!(
                "reading it took over {} s",
                CHILD_WAIT.as_secs()
            ))),
            Ok(Err(_)) | Err(RecvTimeoutError::Disconnected) => {
                let status = running.process.wait().ok();
                let signal = status.as_ref().and_then(status_signal);
                Err(child_failed(match (signal, status) {
                    (Some(_), _) => format!(
                        "the reader passed its bounds ({} MB of memory)",
                        CHILD_MEMORY >> 20
                    ),
                    (None, Some(s)) => format!("the reader failed ({s})"),
                    (None, None) => "the reader failed".to_owned(),
                }))
            }
        }
    }
}

fn start(exe: &PathBuf) -> Result<Running, ReadError> {
    let mut command = Command::new(exe);
    command
        .arg(CHILD_ARG)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    // A process group of its own: Ctrl+C at the terminal goes to the crawl, which stops and
    // still reads the PDFs it downloaded — a child killed by the same keypress would make
    // them nodes without links.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut process = command
        .spawn()
        .map_err(|e| child_failed(format!("the reader did not start: {e}")))?;
    let (Some(stdin), Some(stdout)) = (process.stdin.take(), process.stdout.take()) else {
        let _ = process.kill();
        return Err(child_failed("the reader has no pipes"));
    };
    let (tx, answers) = crossbeam_channel::bounded(1);
    std::thread::Builder::new()
        .name("pdf-reader".into())
        .spawn(move || {
            let mut stdout = BufReader::new(stdout);
            loop {
                let answer = read_frame(&mut stdout, MAX_ANSWER);
                let end = answer.is_err();
                if tx.send(answer).is_err() || end {
                    return;
                }
            }
        })
        .map_err(|e| child_failed(format!("no thread for the reader: {e}")))?;
    Ok(Running {
        process,
        stdin: BufWriter::new(stdin),
        answers,
        read: 0,
    })
}

fn send(stdin: &mut impl Write, body: &[u8], max_text: u64) -> std::io::Result<()> {
    stdin.write_all(&max_text.to_le_bytes())?;
    stdin.write_all(&(body.len() as u64).to_le_bytes())?;
    stdin.write_all(body)?;
    stdin.flush()
}

/// One length-prefixed frame of at most `max` bytes.
fn read_frame(r: &mut impl Read, max: u64) -> std::io::Result<Vec<u8>> {
    let mut len = [0u8; 8];
    r.read_exact(&mut len)?;
    let len = u64::from_le_bytes(len);
    if len > max {
        return Err(std::io::Error::other("a frame over its bound"));
    }
    let mut out = Vec::new();
    r.take(len).read_to_end(&mut out)?;
    if out.len() as u64 != len {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    Ok(out)
}

#[cfg(unix)]
fn status_signal(status: &std::process::ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(status)
}

#[cfg(not(unix))]
fn status_signal(_: &std::process::ExitStatus) -> Option<i32> {
    None
}

/// The child's answer.
fn decode(out: &[u8]) -> Result<PdfContent, ReadError> {
    let bad = || child_failed("the reader's answer was cut or malformed");
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

/// The child: `rccrawler __read-pdf`, PDFs on stdin until it closes. Returns the exit code.
pub fn run_child() -> u8 {
    // The bound first, before any PDF is read: nothing a PDF does happens outside it.
    let _ = rlimit::setrlimit(rlimit::Resource::AS, CHILD_MEMORY, CHILD_MEMORY);
    let mut stdin = BufReader::new(std::io::stdin().lock());
    let mut stdout = BufWriter::new(std::io::stdout().lock());
    loop {
        let mut max_text = [0u8; 8];
        if stdin.read_exact(&mut max_text).is_err() {
            // The parent closed the pipe: done.
            return 0;
        }
        let Ok(body) = read_frame(&mut stdin, MAX_PDF) else {
            return 1;
        };
        let limits = PdfLimits {
            max_text_bytes: usize::try_from(u64::from_le_bytes(max_text)).unwrap_or(0),
            ..PdfLimits::default()
        };
        let answer = match pdf::read(&body, limits) {
            Ok(c) => serde_json::json!({
                "pages": c.pages,
                "links": c.links.iter().map(|l| [&l.uri, &l.anchor]).collect::<Vec<_>>(),
                "text": c.text,
            }),
            Err(e) => serde_json::json!({ "error": e.to_string() }),
        };
        drop(body);
        let Ok(json) = serde_json::to_vec(&answer) else {
            return 1;
        };
        drop(answer);
        let written = stdout
            .write_all(&(json.len() as u64).to_le_bytes())
            .and_then(|()| stdout.write_all(&json))
            .and_then(|()| stdout.flush());
        if written.is_err() {
            return 1;
        }
        crate::base::alloc_tuning::give_back_free_memory();
    }
}

//! The DevTools protocol over Chromium's `--remote-debugging-pipe`: the browser reads commands
//! on its file descriptor 3 and writes answers and events on 4, each a JSON text ended by a NUL
//! byte (what Puppeteer's and Playwright's `pipe` mode speak). No port, no WebSocket: two
//! processes of a test suite never race for a port, and the browser is reachable by nothing
//! but its parent.
//!
//! One reader thread takes every message: an answer goes to the caller waiting on its id, an
//! event to the channel of its session (flat sessions: `Target.attachToTarget` with
//! `flatten`). When the browser dies the reader sees the end of the pipe, marks the connection
//! dead and drops every waiting sender, so no caller waits on a dead browser.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender};
use parking_lot::Mutex;
use serde_json::{Value, json};

use super::CdpError;

/// A command's answer: its `result`, or the protocol's error message.
pub(super) type Answer = Result<Value, String>;

/// One browser's DevTools connection.
#[derive(Debug)]
pub(super) struct Pipe {
    writer: Mutex<std::io::PipeWriter>,
    next_id: AtomicU64,
    shared: Arc<Routes>,
}

/// A session's events: where the reader sends them, and the receiving end until its tab
/// takes it.
type SessionRoute = (Sender<Value>, Option<Receiver<Value>>);

/// Where the reader thread sends what it reads.
#[derive(Debug, Default)]
struct Routes {
    /// Commands sent and not answered yet.
    waiting: Mutex<HashMap<u64, Sender<Answer>>>,
    /// Each attached session's events; the receiver waits here until its tab takes it.
    sessions: Mutex<HashMap<String, SessionRoute>>,
    /// The pipe ended: the browser exited or was killed.
    dead: AtomicBool,
}

impl Pipe {
    /// Starts the reader thread over the browser's output and returns the connection.
    pub(super) fn start(
        writer: std::io::PipeWriter,
        reader: std::io::PipeReader,
    ) -> Result<Self, CdpError> {
        let shared = Arc::new(Routes::default());
        let routes = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("chromium-pipe".into())
            .spawn(move || read_all(reader, &routes))
            .map_err(CdpError::Io)?;
        Ok(Pipe {
            writer: Mutex::new(writer),
            next_id: AtomicU64::new(1),
            shared,
        })
    }

    /// Whether the browser is gone.
    pub(super) fn is_dead(&self) -> bool {
        self.shared.dead.load(Ordering::Acquire)
    }

    /// Sends `method` (to `session`, or to the browser) and returns where its answer will
    /// arrive, without waiting for it: a tab serves its events while a navigation is pending.
    pub(super) fn send(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Receiver<Answer>, CdpError> {
        if self.is_dead() {
            return Err(CdpError::Closed);
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.shared.waiting.lock().insert(id, tx);
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(session) = session {
            message["sessionId"] = Value::from(session);
        }
        let mut bytes =
            serde_json::to_vec(&message).map_err(|e| CdpError::Protocol(e.to_string()))?;
        bytes.push(0);
        let written = self.writer.lock().write_all(&bytes);
        if let Err(e) = written {
            self.shared.waiting.lock().remove(&id);
            self.shared.dead.store(true, Ordering::Release);
            return Err(CdpError::Io(e));
        }
        Ok(rx)
    }

    /// Sends `method` and waits up to `timeout` for its answer.
    pub(super) fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, CdpError> {
        let rx = self.send(session, method, params)?;
        answer_of(method, rx.recv_timeout(timeout))
    }

    /// The events of `session` (taken once, by the tab that attached it).
    pub(super) fn events(&self, session: &str) -> Receiver<Value> {
        let mut sessions = self.shared.sessions.lock();
        let entry = sessions.entry(session.to_owned()).or_insert_with(|| {
            let (tx, rx) = crossbeam_channel::unbounded();
            (tx, Some(rx))
        });
        entry.1.take().unwrap_or_else(|| {
            // Taken before: a fresh channel replaces it (the old tab is gone).
            let (tx, rx) = crossbeam_channel::unbounded();
            entry.0 = tx;
            rx
        })
    }

    /// Forgets a detached session's events.
    pub(super) fn forget(&self, session: &str) {
        self.shared.sessions.lock().remove(session);
    }
}

/// What a wait for an answer ended with.
pub(super) fn answer_of(
    method: &str,
    got: Result<Answer, crossbeam_channel::RecvTimeoutError>,
) -> Result<Value, CdpError> {
    match got {
        Ok(Ok(result)) => Ok(result),
        Ok(Err(message)) => Err(CdpError::Refused(format!("{method}: {message}"))),
        Err(crossbeam_channel::RecvTimeoutError::Timeout) => {
            Err(CdpError::Timeout(method.to_owned()))
        }
        Err(crossbeam_channel::RecvTimeoutError::Disconnected) => Err(CdpError::Closed),
    }
}

/// The reader thread: routes every message until the pipe ends.
fn read_all(reader: std::io::PipeReader, routes: &Routes) {
    let mut reader = BufReader::with_capacity(1 << 16, reader);
    let mut message = Vec::new();
    loop {
        message.clear();
        match reader.read_until(0, &mut message) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if message.last() == Some(&0) {
            message.pop();
        }
        let Ok(value) = serde_json::from_slice::<Value>(&message) else {
            continue;
        };
        route(routes, value);
    }
    routes.dead.store(true, Ordering::Release);
    routes.waiting.lock().clear();
    routes.sessions.lock().clear();
}

/// Sends one message where it belongs.
fn route(routes: &Routes, mut value: Value) {
    if let Some(id) = value.get("id").and_then(Value::as_u64) {
        if let Some(tx) = routes.waiting.lock().remove(&id) {
            let answer = match value.get_mut("error") {
                Some(error) => Err(error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("error")
                    .to_owned()),
                None => Ok(value.get_mut("result").map_or(Value::Null, Value::take)),
            };
            let _ = tx.send(answer);
        }
        return;
    }
    let Some(session) = value.get("sessionId").and_then(Value::as_str) else {
        return;
    };
    let mut sessions = routes.sessions.lock();
    let entry = sessions.entry(session.to_owned()).or_insert_with(|| {
        let (tx, rx) = crossbeam_channel::unbounded();
        (tx, Some(rx))
    });
    let _ = entry.0.send(value);
}

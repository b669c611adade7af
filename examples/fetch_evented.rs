//! A fetch-only bound with an event-driven client, for issue 19's open question: what would
//! a fetch layer of a few threads driving many connections cost, against the crawler's one
//! blocking thread per connection (`examples/fetch_only.rs`)? It fetches every URL of a list
//! (plain `http`, one origin) over CONNECTIONS keep-alive connections driven by THREADS
//! threads (default 1), each polling its connections with mio and speaking HTTP/1.1 through
//! ureq's own sans-IO protocol crate (ureq-proto, what ureq runs on), reading whole bodies and
//! doing nothing else. Redirects are read like any answer (not followed); no compression, TLS,
//! timeouts, or connections the server closes (it stops with an error): a lower bound on what
//! such a layer would cost, not a client.
//!
//! usage: fetch_evented URL_LIST CONNECTIONS [THREADS]   → prints "seconds requests bytes"

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::{Context, anyhow, bail};
use mio::net::TcpStream;
use mio::{Events, Interest, Poll, Token};
use ureq_proto::client::state::{RecvBody, RecvResponse};
use ureq_proto::client::{Call, RecvBodyResult, RecvResponseResult, SendRequestResult};
use ureq_proto::http::Request;

/// Where one connection is in its current request.
enum Phase {
    /// Waiting for the status line and headers.
    Head(Call<RecvResponse>),
    /// Reading the body.
    Body(Call<RecvBody>),
    /// No request (the list is used up).
    Done,
}

/// One keep-alive connection and its buffers.
struct Conn {
    stream: TcpStream,
    phase: Phase,
    /// Bytes read and not yet consumed: `input[start..end]`.
    input: Vec<u8>,
    start: usize,
    end: usize,
    /// The request bytes not yet written.
    out: Vec<u8>,
    out_pos: usize,
    /// The body being read.
    body: Vec<u8>,
}

/// The list, the next URL to fetch, and what was fetched.
struct Work<'a> {
    urls: &'a [String],
    next: AtomicUsize,
    requests: AtomicUsize,
    bytes: AtomicUsize,
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if !(3..=4).contains(&args.len()) {
        bail!("usage: fetch_evented URL_LIST CONNECTIONS [THREADS]");
    }
    let urls: Vec<String> = std::fs::read_to_string(&args[1])?
        .lines()
        .map(|l| l.trim().to_owned())
        .filter(|l| l.starts_with("http://"))
        .collect();
    let connections: usize = args[2].parse()?;
    let threads: usize = args.get(3).map_or(Ok(1), |t| t.parse())?;
    let first = urls.first().context("no http:// URL in the list")?;
    let authority = first
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap_or_default()
        .to_owned();
    let addr = authority
        .to_socket_addrs()?
        .next()
        .context("the URLs' host does not resolve")?;
    let work = Work {
        urls: &urls,
        next: AtomicUsize::new(0),
        requests: AtomicUsize::new(0),
        bytes: AtomicUsize::new(0),
    };
    let started = Instant::now();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads.max(1))
            .map(|t| {
                let share =
                    connections / threads.max(1) + usize::from(t < connections % threads.max(1));
                let work = &work;
                s.spawn(move || drive(addr, share.max(1), work))
            })
            .collect();
        handles
            .into_iter()
            .try_for_each(|h| h.join().map_err(|_| anyhow!("a thread panicked"))?)
    })?;
    println!(
        "{:.3} {} {}",
        started.elapsed().as_secs_f64(),
        work.requests.load(Ordering::Relaxed),
        work.bytes.load(Ordering::Relaxed)
    );
    Ok(())
}

/// Runs `count` connections on this thread until the list is used up.
fn drive(addr: SocketAddr, count: usize, work: &Work<'_>) -> anyhow::Result<()> {
    let mut poll = Poll::new()?;
    let mut conns: Vec<Conn> = Vec::with_capacity(count);
    for i in 0..count {
        let mut stream = TcpStream::connect(addr)?;
        poll.registry().register(
            &mut stream,
            Token(i),
            Interest::READABLE | Interest::WRITABLE,
        )?;
        let mut conn = Conn {
            stream,
            phase: Phase::Done,
            input: vec![0; 64 * 1024],
            start: 0,
            end: 0,
            out: Vec::with_capacity(512),
            out_pos: 0,
            body: Vec::new(),
        };
        start_next(&mut conn, work)?;
        conns.push(conn);
    }
    let mut events = Events::with_capacity(count.max(16));
    let mut scratch = vec![0u8; 64 * 1024];
    while conns.iter().any(|c| !matches!(c.phase, Phase::Done)) {
        poll.poll(&mut events, None)?;
        for event in events.iter() {
            let conn = &mut conns[event.token().0];
            step(conn, work, &mut scratch)?;
        }
    }
    Ok(())
}

/// Prepares the next request of the list on `conn` (or marks it done).
fn start_next(conn: &mut Conn, work: &Work<'_>) -> anyhow::Result<()> {
    let i = work.next.fetch_add(1, Ordering::Relaxed);
    let Some(url) = work.urls.get(i) else {
        conn.phase = Phase::Done;
        return Ok(());
    };
    let request = Request::get(url.as_str())
        .header("user-agent", "rccrawler-bench")
        .body(())?;
    let mut call = Call::new(request)?.proceed();
    conn.out.resize(4096, 0);
    let n = call.write(&mut conn.out)?;
    conn.out.truncate(n);
    conn.out_pos = 0;
    conn.phase = match call.proceed()? {
        Some(SendRequestResult::RecvResponse(c)) => Phase::Head(c),
        _ => bail!("a GET without a body went somewhere else than the response"),
    };
    conn.body.clear();
    flush(conn)
}

/// Writes what is left of the request, as far as the socket takes it.
fn flush(conn: &mut Conn) -> anyhow::Result<()> {
    while conn.out_pos < conn.out.len() {
        match conn.stream.write(&conn.out[conn.out_pos..]) {
            Ok(n) => conn.out_pos += n,
            Err(e) if e.kind() == ErrorKind::WouldBlock => break,
            Err(e) if e.kind() == ErrorKind::NotConnected => break,
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Acts on readiness: writes, reads until the socket is drained, and runs the protocol.
fn step(conn: &mut Conn, work: &Work<'_>, scratch: &mut [u8]) -> anyhow::Result<()> {
    flush(conn)?;
    loop {
        if conn.end == conn.input.len() {
            if conn.start > 0 {
                conn.input.copy_within(conn.start..conn.end, 0);
                conn.end -= conn.start;
                conn.start = 0;
            } else {
                let len = conn.input.len();
                conn.input.resize(len * 2, 0);
            }
        }
        match conn.stream.read(&mut conn.input[conn.end..]) {
            Ok(0) => bail!("the server closed a keep-alive connection"),
            Ok(n) => conn.end += n,
            Err(e) if e.kind() == ErrorKind::WouldBlock => break,
            Err(e) if e.kind() == ErrorKind::NotConnected => break,
            Err(e) => return Err(e.into()),
        }
        advance(conn, work, scratch)?;
    }
    advance(conn, work, scratch)
}

/// Feeds the bytes read to the protocol; starts the next request when a body ends.
fn advance(conn: &mut Conn, work: &Work<'_>, scratch: &mut [u8]) -> anyhow::Result<()> {
    loop {
        let phase = std::mem::replace(&mut conn.phase, Phase::Done);
        conn.phase = match phase {
            Phase::Done => return Ok(()),
            Phase::Head(mut call) => {
                let (used, response) =
                    call.try_response(&conn.input[conn.start..conn.end], false)?;
                conn.start += used;
                if response.is_none() {
                    conn.phase = Phase::Head(call);
                    return Ok(());
                }
                match call.proceed() {
                    Some(RecvResponseResult::RecvBody(body)) => Phase::Body(body),
                    Some(RecvResponseResult::Cleanup(_))
                    | Some(RecvResponseResult::Redirect(_)) => {
                        finish(conn, work, false)?;
                        continue;
                    }
                    None => bail!("a whole response head that cannot proceed"),
                }
            }
            Phase::Body(mut call) => {
                let (used, written) = call.read(&conn.input[conn.start..conn.end], scratch)?;
                conn.start += used;
                conn.body.extend_from_slice(&scratch[..written]);
                if call.can_proceed() {
                    let close = match call.proceed() {
                        Some(RecvBodyResult::Cleanup(c)) => c.must_close_connection(),
                        // A redirect's body is read: the connection goes on as after any page.
                        Some(RecvBodyResult::Redirect(_)) => false,
                        None => true,
                    };
                    finish(conn, work, close)?;
                    continue;
                }
                let stalled = used == 0 && written == 0;
                conn.phase = Phase::Body(call);
                if stalled {
                    return Ok(());
                }
                continue;
            }
        };
    }
}

/// A response is complete: counts it and starts the next request.
fn finish(conn: &mut Conn, work: &Work<'_>, close: bool) -> anyhow::Result<()> {
    if close {
        bail!("the server wants the connection closed (this bound keeps connections alive)");
    }
    work.requests.fetch_add(1, Ordering::Relaxed);
    work.bytes.fetch_add(conn.body.len(), Ordering::Relaxed);
    if conn.start == conn.end {
        conn.start = 0;
        conn.end = 0;
    }
    start_next(conn, work)
}

//! The status page's connections: each served on a thread of its own, so one slow client never
//! holds another's answer — nor, through it, the crawl's exit. A request's head must arrive
//! whole within [`HEAD_DEADLINE`] and [`MAX_HEAD`] bytes; at most [`MAX_OPEN`] connections are
//! open, and past that the oldest still sending its head is closed for the new one (a hundred
//! idle connections cannot lock a script out). A stop closes every connection at once.

use std::collections::HashMap;
use std::io::{self, Read};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// How long a client has to send its request's head, from the moment it connected.
pub(crate) const HEAD_DEADLINE: Duration = Duration::from_secs(2);
/// The longest head read.
pub(crate) const MAX_HEAD: usize = 16 * 1024;
/// Connections open at once.
pub(crate) const MAX_OPEN: usize = 64;
/// How long one write may wait for a client that does not read.
const WRITE_TIMEOUT: Duration = Duration::from_secs(5);

/// A request's method and target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Request {
    /// `GET`, `HEAD`, …
    pub(crate) method: String,
    /// The request target as sent.
    pub(crate) target: String,
}

/// An open connection: a handle to close it, when it was accepted, whether its head is still
/// awaited.
struct Open {
    stream: TcpStream,
    since: Instant,
    reading: bool,
}

/// The connections open now.
#[derive(Default)]
struct Registry {
    open: Mutex<HashMap<u64, Open>>,
}

impl Registry {
    /// Registers `stream` as connection `id`, closing the oldest still reading its head when
    /// [`MAX_OPEN`] are open; `false` when none can be closed (every one is being answered).
    fn admit(&self, id: u64, stream: &TcpStream) -> bool {
        let mut open = self.open.lock();
        if open.len() >= MAX_OPEN {
            let oldest = open
                .iter()
                .filter(|(_, o)| o.reading)
                .min_by_key(|(_, o)| o.since)
                .map(|(&id, _)| id);
            match oldest.and_then(|id| open.remove(&id)) {
                Some(o) => {
                    let _ = o.stream.shutdown(Shutdown::Both);
                }
                None => return false,
            }
        }
        match stream.try_clone() {
            Ok(handle) => {
                open.insert(
                    id,
                    Open {
                        stream: handle,
                        since: Instant::now(),
                        reading: true,
                    },
                );
                true
            }
            Err(_) => false,
        }
    }

    fn answering(&self, id: u64) {
        if let Some(o) = self.open.lock().get_mut(&id) {
            o.reading = false;
        }
    }

    fn done(&self, id: u64) {
        self.open.lock().remove(&id);
    }

    fn close_all(&self) {
        for (_, o) in self.open.lock().drain() {
            let _ = o.stream.shutdown(Shutdown::Both);
        }
    }
}

/// Accepts connections on `listener` (non-blocking) until `stop` is set, answering each
/// request with `answer` on a thread of its own; returns once every connection is closed.
pub(crate) fn serve(
    listener: &TcpListener,
    stop: &AtomicBool,
    answer: &(dyn Fn(&Request, &mut TcpStream) -> io::Result<()> + Sync),
) {
    let registry = Registry::default();
    let registry = &registry;
    std::thread::scope(|scope| {
        let mut next = 0u64;
        while !stop.load(Ordering::Relaxed) {
            match listener.accept() {
                Ok((stream, _)) => {
                    next += 1;
                    let id = next;
                    if !registry.admit(id, &stream) {
                        // Every slot answers a request: this client tries again later.
                        continue;
                    }
                    let spawned = std::thread::Builder::new()
                        .name("status-page".into())
                        .stack_size(256 * 1024)
                        .spawn_scoped(scope, move || {
                            // A client that fails or goes away costs its own answer only.
                            let _ = handle(stream, id, registry, answer);
                            registry.done(id);
                        });
                    if spawned.is_err() {
                        registry.done(id);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(_) => std::thread::sleep(Duration::from_millis(100)),
            }
        }
        registry.close_all();
    });
}

fn handle(
    mut stream: TcpStream,
    id: u64,
    registry: &Registry,
    answer: &(dyn Fn(&Request, &mut TcpStream) -> io::Result<()> + Sync),
) -> io::Result<()> {
    stream.set_nonblocking(false)?;
    let Some(request) = read_head(&mut stream, Instant::now() + HEAD_DEADLINE)? else {
        return Ok(());
    };
    registry.answering(id);
    stream.set_write_timeout(Some(WRITE_TIMEOUT))?;
    answer(&request, &mut stream)
}

/// Reads a request's head until its empty line, by `deadline`; `None` when the client sent
/// none in time, or more than [`MAX_HEAD`] bytes.
pub(crate) fn read_head(stream: &mut TcpStream, deadline: Instant) -> io::Result<Option<Request>> {
    let mut head = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(None);
        }
        stream.set_read_timeout(Some(left))?;
        let n = match stream.read(&mut chunk) {
            Ok(0) => return Ok(None),
            Ok(n) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Ok(None);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        head.extend_from_slice(&chunk[..n]);
        if let Some(end) = head_end(&head) {
            let text = String::from_utf8_lossy(&head[..end]);
            let mut words = text.lines().next().unwrap_or("").split_whitespace();
            return Ok(Some(Request {
                method: words.next().unwrap_or("").to_owned(),
                target: words.next().unwrap_or("").to_owned(),
            }));
        }
        if head.len() > MAX_HEAD {
            return Ok(None);
        }
    }
}

/// Where a head ends (its empty line, `\r\n` or bare `\n` line ends).
fn head_end(bytes: &[u8]) -> Option<usize> {
    bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .or_else(|| bytes.windows(2).position(|w| w == b"\n\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::sync::Arc;

    fn ok(_: &Request, out: &mut TcpStream) -> io::Result<()> {
        out.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
    }

    fn get(addr: std::net::SocketAddr) -> String {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let mut body = String::new();
        let _ = s.read_to_string(&mut body);
        body
    }

    #[test]
    fn idle_and_slow_clients_hold_neither_an_answer_nor_the_stop() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let server = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || serve(&listener, &stop, &ok))
        };
        // More idle connections than slots, and one that sends a header line now and then.
        let idle: Vec<TcpStream> = (0..MAX_OPEN + 36)
            .map(|_| TcpStream::connect(addr).unwrap())
            .collect();
        let mut slow = TcpStream::connect(addr).unwrap();
        slow.write_all(b"GET / HTTP/1.1\r\n").unwrap();
        std::thread::sleep(Duration::from_millis(100));
        let t = Instant::now();
        assert!(get(addr).ends_with("ok"));
        assert!(t.elapsed() < HEAD_DEADLINE, "{:?}", t.elapsed());
        // The slow client is cut at the head's deadline.
        let _ = slow.write_all(b"X-A: 1\r\n");
        std::thread::sleep(HEAD_DEADLINE + Duration::from_millis(300));
        let mut rest = Vec::new();
        slow.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        assert_eq!(slow.read_to_end(&mut rest).map_or(0, |n| n), 0);
        // A stop ends the server with connections still open.
        let t = Instant::now();
        stop.store(true, Ordering::Relaxed);
        server.join().unwrap();
        assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
        drop(idle);
    }

    #[test]
    fn a_head_over_its_size_is_not_answered() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let client = std::thread::spawn(move || {
            let mut s = TcpStream::connect(addr).unwrap();
            let _ = s.write_all(format!("GET /{} HTTP/1.1\r\n", "a".repeat(MAX_HEAD)).as_bytes());
            s
        });
        let (mut stream, _) = listener.accept().unwrap();
        let got = read_head(&mut stream, Instant::now() + Duration::from_secs(5)).unwrap();
        assert_eq!(got, None);
        drop(client.join());
        let client = std::thread::spawn(move || {
            let mut s = TcpStream::connect(addr).unwrap();
            s.write_all(b"GET /status.json HTTP/1.0\n\n").unwrap();
            s
        });
        let (mut stream, _) = listener.accept().unwrap();
        let got = read_head(&mut stream, Instant::now() + Duration::from_secs(5)).unwrap();
        assert_eq!(
            got,
            Some(Request {
                method: "GET".into(),
                target: "/status.json".into()
            })
        );
        drop(client.join());
    }
}

//! A small HTTP/1.1 server on 127.0.0.1 with programmable routes: it serves the bundled demo
//! site (`rccrawler demo`) and the test webs of the integration tests. Routes are keyed by
//! host name (from the `Host` header, so several names can share one port through the
//! crawler's `Resolve` setting) and path-and-query. It keeps a log of every request with its
//! start and end time, so tests can check politeness from the server's side.
//!
//! One thread per connection, persistent connections, idle connections closed after a few
//! seconds; at most [`MAX_CONNECTIONS`] at once. [`Server::start_tls`] serves HTTPS with the
//! certificate it is given (the tests make theirs).

mod arrival;
mod http;

use std::collections::HashMap;
use std::io::{self, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RwLock};

pub use http::Request;

/// Most connections served at once.
pub const MAX_CONNECTIONS: usize = 512;
/// An idle persistent connection is closed after this long.
const IDLE_TIMEOUT: Duration = Duration::from_secs(5);

/// A canned response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resp {
    /// Status code.
    pub status: u16,
    /// Headers (Content-Length / Transfer-Encoding are added).
    pub headers: Vec<(String, String)>,
    /// Body (already encoded if a Content-Encoding header is set).
    pub body: Vec<u8>,
    /// Wait this long before answering.
    pub delay: Duration,
    /// Send the body with chunked transfer encoding.
    pub chunked: bool,
}

impl Resp {
    /// A response with a content type.
    pub fn new(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        Resp {
            status,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: body.into(),
            delay: Duration::ZERO,
            chunked: false,
        }
    }

    /// A 200 text/html (UTF-8) page.
    pub fn html(body: impl Into<Vec<u8>>) -> Self {
        Resp::new(200, "text/html; charset=utf-8", body)
    }

    /// A redirect.
    pub fn redirect(status: u16, location: &str) -> Self {
        let mut r = Resp::new(
            status,
            "text/html",
            format!("<a href=\"{location}\">moved</a>"),
        );
        r.headers.push(("Location".into(), location.into()));
        r
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Answers after a delay.
    pub fn delayed(mut self, d: Duration) -> Self {
        self.delay = d;
        self
    }

    /// Sends the body chunked.
    pub fn chunked(mut self) -> Self {
        self.chunked = true;
        self
    }

    /// Gzip-encodes the body and says so.
    pub fn gzipped(mut self) -> Self {
        use flate2::write::GzEncoder;
        let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::default());
        let _ = enc.write_all(&self.body);
        self.body = enc.finish().unwrap_or_default();
        self.header("Content-Encoding", "gzip")
    }
}

/// Code that answers a request by writing to the raw stream (for misbehaving servers).
pub type Handler = Arc<dyn Fn(&Request, &mut TcpStream) -> io::Result<()> + Send + Sync>;

/// Code that builds a response for a request (for generated URL spaces).
pub type Generator = Arc<dyn Fn(&Request) -> Resp + Send + Sync>;

/// What a route does.
#[derive(Clone)]
pub enum Route {
    /// Send this response.
    Static(Resp),
    /// Send what this code builds.
    Generated(Generator),
    /// Run this code on the raw connection.
    Raw(Handler),
}

impl std::fmt::Debug for Route {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Route::Static(r) => write!(f, "Static({})", r.status),
            Route::Generated(_) => f.write_str("Generated"),
            Route::Raw(_) => f.write_str("Raw"),
        }
    }
}

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct RequestRecord {
    /// Host header, without port, lower case.
    pub host: String,
    /// Request target as sent (`/a/b?c`).
    pub target: String,
    /// When the request's first bytes reached the server's socket (the kernel's receive time
    /// on Linux: not delayed by the server thread's scheduling).
    pub start: Instant,
    /// When the response was about to be written (so a next request of the same client
    /// always starts after it).
    pub end: Instant,
    /// Status sent (0 for raw handlers).
    pub status: u16,
    /// The User-Agent header.
    pub user_agent: Option<String>,
}

#[derive(Default)]
struct Shared {
    /// Set: the server speaks HTTPS with this configuration.
    tls: Option<Arc<rustls::ServerConfig>>,
    routes: RwLock<HashMap<(String, String), Route>>,
    /// (host, target prefix, route), tried longest prefix first when no exact route matches.
    prefixes: RwLock<Vec<(String, String, Route)>>,
    log: Mutex<Vec<RequestRecord>>,
    stopping: AtomicBool,
    connections: AtomicUsize,
}

/// A running server; stops when dropped.
pub struct Server {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
    /// Arrival stamps on from the first request (see [`arrival::StampsOn`]).
    _stamps: arrival::StampsOn,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("addr", &self.addr).finish()
    }
}

impl Server {
    /// Starts on a free port of 127.0.0.1.
    pub fn start() -> io::Result<Server> {
        Server::start_on(0)
    }

    /// Starts on `port` of 127.0.0.1 (0: any free port).
    pub fn start_on(port: u16) -> io::Result<Server> {
        Server::start_with(port, None)
    }

    /// Starts an HTTPS server on a free port of 127.0.0.1, with `tls` (its certificate).
    pub fn start_tls(tls: Arc<rustls::ServerConfig>) -> io::Result<Server> {
        Server::start_with(0, Some(tls))
    }

    fn start_with(port: u16, tls: Option<Arc<rustls::ServerConfig>>) -> io::Result<Server> {
        let stamps = arrival::StampsOn::wait();
        let listener = TcpListener::bind(("127.0.0.1", port))?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            tls,
            ..Shared::default()
        });
        let s = Arc::clone(&shared);
        let accept = std::thread::Builder::new()
            .name("loopback-accept".into())
            .spawn(move || accept_loop(listener, s))?;
        Ok(Server {
            addr,
            shared,
            accept: Some(accept),
            _stamps: stamps,
        })
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Sets the route for `host` + `target` (path and query, e.g. `/a?b=1`).
    pub fn route(&self, host: &str, target: &str, route: Route) {
        self.shared
            .routes
            .write()
            .insert((host.to_ascii_lowercase(), target.to_owned()), route);
    }

    /// Sets the route for every target of `host` starting with `prefix` (exact routes win).
    pub fn route_prefix(&self, host: &str, prefix: &str, route: Route) {
        let mut p = self.shared.prefixes.write();
        p.push((host.to_ascii_lowercase(), prefix.to_owned(), route));
        p.sort_by_key(|r| std::cmp::Reverse(r.1.len()));
    }

    /// Sets a static response.
    pub fn set(&self, host: &str, target: &str, resp: Resp) {
        self.route(host, target, Route::Static(resp));
    }

    /// Every request so far, in the order their answers were written (which a descheduled
    /// server thread can swap: sort by `start` for the order they arrived in).
    pub fn requests(&self) -> Vec<RequestRecord> {
        self.shared.log.lock().clone()
    }

    /// How many times `host` + `target` was requested.
    pub fn hits(&self, host: &str, target: &str) -> usize {
        self.shared
            .log
            .lock()
            .iter()
            .filter(|r| r.host == host && r.target == target)
            .count()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        // Unblock accept().
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.stopping.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        if shared.connections.load(Ordering::SeqCst) >= MAX_CONNECTIONS {
            continue;
        }
        shared.connections.fetch_add(1, Ordering::SeqCst);
        let s = Arc::clone(&shared);
        let spawned = std::thread::Builder::new()
            .name("loopback-conn".into())
            .spawn(move || {
                let _ = serve_connection(stream, &s);
                s.connections.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            shared.connections.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

fn serve_connection(stream: TcpStream, shared: &Shared) -> io::Result<()> {
    stream.set_read_timeout(Some(IDLE_TIMEOUT))?;
    stream.set_nodelay(true)?;
    let conn = arrival::TimedConn::new(stream);
    match &shared.tls {
        None => serve(conn, shared),
        Some(config) => {
            let tls =
                rustls::ServerConnection::new(Arc::clone(config)).map_err(io::Error::other)?;
            // The handshake happens on the first read; a client that rejects the
            // certificate ends the connection there.
            serve(rustls::StreamOwned::new(tls, conn), shared)
        }
    }
}

fn serve(mut conn: impl arrival::Conn, shared: &Shared) -> io::Result<()> {
    let mut reader = http::HeadReader::default();
    loop {
        let Some((req, start)) = reader.read_request(&mut conn)? else {
            return Ok(());
        };
        let route = shared
            .routes
            .read()
            .get(&(req.host.clone(), req.target.clone()))
            .cloned()
            .or_else(|| {
                let prefixes = shared.prefixes.read();
                prefixes
                    .iter()
                    .find(|(h, p, _)| *h == req.host && req.target.starts_with(p.as_str()))
                    .map(|(_, _, r)| r.clone())
            });
        let resp = match route {
            Some(Route::Generated(make)) => Some(make(&req)),
            Some(Route::Static(resp)) => Some(resp),
            Some(Route::Raw(handler)) => {
                handler(&req, conn.tcp())?;
                None
            }
            None => Some(Resp::new(404, "text/html", "<h1>not found</h1>")),
        };
        let record = |status: u16, end: Instant| RequestRecord {
            host: req.host.clone(),
            target: req.target.clone(),
            start,
            end,
            status,
            user_agent: req.header("user-agent").map(str::to_owned),
        };
        let status = match resp {
            Some(resp) => {
                std::thread::sleep(resp.delay);
                // Taken before the answer is written: the client cannot start its next request
                // before it has the answer, so a later timestamp (this thread may be preempted
                // after writing) would show requests overlapping that never did. Logged before
                // it is written too: a client that has its answer (a crawl that ended) finds
                // its request in the log, not a moment later.
                shared.log.lock().push(record(resp.status, Instant::now()));
                http::write_response(&mut conn, &resp, &req)?;
                resp.status
            }
            None => {
                shared.log.lock().push(record(0, Instant::now()));
                0
            }
        };
        if req.close || status == 0 || shared.stopping.load(Ordering::SeqCst) {
            return Ok(());
        }
    }
}

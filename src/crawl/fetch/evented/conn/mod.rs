//! The sockets of the event-driven downloader: non-blocking keep-alive connections, polled
//! with mio — which connection serves which request, idle connections per origin, deadlines,
//! a kept connection tried again once. Each connection's exchange (HTTP/1.1 through ureq-proto,
//! the protocol code ureq itself runs on) is in `exchange`.
//!
//! A request goes through three steps the driver sees: [`Connections::send`] writes it (on an
//! idle connection of its site, or a new one), an [`Event::Head`] gives its status line and
//! headers, and the driver says what to do with the body — read it ([`Connections::read_body`],
//! an [`Event::Body`] follows) or not ([`Connections::discard`]: a small body is drained so
//! the connection serves the site's next request, as the blocking client does). Failures and
//! timeouts come as [`Event::Failed`].

mod slots;

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::io::ErrorKind;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mio::net::TcpStream;
use mio::{Events, Interest, Poll, Token, Waker};
use rustls::ClientConnection;
use ureq_proto::BodyMode;

use super::events::{Carried, ConnRef, ConnSettings, Event, NotSent, ReqId};
use super::exchange::{Conn, Progress, State, connect_error, origin_key, prepare, step};
use super::wire;
use crate::base::ids::SiteId;
use crate::crawl::fetch::FetchError;
use crate::crawl::fetch::SendTurn;
use crate::crawl::fetch::client::request_buffer_bytes;
use crate::crawl::fetch::resolver::CachingResolver;
use crate::crawl::fetch::response::DRAIN_BYTES;
use crate::crawl::settings::MAX_URL_LENGTH;
use crate::model::url_norm::NormUrl;

/// The token of the waker (the dispatcher's and the stop's wake-ups).
const WAKE: Token = Token(usize::MAX);

/// A connection's input buffer starts this small and grows, up to a whole response header's
/// `RESPONSE_HEADER_BYTES`, only for a head that needs it: a body passes through it in
/// pieces. An idle connection holds none (issue 69: a budgeted crawl keeps every site open,
/// and 4,000 idle connections held 16 KiB each, 65 MB of a 150 MB peak); the next read takes
/// it again.
pub(super) const INPUT_START: usize = 16 * 1024;

/// All connections of one driver.
pub struct Connections {
    poll: Poll,
    events: Events,
    waker: Arc<Waker>,
    conns: Vec<Option<Conn>>,
    free: Vec<usize>,
    idle: HashMap<SiteId, Vec<usize>>,
    idle_count: usize,
    deadlines: BinaryHeap<Reverse<(Instant, usize, u64)>>,
    generation: u64,
    resolver: CachingResolver,
    settings: ConnSettings,
    /// Events produced outside a poll (a body already buffered), given by the next one.
    ready: Vec<Event>,
    /// The connections a poll reported (kept to spare an allocation per poll).
    tokens: Vec<usize>,
    /// Where requests are written first.
    request_buffer: Vec<u8>,
    scratch: Vec<u8>,
}

impl std::fmt::Debug for Connections {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connections")
            .field("open", &(self.conns.len() - self.free.len()))
            .field("idle", &self.idle_count)
            .finish_non_exhaustive()
    }
}

impl Connections {
    /// No connections yet.
    pub(super) fn new(
        resolver: CachingResolver,
        settings: ConnSettings,
    ) -> std::io::Result<Connections> {
        let poll = Poll::new()?;
        let waker = Arc::new(Waker::new(poll.registry(), WAKE)?);
        let request_buffer = vec![0; request_buffer_bytes(MAX_URL_LENGTH, &settings.user_agent)];
        Ok(Connections {
            poll,
            events: Events::with_capacity(1024),
            waker,
            conns: Vec::new(),
            free: Vec::new(),
            idle: HashMap::new(),
            idle_count: 0,
            deadlines: BinaryHeap::new(),
            generation: 0,
            resolver,
            settings,
            ready: Vec::new(),
            tokens: Vec::new(),
            // One per loop: room for the longest URL any setting allows.
            request_buffer,
            scratch: vec![0; DRAIN_BYTES as usize],
        })
    }

    /// Wakes [`Self::poll`] from another thread.
    pub fn waker(&self) -> Arc<Waker> {
        Arc::clone(&self.waker)
    }

    /// Whether [`Self::send`] can send a request for `url` of `site` without blocking: http or
    /// https, on an idle connection to its origin or to a host whose address is known. Asked before
    /// the site's turn is taken, so that a request passed on to a blocking downloader does
    /// not spend a turn here first (a dropped turn counts as a request, and the site's delay
    /// would then be waited for twice).
    pub fn can_send(&self, site: SiteId, url: &NormUrl) -> bool {
        let parsed = url.as_url();
        if !matches!(parsed.scheme(), "http" | "https") {
            return false;
        }
        let origin = origin_key(parsed);
        let conns = &self.conns;
        let idle = self.idle.get(&site).is_some_and(|list| {
            list.iter().any(|&i| {
                conns
                    .get(i)
                    .and_then(Option::as_ref)
                    .is_some_and(|c| c.origin == origin)
            })
        });
        if idle {
            return true;
        }
        let port = parsed.port_or_known_default().unwrap_or(80);
        self.resolver.known(bare_host(parsed), port).is_some()
    }

    /// Sends a GET for `url` of `site` in the site's `turn` (ended once the request is
    /// written), with what it `carried` (the site's cookies for it, a re-crawl's validators).
    /// On an idle connection of the site if there is one.
    pub fn send(
        &mut self,
        req: ReqId,
        site: SiteId,
        url: &NormUrl,
        carried: Carried,
        turn: SendTurn,
    ) -> Result<ConnRef, NotSent> {
        let parsed = url.as_url();
        let https = match parsed.scheme() {
            "http" => false,
            "https" => true,
            _ => return Err(NotSent::Elsewhere),
        };
        let (out, call) = prepare(
            url,
            &self.settings.user_agent,
            &carried,
            &mut self.request_buffer,
        )
        .map_err(NotSent::Failed)?;
        let now = Instant::now();
        let origin = origin_key(parsed);
        let index = match self.take_idle(site, origin) {
            Some(i) => i,
            None => {
                let host = bare_host(parsed);
                let port = parsed.port_or_known_default().unwrap_or(80);
                let Some(mut addrs) = self.resolver.known(host, port) else {
                    return Err(NotSent::Elsewhere);
                };
                addrs.reverse();
                let tls = if https {
                    Some(wire::session(&self.settings.tls, host).map_err(NotSent::Failed)?)
                } else {
                    None
                };
                self.open(site, origin, tls, addrs, now)
                    .map_err(NotSent::Failed)?
            }
        };
        self.generation += 1;
        let generation = self.generation;
        let request_timeout = self.settings.request_timeout;
        let Some(conn) = self.conns[index].as_mut() else {
            return Err(NotSent::Failed(FetchError::Other("lost connection".into())));
        };
        conn.req = Some(req);
        conn.url = Some(url.clone());
        conn.carried = carried;
        conn.state = State::Head(Box::new(call));
        conn.out = out;
        conn.out_pos = 0;
        conn.turn = Some(turn);
        conn.answered = false;
        conn.close_after = false;
        conn.generation = generation;
        conn.deadline = now + request_timeout;
        let (deadline, connect_by, connected) = (conn.deadline, conn.connect_by, conn.connected);
        self.add_deadline(deadline, index, generation);
        if !connected {
            self.add_deadline(connect_by, index, generation);
        }
        // An established connection takes the request now; a new one once it connects.
        self.pump(index);
        Ok(ConnRef(index))
    }

    /// Reads the body of `req`'s answer, decoded, at most `cap` bytes: past it the request
    /// fails with `TooLarge`, or — `truncate` — the body ends there.
    pub fn read_body(&mut self, at: ConnRef, req: ReqId, cap: u64, truncate: bool) {
        let Some(conn) = self.conns[at.0]
            .as_mut()
            .filter(|c| c.req == Some(req) && matches!(c.state, State::Decide(_)))
        else {
            return;
        };
        let State::Decide(body) = std::mem::replace(&mut conn.state, State::Idle) else {
            return;
        };
        let Some(call) = body else {
            // No body (a HEAD-like answer): an empty one.
            self.ready.push(Event::Body(req, Ok(Vec::new())));
            let keep = !conn.close_after;
            self.release(at.0, keep);
            return;
        };
        let identity = conn.encoding.is_none();
        conn.cap = cap;
        conn.truncate = truncate;
        // Raw (compressed) bytes get a looser bound; the real cap applies after decoding.
        let raw = if identity {
            cap.saturating_add(1)
        } else {
            cap.saturating_add(cap / 8).saturating_add(64 * 1024)
        };
        conn.raw_limit = usize::try_from(raw).unwrap_or(usize::MAX);
        if let BodyMode::LengthDelimited(n) = call.body_mode()
            && identity
            && !truncate
        {
            if n > cap {
                // Declared over the cap: nothing of it is read (the blocking client reads
                // the cap and a byte, and fails the same way).
                self.ready
                    .push(Event::Body(req, Err(FetchError::TooLarge(cap))));
                self.close(at.0);
                return;
            }
            // Zeroed by the allocator (a large one comes zeroed from the system).
            conn.body = vec![0; n as usize];
            conn.filled = 0;
            conn.state = State::Direct;
            self.pump(at.0);
            return;
        }
        conn.body = Vec::new();
        conn.state = State::Body(call);
        self.pump(at.0);
    }

    /// `req`'s body is not wanted: a small one is read to its end so that the connection
    /// is kept; a large one closes it.
    pub fn discard(&mut self, at: ConnRef, req: ReqId) {
        let Some(conn) = self.conns[at.0].as_mut().filter(|c| c.req == Some(req)) else {
            return;
        };
        conn.req = None;
        let State::Decide(body) = std::mem::replace(&mut conn.state, State::Idle) else {
            self.close(at.0);
            return;
        };
        let Some(call) = body else {
            let keep = !conn.close_after;
            self.release(at.0, keep);
            return;
        };
        let small = match call.body_mode() {
            BodyMode::LengthDelimited(n) => n <= DRAIN_BYTES,
            BodyMode::Chunked => true,
            _ => false,
        };
        if !small {
            self.close(at.0);
            return;
        }
        conn.state = State::Drain(call, 0);
        self.pump(at.0);
    }

    /// `req` is given up: its connection is closed.
    pub fn abandon(&mut self, at: ConnRef, req: ReqId) {
        if self.conns[at.0]
            .as_ref()
            .is_some_and(|c| c.req == Some(req))
        {
            self.close(at.0);
        }
    }

    /// These sites are through: their idle connections are closed.
    pub fn sites_done(&mut self, sites: &[SiteId]) {
        for site in sites {
            for i in self.idle.remove(site).unwrap_or_default() {
                self.idle_count = self.idle_count.saturating_sub(1);
                self.close(i);
            }
        }
    }

    /// Waits at most `timeout` for something to happen, and appends what did to `out`
    /// (nothing when only the waker rang).
    pub fn poll(&mut self, timeout: Option<Duration>, out: &mut Vec<Event>) {
        let now = Instant::now();
        let nearest = self
            .deadlines
            .peek()
            .map(|Reverse((at, ..))| at.saturating_duration_since(now));
        let mut timeout = match (timeout, nearest) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if !self.ready.is_empty() {
            timeout = Some(Duration::ZERO);
        }
        if let Err(e) = self.poll.poll(&mut self.events, timeout)
            && e.kind() != ErrorKind::Interrupted
        {
            // Nothing to do about a failing poll but not to spin on it.
            std::thread::sleep(Duration::from_millis(1));
        }
        let mut tokens = std::mem::take(&mut self.tokens);
        tokens.clear();
        tokens.extend(
            self.events
                .iter()
                .map(|e| e.token())
                .filter(|t| *t != WAKE)
                .map(|t| t.0),
        );
        for &i in &tokens {
            self.pump(i);
        }
        self.tokens = tokens;
        self.expire(Instant::now());
        out.append(&mut self.ready);
    }

    /// Does what connection `i`'s socket allows: finish connecting, write, read and parse.
    fn pump(&mut self, i: usize) {
        let progress = match self.conns.get_mut(i).and_then(Option::as_mut) {
            Some(conn) => step(conn, &mut self.scratch, &mut self.ready),
            None => return,
        };
        match progress {
            Progress::Wait => {}
            Progress::Free(keep) => self.release(i, keep),
            Progress::Fail(e) => self.fail(i, e),
        }
    }

    /// Connection `i` failed: its request fails too — unless the connection was a kept one
    /// the server had closed before answering (it may close an idle connection at any
    /// time), or a connect to an address with others left: then it is tried again once on a
    /// fresh connection.
    fn fail(&mut self, i: usize, e: FetchError) {
        // An idle connection can fail too (the server reset it): out of the idle lists.
        let Some(conn) = self.unlink(i) else {
            return;
        };
        if let (State::Body(_) | State::Direct, Some(req)) = (&conn.state, conn.req) {
            // The head was answered: the body's failure is the body's (the blocking client
            // reports it from `read_body` too, and the walk logs the status it got).
            self.ready.push(Event::Body(req, Err(e)));
            return;
        }
        let Conn {
            site,
            origin,
            tls,
            addrs,
            addr,
            req,
            url,
            carried,
            reused,
            answered,
            connected,
            turn,
            ..
        } = conn;
        let Some(req) = req else { return };
        let again = if answered || e == FetchError::Timeout {
            None
        } else if reused {
            Some(vec![addr])
        } else if !connected && !addrs.is_empty() {
            Some(addrs)
        } else {
            None
        };
        if let (Some(addrs), Some(url)) = (again, url.as_ref()) {
            // A fresh connection is not retried again: its failure is the request's.
            // A TLS session is not reused across sockets: a fresh one for the same name.
            let tls = match tls {
                Some(_) => match wire::session(&self.settings.tls, bare_host(url.as_url())) {
                    Ok(t) => Some(t),
                    Err(e) => {
                        self.ready.push(Event::Failed(req, e));
                        return;
                    }
                },
                None => None,
            };
            let sent = self
                .open(site, origin, tls, addrs, Instant::now())
                .and_then(|index| self.start_on(index, req, url, carried, turn));
            match sent {
                Ok(()) => return,
                Err(e) => {
                    self.ready.push(Event::Failed(req, e));
                    return;
                }
            }
        }
        self.ready.push(Event::Failed(req, e));
    }

    /// Puts request `req` of `url` on the fresh connection `index`.
    fn start_on(
        &mut self,
        index: usize,
        req: ReqId,
        url: &NormUrl,
        carried: Carried,
        turn: Option<SendTurn>,
    ) -> Result<(), FetchError> {
        let (out, call) = prepare(
            url,
            &self.settings.user_agent,
            &carried,
            &mut self.request_buffer,
        )?;
        self.generation += 1;
        let generation = self.generation;
        let now = Instant::now();
        let Some(conn) = self.conns[index].as_mut() else {
            return Err(FetchError::Other("lost connection".into()));
        };
        conn.req = Some(req);
        conn.url = Some(url.clone());
        conn.carried = carried;
        conn.state = State::Head(Box::new(call));
        conn.out = out;
        conn.turn = turn;
        conn.generation = generation;
        conn.deadline = now + self.settings.request_timeout;
        let (deadline, connect_by) = (conn.deadline, conn.connect_by);
        self.add_deadline(deadline, index, generation);
        self.add_deadline(connect_by, index, generation);
        self.pump(index);
        Ok(())
    }

    /// Connection `i`'s request is over: it is kept for its site (within the idle budget)
    /// or closed.
    fn release(&mut self, i: usize, keep: bool) {
        let budget = self.settings.idle_budget;
        let Some(conn) = self.conns.get_mut(i).and_then(Option::as_mut) else {
            return;
        };
        conn.req = None;
        conn.url = None;
        conn.carried = Carried::default();
        conn.turn = None;
        conn.state = State::Idle;
        conn.body = Vec::new();
        conn.generation = 0;
        // Bytes read past the answer were sent by nobody's request: the next request would
        // take them for its answer.
        let stray = conn.start != conn.end;
        if !keep || stray || self.idle_count >= budget {
            self.close(i);
            return;
        }
        conn.input = Vec::new();
        conn.out = Vec::new();
        conn.start = 0;
        conn.end = 0;
        let site = conn.site;
        self.idle.entry(site).or_default().push(i);
        self.idle_count += 1;
    }

    /// Closes connection `i` (out of the idle lists too).
    fn close(&mut self, i: usize) {
        drop(self.unlink(i));
    }

    /// Takes connection `i` out: off the poll, out of the idle lists, its slot free.
    fn unlink(&mut self, i: usize) -> Option<Conn> {
        let mut conn = self.conns.get_mut(i).and_then(Option::take)?;
        if let Some(list) = self.idle.get_mut(&conn.site)
            && let Some(at) = list.iter().position(|&x| x == i)
        {
            list.swap_remove(at);
            self.idle_count = self.idle_count.saturating_sub(1);
            if list.is_empty() {
                self.idle.remove(&conn.site);
            }
        }
        let _ = self.poll.registry().deregister(&mut conn.stream);
        self.free.push(i);
        Some(conn)
    }
}

/// `url`'s host as a name or address, without an IPv6 literal's brackets (what the resolver
/// and TLS take).
fn bare_host(url: &url::Url) -> &str {
    url.host_str()
        .unwrap_or_default()
        .trim_start_matches('[')
        .trim_end_matches(']')
}

//! One connection's side of an exchange: its state (`State`, `Conn`), the request's bytes
//! written and the answer's read through the socket or TLS (`wire`), and the answer parsed
//! with ureq-proto — head, body (decoded within its cap), a small unwanted body drained — as
//! far as the bytes that arrived allow (`step`). `Connections` (conn.rs) owns the connections
//! and tells the driver what happened.

use std::io::ErrorKind;
use std::net::SocketAddr;
use std::time::Instant;

use mio::net::TcpStream;
use rustls::ClientConnection;
use ureq_proto::BodyMode;
use ureq_proto::client::state::{RecvBody, RecvResponse};
use ureq_proto::client::{Call, RecvBodyResult, RecvResponseResult, SendRequestResult};
use ureq_proto::http::Request;

use super::decode::decode;
use super::events::{Event, ReqId};
use super::wire;
use crate::base::ids::SiteId;
use crate::crawl::fetch::SendTurn;
use crate::crawl::fetch::client::RESPONSE_HEADER_BYTES;
use crate::crawl::fetch::head_fit;
use crate::crawl::fetch::response::DRAIN_BYTES;
use crate::crawl::fetch::response::OwnedHead;
use crate::crawl::fetch::{FetchError, request_uri};
use crate::model::url_norm::NormUrl;

use crate::crawl::fetch::head::{ACCEPT, ACCEPT_ENCODING};

/// Where a connection is in its request. The calls are boxed: inline they made every
/// connection 784 bytes, idle ones too (one kept per site: a budgeted crawl of 4,000 sites
/// held 3.2 MB of them), 400 of which only a request under way uses.
pub(super) enum State {
    /// No request; kept for the site's next one.
    Idle,
    /// The request is written (or being written); the head is awaited.
    Head(Box<Call<RecvResponse>>),
    /// The head went to the driver, which has not said what to do with the body yet
    /// (`None`: the answer has no body).
    Decide(Option<Box<Call<RecvBody>>>),
    /// The body is read for the driver.
    Body(Box<Call<RecvBody>>),
    /// A body of known length sent as is: read straight into `Conn::body` (its length), past
    /// the input buffer — through ureq-proto every byte was copied once more (4 % of a crawl's
    /// CPU samples on the Rust documentation).
    Direct,
    /// The body is read to be thrown away (`drained` bytes so far), keeping the connection.
    Drain(Box<Call<RecvBody>>, usize),
}

pub(super) struct Conn {
    pub(super) stream: TcpStream,
    /// For https: the TLS session over `stream`.
    pub(super) tls: Option<Box<ClientConnection>>,
    pub(super) site: SiteId,
    /// Which origin (scheme, host, port) it is connected to: a site's aliases may be other
    /// servers, and a TLS session is for one name.
    pub(super) origin: u64,
    /// The addresses not tried yet, for a connect that fails.
    pub(super) addrs: Vec<SocketAddr>,
    pub(super) addr: SocketAddr,
    pub(super) state: State,
    pub(super) req: Option<ReqId>,
    /// The URL requested, to send it again on a fresh connection.
    pub(super) url: Option<NormUrl>,
    /// What the request carries (its `Cookie`, a re-crawl's validators), to send it again
    /// with the URL.
    pub(super) carried: super::events::Carried,
    pub(super) connected: bool,
    /// It served a request before this one: the server may have closed it meanwhile.
    pub(super) reused: bool,
    /// The answer said the connection ends with it.
    pub(super) close_after: bool,
    /// The answer's head says the connection ends after its body (`Connection: close`, or
    /// HTTP/1.0 without keep-alive — as ureq-proto decides it).
    pub(super) head_close: bool,
    /// Bytes of a `Direct` body read so far.
    pub(super) filled: usize,
    /// Bytes of this request's answer arrived.
    pub(super) answered: bool,
    pub(super) input: Vec<u8>,
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) out: Vec<u8>,
    pub(super) out_pos: usize,
    /// The site's turn, ended when the request is written.
    pub(super) turn: Option<SendTurn>,
    /// Changes with every request, so that an old deadline does not hit a new one.
    pub(super) generation: u64,
    /// The request's deadline, and the connect's while it connects.
    pub(super) deadline: Instant,
    pub(super) connect_by: Instant,
    /// The body read so far, its encoding, its bounds.
    pub(super) body: Vec<u8>,
    pub(super) encoding: Option<String>,
    pub(super) raw_limit: usize,
    pub(super) cap: u64,
    pub(super) truncate: bool,
    /// `Archive = warc`: answers keep their heads for the archive.
    pub(super) archive: bool,
}

/// What a connection's state machine arrived at.
pub(super) enum Progress {
    /// Waiting for more input (or for the driver).
    Wait,
    /// The request is answered and the connection free: kept (`true`) or closed.
    Free(bool),
    /// Closed, the request failed (if it had one).
    Fail(FetchError),
}

/// Which origin `url` is on (scheme, host, port), as a key for idle connections.
pub(super) fn origin_key(url: &url::Url) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    url.scheme().hash(&mut h);
    url.host_str().hash(&mut h);
    url.port_or_known_default().hash(&mut h);
    h.finish()
}

/// The bytes of a GET for `url`, and the call awaiting its answer. `buffer` (of
/// [`request_buffer_bytes`](crate::crawl::fetch::client::request_buffer_bytes)) is written into and
/// kept: a fresh zeroed one for every request was a memset of 16 KiB a page.
pub(super) fn prepare(
    url: &NormUrl,
    user_agent: &str,
    carried: &super::events::Carried,
    buffer: &mut [u8],
) -> Result<(Vec<u8>, Call<RecvResponse>), FetchError> {
    let bad = |what: &str| FetchError::Other(format!("cannot build the request ({what})"));
    let mut request = Request::get(request_uri(url))
        .header("user-agent", user_agent)
        .header("accept", ACCEPT)
        .header("accept-encoding", ACCEPT_ENCODING);
    if let Some(cookie) = &carried.cookie {
        request = request.header("cookie", cookie);
    }
    for (name, value) in crate::crawl::fetch::head::conditions(carried.validators.as_ref()) {
        request = request.header(name, value);
    }
    let request = request.body(()).map_err(|e| bad(&e.to_string()))?;
    let mut call = Call::new(request)
        .map_err(|e| bad(&e.to_string()))?
        .proceed();
    // The buffer holds the longest line; a longer request is written a part at a time, as
    // ureq does (a request never fails for the length of its own headers).
    let mut out = Vec::new();
    while !call.can_proceed() {
        let n = call.write(buffer).map_err(|e| bad(&e.to_string()))?;
        if n == 0 {
            return Err(bad("incomplete"));
        }
        out.extend_from_slice(&buffer[..n]);
    }
    match call.proceed() {
        Ok(Some(SendRequestResult::RecvResponse(call))) => Ok((out, call)),
        _ => Err(bad("incomplete")),
    }
}

pub(super) fn connect_error(e: std::io::Error) -> FetchError {
    match e.kind() {
        ErrorKind::TimedOut => FetchError::Timeout,
        _ => FetchError::Refused,
    }
}

/// Advances one connection as far as its socket allows.
pub(super) fn step(conn: &mut Conn, scratch: &mut [u8], ready: &mut Vec<Event>) -> Progress {
    if let Some(p) = finish_connect(conn) {
        return p;
    }
    if let Some(p) = write_request(conn) {
        return p;
    }
    match read_until_decided(conn, scratch, ready) {
        Some(p) => p,
        None => closed(conn, ready),
    }
}

/// A connection not known to be connected yet: whether it is now (`None`: go on).
fn finish_connect(conn: &mut Conn) -> Option<Progress> {
    if conn.connected {
        return None;
    }
    match conn.stream.take_error() {
        Ok(Some(e)) | Err(e) => return Some(Progress::Fail(connect_error(e))),
        Ok(None) => {}
    }
    match conn.stream.peer_addr() {
        Ok(_) => {
            conn.connected = true;
            let _ = conn.stream.set_nodelay(true);
            None
        }
        Err(e) if e.kind() == ErrorKind::NotConnected => Some(Progress::Wait),
        Err(e) => Some(Progress::Fail(connect_error(e))),
    }
}

/// Writes what is left of the request; once it is all written, the site's turn ends (its
/// delay counts from now). `None`: go on reading.
fn write_request(conn: &mut Conn) -> Option<Progress> {
    let written = wire::write(
        &mut conn.stream,
        conn.tls.as_deref_mut(),
        &conn.out,
        &mut conn.out_pos,
    );
    match written {
        Ok(true) => {
            if let Some(turn) = conn.turn.take() {
                turn.pacer().sent();
            }
            None
        }
        // A TLS handshake goes on while the request waits: read what the server sends.
        Ok(false) if conn.tls.is_some() => None,
        Ok(false) => Some(Progress::Wait),
        Err(e) => Some(Progress::Fail(broken(e))),
    }
}

/// Reads and parses until the driver must decide, the socket has nothing more for now, or
/// the server closed the connection (`None`).
fn read_until_decided(
    conn: &mut Conn,
    scratch: &mut [u8],
    ready: &mut Vec<Event>,
) -> Option<Progress> {
    let mut eof = false;
    loop {
        match advance(conn, scratch, ready) {
            Progress::Wait => {}
            other => return Some(other),
        }
        if matches!(conn.state, State::Decide(_)) || eof {
            break;
        }
        if conn.start == conn.end {
            conn.start = 0;
            conn.end = 0;
        }
        let direct = matches!(conn.state, State::Direct) && conn.start == conn.end;
        if !direct && let Err(p) = make_room(conn) {
            return Some(p);
        }
        let buf = if direct {
            &mut conn.body[conn.filled..]
        } else {
            &mut conn.input[conn.end..]
        };
        match wire::read(&mut conn.stream, conn.tls.as_deref_mut(), buf) {
            Ok(0) => eof = true,
            Ok(n) if direct => conn.filled += n,
            Ok(n) => {
                conn.end += n;
                conn.answered |= conn.req.is_some();
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => return Some(Progress::Wait),
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Some(Progress::Fail(broken(e))),
        }
    }
    (!eof).then_some(Progress::Wait)
}

/// Room at the end of the input buffer: what was parsed is dropped, and a head that needs
/// more than the first buffer gets up to `RESPONSE_HEADER_BYTES`.
fn make_room(conn: &mut Conn) -> Result<(), Progress> {
    if conn.end < conn.input.len() {
        return Ok(());
    }
    if conn.input.is_empty() {
        // A new or idle connection's first read.
        conn.input.resize(super::conn::INPUT_START, 0);
        return Ok(());
    }
    if conn.start > 0 {
        conn.input.copy_within(conn.start..conn.end, 0);
        conn.end -= conn.start;
        conn.start = 0;
    } else if conn.input.len() < RESPONSE_HEADER_BYTES {
        conn.input.resize(RESPONSE_HEADER_BYTES, 0);
    } else {
        return Err(Progress::Fail(FetchError::BadResponse(
            "response header too large".into(),
        )));
    }
    Ok(())
}

/// The server closed the connection: what that means for the request on it.
fn closed(conn: &mut Conn, ready: &mut Vec<Event>) -> Progress {
    match std::mem::replace(&mut conn.state, State::Idle) {
        State::Idle => Progress::Free(false),
        State::Decide(call) => {
            // The driver decides on what is buffered; the socket will say nothing more.
            conn.state = State::Decide(call);
            Progress::Wait
        }
        State::Body(call) if call.body_mode() == BodyMode::CloseDelimited => {
            finish_body(conn, ready);
            Progress::Free(false)
        }
        State::Drain(call, _) if call.body_mode() == BodyMode::CloseDelimited => {
            Progress::Free(false)
        }
        State::Head(_) => Progress::Fail(FetchError::Broken("connection closed".into())),
        state @ (State::Body(_) | State::Drain(..) | State::Direct) => {
            conn.state = state;
            Progress::Fail(FetchError::Broken(
                "connection closed before the body ended".into(),
            ))
        }
    }
}

fn broken(e: std::io::Error) -> FetchError {
    if let Some(tls) = wire::tls_failure(&e) {
        return tls;
    }
    match e.kind() {
        ErrorKind::ConnectionRefused => FetchError::Refused,
        ErrorKind::TimedOut => FetchError::Timeout,
        _ => FetchError::Broken(e.to_string()),
    }
}

/// Parses what the input buffer holds.
fn advance(conn: &mut Conn, scratch: &mut [u8], ready: &mut Vec<Event>) -> Progress {
    loop {
        let next = match std::mem::replace(&mut conn.state, State::Idle) {
            State::Idle => {
                if conn.start != conn.end {
                    // Bytes nobody asked for: the connection is out of step.
                    return Progress::Free(false);
                }
                return Progress::Wait;
            }
            State::Decide(call) => {
                conn.state = State::Decide(call);
                return Progress::Wait;
            }
            State::Head(call) => on_head(conn, call, ready),
            State::Body(call) => on_body(conn, call, ready),
            State::Direct => Some(on_direct(conn, ready)),
            State::Drain(call, drained) => on_drain(conn, call, drained, scratch),
        };
        if let Some(progress) = next {
            return progress;
        }
    }
}

/// Whether a body's call has ended (a close-delimited body ends only with the connection).
fn has_ended(call: &Call<RecvBody>) -> bool {
    call.body_mode() != BodyMode::CloseDelimited && call.can_proceed()
}

/// An ended body's call: whether the connection may be kept for the site's next request.
fn keeps_connection(call: Call<RecvBody>) -> bool {
    match call.proceed() {
        Some(RecvBodyResult::Cleanup(c)) => !c.must_close_connection(),
        Some(RecvBodyResult::Redirect(r)) => !r.must_close_connection(),
        None => false,
    }
}

/// The head awaited: parsed when it is all there, and handed to the driver, which decides
/// on the body. `None`: a 1xx answer was consumed, parse on.
fn on_head(
    conn: &mut Conn,
    mut call: Box<Call<RecvResponse>>,
    ready: &mut Vec<Event>,
) -> Option<Progress> {
    if conn.out_pos < conn.out.len() {
        conn.state = State::Head(call);
        return Some(Progress::Wait);
    }
    let mut parsed = call.try_response(&conn.input[conn.start..conn.end], false);
    if matches!(parsed, Err(ureq_proto::Error::HttpParseTooManyHeaders)) {
        match head_fit::fit(&conn.input[conn.start..conn.end]) {
            head_fit::Fit::NeedMore => {
                conn.state = State::Head(call);
                return Some(Progress::Wait);
            }
            head_fit::Fit::Rewritten { used, head } => {
                replace_head(conn, used, &head);
                parsed = call.try_response(&conn.input[conn.start..conn.end], false);
            }
            head_fit::Fit::Unchanged | head_fit::Fit::Partial => {}
        }
    }
    let (used, response) = match parsed {
        Ok(r) => r,
        Err(e) => return Some(Progress::Fail(FetchError::BadResponse(e.to_string()))),
    };
    conn.start += used;
    let Some(response) = response else {
        conn.state = State::Head(call);
        // A 1xx answer was consumed: the real one may follow in the buffer.
        return (used == 0).then_some(Progress::Wait);
    };
    let head = own_head(conn, &response);
    let Some(req) = conn.req else {
        return Some(Progress::Free(false));
    };
    conn.state = match call.proceed() {
        Some(RecvResponseResult::RecvBody(body)) => State::Decide(Some(Box::new(body))),
        Some(RecvResponseResult::Cleanup(c)) => {
            conn.close_after = c.must_close_connection();
            State::Decide(None)
        }
        Some(RecvResponseResult::Redirect(r)) => {
            conn.close_after = r.must_close_connection();
            State::Decide(None)
        }
        None => {
            return Some(Progress::Fail(FetchError::BadResponse(
                "incomplete head".into(),
            )));
        }
    };
    ready.push(Event::Head(req, head));
    Some(Progress::Wait)
}

/// The input buffer's first `used` bytes replaced by `head` (a head rewritten by `head_fit`).
fn replace_head(conn: &mut Conn, used: usize, head: &[u8]) {
    let rest = conn.input[conn.start + used..conn.end].to_vec();
    let end = conn.start + head.len() + rest.len();
    if conn.input.len() < end {
        conn.input.resize(end, 0);
    }
    conn.input[conn.start..conn.start + head.len()].copy_from_slice(head);
    conn.input[conn.start + head.len()..end].copy_from_slice(&rest);
    conn.end = end;
}

/// The head as the driver reads it; the connection keeps its encoding and whether the
/// server closes it after this answer.
fn own_head(conn: &mut Conn, response: &ureq_proto::http::Response<()>) -> OwnedHead {
    let head = OwnedHead::of(response, conn.archive);
    conn.encoding = head.content_encoding.clone();
    let says = |token: &str| {
        response
            .headers()
            .get_all("connection")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .any(|t| t.trim().eq_ignore_ascii_case(token))
    };
    conn.head_close = says("close")
        || (response.version() == ureq_proto::http::Version::HTTP_10 && !says("keep-alive"));
    head
}

/// A body read for the driver through ureq-proto (chunked, compressed, close-delimited).
/// `None`: more was parsed, parse on.
fn on_body(
    conn: &mut Conn,
    mut call: Box<Call<RecvBody>>,
    ready: &mut Vec<Event>,
) -> Option<Progress> {
    let avail = conn.end - conn.start;
    let len = conn.body.len();
    conn.body.resize(len + avail.max(1), 0);
    let read = call.read(&conn.input[conn.start..conn.end], &mut conn.body[len..]);
    let (used, written) = match read {
        Ok(r) => r,
        Err(e) => {
            conn.state = State::Body(call);
            return Some(Progress::Fail(FetchError::BadResponse(e.to_string())));
        }
    };
    conn.body.truncate(len + written);
    conn.start += used;
    if conn.body.len() > conn.raw_limit {
        if !conn.truncate {
            conn.state = State::Body(call);
            return Some(Progress::Fail(FetchError::TooLarge(conn.cap)));
        }
        // robots.txt: what fits is enough; the rest is not read.
        finish_body(conn, ready);
        return Some(Progress::Free(false));
    }
    if has_ended(&call) {
        let keep = keeps_connection(*call);
        finish_body(conn, ready);
        return Some(Progress::Free(keep && conn.start == conn.end));
    }
    conn.state = State::Body(call);
    (used == 0 && written == 0).then_some(Progress::Wait)
}

/// A body of known length copied straight into its place.
fn on_direct(conn: &mut Conn, ready: &mut Vec<Event>) -> Progress {
    let take = (conn.end - conn.start).min(conn.body.len() - conn.filled);
    conn.body[conn.filled..conn.filled + take]
        .copy_from_slice(&conn.input[conn.start..conn.start + take]);
    conn.start += take;
    conn.filled += take;
    if conn.filled == conn.body.len() {
        finish_body(conn, ready);
        return Progress::Free(!conn.head_close && conn.start == conn.end);
    }
    conn.state = State::Direct;
    Progress::Wait
}

/// A body read to be thrown away (`drained` bytes so far): the connection is kept if it
/// ends within `DRAIN_BYTES`. `None`: more was parsed, parse on.
fn on_drain(
    conn: &mut Conn,
    mut call: Box<Call<RecvBody>>,
    drained: usize,
    scratch: &mut [u8],
) -> Option<Progress> {
    let read = call.read(&conn.input[conn.start..conn.end], scratch);
    let Ok((used, written)) = read else {
        return Some(Progress::Free(false));
    };
    conn.start += used;
    let drained = drained + written;
    if drained as u64 > DRAIN_BYTES {
        return Some(Progress::Free(false));
    }
    if has_ended(&call) {
        let keep = keeps_connection(*call);
        return Some(Progress::Free(keep && conn.start == conn.end));
    }
    conn.state = State::Drain(call, drained);
    (used == 0 && written == 0).then_some(Progress::Wait)
}

/// The body is complete: decoded, capped and given to the driver.
fn finish_body(conn: &mut Conn, ready: &mut Vec<Event>) {
    let raw = std::mem::take(&mut conn.body);
    let Some(req) = conn.req.take() else { return };
    let body = decode(raw, conn.encoding.as_deref(), conn.cap, conn.truncate);
    ready.push(Event::Body(req, body));
}

#[cfg(test)]
mod tests {
    /// An idle connection (one is kept per site: thousands in a budgeted crawl of many
    /// sites) holds no request's parser state inline: its state is a pointer and a tag.
    #[test]
    fn a_connection_keeps_its_request_state_out_of_line() {
        assert!(std::mem::size_of::<super::State>() <= 24);
        assert!(
            std::mem::size_of::<super::Conn>() <= 440,
            "{}",
            std::mem::size_of::<super::Conn>()
        );
    }
}

//! Just enough HTTP/1.1 for the loopback server: request heads in, responses out.

use std::io::{self, Write};
use std::time::Instant;

use super::Resp;
use super::arrival::Conn;

/// Largest request head accepted.
const MAX_HEAD: usize = 64 * 1024;

/// A parsed request head.
#[derive(Debug, Clone)]
pub struct Request {
    /// Method.
    pub method: String,
    /// Target as sent.
    pub target: String,
    /// Host header without port, lower case.
    pub host: String,
    /// Headers, names lower case.
    pub headers: Vec<(String, String)>,
    /// The client asked to close after this response.
    pub close: bool,
}

impl Request {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Reads request heads from a connection, keeping bytes that arrive early.
#[derive(Debug, Default)]
pub(super) struct HeadReader {
    buf: Vec<u8>,
    /// When the first bytes now in `buf` arrived.
    first_arrival: Option<Instant>,
}

impl HeadReader {
    /// The next request and when its first bytes arrived, or `None` when the client closed or
    /// went idle.
    pub(super) fn read_request(
        &mut self,
        conn: &mut impl Conn,
    ) -> io::Result<Option<(Request, Instant)>> {
        let mut chunk = [0u8; 8192];
        loop {
            if let Some(end) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&self.buf[..end]).into_owned();
                self.buf.drain(..end + 4);
                let arrived = self.first_arrival.unwrap_or_else(|| conn.arrival());
                if self.buf.is_empty() {
                    self.first_arrival = None;
                }
                return Ok(parse_head(&head).map(|r| (r, arrived)));
            }
            if self.buf.len() > MAX_HEAD {
                return Ok(None);
            }
            match conn.read(&mut chunk) {
                Ok(0) => return Ok(None),
                Ok(n) => {
                    if self.buf.is_empty() {
                        self.first_arrival = Some(conn.arrival());
                    }
                    self.buf.extend_from_slice(&chunk[..n]);
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    return Ok(None);
                }
                Err(e) => return Err(e),
            }
        }
    }
}

fn parse_head(head: &str) -> Option<Request> {
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split_whitespace();
    let method = first.next()?.to_owned();
    let mut target = first.next()?.to_owned();
    let version = first.next().unwrap_or("HTTP/1.1");
    // An absolute-form target (proxies) becomes origin-form.
    if let Some(rest) = target
        .strip_prefix("http://")
        .or_else(|| target.strip_prefix("https://"))
    {
        target = rest
            .find('/')
            .map_or_else(|| "/".to_owned(), |i| rest[i..].to_owned());
    }
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let host_header = headers
        .iter()
        .find(|(n, _)| n == "host")
        .map(|(_, v)| v.as_str())
        .unwrap_or("");
    let host = match host_header.strip_prefix('[') {
        Some(v6) => format!("[{}]", v6.split(']').next().unwrap_or("")),
        None => host_header.split(':').next().unwrap_or("").to_owned(),
    }
    .to_ascii_lowercase();
    let connection = headers
        .iter()
        .find(|(n, _)| n == "connection")
        .map(|(_, v)| v.to_ascii_lowercase());
    let close = connection.as_deref() == Some("close")
        || (version == "HTTP/1.0" && connection.as_deref() != Some("keep-alive"));
    Some(Request {
        method,
        target,
        host,
        headers,
        close,
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// Writes a canned response (no body for HEAD).
pub(super) fn write_response(
    stream: &mut impl Write,
    resp: &Resp,
    req: &Request,
) -> io::Result<()> {
    let mut out = Vec::with_capacity(resp.body.len() + 256);
    write!(out, "HTTP/1.1 {} {}\r\n", resp.status, reason(resp.status))?;
    for (n, v) in &resp.headers {
        write!(out, "{n}: {v}\r\n")?;
    }
    if resp.chunked {
        out.extend_from_slice(b"Transfer-Encoding: chunked\r\n");
    } else {
        write!(out, "Content-Length: {}\r\n", resp.body.len())?;
    }
    if req.close {
        out.extend_from_slice(b"Connection: close\r\n");
    }
    out.extend_from_slice(b"\r\n");
    if req.method != "HEAD" {
        if resp.chunked {
            for part in resp.body.chunks(1000) {
                write!(out, "{:x}\r\n", part.len())?;
                out.extend_from_slice(part);
                out.extend_from_slice(b"\r\n");
            }
            out.extend_from_slice(b"0\r\n\r\n");
        } else {
            out.extend_from_slice(&resp.body);
        }
    }
    stream.write_all(&out)?;
    stream.flush()
}

//! One HTTP client for the whole crawl (a connection pool per site, see `pools`): timeouts
//! on every request, no automatic redirects (we follow them ourselves, checking each hop),
//! 4xx/5xx as answers rather than errors, the `Resolve` overrides, and a cap on the body
//! *after* decompression (ureq's own limit counts compressed bytes, so it cannot stop a
//! compression bomb).

use std::io::Read;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use ureq::unversioned::transport::{Connector, DefaultConnector};

pub use super::fetch_error::FetchError;
use super::paced::PacedConnector;
use super::pacer::{Pacer, SendTurn};
use super::pools::AgentPools;
use super::resolver::CachingResolver;
use super::roots::{CaFileError, root_certs};
use crate::base::fd_limits::idle_connection_budget;
use crate::base::ids::SiteId;
use crate::crawl::settings::Settings;
use crate::model::url_norm::NormUrl;

/// A response whose body has not been read yet.
#[derive(Debug)]
pub struct Response {
    /// Status code.
    pub status: u16,
    /// `Location`, for redirects.
    pub location: Option<String>,
    /// `Content-Type`.
    pub content_type: Option<String>,
    /// `Retry-After`, for 429 and 503.
    pub retry_after: Option<String>,
    /// Every `Set-Cookie` value.
    pub set_cookies: Vec<String>,
    /// Every `X-Robots-Tag` value, one per line.
    pub robots_tag: Option<String>,
    content_encoding: Option<String>,
    /// The status line and headers for the archive (`Archive = warc`).
    pub(crate) archived_head: Option<Vec<u8>>,
    /// An archived answer whose body's reading failed when it was archived: reading it fails
    /// the same way.
    archived_error: Option<FetchError>,
    /// A `304` a re-crawl turned into the archived answer it stands for.
    pub(crate) not_modified: Option<Box<crate::formats::warc::archived::NotModified>>,
    inner: ureq::http::Response<ureq::Body>,
    /// The body was read (or its reading failed): nothing to drain.
    consumed: bool,
}

/// Unread bodies up to this size are read to their end when a response is dropped.
pub(super) const DRAIN_BYTES: u64 = 64 * 1024;

impl Drop for Response {
    /// A response dropped unread (a redirect, a 404, a non-HTML page) would close its
    /// connection: ureq only pools a connection whose body was read to the end. Reading a
    /// small body keeps it, sparing the site a new TCP (and TLS) handshake for the next
    /// request; in the politeness test a third of all requests opened a new connection.
    /// Larger bodies are not worth downloading just for that.
    fn drop(&mut self) {
        if self.consumed {
            return;
        }
        if self.content_length().is_some_and(|n| n > DRAIN_BYTES) {
            return;
        }
        let reader = self
            .inner
            .body_mut()
            .with_config()
            .limit(DRAIN_BYTES)
            .reader();
        // Decoded bytes are bounded too (a compressed body may expand).
        let _ = std::io::copy(&mut reader.take(DRAIN_BYTES), &mut std::io::sink());
    }
}

impl Response {
    /// The declared body length.
    fn content_length(&self) -> Option<u64> {
        self.inner
            .headers()
            .get("content-length")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
    }

    /// The body's length as declared, when it is sent as is (not compressed).
    pub fn declared_body_len(&self) -> Option<u64> {
        self.content_length()
            .filter(|_| self.content_encoding.is_none())
    }

    /// Reads the body, decompressed, failing with `TooLarge` past `cap` bytes.
    pub fn read_body(self, cap: u64) -> Result<Vec<u8>, FetchError> {
        let (body, truncated) = self.read_capped(cap)?;
        if truncated {
            return Err(FetchError::TooLarge(cap));
        }
        Ok(body)
    }

    /// Reads at most `cap` bytes of the decompressed body and ignores the rest (robots.txt).
    pub fn read_body_truncated(self, cap: u64) -> Result<Vec<u8>, FetchError> {
        Ok(self.read_capped(cap)?.0)
    }

    fn read_capped(mut self, cap: u64) -> Result<(Vec<u8>, bool), FetchError> {
        self.consumed = true;
        if let Some(e) = self.archived_error.take() {
            return Err(e);
        }
        // Sized from Content-Length when the body is not compressed: growing a page body by
        // doubling copied it several times (a sixtieth of the crawl's CPU).
        let declared = self
            .content_length()
            .filter(|_| self.content_encoding.is_none());
        // Raw (compressed) bytes get a looser bound; the real cap applies after decoding.
        let raw_limit = cap.saturating_add(cap / 8).saturating_add(64 * 1024);
        let reader = self
            .inner
            .body_mut()
            .with_config()
            .limit(raw_limit)
            .reader();
        let deflate = self
            .content_encoding
            .as_deref()
            .is_some_and(|e| e.trim().eq_ignore_ascii_case("deflate"));
        let mut body = Vec::with_capacity(declared.map_or(0, |n| n.min(cap) as usize + 1));
        let read = if deflate {
            // ureq does not decode `deflate`; servers send it zlib-wrapped (RFC 9110 §8.4.1.2).
            flate2::read::ZlibDecoder::new(reader)
                .take(cap + 1)
                .read_to_end(&mut body)
        } else {
            reader.take(cap + 1).read_to_end(&mut body)
        };
        if let Err(e) = read {
            return match ureq::Error::from(e) {
                // The raw bytes passed their bound: the decoded body is over the cap too.
                ureq::Error::BodyExceedsLimit(_) => Ok((body, true)),
                other => Err(other.into()),
            };
        }
        let truncated = body.len() as u64 > cap;
        body.truncate(cap as usize);
        Ok((body, truncated))
    }
}

/// Whether a Content-Type denotes an HTML page (SPEC §2.5).
pub fn is_html(content_type: Option<&str>) -> bool {
    content_type.is_some_and(|ct| {
        let essence = ct.split(';').next().unwrap_or_default().trim();
        essence.eq_ignore_ascii_case("text/html")
            || essence.eq_ignore_ascii_case("application/xhtml+xml")
    })
}

/// The request target for a normalized URL: characters that URLs may hold but HTTP request
/// lines may not (`{`, `|`, `^`, …) are percent-encoded.
pub fn request_uri(url: &NormUrl) -> String {
    let s = url.as_str();
    let allowed = |b: u8| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/?%[]".contains(&b);
    if s.bytes().all(allowed) {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for b in s.bytes() {
        if allowed(b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Largest response header accepted (ureq's default), and so the input buffer's size.
pub(super) const RESPONSE_HEADER_BYTES: usize = 64 * 1024;

/// The output buffer's least size: a GET request's lines (both downloaders write a request a
/// part at a time, so the buffer holds its longest line — the request line or the `Cookie`
/// header, capped at [`MAX_COOKIE_HEADER`](crate::model::cookies::MAX_COOKIE_HEADER)).
const REQUEST_BUFFER_BYTES: usize = 16 * 1024;

/// The output buffer for a crawl whose URLs are at most `max_url_length` bytes and whose
/// `User-Agent` is `user_agent`: its longest request line fits.
pub(crate) fn request_buffer_bytes(max_url_length: usize, user_agent: &str) -> usize {
    const ROOM: usize = 1024;
    REQUEST_BUFFER_BYTES
        .max(max_url_length + ROOM)
        .max(user_agent.len() + ROOM)
        .max(crate::model::cookies::MAX_COOKIE_HEADER + ROOM)
}

/// The shared HTTP client.
#[derive(Debug)]
pub struct HttpClient {
    pools: AgentPools,
    /// The name lookups every agent shares (and `DT1`'s loop reads).
    resolver: CachingResolver,
    /// No site can have more connections in use than there are downloaders.
    downloaders: u32,
    /// Set: requests still waiting for input are abandoned.
    abort: Arc<AtomicBool>,
    /// `Archive = warc`: answers keep their heads for the archive.
    archive: bool,
    /// `rccrawler rebuild`: answers come from this archive.
    archived: Option<Arc<crate::formats::warc::archived::ArchivedWeb>>,
}

impl HttpClient {
    /// Builds the client from settings; fails only when `CaFile` cannot be used.
    pub fn new(settings: &Settings) -> Result<Self, CaFileError> {
        let roots = root_certs(
            settings.http.ca_file.as_deref(),
            settings.location("CaFile"),
        )?;
        let tls = ureq::tls::TlsConfig::builder().root_certs(roots).build();
        let resolver = CachingResolver::new(Arc::clone(&settings.http.resolve));
        let resolver_shared = resolver.clone();
        let (request_timeout, connect_timeout) =
            (settings.http.request_timeout, settings.http.connect_timeout);
        let user_agent = settings.http.user_agent.clone();
        let output_buffer =
            request_buffer_bytes(settings.sites.max_url_length, &settings.http.user_agent);
        let abort = Arc::new(AtomicBool::new(false));
        let aborts = Arc::clone(&abort);
        let make = move |idle: usize, pacer: &Arc<Pacer>| {
            let config = ureq::Agent::config_builder()
                .tls_config(tls.clone())
                .timeout_global(Some(request_timeout))
                .timeout_connect(Some(connect_timeout))
                .http_status_as_error(false)
                .max_redirects(0)
                .user_agent(user_agent.as_str())
                .accept(super::head::ACCEPT)
                .max_idle_connections(idle)
                .max_idle_connections_per_host(idle)
                // A pooled connection keeps its buffers: ureq's 128 KiB each way would be
                // 256 KiB per idle socket (50 MB for 200 sites). The input buffer must hold a
                // whole response header; requests are one short GET.
                .max_response_header_size(RESPONSE_HEADER_BYTES)
                .input_buffer_size(RESPONSE_HEADER_BYTES)
                .output_buffer_size(output_buffer)
                .build();
            let connector = DefaultConnector::default().chain(PacedConnector {
                pacer: Arc::clone(pacer),
                abort: Arc::clone(&aborts),
            });
            ureq::Agent::with_parts(config, connector, resolver.clone())
        };
        Ok(HttpClient {
            resolver: resolver_shared,
            pools: AgentPools::new(idle_connection_budget(), make),
            downloaders: u32::try_from(settings.threads.max_downloaders()).unwrap_or(u32::MAX),
            abort,
            archive: settings.results.archive,
            archived: None,
        })
    }

    /// A client whose answers come from `archived` (`rccrawler rebuild`): nothing is sent.
    pub fn from_archive(
        settings: &Settings,
        archived: Arc<crate::formats::warc::archived::ArchivedWeb>,
    ) -> Result<Self, CaFileError> {
        let mut client = HttpClient::new(settings)?;
        client.archived = Some(archived);
        Ok(client)
    }

    /// The name lookups of this client (a clone shares its cache).
    pub(super) fn resolver(&self) -> CachingResolver {
        self.resolver.clone()
    }

    /// Requests still waiting for their answer give up (within a tenth of a second) with
    /// [`FetchError::Abandoned`]; so do all requests from now on.
    pub fn abandon_requests(&self) {
        self.abort.store(true, Ordering::Relaxed);
    }

    /// These sites are through: their idle connections are closed.
    pub fn sites_done(&self, sites: &[SiteId]) {
        self.pools.forget(sites);
    }

    /// Sends a GET for `url` of `site` in the site's next turn — every request of the
    /// blocking downloaders (a page, each redirect hop, robots.txt, a sitemap) waits for its
    /// site's delay right before it is sent — with the site's cookies for it (`Cookies =
    /// yes`). Returns the answer and when the request started; `None` when the crawl stopped
    /// first.
    ///
    /// `validators` (a re-crawl's, for a page): sent as `If-None-Match` / `If-Modified-Since`,
    /// and a `304` answer is the archived answer it stands for.
    pub(crate) fn get_in_turn(
        &self,
        env: &super::FetchEnv<'_>,
        site: &crate::model::sites::SiteEntry,
        url: &NormUrl,
        validators: Option<&crate::formats::warc::archived::Validators>,
    ) -> Option<(Result<Response, FetchError>, std::time::Instant)> {
        let turn = env.pacing.pace(site.id)?;
        let started = std::time::Instant::now();
        let cookie = env
            .options
            .cookies
            .then(|| site.cookies.header_for(url.as_url()))
            .flatten();
        let sent = self.get(
            site.id,
            site.spec.max_downloads,
            url,
            &turn,
            (cookie.as_deref(), validators),
        );
        let sent = match (sent, env.recrawl) {
            (Ok(r), Some(recrawl)) if r.status == 304 && validators.is_some() => {
                self.unchanged(recrawl, url, r)
            }
            (sent, _) => sent,
        };
        Some((sent, started))
    }

    /// The archived answer a `304` to `url` stands for (the 304 itself when the archive has
    /// none: a server answering 304 to what it was not asked).
    fn unchanged(
        &self,
        recrawl: &crate::formats::warc::archived::ArchivedWeb,
        url: &NormUrl,
        mut answer: Response,
    ) -> Result<Response, FetchError> {
        let Some((inner, refers)) = super::recrawl::unchanged(recrawl, url)? else {
            return Ok(answer);
        };
        let mut unchanged = Response::of(inner, false, None);
        // The archive keeps the 304 as it came, naming the answer it stands for.
        unchanged.archived_head = answer.archived_head.take();
        unchanged.not_modified = Some(Box::new(refers));
        Ok(unchanged)
    }

    /// Sends a GET for a task of `site`, which may have `connections` downloads at once (the
    /// size of its keep-alive pool), in the site's `turn`: the request's write ends the turn.
    /// Any status is an `Ok` answer; only transport problems are errors. `cookie`: the
    /// site's cookies for the URL (its jar's `Cookie` header); `validators`: a re-crawl's
    /// conditions.
    pub fn get(
        &self,
        site: SiteId,
        connections: u32,
        url: &NormUrl,
        turn: &SendTurn,
        (cookie, validators): (
            Option<&str>,
            Option<&crate::formats::warc::archived::Validators>,
        ),
    ) -> Result<Response, FetchError> {
        if let Some(archived) = &self.archived {
            let (inner, error) = super::from_archive::answer(archived, url)?;
            return Ok(Response::of(inner, self.archive, error));
        }
        let send = || {
            let agent = self
                .pools
                .agent(site, connections.min(self.downloaders), turn.pacer());
            let mut request = agent.get(request_uri(url));
            if let Some(cookie) = cookie {
                request = request.header("cookie", cookie);
            }
            for (name, value) in super::head::conditions(validators) {
                request = request.header(name, value);
            }
            request.call().map_err(FetchError::from)
        };
        super::paced::take_sent_on_kept();
        let inner = match send() {
            Ok(inner) => inner,
            // A kept connection the server had given up on breaks as the request goes out
            // (a server that closes idle connections after 300 ms, a crawl delay of 300 ms),
            // and the site's other kept ones may be as old: the site's pool is dropped and the
            // request sent once more on a fresh connection, as DT1 does. A fresh connection
            // that breaks is the server's answer: the retry waits its back-off.
            Err(FetchError::Broken(_)) if super::paced::take_sent_on_kept() => {
                self.pools.forget(&[site]);
                send()?
            }
            Err(e) => return Err(e),
        };
        Ok(Response::of(inner, self.archive, None))
    }
}

impl Response {
    /// The answer `inner`, its head kept for the archive when `archive`; `archived_error`:
    /// an archived answer's body fails this way.
    fn of(
        inner: ureq::http::Response<ureq::Body>,
        archive: bool,
        archived_error: Option<FetchError>,
    ) -> Response {
        let header = |name: &str| {
            inner
                .headers()
                .get(name)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        };
        Response {
            status: inner.status().as_u16(),
            location: header("location"),
            content_type: header("content-type"),
            retry_after: header("retry-after"),
            set_cookies: set_cookies(
                inner
                    .headers()
                    .get_all("set-cookie")
                    .iter()
                    .map(|v| v.as_bytes()),
            ),
            robots_tag: robots_tag(
                inner
                    .headers()
                    .get_all("x-robots-tag")
                    .iter()
                    .map(|v| v.as_bytes()),
            ),
            content_encoding: header("content-encoding"),
            archived_head: archive.then(|| {
                super::head::archived_head(inner.version(), inner.status(), inner.headers())
            }),
            archived_error,
            not_modified: None,
            inner,
            consumed: false,
        }
    }
}

/// Every `Set-Cookie` value of an answer (one header each; they are never folded into one),
/// from the values as bytes (both clients' header maps give them).
pub(crate) fn set_cookies<'a>(values: impl Iterator<Item = &'a [u8]>) -> Vec<String> {
    values
        .map(|v| String::from_utf8_lossy(v).into_owned())
        .collect()
}

/// Every `X-Robots-Tag` value of an answer, one per line (a header may come several times,
/// each for another crawler); none when there is none.
pub(crate) fn robots_tag<'a>(values: impl Iterator<Item = &'a [u8]>) -> Option<String> {
    let lines: Vec<String> = values
        .map(|v| String::from_utf8_lossy(v).replace(['\r', '\n'], " "))
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use ureq::http::Uri;

    use super::*;

    #[test]
    fn html_types() {
        assert!(is_html(Some("text/html")));
        assert!(is_html(Some("TEXT/HTML; charset=utf-8")));
        assert!(is_html(Some("application/xhtml+xml")));
        assert!(!is_html(Some("text/plain")));
        assert!(!is_html(Some("text/htmlx")));
        assert!(!is_html(None));
    }

    #[test]
    fn request_uris_are_valid_http() {
        for s in [
            "http://a.test/p{1}|x^y`z?q=\"1\"",
            "http://a.test/%D0%BF?a=1",
            "http://[::1]:8080/x",
        ] {
            let u = NormUrl::parse(s).unwrap();
            let r = request_uri(&u);
            assert!(r.parse::<Uri>().is_ok(), "{s} -> {r}");
        }
    }
}

//! One HTTP client for the whole crawl (a connection pool per site, see `pools`): timeouts
//! on every request, no automatic redirects (we follow them ourselves, checking each hop),
//! 4xx/5xx as answers rather than errors, the `Resolve` overrides, and a cap on the body
//! *after* decompression (ureq's own limit counts compressed bytes, so it cannot stop a
//! compression bomb).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use ureq::unversioned::transport::{Connector, DefaultConnector};

use super::fetch_error::FetchError;
use super::head::request_uri;
use super::paced::PacedConnector;
use super::pacer::{Pacer, SendTurn};
use super::pools::AgentPools;
use super::resolver::CachingResolver;
use super::response::Response;
use super::roots::{CaFileError, root_certs};
use super::transport::{Answer, Request, Transport};
use crate::base::fd_limits::idle_connection_budget;
use crate::base::ids::SiteId;
use crate::crawl::settings::Settings;
use crate::model::url_norm::NormUrl;

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
    /// Where requests go: the network, or an archive.
    transport: Box<dyn Transport>,
    /// The name lookups every agent shares (and `DT1`'s loop reads).
    resolver: CachingResolver,
    /// Set: requests still waiting for input are abandoned.
    abort: Arc<AtomicBool>,
    /// `Archive = warc`: answers keep their heads for the archive.
    archive: bool,
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
            transport: Box::new(Network {
                pools: AgentPools::new(idle_connection_budget(), make),
                downloaders: u32::try_from(settings.threads.max_downloaders()).unwrap_or(u32::MAX),
            }),
            abort,
            archive: settings.results.archive,
        })
    }

    /// A client whose requests go to `transport` instead of the network (`rccrawler
    /// rebuild`: an archive).
    pub(crate) fn over(
        settings: &Settings,
        transport: Box<dyn Transport>,
    ) -> Result<Self, CaFileError> {
        Ok(HttpClient {
            transport,
            ..HttpClient::new(settings)?
        })
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
        self.transport.sites_done(sites);
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
        let request = Request {
            site,
            connections,
            url,
            turn,
            cookie,
            validators,
        };
        let (inner, error) = self.transport.send(&request)?;
        Ok(Response::of(inner, self.archive, error))
    }
}

/// The network: a keep-alive pool per site.
#[derive(Debug)]
struct Network {
    pools: AgentPools,
    /// No site can have more connections in use than there are downloaders.
    downloaders: u32,
}

impl Transport for Network {
    fn send(&self, r: &Request<'_>) -> Result<Answer, FetchError> {
        let send = || {
            let connections = r.connections.min(self.downloaders);
            let agent = self.pools.agent(r.site, connections, r.turn.pacer());
            let mut request = agent.get(request_uri(r.url));
            if let Some(cookie) = r.cookie {
                request = request.header("cookie", cookie);
            }
            for (name, value) in super::head::conditions(r.validators) {
                request = request.header(name, value);
            }
            request.call().map_err(FetchError::from)
        };
        super::paced::take_sent_on_kept();
        match send() {
            Ok(inner) => Ok((inner, None)),
            // A kept connection the server had given up on breaks as the request goes out
            // (a server that closes idle connections after 300 ms, a crawl delay of 300 ms),
            // and the site's other kept ones may be as old: the site's pool is dropped and the
            // request sent once more on a fresh connection, as DT1 does. A fresh connection
            // that breaks is the server's answer: the retry waits its back-off.
            Err(FetchError::Broken(_)) if super::paced::take_sent_on_kept() => {
                self.pools.forget(&[r.site]);
                Ok((send()?, None))
            }
            Err(e) => Err(e),
        }
    }

    fn sites_done(&self, sites: &[SiteId]) {
        self.pools.forget(sites);
    }
}

#[cfg(test)]
mod tests {
    use ureq::http::Uri;

    use super::*;
    use crate::crawl::fetch::is_html;

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

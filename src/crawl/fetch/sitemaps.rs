//! Reading one site's sitemaps with the blocking client, in the site's turns (each request,
//! each redirect hop, takes the site's delay like any other), checked against its robots.txt.
//! Everything wrong is reported on the problem log and the reading goes on: a missing
//! `/sitemap.xml` (no `Sitemap:` line named one) is the usual case and says nothing.

use std::collections::{HashSet, VecDeque};

use std::io::Read;

use super::head::MAX_HOPS;
use super::{FetchEnv, FetchError, Head, HttpClient};
use crate::base::ids::SiteId;
use crate::crawl::message::Log;
use crate::model::sitemap::{
    Kind, MAX_DEPTH, MAX_FILE_BYTES, MAX_FILE_URLS, MAX_FILES, MAX_SITE_URLS, Sitemap,
    SitemapEntry, parse,
};
use crate::model::sites::SiteEntry;
use crate::model::url_norm::{self, NormUrl};

/// What fetching one sitemap file gave.
enum File {
    /// Its body (decompressed by the client when sent compressed), cut at
    /// [`MAX_FILE_BYTES`] (`cut`).
    Body { bytes: Vec<u8>, cut: bool },
    /// It could not be read: a status that is not 2xx (`Some(status)`), or why.
    Missing(Option<u16>, String),
    /// The crawl is stopping.
    Abandoned,
}

/// A site's sitemaps being read: the files to read, those queued already, the pages found.
struct Reading<'a> {
    site: &'a SiteEntry,
    log: &'a Log,
    /// Files to read, with how deep in indexes each was listed.
    queue: VecDeque<(NormUrl, usize)>,
    /// Files queued or read (an index listing one again, or itself, is a loop).
    queued: HashSet<String>,
    /// Robots.txt named the sitemaps (a missing one is then worth a word).
    named: bool,
    /// Pages found so far, each once: indices into `out.entries` (the URL is held once).
    listed: Listed,
    out: Sitemap,
    /// [`MAX_SITE_URLS`] was reached.
    full: bool,
    /// `MaxUrlLength`: a longer page URL is left out, as a longer link is.
    max_url_length: usize,
    /// Sitemaps indexes listed past [`MAX_FILES`], not queued.
    not_queued: usize,
}

/// Reads the sitemaps of site `site_id` (its robots.txt is known): those its `Sitemap:` lines
/// name, else `/sitemap.xml`. `None` when the crawl stopped meanwhile.
pub(crate) fn harvest(
    env: &FetchEnv<'_>,
    client: &HttpClient,
    site_id: SiteId,
    log: &Log,
) -> Option<Sitemap> {
    let site = env.sites.get(site_id);
    let mut r = Reading::new(&site, log, env.options.max_url_length);
    while let Some((url, depth)) = r.queue.pop_front() {
        if env.stop.is_requested() {
            return None;
        }
        if r.out.files as usize >= MAX_FILES {
            let more = r.queue.len();
            r.problem(
                &url,
                format!("sitemaps: {MAX_FILES} files read; this one and {more} more are not"),
            );
            break;
        }
        if let Some(why) = refused(&site, &url) {
            r.problem(&url, format!("sitemap not read: {why}"));
            continue;
        }
        let (bytes, cut) = match fetch(env, client, &site, &url, log) {
            File::Body { bytes, cut } => (bytes, cut),
            File::Missing(status, why) => {
                // Most sites have no /sitemap.xml: only a sitemap someone named is missed.
                if r.named || depth > 0 || status != Some(404) {
                    r.problem(&url, format!("sitemap not read: {why}"));
                }
                continue;
            }
            File::Abandoned => return None,
        };
        r.out.files += 1;
        r.read(&url, depth, bytes, cut);
    }
    if r.not_queued > 0 {
        r.problem(
            &"",
            format!(
                "sitemap indexes list {} more sitemaps than the {MAX_FILES} read per site: not read",
                r.not_queued
            ),
        );
    }
    if r.full {
        r.problem(
            &"",
            format!("sitemaps list more than {MAX_SITE_URLS} pages: the rest are left out"),
        );
    }
    Some(r.out)
}

impl<'a> Reading<'a> {
    /// The files to read first: those robots.txt names, else `/sitemap.xml`.
    fn new(site: &'a SiteEntry, log: &'a Log, max_url_length: usize) -> Self {
        let named: Vec<Box<str>> = site
            .robots()
            .map(|r| r.sitemaps().to_vec())
            .unwrap_or_default();
        let mut r = Reading {
            site,
            log,
            queue: VecDeque::new(),
            queued: HashSet::new(),
            named: !named.is_empty(),
            listed: Listed::default(),
            out: Sitemap::default(),
            full: false,
            max_url_length,
            not_queued: 0,
        };
        let home = site.origin.home();
        if named.is_empty()
            && let Ok(u) = url_norm::normalize(home.as_url(), "/sitemap.xml")
        {
            r.queued.insert(u.as_str().to_owned());
            r.queue.push_back((u, 0));
        }
        for s in &named {
            match url_norm::normalize(home.as_url(), s) {
                Ok(u) if r.queued.insert(u.as_str().to_owned()) => r.queue.push_back((u, 0)),
                Ok(_) => {}
                Err(e) => r.problem(
                    &s.as_ref(),
                    format!("robots.txt names a sitemap that is not a URL ({e})"),
                ),
            }
        }
        r
    }

    fn problem(&self, url: &impl ToString, what: String) {
        self.log.problem(&self.site.origin, url, what);
    }

    /// Reads one file's body (`cut` at [`MAX_FILE_BYTES`]), `depth` indexes deep.
    fn read(&mut self, url: &NormUrl, depth: usize, bytes: Vec<u8>, cut: bool) {
        let (body, cut) = gunzip(bytes, cut);
        if cut {
            let mb = MAX_FILE_BYTES >> 20;
            self.problem(
                url,
                format!(
                    "sitemap larger than {mb} MB (the protocol's limit): the first {mb} MB read"
                ),
            );
        }
        let parsed = parse(&body, MAX_FILE_URLS);
        drop(body);
        if let Some(e) = &parsed.error {
            self.problem(url, format!("sitemap: {e}"));
        }
        if parsed.over_limit > 0 {
            self.problem(
                url,
                format!(
                    "sitemap lists more than {MAX_FILE_URLS} URLs (the protocol's limit): {} more not read",
                    parsed.over_limit
                ),
            );
        }
        match parsed.kind {
            Some(Kind::Index) => self.index(url, depth, parsed.entries),
            Some(Kind::Pages) => self.pages(url, parsed.entries),
            None => {}
        }
    }

    /// An index's entries: the sitemaps it lists are queued, each once.
    fn index(&mut self, url: &NormUrl, depth: usize, entries: Vec<(String, String)>) {
        let mut again = 0usize;
        for (loc, _) in entries {
            let Ok(u) = url_norm::normalize(url.as_url(), &loc) else {
                continue;
            };
            if depth + 1 > MAX_DEPTH {
                self.problem(
                    &u,
                    format!("sitemap indexes nested deeper than {MAX_DEPTH}: not read"),
                );
            } else if self.queued.contains(u.as_str()) {
                again += 1;
            } else if self.queue.len() + self.out.files as usize >= MAX_FILES {
                // Never read: not queued either (10,000 indexes of 10,000 would queue 10^8).
                self.not_queued += 1;
            } else {
                self.queued.insert(u.as_str().to_owned());
                self.queue.push_back((u, depth + 1));
            }
        }
        if again > 0 {
            self.problem(
                url,
                format!("sitemap index lists {again} sitemaps read already (not read again)"),
            );
        }
    }

    /// A sitemap's pages: those on the site are kept, each once.
    fn pages(&mut self, url: &NormUrl, entries: Vec<(String, String)>) {
        let (mut outside, mut long) = (0usize, 0usize);
        for (loc, lastmod) in entries {
            let page = url_norm::normalize(url.as_url(), &loc)
                .ok()
                .filter(|u| on_site(self.site, u));
            let Some(page) = page else {
                outside += 1;
                continue;
            };
            if page.as_str().len() > self.max_url_length {
                long += 1;
                continue;
            }
            if self.out.entries.len() >= MAX_SITE_URLS {
                self.full = true;
                continue;
            }
            if self.listed.insert(&mut self.out.entries, page.as_str()) {
                let last = self.out.entries.len() - 1;
                // The last-modified date is short: a longer value is not one.
                let lastmod: Box<str> = if lastmod.len() <= 64 {
                    lastmod.into()
                } else {
                    "".into()
                };
                self.out.entries[last].lastmod = lastmod;
            }
        }
        if outside > 0 {
            self.problem(
                url,
                format!("sitemap lists {outside} URLs that are not on the site (left out)"),
            );
        }
        if long > 0 {
            self.problem(
                url,
                format!(
                    "sitemap lists {long} URLs longer than MaxUrlLength ({} bytes): left out",
                    self.max_url_length
                ),
            );
        }
    }
}

/// Whether `url` is on the site: one of its origins, or its host with either scheme, with
/// or without `www.`. Sitemaps are read before the home page shows where the site lives
/// (`http://a.test` that moved to `https://www.a.test`), and most name the URLs where it
/// lives now.
fn on_site(site: &SiteEntry, url: &NormUrl) -> bool {
    if site.contains(url.as_url()) {
        return true;
    }
    let bare = |h: &str| h.strip_prefix("www.").unwrap_or(h).to_owned();
    url.as_url()
        .host_str()
        .is_some_and(|h| bare(h).eq_ignore_ascii_case(&bare(site.origin.host())))
}

/// Why `url` is not fetched for the site's sitemap, if it is not: another host, or robots.txt.
fn refused(site: &SiteEntry, url: &NormUrl) -> Option<&'static str> {
    if !on_site(site, url) {
        return Some("it is on another host");
    }
    let allowed = site
        .robots()
        .is_none_or(|r| r.allowed(url.path_and_query()));
    (!allowed).then_some("robots.txt disallows it")
}

/// Fetches one sitemap file, following up to [`MAX_HOPS`] redirects on the site.
fn fetch(
    env: &FetchEnv<'_>,
    client: &HttpClient,
    site: &SiteEntry,
    start: &NormUrl,
    log: &Log,
) -> File {
    let mut url = start.clone();
    for _ in 0..=MAX_HOPS {
        let Some((sent, started)) = client.get_in_turn(env, site, &url, None) else {
            return File::Abandoned;
        };
        let cookie = || {
            env.options
                .cookies
                .then(|| site.cookies.header_for(url.as_url()))
                .flatten()
        };
        let response = match sent {
            Ok(r) => r,
            Err(FetchError::Abandoned) => return File::Abandoned,
            Err(e) => {
                env.archive_failure(&url, (cookie().as_deref(), None), started, &e);
                log.request(site.id, &url, 0, 0, started);
                return File::Missing(None, e.to_string());
            }
        };
        let capture = env.archive.and_then(|_| {
            env.capture(
                &url,
                &Head::of(&response),
                (cookie().as_deref(), None),
                started,
            )
        });
        if env.options.cookies && !response.set_cookies.is_empty() {
            site.cookies.store(url.as_url(), &response.set_cookies);
        }
        let status = response.status;
        if !(200..=299).contains(&status) {
            env.archive(capture.as_ref(), None);
        }
        match status {
            200..=299 => {
                let body = response.read_body_truncated(MAX_FILE_BYTES as u64 + 1);
                if body.as_ref().err() != Some(&FetchError::Abandoned) {
                    env.archive(capture.as_ref(), Some(body.as_deref()));
                }
                let bytes = body.as_ref().map_or(0, Vec::len) as u64;
                log.request(site.id, &url, status, bytes, started);
                return match body {
                    Ok(mut bytes) => {
                        let cut = bytes.len() > MAX_FILE_BYTES;
                        bytes.truncate(MAX_FILE_BYTES);
                        File::Body { bytes, cut }
                    }
                    Err(FetchError::Abandoned) => File::Abandoned,
                    Err(e) => File::Missing(None, e.to_string()),
                };
            }
            301 | 302 | 303 | 307 | 308 => {
                log.request(site.id, &url, status, 0, started);
                let next = response
                    .location
                    .as_deref()
                    .and_then(|l| url_norm::normalize(url.as_url(), l.trim()).ok());
                let Some(next) = next else {
                    return File::Missing(
                        Some(status),
                        format!("status {status} with no usable Location"),
                    );
                };
                if let Some(why) = refused(site, &next) {
                    return File::Missing(
                        Some(status),
                        format!("it redirects to {next}, and {why}"),
                    );
                }
                url = next;
            }
            s => {
                log.request(site.id, &url, s, 0, started);
                return File::Missing(Some(s), format!("status {s}"));
            }
        }
    }
    File::Missing(None, format!("more than {MAX_HOPS} redirects"))
}

/// A body sent as a gzip file (`sitemap.xml.gz`, not decoded by the client since it carries
/// no `Content-Encoding`) inflated, at most [`MAX_FILE_BYTES`]; anything else as it is.
/// Returns the body and whether it was cut.
fn gunzip(bytes: Vec<u8>, cut: bool) -> (Vec<u8>, bool) {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return (bytes, cut);
    }
    let mut out = Vec::new();
    let limit = MAX_FILE_BYTES as u64 + 1;
    // A damaged or cut archive gives what inflated before the fault: the parser reports the
    // XML it ends in.
    let _ = flate2::read::MultiGzDecoder::new(&bytes[..])
        .take(limit)
        .read_to_end(&mut out);
    let over = out.len() > MAX_FILE_BYTES;
    out.truncate(MAX_FILE_BYTES);
    (out, over)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_gzip_body_is_inflated_and_bounded() {
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(b"<urlset/>").unwrap_or_default();
        let packed = z.finish().unwrap_or_default();
        assert_eq!(gunzip(packed, false), (b"<urlset/>".to_vec(), false));
        assert_eq!(gunzip(b"<urlset/>".to_vec(), false).0, b"<urlset/>");
        // A gzip bomb stops at the limit.
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let zeros = vec![b' '; 1 << 20];
        for _ in 0..=(MAX_FILE_BYTES >> 20) {
            z.write_all(&zeros).unwrap_or_default();
        }
        let bomb = z.finish().unwrap_or_default();
        assert!(bomb.len() < 1 << 20);
        let (out, cut) = gunzip(bomb, false);
        assert_eq!(out.len(), MAX_FILE_BYTES);
        assert!(cut);
    }
}

/// A site's sitemap pages, each once: a table of indices into the entries, hashed by URL, so
/// that each URL is held once (in its entry) — a million listed URLs are not kept twice.
#[derive(Default)]
struct Listed(hashbrown::HashTable<u32>);

impl Listed {
    fn hash(url: &str) -> u64 {
        xxhash_rust::xxh3::xxh3_64(url.as_bytes())
    }

    /// Appends an entry for `url` to `entries` unless it is there: whether it was appended.
    fn insert(&mut self, entries: &mut Vec<SitemapEntry>, url: &str) -> bool {
        let h = Listed::hash(url);
        let found = self.0.find(h, |&i| {
            entries.get(i as usize).is_some_and(|e| &*e.url == url)
        });
        if found.is_some() {
            return false;
        }
        let i = u32::try_from(entries.len()).unwrap_or(u32::MAX);
        self.0.insert_unique(h, i, |&j| {
            entries.get(j as usize).map_or(0, |e| Listed::hash(&e.url))
        });
        entries.push(SitemapEntry {
            url: url.into(),
            lastmod: "".into(),
            seed: false,
        });
        true
    }
}

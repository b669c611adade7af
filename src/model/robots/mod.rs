//! robots.txt (SPEC §2.1): the rules of one site, parsed once when its `/robots.txt` arrives
//! and then queried by the downloaders (every URL and every redirect hop) and by the data
//! manager (links found on pages). Two flavours, chosen by `RobotsTxtClass`.

mod lines;
pub mod only_disallow;
pub mod rfc9309;

use std::fmt::Debug;
use std::sync::Arc;
use std::time::Duration;

pub use only_disallow::OnlyDisallowRules;
pub use rfc9309::{Rfc9309Rules, is_valid_product_token, product_token};

/// RFC 9309 asks parsers to read at least 500 KiB; anything after that is ignored.
pub const MAX_ROBOTS_BYTES: usize = 500 * 1024;

/// The longest delay between two requests to a site: a robots.txt `Crawl-delay` above it is
/// taken as this (and hosts.txt's `crawlDelay` accepts no more). Any larger value says "hardly
/// ever" as well, and one beyond what a clock can add (10^19 seconds is a valid `Duration`)
/// stopped the crawl with a panic (issue 44).
pub const MAX_CRAWL_DELAY: Duration = Duration::from_secs(3600);

/// The capability every robots.txt flavour offers.
pub trait RobotsRules: Debug + Send + Sync {
    /// Whether a URL with this path-and-query (`/a/b?c=d`) may be fetched.
    fn allowed(&self, path_and_query: &str) -> bool;
    /// The `Crawl-delay` that applies to us, if any; at most [`MAX_CRAWL_DELAY`].
    fn crawl_delay(&self) -> Option<Duration>;
    /// The bad-link reason for a URL these rules deny.
    fn denial_reason(&self) -> &str {
        "robots"
    }
    /// The sitemaps its `Sitemap:` lines name (SPEC §17), as written.
    fn sitemaps(&self) -> &[Box<str>] {
        &[]
    }
}

/// `Sitemap:` lines read of one robots.txt at most (each names a file of up to 50,000 URLs).
const MAX_SITEMAP_LINES: usize = 1_000;

/// Rules of a robots.txt with `Sitemap:` lines: its rules, and the sitemaps it names. Sitemap
/// lines belong to no group, so either flavour's rules are wrapped the same way, and a
/// robots.txt without them (most) costs nothing.
#[derive(Debug)]
struct WithSitemaps {
    rules: Arc<dyn RobotsRules>,
    sitemaps: Vec<Box<str>>,
}

impl RobotsRules for WithSitemaps {
    fn allowed(&self, path_and_query: &str) -> bool {
        self.rules.allowed(path_and_query)
    }
    fn crawl_delay(&self) -> Option<Duration> {
        self.rules.crawl_delay()
    }
    fn denial_reason(&self) -> &str {
        self.rules.denial_reason()
    }
    fn sitemaps(&self) -> &[Box<str>] {
        &self.sitemaps
    }
}

/// `rules`, parsed of `body`, with the sitemaps `body`'s `Sitemap:` lines name.
pub(crate) fn with_sitemaps(rules: Arc<dyn RobotsRules>, body: &[u8]) -> Arc<dyn RobotsRules> {
    let mut sitemaps: Vec<Box<str>> = Vec::new();
    lines::for_each_record(capped(body), |r| {
        if r.key == lines::Key::Sitemap && sitemaps.len() < MAX_SITEMAP_LINES {
            let value = String::from_utf8_lossy(r.value);
            let value = value.trim();
            if !value.is_empty() && !sitemaps.iter().any(|s| &**s == value) {
                sitemaps.push(value.into());
            }
        }
    });
    if sitemaps.is_empty() {
        return rules;
    }
    Arc::new(WithSitemaps { rules, sitemaps })
}

/// A `RobotsTxtClass`: parses a 2xx robots.txt body for product token `agent`. The body is
/// capped at [`MAX_ROBOTS_BYTES`] by the implementations.
pub type RobotsParse = fn(body: &[u8], agent: &str) -> Arc<dyn RobotsRules>;

/// The first [`MAX_ROBOTS_BYTES`] of a body: what RFC 9309 asks parsers to read.
fn capped(body: &[u8]) -> &[u8] {
    &body[..body.len().min(MAX_ROBOTS_BYTES)]
}

impl Rfc9309Rules {
    /// `Rfc9309RobotsTxt` as a [`RobotsParse`].
    pub fn parse_shared(body: &[u8], agent: &str) -> Arc<dyn RobotsRules> {
        Arc::new(Rfc9309Rules::parse(capped(body), agent))
    }
}

impl OnlyDisallowRules {
    /// `OnlyDisallowRobotsTxt` as a [`RobotsParse`].
    pub fn parse_shared(body: &[u8], agent: &str) -> Arc<dyn RobotsRules> {
        Arc::new(OnlyDisallowRules::parse(capped(body), agent))
    }
}

/// Everything allowed: robots.txt answered 4xx (RFC 9309 §2.3.1.3).
#[derive(Debug, Clone, Copy, Default)]
pub struct AllowAll;

impl AllowAll {
    /// The one shared instance: most sites answer robots.txt with a 404, and each of their
    /// origins keeps its rules for the whole crawl (an `Arc` each is 32 bytes a site).
    pub fn shared() -> Arc<dyn RobotsRules> {
        static SHARED: std::sync::LazyLock<Arc<AllowAll>> =
            std::sync::LazyLock::new(|| Arc::new(AllowAll));
        Arc::clone(&*SHARED) as Arc<dyn RobotsRules>
    }
}

impl RobotsRules for AllowAll {
    fn allowed(&self, _: &str) -> bool {
        true
    }
    fn crawl_delay(&self) -> Option<Duration> {
        None
    }
}

/// Everything disallowed: robots.txt answered 5xx or could not be fetched (RFC 9309 §2.3.1.4).
#[derive(Debug, Clone, Default)]
pub struct DisallowAll {
    /// Why robots.txt was unavailable (`robots.txt unavailable (status 503)`).
    pub reason: String,
}

impl RobotsRules for DisallowAll {
    fn allowed(&self, _: &str) -> bool {
        false
    }
    fn crawl_delay(&self) -> Option<Duration> {
        None
    }
    fn denial_reason(&self) -> &str {
        &self.reason
    }
}

/// The path, params and query of a URL as Google's matcher sees it (`GetPathParamsQuery`):
/// fragment dropped, `/` when empty. Used where a raw URL string (not a `NormUrl`) is checked.
pub fn path_params_query(url: &str) -> String {
    let search_start = if url.starts_with("//") { 2 } else { 0 };
    let find_any = |from: usize, set: &[u8]| {
        url.as_bytes()[from.min(url.len())..]
            .iter()
            .position(|b| set.contains(b))
            .map(|p| p + from)
    };
    let early_path = find_any(search_start, b"/?;");
    let mut protocol_end = url[search_start.min(url.len())..]
        .find("://")
        .map(|p| p + search_start);
    if let (Some(early), Some(proto)) = (early_path, protocol_end)
        && early < proto
    {
        protocol_end = None;
    }
    let protocol_end = protocol_end.map_or(search_start, |p| p + 3);
    if let Some(path_start) = find_any(protocol_end, b"/?;") {
        let hash = url[search_start.min(url.len())..]
            .find('#')
            .map(|p| p + search_start);
        if hash.is_some_and(|h| h < path_start) {
            return "/".to_owned();
        }
        let path_end = hash.unwrap_or(url.len());
        let path = &url[path_start..path_end];
        return if path.starts_with('/') {
            path.to_owned()
        } else {
            format!("/{path}")
        };
    }
    "/".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sitemap_lines_belong_to_no_group_and_wrap_either_flavour() {
        let body = b"User-agent: other\nDisallow: /\nSitemap: http://a.test/s.xml # c\n\
            User-agent: *\nDisallow: /p\nCrawl-delay: 2\nsite-map: /rel.xml\n\
            Sitemap: http://a.test/s.xml\nSitemap:\n";
        for parse in [Rfc9309Rules::parse_shared, OnlyDisallowRules::parse_shared] {
            let rules = with_sitemaps(parse(body, "rccrawler"), body);
            let named: Vec<&str> = rules.sitemaps().iter().map(|s| &**s).collect();
            assert_eq!(named, ["http://a.test/s.xml", "/rel.xml"]);
            assert!(!rules.allowed("/p"));
            assert!(rules.allowed("/q"));
            assert_eq!(rules.crawl_delay(), Some(Duration::from_secs(2)));
        }
        let plain = b"User-agent: *\nDisallow: /p\n";
        let rules = with_sitemaps(Rfc9309Rules::parse_shared(plain, "rccrawler"), plain);
        assert!(rules.sitemaps().is_empty());
        assert!(AllowAll.sitemaps().is_empty());
    }
}

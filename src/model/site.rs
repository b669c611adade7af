//! What a *site* is (SPEC §2): one scheme + host + port. Subdomains are other sites.
//!
//! A site is the unit of politeness (robots.txt, concurrent downloads, crawl delay). It is a
//! different idea from a crawl *scope* (`data::ScopeId`): the set of URLs one seed's crawl
//! covers, which the URL filter decides and which may span several sites.

use std::fmt;
use std::time::Duration;

use url::Url;

use crate::model::url_norm::NormUrl;

/// Checks that `host` (as a URL gives it: lower case, punycode) is a host name or an IP
/// address a site can have: labels of letters, digits, `-` and `_` (which real intranet
/// hosts use), none empty or longer than 63 bytes, 253 bytes at most in all. `Err` says
/// what is wrong, for the user (`alpha.test,2,1,0`: a hosts.txt line with `,` for `;`).
pub fn check_host_name(host: &str) -> Result<(), String> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if bare.parse::<std::net::IpAddr>().is_ok() {
        return Ok(());
    }
    if host.is_empty() {
        return Err("the host name is empty".into());
    }
    if host.len() > 253 {
        return Err(format!("the host name {host:?} is longer than 253 bytes"));
    }
    if let Some(c) = host
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')))
    {
        return Err(format!(
            "{host:?} is not a host name: it holds {c:?} (host names hold letters, digits, '-' and '.')"
        ));
    }
    for label in host.trim_end_matches('.').split('.') {
        if label.is_empty() {
            return Err(format!("{host:?} has an empty label (two dots in a row)"));
        }
        if label.len() > 63 {
            return Err(format!("{host:?} has a label longer than 63 bytes"));
        }
        if label.starts_with('-') || label.ends_with('-') {
            return Err(format!("{host:?} has a label starting or ending with '-'"));
        }
    }
    Ok(())
}

/// `http` or `https`: the only schemes crawled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scheme {
    /// Plain HTTP, default port 80.
    Http,
    /// HTTP over TLS, default port 443.
    Https,
}

impl Scheme {
    /// Parses a scheme name (already lower-case in a parsed URL).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "http" => Some(Scheme::Http),
            "https" => Some(Scheme::Https),
            _ => None,
        }
    }

    /// The scheme name.
    pub fn as_str(self) -> &'static str {
        match self {
            Scheme::Http => "http",
            Scheme::Https => "https",
        }
    }

    /// The port used when a URL names none.
    pub fn default_port(self) -> u16 {
        match self {
            Scheme::Http => 80,
            Scheme::Https => 443,
        }
    }
}

/// The identity of a site: scheme, host (lower-case, punycode) and port.
///
/// The host is shared between clones: a crawl of thousands of sites keeps each listed origin
/// in several indexes (seeds, sites, aliases, retired scopes), and one host string each, not
/// one per index, is what keeps finished sites small (SPEC §11).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Origin {
    scheme: Scheme,
    host: std::sync::Arc<str>,
    port: u16,
}

impl Origin {
    /// The origin of an http(s) URL with a host.
    pub fn of(url: &Url) -> Option<Self> {
        let scheme = Scheme::from_name(url.scheme())?;
        let host = url.host_str().filter(|h| !h.is_empty())?;
        let port = url.port().unwrap_or(scheme.default_port());
        Some(Origin {
            scheme,
            host: host.into(),
            port,
        })
    }

    /// The origin `scheme://host:port` (host already lower-case and punycoded).
    pub fn new(scheme: Scheme, host: &str, port: u16) -> Self {
        Origin {
            scheme,
            host: host.into(),
            port,
        }
    }

    /// Parses an origin written as a URL (`http://x.test:81`), as saved state holds them.
    pub fn parse(text: &str) -> Option<Self> {
        Origin::of(&Url::parse(text).ok()?)
    }

    /// Whether `url` belongs to this site. Allocation-free: runs for every link.
    pub fn contains(&self, url: &Url) -> bool {
        url.scheme() == self.scheme.as_str()
            && url.host_str() == Some(&*self.host)
            && url.port().unwrap_or(self.scheme.default_port()) == self.port
    }

    /// The scheme.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// The host name.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The same host under `scheme` on `port` (sharing the host string).
    pub fn with_scheme(&self, scheme: Scheme, port: u16) -> Self {
        Origin {
            scheme,
            host: std::sync::Arc::clone(&self.host),
            port,
        }
    }

    /// The port, explicit or default.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The home page, `scheme://host[:port]/`, level 0 of the crawl.
    pub fn home(&self) -> NormUrl {
        NormUrl::parse(&format!("{self}/")).expect("an origin always forms a valid URL")
    }

    /// The URL of this site's robots.txt.
    pub fn robots_url(&self) -> NormUrl {
        NormUrl::parse(&format!("{self}/robots.txt")).expect("an origin always forms a valid URL")
    }

    /// The results folder name: `host`, or `host_port` for a non-default port (SPEC §4).
    pub fn folder_name(&self) -> String {
        let host: String = self
            .host
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if self.port == self.scheme.default_port() {
            host
        } else {
            format!("{host}_{}", self.port)
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}", self.scheme.as_str(), self.host)?;
        if self.port != self.scheme.default_port() {
            write!(f, ":{}", self.port)?;
        }
        Ok(())
    }
}

/// One line of hosts.txt, with defaults from settings.ini filled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteSpec {
    /// The site.
    pub origin: Origin,
    /// Simultaneous downloads allowed from this site (≥ 1).
    pub max_downloads: u32,
    /// Deepest level crawled, inclusive (0 = home page only).
    pub max_level: u32,
    /// Minimum time between the starts of two requests to this site.
    pub crawl_delay: Duration,
    /// The line's `include=`, `exclude=` and `pages=` fields (shared: a host a multi-host
    /// filter finds takes its seed's line).
    pub rules: std::sync::Arc<crate::model::path_rules::LineRules>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins() {
        let o = Origin::of(&Url::parse("HTTP://Example.COM:80/x").unwrap()).unwrap();
        assert_eq!(o.to_string(), "http://example.com");
        assert_eq!(o.folder_name(), "example.com");
        assert_eq!(o.home().as_str(), "http://example.com/");
        let o = Origin::of(&Url::parse("https://a.test:8443").unwrap()).unwrap();
        assert_eq!(o.folder_name(), "a.test_8443");
        assert!(o.contains(&Url::parse("https://a.test:8443/p").unwrap()));
        assert!(!o.contains(&Url::parse("https://sub.a.test:8443/p").unwrap()));
        assert!(!o.contains(&Url::parse("http://a.test:8443/p").unwrap()));
        let ip6 = Origin::of(&Url::parse("http://[::1]:81/").unwrap()).unwrap();
        assert_eq!(ip6.folder_name(), "___1__81");
    }
}

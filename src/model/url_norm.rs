//! URL resolution and normalization (SPEC §3): every link passes through here before it is
//! compared, stored or fetched.
//!
//! Parsing and reference resolution are the WHATWG rules of the `url` crate (which also
//! lower-cases scheme and host, converts IDN hosts to punycode, drops default ports, removes
//! dot segments and percent-encodes raw non-ASCII as UTF-8). On top of that we apply the rest of
//! the RCCrawler paper's list, in the order the conformance vectors were built with:
//! percent-escape normalization, dot-segment removal, slash collapsing, query clean-up, and the
//! fragment is dropped.
//!
//! Pure functions; called by the parser threads (links) and the downloaders (redirects).

use std::fmt;
use std::sync::Arc;

use thiserror::Error;
use url::Url;

/// Why an `href` could not become a crawlable URL. The `Display` text is the `Reason` column
/// of `bad_links.csv`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum UrlError {
    /// The reference could not be parsed or resolved.
    #[error("unparseable")]
    Unparseable,
    /// A scheme other than http/https (`mailto:`, `javascript:`, `tel:`, `ftp:` ...).
    #[error("scheme {0}")]
    Scheme(String),
    /// An http(s) URL without a host.
    #[error("no host")]
    NoHost,
    /// Longer than the configured `MaxUrlLength`.
    #[error("url too long ({0} bytes)")]
    TooLong(usize),
}

/// An absolute http(s) URL in normal form. Two links denote the same URL exactly when their
/// `NormUrl`s are equal. Shared, so that copies are cheap: the parsers hand out the same
/// navigation URLs from their cache for every page.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NormUrl(Arc<Url>);

impl NormUrl {
    /// Parses and normalizes an absolute URL.
    pub fn parse(input: &str) -> Result<Self, UrlError> {
        let url = Url::parse(input).map_err(|_| UrlError::Unparseable)?;
        Self::from_url(url)
    }

    /// Normalizes an already parsed URL.
    pub fn from_url(mut url: Url) -> Result<Self, UrlError> {
        match url.scheme() {
            "http" | "https" => {}
            other => return Err(UrlError::Scheme(other.to_owned())),
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(UrlError::NoHost);
        }
        url.set_fragment(None);
        // Most URLs are already in normal form; checking that allocates nothing.
        if path_is_normal(url.path()) && url.query().is_none_or(query_is_normal) {
            return Ok(NormUrl(Arc::new(url)));
        }
        let path = normalize_path(url.path());
        let query = url.query().map(normalize_query).filter(|q| !q.is_empty());
        if path != url.path() || query.as_deref() != url.query() {
            let mut s = String::with_capacity(url.as_str().len());
            s.push_str(&url[..url::Position::BeforePath]);
            s.push_str(&path);
            if let Some(q) = &query {
                s.push('?');
                s.push_str(q);
            }
            url = Url::parse(&s).map_err(|_| UrlError::Unparseable)?;
        }
        Ok(NormUrl(Arc::new(url)))
    }

    /// The normalized URL as text (what `nodes.csv` shows as `Label`).
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The parsed form.
    pub fn as_url(&self) -> &Url {
        &self.0
    }

    /// Path plus query (`/a/b?x=1`), what robots.txt rules are matched against.
    pub fn path_and_query(&self) -> &str {
        &self.0[url::Position::BeforePath..url::Position::AfterQuery]
    }

    /// The path only.
    pub fn path(&self) -> &str {
        self.0.path()
    }

    /// The host (lower-case, punycode).
    pub fn host(&self) -> &str {
        self.0.host_str().unwrap_or_default()
    }

    /// Consumes the wrapper.
    pub fn into_url(self) -> Url {
        Arc::try_unwrap(self.0).unwrap_or_else(|shared| (*shared).clone())
    }
}

impl fmt::Debug for NormUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NormUrl({})", self.0.as_str())
    }
}

impl fmt::Display for NormUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.as_str())
    }
}

/// Resolves `href` against `base` (RFC 3986 §5 as WHATWG implements it) without normalizing.
pub fn resolve(base: &Url, href: &str) -> Result<Url, UrlError> {
    base.join(href).map_err(|_| UrlError::Unparseable)
}

/// Resolves `href` against `base` and normalizes the result.
pub fn normalize(base: &Url, href: &str) -> Result<NormUrl, UrlError> {
    let url = resolve(base, href)?;
    NormUrl::from_url(url)
}

/// Like [`normalize`], and also enforces a maximum length in bytes (0 = no limit).
pub fn normalize_with_limit(base: &Url, href: &str, max_len: usize) -> Result<NormUrl, UrlError> {
    let n = normalize(base, href)?;
    if max_len > 0 && n.as_str().len() > max_len {
        return Err(UrlError::TooLong(n.as_str().len()));
    }
    Ok(n)
}

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Upper-cases the hex digits of every `%XX` and decodes those that stand for unreserved
/// characters. A `%` not followed by two hex digits is left as it is.
fn normalize_escapes(s: &str, out: &mut String) {
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex_val(bytes[i + 1]), hex_val(bytes[i + 2]))
        {
            let v = h * 16 + l;
            // A decoded hex digit right after a stray `%` (or `%` and one hex digit) would
            // form a new escape that the next normalization would change: keep it encoded.
            let tail = out.as_bytes();
            let makes_escape = v.is_ascii_hexdigit()
                && (tail.last() == Some(&b'%')
                    || (tail.len() >= 2
                        && tail[tail.len() - 2] == b'%'
                        && tail[tail.len() - 1].is_ascii_hexdigit()));
            if is_unreserved(v) && !makes_escape {
                out.push(v as char);
            } else {
                const HEX: &[u8; 16] = b"0123456789ABCDEF";
                out.push('%');
                out.push(HEX[usize::from(h)] as char);
                out.push(HEX[usize::from(l)] as char);
            }
            i += 3;
            continue;
        }
        // The url crate serializes to ASCII, but stay correct for any UTF-8 input.
        let ch_len = utf8_len(b);
        out.push_str(&s[i..(i + ch_len).min(s.len())]);
        i += ch_len;
    }
}

fn utf8_len(first: u8) -> usize {
    match first {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

/// Whether [`normalize_path`] would return `path` unchanged, for a path as the `url` crate
/// serializes it: it has already removed dot segments (also `%2e` ones), so without escapes
/// (which could decode to dots) and without `//` there is nothing to change.
fn path_is_normal(path: &str) -> bool {
    !path.is_empty() && !path.contains('%') && !path.contains("//")
}

/// Whether [`normalize_query`] would return `query` unchanged: no escapes, no empty
/// parameters, parameters already sorted by (name, value).
fn query_is_normal(query: &str) -> bool {
    if query.is_empty() || query.contains('%') {
        return false;
    }
    let mut prev: Option<(&str, &str)> = None;
    for p in query.split('&') {
        let Some((name, value)) = p.split_once('=') else {
            return false;
        };
        if name.is_empty() || value.is_empty() {
            return false;
        }
        if let Some((pn, pv)) = prev
            && (pn.as_bytes(), pv.as_bytes()) > (name.as_bytes(), value.as_bytes())
        {
            return false;
        }
        prev = Some((name, value));
    }
    true
}

/// Percent-escape normalization, then RFC 3986 §5.2.4 dot removal, then `//` collapsing.
fn normalize_path(path: &str) -> String {
    let mut escaped = String::with_capacity(path.len());
    normalize_escapes(path, &mut escaped);
    let dotless = remove_dot_segments(&escaped);
    let mut out = String::with_capacity(dotless.len());
    let mut prev_slash = false;
    for ch in dotless.chars() {
        if ch == '/' {
            if prev_slash {
                continue;
            }
            prev_slash = true;
        } else {
            prev_slash = false;
        }
        out.push(ch);
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

/// RFC 3986 §5.2.4 "Remove Dot Segments".
fn remove_dot_segments(input: &str) -> String {
    if !input.split('/').any(|seg| seg == "." || seg == "..") {
        return input.to_owned();
    }
    let mut input = input;
    let mut output = String::with_capacity(input.len());
    while !input.is_empty() {
        if let Some(rest) = input.strip_prefix("../") {
            input = rest;
        } else if let Some(rest) = input.strip_prefix("./") {
            input = rest;
        } else if input.starts_with("/./") {
            input = &input[2..];
        } else if input == "/." {
            input = "/";
        } else if input.starts_with("/../") || input == "/.." {
            input = if input == "/.." { "/" } else { &input[3..] };
            match output.rfind('/') {
                Some(pos) => output.truncate(pos),
                None => output.clear(),
            }
        } else if input == "." || input == ".." {
            input = "";
        } else {
            let start = usize::from(input.starts_with('/'));
            let end = input[start..].find('/').map_or(input.len(), |p| p + start);
            output.push_str(&input[..end]);
            input = &input[end..];
        }
    }
    output
}

/// Escape normalization of every parameter, then drop empty parameters (`&&`, `a`, `a=`,
/// `=v`) and sort the rest by (name, value), stably. Returns "" for an empty query.
fn normalize_query(query: &str) -> String {
    let mut escaped = String::with_capacity(query.len());
    normalize_escapes(query, &mut escaped);
    let mut params: Vec<(&str, &str)> = escaped
        .split('&')
        .filter_map(|p| p.split_once('='))
        .filter(|(name, value)| !name.is_empty() && !value.is_empty())
        .collect();
    params.sort_by(|a, b| {
        a.0.as_bytes()
            .cmp(b.0.as_bytes())
            .then(a.1.as_bytes().cmp(b.1.as_bytes()))
    });
    let mut out = String::with_capacity(escaped.len());
    for (i, (name, value)) in params.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        out.push_str(name);
        out.push('=');
        out.push_str(value);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> String {
        NormUrl::parse(s)
            .map(|u| u.to_string())
            .unwrap_or_else(|e| format!("ERR {e}"))
    }

    #[test]
    fn fast_paths_agree_with_full_normalization() {
        // Random strings over the characters that matter; the fast path may only say
        // "unchanged" when the full normalization agrees.
        let alphabet = b"/.%2eE&=ab?~";
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let (mut fast_paths, mut fast_queries) = (0, 0);
        for _ in 0..200_000 {
            let len = (next() % 12) as usize;
            let s: String = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize] as char)
                .collect();
            // Paths reach normalization as the url crate serializes them.
            let path = url::Url::parse(&format!("http://a.test/{s}"))
                .map(|u| u.path().to_owned())
                .unwrap_or_default();
            if path_is_normal(&path) {
                fast_paths += 1;
                assert_eq!(normalize_path(&path), path, "path {path:?}");
            }
            if query_is_normal(&s) {
                fast_queries += 1;
                assert_eq!(normalize_query(&s), s, "query {s:?}");
            }
        }
        assert!(
            fast_paths > 1000 && fast_queries > 100,
            "{fast_paths} {fast_queries}"
        );
    }

    #[test]
    fn paper_examples() {
        assert_eq!(n("http://eXaMplE.com"), "http://example.com/");
        assert_eq!(
            n("https://example.com:443/q.html"),
            "https://example.com/q.html"
        );
        assert_eq!(n("http://example.com/%3a%2B"), "http://example.com/%3A%2B");
        assert_eq!(
            n("http://example.com/f1/./f2/./f3"),
            "http://example.com/f1/f2/f3"
        );
        assert_eq!(
            n("http://example.com/folder/#fragment"),
            "http://example.com/folder/"
        );
        assert_eq!(n("http://example.com/f1//f2"), "http://example.com/f1/f2");
        assert_eq!(
            n("http://example.com/?b=1&a=3"),
            "http://example.com/?a=3&b=1"
        );
        assert_eq!(n("http://example.com/?"), "http://example.com/");
        assert_eq!(
            n("http://example.com/?a&b=1&c=2"),
            "http://example.com/?b=1&c=2"
        );
    }

    #[test]
    fn empty_value_parameters_are_dropped() {
        assert_eq!(n("http://x.org/p?b=&a=2"), "http://x.org/p?a=2");
        assert_eq!(n("http://x.org/p?=v&&a=1"), "http://x.org/p?a=1");
        assert_eq!(n("http://x.org/p?b=&c"), "http://x.org/p");
    }

    #[test]
    fn unreserved_escapes_are_decoded_and_others_uppercased() {
        assert_eq!(
            n("http://x.org/%7euser/%41%2f?q=%7e%2a"),
            "http://x.org/~user/A%2F?q=~%2A"
        );
        assert_eq!(n("http://x.org/a%2E%2E/b"), "http://x.org/a../b");
        assert_eq!(n("http://x.org/a/%2E%2E/b"), "http://x.org/b");
        assert_eq!(n("http://x.org/100%"), "http://x.org/100%");
    }

    #[test]
    fn idn_and_non_ascii() {
        assert_eq!(
            n("http://ПРИМЕР.рф/путь"),
            "http://xn--e1afmkfd.xn--p1ai/%D0%BF%D1%83%D1%82%D1%8C"
        );
    }

    #[test]
    fn not_applied_rules() {
        assert_eq!(n("http://x.org/Folder"), "http://x.org/Folder");
        assert_eq!(n("http://127.0.0.1:8080/a"), "http://127.0.0.1:8080/a");
    }

    #[test]
    fn bad_schemes_and_garbage() {
        let base = Url::parse("http://x.org/a/b").unwrap();
        assert_eq!(
            normalize(&base, "mailto:a@b.c"),
            Err(UrlError::Scheme("mailto".into()))
        );
        assert_eq!(
            normalize(&base, "javascript:void(0)"),
            Err(UrlError::Scheme("javascript".into()))
        );
        assert_eq!(
            normalize(&base, "tel:+123"),
            Err(UrlError::Scheme("tel".into()))
        );
        assert_eq!(normalize(&base, "http://[::1"), Err(UrlError::Unparseable));
        assert_eq!(
            normalize(&base, "").map(|u| u.to_string()),
            Ok("http://x.org/a/b".to_owned())
        );
        assert_eq!(
            normalize(&base, "#top").map(|u| u.to_string()),
            Ok("http://x.org/a/b".to_owned())
        );
        assert_eq!(
            normalize_with_limit(&base, "/0123456789", 20),
            Err(UrlError::TooLong(23))
        );
    }

    #[test]
    fn dot_segments() {
        assert_eq!(remove_dot_segments("/a/b/c/./../../g"), "/a/g");
        assert_eq!(remove_dot_segments("mid/content=5/../6"), "mid/6");
        assert_eq!(remove_dot_segments("/.."), "/");
    }

    // See: fuzz/artifacts/url_norm/crash-bc654e9b… (`http:6/o.oa/ht%%66dc`): decoding `%66`
    // after a stray `%` made a new escape `%fd`, so normalizing twice changed the URL.
    #[test]
    fn decoding_never_creates_a_new_escape() {
        for s in [
            "http://a.test/ht%%66dc",
            "http://a.test/%a%66x",
            "http://a.test/?q=%%41%42",
        ] {
            let once = n(s);
            assert_eq!(n(&once), once, "{s}");
        }
        assert_eq!(n("http://a.test/ht%%66dc"), "http://a.test/ht%%66dc");
        assert_eq!(n("http://a.test/%zz%41"), "http://a.test/%zzA");
    }

    #[test]
    fn normal_form_is_a_fixed_point() {
        for s in [
            "http://x.org/a//b/./c?z=1&a=2#f",
            "http://x.org/%7e?%61=%62",
            "http://x.org",
        ] {
            let once = n(s);
            assert_eq!(n(&once), once);
        }
    }
}

//! SURT keys as the web archives' reference tools make them (the `surt` package that
//! cdxj-indexer and pywb use: Google's URL canonicalization, then the Internet Archive's, then
//! the host reversed), so that a pywb lookup in `index.cdxj` finds what rccrawler archived.
//!
//! See: issue 64 item 8 — keys of our own (a trailing slash kept, `www2.` kept, query order
//! kept) differed from the reference on 15 of 6,581 URLs, which a lookup then missed.
//! `tests/warc_format.rs` compares every key with cdxj-indexer's where it is installed.

use std::sync::LazyLock;

use regex::bytes::Regex;

/// The SURT key of `url` (`com,example)/a/b?x=1`); a URL that does not parse is its
/// lowercase self.
pub fn surt(url: &str) -> String {
    let Ok(u) = url::Url::parse(url) else {
        return url.to_ascii_lowercase();
    };
    let Some(host) = u.host_str() else {
        return url.to_ascii_lowercase();
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let host = canonical_host(host.as_bytes());
    let path = canonical_path(u.path().as_bytes());
    let query = u.query().and_then(|q| canonical_query(q.as_bytes()));
    let mut key = reversed(&host);
    if let Some(port) = u.port() {
        key.extend_from_slice(format!(":{port}").as_bytes());
    }
    key.push(b')');
    key.extend_from_slice(&path);
    if let Some(q) = query {
        key.push(b'?');
        key.extend_from_slice(&q);
    }
    String::from_utf8_lossy(&key).into_owned()
}

/// The host unescaped, dots collapsed, numeric forms as dotted quads, lowercase, escaped once,
/// then without a leading `www`/`www2`/… label.
fn canonical_host(host: &[u8]) -> Vec<u8> {
    let mut h = unescape_repeatedly(host);
    while let Some(i) = h.windows(2).position(|w| w == b"..") {
        h.remove(i);
    }
    let h: &[u8] = trim_dots(&h);
    let h = match ip_of(h) {
        Some(ip) => ip.into_bytes(),
        None => escape_once(&h.to_ascii_lowercase()),
    };
    static WWW: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^www[0-9]*\.").expect("a valid pattern"));
    match WWW.find(&h) {
        Some(m) => h[m.end()..].to_vec(),
        None => h,
    }
}

fn trim_dots(h: &[u8]) -> &[u8] {
    let start = h.iter().position(|&b| b != b'.').unwrap_or(h.len());
    let end = h.iter().rposition(|&b| b != b'.').map_or(start, |i| i + 1);
    &h[start..end]
}

/// A host written as a number (`2130706433`, `127.1`, `0177.0.0.1`) as a dotted quad, as the
/// reference reads it (inet_aton's forms); `None` for a name.
fn ip_of(host: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(host).ok()?;
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    if text.bytes().all(|b| b.is_ascii_digit()) {
        // All digits: the number, modulo 2^32.
        let mut n: u64 = 0;
        for b in text.bytes() {
            n = (n * 10 + u64::from(b - b'0')) & 0xffff_ffff;
        }
        return Some(std::net::Ipv4Addr::from(n as u32).to_string());
    }
    let parts: Vec<&str> = text.split('.').collect();
    if parts.len() > 4 || parts.iter().any(|p| p.is_empty()) {
        return None;
    }
    let decimal = !parts[0].starts_with('0');
    let octal = parts[0].starts_with('0')
        && parts
            .iter()
            .all(|p| p.bytes().all(|b| (b'0'..=b'7').contains(&b)));
    if !decimal && !octal {
        return None;
    }
    let values: Vec<u64> = parts
        .iter()
        .map(|p| {
            if p.len() > 1 && p.starts_with('0') {
                u64::from_str_radix(&p[1..], 8).ok()
            } else {
                p.parse().ok()
            }
        })
        .collect::<Option<_>>()?;
    let (last, first) = values.split_last()?;
    let bits = 32 - 8 * first.len() as u32;
    if first.iter().any(|&v| v > 255) || *last >= 1u64 << bits {
        return None;
    }
    let n = first.iter().fold(0u64, |n, &v| (n << 8) | v) << bits | last;
    Some(std::net::Ipv4Addr::from(n as u32).to_string())
}

/// The path unescaped, its `.` and `..` and empty segments resolved, escaped once, lowercase,
/// without an ASP.NET session segment, and without a trailing slash unless it is `/`.
fn canonical_path(path: &[u8]) -> Vec<u8> {
    let mut p = escape_once(&normalize_path(&unescape_repeatedly(path)));
    p.make_ascii_lowercase();
    static ASPX: LazyLock<[Regex; 2]> = LazyLock::new(|| {
        [
            Regex::new(r"(?i)^(.*/)(\((?:[a-z]\([0-9a-z]{24}\))+\)/)([^\?]+\.aspx.*)$"),
            Regex::new(r"(?i)^(.*/)(\([0-9a-z]{24}\)/)([^\?]+\.aspx.*)$"),
        ]
        .map(|r| r.expect("a valid pattern"))
    });
    for re in ASPX.iter() {
        if let Some(c) = re.captures(&p) {
            let mut kept = c[1].to_vec();
            kept.extend_from_slice(&c[3]);
            p = kept;
        }
    }
    if p.len() > 1 && p.ends_with(b"/") {
        p.pop();
    }
    p
}

/// Google's path normalization: `.` dropped, `..` takes the segment before it, empty segments
/// dropped but the last.
fn normalize_path(path: &[u8]) -> Vec<u8> {
    if path.is_empty() {
        return b"/".to_vec();
    }
    let mut kept: Vec<&[u8]> = Vec::new();
    for seg in path.split(|&b| b == b'/').skip(1) {
        match seg {
            b"." => {}
            b".." => {
                if kept.pop().is_none() {
                    kept.push(seg);
                }
            }
            _ => kept.push(seg),
        }
    }
    let mut out = b"/".to_vec();
    if let Some((last, rest)) = kept.split_last() {
        for seg in rest.iter().filter(|s| !s.is_empty()) {
            out.extend_from_slice(seg);
            out.push(b'/');
        }
        out.extend_from_slice(last);
    }
    out
}

/// The query escaped once, without a known session id, lowercase, its arguments sorted; `None`
/// when nothing is left.
fn canonical_query(query: &[u8]) -> Option<Vec<u8>> {
    let mut q = escape_once(&unescape_repeatedly(query));
    static SESSION: LazyLock<[Regex; 5]> = LazyLock::new(|| {
        [
            r"(?i)^(.*)(?:jsessionid=[0-9a-zA-Z]{32})(?:&(.*))?$",
            r"(?i)^(.*)(?:phpsessid=[0-9a-zA-Z]{32})(?:&(.*))?$",
            r"(?i)^(.*)(?:sid=[0-9a-zA-Z]{32})(?:&(.*))?$",
            r"(?i)^(.*)(?:ASPSESSIONID[a-zA-Z]{8}=[a-zA-Z]{24})(?:&(.*))?$",
            r"(?i)^(.*)(?:cfid=[^&]+&cftoken=[^&]+)(?:&(.*))?$",
        ]
        .map(|r| Regex::new(r).expect("a valid pattern"))
    });
    for re in SESSION.iter() {
        if let Some(c) = re.captures(&q) {
            let mut kept = c[1].to_vec();
            if let Some(rest) = c.get(2).filter(|m| !m.is_empty()) {
                kept.extend_from_slice(rest.as_bytes());
            }
            q = kept;
        }
    }
    q.make_ascii_lowercase();
    if q.is_empty() {
        return None;
    }
    if q.len() <= 1 {
        return Some(q);
    }
    // Sorted as (name, value) pairs: `a` before `a=`, as the reference's tuples sort.
    let mut args: Vec<(&[u8], Option<&[u8]>)> = q
        .split(|&b| b == b'&')
        .map(|a| match a.iter().position(|&b| b == b'=') {
            Some(i) => (&a[..i], Some(&a[i + 1..])),
            None => (a, None),
        })
        .collect();
    args.sort();
    let mut out = Vec::with_capacity(q.len());
    for (i, (name, value)) in args.iter().enumerate() {
        if i > 0 {
            out.push(b'&');
        }
        out.extend_from_slice(name);
        if let Some(v) = value {
            out.push(b'=');
            out.extend_from_slice(v);
        }
    }
    Some(out)
}

/// The host's labels reversed, joined by commas (`a.test` → `test,a`).
fn reversed(host: &[u8]) -> Vec<u8> {
    let mut parts: Vec<&[u8]> = host.split(|&b| b == b'.').collect();
    parts.reverse();
    parts.join(&b","[..])
}

/// `%XX` sequences decoded until none is left.
fn unescape_repeatedly(input: &[u8]) -> Vec<u8> {
    let mut s = input.to_vec();
    loop {
        let un = unescape(&s);
        if un == s {
            return s;
        }
        s = un;
    }
}

fn unescape(input: &[u8]) -> Vec<u8> {
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        if input[i] == b'%'
            && let (Some(&a), Some(&b)) = (input.get(i + 1), input.get(i + 2))
            && let (Some(a), Some(b)) = (hex(a), hex(b))
        {
            out.push(a << 4 | b);
            i += 3;
            continue;
        }
        out.push(input[i]);
        i += 1;
    }
    out
}

/// Escapes what is outside printable ASCII, and `#` and `%` (uppercase hex).
fn escape_once(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    for &b in input {
        if b <= b' ' || b >= 0x7f || b == b'#' || b == b'%' {
            out.extend_from_slice(format!("%{b:02X}").as_bytes());
        } else {
            out.push(b);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys the reference (`surt` 0.3.1, as cdxj-indexer calls it) gave for these URLs.
    #[test]
    fn keys_are_the_reference_tools_keys() {
        for (url, key) in [
            ("http://a.test:8080/folder/", "test,a:8080)/folder"),
            ("http://www2.a.test/x/?b=2&a=1&a", "test,a)/x?a&a=1&b=2"),
            (
                "http://a.test/%7Efoo/%2Fbar%20x?Q=%41B",
                "test,a)/~foo/bar%20x?q=ab",
            ),
            ("http://127.1/", "1,0,0,127)/"),
            (
                "http://a.test/x;jsessionid=ABC/",
                "test,a)/x;jsessionid=abc",
            ),
            (
                "http://a.test/?sid=0123456789abcdef0123456789abcdef&x=1",
                "test,a)/?x=1",
            ),
            ("https://A.test:443/", "test,a)/"),
            ("http://a.test/p?", "test,a)/p"),
            ("http://a.test/a%25b", "test,a)/a%25b"),
            ("http://a.test/caf%C3%A9", "test,a)/caf%c3%a9"),
            ("http://www.Example.com/A/b?X=1", "com,example)/a/b?x=1"),
            ("https://a.test:8443/", "test,a:8443)/"),
            ("http://sub.a.test/", "test,a,sub)/"),
        ] {
            assert_eq!(surt(url), key, "{url}");
        }
    }
}

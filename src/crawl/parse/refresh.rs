//! `<meta http-equiv="refresh" content="N; url=U">` (SPEC §2.4): a redirect hop when its delay
//! is at most `MetaRefreshMaxDelay` and it leads elsewhere. The content is read as browsers
//! read it (the HTML standard's "shared declarative refresh steps"): `5`, `0;url=/x`,
//! `0; URL='/x'`, `0, /x` and `0 /x` are all accepted.
//!
//! The downloader asks [`meta_refresh`] about every HTML answer before handing it to the
//! parsers. Pages without the word "refresh" are answered by a byte search alone: only the rare
//! page that has it is decoded and tokenized.

use super::{charset, links};

/// A refresh found on a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refresh {
    /// Seconds to wait.
    pub delay: u32,
    /// Where to go, as written (relative to the page); `None`: the page itself.
    pub url: Option<String>,
}

/// The page's `<meta http-equiv="refresh">`, if it has a valid one.
pub fn meta_refresh(body: &[u8], content_type: Option<&str>, tld: Option<&str>) -> Option<Refresh> {
    if !mentions_refresh(body) {
        return None;
    }
    let (text, _) = charset::decode(body, content_type, tld);
    let content = links::extract(&text).refresh?;
    parse_refresh(&content)
}

/// Whether the bytes contain "refresh" (as `refresh`, `Refresh` or `REFRESH`): a SIMD
/// substring search, since it runs over every HTML page the crawl downloads.
fn mentions_refresh(body: &[u8]) -> bool {
    use memchr::memmem::find_iter;
    let prefixed = |at: usize| at > 0 && body[at - 1].eq_ignore_ascii_case(&b'r');
    find_iter(body, b"efresh").any(prefixed) || find_iter(body, b"EFRESH").any(prefixed)
}

/// Parses a refresh `content` value; `None` when browsers would ignore it.
pub fn parse_refresh(content: &str) -> Option<Refresh> {
    let is_space = |c: char| matches!(c, ' ' | '\t' | '\n' | '\x0c' | '\r');
    let s = content.trim_start_matches(is_space);
    let digits = s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 && !s.starts_with('.') {
        return None;
    }
    let delay = s[..digits]
        .parse::<u64>()
        .map_or(u32::MAX, |d| d.min(u64::from(u32::MAX)) as u32);
    let s = s[digits..].trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    if s.is_empty() {
        return Some(Refresh { delay, url: None });
    }
    if !(s.starts_with([';', ',']) || s.starts_with(is_space)) {
        return None;
    }
    let s = s.trim_start_matches(is_space);
    let s = s.strip_prefix([';', ',']).unwrap_or(s);
    let mut url = s.trim_start_matches(is_space);
    if url.len() >= 3 && url[..3].eq_ignore_ascii_case("url") {
        let after = url[3..].trim_start_matches(is_space);
        if let Some(value) = after.strip_prefix('=') {
            url = value.trim_start_matches(is_space);
        }
    }
    let url = match url.chars().next() {
        Some(q @ ('"' | '\'')) => {
            let inner = &url[1..];
            inner.find(q).map_or(inner, |end| &inner[..end])
        }
        _ => url,
    };
    let url = url.trim_end_matches(is_space);
    Some(Refresh {
        delay,
        url: (!url.is_empty()).then(|| url.to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(delay: u32, url: Option<&str>) -> Option<Refresh> {
        Some(Refresh {
            delay,
            url: url.map(str::to_owned),
        })
    }

    #[test]
    fn the_forms_browsers_accept() {
        assert_eq!(parse_refresh("0; url=/ru/"), r(0, Some("/ru/")));
        assert_eq!(
            parse_refresh("0;URL='http://x.test/a b'"),
            r(0, Some("http://x.test/a b"))
        );
        assert_eq!(
            parse_refresh(" 3 ; Url = \"/q\" trailing"),
            r(3, Some("/q"))
        );
        assert_eq!(parse_refresh("5"), r(5, None));
        assert_eq!(parse_refresh("0, /next"), r(0, Some("/next")));
        assert_eq!(parse_refresh("0 /next"), r(0, Some("/next")));
        assert_eq!(parse_refresh("1.5; url=/x"), r(1, Some("/x")));
        assert_eq!(parse_refresh("0; /urlish"), r(0, Some("/urlish")));
        assert_eq!(
            parse_refresh("99999999999; url=/x"),
            r(u32::MAX, Some("/x"))
        );
        assert_eq!(parse_refresh("0;"), r(0, None));
    }

    #[test]
    fn what_browsers_ignore() {
        assert_eq!(parse_refresh(""), None);
        assert_eq!(parse_refresh("soon; url=/x"), None);
        assert_eq!(parse_refresh("0x; url=/x"), None);
    }

    #[test]
    fn pages() {
        let page = b"<html><head><META http-equiv=REFRESH content=\"0; url=/ru/\"></head></html>";
        assert_eq!(meta_refresh(page, None, None), r(0, Some("/ru/")));
        assert_eq!(meta_refresh(b"<p>refreshing drinks</p>", None, None), None);
        assert_eq!(meta_refresh(b"<p>no such word</p>", None, None), None);
        assert!(
            mentions_refresh(b"x REFRESH")
                && mentions_refresh(b"Refresh")
                && !mentions_refresh(b"efresh")
        );
        let commented = b"<!-- <meta http-equiv=refresh content='0;url=/x'> -->";
        assert_eq!(meta_refresh(commented, None, None), None);
    }
}

//! The page's own address written in its body (SPEC §14): a canonical link, `og:url`, a form
//! that posts back to the page, share links that carry it percent-encoded, "you are here"
//! text. Two URLs of one page differ exactly there, so the `own` digest masks each place.
//!
//! An attribute value is the page's own URL when it resolves to it (relative or absolute,
//! `&amp;` decoded; a fragment kept apart, so `#top` and `#end` stay two things). Inside longer
//! values and in text the absolute URL (raw or percent-encoded) and the path with its query
//! are masked where they stand as whole URLs, not as the start of a longer one.

use std::borrow::Cow;

use url::Url;

use super::url_shape::canonical;
use crate::model::url_norm;

/// What a masked own address is replaced by in the `own` digest.
pub(crate) const MARK: &str = "\u{0}self\u{0}";

/// The page's address in the forms its body may write it, and which of them the body holds.
#[derive(Debug)]
pub(crate) struct OwnUrl<'p> {
    page: &'p Url,
    /// The page's canonical form ([`canonical`]): a reference with the same is to the page
    /// itself — the alias `/a/index.html` and the page `/a/` both link to `/a/` as "home".
    canon: Option<String>,
    /// The canonical path's last segment, lower-cased: what a reference to the page names.
    segment: String,
    /// The absolute URL.
    absolute: String,
    /// It percent-encoded as a query value (upper-case hex, as `encodeURIComponent` writes it).
    encoded: String,
    /// The path and query (`/a/b?c=1`); empty for the home page (`/` is everywhere).
    path: String,
    /// Whether the body holds the absolute URL (raw or encoded) anywhere at all.
    absolute_in_body: bool,
    /// Whether the body holds the path anywhere at all.
    path_in_body: bool,
    /// The canonical URL and its path, when the body holds them and they differ from the
    /// address asked for: a page at `/a/index.html` that writes `/a/` is written the same way
    /// as the page at `/a/`, which masks it as its own.
    canon_forms: Vec<String>,
}

/// Characters that continue a URL: an occurrence followed by one is the start of another URL.
pub(super) fn continues_url(c: u8) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            b'/' | b'?' | b'=' | b'%' | b'-' | b'_' | b'.' | b'~' | b'+' | b';'
        )
}

impl<'p> OwnUrl<'p> {
    /// The forms of `page`'s address, checked against `body` once.
    pub(crate) fn new(page: &'p Url, body: &str) -> Self {
        let mut absolute = page.as_str().to_owned();
        if let Some(i) = absolute.find('#') {
            absolute.truncate(i);
        }
        let encoded = encode(&absolute);
        let mut path = page.path().to_owned();
        if let Some(q) = page.query() {
            path.push('?');
            path.push_str(q);
        }
        if path == "/" {
            path.clear();
        }
        let canon = canonical(page.as_str());
        let segment = canon
            .as_deref()
            .and_then(|c| Url::parse(c).ok())
            .map(|u| {
                u.path()
                    .rsplit('/')
                    .next()
                    .unwrap_or("")
                    .to_ascii_lowercase()
            })
            .unwrap_or_default();
        let finder = |needle: &str| {
            !needle.is_empty() && memchr::memmem::find(body.as_bytes(), needle.as_bytes()).is_some()
        };
        let absolute_in_body =
            finder(&absolute) || finder(&encoded) || finder(&encoded.to_ascii_lowercase());
        let path_in_body = finder(&path);
        let mut canon_forms = Vec::new();
        if let Some(c) = canon.as_deref().and_then(|c| Url::parse(c).ok()) {
            let mut cpath = c.path().to_owned();
            if let Some(q) = c.query() {
                cpath.push('?');
                cpath.push_str(q);
            }
            let cabs = c.as_str().to_owned();
            // With and without a trailing slash (the canonical form has none).
            let slashed =
                |u: &str| (c.query().is_none() && !u.ends_with('/')).then(|| format!("{u}/"));
            let mut forms = vec![cabs.clone(), cpath.clone()];
            forms.extend(slashed(&cabs));
            forms.extend(slashed(&cpath));
            for form in forms {
                if form != absolute && form != path && form != "/" && finder(&form) {
                    canon_forms.push(form);
                }
            }
        }
        OwnUrl {
            page,
            canon,
            segment,
            absolute,
            encoded,
            path,
            absolute_in_body,
            path_in_body,
            canon_forms,
        }
    }

    /// An attribute's value with the page's own address masked (borrowed when there is none).
    pub(crate) fn mask_value<'v>(&self, value: &'v str) -> Cow<'v, str> {
        let trimmed = value.trim();
        if self.is_self_reference(trimmed) {
            let fragment = trimmed.find('#').map_or("", |i| &trimmed[i..]);
            return Cow::Owned(format!("{MARK}{fragment}"));
        }
        self.mask_text(value)
    }

    /// Text (or a long value) with the absolute URL and the path masked where they stand as
    /// whole URLs.
    pub(crate) fn mask_text<'v>(&self, text: &'v str) -> Cow<'v, str> {
        if !self.absolute_in_body && !self.path_in_body && self.canon_forms.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut out = Cow::Borrowed(text);
        if self.absolute_in_body {
            let lower = self.encoded.to_ascii_lowercase();
            for form in [
                self.absolute.as_str(),
                self.encoded.as_str(),
                lower.as_str(),
            ] {
                if let Cow::Owned(s) = replace_whole(&out, form) {
                    out = Cow::Owned(s);
                }
            }
        }
        if self.path_in_body
            && let Cow::Owned(s) = replace_whole(&out, &self.path)
        {
            out = Cow::Owned(s);
        }
        for form in &self.canon_forms {
            if let Cow::Owned(s) = replace_whole(&out, form) {
                out = Cow::Owned(s);
            }
        }
        out
    }

    /// Whether `value` (an attribute's, trimmed) refers to the page itself: resolves to it, or
    /// to a URL of the same canonical form.
    fn is_self_reference(&self, value: &str) -> bool {
        if value.starts_with('#') {
            return true;
        }
        let (rest, _) = value.split_once('#').unwrap_or((value, ""));
        if rest.is_empty() {
            return false;
        }
        // Cheap checks first: a reference to the page names its last segment (or, for a
        // directory page, ends with `/` or `.`, is a query of its own, or names an index).
        let plausible = if self.segment.is_empty() {
            rest.ends_with('/')
                || rest.ends_with('.')
                || rest.starts_with('?')
                || rest.contains("/?")
                || contains_ignore_case(rest, "index")
                || contains_ignore_case(rest, "default")
        } else {
            contains_ignore_case(rest, &self.segment)
        };
        if !plausible {
            return false;
        }
        let decoded = rest.replace("&amp;", "&");
        let Ok(u) = url_norm::normalize(self.page, &decoded) else {
            return false;
        };
        u.as_url() == self.page
            || self
                .canon
                .as_deref()
                .is_some_and(|c| canonical(u.as_str()).as_deref() == Some(c))
    }
}

/// Whether `hay` holds `needle` (ASCII, any case).
fn contains_ignore_case(hay: &str, needle: &str) -> bool {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    n.is_empty() || h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
}

/// `text` with every whole occurrence of `needle` replaced by [`MARK`].
fn replace_whole<'t>(text: &'t str, needle: &str) -> Cow<'t, str> {
    if needle.is_empty() {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    for at in memchr::memmem::find_iter(bytes, needle.as_bytes()) {
        let end = at + needle.len();
        if end < bytes.len() && continues_url(bytes[end]) {
            continue;
        }
        let s = out.get_or_insert_with(|| String::with_capacity(text.len()));
        if at < copied {
            continue;
        }
        s.push_str(&text[copied..at]);
        s.push_str(MARK);
        copied = end;
    }
    match out {
        Some(mut s) => {
            s.push_str(&text[copied..]);
            Cow::Owned(s)
        }
        None => Cow::Borrowed(text),
    }
}

/// `s` percent-encoded as `encodeURIComponent` does (unreserved characters kept).
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 2);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'_' | b'.' | b'!' | b'~' | b'*' | b'\'' | b'(' | b')'
            )
        {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn own<'p>(page: &'p Url, body: &str) -> OwnUrl<'p> {
        OwnUrl::new(page, body)
    }

    #[test]
    fn references_that_resolve_to_the_page_are_masked_with_their_fragment() {
        let page =
            Url::parse("http://a.test/news/item?id=5&ref=x").unwrap_or_else(|_| unreachable!());
        let o = own(&page, "");
        for v in [
            "http://a.test/news/item?id=5&ref=x",
            "/news/item?id=5&amp;ref=x",
            "item?ref=x&id=5",
            "./item?id=5&ref=x",
        ] {
            assert_eq!(o.mask_value(v), MARK, "{v}");
        }
        assert_eq!(o.mask_value("#top"), format!("{MARK}#top"));
        for v in ["item?id=50&ref=x", "/news/item?id=6&ref=x", "other", "/"] {
            assert_eq!(o.mask_value(v), v, "{v}");
        }
    }

    #[test]
    fn embedded_and_textual_forms_are_masked_only_as_whole_urls() {
        let page = Url::parse("https://a.test/p/7").unwrap_or_else(|_| unreachable!());
        let body = "share https%3A%2F%2Fa.test%2Fp%2F7 at https://a.test/p/7 or /p/7; not /p/70";
        let o = own(&page, body);
        assert_eq!(
            o.mask_value("https://x.test/share?u=https%3A%2F%2Fa.test%2Fp%2F7&t=1"),
            format!("https://x.test/share?u={MARK}&t=1")
        );
        assert_eq!(
            o.mask_text("you are at /p/7, not /p/70 or /p/7/x"),
            format!("you are at {MARK}, not /p/70 or /p/7/x")
        );
    }

    #[test]
    fn the_home_page_path_is_not_masked_everywhere() {
        let page = Url::parse("http://a.test/").unwrap_or_else(|_| unreachable!());
        let o = own(&page, "<a href=/>home</a> a/b");
        assert_eq!(o.mask_text("a / b"), "a / b");
        assert_eq!(o.mask_value("/"), MARK);
    }
}

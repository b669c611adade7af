//! A parser thread's memory of hrefs it has already normalized.
//!
//! A site's navigation repeats on every page: the same top menu, the same sidebar in every page
//! of a section. Resolving and normalizing each of those links again was a quarter of a
//! crawl's CPU. The cache keys each href with exactly the part of the base URL its resolution
//! depends on, so a hit is the answer normalization would give:
//!
//! * `scheme://…`, or any scheme but the special ones (`mailto:…`): nothing of the base
//!   (`http:x` without slashes is relative to an http base, and is not cached);
//! * `/…` or `\…` (path-absolute or network-path): the base's scheme and authority;
//! * any other reference that does not start with `?` or `#`: the base up to the last `/` of
//!   its path (a relative path replaces only the last segment, the query and the fragment).
//!
//! Empty hrefs, `?…`, `#…` (which depend on the base's whole path or query) and hrefs starting
//! with a space or control character (which the URL parser strips, changing the first
//! character) are normalized every time. (The HTML parser asks once per distinct href of a
//! page, and once for all of a page's `#…` hrefs, which resolve to its base.)

use std::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashMap, HashSet};

use url::{Position, Url};

use crate::model::url_norm::{self, NormUrl, UrlError};
use crate::model::url_rules::{self, RuleLimits};

/// Entries per generation (see [`HrefCache`]): at most twice this many are kept, about a
/// megabyte, several sites' worth of navigation.
pub const DEFAULT_ENTRIES: usize = 4096;

type Answer = Result<NormUrl, UrlError>;

/// A stored href: its normalized URL, and what the URL rules say of that URL once asked
/// (they depend on it alone; checking them again on every page was 2 % of a parser's time).
#[derive(Debug, Clone)]
struct Entry {
    answer: Answer,
    refusal: Option<Option<Box<str>>>,
}

/// What [`HrefCache::normalize_checked`] gives: the normalized URL, and
/// [`url_rules::refusal`] of it.
pub type Checked = Result<(NormUrl, Option<Box<str>>), UrlError>;

/// Normalized hrefs by their base-dependent key, in two generations: new entries go to the
/// young one; when it is full the old one is dropped and the young one becomes old. A hit in
/// the old generation moves the entry back to the young one, so links found on every page
/// (navigation) stay while one-off links age out. An href is only stored the second time it
/// is met (the first time only its key's hash is noted): on a documentation site one link in
/// seven is a one-off, and storing those cost more than it saved.
#[derive(Debug)]
pub struct HrefCache {
    young: HashMap<Box<str>, Entry>,
    old: HashMap<Box<str>, Entry>,
    /// Hashes of keys met once since the last reset.
    met: HashSet<u64>,
    hasher: DefaultHashBuilder,
    key: String,
    max_len: usize,
    limits: RuleLimits,
    entries: usize,
    hits: u64,
    misses: u64,
}

impl HrefCache {
    /// A cache of up to `entries` hrefs for URLs of at most `max_len` bytes (0 = no limit),
    /// checked against the URL rules with `limits`.
    pub fn new(max_len: usize, entries: usize, limits: RuleLimits) -> Self {
        HrefCache {
            young: HashMap::with_capacity(entries.min(1024)),
            old: HashMap::new(),
            met: HashSet::new(),
            hasher: DefaultHashBuilder::default(),
            key: String::new(),
            max_len,
            limits,
            entries: entries.max(1),
            hits: 0,
            misses: 0,
        }
    }

    /// [`url_norm::normalize_with_limit`]`(base, href, max_len)`, from memory when possible.
    pub fn normalize(&mut self, base: &Url, href: &str) -> Result<NormUrl, UrlError> {
        self.lookup(base, href, |entry| entry.answer.clone(), |answer| answer)
    }

    /// [`Self::normalize`], with [`url_rules::refusal`] of the URL (worked out once for a
    /// stored href).
    pub fn normalize_checked(&mut self, base: &Url, href: &str) -> Checked {
        let limits = self.limits;
        let refuse = |url: &NormUrl| url_rules::refusal(url.as_url(), limits).map(Into::into);
        self.lookup(
            base,
            href,
            |entry| {
                let url = entry.answer.clone()?;
                let refusal = entry.refusal.get_or_insert_with(|| refuse(&url)).clone();
                Ok((url, refusal))
            },
            |answer| {
                let url = answer?;
                let refusal = refuse(&url);
                Ok((url, refusal))
            },
        )
    }

    /// Gives `stored` the entry of `href` on `base` (stored now if this is its second
    /// meeting), or `fresh` the answer of an href not stored.
    fn lookup<R>(
        &mut self,
        base: &Url,
        href: &str,
        stored: impl FnOnce(&mut Entry) -> R,
        fresh: impl FnOnce(Answer) -> R,
    ) -> R {
        if !self.make_key(base, href) {
            return fresh(url_norm::normalize_with_limit(base, href, self.max_len));
        }
        if let Some(known) = self.young.get_mut(self.key.as_str()) {
            self.hits += 1;
            return stored(known);
        }
        let (key, entry) = match self.old.remove_entry(self.key.as_str()) {
            Some(entry) => {
                self.hits += 1;
                entry
            }
            None => {
                self.misses += 1;
                let answer = url_norm::normalize_with_limit(base, href, self.max_len);
                if self.met.insert(self.hasher.hash_one(self.key.as_str())) {
                    // First meeting: remember only that it was met.
                    if self.met.len() > 4 * self.entries {
                        self.met.clear();
                    }
                    return fresh(answer);
                }
                let entry = Entry {
                    answer,
                    refusal: None,
                };
                (self.key.as_str().into(), entry)
            }
        };
        if self.young.len() >= self.entries {
            self.old = std::mem::take(&mut self.young);
        }
        stored(self.young.entry(key).insert(entry).into_mut())
    }

    /// (hits, misses) so far.
    pub fn stats(&self) -> (u64, u64) {
        (self.hits, self.misses)
    }

    /// Builds the key in `self.key`: a tag, the base part, NUL, the href. NUL occurs in neither
    /// part (the base is serialized by the url crate; hrefs with control characters at the
    /// start are not cached, and anywhere else they are part of the href as written), so two
    /// different (tag, base part, href) never share a key.
    fn make_key(&mut self, base: &Url, href: &str) -> bool {
        let bytes = href.as_bytes();
        let Some(&first) = bytes.first() else {
            return false;
        };
        if first <= b' ' || first == b'?' || first == b'#' {
            return false;
        }
        // One pass up to the fragment: where that starts, where a scheme ends (a letter, then
        // letters, digits, `+`, `-` or `.`, then `:`, as the URL parser reads it), and no NUL.
        let mut end = bytes.len();
        let mut scheme_end = None;
        let mut scheme_chars = first.is_ascii_alphabetic();
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                0 => return false,
                b'#' => {
                    end = i;
                    break;
                }
                b':' if scheme_chars && scheme_end.is_none() => scheme_end = Some(i),
                b if !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')) => {
                    scheme_chars = false;
                }
                _ => {}
            }
        }
        self.key.clear();
        if let Some(i) = scheme_end {
            // `http:x`, `http:?q` or a bare `http:` are relative to an http base.
            let special = ["http", "https", "ws", "wss", "ftp", "file"]
                .iter()
                .any(|s| s.eq_ignore_ascii_case(&href[..i]));
            if special && !href[i + 1..].starts_with("//") {
                return false;
            }
            self.key.push('a');
        } else if first == b'/' || first == b'\\' {
            self.key.push('p');
            self.key.push_str(&base[..Position::BeforePath]);
        } else {
            self.key.push('r');
            let upto_path = &base[..Position::AfterPath];
            let dir = upto_path.rfind('/').map_or(upto_path, |i| &upto_path[..=i]);
            self.key.push_str(dir);
        }
        self.key.push('\0');
        // The fragment is dropped by normalization: `page#a` and `page#b` are one entry.
        self.key.push_str(&href[..end]);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The limits of the shipped settings.
    fn shipped() -> RuleLimits {
        crate::crawl::settings::Settings::defaults(std::path::Path::new("."))
            .sites
            .rule_limits()
    }

    /// Every (base, href) pair gives what normalization gives, cached or not, in any order.
    #[test]
    fn answers_equal_normalization() {
        let bases = [
            "http://a.test/",
            "http://a.test/d/page.html",
            "http://a.test/d/page.html?q=1",
            "http://a.test/d/",
            "http://a.test/d/e/f",
            "https://a.test/d/page.html",
            "http://u:p@a.test:8080/d/x",
            "http://b.test/d/page.html",
        ];
        let hrefs = [
            "x.html",
            "../x.html",
            "./",
            ".",
            "..",
            "/x",
            "/d/../x?b=2&a=1#f",
            "//c.test/y",
            "\\x",
            "/\\c.test/z",
            "http:g",
            "https:g",
            "http://c.test/%7ex",
            "HTTP://C.TEST",
            "mailto:someone@a.test",
            "javascript:void(0)",
            "?q=2",
            "#top",
            "",
            " /padded",
            "\t?tab",
            "x\ny.html",
            "d/http:g",
            "http:",
            "HTTP:?q",
            "http:#f",
            "https:",
            "ftp:x",
            "tel:+123",
            "page:1.html",
            "1x:y",
            "a+b.c-d:x",
            "x#y:z",
            "x/y:z",
            "x?y:z",
            "HTTPS://c.test/#frag",
            "g;x?y#s",
            "x.html#one",
            "x.html#two",
            "/x#",
            "mailto:a@b.test#x",
        ];
        // A cache that keeps everything, and one that starts over all the time.
        for entries in [1000, 7] {
            let mut cache = HrefCache::new(2048, entries, shipped());
            for round in 0..3 {
                for b in bases {
                    let base = Url::parse(b).unwrap();
                    for h in hrefs {
                        let want = url_norm::normalize_with_limit(&base, h, 2048);
                        let got = cache.normalize(&base, h);
                        assert_eq!(got, want, "round {round} base {b} href {h:?}");
                    }
                }
            }
            let (hits, misses) = cache.stats();
            assert!(misses > 0);
            if entries > 100 {
                assert!(hits > misses, "{hits} {misses}");
            }
        }
    }

    /// A stored href's URL rules are worked out once and given with every hit; they are what
    /// the rules say of the normalized URL, stored or not.
    #[test]
    fn refusals_equal_the_url_rules() {
        let limits = RuleLimits {
            max_segment_repeats: 2,
            max_query_parameters: 2,
            documents: false,
        };
        let base = Url::parse("http://a.test/d/page.html").unwrap();
        let hrefs = [
            "doc.PDF",
            "/a/a/a/x.html",
            "../d/d/d/",
            "x.html?a=1&b=2&c=3",
            "x.html?a=1&b=2",
            "plain.html",
            "mailto:x@a.test",
        ];
        for entries in [1000, 2] {
            let mut cache = HrefCache::new(2048, entries, limits);
            for round in 0..3 {
                for h in hrefs {
                    let want = url_norm::normalize_with_limit(&base, h, 2048).map(|u| {
                        let refusal = url_rules::refusal(u.as_url(), limits).map(Into::into);
                        (u, refusal)
                    });
                    assert_eq!(cache.normalize_checked(&base, h), want, "{round} {h}");
                }
            }
        }
        let mut cache = HrefCache::new(2048, 1000, limits);
        let refused = |c: &mut HrefCache, h| c.normalize_checked(&base, h).unwrap().1;
        assert_eq!(
            refused(&mut cache, "doc.PDF").as_deref(),
            Some("not html (extension pdf)")
        );
        assert_eq!(
            refused(&mut cache, "/a/a/a/x.html").as_deref(),
            Some("repeating path segment (a)")
        );
        assert_eq!(
            refused(&mut cache, "x.html?a=1&b=2&c=3").as_deref(),
            Some("too many query parameters (3)")
        );
        assert_eq!(refused(&mut cache, "x.html?a=1&b=2"), None);
    }

    #[test]
    fn relative_keys_depend_on_the_directory_only() {
        let mut cache = HrefCache::new(0, 100, shipped());
        let a = Url::parse("http://a.test/d/one.html").unwrap();
        let b = Url::parse("http://a.test/d/two.html?x=1").unwrap();
        let c = Url::parse("http://a.test/e/one.html").unwrap();
        // Met twice in /d/ (stored the second time), then found from another page of /d/.
        cache.normalize(&a, "p.html").unwrap();
        cache.normalize(&a, "p.html").unwrap();
        assert_eq!(
            cache.normalize(&b, "p.html").unwrap().as_str(),
            "http://a.test/d/p.html"
        );
        assert_eq!(cache.stats(), (1, 2));
        assert_eq!(
            cache.normalize(&c, "p.html").unwrap().as_str(),
            "http://a.test/e/p.html"
        );
        assert_eq!(cache.stats(), (1, 3));
    }

    #[test]
    fn bounded() {
        let mut cache = HrefCache::new(0, 10, shipped());
        let base = Url::parse("http://a.test/").unwrap();
        let nav = Url::parse("http://a.test/nav").unwrap();
        for i in 0..1000 {
            cache.normalize(&base, &format!("/p{i}")).unwrap();
            cache.normalize(&nav, "menu").unwrap();
            assert!(cache.young.len() <= 10 && cache.old.len() <= 10);
        }
        // The link on every page stayed: two misses for it (stored the second time), one
        // per one-off link; one-off links were never stored.
        assert_eq!(cache.stats(), (998, 1002));
        assert!(cache.young.len() <= 1 && cache.old.is_empty());
    }
}

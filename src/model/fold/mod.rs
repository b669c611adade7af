//! One page, one node (SPEC §2.6, §14): what makes two URLs of a site one page when their bytes
//! differ.
//!
//! The parser gives every page three digests besides its exact hash ([`digest()`]): with the
//! parts that change per response masked, with its own address masked too, and of its text
//! alone. The graph (`data::scope::graph`) then folds a URL into the node of an earlier
//! page whose exact hash, or else request digest, or else own-address digest is equal — or,
//! for a print or AMP URL, whose text digest is — and names the reason: the URLs' shapes when
//! they tell it ([`url_shape`]), else what had to be masked. What changes per response beyond
//! the kinds masked by name is learned per site from a page fetched twice ([`learn`],
//! [`rules`]).

pub mod digest;
pub mod learn;
pub mod learning;
mod own_url;
pub mod page_text;
pub mod print_sketch;
pub mod rules;
mod scan;
pub mod session;
mod session_params;
pub mod url_shape;

pub use digest::{Digests, digest, digest_with_sketch};
pub use learning::{SiteLearning, looks_dynamic};
pub use rules::SiteRules;
pub use url_shape::{ShapeReason, shape_reason};

/// The path (after the site's `/`) fetched once on a site whose pages look like "not found"
/// pages, to learn what it answers for a path it cannot have (SPEC §14: soft 404s).
pub const SOFT_404_PROBE: &str = "rccrawler-probe-no-such-page-7f3a";

/// How duplicate pages are recognised (`Duplicates`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Duplicates {
    /// Equal bytes only (the RCCrawler paper's rule).
    Exact,
    /// Equal bytes, or equal once per-response parts, the page's own address, session and
    /// tracking parameters are set aside; print versions of a page's text (SPEC §14).
    #[default]
    Fold,
}

impl Duplicates {
    /// Its `settings.ini` name.
    pub fn name(self) -> &'static str {
        match self {
            Duplicates::Exact => "exact",
            Duplicates::Fold => "fold",
        }
    }

    /// The value a setting names, if it names one.
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "exact" => Some(Duplicates::Exact),
            "fold" => Some(Duplicates::Fold),
            _ => None,
        }
    }
}

/// Whether a page's body writes its own address as a whole — its path and query from the
/// root, or its absolute URL — not as the end of a relative link (`../a/index.html`) or the
/// start of a longer one: what a server that echoes the address it was asked for writes, the
/// one place where two addresses of a static page differ. One substring search over the body.
pub fn writes_own_address(body: &str, page: &url::Url) -> bool {
    let path = &page[url::Position::BeforePath..url::Position::AfterQuery];
    let origin = &page[..url::Position::BeforePath];
    let needle = if path == "/" { page.as_str() } else { path };
    let b = body.as_bytes();
    memchr::memmem::find_iter(b, needle.as_bytes()).any(|at| {
        let end = at + needle.len();
        let ends = b.get(end).is_none_or(|&c| !own_url::continues_url(c));
        let starts = path == "/"
            || at == 0
            || matches!(
                b[at - 1],
                b'"' | b'\'' | b'=' | b'>' | b' ' | b'\t' | b'\n' | b'\r'
            )
            || body[..at].ends_with(origin);
        ends && starts
    })
}

/// Whether a page on a site not yet known to change per response needs its fold digests
/// computed in full, or its exact hash stands for all of them: only when something in it could
/// differ between two addresses of one page — signs of per-request parts (found while its links
/// were extracted), its own address written whole, or a print version among it and its links.
/// A search costing a few percent of extraction, where the full digest would double a static
/// site's parse time.
pub fn needs_full_digest<'a>(
    body: &str,
    page: &url::Url,
    per_request_signs: bool,
    mut hrefs: impl Iterator<Item = &'a str>,
) -> bool {
    per_request_signs
        || writes_own_address(body, page)
        || url_shape::may_be_print(page.as_str())
        || hrefs.any(url_shape::may_be_print)
}

/// Whether an attribute name says its value is made per request (a nonce, a CSRF or other
/// token, a session id). Every attribute of every page comes here: short names leave at once.
pub fn is_per_request_name(name: &[u8]) -> bool {
    if name.len() < 5 {
        return false;
    }
    let has = |w: &[u8]| name.windows(w.len()).any(|x| x.eq_ignore_ascii_case(w));
    has(b"nonce") || has(b"csrf") || has(b"xsrf") || has(b"token") || has(b"session")
}

/// Whether a page's title says it is a "not found" page (a sign of a soft 404, checked by a
/// probe before anything is concluded).
pub fn title_says_not_found(title: &str) -> bool {
    let t = title.to_lowercase();
    t.contains("404")
        || t.contains("not found")
        || t.contains("page not")
        || t.contains("no such page")
}

//! One page, one node (SPEC §2.6, §14): what makes two URLs of a site one page when their bytes
//! differ.
//!
//! The parser gives every page three digests besides its exact hash ([`digest`]): with the
//! parts that change per response masked, with its own address masked too, and of its text
//! alone. The graph ([`crate::data::scope::graph`]) then folds a URL into the node of an earlier
//! page whose exact hash, or else request digest, or else own-address digest is equal — or,
//! for a print or AMP URL, whose text digest is — and names the reason: the URLs' shapes when
//! they tell it ([`url_shape`]), else what had to be masked. What changes per response beyond
//! the kinds masked by name is learned per site from a page fetched twice ([`learn`],
//! [`rules`]).

pub mod digest;
pub mod learn;
pub mod learning;
mod own_url;
pub mod rules;
mod scan;
pub mod url_shape;

pub use digest::{Digests, digest};
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

/// Whether a page's title says it is a "not found" page (a sign of a soft 404, checked by a
/// probe before anything is concluded).
pub fn title_says_not_found(title: &str) -> bool {
    let t = title.to_lowercase();
    t.contains("404")
        || t.contains("not found")
        || t.contains("page not")
        || t.contains("no such page")
}

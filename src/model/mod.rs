//! Layer 2, `model`: what the crawl's objects are and the rules about them, with no thread, file or
//! network in sight.
//!
//! - [`site`] — what a site is (scheme + host + port); [`sites`] — the registry of this run's
//!   sites.
//! - [`url_norm`] — what a link is: resolution and normalization; [`url_rules`] — which URLs are
//!   pages; [`path_rules`] — hosts.txt's `include=`, `exclude=`, `pages=`.
//! - [`url_filter`] — the URL filters (`UrlAnalyzingThread`): which hosts share a scope.
//! - [`robots`] — robots.txt (RFC 9309 and the paper's reading).
//! - [`sitemap`] — what a site's sitemaps list, and one sitemap file read (SPEC §17).
//! - [`cookies`] — a site's cookie jar (`Cookies`, SPEC §14).
//! - [`documents`] — what a node is: a page, or a document by its Content-Type (SPEC §19).
//! - [`fold`] — one page, one node (SPEC §14): a page's digests, what a site changes, the URL
//!   shapes that name why two URLs are one page.
//! - [`link_attrs`] — what links and pages say about themselves: `rel` qualifiers and robots
//!   directives (SPEC §17).
//! - [`bandit`] — the budget rules (the BeeBot paper's R1–R3 and others), the oracle, `rccrawler
//!   replay`'s policies.

pub mod bandit;
pub(crate) mod cookies;
pub mod documents;
pub mod fold;
pub mod link_attrs;
pub(crate) mod path_rules;
pub mod robots;
pub mod site;
pub mod sitemap;
pub(crate) mod sites;
pub(crate) mod url_filter;
pub mod url_norm;
pub mod url_rules;

//! The URL filter (the paper's UrlAnalyzingThread): which links are inside a crawl's scope.
//! Called by the parser threads for every http(s) link. `EmptyUAT` keeps a crawl on its seed
//! site; the key-domain filter (SPEC §6) will let a scope span several sites.

mod empty;

use std::fmt::Debug;

pub use empty::SeedSiteOnly;
use url::Url;

use crate::ids::SiteId;
use crate::sites::{SiteView, Sites};

/// Decides whether a link is internal to a crawl. Called by the parsing threads, concurrently,
/// for every http(s) link of every page.
pub trait UrlFilter: Send + Sync + Debug {
    /// The site (of the crawl that the page's site `from` belongs to) that `url` is on, or
    /// `None` when the link leaves the crawl (an external link). `sites` holds every site
    /// of the run.
    fn scope_site(&self, from: &SiteView<'_>, url: &Url, sites: &Sites) -> Option<SiteId>;
}

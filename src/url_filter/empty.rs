//! `EmptyUAT`: a crawl's scope is its seed site; every other host (subdomains included) is
//! external (SPEC §2).

use url::Url;

use super::UrlFilter;
use crate::ids::SiteId;
use crate::sites::SiteEntry;

/// Internal = same scheme, host and port as the page's site.
#[derive(Debug, Clone, Copy, Default)]
pub struct SeedSiteOnly;

impl UrlFilter for SeedSiteOnly {
    fn scope_site(&self, page_site: &SiteEntry, url: &Url) -> Option<SiteId> {
        page_site.origin.contains(url).then_some(page_site.id)
    }
}

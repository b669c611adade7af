//! `EmptyUAT`: a crawl's scope is its seed site — its listed origin and aliases; every other
//! host (subdomains included) is external (SPEC §2).

use url::Url;

use super::UrlFilter;
use crate::base::ids::SiteId;
use crate::model::sites::{SiteView, Sites};

/// Internal = on one of the origins of the page's site.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SeedSiteOnly;

impl UrlFilter for SeedSiteOnly {
    fn scope_site(&self, from: &SiteView<'_>, url: &Url, _sites: &Sites) -> Option<SiteId> {
        from.contains(url).then_some(from.entry.id)
    }
}

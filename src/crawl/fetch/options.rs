//! What a downloader is told by settings.ini while it fetches ([`FetchOptions`]): read once
//! when the crawl starts, so that the walks of a page, a robots.txt and a sitemap depend on
//! these few values and not on the whole of `Settings`. (The HTTP client's own settings —
//! timeouts, TLS, addresses — are read when it is built.)

use crate::crawl::settings::Settings;
use crate::model::fold::Duplicates;
use crate::model::url_rules::RuleLimits;

/// The settings a downloader reads while it fetches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchOptions {
    /// `UserAgent`, as sent (and archived with each request).
    pub user_agent: String,
    /// Our robots product token, the robots.txt group we obey.
    pub robots_agent: String,
    /// `Cookies`: a site's cookies are kept and sent.
    pub cookies: bool,
    /// `MaxPageBytes`: a longer body is cut.
    pub max_page_bytes: u64,
    /// `Documents`: answers whose Content-Type is a document are read (SPEC §19).
    pub documents: bool,
    /// `MaxDocumentBytes`: a longer document is a bad link.
    pub max_document_bytes: u64,
    /// `MaxPathSegmentRepeats`, `MaxQueryParameters`: a redirect to such a URL is a bad link.
    pub rule_limits: RuleLimits,
    /// `MaxUrlLength`: a longer URL in a sitemap is left out.
    pub max_url_length: usize,
    /// `MetaRefreshMaxDelay`, seconds: a `<meta http-equiv="refresh">` at most this late is a
    /// redirect.
    pub meta_refresh_max_delay: u32,
    /// `Duplicates`: what a page's digests are taken for.
    pub duplicates: Duplicates,
}

impl FetchOptions {
    /// The options `settings` give.
    pub fn new(settings: &Settings) -> Self {
        FetchOptions {
            user_agent: settings.http.user_agent.clone(),
            robots_agent: settings.robots_agent().to_owned(),
            cookies: settings.http.cookies,
            max_page_bytes: settings.http.max_page_bytes,
            documents: settings.sites.documents.enabled,
            max_document_bytes: settings.sites.documents.max_bytes,
            rule_limits: settings.sites.rule_limits(),
            max_url_length: settings.sites.max_url_length,
            meta_refresh_max_delay: settings.sites.meta_refresh_max_delay,
            duplicates: settings.sites.duplicates,
        }
    }
}

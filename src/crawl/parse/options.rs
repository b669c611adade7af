//! What a parser is told by settings.ini ([`ParseOptions`]): read once when the crawl starts,
//! so that a parser depends on these few values and not on the whole of `Settings`.

use crate::crawl::settings::Settings;
use crate::model::fold::Duplicates;
use crate::model::sites::OtherScheme;
use crate::model::url_rules::RuleLimits;

/// The settings a parser reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseOptions {
    /// `MaxUrlLength`: a longer link is a bad link.
    pub max_url_length: usize,
    /// `MaxPathSegmentRepeats`, `MaxQueryParameters`.
    pub rule_limits: RuleLimits,
    /// `ExternalLinkContext`: characters of text around an external link (0: none).
    pub external_link_context: usize,
    /// Our robots product token: `<meta name="AGENT">` is read like `<meta name="robots">`.
    pub robots_agent: String,
    /// `Duplicates`: how pages that are one page are told apart.
    pub duplicates: Duplicates,
    /// `MaxLinksPerPage`: links of a page past it are not followed.
    pub max_links_per_page: u32,
    /// `OtherSchemeLinks`: links to the site under the other scheme.
    pub other_scheme_links: OtherScheme,
    /// `PageText = yes`: a node's text is kept up to this many bytes (`MaxTextBytes`); 0: no
    /// text (SPEC §19).
    pub page_text: usize,
}

impl ParseOptions {
    /// The options `settings` give.
    pub fn new(settings: &Settings) -> Self {
        ParseOptions {
            max_url_length: settings.sites.max_url_length,
            rule_limits: settings.sites.rule_limits(),
            external_link_context: settings.results.external_link_context,
            robots_agent: settings.robots_agent().to_owned(),
            duplicates: settings.sites.duplicates,
            max_links_per_page: settings.sites.max_links_per_page,
            other_scheme_links: settings.sites.other_scheme_links,
            page_text: if settings.sites.documents.page_text {
                settings.sites.documents.max_text_bytes
            } else {
                0
            },
        }
    }
}

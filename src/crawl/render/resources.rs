//! What a browser may fetch while it renders a page (SPEC §18): what can change the DOM — a
//! frame's document, scripts, the data scripts ask for — is fetched by the crawl; images,
//! fonts, media, style sheets and known trackers never are. Style sheets are left out with
//! images: they lay the page out but add no element to it, and each would cost the site a
//! request in its delay.

use url::Url;

use super::ResourceKind;

/// What becomes of one request of the browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Refused at once.
    Block,
    /// Put to the crawl.
    Fetch(Url, ResourceKind),
}

/// Hosts (and their sub-hosts) of analytics, advertising and tag managers: requests to them
/// never add a link, and a crawl should not feed them.
const TRACKERS: &[&str] = &[
    "google-analytics.com",
    "googletagmanager.com",
    "googleadservices.com",
    "googlesyndication.com",
    "doubleclick.net",
    "connect.facebook.net",
    "facebook.com",
    "hotjar.com",
    "segment.io",
    "segment.com",
    "mixpanel.com",
    "matomo.cloud",
    "clarity.ms",
    "scorecardresearch.com",
    "quantserve.com",
    "adnxs.com",
    "criteo.com",
    "taboola.com",
    "outbrain.com",
    "newrelic.com",
    "nr-data.net",
    "sentry.io",
    "plausible.io",
    "stats.wp.com",
];

/// Extensions of images, fonts and media.
const PASSIVE: &[&str] = &[
    "ico", "png", "jpg", "jpeg", "gif", "webp", "avif", "svg", "bmp", "woff", "woff2", "ttf",
    "otf", "eot", "mp3", "mp4", "webm", "ogg", "wav", "css",
];

/// Whether `host` is a known tracker's.
pub fn is_tracker(host: &str) -> bool {
    TRACKERS
        .iter()
        .any(|t| host == *t || host.strip_suffix(t).is_some_and(|rest| rest.ends_with('.')))
}

/// What to do with a request for `url` of DevTools resource type `kind`.
pub fn decide(url: &str, kind: &str) -> Decision {
    let kind = match kind {
        "Document" => ResourceKind::Document,
        "Script" => ResourceKind::Script,
        "XHR" | "Fetch" | "EventSource" => ResourceKind::Data,
        "Other" => ResourceKind::Other,
        // Image, Media, Font, Stylesheet, TextTrack, Ping, Manifest, Prefetch, …
        _ => return Decision::Block,
    };
    let Ok(url) = Url::parse(url) else {
        return Decision::Block;
    };
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(is_tracker) {
        return Decision::Block;
    }
    // The browser's own asks typed `Other` (its favicon) are images all the same.
    let extension = url.path().rsplit_once('.').map_or("", |(_, e)| e);
    if kind == ResourceKind::Other && PASSIVE.contains(&extension.to_ascii_lowercase().as_str()) {
        return Decision::Block;
    }
    Decision::Fetch(url, kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_may_build_the_dom_is_fetched_the_rest_is_not() {
        let fetched = |u: &str, k: &str| matches!(decide(u, k), Decision::Fetch(..));
        assert!(fetched("http://a.test/app.js", "Script"));
        assert!(fetched("http://a.test/api/items.json", "Fetch"));
        assert!(fetched("http://a.test/api/items.json", "XHR"));
        assert!(fetched("http://cdn.test/lib.js", "Script"));
        assert!(fetched("http://a.test/frame.html", "Document"));
        for kind in ["Image", "Font", "Media", "Stylesheet", "Ping", "Manifest"] {
            assert!(!fetched("http://a.test/x", kind), "{kind}");
        }
        assert!(!fetched(
            "https://www.google-analytics.com/analytics.js",
            "Script"
        ));
        assert!(!fetched("https://googletagmanager.com/gtm.js", "Script"));
        assert!(!fetched("data:text/javascript,1", "Script"));
        assert!(!fetched("ws://a.test/socket", "Other"));
        assert!(!fetched("http://a.test/favicon.ico", "Other"));
        assert!(fetched("http://a.test/manifest-data", "Other"));
    }

    #[test]
    fn trackers_are_matched_by_whole_labels() {
        assert!(is_tracker("www.google-analytics.com"));
        assert!(is_tracker("doubleclick.net"));
        assert!(!is_tracker("notdoubleclick.net"));
        assert!(!is_tracker("a.test"));
    }
}

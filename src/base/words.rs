//! Counts in sentences people read: `1 scope`, `2 scopes` (issue 49: "1 scopes", "1 pages");
//! sites as people wrote them: `http://bücher.test`, not `http://xn--bcher-kva.test`.

/// `n` and its noun, singular for one: `count(1, "scope")` is `1 scope`, `count(3, "scope")`
/// `3 scopes` (the plural adds an `s`).
pub(crate) fn count(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The origin a site's home page ended on (summary.csv's `Home`), when it is not the listed
/// origin `site`: the site moved there (`moved to …` in every table of states).
pub(crate) fn moved_to<'a>(site: &str, home: &'a str) -> Option<&'a str> {
    let listed = site.trim_end_matches('/');
    let origin_end = home
        .find("://")
        .and_then(|i| home[i + 3..].find('/').map(|j| i + 3 + j))
        .unwrap_or(home.len());
    let home_origin = &home[..origin_end];
    (!home.is_empty() && home_origin != listed).then_some(home_origin)
}

/// An origin (or URL) as people read it: an internationalised host (`xn--…` labels) in its
/// Unicode form; anything else as it is. Result files keep the punycode, which every tool
/// reads; the console shows what was written in hosts.txt.
pub(crate) fn shown_origin(origin: &str) -> std::borrow::Cow<'_, str> {
    let Some((scheme, rest)) = origin.split_once("://") else {
        return origin.into();
    };
    let end = rest.find(['/', ':', '?', '#']).unwrap_or(rest.len());
    let host = &rest[..end];
    if !host.split('.').any(|label| label.starts_with("xn--")) {
        return origin.into();
    }
    match idna::domain_to_unicode(host) {
        (unicode, Ok(())) => format!("{scheme}://{unicode}{}", &rest[end..]).into(),
        _ => origin.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_everything_else_plural() {
        assert_eq!(count(1u32, "scope"), "1 scope");
        assert_eq!(count(0u32, "scope"), "0 scopes");
        assert_eq!(count(12u64, "page"), "12 pages");
    }

    #[test]
    fn a_home_page_on_another_origin_is_a_move() {
        assert_eq!(
            moved_to("http://a.test", "https://www.a.test/start"),
            Some("https://www.a.test")
        );
        assert_eq!(moved_to("http://a.test", "http://a.test/"), None);
        assert_eq!(moved_to("http://a.test", ""), None);
    }

    #[test]
    fn international_hosts_are_shown_as_written() {
        assert_eq!(
            shown_origin("http://xn--bcher-kva.test:8080"),
            "http://bücher.test:8080"
        );
        assert_eq!(shown_origin("https://a.test/x"), "https://a.test/x");
        assert_eq!(shown_origin("http://xn--bad-.test"), "http://xn--bad-.test");
    }
}

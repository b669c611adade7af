//! Session ids the site's own links reveal (SPEC §14): a query parameter that every internal
//! link of a page carries with one value, and the page's second copy with another — a visit's
//! id written into the links, under whatever name the site gives it (`visit`, `s`, `ref`…).
//! Known names (`sid`, `PHPSESSID`, …) need no detection; these are the others.

use std::collections::BTreeSet;

use super::session_params::is_session_param;
use super::url_shape::is_tracking_param;

/// Links of a copy that must carry a parameter with one value before it counts.
const MIN_LINKS: usize = 3;

/// A link's path and its query parameters in order (no fragment).
fn split(href: &str) -> (&str, Vec<(&str, &str)>) {
    let href = href.split('#').next().unwrap_or(href);
    let (path, query) = href.split_once('?').unwrap_or((href, ""));
    let params = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').unwrap_or((p, "")))
        .collect();
    (path, params)
}

/// The one value a parameter has on every link of a copy that carries it, with how many
/// links carry it (`None`: two values on one copy — no session id).
fn single_value<'a>(
    links: &[(&'a str, Vec<(&'a str, &'a str)>)],
    name: &str,
) -> Option<(&'a str, usize)> {
    let mut value = None;
    let mut n = 0;
    for (_, params) in links {
        for &(k, v) in params {
            if k.eq_ignore_ascii_case(name) {
                if value.is_some_and(|x| x != v) {
                    return None;
                }
                value = Some(v);
                n += 1;
            }
        }
    }
    value.map(|v| (v, n))
}

/// The parameters that are session ids by the two copies' links (their hrefs as written, in
/// document order): links at the same position that differ only in that parameter's value,
/// one value per copy, on at least `MIN_LINKS` (three) links.
pub fn detect<'a>(
    first: impl Iterator<Item = &'a str>,
    second: impl Iterator<Item = &'a str>,
) -> BTreeSet<String> {
    let one: Vec<_> = first.map(split).collect();
    let two: Vec<_> = second.map(split).collect();
    let mut names = BTreeSet::new();
    for ((p1, q1), (p2, q2)) in one.iter().zip(&two) {
        if p1 != p2 || q1.len() != q2.len() {
            continue;
        }
        let differing: Vec<_> = q1.iter().zip(q2).filter(|(a, b)| a != b).collect();
        if let [((k1, _), (k2, _))] = differing.as_slice()
            && k1 == k2
            && !is_session_param(k1)
            && !is_tracking_param(k1)
        {
            names.insert(k1.to_owned());
        }
    }
    names.retain(|name| {
        let (a, b) = (single_value(&one, name), single_value(&two, name));
        matches!((a, b), (Some((v1, n1)), Some((v2, n2)))
            if v1 != v2 && !v1.is_empty() && n1 >= MIN_LINKS && n2 >= MIN_LINKS)
    });
    names.into_iter().map(|n| n.to_ascii_lowercase()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(a: &[&str], b: &[&str]) -> Vec<String> {
        detect(a.iter().copied(), b.iter().copied())
            .into_iter()
            .collect()
    }

    #[test]
    fn a_value_every_link_carries_that_changes_between_copies_is_a_session() {
        let one = ["/a?visit=K1", "/b?x=1&visit=K1", "/c?visit=K1#top", "/d"];
        let two = ["/a?visit=K2", "/b?x=1&visit=K2", "/c?visit=K2#top", "/d"];
        assert_eq!(names(&one, &two), ["visit"]);
    }

    #[test]
    fn pages_pagination_ids_and_known_names_are_not() {
        // The same value on both copies: no visit.
        let same = ["/a?s=1", "/b?s=1", "/c?s=1"];
        assert!(names(&same, &same).is_empty());
        // A value per link (a page number, an item id) is no session.
        let one = ["/a?p=1", "/b?p=2", "/c?p=3"];
        let two = ["/a?p=4", "/b?p=5", "/c?p=6"];
        assert!(names(&one, &two).is_empty());
        // Too few links to tell.
        assert!(names(&["/a?v=1", "/b?v=1"], &["/a?v=2", "/b?v=2"]).is_empty());
        // Known session and tracking names are not detected again.
        let one = ["/a?sid=1", "/b?sid=1", "/c?sid=1"];
        let two = ["/a?sid=2", "/b?sid=2", "/c?sid=2"];
        assert!(names(&one, &two).is_empty());
    }
}

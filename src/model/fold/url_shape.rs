//! Why an alias URL is one page with its node's URL, read from the two URLs' shapes (SPEC §14,
//! case 3 and 4): a tracking or session parameter added, an index document named, a trailing
//! slash, a print or AMP marker, another case of the path. Only a reason: the content decides
//! whether the two are one page, the shape says what made the second URL.

use std::collections::BTreeSet;

use url::Url;

use super::session_params::is_session_param;

/// The shape that tells an alias from its node's URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShapeReason {
    /// Tracking parameters (`utm_*`, `fbclid`, `gclid`, …).
    TrackingParameter,
    /// A session id in the query or in a path parameter (`;jsessionid=`).
    SessionId,
    /// `index.html`, `index.php`, `default.aspx`, … named or left out.
    IndexDocument,
    /// A trailing slash added or left out.
    TrailingSlash,
    /// A print or AMP rendering (`?print=1`, `/print/`, `/amp`).
    PrintVersion,
    /// The path in another case (the server answers both).
    CaseInsensitive,
}

impl ShapeReason {
    /// The `Reason` of duplicates.csv.
    pub fn as_str(self) -> &'static str {
        match self {
            ShapeReason::TrackingParameter => "tracking parameter",
            ShapeReason::SessionId => "session id",
            ShapeReason::IndexDocument => "index document",
            ShapeReason::TrailingSlash => "trailing slash",
            ShapeReason::PrintVersion => "print version",
            ShapeReason::CaseInsensitive => "case-insensitive server",
        }
    }
}

/// Whether a query parameter only tracks where a visitor came from.
pub fn is_tracking_param(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.starts_with("utm_")
        || matches!(
            n.as_str(),
            "fbclid"
                | "gclid"
                | "dclid"
                | "gbraid"
                | "wbraid"
                | "msclkid"
                | "mc_cid"
                | "mc_eid"
                | "yclid"
                | "igshid"
                | "_ga"
                | "_gl"
                | "_hsenc"
                | "_hsmi"
                | "mkt_tok"
                | "ref_src"
                | "twclid"
                | "ttclid"
                | "li_fat_id"
                | "srsltid"
        )
}

/// Index documents a server answers for a directory.
fn is_index_document(segment: &str) -> bool {
    let s = segment.to_ascii_lowercase();
    matches!(
        s.as_str(),
        "index.html"
            | "index.htm"
            | "index.php"
            | "index.shtml"
            | "index.jsp"
            | "index.asp"
            | "index.aspx"
            | "index.cfm"
            | "default.asp"
            | "default.aspx"
            | "default.htm"
            | "default.html"
    )
}

/// Path segments and parameters that ask for a print or AMP rendering.
fn is_print_segment(segment: &str) -> bool {
    // Every path segment of every link comes here: no allocation, short ones only.
    segment.len() <= 16
        && [
            "print",
            "printable",
            "print-version",
            "printer-friendly",
            "amp",
        ]
        .iter()
        .any(|w| segment.eq_ignore_ascii_case(w))
}

fn is_print_param(name: &str, value: &str) -> bool {
    let is = |s: &str, words: &[&str]| words.iter().any(|w| s.eq_ignore_ascii_case(w));
    is(
        name,
        &[
            "print",
            "printable",
            "printer",
            "print_view",
            "printview",
            "amp",
        ],
    ) || (is(
        name,
        &[
            "view",
            "format",
            "output",
            "type",
            "mode",
            "layout",
            "outputtype",
        ],
    ) && is(value, &["print", "printable", "amp"]))
}

/// Whether a URL or href asks for a print or AMP rendering: a path segment or a query
/// parameter that says so (`/print/`, `/amp`, `?print=1`, `?view=print`), read without
/// parsing it (`println.html` is no print version).
pub fn may_be_print(href: &str) -> bool {
    // Every link of every page comes here: one pass over its bytes for "print" or "amp" in
    // any case first (most links have neither; "string" must not pass for "print").
    let b = href.as_bytes();
    let letters = (0..b.len()).any(|i| match b[i] | 0x20 {
        b'p' => b
            .get(i + 1..i + 5)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"rint")),
        b'a' => b
            .get(i + 1..i + 3)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"mp")),
        _ => false,
    });
    if !letters {
        return false;
    }
    let href = href.split('#').next().unwrap_or(href);
    let (path, query) = href.split_once('?').unwrap_or((href, ""));
    path.split('/').any(is_print_segment)
        || query
            .split('&')
            .map(|p| p.trim_start_matches("amp;"))
            .any(|p| {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                is_print_param(k, v)
            })
}

/// Whether `url` asks for a print or AMP rendering, and the URL of the page it renders.
pub fn print_target(url: &str) -> Option<String> {
    let u = Parts::of(url)?;
    let stripped = u.clone().without_print();
    (stripped != u).then(|| stripped.join())
}

/// `url` with every shape that names the same page set aside (tracking and session
/// parameters, index documents, a trailing slash, print markers, the path's case): two URLs
/// with the same canonical form may be one page. `None` when it does not parse.
pub fn canonical(url: &str) -> Option<String> {
    let p = Parts::of(url)?
        .without_tracking()
        .without_session(&BTreeSet::new())
        .without_index()
        .without_trailing_slash()
        .without_print()
        .lower_case();
    Some(p.join())
}

/// A URL cut into what the shapes change.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Parts {
    origin: String,
    path: String,
    query: Vec<(String, String)>,
}

impl Parts {
    fn of(url: &str) -> Option<Self> {
        let u = Url::parse(url).ok()?;
        let origin = u[..url::Position::BeforePath].to_owned();
        let query = u
            .query()
            .map(|q| {
                q.split('&')
                    .filter(|p| !p.is_empty())
                    .map(|p| match p.split_once('=') {
                        Some((k, v)) => (k.to_owned(), v.to_owned()),
                        None => (p.to_owned(), String::new()),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Some(Parts {
            origin,
            path: u.path().to_owned(),
            query,
        })
    }

    fn join(&self) -> String {
        let mut s = format!("{}{}", self.origin, self.path);
        for (i, (k, v)) in self.query.iter().enumerate() {
            s.push(if i == 0 { '?' } else { '&' });
            s.push_str(k);
            if !v.is_empty() {
                s.push('=');
                s.push_str(v);
            }
        }
        s
    }

    fn without_tracking(mut self) -> Self {
        self.query.retain(|(k, _)| !is_tracking_param(k));
        self
    }

    fn without_session(mut self, detected: &BTreeSet<String>) -> Self {
        self.query.retain(|(k, _)| {
            !is_session_param(k) && !detected.contains(k.to_ascii_lowercase().as_str())
        });
        let lower = self.path.to_ascii_lowercase();
        if let Some(i) = lower.find(";jsessionid=") {
            self.path.truncate(i);
        }
        self
    }

    fn without_index(mut self) -> Self {
        if let Some(i) = self.path.rfind('/')
            && is_index_document(&self.path[i + 1..])
        {
            self.path.truncate(i + 1);
        }
        self
    }

    fn without_trailing_slash(mut self) -> Self {
        if self.path.len() > 1 && self.path.ends_with('/') {
            self.path.pop();
        }
        self
    }

    fn without_print(mut self) -> Self {
        self.query.retain(|(k, v)| !is_print_param(k, v));
        let kept: Vec<&str> = self
            .path
            .split('/')
            .filter(|s| !is_print_segment(s))
            .collect();
        let mut path = kept.join("/");
        if path.is_empty() {
            path.push('/');
        }
        self.path = path;
        self
    }

    fn lower_case(mut self) -> Self {
        self.path = self.path.to_lowercase();
        self
    }
}

/// The shape that makes `alias` the URL of `node`'s page, if one does (each shape applied on
/// top of those before it, so a tracked link to an index document still says why).
pub fn shape_reason(alias: &str, node: &str) -> Option<ShapeReason> {
    shape_reason_in(alias, node, &BTreeSet::new())
}

/// [`shape_reason`] on a site whose links showed `session` to be session ids too
/// ([`super::session`]).
pub fn shape_reason_in(alias: &str, node: &str, session: &BTreeSet<String>) -> Option<ShapeReason> {
    let (mut a, mut n) = (Parts::of(alias)?, Parts::of(node)?);
    if a == n || a.origin != n.origin {
        return None;
    }
    let without_session = |p: Parts| p.without_session(session);
    let steps: [(&dyn Fn(Parts) -> Parts, ShapeReason); 6] = [
        (&Parts::without_tracking, ShapeReason::TrackingParameter),
        (&without_session, ShapeReason::SessionId),
        (&Parts::without_index, ShapeReason::IndexDocument),
        (&Parts::without_trailing_slash, ShapeReason::TrailingSlash),
        (&Parts::without_print, ShapeReason::PrintVersion),
        (&Parts::lower_case, ShapeReason::CaseInsensitive),
    ];
    for (step, reason) in steps {
        let (a2, n2) = (step(a.clone()), step(n.clone()));
        let changed = a2 != a || n2 != n;
        (a, n) = (a2, n2);
        if changed && a == n {
            return Some(reason);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_detected_session_parameter_names_its_aliases_only_where_detected() {
        let visit: BTreeSet<String> = ["visit".to_owned()].into();
        let (alias, node) = ("http://a.test/x?Visit=00ab12&p=2", "http://a.test/x?p=2");
        assert_eq!(shape_reason(alias, node), None);
        assert_eq!(
            shape_reason_in(alias, node, &visit),
            Some(ShapeReason::SessionId)
        );
        // Another parameter's value is another page.
        assert_eq!(
            shape_reason_in("http://a.test/x?visit=1&p=3", node, &visit),
            None
        );
    }

    #[test]
    fn each_shape_is_named() {
        let cases = [
            (
                "http://a.test/x?utm_source=n&utm_medium=m",
                "http://a.test/x",
                Some("tracking parameter"),
            ),
            (
                "http://a.test/x?PHPSESSID=abc123",
                "http://a.test/x",
                Some("session id"),
            ),
            (
                "http://a.test/x;jsessionid=ABC?p=1",
                "http://a.test/x?p=1",
                Some("session id"),
            ),
            (
                "http://a.test/d/index.html",
                "http://a.test/d/",
                Some("index document"),
            ),
            (
                "http://a.test/d/index.php?utm_campaign=z",
                "http://a.test/d/",
                Some("index document"),
            ),
            (
                "http://a.test/d",
                "http://a.test/d/",
                Some("trailing slash"),
            ),
            (
                "http://a.test/a/7?print=1",
                "http://a.test/a/7",
                Some("print version"),
            ),
            (
                "http://a.test/print/a/7",
                "http://a.test/a/7",
                Some("print version"),
            ),
            (
                "http://a.test/a/7/amp",
                "http://a.test/a/7",
                Some("print version"),
            ),
            (
                "http://a.test/About/Us",
                "http://a.test/about/us",
                Some("case-insensitive server"),
            ),
            ("http://a.test/p/1", "http://a.test/p/2", None),
            ("http://a.test/x?id=1", "http://a.test/x?id=2", None),
            ("http://b.test/x", "http://a.test/x", None),
        ];
        for (alias, node, want) in cases {
            assert_eq!(
                shape_reason(alias, node).map(ShapeReason::as_str),
                want,
                "{alias} {node}"
            );
        }
    }

    #[test]
    fn print_urls_name_the_page_they_render() {
        assert_eq!(
            print_target("http://a.test/a/7?print=1").as_deref(),
            Some("http://a.test/a/7")
        );
        assert_eq!(
            print_target("http://a.test/a/7?view=print&x=1").as_deref(),
            Some("http://a.test/a/7?x=1")
        );
        assert_eq!(print_target("http://a.test/a/7"), None);
    }
}

//! Rules that decide from a URL alone that it is not fetched: a known non-HTML extension
//! (SPEC §2.3, the paper's "rar, ppt, xls, doc, js and others"), a path that repeats one
//! segment endlessly (`/a/a/a/…`, an infinite URL space; SPEC §9) and a query of more
//! parameters than faceted navigation needs (filters that multiply). Applied to links by the
//! parsers and to redirect hops by the downloaders.
//!
//! And the *shape* of a URL, for the trap rule of `data::scope` (calendars and numbered
//! pages that never end): the URL with every run of digits made one `0`.

/// Lower-case extensions of documents (pdf, doc, xls, ppt, odt, epub, txt, csv, xml, json,
/// rss...), archives and binaries (rar, zip, 7z, gz, tar, exe, msi, dmg, iso, apk, jar, deb...),
/// scripts, styles and fonts (js, css, woff, ttf, wasm, map...), images (jpg, png, gif, svg,
/// webp, ico, avif...), audio and video (mp3, mp4, avi, mov, mkv, webm, wav, ogg, flac...).
/// Sorted, for a binary search.
const NON_HTML: &[&str] = &[
    "3gp", "7z", "apk", "atom", "avi", "avif", "bin", "bmp", "bz2", "css", "csv", "deb", "djv",
    "djvu", "dmg", "doc", "docx", "eot", "eps", "epub", "exe", "flac", "flv", "gif", "gz", "heic",
    "ico", "iso", "jar", "jpeg", "jpg", "js", "json", "m4a", "m4v", "map", "mjs", "mkv", "mov",
    "mp3", "mp4", "mpeg", "mpg", "msi", "odg", "odp", "ods", "odt", "oga", "ogg", "ogv", "otf",
    "pdf", "png", "pps", "ppsx", "ppt", "pptx", "ps", "rar", "rpm", "rss", "rtf", "svg", "swf",
    "tar", "tgz", "tif", "tiff", "tsv", "ttf", "txt", "wasm", "wav", "webm", "webp", "wmv", "woff",
    "woff2", "xls", "xlsx", "xml", "xz", "zip", "zst",
];

/// The extension of the last path segment, if it is a known non-HTML one. Runs for every
/// internal link: only the last six bytes are looked at, with no allocation.
pub(crate) fn non_html_extension(path: &str) -> Option<&'static str> {
    let bytes = path.as_bytes();
    // An extension of 1 to 5 characters: its dot is among the last six bytes, after the last /.
    let tail = &bytes[bytes.len().saturating_sub(6)..];
    let dot = tail.iter().rposition(|&b| b == b'.' || b == b'/')?;
    if tail[dot] != b'.' {
        return None;
    }
    let ext = &tail[dot + 1..];
    if ext.is_empty() {
        return None;
    }
    let mut lower = [0u8; 5];
    for (l, b) in lower.iter_mut().zip(ext) {
        *l = b.to_ascii_lowercase();
    }
    let lower = &lower[..ext.len()];
    // Most links of most sites end in .html: answered without the search.
    if lower == b"html" || lower == b"htm" {
        return None;
    }
    NON_HTML
        .binary_search_by(|e| e.as_bytes().cmp(lower))
        .ok()
        .map(|i| NON_HTML[i])
}

/// The segment of `path` that occurs more than `max` times, if one does. Runs for every
/// internal link: paths of up to 64 segments are checked without allocating.
pub(crate) fn repeating_segment(path: &str, max: u32) -> Option<&str> {
    let segments = || path.split('/').filter(|s| !s.is_empty());
    let n = segments().count();
    if n <= max as usize {
        return None;
    }
    let max = max as usize;
    if n <= 64 {
        let mut seen = [""; 64];
        for (i, s) in segments().enumerate() {
            // Occurrences so far, this one included.
            if 1 + seen[..i].iter().filter(|&&x| x == s).count() > max {
                return Some(s);
            }
            seen[i] = s;
        }
        return None;
    }
    let mut counts: hashbrown::HashMap<&str, usize> = hashbrown::HashMap::new();
    for s in segments() {
        let c = counts.entry(s).or_insert(0);
        *c += 1;
        if *c > max {
            return Some(s);
        }
    }
    None
}

/// The limits of the rules that depend on settings (`MaxPathSegmentRepeats`,
/// `MaxQueryParameters`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleLimits {
    /// A segment may occur this often in a path.
    pub max_segment_repeats: u32,
    /// A query may have this many parameters (0: no limit).
    pub max_query_parameters: u32,
    /// `Documents = yes`: a document's extension refuses nothing, the answer's Content-Type
    /// decides (SPEC §19).
    pub documents: bool,
}

/// Why `url` is not fetched whatever the site says (a non-HTML extension, a repeating path
/// segment, too many query parameters), as the reason of its bad link; `None` if it may be.
/// One answer for links (the parsers) and redirect hops (the downloaders).
pub(crate) fn refusal(url: &url::Url, limits: RuleLimits) -> Option<String> {
    if let Some(ext) = non_html_extension(url.path())
        .filter(|ext| !(limits.documents && crate::model::documents::is_document_extension(ext)))
    {
        Some(format!("not html (extension {ext})"))
    } else if let Some(seg) = repeating_segment(url.path(), limits.max_segment_repeats) {
        Some(format!("repeating path segment ({seg})"))
    } else {
        too_many_parameters(url, limits.max_query_parameters)
            .map(|n| format!("too many query parameters ({n})"))
    }
}

/// The number of parameters of `url`'s query, if it has more than `max` (0: no limit).
/// Faceted navigation makes one URL per combination of filters, each page linking to
/// combinations with one filter more: an endless space in practice.
pub(crate) fn too_many_parameters(url: &url::Url, max: u32) -> Option<usize> {
    let query = url.query()?;
    let n = query.split('&').filter(|p| !p.is_empty()).count();
    (max > 0 && n > max as usize).then_some(n)
}

/// The shape of a URL with digits in its path or query: the URL with every run of digits
/// made one `0`, hashed (`/calendar/2024/05/` and `/calendar/2031/12/` have the same shape).
/// `None` for a URL without digits there: a numbered sequence cannot run through it.
pub(crate) fn trap_shape(url: &str) -> Option<u64> {
    let start = path_start(url);
    let rest = url.as_bytes().get(start..)?;
    if !rest.iter().any(u8::is_ascii_digit) {
        return None;
    }
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&url.as_bytes()[..start]);
    let mut run = false;
    for &b in rest {
        if b.is_ascii_digit() {
            if !run {
                h.update(b"0");
            }
            run = true;
        } else {
            h.update(&[b]);
            run = false;
        }
    }
    Some(h.digest())
}

/// A shape for people: the path and query of `url` with every run of digits written `N`
/// (`/calendar/N/N/`).
pub(crate) fn trap_pattern(url: &str) -> String {
    let rest = &url[path_start(url)..];
    let mut out = String::with_capacity(rest.len());
    let mut run = false;
    for c in rest.chars() {
        if c.is_ascii_digit() {
            if !run {
                out.push('N');
            }
            run = true;
        } else {
            out.push(c);
            run = false;
        }
    }
    out
}

/// Where the path starts in an absolute URL (after `scheme://host[:port]`).
fn path_start(url: &str) -> usize {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    url[after_scheme..]
        .find('/')
        .map_or(url.len(), |i| after_scheme + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_of_numbered_urls() {
        let a = trap_shape("http://a.test:8080/calendar/2024/05/?day=12");
        assert!(a.is_some());
        assert_eq!(a, trap_shape("http://a.test:8080/calendar/1999/1/?day=7"));
        assert_ne!(
            a,
            trap_shape("http://a.test:8080/calendar/2024/05/?week=12")
        );
        assert_ne!(a, trap_shape("http://b.test:8080/calendar/2024/05/?day=12"));
        assert_eq!(
            trap_shape("http://a2.test/about/"),
            None,
            "digits of the host do not count"
        );
        assert_eq!(
            trap_pattern("http://a.test/calendar/2024/05/?day=12"),
            "/calendar/N/N/?day=N"
        );
        let u = url::Url::parse("http://a.test/shop?a=1&b=2&c=3").unwrap();
        assert_eq!(too_many_parameters(&u, 2), Some(3));
        assert_eq!(too_many_parameters(&u, 3), None);
        assert_eq!(too_many_parameters(&u, 0), None);
    }

    #[test]
    fn every_extension_and_edge_case() {
        assert!(
            NON_HTML.windows(2).all(|w| w[0] < w[1]),
            "sorted, no duplicates"
        );
        assert_eq!(non_html_extension("/files/Report.PDF"), Some("pdf"));
        assert_eq!(non_html_extension("/a.tar.gz"), Some("gz"));
        assert_eq!(non_html_extension("/font.woff2"), Some("woff2"));
        assert_eq!(non_html_extension("/x.3gp"), Some("3gp"));
        for path in [
            "/page.html",
            "/index.php",
            "/dir.pdf/",
            "/dir.pdf/page",
            "/noext",
            "/",
            "",
            "/trailing.",
            "/toolong.abcdef",
            "/a.pdfx",
            "/v1.2/",
            "/caf\u{e9}.p",
        ] {
            assert_eq!(non_html_extension(path), None, "{path}");
        }
        // Every listed extension is found, in any case.
        for e in NON_HTML {
            assert_eq!(
                non_html_extension(&format!("/f.{}", e.to_uppercase())),
                Some(*e)
            );
        }
    }

    #[test]
    fn repeating_segments() {
        assert_eq!(repeating_segment("/a/a/a/a", 3), Some("a"));
        assert_eq!(repeating_segment("/a/a/a", 3), None);
        assert_eq!(repeating_segment("/x/a/y/a/z/a/w/a/", 3), Some("a"));
        assert_eq!(repeating_segment("/1/2/3/4/5/6", 3), None);
        // Long paths take the other branch.
        let long = "/x".repeat(70) + "/b/b/b/b";
        assert_eq!(repeating_segment(&long, 100), None);
        assert_eq!(repeating_segment(&long, 3), Some("x"));
        let distinct: String = (0..80).map(|i| format!("/{i}")).collect::<String>() + "/b/b/b/b";
        assert_eq!(repeating_segment(&distinct, 3), Some("b"));
    }

    #[test]
    fn extensions() {
        assert_eq!(non_html_extension("/files/Report.PDF"), Some("pdf"));
        assert_eq!(non_html_extension("/a.b/page"), None);
        assert_eq!(non_html_extension("/page.html"), None);
        assert_eq!(non_html_extension("/index.php"), None);
        assert_eq!(non_html_extension("/dir.zip/"), None);
        assert_eq!(non_html_extension("/"), None);
    }
}

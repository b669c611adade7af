//! Rules that decide from a URL alone that it is not fetched: a known non-HTML extension
//! (SPEC §2.3, the paper's "rar, ppt, xls, doc, js and others") and a path that repeats one
//! segment endlessly (`/a/a/a/…`, an infinite URL space; SPEC §9). Applied to links by the
//! parsers and to redirect hops by the downloaders.

/// Lower-case extensions of documents, archives, media, scripts, styles and fonts.
const NON_HTML: &[&str] = &[
    // documents
    "pdf", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "pps", "ppsx", "rtf", "odt", "ods", "odp",
    "odg", "djvu", "djv", "epub", "ps", "eps", "txt", "csv", "tsv", "xml", "json", "rss", "atom",
    // archives and binaries
    "rar", "zip", "7z", "gz", "tgz", "tar", "bz2", "xz", "zst", "exe", "msi", "dmg", "iso", "apk",
    "jar", "bin", "deb", "rpm", // scripts, styles, fonts
    "js", "mjs", "css", "woff", "woff2", "ttf", "otf", "eot", "swf", "wasm", "map",
    // images
    "jpg", "jpeg", "png", "gif", "bmp", "svg", "webp", "ico", "tif", "tiff", "avif", "heic",
    // audio and video
    "mp3", "mp4", "m4a", "m4v", "avi", "mov", "wmv", "flv", "mkv", "webm", "wav", "ogg", "oga",
    "ogv", "flac", "mpg", "mpeg", "3gp",
];

/// The extension of the last path segment, if it is a known non-HTML one.
pub fn non_html_extension(path: &str) -> Option<&'static str> {
    let segment = path.rsplit('/').next().unwrap_or(path);
    let (_, ext) = segment.rsplit_once('.')?;
    if ext.is_empty() || ext.len() > 5 {
        return None;
    }
    NON_HTML
        .iter()
        .find(|e| e.eq_ignore_ascii_case(ext))
        .copied()
}

/// The segment of `path` that occurs more than `max` times, if one does. Runs for every
/// internal link: paths of up to 64 segments are checked without allocating.
pub fn repeating_segment(path: &str, max: u32) -> Option<&str> {
    let segments = || path.split('/').filter(|s| !s.is_empty());
    let n = segments().count();
    if n <= max as usize {
        return None;
    }
    let max = max as usize;
    if n <= 64 {
        let mut seen = [""; 64];
        for (i, s) in segments().enumerate() {
            seen[i] = s;
            // Occurrences so far, this one included.
            if seen[..=i].iter().filter(|&&x| x == s).count() > max {
                return Some(s);
            }
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

#[cfg(test)]
mod tests {
    use super::*;

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

//! URLs never fetched because their path ends in a known non-HTML extension (SPEC §2.3, the
//! paper's "rar, ppt, xls, doc, js and others"). Decided from the URL alone.

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
    let lower = ext.to_ascii_lowercase();
    NON_HTML.iter().find(|&&e| e == lower).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

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

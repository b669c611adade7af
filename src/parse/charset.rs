//! Page bytes → text (SPEC §2.7): a byte-order mark, else the `charset` of the Content-Type
//! header, else a `<meta charset>` / `<meta http-equiv=content-type>` near the start, else
//! UTF-8. Decoding is encoding_rs (the WHATWG Encoding Standard, so windows-1251, koi8-r,
//! Shift_JIS … decode as browsers decode them); malformed bytes become U+FFFD.

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_8};

/// How far into the body `<meta charset>` is looked for. The HTML standard's prescan reads
/// 1024 bytes; browsers also honour a later one by re-parsing, so we look further.
const META_SCAN_BYTES: usize = 8192;

/// Decodes a page. Returns the text and the encoding used.
pub fn decode<'a>(body: &'a [u8], content_type: Option<&str>) -> (Cow<'a, str>, &'static Encoding) {
    let encoding = detect(body, content_type);
    // BOM handling: a BOM, when present, was already chosen in `detect` and is stripped here.
    let (text, used, _had_errors) = encoding.decode(body);
    (text, used)
}

/// Chooses the encoding without decoding.
pub fn detect(body: &[u8], content_type: Option<&str>) -> &'static Encoding {
    if let Some((enc, _)) = Encoding::for_bom(body) {
        return enc;
    }
    if let Some(enc) = content_type
        .and_then(header_charset)
        .and_then(|l| Encoding::for_label(l.as_bytes()))
    {
        return enc.output_encoding();
    }
    if let Some(enc) = meta_charset(&body[..body.len().min(META_SCAN_BYTES)]) {
        // A UTF-16 label in an ASCII-compatible document cannot be right (HTML standard).
        return if enc == encoding_rs::UTF_16LE || enc == encoding_rs::UTF_16BE {
            UTF_8
        } else {
            enc.output_encoding()
        };
    }
    UTF_8
}

/// The `charset` parameter of a Content-Type value.
pub fn header_charset(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches(['"', '\'']).to_owned())
    })
}

/// Finds a charset declared by a `<meta>` element in `head`, skipping comments.
fn meta_charset(head: &[u8]) -> Option<&'static Encoding> {
    let mut i = 0;
    while i < head.len() {
        if head[i..].starts_with(b"<!--") {
            i = find(head, i + 4, b"-->").map_or(head.len(), |e| e + 3);
            continue;
        }
        if head[i] == b'<' && head.len() > i + 5 && head[i + 1..i + 5].eq_ignore_ascii_case(b"meta")
        {
            let end = find(head, i, b">").unwrap_or(head.len());
            if let Some(enc) = charset_of_meta(&head[i + 5..end]) {
                return Some(enc);
            }
            i = end;
            continue;
        }
        i += 1;
    }
    None
}

fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// Reads the attributes of one `<meta …>` tag.
fn charset_of_meta(attrs: &[u8]) -> Option<&'static Encoding> {
    let mut charset = None;
    let mut http_equiv_ct = false;
    let mut content = None;
    for (name, value) in attributes(attrs) {
        if name.eq_ignore_ascii_case(b"charset") {
            charset = charset.or(Some(value));
        } else if name.eq_ignore_ascii_case(b"http-equiv") {
            http_equiv_ct = value.eq_ignore_ascii_case(b"content-type");
        } else if name.eq_ignore_ascii_case(b"content") {
            content = Some(value);
        }
    }
    if let Some(label) = charset {
        return Encoding::for_label(trim(label));
    }
    if http_equiv_ct {
        let content = String::from_utf8_lossy(content?);
        let label = header_charset(&format!(
            "x;{}",
            content.split_once(';').map_or("", |(_, p)| p)
        ))?;
        return Encoding::for_label(label.as_bytes());
    }
    None
}

fn trim(s: &[u8]) -> &[u8] {
    let start = s
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &s[start..end]
}

/// A minimal attribute reader for the prescan: `name`, `name=value`, quoted or not.
fn attributes(s: &[u8]) -> Vec<(&[u8], &[u8])> {
    let mut out = Vec::new();
    let mut i = 0;
    let n = s.len();
    while i < n {
        while i < n && (s[i].is_ascii_whitespace() || s[i] == b'/') {
            i += 1;
        }
        let name_start = i;
        while i < n && !s[i].is_ascii_whitespace() && s[i] != b'=' && s[i] != b'/' {
            i += 1;
        }
        let name = &s[name_start..i];
        while i < n && s[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value: &[u8] = b"";
        if i < n && s[i] == b'=' {
            i += 1;
            while i < n && s[i].is_ascii_whitespace() {
                i += 1;
            }
            if i < n && (s[i] == b'"' || s[i] == b'\'') {
                let q = s[i];
                let vs = i + 1;
                let ve = s[vs..].iter().position(|&b| b == q).map_or(n, |p| p + vs);
                value = &s[vs..ve];
                i = ve + 1;
            } else {
                let vs = i;
                while i < n && !s[i].is_ascii_whitespace() {
                    i += 1;
                }
                value = &s[vs..i];
            }
        }
        if !name.is_empty() {
            out.push((name, value));
        }
        if i == name_start {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_wins_over_meta() {
        let body = b"<meta charset=koi8-r><a>\xcf\xd2\xc9\xd7\xc5\xd4</a>";
        assert_eq!(
            detect(body, Some("text/html; charset=windows-1251")).name(),
            "windows-1251"
        );
        assert_eq!(detect(body, Some("text/html")).name(), "KOI8-R");
        assert_eq!(detect(body, None).name(), "KOI8-R");
    }

    #[test]
    fn cyrillic_decodes_right() {
        // "привет" in windows-1251 and in koi8-r.
        let cp1251 = b"\xef\xf0\xe8\xe2\xe5\xf2";
        let koi8 = b"\xd0\xd2\xc9\xd7\xc5\xd4";
        assert_eq!(
            decode(cp1251, Some("text/html; charset=windows-1251")).0,
            "привет"
        );
        assert_eq!(
            decode(koi8, Some("text/html;charset=\"KOI8-R\"")).0,
            "привет"
        );
    }

    #[test]
    fn http_equiv_and_comments() {
        let body = b"<!-- <meta charset=utf-16> --><META HTTP-EQUIV=\"Content-Type\" CONTENT=\"text/html; charset=windows-1251\">";
        assert_eq!(detect(body, None).name(), "windows-1251");
        assert_eq!(detect(b"<meta charset=\"utf-16le\">", None), UTF_8);
        assert_eq!(
            detect(
                b"\xef\xbb\xbf<meta charset=koi8-r>",
                Some("text/html; charset=koi8-r")
            ),
            UTF_8
        );
    }

    #[test]
    fn unknown_labels_and_invalid_bytes() {
        assert_eq!(
            detect(
                b"<meta charset=\"nonsense\">",
                Some("text/html; charset=bogus")
            ),
            UTF_8
        );
        assert_eq!(decode(b"a\xffb", None).0, "a\u{fffd}b");
    }
}

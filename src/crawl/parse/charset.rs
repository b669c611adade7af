//! Page bytes → text (SPEC §2.7): a byte-order mark, else the `charset` of the Content-Type
//! header, else a `<meta charset>` / `<meta http-equiv=content-type>` near the start, else
//! UTF-8 when the bytes are valid UTF-8, else the encoding Firefox's detector (chardetng)
//! guesses from the bytes and the site's top-level domain — so an old windows-1251 or koi8-r
//! page that declares nothing still reads right. Decoding is encoding_rs (the WHATWG
//! Encoding Standard, so windows-1251, koi8-r, Shift_JIS … decode as browsers decode them);
//! malformed bytes become U+FFFD.

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_8};

/// How far into the body `<meta charset>` is looked for. The HTML standard's prescan reads
/// 1024 bytes; browsers also honour a later one by re-parsing, so we look further.
const META_SCAN_BYTES: usize = 8192;

/// Decodes a page of a site whose host ends in top-level domain `tld` (a hint for the
/// detector). Returns the text and the encoding used.
pub fn decode<'a>(
    body: &'a [u8],
    content_type: Option<&str>,
    tld: Option<&str>,
) -> (Cow<'a, str>, &'static Encoding) {
    let encoding = match declared(body, content_type) {
        Some(encoding) => encoding,
        None => {
            // Most undeclared pages are UTF-8: one pass that validates and borrows.
            if let Some(text) = UTF_8.decode_without_bom_handling_and_without_replacement(body) {
                return (text, UTF_8);
            }
            guess(body, tld)
        }
    };
    // BOM handling: a BOM, when present, was already chosen and is stripped here.
    let (text, used, _had_errors) = encoding.decode(body);
    (text, used)
}

/// Chooses the encoding without decoding.
pub fn detect(body: &[u8], content_type: Option<&str>, tld: Option<&str>) -> &'static Encoding {
    declared(body, content_type).unwrap_or_else(|| {
        if std::str::from_utf8(body).is_ok() {
            UTF_8
        } else {
            guess(body, tld)
        }
    })
}

/// What the bytes say they are, if anything (SPEC §2.7's first three sources). Guessing from
/// the bytes alone comes after valid UTF-8: a pure-ASCII or UTF-8 page needs no guess.
fn guess(body: &[u8], tld: Option<&str>) -> &'static Encoding {
    let mut detector = chardetng::EncodingDetector::new();
    detector.feed(body, true);
    let tld = tld.filter(|t| t.bytes().all(|b| b.is_ascii_lowercase()));
    detector.guess(tld.map(str::as_bytes), false)
}

/// The encoding a byte-order mark, the Content-Type header or a `<meta>` declares.
fn declared(body: &[u8], content_type: Option<&str>) -> Option<&'static Encoding> {
    if let Some((enc, _)) = Encoding::for_bom(body) {
        return Some(enc);
    }
    if let Some(enc) = content_type
        .and_then(header_charset)
        .and_then(|l| Encoding::for_label(l.as_bytes()))
    {
        return Some(enc.output_encoding());
    }
    let enc = meta_charset(&body[..body.len().min(META_SCAN_BYTES)])?;
    // A UTF-16 label in an ASCII-compatible document cannot be right (HTML standard).
    Some(
        if enc == encoding_rs::UTF_16LE || enc == encoding_rs::UTF_16BE {
            UTF_8
        } else {
            enc.output_encoding()
        },
    )
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
            detect(body, Some("text/html; charset=windows-1251"), None).name(),
            "windows-1251"
        );
        assert_eq!(detect(body, Some("text/html"), None).name(), "KOI8-R");
        assert_eq!(detect(body, None, None).name(), "KOI8-R");
    }

    #[test]
    fn cyrillic_decodes_right() {
        // "привет" in windows-1251 and in koi8-r.
        let cp1251 = b"\xef\xf0\xe8\xe2\xe5\xf2";
        let koi8 = b"\xd0\xd2\xc9\xd7\xc5\xd4";
        assert_eq!(
            decode(cp1251, Some("text/html; charset=windows-1251"), None).0,
            "привет"
        );
        assert_eq!(
            decode(koi8, Some("text/html;charset=\"KOI8-R\""), None).0,
            "привет"
        );
    }

    #[test]
    fn http_equiv_and_comments() {
        let body = b"<!-- <meta charset=utf-16> --><META HTTP-EQUIV=\"Content-Type\" CONTENT=\"text/html; charset=windows-1251\">";
        assert_eq!(detect(body, None, None).name(), "windows-1251");
        assert_eq!(detect(b"<meta charset=\"utf-16le\">", None, None), UTF_8);
        assert_eq!(
            detect(
                b"\xef\xbb\xbf<meta charset=koi8-r>",
                Some("text/html; charset=koi8-r"),
                None
            ),
            UTF_8
        );
    }

    #[test]
    fn unknown_labels_and_invalid_bytes() {
        assert_eq!(
            detect(
                b"<meta charset=\"nonsense\">",
                Some("text/html; charset=bogus"),
                None
            ),
            UTF_8
        );
        let declared = Some("text/html; charset=utf-8");
        assert_eq!(decode(b"a\xffb", declared, None).0, "a\u{fffd}b");
    }

    /// Russian text as old sites serve it: no charset anywhere.
    const RUSSIAN: &str = "<html><head><title>Кафедра прикладной математики</title></head><body>\
        <p>Добро пожаловать на сайт кафедры. Здесь вы найдёте расписание занятий, список \
        преподавателей и новости факультета.</p><a href=/news>Новости и объявления</a></body></html>";

    #[test]
    fn undeclared_legacy_cyrillic_is_detected() {
        for label in ["windows-1251", "KOI8-R"] {
            let enc = Encoding::for_label(label.as_bytes()).unwrap();
            let (bytes, _, unmappable) = enc.encode(RUSSIAN);
            assert!(!unmappable);
            // chardetng names the KOI8 family KOI8-U, a superset that decodes Russian letters
            // exactly as KOI8-R does (they differ in Ukrainian letters and box drawing).
            let same = |e: &'static Encoding| {
                e == enc || (enc == encoding_rs::KOI8_R && e == encoding_rs::KOI8_U)
            };
            for tld in [Some("ru"), None] {
                let (text, used) = decode(&bytes, Some("text/html"), tld);
                assert!(same(used), "{label} with tld {tld:?}: {}", used.name());
                assert_eq!(text, RUSSIAN, "{label} with tld {tld:?}");
                assert!(same(detect(&bytes, None, tld)));
            }
        }
    }

    #[test]
    fn valid_utf8_is_not_guessed() {
        let (text, used) = decode(RUSSIAN.as_bytes(), None, Some("ru"));
        assert_eq!((text.as_ref(), used), (RUSSIAN, UTF_8));
        assert!(matches!(decode(b"plain", None, None).0, Cow::Borrowed(_)));
    }
}

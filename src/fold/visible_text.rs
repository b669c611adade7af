//! The text of a page whose bytes are the page (a static site's: no full digest is computed,
//! SPEC §14), as one hash: what is between its tags, outside comments, scripts and styles,
//! each run trimmed. Two copies of a page that differ only inside tags — an
//! `href="index.html"` written `href="./"`, a class, an image's source — have the same; a
//! changed word does not. `rccrawler compare` calls such a page `changed` only when this
//! differs (issue 64, item 4): a change to links only shows in arcs.csv.
//!
//! A scan with memchr, not a tokenizer: it costs a static page about what finding its `<`s
//! does.

use xxhash_rust::xxh3::Xxh3;

/// The hash of `html`'s visible text (never 0): each run of text between two tags, trimmed,
/// as one piece (a whitespace-only run is none). A run is hashed whole — not word by word —
/// so that a static page costs a `<` search and a hash of its text: reflowing the words of
/// one run counts as a change, indentation between tags does not.
pub fn visible_text_hash(html: &str) -> u64 {
    let bytes = html.as_bytes();
    let mut h = Xxh3::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let lt = memchr::memchr(b'<', &bytes[pos..]).map_or(bytes.len(), |i| pos + i);
        let run = bytes[pos..lt].trim_ascii();
        if !run.is_empty() {
            h.update(run);
            // A tag ends a piece: `<title>T</title><p>Hello` is two pieces however it is laid
            // out.
            h.update(b"\0");
        }
        if lt >= bytes.len() {
            break;
        }
        pos = skip_markup(bytes, lt);
    }
    h.digest().max(1)
}

/// Where the markup starting at `<` (`at`) ends: after a comment, a tag, or a script's or
/// style's closing tag.
fn skip_markup(bytes: &[u8], at: usize) -> usize {
    let rest = &bytes[at..];
    if rest.starts_with(b"<!--") {
        return memchr::memmem::find(&rest[4..], b"-->").map_or(bytes.len(), |i| at + 4 + i + 3);
    }
    let end = memchr::memchr(b'>', rest).map_or(bytes.len(), |i| at + i + 1);
    for raw in [&b"script"[..], b"style"] {
        let name = rest.get(1..1 + raw.len());
        let after = rest.get(1 + raw.len()).copied();
        if name.is_some_and(|n| n.eq_ignore_ascii_case(raw))
            && after.is_some_and(|b| b == b'>' || b.is_ascii_whitespace() || b == b'/')
        {
            let close = find_ci(&bytes[end.min(bytes.len())..], raw);
            return close.map_or(bytes.len(), |i| {
                let from = end + i;
                memchr::memchr(b'>', &bytes[from..]).map_or(bytes.len(), |j| from + j + 1)
            });
        }
    }
    end
}

/// Where `</name` starts in `hay`, in any case.
fn find_ci(hay: &[u8], name: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = memchr::memmem::find(&hay[from..], b"</").map(|i| from + i) {
        if hay
            .get(i + 2..i + 2 + name.len())
            .is_some_and(|n| n.eq_ignore_ascii_case(name))
        {
            return Some(i);
        }
        from = i + 2;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_is_between_tags_counts() {
        let a = visible_text_hash(
            "<html><head><title>T</title><style>p{color:red}</style></head><body>\n<p>Hello <a href=\"index.html\">world</a></p><!-- a > b --><script>var x = '<p>not text</p>';</script></body></html>",
        );
        // Another href, class, comment, script and whitespace: the same text.
        let b = visible_text_hash(
            "<html><head><title>T</title><STYLE media=x>p{}</STYLE></head><body class=\"x\"><p>Hello <a href=\"./\">world</a>\n</p><!-- other --><script src=a.js></script></body></html>",
        );
        assert_eq!(a, b);
        // A word changed, added, or split by a space: another text.
        for other in [
            "<p>Hello <a href=\"./\">World</a></p>",
            "<p>Hello <a href=\"./\">world</a> again</p>",
            "<p>Hel lo <a href=\"./\">world</a></p>",
        ] {
            assert_ne!(
                visible_text_hash(&format!("<title>T</title>{other}")),
                a,
                "{other}"
            );
        }
        assert_ne!(visible_text_hash(""), 0);
        // Unclosed markup ends the text, no panic.
        for broken in ["<p>text <a href=", "<!-- open", "<script>x", "<"] {
            let _ = visible_text_hash(broken);
        }
    }
}

//! Text people see, as the result files keep it: whitespace runs become one space, control
//! characters go (they break Gephi's import and GEXF), the ends are trimmed, and the text is
//! cut to [`MAX_TEXT_BYTES`] on a character boundary (an unclosed `<a>` would otherwise
//! swallow the rest of the page).

/// Anchor texts and titles longer than this many bytes are cut.
pub const MAX_TEXT_BYTES: usize = 1000;

/// Whitespace runs become one space, control characters go, the ends are trimmed, and the
/// result is cut to 1000 bytes on a character boundary.
pub fn clean_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(MAX_TEXT_BYTES));
    clean_text_into(s, &mut out);
    out
}

/// [`clean_text`] into a buffer (cleared first).
pub(super) fn clean_text_into(s: &str, out: &mut String) {
    out.clear();
    if is_clean_ascii(s) {
        // Most anchors ("Next", "Section 4"): copied whole instead of char by char.
        out.push_str(s);
        return;
    }
    let mut pending_space = false;
    for ch in s.chars() {
        if ch.is_whitespace() {
            pending_space = !out.is_empty();
        } else if ch.is_control() {
            continue;
        } else {
            // The space before a word counts against the cap too (found by fuzzing: a text
            // of exactly 1000 bytes, a space and a word came out 1001 bytes long).
            if out.len() + usize::from(pending_space) + ch.len_utf8() > MAX_TEXT_BYTES {
                break;
            }
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(ch);
        }
    }
}

/// Whether [`clean_text`] would return `s` unchanged, for printable ASCII: within the cap,
/// single spaces between words, none at the ends.
fn is_clean_ascii(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() <= MAX_TEXT_BYTES
        && b.first() != Some(&b' ')
        && b.last() != Some(&b' ')
        && b.iter().all(|&c| (b' '..0x7f).contains(&c))
        && !b.windows(2).any(|w| w == b"  ")
}

/// Appends `text` to `buf` with whitespace runs as one space and control characters dropped,
/// up to [`super::links::MAX_BODY_BYTES`] (the text a topic is scored on).
pub(super) fn push_collapsed(buf: &mut String, text: &str) {
    for ch in text.chars() {
        if buf.len() + ch.len_utf8() > super::links::MAX_BODY_BYTES {
            return;
        }
        if ch.is_whitespace() {
            if !buf.is_empty() && !buf.ends_with(' ') {
                buf.push(' ');
            }
        } else if !ch.is_control() {
            buf.push(ch);
        }
    }
}

/// Appends a piece of an element's text, raw, while under twice what is kept of it.
pub(super) fn push_text(buf: &mut String, bytes: &[u8]) {
    if buf.len() < MAX_TEXT_BYTES * 2 {
        buf.push_str(&String::from_utf8_lossy(bytes));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ascii_fast_path_agrees() {
        let slow = |s: &str| {
            // clean_text without the fast path.
            let mut out = String::new();
            clean_text_into(&format!("\u{e9}{s}"), &mut out);
            out.trim_start_matches('\u{e9}').trim_start().to_owned()
        };
        for s in [
            "Next",
            "Section 4",
            " lead",
            "trail ",
            "two  spaces",
            "tab\there",
            "",
            "a\u{7f}b",
            "x",
        ] {
            assert_eq!(clean_text(s), slow(s), "{s:?}");
        }
        assert_eq!(clean_text(&"a".repeat(1001)).len(), 1000);
    }

    #[test]
    fn cut_at_the_cap_even_after_a_space() {
        for first in [999, 1000] {
            let text = "a".repeat(first) + " bb";
            let cleaned = clean_text(&text);
            assert!(
                cleaned.len() <= MAX_TEXT_BYTES,
                "{first}: {}",
                cleaned.len()
            );
            assert!(!cleaned.ends_with(' '), "{first}");
        }
    }
}

//! Text in XML attributes (graph.gexf, the network's GEXF, the report's SVG titles):
//! escaped, and the characters XML 1.0 forbids removed.

/// Escapes for an XML attribute and removes characters XML 1.0 forbids.
pub(crate) fn xml(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len());
    xml_into(s, &mut out);
    // Only whole characters were copied, so this is UTF-8.
    String::from_utf8_lossy(&out).into_owned()
}

/// [`xml`] appended to a byte buffer; text needing no change is copied whole.
pub(crate) fn xml_into(s: &str, out: &mut Vec<u8>) {
    // 0xC2 leads C1 controls, 0xEF leads U+FFFE/U+FFFF: the slow path tells them apart from
    // the other characters they also lead.
    let plain = !s
        .bytes()
        .any(|b| b < 0x20 || matches!(b, b'&' | b'<' | b'>' | b'"' | b'\'' | 0x7F | 0xC2 | 0xEF));
    if plain {
        out.extend_from_slice(s.as_bytes());
        return;
    }
    let mut tmp = [0u8; 4];
    for ch in s.chars() {
        match ch {
            '&' => out.extend_from_slice(b"&amp;"),
            '<' => out.extend_from_slice(b"&lt;"),
            '>' => out.extend_from_slice(b"&gt;"),
            '"' => out.extend_from_slice(b"&quot;"),
            '\'' => out.extend_from_slice(b"&apos;"),
            c if c.is_control() || matches!(c, '\u{FFFE}' | '\u{FFFF}') => {}
            c => out.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::xml;

    #[test]
    fn escaping() {
        assert_eq!(
            xml("a<b & \"c\"\u{1}\u{FFFF}"),
            "a&lt;b &amp; &quot;c&quot;"
        );
        assert_eq!(xml("it's \u{85}x\u{FFFE}\u{FFFD}é"), "it&apos;s x\u{FFFD}é");
        assert_eq!(xml("plain 日本"), "plain 日本");
    }
}

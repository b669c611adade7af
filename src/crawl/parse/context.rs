//! The context of a link (`ExternalLinkContext`, BeeBot's "context of the hyperlink"): the
//! visible text of the block the link sits in — paragraph, list item, table cell, heading… —
//! cut to a window of at most N characters around the link's own text.
//!
//! Blocks are the text between two block-level tags (start or end), so a link in a list item
//! gets its item's text, not the whole list's. Text is collapsed as the result files keep it
//! (whitespace runs become one space, control characters go), and a block keeps at most
//! [`MAX_BLOCK_BYTES`]: a page that is one giant `<div>` costs no more than that.

/// The text of one block kept for context; more is dropped.
pub const MAX_BLOCK_BYTES: usize = 64 * 1024;

/// Whether `name` (lowercase, as the tokenizer gives it) starts or ends a block of text.
pub fn is_block(name: &[u8]) -> bool {
    matches!(
        name,
        b"p" | b"div"
            | b"li"
            | b"ul"
            | b"ol"
            | b"dl"
            | b"dt"
            | b"dd"
            | b"td"
            | b"th"
            | b"tr"
            | b"table"
            | b"caption"
            | b"h1"
            | b"h2"
            | b"h3"
            | b"h4"
            | b"h5"
            | b"h6"
            | b"blockquote"
            | b"pre"
            | b"section"
            | b"article"
            | b"aside"
            | b"nav"
            | b"header"
            | b"footer"
            | b"main"
            | b"body"
            | b"form"
            | b"fieldset"
            | b"figure"
            | b"figcaption"
            | b"address"
            | b"details"
            | b"summary"
            | b"hr"
    )
}

/// The current block's text and the links in it, waiting for the block to end.
#[derive(Debug, Default)]
pub struct BlockText {
    /// Characters of context per link (N).
    limit: usize,
    text: String,
    /// The last character kept was a space (or nothing was kept yet).
    space: bool,
    /// Links of this block: (the caller's link index, byte range of its text in `text`).
    links: Vec<(usize, usize, usize)>,
}

impl BlockText {
    /// Context windows of `limit` characters.
    pub fn new(limit: usize) -> Self {
        BlockText {
            limit,
            space: true,
            ..BlockText::default()
        }
    }

    /// Visible text of the block, as the tokenizer hands it over.
    pub fn push(&mut self, s: &str) {
        for ch in s.chars() {
            if self.text.len() + ch.len_utf8() > MAX_BLOCK_BYTES {
                return;
            }
            if ch.is_whitespace() {
                if !self.space {
                    self.text.push(' ');
                    self.space = true;
                }
            } else if !ch.is_control() {
                self.text.push(ch);
                self.space = false;
            }
        }
    }

    /// Where the next text goes (a link's text starts or ends here).
    pub fn offset(&self) -> usize {
        self.text.len()
    }

    /// Link `link`'s own text is `start..end` of this block.
    pub fn link(&mut self, link: usize, start: usize, end: usize) {
        self.links.push((link, start, end.max(start)));
    }

    /// The block ends: `emit(link, context)` for each of its links, then a new block starts.
    pub fn flush(&mut self, mut emit: impl FnMut(usize, &str)) {
        for &(link, start, end) in &self.links {
            emit(link, window(&self.text, start, end, self.limit));
        }
        self.links.clear();
        self.text.clear();
        self.space = true;
    }
}

/// At most `limit` characters of `text` around `start..end` (byte offsets on character
/// boundaries): the link's text itself, then as much on each side as fits, evenly, more on
/// one side where the other runs out; a word cut at an edge is left out. Trimmed of spaces.
pub fn window(text: &str, start: usize, end: usize, limit: usize) -> &str {
    let start = start.min(text.len());
    let end = end.clamp(start, text.len());
    let total = text.chars().count();
    if total <= limit {
        return text.trim();
    }
    let c_start = text[..start].chars().count();
    let c_end = c_start + text[start..end].chars().count();
    let own = c_end - c_start;
    let (from, to) = if own >= limit {
        (c_start, c_start + limit)
    } else {
        let spare = limit - own;
        let before = (spare / 2).min(c_start);
        let after = (spare - before).min(total - c_end);
        let before = (spare - after).min(c_start);
        (c_start - before, c_end + after)
    };
    let byte = |c: usize| text.char_indices().nth(c).map_or(text.len(), |(b, _)| b);
    let (mut lo, mut hi) = (byte(from), byte(to));
    let (own_lo, own_hi) = (byte(c_start), byte(c_end));
    // Whole words only: a word cut at either edge goes, unless it is the link's own text.
    let cut = |b: usize| {
        b > 0 && b < text.len() && !text[..b].ends_with(' ') && !text[b..].starts_with(' ')
    };
    if cut(lo)
        && let Some(space) = text[lo..own_lo].find(' ')
    {
        lo += space;
    }
    if cut(hi)
        && own_hi <= hi
        && let Some(space) = text[own_hi..hi].rfind(' ')
    {
        hi = own_hi + space;
    }
    text[lo..hi].trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_block_is_the_whole_context() {
        assert_eq!(window(" see the list ", 5, 8, 100), "see the list");
    }

    #[test]
    fn a_long_block_is_cut_around_the_link_evenly() {
        let text = "0123456789LINK0123456789";
        assert_eq!(window(text, 10, 14, 8), "89LINK01");
        // At the start of the block the window takes more after the link.
        assert_eq!(window(text, 0, 4, 8), "01234567");
        // A link longer than the window: its first characters.
        assert_eq!(window(text, 10, 14, 3), "LIN");
        // Words cut at the edges are left out.
        let text = "one two three LINK four five six";
        let at = text.find("LINK").unwrap();
        assert_eq!(window(text, at, at + 4, 16), "three LINK four");
        assert_eq!(window(text, at, at + 4, 10), "LINK");
    }

    #[test]
    fn windows_count_characters_not_bytes() {
        let text = "ééééLINKéééé";
        let start = "éééé".len();
        assert_eq!(window(text, start, start + 4, 6), "éLINKé");
    }

    #[test]
    fn text_is_collapsed_and_blocks_are_separate() {
        let mut b = BlockText::new(100);
        b.push("  Read\n\t the ");
        let s = b.offset();
        b.push("guide");
        b.link(7, s, b.offset());
        b.push(" now.\u{7}");
        let mut got = Vec::new();
        b.flush(|i, c| got.push((i, c.to_owned())));
        assert_eq!(got, vec![(7, "Read the guide now.".to_owned())]);
        b.push("next block");
        let mut none = Vec::new();
        b.flush(|i, c| none.push((i, c.to_owned())));
        assert!(none.is_empty());
    }

    #[test]
    fn a_huge_block_is_capped() {
        let mut b = BlockText::new(10);
        b.push(&"x".repeat(MAX_BLOCK_BYTES + 100));
        assert_eq!(b.offset(), MAX_BLOCK_BYTES);
    }
}

//! A page's text as a sequence of blocks — paragraphs, headings, list items, table cells —
//! each a 32-bit hash and a word count: the *sketch* the print rule compares (SPEC §14, issue
//! 64 item 2). A print version keeps the article's heading and paragraphs but comes in a
//! template of its own: a "printed edition" note, a "Back to the article" link, a copyright
//! line, and often no `<article>` or `<main>`. Equal text digests miss it; a print version
//! whose blocks hold the page's blocks in order, plus at most [`MAX_OWN_LINES`] short ones of
//! its own, is the page. A twin that differs in one number of one block is not.
//!
//! Sketches are made only for pages a print version concerns (its URL is one, or it links to
//! one), and kept as interned text (10 hex digits a block, at most [`MAX_BLOCKS`] blocks).

use xxhash_rust::xxh3::Xxh3;

/// Blocks kept a page: a longer text has no sketch (its print version folds by equal text
/// only).
pub const MAX_BLOCKS: usize = 256;
/// Lines of its own a print version may add.
pub const MAX_OWN_LINES: usize = 4;
/// The most words a line of a print version's own has.
pub const MAX_OWN_WORDS: u32 = 12;
/// The fewest words a page's sketch holds for the rule to apply.
pub const MIN_WORDS: u32 = 20;

/// Elements that end one block of text and start another.
pub fn is_block(name: &str) -> bool {
    matches!(
        name,
        "p" | "div"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "li"
            | "dt"
            | "dd"
            | "td"
            | "th"
            | "tr"
            | "br"
            | "blockquote"
            | "pre"
            | "section"
            | "article"
            | "main"
            | "header"
            | "footer"
            | "aside"
            | "figcaption"
            | "table"
            | "ul"
            | "ol"
            | "form"
            | "hr"
    )
}

/// One block: its words' hash (low 32 bits), how many words (and how many outside links),
/// and which text scopes were open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Block {
    hash: u32,
    words: u32,
    unlinked: u32,
    article: bool,
    main: bool,
}

/// Blocks being collected while a page is digested.
#[derive(Default)]
pub(crate) struct Blocks {
    done: Vec<Block>,
    cur: Option<(Xxh3, Block)>,
    /// More than [`MAX_BLOCKS`]: no sketch.
    over: bool,
}

impl Blocks {
    /// A word of the page's text, in the scopes open (`article`, `main`), in a link or not.
    pub(crate) fn word(&mut self, word: &str, article: bool, main: bool, linked: bool) {
        let (h, b) = self.cur.get_or_insert_with(|| {
            (
                Xxh3::new(),
                Block {
                    hash: 0,
                    words: 0,
                    unlinked: 0,
                    article,
                    main,
                },
            )
        });
        if b.words > 0 {
            h.update(b" ");
        }
        h.update(word.as_bytes());
        b.words += 1;
        b.unlinked += u32::from(!linked);
    }

    /// A block element starts or ends: the block under way is done. A block that is all
    /// links ("Print this story", "Back to the article", a menu) is no text of the page's.
    pub(crate) fn flush(&mut self) {
        if let Some((h, mut b)) = self.cur.take() {
            if b.unlinked == 0 {
                return;
            }
            if self.done.len() >= MAX_BLOCKS {
                self.over = true;
                return;
            }
            b.hash = h.digest() as u32;
            self.done.push(b);
        }
    }

    /// The sketch of the scope the text digest came from (`article`, else `main`, else the
    /// whole page): 10 hex digits a block; `None` past [`MAX_BLOCKS`].
    pub(crate) fn sketch(mut self, article: bool, main: bool) -> Option<String> {
        self.flush();
        if self.over {
            return None;
        }
        let mut out = String::new();
        for b in self.done.iter().filter(|b| {
            if article {
                b.article
            } else if main {
                b.main
            } else {
                true
            }
        }) {
            out.push_str(&format!("{:08x}{:02x}", b.hash, b.words.min(255)));
        }
        Some(out)
    }
}

/// A sketch read back: (hash, words) a block; `None` when it is not one.
fn blocks_of(sketch: &str) -> Option<Vec<(u32, u32)>> {
    if !sketch.len().is_multiple_of(10) {
        return None;
    }
    (0..sketch.len() / 10)
        .map(|i| {
            let b = sketch.get(i * 10..i * 10 + 10)?;
            Some((
                u32::from_str_radix(&b[..8], 16).ok()?,
                u32::from_str_radix(&b[8..], 16).ok()?,
            ))
        })
        .collect()
}

/// Whether print version sketch `print` holds page sketch `page` — its blocks in order —
/// plus at most [`MAX_OWN_LINES`] blocks of its own of at most [`MAX_OWN_WORDS`] words.
pub fn print_holds(page: &str, print: &str) -> bool {
    let (Some(page), Some(print)) = (blocks_of(page), blocks_of(print)) else {
        return false;
    };
    if page.iter().map(|b| b.1).sum::<u32>() < MIN_WORDS || print.len() < page.len() {
        return false;
    }
    let mut own = 0;
    let mut next = page.iter().peekable();
    for b in &print {
        if next.peek().is_some_and(|p| p.0 == b.0 && p.1 == b.1) {
            next.next();
        } else {
            own += 1;
            if own > MAX_OWN_LINES || b.1 > MAX_OWN_WORDS {
                return false;
            }
        }
    }
    next.peek().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sketch(blocks: &[&str]) -> String {
        let mut b = Blocks::default();
        for text in blocks {
            let linked = text.starts_with('@');
            for w in text.trim_start_matches('@').split_whitespace() {
                b.word(w, false, false, linked);
            }
            b.flush();
        }
        b.sketch(false, false).unwrap()
    }

    const ARTICLE: &[&str] = &[
        "Council approves the budget for 2027",
        "The city council approved on Tuesday a budget of 41 million for the coming year, after a long debate.",
        "The opposition voted against it, saying that the schools get too little of it.",
    ];

    #[test]
    fn a_print_version_with_lines_of_its_own_holds_its_page() {
        let page = sketch(ARTICLE);
        let mut print = vec!["Printed edition of The Daily Test"];
        print.extend_from_slice(ARTICLE);
        print.extend(["Back to the article", "© 2026 The Daily Test"]);
        assert!(print_holds(&page, &sketch(&print)));
        // Lines that are all links are not text: the page's "Print this story", the print's
        // long "back" link.
        let mut with_links = ARTICLE.to_vec();
        with_links.push("@Print this story and share it with your friends and family today");
        let mut print_links = print.clone();
        print_links
            .push("@Back to the article on the site of The Daily Test with all its comments");
        assert!(print_holds(&sketch(&with_links), &sketch(&print_links)));
        // The same text is held too.
        assert!(print_holds(&page, &page));
        // A number changed in a paragraph or the heading: another text.
        let mut twin = print.clone();
        twin[2] = "The city council approved on Tuesday a budget of 42 million for the coming year, after a long debate.";
        assert!(!print_holds(&page, &sketch(&twin)));
        let mut twin = print.clone();
        twin[1] = "Council approves the budget for 2028";
        assert!(!print_holds(&page, &sketch(&twin)));
        // A long paragraph of its own, or too many lines: not a print version of the page.
        let mut more = print.clone();
        more.push("A long paragraph that the print version adds and that the page does not have at all, word after word.");
        assert!(!print_holds(&page, &sketch(&more)));
        let mut many = print.clone();
        many.extend(["one", "two", "three"]);
        assert!(!print_holds(&page, &sketch(&many)));
        // A paragraph left out: not the page either.
        let short: Vec<&str> = print
            .iter()
            .copied()
            .filter(|l| !l.starts_with("The opposition"))
            .collect();
        assert!(!print_holds(&page, &sketch(&short)));
        // Too little text to say.
        assert!(!print_holds(
            &sketch(&["Hello"]),
            &sketch(&["Hello", "Print"])
        ));
        assert!(!print_holds("zz", &page));
    }
}

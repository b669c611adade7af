//! The text of a node for text.csv (`PageText = yes`, SPEC §19): the words a person reads
//! outside navigation, headers, footers and forms — the words the text digest hashes, by the
//! same rules ([`mod@super::digest`]: the first `<article>`, else the first `<main>`, when it has
//! [`super::digest::MIN_TEXT_WORDS`] words, else the whole page outside boilerplate) —
//! whitespace collapsed, cut at a byte limit.

use super::scan::{Attr, Sink, scan};

/// What ends a cut text.
pub const CUT_MARK: &str = " […]";

/// A node's text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageText {
    /// Its words, one space between each, cut at the limit (then ending in [`CUT_MARK`]).
    pub text: String,
    /// How many words it has (also those past the cut).
    pub words: u32,
    /// Whether it was cut.
    pub cut: bool,
}

impl PageText {
    /// `words` joined by single spaces, cut at `max_bytes` on a word boundary (a word longer
    /// than the limit is cut on a character boundary).
    pub fn of_words<'a>(words: impl IntoIterator<Item = &'a str>, max_bytes: usize) -> Self {
        let mut t = PageText::default();
        for word in words {
            t.push(word, max_bytes);
        }
        t.finish()
    }

    fn push(&mut self, word: &str, max_bytes: usize) {
        self.words = self.words.saturating_add(1);
        if self.cut {
            return;
        }
        let space = usize::from(!self.text.is_empty());
        if self.text.len() + space + word.len() <= max_bytes {
            if space == 1 {
                self.text.push(' ');
            }
            self.text.push_str(word);
            return;
        }
        self.cut = true;
        if self.text.is_empty() {
            let at = (0..=max_bytes.min(word.len()))
                .rev()
                .find(|&i| word.is_char_boundary(i))
                .unwrap_or(0);
            self.text.push_str(&word[..at]);
        }
    }

    /// Appends `piece` to the last word (a word split by an inline element, `wo<b>rd</b>`):
    /// no new word, no space.
    fn glue(&mut self, piece: &str, max_bytes: usize) {
        if self.words == 0 {
            self.push(piece, max_bytes);
            return;
        }
        if self.cut {
            return;
        }
        if self.text.len() + piece.len() <= max_bytes {
            self.text.push_str(piece);
        } else {
            self.cut = true;
        }
    }

    fn finish(mut self) -> Self {
        if self.cut {
            self.text.push_str(CUT_MARK);
        }
        self
    }
}

/// The text of an HTML page, at most `max_bytes` (and the cut mark).
pub fn page_text(html: &str, max_bytes: usize) -> PageText {
    let mut sink = TextSink {
        excluded: Vec::new(),
        in_word: false,
        article: Scope::default(),
        main: Scope::default(),
        all: Scope::default(),
        max_bytes,
    };
    scan(html, &mut sink);
    let TextSink {
        article, main, all, ..
    } = sink;
    let enough = |s: &Scope| s.text.words >= super::digest::MIN_TEXT_WORDS;
    let chosen = if enough(&article) {
        article
    } else if enough(&main) {
        main
    } else {
        all
    };
    chosen.text.finish()
}

/// One scope's words so far.
#[derive(Default)]
struct Scope {
    text: PageText,
    open_at: Option<usize>,
    met: bool,
}

struct TextSink {
    /// Whether each open element is boilerplate (or inside some).
    excluded: Vec<bool>,
    /// The text so far ends inside a word: the next run's first piece continues it unless a
    /// block element or whitespace comes between (`wo<b>rd</b>` is one word).
    in_word: bool,
    article: Scope,
    main: Scope,
    all: Scope,
    max_bytes: usize,
}

impl Sink for TextSink {
    fn start(&mut self, name: &str, attrs: &[Attr<'_>], _path: u64, opens: bool) {
        if name == "br" || super::print_sketch::is_block(name) {
            self.in_word = false;
        }
        if !opens {
            return;
        }
        let depth = self.excluded.len();
        // The title is nodes.csv's, not the text's (a page without <head> has it in <body>).
        let excluded = self.excluded.last().copied().unwrap_or(false)
            || name == "title"
            || super::digest::is_boilerplate(name, attrs);
        self.excluded.push(excluded);
        for (scope, tag) in [(&mut self.article, "article"), (&mut self.main, "main")] {
            if name == tag && !scope.met {
                scope.met = true;
                scope.open_at = Some(depth);
            }
        }
    }

    fn end(&mut self, name: &str, _path: u64) {
        if super::print_sketch::is_block(name) {
            self.in_word = false;
        }
        let Some(depth) = self.excluded.len().checked_sub(1) else {
            return;
        };
        for scope in [&mut self.article, &mut self.main] {
            if scope.open_at == Some(depth) {
                scope.open_at = None;
            }
        }
        self.excluded.pop();
    }

    fn text(&mut self, run: &str, _path: u64) {
        if self.excluded.last().copied().unwrap_or(false) {
            return;
        }
        let decoded = decode_entities(run);
        let glued = self.in_word && !decoded.starts_with(char::is_whitespace);
        for (i, word) in decoded.split_whitespace().enumerate() {
            let glue = glued && i == 0;
            let max = self.max_bytes;
            let add = |t: &mut PageText| match glue {
                true => t.glue(word, max),
                false => t.push(word, max),
            };
            add(&mut self.all.text);
            for scope in [&mut self.article, &mut self.main] {
                if scope.open_at.is_some() {
                    add(&mut scope.text);
                }
            }
        }
        if !decoded.is_empty() {
            self.in_word = !decoded.ends_with(char::is_whitespace);
        }
    }
}

/// `text` with character references decoded: numeric ones and the few named ones text uses
/// most (`&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&nbsp;`); any other is kept as written.
fn decode_entities(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('&') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let end = rest[..rest.len().min(12)].find(';');
        let decoded = end.and_then(|end| {
            let name = &rest[1..end];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some(' '),
                _ => name.strip_prefix('#').and_then(|n| {
                    let code = match n.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok(),
                        None => n.parse().ok(),
                    };
                    code.and_then(char::from_u32)
                }),
            };
            c.map(|c| (c, end + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_leaves_out_navigation_headers_footers_and_forms() {
        let t = page_text(
            "<html><head><title>T</title></head><body><header>Site name</header>\
             <nav><a href=/>Home</a></nav><p>Hello &amp; welcome,\n  reader&#33;</p>\
             <form><input><button>Send</button></form><footer>(c) 2026</footer>\
             <script>var x = 1;</script></body></html>",
            1000,
        );
        assert_eq!(t.text, "Hello & welcome, reader!");
        assert_eq!(t.words, 4);
        assert!(!t.cut);
    }

    #[test]
    fn inline_elements_do_not_split_words_and_blocks_do() {
        let t = page_text(
            "<p>Hello <b>wor</b>ld! <a href=x>Link</a>ed</p><p>Next</p>one<br>two <b>a</b> <i>b</i>",
            1000,
        );
        assert_eq!(t.text, "Hello world! Linked Next one two a b");
        assert_eq!(t.words, 8);
    }

    #[test]
    fn an_article_with_enough_words_is_the_text() {
        let words = "one two three four five six seven eight nine ten eleven twelve";
        let html = format!("<p>Intro text</p><article>{words}</article><p>After</p>");
        assert_eq!(page_text(&html, 1000).text, words);
        let short = "<p>Intro text</p><article>few words</article><p>After</p>";
        assert_eq!(page_text(short, 1000).text, "Intro text few words After");
    }

    #[test]
    fn a_long_text_is_cut_on_a_word_boundary_and_says_so() {
        let t = PageText::of_words(["alpha", "beta", "gamma"], 11);
        assert_eq!(t.text, "alpha beta […]");
        assert_eq!(t.words, 3);
        assert!(t.cut);
        let one = PageText::of_words(["ééééé"], 5);
        assert_eq!(one.text, "éé […]");
        assert_eq!(
            decode_entities("a &unknown; b &#x263A; &"),
            "a &unknown; b \u{263A} &"
        );
    }
}

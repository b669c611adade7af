//! Link extraction (SPEC §2.7): `<a href>`, `<area href>`, `<frame src>`, `<iframe src>`, the
//! first `<base href>`, and `<title>`, with anchor texts. Scripts are not run and their text is
//! not searched for links.
//!
//! The only user of an HTML tokenizer in the crate, so it can be swapped here alone. We use
//! html5gum, a WHATWG-conformant tokenizer (lychee uses it too): tl 0.7.8 drops unquoted
//! attribute values that contain `/` (`<a href=/news/>` yields no link) and reads links
//! inside `<script>` strings; both would break arc recall and precision. html5gum's callback
//! emitter hands us slices, so no token is allocated; character references in attribute
//! values and text are decoded by the tokenizer.

use std::cell::Cell;

use html5gum::emitters::callback::{CallbackEmitter, CallbackEvent};
use html5gum::{Emitter, ForwardingEmitter, State, Tokenizer};

use super::context::{BlockText, is_block};
pub use super::extracted::{Extracted, LinkTag, MAX_BODY_BYTES, RawLink, Wanted};
use super::text::{MAX_TEXT_BYTES, clean_text_into, push_collapsed, push_text};
use crate::model::link_attrs::Rel;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    A,
    Area,
    Frame,
    Iframe,
    Base,
    Img,
    Title,
    Link,
    Meta,
    Input,
    /// Elements whose content the tokenizer must read as text, not markup.
    RawText(State),
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Attr {
    Href,
    Src,
    Alt,
    Rel,
    HttpEquiv,
    Name,
    Content,
    InputType,
    Other,
}

/// An attribute value being read; the buffer is reused from tag to tag.
#[derive(Default)]
struct Value {
    set: bool,
    text: String,
}

impl Value {
    fn reset(&mut self) {
        self.set = false;
        self.text.clear();
    }

    fn get(&self) -> Option<&str> {
        self.set.then_some(self.text.as_str())
    }
}

#[derive(Default)]
struct Collector<'a> {
    tag: Option<Tag>,
    attr: Option<Attr>,
    href: Value,
    src: Value,
    alt: Value,
    rel: Value,
    http_equiv: Value,
    name: Value,
    content: Value,
    input_type: Value,
    out: Extracted,
    /// [`Wanted::agent`].
    agent: &'a str,
    /// Index in `out.spans` of the `<a>` whose text is being collected.
    open_anchor: Option<usize>,
    /// That anchor's text so far (the buffer is reused).
    anchor_text: String,
    /// Cleaned text, before it goes into `out` (the buffer is reused).
    cleaned: String,
    in_title: bool,
    raw_depth: bool,
    /// The current block's text, when links' contexts are wanted.
    block: Option<BlockText>,
    /// Where the open anchor's text starts in the block.
    anchor_start: usize,
    /// Whether the visible text goes to `out.body`.
    body_text: bool,
}

fn classify(name: &[u8]) -> Tag {
    match name {
        b"a" => Tag::A,
        b"area" => Tag::Area,
        b"frame" => Tag::Frame,
        b"iframe" => Tag::Iframe,
        b"base" => Tag::Base,
        b"img" => Tag::Img,
        b"title" => Tag::Title,
        b"link" => Tag::Link,
        b"meta" => Tag::Meta,
        b"input" => Tag::Input,
        b"script" => Tag::RawText(State::ScriptData),
        b"style" | b"xmp" | b"noembed" | b"noframes" => Tag::RawText(State::RawText),
        b"textarea" => Tag::RawText(State::RcData),
        b"plaintext" => Tag::RawText(State::PlainText),
        // <noscript> is read as markup: we do not run scripts, so its links are live.
        _ => Tag::Other,
    }
}

impl Collector<'_> {
    /// Whether text at this point would be kept (title, or an anchor's text, up to the cap).
    fn wants_text(&self) -> bool {
        if self.in_title {
            return self.out.title.len() < MAX_TEXT_BYTES * 2;
        }
        if self.raw_depth {
            return false;
        }
        self.block.is_some()
            || (self.body_text && self.out.body.len() < MAX_BODY_BYTES)
            || (self.open_anchor.is_some() && self.anchor_text.len() < MAX_TEXT_BYTES * 2)
    }

    fn close_anchor(&mut self) {
        if let Some(idx) = self.open_anchor.take() {
            clean_text_into(&self.anchor_text, &mut self.cleaned);
            let range = self.out.push(&self.cleaned);
            self.out.spans[idx].anchor = range;
            if let Some(block) = &mut self.block {
                block.link(idx, self.anchor_start, block.offset());
            }
        }
    }

    /// A link without text of its own (`<area>`, frames) sits here in its block.
    fn mark_link(&mut self) {
        if let Some(block) = &mut self.block {
            let at = block.offset();
            block.link(self.out.spans.len() - 1, at, at);
        }
    }

    /// A tag named `name` starts or ends: a block-level one ends the current block of text
    /// (and, like `<br>`, separates words of the body text).
    fn block_boundary(&mut self, name: &[u8]) {
        // Every tag of every page comes here: nothing to do unless the text is wanted.
        if !self.body_text && self.block.is_none() {
            return;
        }
        let block = is_block(name);
        if self.body_text && (block || name == b"br") {
            push_collapsed(&mut self.out.body, " ");
        }
        if block && self.block.is_some() {
            self.end_block();
        }
    }

    /// The block ends: its links get their contexts.
    fn end_block(&mut self) {
        if let Some(block) = &mut self.block {
            let out = &mut self.out;
            block.flush(|idx, context| {
                let range = out.push(context);
                out.spans[idx].context = range;
            });
        }
    }

    /// An attribute's name: which of the tag's attributes its value goes to, if any.
    fn attribute_name(&mut self, name: &[u8]) {
        if crate::model::fold::is_per_request_name(name) {
            self.out.per_request_signs = true;
        }
        if self.tag == Some(Tag::Input) && name == b"type" && !self.input_type.set {
            self.input_type.set = true;
            self.attr = Some(Attr::InputType);
            return;
        }
        // The first of duplicate attributes wins (HTML tokenizer rule).
        let wanted = matches!(
            (self.tag, name),
            (
                Some(Tag::A | Tag::Area | Tag::Frame | Tag::Iframe | Tag::Base | Tag::Img),
                b"href" | b"src" | b"alt",
            ) | (Some(Tag::Link | Tag::A | Tag::Area), b"rel")
                | (Some(Tag::Link), b"href")
                | (Some(Tag::Meta), b"http-equiv" | b"name" | b"content")
        );
        let (attr, slot) = match name {
            b"href" => (Attr::Href, &mut self.href),
            b"src" => (Attr::Src, &mut self.src),
            b"alt" => (Attr::Alt, &mut self.alt),
            b"rel" => (Attr::Rel, &mut self.rel),
            b"http-equiv" => (Attr::HttpEquiv, &mut self.http_equiv),
            b"name" => (Attr::Name, &mut self.name),
            b"content" => (Attr::Content, &mut self.content),
            _ => {
                self.attr = Some(Attr::Other);
                return;
            }
        };
        if wanted && !slot.set {
            // An attribute without a value (href="") emits no value event.
            slot.set = true;
            self.attr = Some(attr);
        } else {
            self.attr = Some(Attr::Other);
        }
    }

    fn event(&mut self, ev: CallbackEvent<'_>) -> Option<State> {
        match ev {
            CallbackEvent::OpenStartTag { name } => {
                self.block_boundary(name);
                self.tag = Some(classify(name));
                self.attr = None;
                self.href.reset();
                self.src.reset();
                self.alt.reset();
                self.rel.reset();
                self.http_equiv.reset();
                self.name.reset();
                self.content.reset();
                self.input_type.reset();
            }
            CallbackEvent::AttributeName { name } => self.attribute_name(name),
            CallbackEvent::AttributeValue { value } => {
                let slot = match self.attr {
                    Some(Attr::Href) => &mut self.href,
                    Some(Attr::Src) => &mut self.src,
                    Some(Attr::Alt) => &mut self.alt,
                    Some(Attr::Rel) => &mut self.rel,
                    Some(Attr::HttpEquiv) => &mut self.http_equiv,
                    Some(Attr::Name) => &mut self.name,
                    Some(Attr::Content) => &mut self.content,
                    Some(Attr::InputType) => &mut self.input_type,
                    _ => return None,
                };
                slot.text.push_str(&String::from_utf8_lossy(value));
            }
            CallbackEvent::CloseStartTag { self_closing } => {
                return self.close_start_tag(self_closing);
            }
            CallbackEvent::EndTag { name } => {
                match classify(name) {
                    Tag::A => self.close_anchor(),
                    Tag::Title => self.in_title = false,
                    Tag::RawText(_) | Tag::Iframe => self.raw_depth = false,
                    _ => {}
                }
                self.block_boundary(name);
            }
            CallbackEvent::String { value } => {
                if self.in_title {
                    push_text(&mut self.out.title, value);
                } else if !self.raw_depth {
                    if self.open_anchor.is_some() {
                        push_text(&mut self.anchor_text, value);
                    }
                    if self.block.is_some() || self.body_text {
                        let text = String::from_utf8_lossy(value);
                        if let Some(block) = &mut self.block {
                            block.push(&text);
                        }
                        if self.body_text {
                            push_collapsed(&mut self.out.body, &text);
                        }
                    }
                }
            }
            _ => {}
        }
        None
    }

    /// A `<meta name="robots">` (or named after us): its content joins the page's directives.
    fn meta_robots(&mut self) {
        let ours = self.name.get().is_some_and(|n| {
            let n = n.trim();
            n.eq_ignore_ascii_case("robots")
                || (!self.agent.is_empty() && n.eq_ignore_ascii_case(self.agent))
        });
        if let (true, Some(content)) = (ours, self.content.get()) {
            let robots = &mut self.out.meta_robots;
            // Bounded: the directives kept of a page are a few hundred bytes.
            if robots.len() < MAX_TEXT_BYTES {
                if !robots.is_empty() {
                    robots.push(',');
                }
                robots.push_str(content);
            }
        }
    }

    fn close_start_tag(&mut self, self_closing: bool) -> Option<State> {
        let tag = self.tag.take()?;
        match tag {
            Tag::A => {
                // A new <a> closes an open one (the adoption agency does the same).
                self.close_anchor();
                if let Some(href) = self.href.get() {
                    let rel = self.rel.get().map_or(Rel::NONE, Rel::parse);
                    self.out.push_link(href, "", LinkTag::A, rel);
                    if self_closing {
                        self.mark_link();
                    } else {
                        self.open_anchor = Some(self.out.spans.len() - 1);
                        self.anchor_text.clear();
                        self.anchor_start = self.block.as_ref().map_or(0, BlockText::offset);
                    }
                }
            }
            Tag::Area => {
                if let Some(href) = self.href.get() {
                    clean_text_into(self.alt.get().unwrap_or_default(), &mut self.cleaned);
                    let rel = self.rel.get().map_or(Rel::NONE, Rel::parse);
                    self.out.push_link(href, &self.cleaned, LinkTag::Area, rel);
                    self.mark_link();
                }
            }
            Tag::Frame => {
                if let Some(src) = self.src.get() {
                    self.out.push_link(src, "", LinkTag::Frame, Rel::NONE);
                    self.mark_link();
                }
            }
            Tag::Iframe => {
                if let Some(src) = self.src.get() {
                    self.out.push_link(src, "", LinkTag::Iframe, Rel::NONE);
                    self.mark_link();
                }
                if !self_closing {
                    self.raw_depth = true;
                    return Some(State::RawText);
                }
            }
            Tag::Base => {
                if self.out.base_href.is_none() {
                    self.out.base_href = self.href.get().map(str::to_owned);
                }
            }
            Tag::Link => {
                let canonical = self.rel.get().is_some_and(|rel| {
                    rel.split_ascii_whitespace()
                        .any(|r| r.eq_ignore_ascii_case("canonical"))
                });
                if canonical && self.out.canonical.is_none() {
                    self.out.canonical = self.href.get().map(str::to_owned);
                }
            }
            Tag::Meta => {
                let refresh = self
                    .http_equiv
                    .get()
                    .is_some_and(|h| h.trim().eq_ignore_ascii_case("refresh"));
                if refresh && self.out.refresh.is_none() {
                    self.out.refresh = self.content.get().map(str::to_owned);
                }
                self.meta_robots();
            }
            Tag::Input => {
                if self
                    .input_type
                    .get()
                    .is_some_and(|t| t.trim().eq_ignore_ascii_case("hidden"))
                {
                    self.out.per_request_signs = true;
                }
            }
            Tag::Img => {
                if self.open_anchor.is_some()
                    && let Some(alt) = self.alt.get()
                {
                    self.anchor_text.push(' ');
                    self.anchor_text.push_str(alt);
                    self.anchor_text.push(' ');
                }
            }
            Tag::Title => {
                if !self_closing {
                    self.in_title = true;
                    return Some(State::RcData);
                }
            }
            Tag::RawText(state) => {
                if !self_closing {
                    self.raw_depth = true;
                    return Some(state);
                }
            }
            Tag::Other => {}
        }
        None
    }
}

/// html5gum's callback emitter minus what we never look at. Parse errors: otherwise the
/// tokenizer checks every input byte for them (this halved the tokenizing time). Text outside
/// anchors and the title: otherwise every character of every page is copied into a buffer
/// and handed to us, only to be dropped. `want_text` is kept current by the collector; it
/// only changes inside events, which html5gum emits after flushing the text before them.
struct Quiet<'w, E> {
    inner: E,
    want_text: &'w Cell<bool>,
    /// Inside a script, a style or an iframe: text that is not visible.
    in_raw: &'w Cell<bool>,
    /// The visible text ([`Extracted::visible_text`]): every text run passes here, kept or
    /// not; gathered in a small buffer hashed 16 KiB at a time (a hash update per run cost
    /// more than the copy; a buffer of the whole text, a page's worth of memory).
    visible: &'w std::cell::RefCell<VisibleText>,
}

/// A page's visible text being hashed (see [`Quiet::visible`]).
#[derive(Default)]
struct VisibleText {
    hash: xxhash_rust::xxh3::Xxh3,
    pending: Vec<u8>,
}

impl VisibleText {
    /// How much text waits before it is hashed.
    const CHUNK: usize = 16 * 1024;

    fn push(&mut self, run: &[u8]) {
        self.pending.extend_from_slice(run);
        // Pieces apart: `<title>T</title><p>Hello` is two however it is laid out.
        self.pending.push(0);
        if self.pending.len() >= Self::CHUNK {
            self.hash.update(&self.pending);
            self.pending.clear();
        }
    }

    fn digest(&mut self) -> u64 {
        self.hash.update(&self.pending);
        self.pending.clear();
        self.hash.digest().max(1)
    }
}

impl<E: Emitter> ForwardingEmitter for Quiet<'_, E> {
    type Token = E::Token;

    fn inner(&mut self) -> &mut impl Emitter<Token = Self::Token> {
        &mut self.inner
    }

    fn should_emit_errors(&mut self) -> bool {
        false
    }

    fn emit_string(&mut self, s: &[u8]) {
        if !self.in_raw.get() {
            let run = s.trim_ascii();
            if !run.is_empty() {
                self.visible.borrow_mut().push(run);
            }
        }
        if self.want_text.get() {
            self.inner.emit_string(s);
        }
    }
}

thread_local! {
    /// Each parser thread's buffer of a page's visible text, reused (see [`Quiet::visible`]).
    static VISIBLE: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Extracts links, base and title from decoded HTML.
pub fn extract(html: &str) -> Extracted {
    let mut out = Extracted::default();
    extract_into(html, &mut out, Wanted::default());
    out
}

/// [`extract`] into `out`, reusing its buffers (a parser thread keeps one for all its pages),
/// reading what `wanted` asks for too.
pub fn extract_into(html: &str, out: &mut Extracted, wanted: Wanted<'_>) {
    let context = wanted.context;
    let mut reused = std::mem::take(out);
    reused.clear();
    let mut collector = Collector {
        out: reused,
        block: (context > 0).then(|| BlockText::new(context)),
        body_text: wanted.body_text,
        agent: wanted.agent,
        ..Collector::default()
    };
    let want_text = Cell::new(context > 0 || wanted.body_text);
    let in_raw = Cell::new(false);
    let visible = std::cell::RefCell::new(VisibleText {
        hash: xxhash_rust::xxh3::Xxh3::new(),
        pending: VISIBLE.with(std::cell::Cell::take),
    });
    {
        let emitter = Quiet {
            inner: CallbackEmitter::new(|ev: CallbackEvent<'_>, _span: html5gum::Span<()>| {
                let next_state = collector.event(ev);
                want_text.set(collector.wants_text());
                in_raw.set(collector.raw_depth);
                next_state
            }),
            want_text: &want_text,
            in_raw: &in_raw,
            visible: &visible,
        };
        let mut tokenizer = Tokenizer::new_with_emitter(html, emitter);
        // The callback returns the state to switch to after a raw-text start tag.
        while let Some(item) = tokenizer.next() {
            let Ok(state) = item;
            tokenizer.set_state(state);
        }
    }
    let mut text = visible.into_inner();
    let visible = text.digest();
    // The buffer is kept for the thread's next page (a run longer than a chunk may have grown
    // it: then it goes).
    if text.pending.capacity() <= 2 * VisibleText::CHUNK {
        VISIBLE.with(|v| v.set(text.pending));
    }
    collector.close_anchor();
    collector.end_block();
    let kept = collector.out.body.trim_end().len();
    collector.out.body.truncate(kept);
    clean_text_into(&collector.out.title, &mut collector.cleaned);
    std::mem::swap(&mut collector.out.title, &mut collector.cleaned);
    collector.out.visible_text = visible;
    *out = collector.out;
}

#[cfg(test)]
mod tests {
    use super::*;

    // See: issue 64 item 4 — the visible text's hash: text between tags, outside scripts and
    // styles; markup, comments and indentation do not count.
    #[test]
    fn only_what_is_between_tags_counts_in_the_visible_text() {
        let a = extract(
            "<html><head><title>T</title><style>p{color:red}</style></head><body>\n<p>Hello <a href=\"index.html\">world</a></p><!-- a > b --><script>var x = '<p>not text</p>';</script></body></html>",
        )
        .visible_text;
        let b = extract(
            "<html><head><title>T</title><STYLE media=x>p{}</STYLE></head><body class=\"x\"><p>Hello <a href=\"./\">world</a>\n</p><!-- other --><script src=a.js></script></body></html>",
        )
        .visible_text;
        assert_eq!(a, b);
        for other in [
            "<p>Hello <a href=\"./\">World</a></p>",
            "<p>Hello <a href=\"./\">world</a> again</p>",
            "<p>Hel lo <a href=\"./\">world</a></p>",
        ] {
            assert_ne!(
                extract(&format!("<title>T</title>{other}")).visible_text,
                a,
                "{other}"
            );
        }
        assert_ne!(extract("").visible_text, 0);
    }

    fn contexts(html: &str, n: usize) -> Vec<(String, String)> {
        let mut out = Extracted::default();
        extract_into(
            html,
            &mut out,
            Wanted {
                context: n,
                ..Wanted::default()
            },
        );
        out.links()
            .map(|l| (l.href.to_owned(), l.context.to_owned()))
            .collect()
    }

    #[test]
    fn links_carry_their_rel_qualifiers_and_nothing_inherits_them() {
        let html = r#"<div rel=nofollow><a href=/a>a</a></div>
            <a href=/b rel="NoFollow ugc">b</a><a href=/c REL=Sponsored>c</a>
            <a href=/d rel="noopener external">d</a><a href=/e rel=nofollow rel=ugc>e</a>
            <map><area href=/f rel=nofollow alt=f><area href=/g alt=g></map>
            <link rel=nofollow href=/h><iframe src=/i rel=nofollow></iframe>
            <a rel=nofollow><a href=/j>j</a>"#;
        let out = extract(html);
        let rels: Vec<(&str, String)> = out.links().map(|l| (l.href, l.rel.to_string())).collect();
        let want = [
            ("/a", ""),
            ("/b", "nofollow ugc"),
            ("/c", "sponsored"),
            ("/d", ""),
            // The first of duplicate attributes wins (HTML tokenizer rule).
            ("/e", "nofollow"),
            ("/f", "nofollow"),
            ("/g", ""),
            ("/i", ""),
            ("/j", ""),
        ];
        let want: Vec<(&str, String)> = want.iter().map(|(h, r)| (*h, r.to_string())).collect();
        assert_eq!(rels, want);
    }

    #[test]
    fn meta_robots_is_read_for_robots_and_for_our_agent_only() {
        let html = r#"<head><META NAME="Robots" CONTENT="NOINDEX"><meta name=googlebot content=nofollow>
            <meta name=" rccrawler " content="noarchive"><meta content="nosnippet" name=robots>
            <meta name=description content="nofollow me"><meta name=robots></head>"#;
        let mut out = Extracted::default();
        let wanted = Wanted {
            agent: "RCcrawler",
            ..Wanted::default()
        };
        extract_into(html, &mut out, wanted);
        assert_eq!(out.meta_robots, "NOINDEX,noarchive,nosnippet");
        extract_into(html, &mut out, Wanted::default());
        assert_eq!(
            out.meta_robots, "NOINDEX,nosnippet",
            "no agent: robots only"
        );
        extract_into("<p>x</p>", &mut out, Wanted::default());
        assert_eq!(out.meta_robots, "", "cleared between pages");
    }

    #[test]
    fn the_body_text_is_the_visible_text_outside_the_title() {
        let mut out = Extracted::default();
        let wanted = Wanted {
            body_text: true,
            ..Wanted::default()
        };
        extract_into(
            "<title>T</title><style>p{}</style><p>One\n <b>two</b></p><script>x()</script>\
             <a href=/a>three</a>",
            &mut out,
            wanted,
        );
        assert_eq!(out.body, "One two three");
        assert_eq!(out.title, "T");
        extract_into("<p>again</p>", &mut out, Wanted::default());
        assert_eq!(out.body, "", "not read unless asked");
    }

    #[test]
    fn a_link_gets_the_text_of_its_own_block() {
        let html = "<body><p>Intro text.</p><ul><li>See <a href=/a>the A list</a> of partners.</li>\
                    <li><a href=/b>B</a></li></ul><table><tr><td>Cell <a href=/c>c</a>\
                    <img src=x alt=ignored></td></tr></table><p>Tail <area href=/d alt=map> end\
                    <script>var s = '<p>'</script></p>";
        assert_eq!(
            contexts(html, 200),
            vec![
                ("/a".into(), "See the A list of partners.".into()),
                ("/b".into(), "B".into()),
                ("/c".into(), "Cell c".into()),
                ("/d".into(), "Tail end".into()),
            ]
        );
        let cut = contexts(html, 18);
        assert_eq!(cut[0].1, "See the A list of");
        assert!(contexts(html, 0).iter().all(|(_, c)| c.is_empty()));
    }

    fn hrefs(html: &str) -> Vec<String> {
        extract(html).links().map(|l| l.href.to_owned()).collect()
    }

    #[test]
    fn the_tags_spec_names() {
        let html = r#"<a href="/a">A</a><map><area href="/m" alt="Map"></map>
            <frameset><frame src="/f"></frameset><iframe src="/i"><a href="/not-a-link">x</a></iframe>
            <img src="/img.png"><link href="/style.css"><script src="/s.js"></script>"#;
        let e = extract(html);
        let got: Vec<_> = e.links().map(|l| (l.href, l.anchor, l.tag)).collect();
        assert_eq!(
            got,
            vec![
                ("/a", "A", LinkTag::A),
                ("/m", "Map", LinkTag::Area),
                ("/f", "", LinkTag::Frame),
                ("/i", "", LinkTag::Iframe)
            ]
        );
    }

    #[test]
    fn unquoted_values_and_case() {
        assert_eq!(
            hrefs("<A HREF=/news/>N</A><a href=http://x.com/a>X</a>"),
            vec!["/news/", "http://x.com/a"]
        );
    }

    #[test]
    fn scripts_styles_and_comments_are_not_searched() {
        let html = r#"<script>var s = "<a href='/in-script'>"; if (a<b) {}</script><style>a{}</style>
            <!-- <a href="/commented">c</a> --><textarea><a href="/ta"></textarea><a href="/real">r</a>"#;
        assert_eq!(hrefs(html), vec!["/real"]);
    }

    #[test]
    fn noscript_links_count() {
        assert_eq!(
            hrefs("<noscript><a href=/nojs>x</a></noscript>"),
            vec!["/nojs"]
        );
    }

    #[test]
    fn anchors_entities_and_whitespace() {
        let e = extract(
            "<a href=\"/q?a=1&amp;b=2\">\n  Fish &amp; <b>Chips</b>\t<img alt=\"Logo\">\u{7}</a>",
        );
        let l = e.links().next().unwrap();
        assert_eq!(l.href, "/q?a=1&b=2");
        assert_eq!(l.anchor, "Fish & Chips Logo");
    }

    #[test]
    fn nested_or_unclosed_anchors() {
        let e = extract("<a href=/1>one<a href=/2>two</a> after <a href=/3>three");
        let anchors: Vec<_> = e.links().map(|l| l.anchor).collect();
        assert_eq!(anchors, vec!["one", "two", "three"]);
    }

    #[test]
    fn base_title_and_empty_href() {
        let e = extract(
            "<head><title> My\n Page </title><base href=\"http://b.test/x/\"><base href=/ignored></head><a href>self</a><a name=top>no link</a>",
        );
        assert_eq!(e.base_href.as_deref(), Some("http://b.test/x/"));
        assert_eq!(e.title, "My Page");
        assert_eq!(
            hrefs("<a href>self</a><a href=\"\">self2</a><a name=x>n</a>"),
            vec!["", ""]
        );
    }

    #[test]
    fn canonical_and_refresh_are_read_and_are_not_links() {
        let e = extract(
            r#"<head><link rel="stylesheet" href="/s.css"><LINK REL="Canonical" HREF="/c?a=1&amp;b=2"><link rel=canonical href=/second>
            <meta charset=utf-8><META HTTP-EQUIV="Refresh" CONTENT="0; URL=/ru/"><meta http-equiv=refresh content="5"></head><a href=/x>x</a>"#,
        );
        assert_eq!(e.canonical.as_deref(), Some("/c?a=1&b=2"));
        assert_eq!(e.refresh.as_deref(), Some("0; URL=/ru/"));
        assert_eq!(e.links().count(), 1);
        let none = extract("<meta name=refresh content=1><link rel=alternate href=/a>");
        assert_eq!((none.canonical, none.refresh), (None, None));
    }

    #[test]
    fn duplicate_attribute_first_wins() {
        assert_eq!(hrefs("<a href=/first href=/second>x</a>"), vec!["/first"]);
    }

    #[test]
    fn garbage_does_not_panic() {
        for html in [
            "<",
            "<a",
            "<a href",
            "<a href=\"",
            "</",
            "<!--",
            "<![CDATA[",
            "\u{0}<a\u{0}href=x>",
            "<<<>>>",
            "<a href=/x",
        ] {
            let _ = extract(html);
        }
        let deep = "<div>".repeat(100_000) + "<a href=/deep>d</a>";
        assert_eq!(hrefs(&deep), vec!["/deep"]);
    }

    #[test]
    fn a_reused_buffer_gives_the_same_result() {
        let mut buf = Extracted::default();
        extract_into(
            "<title>One</title><base href=/b/><a href=/1>one</a><a href=/2>two</a>",
            &mut buf,
            Wanted::default(),
        );
        let second = "<title>Two</title><a href=/3>three</a>";
        extract_into(second, &mut buf, Wanted::default());
        assert_eq!(buf, extract(second));
        assert_eq!(buf.base_href, None);
        assert_eq!(buf.links().count(), 1);
    }

    #[test]
    fn long_title_is_cut_at_the_cap() {
        let title = format!("<title>{} x</title>", "t".repeat(1000));
        assert_eq!(extract(&title).title.len(), 1000);
    }

    #[test]
    fn long_anchor_is_cut() {
        let html = format!("<a href=/x>{}", "word ".repeat(10_000));
        assert!(extract(&html).links().next().unwrap().anchor.len() <= MAX_TEXT_BYTES);
    }
}

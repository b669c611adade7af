//! What link extraction gives of one page (SPEC §2.7, §17): its links with their texts and
//! `rel` qualifiers in one buffer, and the page's base, title, canonical URL, refresh, meta
//! robots and (when asked) visible text. `links.rs` fills it.

use crate::model::link_attrs::Rel;

/// Which element a link came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkTag {
    /// `<a href>`.
    A,
    /// `<area href>`.
    Area,
    /// `<frame src>`.
    Frame,
    /// `<iframe src>`.
    Iframe,
}

/// A link as written in the page: not yet resolved or normalized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawLink<'a> {
    /// The attribute value, character references decoded.
    pub href: &'a str,
    /// The text people see: anchor text (with `<img alt>`), or `<area alt>`; whitespace
    /// collapsed, control characters removed.
    pub anchor: &'a str,
    /// The text of the block around it, at most `context` characters (see [`super::links::extract_into`]);
    /// empty when not asked for.
    pub context: &'a str,
    /// The element.
    pub tag: LinkTag,
    /// Its `rel` qualifiers (`<a>` and `<area>`; none on frames).
    pub rel: Rel,
}

/// Where a link's strings are in [`Extracted`]'s text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct LinkSpan {
    href: (u32, u32),
    pub(super) anchor: (u32, u32),
    pub(super) context: (u32, u32),
    tag: LinkTag,
    rel: Rel,
}

/// Everything the parser needs from one page. The links' strings share one buffer: a page
/// has dozens to thousands of links, and a string each was a measurable part of parsing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extracted {
    text: String,
    pub(super) spans: Vec<LinkSpan>,
    /// The first `<base href>`, if any.
    pub base_href: Option<String>,
    /// The `<title>` text, cleaned like anchors.
    pub title: String,
    /// The first `<link rel="canonical" href>`, as written.
    pub canonical: Option<String>,
    /// The `content` of the first `<meta http-equiv="refresh">`, as written.
    pub refresh: Option<String>,
    /// The `content` of every `<meta name="robots">` and `<meta name="AGENT">` (our robots
    /// product token, [`Wanted::agent`]), joined by commas: their directives, in order.
    pub meta_robots: String,
    /// The page's visible text outside the title, collapsed, at most [`MAX_BODY_BYTES`]
    /// (only when [`Wanted::body_text`]).
    pub body: String,
    /// The page carries parts made for each request: an attribute named like a nonce, token,
    /// CSRF or session field, or a hidden form input (SPEC §14: its fold digests are worth
    /// computing in full).
    pub per_request_signs: bool,
    /// The hash of the page's visible text (never 0 once extracted): each text run between
    /// two tags, trimmed, outside scripts and styles, hashed as the tokenizer meets it — a
    /// static page's `TextHash` (SPEC §16, issue 64 item 4): a page whose only change is in
    /// its markup (an `href` written another way, a class, indentation) has the same.
    pub visible_text: u64,
}

/// The page's visible text kept for topic scoring; the rest is dropped.
pub const MAX_BODY_BYTES: usize = 1 << 20;

/// What to read besides links, base, title, canonical and refresh. Each costs time (all of
/// the page's text is read), so both are off unless a setting asks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Wanted<'a> {
    /// Characters of context per link ([`RawLink::context`]; 0: none).
    pub context: usize,
    /// The visible text ([`Extracted::body`]), for `TopicFilter`.
    pub body_text: bool,
    /// Our robots product token: `<meta name="AGENT">` is read like `<meta name="robots">`
    /// (empty: only the latter).
    pub agent: &'a str,
}

/// What a parser thread's reused buffers keep between pages: an ordinary page's needs.
/// Beyond it a buffer is given back after its page (a source listing of 8 MB left 5 MB in
/// each parser thread's buffers for the rest of the crawl).
const KEPT_BYTES: usize = 1 << 20;

impl Extracted {
    /// Empty, its buffers kept for the next page.
    pub(super) fn clear(&mut self) {
        self.text.clear();
        self.spans.clear();
        self.base_href = None;
        self.title.clear();
        self.canonical = None;
        self.refresh = None;
        self.meta_robots.clear();
        self.body.clear();
        self.per_request_signs = false;
        self.visible_text = 0;
    }

    /// Gives back what the buffers hold beyond an ordinary page's needs (1 MiB
    /// each), after a big page.
    pub fn release_excess(&mut self) {
        let spans = KEPT_BYTES / std::mem::size_of::<LinkSpan>();
        if self.spans.capacity() > spans {
            self.spans.clear();
            self.spans.shrink_to(spans);
        }
        if self.text.capacity() > KEPT_BYTES {
            self.text.clear();
            self.text.shrink_to(KEPT_BYTES);
        }
        if self.body.capacity() > KEPT_BYTES {
            self.body.clear();
            self.body.shrink_to(KEPT_BYTES);
        }
    }

    /// Links in document order.
    pub fn links(&self) -> impl ExactSizeIterator<Item = RawLink<'_>> + '_ {
        self.spans.iter().map(|l| RawLink {
            href: &self.text[l.href.0 as usize..l.href.1 as usize],
            anchor: &self.text[l.anchor.0 as usize..l.anchor.1 as usize],
            context: &self.text[l.context.0 as usize..l.context.1 as usize],
            tag: l.tag,
            rel: l.rel,
        })
    }

    /// Appends `s` to the text; its range. A page's hrefs and anchors stay far below 4 GiB
    /// (`MaxPageBytes` is at most 1 GiB), but contexts repeat the text around each link
    /// (`ExternalLinkContext` up to 10,000 characters a link): text that would end past the
    /// offsets' range is left out (an empty range), never wrapped.
    pub(super) fn push(&mut self, s: &str) -> (u32, u32) {
        let start = self.text.len();
        match (u32::try_from(start), u32::try_from(start + s.len())) {
            (Ok(from), Ok(to)) => {
                self.text.push_str(s);
                (from, to)
            }
            _ => (0, 0),
        }
    }

    pub(super) fn push_link(&mut self, href: &str, anchor: &str, tag: LinkTag, rel: Rel) {
        let href = self.push(href);
        let anchor = self.push(anchor);
        self.spans.push(LinkSpan {
            href,
            anchor,
            context: (0, 0),
            tag,
            rel,
        });
    }
}

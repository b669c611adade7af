//! A page's digests (SPEC §14), computed by the parser from the decoded body:
//!
//! - `request`: the page with what changes per response masked — `<script>`/`<style>` contents
//!   and comments left out, nonces, CSRF tokens, hidden inputs' values and session ids in
//!   URLs masked, and the site's learned rules applied ([`super::rules`]);
//! - `own`: that, with the page's own address masked wherever it writes it
//!   (`own_url`);
//! - `text`: the words a person reads outside navigation, headers, footers and forms — what a
//!   print version or another template of the page shares with it (0 when under
//!   [`MIN_TEXT_WORDS`]).
//!
//! Two pages with equal bytes have equal digests; two pages that differ in a word of their text
//! have different ones, whatever the rules (a rule masks a shape at a place, see `rules`).

use std::borrow::Cow;

use url::Url;
use xxhash_rust::xxh3::Xxh3;

use super::own_url::OwnUrl;
use super::rules::{SiteRules, place, shape, value_place};
use super::scan::{Attr, Sink, scan};
use super::session_params::mask_session_params;

/// Fewer words than this outside boilerplate give no text digest (an empty or menu-only page
/// would otherwise share it with every other).
pub const MIN_TEXT_WORDS: u32 = 12;

/// What masked parts are replaced by.
const MASK: &str = "\u{0}m\u{0}";

/// A page's three digests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Digests {
    /// Per-response parts masked.
    pub request: u64,
    /// Per-response parts and the page's own address masked.
    pub own: u64,
    /// The text outside boilerplate (0: too little text).
    pub text: u64,
    /// The visible text names the page's own address ("the page /x does not exist"): the
    /// sign of a "not found" template answered with 200 (a soft 404). Not saved.
    pub names_itself: bool,
}

impl Digests {
    /// The digests of a page with nothing to set aside: its bytes are the page (the low half
    /// of its exact hash for both); `text` is its visible text's hash
    /// (`parse::Extracted::visible_text`), for `compare` only — the fold rules see no text
    /// digest on such a page (`PageMeta::fold_digests`).
    pub fn of_bytes(hash: u128, text: u64) -> Self {
        Digests {
            request: hash as u64,
            own: hash as u64,
            text,
            names_itself: false,
        }
    }
}

/// The digests of `html`, served at `page`, under a site's `rules`.
pub fn digest(html: &str, page: &Url, rules: &SiteRules) -> Digests {
    digest_with_sketch(html, page, rules, false).0
}

/// [`digest`], and with `sketch` the print rule's sketch of the page's text
/// ([`super::print_sketch`]; `None` for a text of too many blocks).
pub fn digest_with_sketch(
    html: &str,
    page: &Url,
    rules: &SiteRules,
    sketch: bool,
) -> (Digests, Option<String>) {
    let own = OwnUrl::new(page, html);
    let mut sink = DigestSink {
        own: &own,
        rules,
        elems: Vec::new(),
        ctxs: vec![Ctx::new(Order::Page, 0)],
        article: TextScope::default(),
        main: TextScope::default(),
        all: TextScope::default(),
        names_itself: false,
        blocks: sketch.then(super::print_sketch::Blocks::default),
        in_links: 0,
    };
    scan(html, &mut sink);
    sink.finish()
}

/// The two running hashes of a context.
struct Hashes {
    request: Xxh3,
    own: Xxh3,
}

impl Hashes {
    fn new() -> Self {
        Hashes {
            request: Xxh3::new(),
            own: Xxh3::new(),
        }
    }

    fn both(&mut self, b: &[u8]) {
        self.request.update(b);
        self.own.update(b);
    }

    fn digest(&self) -> [u64; 2] {
        [self.request.digest(), self.own.digest()]
    }
}

/// How a hashing context combines what it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    /// In document order (the page).
    Page,
    /// One child of an unordered element or of a list.
    Child,
    /// An element whose children the site reorders per response (a learned rule).
    Unordered,
    /// A `<ul>`/`<ol>`: its items in any order when each is one link (a "related" or
    /// "popular" box that shuffles its links), else in document order.
    List,
}

/// A hashing context: the page, an element whose children may be hashed in any order, or one
/// such child.
struct Ctx {
    h: Hashes,
    order: Order,
    /// The element depth it belongs to.
    depth: usize,
    /// Its children's digests (an unordered element or a list).
    items: Vec<[u64; 2]>,
    /// A child's `<a>` start tags.
    anchors: u32,
    /// A list whose every item so far is one link.
    all_links: bool,
}

impl Ctx {
    fn new(order: Order, depth: usize) -> Self {
        Ctx {
            h: Hashes::new(),
            order,
            depth,
            items: Vec::new(),
            anchors: 0,
            all_links: true,
        }
    }

    /// Whether an element at `depth` is one of its children.
    fn has_child_at(&self, depth: usize) -> bool {
        matches!(self.order, Order::Unordered | Order::List) && depth == self.depth + 1
    }
}

/// The words of one scope of the text digest: the first `<article>`, the first `<main>`, or
/// the whole page outside boilerplate. The narrowest with enough words is the page's text: a
/// print version keeps the article and drops the lists of links around it.
#[derive(Default)]
struct TextScope {
    hash: Option<Xxh3>,
    words: u32,
    /// The depth of its element while it is open (`None`: closed, or never opened).
    open_at: Option<usize>,
    /// Its element was met (only the first counts).
    met: bool,
}

impl TextScope {
    fn add(&mut self, word: &str) {
        let h = self.hash.get_or_insert_with(Xxh3::new);
        h.update(word.as_bytes());
        h.update(b" ");
        self.words += 1;
    }

    fn digest(&self) -> Option<u64> {
        (self.words >= MIN_TEXT_WORDS).then(|| self.hash.as_ref().map_or(0, Xxh3::digest))
    }
}

/// One open element.
struct Elem {
    /// Its text is not part of the text digest (navigation, header, footer, form, …).
    excluded: bool,
}

struct DigestSink<'a> {
    own: &'a OwnUrl<'a>,
    rules: &'a SiteRules,
    elems: Vec<Elem>,
    ctxs: Vec<Ctx>,
    article: TextScope,
    main: TextScope,
    all: TextScope,
    names_itself: bool,
    /// The text's blocks, when a sketch is asked for ([`super::print_sketch`]).
    blocks: Option<super::print_sketch::Blocks>,
    /// `<a>` elements open.
    in_links: u32,
}

/// Elements whose text is boilerplate, not the page's own text.
pub(super) fn is_boilerplate(name: &str, attrs: &[Attr<'_>]) -> bool {
    if matches!(
        name,
        "head"
            | "nav"
            | "header"
            | "footer"
            | "aside"
            | "form"
            | "select"
            | "button"
            | "noscript"
            | "template"
            | "svg"
            | "script"
            | "style"
    ) {
        return true;
    }
    attrs.iter().any(|a| {
        let n = a.name;
        if n.eq_ignore_ascii_case("role") {
            return a.value.eq_ignore_ascii_case("navigation");
        }
        if !(n.eq_ignore_ascii_case("class") || n.eq_ignore_ascii_case("id")) {
            return false;
        }
        a.value.split_ascii_whitespace().any(|token| {
            let t = token.to_ascii_lowercase();
            [
                "nav",
                "menu",
                "sidebar",
                "breadcrumb",
                "share",
                "social",
                "footer",
                "header",
                "related",
                "comment",
                "advert",
                "banner",
                "cookie",
                "toolbar",
                "print",
            ]
            .iter()
            .any(|w| t.contains(w))
        })
    })
}

/// Attribute names whose values are per-response by their name.
fn is_token_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == "nonce"
        || [
            "csrf",
            "xsrf",
            "token",
            "nonce",
            "session",
            "request-id",
            "requestid",
            "request_id",
            "timestamp",
        ]
        .iter()
        .any(|w| n.contains(w))
}

impl DigestSink<'_> {
    fn top(&mut self) -> &mut Ctx {
        let last = self.ctxs.len() - 1;
        &mut self.ctxs[last]
    }

    fn excluded(&self) -> bool {
        self.elems.last().is_some_and(|e| e.excluded)
    }

    /// Closes the top context into its parent: an element's children combined (sorted when
    /// their order does not count), or a child's digest added to its element's.
    fn pop_ctx(&mut self) {
        let Some(mut ctx) = self.ctxs.pop() else {
            return;
        };
        if self.ctxs.is_empty() {
            self.ctxs.push(ctx);
            return;
        }
        match ctx.order {
            Order::Child => {
                let d = ctx.h.digest();
                let parent = self.top();
                parent.all_links &= ctx.anchors == 1;
                parent.items.push(d);
            }
            Order::Unordered | Order::List | Order::Page => {
                let any_order = ctx.order == Order::Unordered
                    || (ctx.order == Order::List && ctx.all_links && ctx.items.len() > 1);
                if any_order {
                    ctx.items.sort_unstable();
                }
                // The element's own tag went to the parent already; its children follow.
                let h = &mut self.top().h;
                for [request, own] in &ctx.items {
                    h.request.update(&request.to_le_bytes());
                    h.own.update(&own.to_le_bytes());
                }
            }
        }
    }

    /// A request-digest value of an attribute (per-response parts masked).
    fn request_value<'v>(
        &self,
        tag: &str,
        attrs: &[Attr<'_>],
        a: &Attr<'v>,
        path: u64,
    ) -> Cow<'v, str> {
        if is_token_name(a.name) {
            return Cow::Borrowed(MASK);
        }
        if a.name.eq_ignore_ascii_case("value")
            && tag == "input"
            && attrs.iter().any(|t| {
                t.name.eq_ignore_ascii_case("type") && t.value.eq_ignore_ascii_case("hidden")
            })
        {
            return Cow::Borrowed(MASK);
        }
        if a.name.eq_ignore_ascii_case("content")
            && tag == "meta"
            && attrs.iter().any(|t| {
                matches!(
                    t.name.to_ascii_lowercase().as_str(),
                    "name" | "property" | "http-equiv" | "itemprop"
                ) && is_token_name(t.value)
            })
        {
            return Cow::Borrowed(MASK);
        }
        if !self.rules.values.is_empty()
            && self
                .rules
                .values
                .contains(&(value_place(path, a.name), shape(a.value)))
        {
            return Cow::Borrowed(MASK);
        }
        mask_session_params(a.value)
    }

    /// A text run with the learned word rules of its place applied.
    fn request_text<'r>(&self, run: &'r str, path: u64) -> Cow<'r, str> {
        if !self.rules.word_paths.contains(&path) {
            return Cow::Borrowed(run);
        }
        let mut out = String::with_capacity(run.len());
        let mut previous: Option<&str> = None;
        for word in run.split_whitespace() {
            if !out.is_empty() {
                out.push(' ');
            }
            if self
                .rules
                .words
                .contains(&(place(path, previous), shape(word)))
            {
                out.push_str(MASK);
            } else {
                out.push_str(word);
            }
            previous = Some(word);
        }
        Cow::Owned(out)
    }

    fn finish(mut self) -> (Digests, Option<String>) {
        while self.ctxs.len() > 1 {
            self.pop_ctx();
        }
        let [request, own] = self.ctxs[0].h.digest();
        let (article, main) = (self.article.digest(), self.main.digest());
        let text = article.or(main).or_else(|| self.all.digest()).unwrap_or(0);
        let sketch = self
            .blocks
            .take()
            .and_then(|b| b.sketch(article.is_some(), article.is_none() && main.is_some()));
        let digests = Digests {
            request,
            own,
            text,
            names_itself: self.names_itself,
        };
        (digests, sketch)
    }
}

impl Sink for DigestSink<'_> {
    fn start(&mut self, name: &str, attrs: &[Attr<'_>], path: u64, opens: bool) {
        let depth = self.elems.len();
        let child = self.top().has_child_at(depth);
        if child {
            self.ctxs.push(Ctx::new(Order::Child, depth));
        }
        if name == "a" {
            self.top().anchors += 1;
        }
        let mut request_tag = String::with_capacity(64);
        let mut own_tag = String::with_capacity(64);
        request_tag.push('<');
        request_tag.push_str(name);
        own_tag.push_str(&request_tag);
        for a in attrs {
            let value = self.request_value(name, attrs, a, path);
            let own = self.own.mask_value(&value);
            for (out, v) in [
                (&mut request_tag, value.as_ref()),
                (&mut own_tag, own.as_ref()),
            ] {
                out.push(' ');
                out.push_str(a.name);
                out.push('=');
                out.push_str(v);
            }
        }
        let h = &mut self.top().h;
        h.request.update(request_tag.as_bytes());
        h.own.update(own_tag.as_bytes());
        if let Some(b) = self.blocks.as_mut()
            && super::print_sketch::is_block(name)
        {
            b.flush();
        }
        if opens {
            if name == "a" {
                self.in_links += 1;
            }
            let excluded = self.excluded() || is_boilerplate(name, attrs);
            self.elems.push(Elem { excluded });
            for (scope, tag) in [(&mut self.article, "article"), (&mut self.main, "main")] {
                if name == tag && !scope.met {
                    scope.met = true;
                    scope.open_at = Some(depth);
                }
            }
            if self.rules.unordered.contains(&path) {
                self.ctxs.push(Ctx::new(Order::Unordered, depth));
            } else if name == "ul" || name == "ol" {
                self.ctxs.push(Ctx::new(Order::List, depth));
            }
        } else if child {
            self.pop_ctx();
        }
    }

    fn end(&mut self, name: &str, _path: u64) {
        let Some(depth) = self.elems.len().checked_sub(1) else {
            return;
        };
        let top = self.top();
        if matches!(top.order, Order::Unordered | Order::List) && top.depth == depth {
            self.pop_ctx();
        }
        if let Some(b) = self.blocks.as_mut()
            && super::print_sketch::is_block(name)
        {
            b.flush();
        }
        if name == "a" {
            self.in_links = self.in_links.saturating_sub(1);
        }
        let mut tag = String::with_capacity(name.len() + 3);
        tag.push_str("</");
        tag.push_str(name);
        tag.push('>');
        self.top().h.both(tag.as_bytes());
        let top = self.top();
        if top.order == Order::Child && top.depth == depth {
            self.pop_ctx();
        }
        for scope in [&mut self.article, &mut self.main] {
            if scope.open_at == Some(depth) {
                scope.open_at = None;
            }
        }
        self.elems.pop();
    }

    fn text(&mut self, run: &str, path: u64) {
        if run.trim().is_empty() {
            return;
        }
        let depth = self.elems.len();
        let loose = self.top().has_child_at(depth);
        if loose {
            self.top().all_links = false;
            self.ctxs.push(Ctx::new(Order::Child, depth));
        }
        let request = self.request_text(run, path);
        let own = self.own.mask_text(&request);
        let h = &mut self.top().h;
        h.request.update(request.as_bytes());
        h.own.update(own.as_bytes());
        if !self.excluded() {
            let (in_article, in_main) =
                (self.article.open_at.is_some(), self.main.open_at.is_some());
            for word in own.split_whitespace() {
                self.all.add(word);
                if in_article {
                    self.article.add(word);
                }
                if in_main {
                    self.main.add(word);
                }
                if let Some(b) = self.blocks.as_mut() {
                    b.word(word, in_article, in_main, self.in_links > 0);
                }
            }
        }
        if loose {
            self.pop_ctx();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(html: &str, url: &str) -> Digests {
        let page = Url::parse(url).unwrap_or_else(|_| unreachable!());
        digest(html, &page, &SiteRules::default())
    }

    const ARTICLE: &str = "<p>The quick brown fox jumps over the lazy dog, and then it runs \
                           into the forest to hide from the hunters.</p>";

    #[test]
    fn per_response_parts_are_masked_by_their_kind() {
        let page = |nonce: &str, csrf: &str, sid: &str| {
            format!(
                "<html><head><meta name=csrf-token content={csrf}>\
                 <script nonce={nonce}>var t = {nonce};</script></head><body>{ARTICLE}\
                 <!-- rendered {nonce} --><form><input type=hidden name=x value={csrf}>\
                 </form><a href=\"/b?sid={sid}&amp;p=1\">b</a></body></html>"
            )
        };
        let a = d(&page("n1", "c1", "s1s1s1"), "http://a.test/x");
        let b = d(&page("n2", "c2", "s2s2s2"), "http://a.test/x");
        assert_eq!(a.request, b.request);
        assert_eq!(a.own, b.own);
        assert_eq!(a.text, b.text);
        assert_ne!(a.text, 0);
    }

    #[test]
    fn the_own_address_changes_only_the_own_digest() {
        let page = |url: &str| {
            format!(
                "<html><head><link rel=canonical href=\"{url}\"></head><body>{ARTICLE}\
                 <a href=\"https://social.test/share?u={}\">share</a></body></html>",
                url.replace(':', "%3A")
                    .replace('/', "%2F")
                    .replace('?', "%3F")
                    .replace('=', "%3D")
            )
        };
        let a = d(&page("http://a.test/x"), "http://a.test/x");
        let b = d(&page("http://a.test/x?ref=y"), "http://a.test/x?ref=y");
        assert_ne!(a.request, b.request);
        assert_eq!(a.own, b.own);
        assert_eq!(a.text, b.text);
    }

    #[test]
    fn one_differing_number_keeps_two_pages() {
        let a = d(
            &format!("<body>{ARTICLE}<p>Price: 19.99</p></body>"),
            "http://a.test/p/1",
        );
        let b = d(
            &format!("<body>{ARTICLE}<p>Price: 29.99</p></body>"),
            "http://a.test/p/2",
        );
        assert_ne!(a.request, b.request);
        assert_ne!(a.own, b.own);
        assert_ne!(a.text, b.text);
    }

    #[test]
    fn the_text_digest_ignores_the_template_around_the_text() {
        let full = d(
            &format!(
                "<body><nav><a href=/>Home</a></nav><div class=sidebar>More</div><article>{ARTICLE}</article><footer>(c)</footer></body>"
            ),
            "http://a.test/a",
        );
        let print = d(
            &format!("<body><article>{ARTICLE}</article></body>"),
            "http://a.test/a?print=1",
        );
        assert_eq!(full.text, print.text);
        assert_ne!(full.own, print.own);
        assert_eq!(d("<body><p>Menu only</p></body>", "http://a.test/").text, 0);
    }

    #[test]
    fn learned_rules_mask_a_shape_at_a_place_and_order_a_block() {
        let page = |time: &str, items: &[&str]| {
            let lis: String = items
                .iter()
                .map(|i| format!("<li><a href=/{i}>{i}</a></li>"))
                .collect();
            format!(
                "<body>{ARTICLE}<ul class=related>{lis}</ul><p class=stamp>Generated at {time}</p></body>"
            )
        };
        let url = Url::parse("http://a.test/x").unwrap_or_else(|_| unreachable!());
        let one = page("15:40:12", &["a", "b", "c"]);
        let two = page("15:40:13", &["c", "a", "b"]);
        let plain = SiteRules::default();
        assert_ne!(
            digest(&one, &url, &plain).request,
            digest(&two, &url, &plain).request
        );
        let rules = super::super::learn::learn(&one, &two);
        let (a, b) = (digest(&one, &url, &rules), digest(&two, &url, &rules));
        assert_eq!(a, b);
        let other_time = page("9:00", &["a", "b", "c"]);
        assert_ne!(
            digest(&other_time, &url, &rules).request,
            a.request,
            "another shape stays"
        );
        let other_items = page("15:40:12", &["a", "b", "d"]);
        assert_ne!(
            digest(&other_items, &url, &rules).request,
            a.request,
            "other items stay"
        );
    }
}

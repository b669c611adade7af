//! A lenient HTML scanner for the page digests: start tags with their attributes, end tags
//! and text runs, in document order, each with the path of open elements it sits in.
//!
//! Not a conformant tokenizer (the link extractor uses one): it only has to cut two copies of
//! a template the same way. Comments are skipped, `<script>` and `<style>` contents are
//! reported as raw (the digests leave them out: they carry nonces, tokens and time stamps,
//! never text a person reads), and an element's path is the hash of its tag name, `id` and
//! `class` and those of its open ancestors, so that "the footer's `<span class="time">`" is
//! the same place on every page of a site.

use xxhash_rust::xxh3::xxh3_64_with_seed;

/// One attribute of a start tag, as written (names lower-cased by the scanner's caller).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Attr<'a> {
    /// The name, as written.
    pub(crate) name: &'a str,
    /// The value, as written (`""` when it has none); quotes removed.
    pub(crate) value: &'a str,
}

/// What the scanner reports.
pub(crate) trait Sink {
    /// A start tag; `path` is the element's own path (its ancestors' and its own signature);
    /// `opens`: an [`Sink::end`] follows (not a void or self-closed element).
    fn start(&mut self, name: &str, attrs: &[Attr<'_>], path: u64, opens: bool);
    /// An end tag of an open element whose path was `path`.
    fn end(&mut self, name: &str, path: u64);
    /// Text between tags, inside the element whose path is `path` (0: at the top).
    fn text(&mut self, run: &str, path: u64);
    /// The contents of a `<script>` or `<style>` element (left out of every digest).
    fn raw(&mut self, _run: &str, _path: u64) {}
}

/// Elements that never have an end tag.
fn is_void(name: &str) -> bool {
    matches!(
        name,
        "area"
            | "base"
            | "br"
            | "col"
            | "embed"
            | "hr"
            | "img"
            | "input"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
    )
}

/// Elements a start tag of the same name closes when open (`<p>`, `<li>`, …), as browsers do.
fn closes_itself(name: &str) -> bool {
    matches!(
        name,
        "p" | "li" | "dt" | "dd" | "tr" | "td" | "th" | "option"
    )
}

/// Deepest element nesting followed; deeper elements share their ancestor's path.
const MAX_DEPTH: usize = 256;

/// One open element.
#[derive(Debug, Clone)]
struct Open {
    name: String,
    path: u64,
}

/// Scans `html`, reporting to `sink`. `attrs` is a reused buffer.
pub(crate) fn scan(html: &str, sink: &mut impl Sink) {
    let bytes = html.as_bytes();
    let mut stack: Vec<Open> = Vec::new();
    let mut attrs: Vec<Attr<'_>> = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let Some(lt) = memchr::memchr(b'<', &bytes[pos..]).map(|i| pos + i) else {
            sink.text(&html[pos..], top(&stack));
            break;
        };
        let next = bytes.get(lt + 1).copied().unwrap_or(0);
        if next == b'!' || next == b'?' {
            if lt > pos {
                sink.text(&html[pos..lt], top(&stack));
            }
            pos = skip_markup_declaration(bytes, lt);
            continue;
        }
        if next == b'/' && bytes.get(lt + 2).is_some_and(u8::is_ascii_alphabetic) {
            if lt > pos {
                sink.text(&html[pos..lt], top(&stack));
            }
            let (name, end) = tag_name(html, lt + 2);
            pos = find_byte(bytes, end, b'>').map_or(bytes.len(), |i| i + 1);
            close(&mut stack, &name, sink);
            continue;
        }
        if !next.is_ascii_alphabetic() {
            // A lone `<` in text.
            sink.text(&html[pos..=lt], top(&stack));
            pos = lt + 1;
            continue;
        }
        if lt > pos {
            sink.text(&html[pos..lt], top(&stack));
        }
        let (name, after_name) = tag_name(html, lt + 1);
        attrs.clear();
        let (end, self_closing) = read_attrs(html, after_name, &mut attrs);
        pos = end;
        if closes_itself(&name) && stack.last().is_some_and(|o| o.name == name) {
            close(&mut stack, &name, sink);
        }
        let path = signature(top(&stack), &name, &attrs);
        let opens = !(is_void(&name) || self_closing) || name == "script" || name == "style";
        sink.start(
            &name,
            &attrs,
            path,
            opens && (stack.len() < MAX_DEPTH || name == "script" || name == "style"),
        );
        if !opens {
            continue;
        }
        if name == "script" || name == "style" {
            let close_at = find_end_tag(bytes, pos, name.as_bytes()).unwrap_or(bytes.len());
            sink.raw(&html[pos..close_at], path);
            sink.end(&name, path);
            pos = find_byte(bytes, close_at, b'>').map_or(bytes.len(), |i| i + 1);
            continue;
        }
        if stack.len() < MAX_DEPTH {
            stack.push(Open { name, path });
        }
    }
    while let Some(open) = stack.pop() {
        sink.end(&open.name, open.path);
    }
}

fn top(stack: &[Open]) -> u64 {
    stack.last().map_or(0, |o| o.path)
}

/// Closes the innermost open element named `name` and those inside it; an end tag that
/// matches nothing open is ignored.
fn close(stack: &mut Vec<Open>, name: &str, sink: &mut impl Sink) {
    let Some(at) = stack.iter().rposition(|o| o.name == name) else {
        return;
    };
    while stack.len() > at {
        if let Some(open) = stack.pop() {
            sink.end(&open.name, open.path);
        }
    }
}

/// An element's path: its parent's, its tag name, `id` and `class`.
fn signature(parent: u64, name: &str, attrs: &[Attr<'_>]) -> u64 {
    let mut key = String::with_capacity(name.len() + 16);
    key.push_str(name);
    for a in attrs {
        if a.name.eq_ignore_ascii_case("id") || a.name.eq_ignore_ascii_case("class") {
            key.push('\u{1}');
            key.push_str(a.value.trim());
        }
    }
    xxh3_64_with_seed(key.as_bytes(), parent)
}

/// The lower-cased tag name starting at `from`, and where it ends.
fn tag_name(html: &str, from: usize) -> (String, usize) {
    let bytes = html.as_bytes();
    let mut end = from;
    while end < bytes.len()
        && !bytes[end].is_ascii_whitespace()
        && !matches!(bytes[end], b'>' | b'/')
    {
        end += 1;
    }
    (html[from..end].to_ascii_lowercase(), end)
}

/// Reads attributes up to the tag's `>`: where the tag ends, and whether it closed itself.
fn read_attrs<'a>(html: &'a str, mut i: usize, attrs: &mut Vec<Attr<'a>>) -> (usize, bool) {
    let bytes = html.as_bytes();
    loop {
        while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b'/') {
            i += 1;
        }
        if i >= bytes.len() {
            return (bytes.len(), false);
        }
        if bytes[i] == b'>' {
            return (i + 1, i > 0 && bytes[i - 1] == b'/');
        }
        let start = i;
        while i < bytes.len()
            && !bytes[i].is_ascii_whitespace()
            && !matches!(bytes[i], b'>' | b'=' | b'/')
        {
            i += 1;
        }
        let name = &html[start..i];
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value = "";
        if i < bytes.len() && bytes[i] == b'=' {
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            match bytes.get(i) {
                Some(&q @ (b'"' | b'\'')) => {
                    let from = i + 1;
                    let to = find_byte(bytes, from, q).unwrap_or(bytes.len());
                    value = &html[from..to];
                    i = (to + 1).min(bytes.len());
                }
                Some(_) => {
                    let from = i;
                    while i < bytes.len() && !bytes[i].is_ascii_whitespace() && bytes[i] != b'>' {
                        i += 1;
                    }
                    value = &html[from..i];
                }
                None => {}
            }
        }
        if !name.is_empty() {
            attrs.push(Attr { name, value });
        } else {
            i += 1;
        }
    }
}

fn find_byte(bytes: &[u8], from: usize, b: u8) -> Option<usize> {
    memchr::memchr(b, bytes.get(from..)?).map(|i| from + i)
}

/// Where `<!-- … -->`, `<!DOCTYPE …>` or `<? … >` starting at `lt` ends.
fn skip_markup_declaration(bytes: &[u8], lt: usize) -> usize {
    if bytes[lt..].starts_with(b"<!--") {
        return memchr::memmem::find(&bytes[lt + 4..], b"-->")
            .map_or(bytes.len(), |i| lt + 4 + i + 3);
    }
    find_byte(bytes, lt, b'>').map_or(bytes.len(), |i| i + 1)
}

/// Where `</name` (any case) starts at or after `from`.
fn find_end_tag(bytes: &[u8], from: usize, name: &[u8]) -> Option<usize> {
    let mut at = from;
    while let Some(i) = memchr::memmem::find(bytes.get(at..)?, b"</") {
        let tag = at + i;
        let candidate = bytes.get(tag + 2..tag + 2 + name.len())?;
        if candidate.eq_ignore_ascii_case(name) {
            return Some(tag);
        }
        at = tag + 2;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Log(Vec<String>);

    impl Sink for Log {
        fn start(&mut self, name: &str, attrs: &[Attr<'_>], _path: u64, _opens: bool) {
            let a: Vec<String> = attrs
                .iter()
                .map(|a| format!("{}={}", a.name, a.value))
                .collect();
            self.0.push(format!("<{name} {}>", a.join(" ")));
        }
        fn end(&mut self, name: &str, _path: u64) {
            self.0.push(format!("</{name}>"));
        }
        fn text(&mut self, run: &str, _path: u64) {
            self.0.push(format!("'{run}'"));
        }
        fn raw(&mut self, run: &str, _path: u64) {
            self.0.push(format!("raw'{run}'"));
        }
    }

    fn events(html: &str) -> Vec<String> {
        let mut log = Log::default();
        scan(html, &mut log);
        log.0
    }

    #[test]
    fn tags_attributes_text_and_raw_contents() {
        let got = events(
            "<!doctype html><P class=x id='y' hidden>a<b>c</b><!-- gone --><br/>\
             <script nonce=\"n\">if (a<b) {}</script>d</p>",
        );
        assert_eq!(
            got,
            [
                "<p class=x id=y hidden=>",
                "'a'",
                "<b >",
                "'c'",
                "</b>",
                "<br >",
                "<script nonce=n>",
                "raw'if (a<b) {}'",
                "</script>",
                "'d'",
                "</p>",
            ]
        );
    }

    #[test]
    fn unclosed_and_stray_tags_still_give_a_stable_cut() {
        assert_eq!(
            events("<ul><li>1<li>2</ul></div>x < y"),
            [
                "<ul >", "<li >", "'1'", "</li>", "<li >", "'2'", "</li>", "</ul>", "'x <'", "' y'"
            ]
        );
    }

    #[derive(Default)]
    struct Paths(Vec<(String, u64)>);

    impl Sink for Paths {
        fn start(&mut self, _: &str, _: &[Attr<'_>], _: u64, _: bool) {}
        fn end(&mut self, _: &str, _: u64) {}
        fn text(&mut self, run: &str, path: u64) {
            self.0.push((run.to_owned(), path));
        }
    }

    #[test]
    fn a_path_names_the_place_not_the_page() {
        let mut one = Paths::default();
        scan(
            "<body><div class=foot><span>1</span></div><p>2</p></body>",
            &mut one,
        );
        let mut two = Paths::default();
        scan(
            "<body><p>x</p><div class=foot><span>9</span></div></body>",
            &mut two,
        );
        assert_eq!(one.0[0].1, two.0[1].1, "the footer's span is one place");
        assert_ne!(one.0[0].1, one.0[1].1);
    }
}

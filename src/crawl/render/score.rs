//! Whether the HTML a server sent looks built by scripts (SPEC §18): a cheap look at the bytes
//! already downloaded, no parse of its own. `Render = no` names the sites whose home page looks
//! so; `Render = auto` renders such a page even where its site's sample showed no difference.

use memchr::memmem;

/// What a page's HTML says about its scripts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScriptSigns {
    /// `<script` elements.
    pub scripts: usize,
    /// Bytes between `<script…>` and `</script>` (inline code, JSON state).
    pub script_bytes: usize,
    /// An application's mount point left empty: `<div id="root"></div>`, `__next`, `__nuxt`,
    /// `app`, `<app-root></app-root>`.
    pub empty_root: bool,
    /// A `<noscript>` asking for JavaScript.
    pub noscript_asks: bool,
    /// Inline code that makes elements (`createElement`, `innerHTML`, `insertAdjacentHTML`,
    /// `appendChild`).
    pub builds_elements: bool,
}

/// Mount points single-page frameworks render into.
const ROOTS: &[&[u8]] = &[
    b"id=\"root\"",
    b"id=\"app\"",
    b"id=\"__next\"",
    b"id=\"__nuxt\"",
    b"id=\"svelte\"",
    b"id='root'",
    b"id='app'",
    b"<app-root",
];

const BUILDERS: &[&[u8]] = &[
    b"createElement(",
    b"innerHTML",
    b"insertAdjacentHTML",
    b"appendChild(",
];

impl ScriptSigns {
    /// Reads the signs of `html` (bytes as sent; ASCII markers, any charset that keeps ASCII).
    /// A page without `<script` (or `<SCRIPT`) has none: what only scripts make needs a script,
    /// and that look costs two searches, no copy of the page.
    pub fn of(html: &[u8]) -> Self {
        if memmem::find(html, b"<script").is_none() && memmem::find(html, b"<SCRIPT").is_none() {
            return ScriptSigns::default();
        }
        let lower = html.to_ascii_lowercase();
        let mut signs = ScriptSigns::default();
        let mut at = 0;
        while let Some(i) = memmem::find(&lower[at..], b"<script") {
            let start = at + i;
            signs.scripts += 1;
            let Some(open_end) = memchr::memchr(b'>', &lower[start..]).map(|e| start + e + 1)
            else {
                break;
            };
            let end =
                memmem::find(&lower[open_end..], b"</script").map_or(lower.len(), |e| open_end + e);
            let code = &html[open_end..end];
            signs.script_bytes += code.len();
            signs.builds_elements |= BUILDERS.iter().any(|b| memmem::find(code, b).is_some());
            at = end;
        }
        signs.empty_root = ROOTS.iter().any(|root| empty_element_at(&lower, root));
        signs.noscript_asks = noscript_asks(&lower);
        signs
    }

    /// What made the page look script-built, in words (for the console).
    pub fn why(&self) -> &'static str {
        if self.empty_root {
            "an empty application root"
        } else if self.noscript_asks {
            "a noscript asking for JavaScript"
        } else {
            "many script bytes for few links"
        }
    }

    /// Whether the page looks built by scripts: an empty mount point, a `<noscript>` asking for
    /// JavaScript, or many script bytes (over 20,000) or scripts (3 or more) for fewer than 5
    /// links.
    pub fn looks_script_built(&self, links: usize) -> bool {
        self.empty_root
            || self.noscript_asks
            || (links < 5 && (self.script_bytes > 20_000 || self.scripts >= 3))
    }
}

/// Whether an element whose start tag holds `marker` closes right after it opens (only
/// whitespace between).
fn empty_element_at(lower: &[u8], marker: &[u8]) -> bool {
    let marker = marker.to_ascii_lowercase();
    let mut at = 0;
    while let Some(i) = memmem::find(&lower[at..], &marker) {
        let from = at + i;
        let Some(end) = memchr::memchr(b'>', &lower[from..]).map(|e| from + e + 1) else {
            return false;
        };
        let rest = &lower[end..];
        let first = rest.iter().position(|b| !b.is_ascii_whitespace());
        if first.is_none_or(|f| rest[f..].starts_with(b"</")) {
            return true;
        }
        at = end;
    }
    false
}

/// Whether a `<noscript>` says the page needs JavaScript.
fn noscript_asks(lower: &[u8]) -> bool {
    let mut at = 0;
    while let Some(i) = memmem::find(&lower[at..], b"<noscript") {
        let start = at + i;
        let end = memmem::find(&lower[start..], b"</noscript").map_or(lower.len(), |e| start + e);
        let text = &lower[start..end];
        if memmem::find(text, b"javascript").is_some()
            && [&b"enable"[..], b"need", b"require", b"turn on", b"must"]
                .iter()
                .any(|w| memmem::find(text, w).is_some())
        {
            return true;
        }
        at = end;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_application_shell_looks_script_built() {
        let spa = ScriptSigns::of(
            b"<html><body><div id=\"root\"></div><script src=\"/app.js\"></script></body></html>",
        );
        assert!(spa.empty_root && spa.looks_script_built(0));
        let next = ScriptSigns::of(b"<div id='app'>\n  </div><script src=a.js></script>");
        assert!(next.empty_root);
        let asks = ScriptSigns::of(
            b"<noscript>You need to enable JavaScript.</noscript><script></script>",
        );
        assert!(asks.noscript_asks && asks.looks_script_built(30));
    }

    #[test]
    fn a_server_rendered_page_does_not() {
        let page = ScriptSigns::of(
            b"<div id=\"root\"><a href=\"/a\">a</a></div><noscript><img src=x></noscript>\
              <script>var x = 1;</script>",
        );
        assert!(!page.empty_root && !page.noscript_asks);
        assert_eq!((page.scripts, page.script_bytes), (1, 10));
        assert!(!page.looks_script_built(1));
        assert!(!ScriptSigns::of(b"<p>plain</p>").looks_script_built(0));
        // No script: no sign, whatever else the page says.
        let shell =
            ScriptSigns::of(b"<div id=\"root\"></div><noscript>enable JavaScript</noscript>");
        assert_eq!(shell, ScriptSigns::default());
    }

    #[test]
    fn scripts_that_build_elements_and_heavy_scripts_are_seen() {
        let boxes = ScriptSigns::of(
            b"<SCRIPT>document.body.appendChild(document.createElement('a'))</SCRIPT>",
        );
        assert!(boxes.builds_elements);
        let heavy = format!("<script>{}</script>", "x".repeat(25_000));
        assert!(ScriptSigns::of(heavy.as_bytes()).looks_script_built(2));
        assert!(!ScriptSigns::of(heavy.as_bytes()).looks_script_built(40));
    }
}

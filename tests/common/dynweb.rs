//! Sites that never serve the same bytes twice (issue 47, SPEC §14): the fixture web of the
//! one-page-one-node tests. Every site has the same true pages — the home page, a news
//! directory with six articles, an about page, and two product pages that differ in one price
//! (near twins: they must stay two nodes) — and each turns on some of the ways real sites make
//! one page many URLs:
//!
//! - `volatile`: a CSRF meta tag, a script nonce, a hidden form token, "Generated at HH:MM:SS
//!   in N ms, request <id>" in the footer, and a "related" box whose links come in another
//!   order on every response;
//! - `own_url`: the page writes the address it was asked for (canonical, `og:url`, a permalink
//!   line, a share link carrying it percent-encoded, a form posting back to it);
//! - `aliases`: links to the same pages with tracking parameters, a session id, `index.html`,
//!   a trailing slash, another case of the path (the server answers them all as one page);
//! - `print`: every article links its print version (`?print=1`, another template, same text);
//! - `soft404`: links to paths that do not exist, answered 200 with a "not found" page that
//!   names the path.
//!
//! The model ([`DynSite::true_pages`], [`DynSite::soft_404s`]) is what a person counts.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rccrawler::base::loopback::{Request, Resp, Route};

use super::TestWeb;

/// Which cases a site has.
#[derive(Debug, Clone, Copy, Default)]
pub struct DynSite {
    pub volatile: bool,
    pub own_url: bool,
    pub aliases: bool,
    pub print: bool,
    pub soft404: bool,
}

/// Articles per site.
pub const ARTICLES: u32 = 6;

const WORDS: &[&str] = &[
    "river", "stone", "garden", "window", "letter", "market", "orchard", "harbor", "lantern",
    "meadow", "violin", "compass", "thunder", "pepper", "canvas", "silver", "ladder", "pocket",
];

/// A page's own words: a sentence no other page has.
fn text_of(key: &str) -> String {
    let mut h: u64 = 1469598103934665603;
    for b in key.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(1099511628211);
    }
    let words: Vec<&str> = (0..24)
        .map(|i| WORDS[((h >> (i % 8 * 7)) as usize + i * 5) % WORDS.len()])
        .collect();
    format!("This is the {key} page. {}.", words.join(" "))
}

impl DynSite {
    /// Every case at once.
    pub fn mixed() -> Self {
        DynSite {
            volatile: true,
            own_url: true,
            aliases: true,
            print: true,
            soft404: true,
        }
    }

    /// The pages a person counts, as paths.
    pub fn true_pages(&self) -> Vec<String> {
        let mut p = vec!["/".to_owned(), "/news/".to_owned(), "/about".to_owned()];
        p.extend((1..=ARTICLES).map(|i| format!("/news/{i}")));
        p.push("/p/1".into());
        p.push("/p/2".into());
        p
    }

    /// The links to paths that do not exist (soft 404s when `soft404`).
    pub fn soft_404s(&self) -> Vec<String> {
        if !self.soft404 {
            return Vec::new();
        }
        let mut p = vec!["/missing-page".to_owned()];
        p.extend((1..=ARTICLES).map(|i| format!("/news/{i}/old-comments")));
        p
    }

    /// Installs the site on `host` of `web`.
    pub fn install(self, web: &TestWeb, host: &str) {
        let port = web.port();
        let host_owned = host.to_owned();
        let counter = Arc::new(AtomicU64::new(1));
        web.server.route_prefix(
            host,
            "/",
            Route::Generated(Arc::new(move |req: &Request| {
                let n = counter.fetch_add(1, Ordering::SeqCst);
                self.answer(req, &host_owned, port, n)
            })),
        );
    }

    /// The true page a URL path (with its query) is, as the server answers it (`None`: not a
    /// page; a print version is its page).
    pub fn page_of(&self, target: &str) -> Option<String> {
        self.resolve(target).0
    }

    /// The page a request target names: its canonical path and whether the print version is
    /// asked for (`None`: no such page).
    fn resolve(&self, target: &str) -> (Option<String>, bool) {
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        let mut print = false;
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let key = pair.split('=').next().unwrap_or("");
            if key == "print" && self.print {
                print = true;
            } else if !(self.aliases && (key.starts_with("utm_") || key == "sid")) {
                return (None, false);
            }
        }
        let mut path = path.to_owned();
        if self.aliases {
            path = path.to_lowercase();
            if let Some(dir) = path.strip_suffix("index.html") {
                path = dir.to_owned();
            }
            if path.len() > 1 && path.ends_with('/') && path != "/news/" {
                path.pop();
            }
        }
        let known = self.true_pages().contains(&path);
        (known.then_some(path), print)
    }

    /// The body the server gives for `target` on `host` as its `n`th answer (tests compare
    /// two answers).
    pub fn render(&self, target: &str, host: &str, port: u16, n: u64) -> String {
        let own = format!("http://{host}:{port}{target}");
        match self.resolve(target) {
            (Some(path), false) => self.page(&path, &own, n),
            (Some(path), true) => self.print_page(&path, &own, n),
            (None, _) => self.not_found(target, &own, n),
        }
    }

    fn answer(&self, req: &Request, host: &str, port: u16, n: u64) -> Resp {
        if req.target == "/robots.txt" {
            return Resp::new(404, "text/plain", "none");
        }
        let own = format!("http://{host}:{port}{}", req.target);
        match self.resolve(&req.target) {
            (Some(path), false) => Resp::html(self.page(&path, &own, n)),
            (Some(path), true) => Resp::html(self.print_page(&path, &own, n)),
            (None, _) if self.soft404 => Resp::html(self.not_found(&req.target, &own, n)),
            (None, _) => Resp::new(404, "text/html", "<h1>Not Found</h1>"),
        }
    }

    fn title(path: &str) -> String {
        match path {
            "/" => "Home".into(),
            "/news/" => "News".into(),
            "/about" => "About us".into(),
            p => p.trim_start_matches('/').replace('/', " "),
        }
    }

    /// Links of a page, as written (aliases included).
    fn links(&self, path: &str, n: u64) -> Vec<(String, String)> {
        let mut l: Vec<(String, String)> = Vec::new();
        let mut add = |href: String, text: &str| l.push((href, text.to_owned()));
        match path {
            "/" => {
                add("/news/".into(), "News");
                add("/about".into(), "About");
                add("/p/1".into(), "Product one");
                add("/p/2".into(), "Product two");
                if self.aliases {
                    add("/news/1?utm_source=home&utm_medium=web".into(), "Top story");
                    add("/index.html".into(), "Home again");
                    add("/About".into(), "About (old link)");
                    add(
                        format!("/p/1?sid={:016x}{n:08x}", 0xfeed_beef_u64 * n),
                        "Product (session)",
                    );
                }
                if self.soft404 {
                    add("/missing-page".into(), "A page that is gone");
                }
            }
            "/news/" => {
                for i in 1..=ARTICLES {
                    add(format!("/news/{i}"), &format!("Article {i}"));
                }
                if self.aliases {
                    add("/news/index.html".into(), "All news");
                }
            }
            "/about" => {
                add("/".into(), "Home");
                if self.aliases {
                    add("/about/".into(), "About");
                }
            }
            "/p/1" => add("/p/2".into(), "The other product"),
            "/p/2" => add("/p/1".into(), "The other product"),
            p => {
                let i: u32 = p.trim_start_matches("/news/").parse().unwrap_or(1);
                add("/news/".into(), "Back to the news");
                add(format!("/news/{}", i % ARTICLES + 1), "Next article");
                if self.print {
                    add(format!("/news/{i}?print=1"), "Print");
                }
                if self.aliases {
                    add(format!("/news/{i}/"), "This article");
                    add(format!("/news/{i}?utm_campaign=share"), "Share link");
                }
                if self.soft404 {
                    add(format!("/news/{i}/old-comments"), "Old comments");
                }
            }
        }
        l
    }

    fn related(&self, path: &str, n: u64) -> String {
        let Some(i) = path
            .strip_prefix("/news/")
            .and_then(|s| s.parse::<u32>().ok())
        else {
            return String::new();
        };
        let mut items: Vec<u32> = (1..=ARTICLES).filter(|&j| j != i).take(4).collect();
        if self.volatile {
            let k = items.len();
            items.rotate_left((n as usize) % k);
            if n.is_multiple_of(2) {
                items.swap(0, k - 1);
            }
        }
        let lis: String = items
            .iter()
            .map(|j| format!("<li><a href=\"/news/{j}\">Read article {j}</a></li>"))
            .collect();
        format!("<aside><h2>Related</h2><ul class=\"related\">{lis}</ul></aside>")
    }

    fn head(&self, title: &str, own: &str, n: u64) -> String {
        let mut h =
            format!("<!doctype html><html><head><meta charset=\"utf-8\"><title>{title}</title>");
        if self.volatile {
            h += &format!(
                "<meta name=\"csrf-token\" content=\"{:032x}\"><script nonce=\"{:x}{n}\">window.rid = '{n}';</script>",
                u128::from(n) * 0x9e37_79b9_7f4a_7c15,
                n * 7919
            );
        }
        if self.own_url {
            h += &format!(
                "<link rel=\"canonical\" href=\"{own}\"><meta property=\"og:url\" content=\"{own}\">"
            );
        }
        h + "</head>"
    }

    fn footer(&self, own: &str, n: u64) -> String {
        let mut f = String::from("<footer>");
        if self.volatile {
            let secs = 36_000 + n * 7;
            f += &format!(
                "<p class=\"stamp\">Generated at {:02}:{:02}:{:02} in {} ms, request {:016x}</p>\
                 <form method=\"post\" action=\"/subscribe\"><input type=\"hidden\" name=\"csrf\" value=\"{:032x}\"><button>Subscribe</button></form>",
                secs / 3600 % 24,
                secs / 60 % 60,
                secs % 60,
                3 + n % 40,
                n.wrapping_mul(0x2545_f491_4f6c_dd1d),
                u128::from(n) * 0x1234_5678_9abc_def1
            );
        }
        if self.own_url {
            let encoded: String = own
                .bytes()
                .map(|b| {
                    if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                        char::from(b).to_string()
                    } else {
                        format!("%{b:02X}")
                    }
                })
                .collect();
            let path = own
                .splitn(4, '/')
                .nth(3)
                .map(|p| format!("/{p}"))
                .unwrap_or_default();
            f += &format!(
                "<p>Permalink: {own}</p><a href=\"https://social.example/share?u={encoded}\">Share</a>\
                 <form method=\"post\" action=\"{path}\"><button>Like</button></form>"
            );
        }
        f + "<p>Example site, all rights reserved.</p></footer>"
    }

    fn page(&self, path: &str, own: &str, n: u64) -> String {
        let title = Self::title(path);
        let mut body = format!(
            "<body><header><nav><ul class=\"menu\"><li><a href=\"/\">Home</a></li>\
             <li><a href=\"/news/\">News</a></li><li><a href=\"/about\">About</a></li></ul></nav></header>\
             <main><article><h1>{title}</h1><p>{}</p>",
            text_of(path)
        );
        if let Some(i) = path.strip_prefix("/p/") {
            let price = if i == "1" { "19.99" } else { "29.99" };
            body += &format!("<p>Price: {price} EUR</p>");
        }
        body += "</article><ul class=\"links\">";
        for (href, text) in self.links(path, n) {
            body += &format!(
                "<li><a href=\"{}\">{text}</a></li>",
                href.replace('&', "&amp;")
            );
        }
        body += "</ul>";
        body += &self.related(path, n);
        body += "</main>";
        body += &self.footer(own, n);
        format!("{}{body}</body></html>", self.head(&title, own, n))
    }

    fn print_page(&self, path: &str, own: &str, n: u64) -> String {
        let title = Self::title(path);
        format!(
            "<!doctype html><html><head><title>{title} (print)</title></head><body>\
             <article><h1>{title}</h1><p>{}</p></article>\
             <p class=\"print-note\">Printed from {own} at request {n}</p></body></html>",
            text_of(path)
        )
    }

    fn not_found(&self, target: &str, own: &str, n: u64) -> String {
        let path = target.split('?').next().unwrap_or(target);
        format!(
            "{}<body><main><h1>Page not found</h1><p>Sorry, the page {path} does not exist \
             on this site. It may have moved, or the link you followed may be wrong.</p>\
             <p><a href=\"/\">Go to the home page</a></p></main>{}</body></html>",
            self.head("Not found", own, n),
            self.footer(own, n)
        )
    }
}

//! Servers that need a cookie jar (SPEC §14, issue 47 case 7):
//!
//! - [`install_wall`]: a cookie wall. A request without the `wall=passed` cookie is redirected
//!   to `/check?to=<path>`, which sets the cookie and redirects back; a client that drops
//!   cookies goes round in a loop. Behind it, a five-page site.
//! - [`JavaSite`]: a Java-style server. A request without a known `JSESSIONID` cookie opens a
//!   new session: the answer sets the cookie and writes `;jsessionid=<id>` into every link
//!   (and the server answers `/x;jsessionid=<any>` as `/x`). A client that keeps cookies gets
//!   plain links from its second request on. 21 pages: the home page, four sections, four
//!   pages in each; every page links its parent (plain, as a session-less menu would).
//!
//! - [`UrlVisitSite`]: a server that keeps a visit in the URL, under a name of its own: every
//!   internal link carries `?visit=<id>`; a request without one starts a new visit. A nonce
//!   makes every answer's bytes new. Its aliases (`/?visit=<id>` of `/`) are named `session id`
//!   only when the crawler detects the parameter from the home page's two copies.
//!
//! None of the sites serves robots.txt (404): a cookie wall in front of robots.txt is a separate
//! question of RFC 9309.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rccrawler::base::loopback::{Request, Resp, Route};

use super::TestWeb;

/// The pages behind the wall, with their links.
const WALL_PAGES: &[(&str, &[&str])] = &[
    ("/", &["/a", "/b", "/c"]),
    ("/a", &["/d", "/"]),
    ("/b", &["/"]),
    ("/c", &["/b"]),
    ("/d", &[]),
];

fn has_cookie(req: &Request, pair: &str) -> bool {
    req.header("cookie")
        .is_some_and(|c| c.split(';').any(|p| p.trim() == pair))
}

/// Installs the cookie wall on `host`.
pub fn install_wall(web: &TestWeb, host: &str) {
    web.server.route_prefix(
        host,
        "/",
        Route::Generated(Arc::new(|req: &Request| {
            if req.target == "/robots.txt" {
                return Resp::new(404, "text/plain", "none");
            }
            if let Some(to) = req.target.strip_prefix("/check?to=") {
                return Resp::redirect(302, to).header("Set-Cookie", "wall=passed; Path=/");
            }
            if !has_cookie(req, "wall=passed") {
                return Resp::redirect(302, &format!("/check?to={}", req.target));
            }
            match WALL_PAGES.iter().find(|(p, _)| *p == req.target) {
                Some((path, links)) => {
                    let a: String = links
                        .iter()
                        .map(|l| format!("<a href=\"{l}\">to {l}</a> "))
                        .collect();
                    Resp::html(format!(
                        "<html><head><title>wall {path}</title></head><body>\
                         <p>The {path} page behind the wall.</p>{a}</body></html>"
                    ))
                }
                None => Resp::new(404, "text/html", "<p>no</p>"),
            }
        })),
    );
}

/// The pages behind the wall, as paths.
pub fn wall_pages() -> Vec<&'static str> {
    WALL_PAGES.iter().map(|(p, _)| *p).collect()
}

/// The Java-style site; counts the sessions it opened.
#[derive(Clone, Default)]
pub struct JavaSite {
    sessions: Arc<AtomicU64>,
}

impl JavaSite {
    /// Sessions opened so far (answers that set a new `JSESSIONID`).
    pub fn sessions(&self) -> u64 {
        self.sessions.load(Ordering::SeqCst)
    }

    /// The 21 pages, as paths.
    pub fn pages() -> Vec<String> {
        let mut p = vec!["/".to_owned()];
        for s in 1..=4 {
            p.push(format!("/s{s}"));
            p.extend((1..=4).map(|i| format!("/s{s}/{i}")));
        }
        p
    }

    /// The links of a page (plain paths), its parent first.
    fn links(path: &str) -> Vec<String> {
        if path == "/" {
            return (1..=4).map(|s| format!("/s{s}")).collect();
        }
        match path[1..].split_once('/') {
            None => {
                let mut l = vec!["/".to_owned()];
                l.extend((1..=4).map(|i| format!("{path}/{i}")));
                l
            }
            Some((section, _)) => vec![format!("/{section}")],
        }
    }

    /// Installs the site on `host`.
    pub fn install(&self, web: &TestWeb, host: &str) {
        let site = self.clone();
        web.server.route_prefix(
            host,
            "/",
            Route::Generated(Arc::new(move |req: &Request| site.answer(req))),
        );
    }

    fn answer(&self, req: &Request) -> Resp {
        if req.target == "/robots.txt" {
            return Resp::new(404, "text/plain", "none");
        }
        let path = match req.target.to_ascii_lowercase().find(";jsessionid=") {
            Some(i) => &req.target[..i],
            None => req.target.as_str(),
        };
        if !Self::pages().iter().any(|p| p == path) {
            return Resp::new(404, "text/html", "<p>no</p>");
        }
        let opened = self.sessions();
        let known = req
            .header("cookie")
            .and_then(|c| {
                c.split(';')
                    .find_map(|p| p.trim().strip_prefix("JSESSIONID="))
            })
            .and_then(|id| id.parse::<u64>().ok())
            .is_some_and(|id| id >= 1 && id <= opened);
        let (suffix, set) = if known {
            (String::new(), None)
        } else {
            let id = self.sessions.fetch_add(1, Ordering::SeqCst) + 1;
            (
                format!(";jsessionid={id}"),
                Some(format!("JSESSIONID={id}; Path=/; HttpOnly")),
            )
        };
        let links = Self::links(path);
        let a: String = links
            .iter()
            .enumerate()
            .map(|(i, l)| {
                // The parent link is a plain menu link; the others carry the session.
                let s = if i == 0 && path != "/" { "" } else { &suffix };
                format!("<a href=\"{l}{s}\">to {l}</a> ")
            })
            .collect();
        let resp = Resp::html(format!(
            "<html><head><title>java {path}</title></head><body>\
             <p>The {path} page of the Java site.</p>{a}</body></html>"
        ));
        match set {
            Some(cookie) => resp.header("Set-Cookie", &cookie),
            None => resp,
        }
    }
}

/// The site that keeps a visit in its URLs; counts the visits it started.
#[derive(Clone, Default)]
pub struct UrlVisitSite {
    visits: Arc<AtomicU64>,
    answers: Arc<AtomicU64>,
}

impl UrlVisitSite {
    /// Its five pages, as paths.
    pub fn pages() -> Vec<&'static str> {
        vec!["/", "/a", "/b", "/c", "/d"]
    }

    fn links(path: &str) -> &'static [&'static str] {
        match path {
            "/" => &["/a", "/b", "/c", "/"],
            "/a" => &["/d", "/"],
            "/b" | "/c" => &["/", "/a"],
            _ => &["/"],
        }
    }

    /// Installs the site on `host`.
    pub fn install(&self, web: &TestWeb, host: &str) {
        let site = self.clone();
        web.server.route_prefix(
            host,
            "/",
            Route::Generated(Arc::new(move |req: &Request| site.answer(req))),
        );
    }

    fn answer(&self, req: &Request) -> Resp {
        if req.target == "/robots.txt" {
            return Resp::new(404, "text/plain", "none");
        }
        let (path, query) = req.target.split_once('?').unwrap_or((&req.target, ""));
        if !Self::pages().contains(&path) {
            return Resp::new(404, "text/html", "<p>no</p>");
        }
        let visit = query
            .split('&')
            .find_map(|p| p.strip_prefix("visit="))
            .map(str::to_owned)
            .unwrap_or_else(|| {
                let n = self.visits.fetch_add(1, Ordering::SeqCst) + 1;
                format!("{:012x}", n * 0x9e37_79b9)
            });
        let n = self.answers.fetch_add(1, Ordering::SeqCst);
        let a: String = Self::links(path)
            .iter()
            .map(|l| format!("<a href=\"{l}?visit={visit}\">to {l}</a> "))
            .collect();
        Resp::html(format!(
            "<html><head><title>visit {path}</title>\
             <script nonce=\"{:x}\">var n = 1;</script></head><body>\
             <p>The {path} page of the site that keeps a visit in its links.</p>{a}</body></html>",
            n * 7919 + 13
        ))
    }
}

//! A generated web: pages /p/N.html with random links to pages, redirect aliases
//! (/r/N → /p/N.html), same-content copies (/d/N.html), missing pages and external links.
//! Deterministic for a seed; every answer can be delayed.

use std::sync::Arc;
use std::time::Duration;

use rccrawler::base::loopback::{Request, Resp, Route};

use super::TestWeb;

/// A small deterministic generator (xorshift64*), so the web is the same in every run.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// How the generated web answers.
pub struct WebSpec {
    pub host: &'static str,
    pub pages: u64,
    pub seed: u64,
    /// Delay of every answer, plus 0–3 ms varying by URL.
    pub delay: Duration,
    /// Targets answered slowly, with their delay.
    pub slow: Vec<(&'static str, Duration)>,
}

/// The links of every generated page, in order.
pub fn links(pages: u64, seed: u64) -> Vec<Vec<String>> {
    let mut rng = Rng(seed);
    (0..pages)
        .map(|_| {
            let n = 2 + rng.below(7);
            (0..n)
                .map(|_| {
                    let j = rng.below(pages);
                    match rng.below(10) {
                        0 => format!("/r/{j}"),
                        1 => format!("/d/{j}.html"),
                        2 => format!("/missing/{j}"),
                        3 => format!("http://b.test/ext/{j}"),
                        _ => format!("/p/{j}.html"),
                    }
                })
                .collect()
        })
        .collect()
}

/// The page a link of the generated web shows (`None`: not a page), by page number;
/// `u64::MAX` is the home page.
pub fn content_of(path: &str) -> Option<u64> {
    if path == "/" {
        return Some(u64::MAX);
    }
    let num = |s: &str| s.trim_end_matches(".html").parse::<u64>().ok();
    path.strip_prefix("/p/")
        .and_then(num)
        .or_else(|| path.strip_prefix("/d/").and_then(num))
        .or_else(|| path.strip_prefix("/r/").and_then(num))
}

const HOME_LINKS: [&str; 3] = ["/p/0.html", "/p/1.html", "/d/2.html"];

/// What a crawl of the generated web must find, computed independently of the crawler from a
/// literal reading of SPEC §2: a URL is fetched when its level (its shallowest linking page's
/// level + 1, or the level of a redirect to it) is at most `max_level`; pages with equal content (aliases, redirects) are one
/// node whose level is its shallowest alias's; an arc counts each link whose URL was fetched
/// and shows a node (links from pages at `max_level` to URLs not fetched give none, since a
/// crawler cannot know what they show). Returns levels by content and arc weights by
/// (source, target) content.
pub fn expected_graph(
    pages: u64,
    seed: u64,
    max_level: u32,
) -> (
    std::collections::BTreeMap<u64, u32>,
    std::collections::BTreeMap<(u64, u64), u32>,
) {
    use std::collections::{BTreeMap, VecDeque};
    let links = links(pages, seed);
    let page_links = |c: u64| -> Vec<String> {
        if c == u64::MAX {
            HOME_LINKS.iter().map(|s| s.to_string()).collect()
        } else {
            links[c as usize].clone()
        }
    };
    let mut level = BTreeMap::new();
    let mut url_level: BTreeMap<String, u32> = BTreeMap::new();
    let mut queue = VecDeque::new();
    level.insert(u64::MAX, 0u32);
    queue.push_back(u64::MAX);
    while let Some(c) = queue.pop_front() {
        let l = level[&c];
        for u in page_links(c) {
            // A redirect's target is fetched with it, at the redirect's level.
            let target = u.strip_prefix("/r/").map(|j| format!("/p/{j}.html"));
            for v in std::iter::once(u.clone()).chain(target.filter(|_| l < max_level)) {
                let e = url_level.entry(v).or_insert(l + 1);
                *e = (*e).min(l + 1);
            }
            if l < max_level
                && let Some(t) = content_of(&u)
                && let std::collections::btree_map::Entry::Vacant(e) = level.entry(t)
            {
                e.insert(l + 1);
                queue.push_back(t);
            }
        }
    }
    let mut arcs = BTreeMap::new();
    for &c in level.keys() {
        for u in page_links(c) {
            if let Some(t) = content_of(&u).filter(|t| level.contains_key(t))
                && url_level[&u] <= max_level
            {
                *arcs.entry((c, t)).or_insert(0) += 1;
            }
        }
    }
    (level, arcs)
}

/// Installs the generated web on `web`.
pub fn install(web: &TestWeb, spec: WebSpec) {
    let bodies: Vec<String> = links(spec.pages, spec.seed)
        .into_iter()
        .enumerate()
        .map(|(i, ls)| {
            let mut html = format!("<title>page {i}</title>");
            for href in ls {
                html.push_str(&format!("<a href=\"{href}\">link</a>\n"));
            }
            html
        })
        .collect();
    let bodies = Arc::new(bodies);
    let home: String = HOME_LINKS
        .iter()
        .map(|h| format!("<a href=\"{h}\">start</a>"))
        .collect();
    web.page(spec.host, "/", &home);
    let (base, slow) = (spec.delay, Arc::new(spec.slow));
    let serve = move |req: &Request| {
        let t = &req.target;
        let delay = slow
            .iter()
            .find(|(s, _)| s == t)
            .map(|(_, d)| *d)
            .unwrap_or_else(|| {
                base + Duration::from_millis(t.bytes().map(u64::from).sum::<u64>() % 4)
            });
        let num = |s: &str| {
            s.trim_end_matches(".html")
                .parse::<usize>()
                .ok()
                .filter(|&n| n < bodies.len())
        };
        let resp = if let Some(n) = t.strip_prefix("/p/").and_then(num) {
            Resp::html(bodies[n].clone())
        } else if let Some(n) = t.strip_prefix("/d/").and_then(num) {
            Resp::html(bodies[n].clone())
        } else if let Some(n) = t.strip_prefix("/r/").and_then(num) {
            Resp::redirect(301, &format!("/p/{n}.html"))
        } else {
            Resp::new(404, "text/html", "missing")
        };
        resp.delayed(delay)
    };
    for prefix in ["/p/", "/d/", "/r/", "/missing/"] {
        web.server
            .route_prefix(spec.host, prefix, Route::Generated(Arc::new(serve.clone())));
    }
}

/// Checks a crawl's files against [`expected_graph`], by page content.
pub fn assert_matches_model(
    files: &super::SiteFiles,
    origin: &str,
    pages: u64,
    seed: u64,
    max_level: u32,
) {
    let (levels, arcs) = expected_graph(pages, seed, max_level);
    let content = |label: &str| {
        content_of(label.strip_prefix(origin).expect("a label of the site")).expect("a page")
    };
    let got_levels: std::collections::BTreeMap<u64, u32> = files
        .nodes
        .iter()
        .map(|(_, l, lv)| (content(l), *lv))
        .collect();
    assert_eq!(
        got_levels.len(),
        files.nodes.len(),
        "no two nodes may have the same content"
    );
    assert_eq!(got_levels, levels, "nodes and levels");
    let ids = files.labels();
    let got_arcs: std::collections::BTreeMap<(u64, u64), u32> = files
        .edges
        .iter()
        .map(|(s, t, w)| ((content(&ids[s]), content(&ids[t])), *w))
        .collect();
    assert_eq!(got_arcs, arcs, "arcs and weights");
}

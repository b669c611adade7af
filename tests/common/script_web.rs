//! A web whose links scripts build (issue 66), on loopback: four kinds of site and the cases
//! around them.
//!
//! - `a.test`, a single-page application: one shell for every route (`<div id="root">`), its
//!   router builds each route's links, the home page's from `/api/items.json`; `/go` moves to
//!   `/deep/` with `history.pushState` before it links `a` (relative); `/about` adds a link after
//!   a timer; the home page links `d.test` (an external link only scripts make); every route
//!   loads a widget from a host outside the crawl where nobody answers (`e.test:1`).
//! - `b.test`, server-rendered with a "related" box a script fills: a quarter of its pages
//!   (`/hidden1`, `/hidden2`) are reached only through the box; one page's script fails after
//!   it built one link; its `/private/` scripts are disallowed by robots.txt.
//! - `c.test`, hydrated: the server sends every link, a script builds the same list again.
//! - `d.test`, plain: no script anywhere.

use super::TestWeb;
use rccrawler::base::loopback::Resp;

const SHELL: &str = "<!doctype html><html><head><title>App</title>\
    <script src=\"/app.js\" defer></script>\
    <script src=\"http://e.test:1/widget.js\"></script></head><body><div id=\"root\"></div>\
    <noscript>You need to enable JavaScript to run this app.</noscript></body></html>";

const APP: &str = r#"(async () => {
  const root = document.getElementById('root');
  const path = location.pathname;
  const add = (href, text) => {
    const a = document.createElement('a');
    a.href = href; a.textContent = text; root.appendChild(a);
  };
  if (path === '/') {
    const items = await (await fetch('/api/items.json')).json();
    for (const i of items) add('/p/' + i, 'Item ' + i);
    add('/about', 'About'); add('/go', 'Go'); add('http://d.test/', 'Partner');
  } else if (path.startsWith('/p/')) {
    const n = Number(path.slice(3));
    if (n < 5) add('/p/' + (n + 1), 'Next');
    add('/', 'Home');
  } else if (path === '/go') {
    history.pushState(null, '', '/deep/');
    add('a', 'relative');
  } else if (path === '/about') {
    setTimeout(() => add('/p/5', 'Late'), 150);
  }
  document.title = 'App ' + path;
})();"#;

/// The application's routes (each answered with the shell).
pub const SPA_ROUTES: &[&str] = &[
    "/", "/p/1", "/p/2", "/p/3", "/p/4", "/p/5", "/about", "/go", "/deep/a",
];

/// The related box: links to `/hidden1` and `/hidden2` written by a script.
const BOX: &str = "<div id=related></div><script src=/box.js></script>";

const BOX_JS: &str = "const box = document.getElementById('related');\
  for (const h of ['/hidden1', '/hidden2']) {\
    const a = document.createElement('a'); a.href = h; a.textContent = 'Related ' + h;\
    box.appendChild(a);\
  }";

/// Serves the four sites on `web`.
pub fn serve(web: &TestWeb) {
    for route in SPA_ROUTES {
        web.page("a.test", route, SHELL);
    }
    web.set("a.test", "/app.js", Resp::new(200, "text/javascript", APP));
    web.set(
        "a.test",
        "/api/items.json",
        Resp::new(200, "application/json", "[1, 2, 3]"),
    );

    web.robots("b.test", "User-agent: *\nDisallow: /private/\n");
    web.set(
        "b.test",
        "/box.js",
        Resp::new(200, "text/javascript", BOX_JS),
    );
    web.set(
        "b.test",
        "/private/track.js",
        Resp::new(
            200,
            "text/javascript",
            "document.body.insertAdjacentHTML('beforeend', '<a href=/tracked>t</a>')",
        ),
    );
    web.page(
        "b.test",
        "/",
        &format!(
            "<a href=/one>one</a><a href=/two>two</a>{BOX}<script src=/private/track.js></script>"
        ),
    );
    web.page(
        "b.test",
        "/one",
        &format!("<a href=/>home</a><a href=/three>three</a>{BOX}"),
    );
    web.page("b.test", "/two", "<a href=/>home</a>");
    web.page(
        "b.test",
        "/three",
        "<a href=/two>two</a><script>document.body.insertAdjacentHTML('beforeend', \
         '<a href=/after-timer-free>made</a>'); undefined.fails();\
         document.body.insertAdjacentHTML('beforeend', '<a href=/never>never</a>')</script>",
    );
    web.page("b.test", "/hidden1", "<a href=/hidden2>h2</a>");
    web.page("b.test", "/hidden2", "<p>only the box leads here</p>");
    web.page(
        "b.test",
        "/after-timer-free",
        "<p>made by a failing script</p>",
    );

    let list =
        "<a href=/c1.html>1</a><a href=/c2.html>2</a><a href=/c3.html>3</a><a href=/c4.html>4</a>";
    let hydrate = "<script>const l = document.getElementById('list');\
        l.innerHTML = l.innerHTML;</script>";
    for (path, title) in [
        ("/", "C"),
        ("/c1.html", "C1"),
        ("/c2.html", "C2"),
        ("/c3.html", "C3"),
        ("/c4.html", "C4"),
    ] {
        web.page(
            "c.test",
            path,
            &format!("<title>{title}</title><div id=list>{list}</div>{hydrate}"),
        );
    }

    web.page("d.test", "/", "<a href=/x.html>x</a><a href=/y.html>y</a>");
    web.page(
        "d.test",
        "/x.html",
        "<a href=/y.html>y</a><a href=/>home</a>",
    );
    web.page("d.test", "/y.html", "<p>y</p>");
}

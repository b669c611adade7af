//! The bundled demo site: a small research-station web site with the cases rccrawler is
//! built for — URL aliases that normalization merges, a page served under two URLs that only
//! the content hash merges, redirects, non-HTML links, robots.txt rules, a windows-1251 page
//! and external links with Cyrillic anchors.

use crate::base::loopback::{Resp, Server};

/// The demo site's host name (mapped to 127.0.0.1 with `Resolve`).
pub const HOST: &str = "demo.test";

fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title></head>\n<body>\n<nav><a href=\"/\">Home</a> | <a href=\"/news/\">News</a> | <a href=\"/docs/\">Docs</a></nav>\n<h1>{title}</h1>\n{body}\n</body></html>\n"
    )
}

/// Installs the demo site on `server`; `port` is the server's port (for absolute links).
pub fn install(server: &Server, port: u16) {
    let set = |path: &str, resp: Resp| server.set(HOST, path, resp);
    home_and_about(&set, port);
    news_and_docs(&set);
    other_pages(&set, port);
}

/// robots.txt, the home page under two URLs, the about section.
fn home_and_about(set: &impl Fn(&str, Resp), port: u16) {
    set(
        "/robots.txt",
        Resp::new(
            200,
            "text/plain",
            "User-agent: *\nDisallow: /private/\nAllow: /private/open.html\n",
        ),
    );

    let home = page(
        "Lake Onega Field Station",
        &format!(
            r#"<p>Welcome to the field station.</p>
<ul>
<li><a href="/about/">About us</a></li>
<li><a href="/index.html">Home page (another address)</a></li>
<li><a href="/research?topic=lakes&amp;lang=en">Research</a></li>
<li><a href="/archive">Archive</a></li>
<li><a href="/people.html">People</a></li>
<li><a href="/files/annual-report.pdf">Annual report (PDF)</a></li>
<li><a href="/data">Open data (JSON)</a></li>
<li><a href="/private/">Staff area</a> and <a href="/private/open.html">staff notice</a></li>
<li><a href="/missing.html">Old page</a></li>
<li><a href="/ru/">По-русски</a></li>
<li><a href="/frames.html">Frames</a></li>
<li><a href="http://partners.demo.test:{port}/">Карельский научный центр РАН</a></li>
<li><a href="https://www.example.org/onega">Example partner</a></li>
<li><a href="mailto:station@demo.test">Write to us</a> · <a href="javascript:window.print()">Print</a> · <a href="tel:+78142000000">Call</a></li>
</ul>"#
        ),
    );
    set("/", Resp::html(home.clone()));
    // The same bytes under another URL: only the content hash merges it.
    set("/index.html", Resp::html(home));

    set("/about", Resp::redirect(301, "/about/"));
    set(
        "/about/",
        Resp::html(page(
            "About",
            r#"<p>Since 1946.</p><a href="team.html">Our team</a> <a href="../index.html">Back</a>"#,
        )),
    );
    set(
        "/about/team.html",
        Resp::html(page(
            "Team",
            r#"<a href="/about">About</a> <a href="/people.html">People</a>"#,
        )),
    );
}

/// The news section and the handbook's twenty chapters.
fn news_and_docs(set: &impl Fn(&str, Resp)) {
    set("/archive", Resp::redirect(301, "/news/archive.html"));
    set(
        "/news/",
        Resp::html(page(
            "News",
            r#"<a href="2026/spring.html">Spring 2026</a> <a href="2026/autumn.html">Autumn 2026</a> <a href="archive.html">Archive</a>"#,
        )),
    );
    set(
        "/news/archive.html",
        Resp::html(page(
            "Archive",
            r#"<a href="2026/spring.html">Spring</a> <a href="/archive">This page</a>"#,
        )),
    );
    set(
        "/news/2026/spring.html",
        Resp::html(page(
            "Spring 2026",
            r#"<a href="../">News</a> <a href="autumn.html">Next</a>"#,
        )),
    );
    set(
        "/news/2026/autumn.html",
        Resp::html(page(
            "Autumn 2026",
            r#"<a href="spring.html">Previous</a> <a href="/docs/page-20.html">Latest report</a>"#,
        )),
    );

    let mut index = String::from("<ol>");
    for i in 1..=20 {
        index.push_str(&format!(
            "<li><a href=\"page-{i:02}.html\">Chapter {i}</a></li>"
        ));
    }
    index.push_str("</ol>");
    set("/docs/", Resp::html(page("Documentation", &index)));
    for i in 1..=20 {
        let prev = if i > 1 {
            format!("<a href=\"page-{:02}.html\">Previous</a>", i - 1)
        } else {
            String::new()
        };
        let next = match i {
            // Aliases that normalization removes.
            1 => "<a href=\"/docs//page-02.html\">Next</a>".to_owned(),
            2 => "<a href=\"./page-03.html#top\">Next</a>".to_owned(),
            3 => "<a href=\"/docs/../docs/page-04.html?\">Next</a>".to_owned(),
            20 => String::new(),
            _ => format!("<a href=\"page-{:02}.html\">Next</a>", i + 1),
        };
        let body = format!(
            "<p>Chapter {i} of the station handbook.</p>{prev} {next} <a href=\"./\">Contents</a>"
        );
        set(
            &format!("/docs/page-{i:02}.html"),
            Resp::html(page(&format!("Chapter {i}"), &body)),
        );
    }
}

/// Research, people, the staff area, files that are not HTML, a windows-1251 page, frames.
fn other_pages(set: &impl Fn(&str, Resp), port: u16) {
    // Reached as /research?topic=lakes&lang=en: normalization sorts the query.
    set(
        "/research?lang=en&topic=lakes",
        Resp::html(page(
            "Research",
            r#"<a href="/research?lang=en&amp;topic=lakes&amp;empty=">Same page</a>"#,
        )),
    );
    set(
        "/people.html",
        Resp::html(page(
            "People",
            &format!(
                r#"<a href="http://DEMO.test:{port}/people.html">This page</a> <a href="/about/team.html">Team</a> <iframe src="/news/2026/spring.html"></iframe>"#
            ),
        )),
    );
    set(
        "/private/open.html",
        Resp::html(page("Staff notice", "<p>Open to all.</p>")),
    );
    set(
        "/private/",
        Resp::html(page("Staff area", "<p>Not for robots.</p>")),
    );
    set(
        "/data",
        Resp::new(200, "application/json", "{\"lake\": \"Onega\"}"),
    );
    set(
        "/files/annual-report.pdf",
        Resp::new(200, "application/pdf", "%PDF-1.4"),
    );

    let (ru, _, _) = encoding_rs::WINDOWS_1251.encode(
        "<html><head><title>Станция на Онежском озере</title></head><body>\
         <a href=\"/\">Главная</a> <a href=\"http://partners.demo.test/ru/\">Партнёры: Карельский научный центр</a></body></html>",
    );
    set(
        "/ru/",
        Resp::new(200, "text/html; charset=windows-1251", ru.into_owned()),
    );

    set(
        "/frames.html",
        Resp::html(
            "<html><head><title>Frames</title></head><frameset cols=\"30%,70%\"><frame src=\"/docs/\"><frame src=\"/docs/page-01.html\"></frameset></html>",
        ),
    );
}

//! The renderer against the real browser, its requests answered from a map (no server): what
//! scripts build is read, what they may not fetch is refused, and the faults of issue 66 end
//! in a page kept, never a hang.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use url::Url;

use super::ChromiumRenderer;
use crate::crawl::render::{
    RenderError, RenderJob, RenderMode, RenderOptions, RenderedDom, Renderer, Resource,
    ResourceKind, Resources,
};

/// Answers from a map of paths; records what was asked.
#[derive(Default)]
struct Files {
    files: HashMap<&'static str, &'static str>,
    asked: Mutex<Vec<String>>,
}

impl Resources for Files {
    fn fetch(&self, url: &Url, _kind: ResourceKind) -> Resource {
        self.asked.lock().unwrap().push(url.to_string());
        match self.files.get(url.path()) {
            Some(body) => Resource::Answer {
                status: 200,
                headers: vec![("Content-Type".into(), "text/javascript".into())],
                body: body.as_bytes().to_vec(),
            },
            None => Resource::Answer {
                status: 404,
                headers: Vec::new(),
                body: Vec::new(),
            },
        }
    }
}

fn renderer(timeout: u64) -> Option<ChromiumRenderer> {
    let r = ChromiumRenderer::new(RenderOptions {
        mode: RenderMode::All,
        idle: Duration::from_millis(300),
        timeout: Duration::from_secs(timeout),
        tabs: 2,
        chromium: None,
    });
    match r.check() {
        Ok(()) => Some(r),
        Err(e) => {
            assert!(std::env::var_os("CI").is_none(), "CI: {e}");
            eprintln!("no chromium here: left out ({e})");
            None
        }
    }
}

fn render(r: &ChromiumRenderer, html: &str, files: &Files) -> Result<RenderedDom, RenderError> {
    let url = Url::parse("http://a.test/page.html").unwrap();
    r.render(
        &RenderJob {
            url: &url,
            content_type: "text/html; charset=utf-8",
            body: html.as_bytes(),
        },
        files,
    )
}

#[test]
fn scripts_build_links_and_only_what_builds_the_dom_is_fetched() {
    let Some(r) = renderer(10) else { return };
    let files = Files {
        files: HashMap::from([(
            "/app.js",
            "const a = document.createElement('a'); a.href = 'built.html'; a.textContent = 'B';\
             document.getElementById('root').appendChild(a);\
             setTimeout(() => { const t = document.createElement('a'); t.href = '/later.html';\
             document.body.appendChild(t); }, 100);",
        )]),
        ..Files::default()
    };
    let page = "<html><head><link rel=stylesheet href=/s.css></head><body><div id=root></div>\
                <img src=/i.png><script src=/app.js></script>\
                <script src=https://www.google-analytics.com/analytics.js></script></body></html>";
    let dom = render(&r, page, &files).unwrap();
    assert!(dom.html.contains("href=\"built.html\""), "{}", dom.html);
    assert!(dom.html.contains("href=\"/later.html\""), "{}", dom.html);
    assert_eq!(dom.base, "http://a.test/page.html");
    assert!(!dom.timed_out);
    let asked = files.asked.lock().unwrap().clone();
    assert_eq!(
        asked,
        ["http://a.test/app.js"],
        "images, styles and trackers are not fetched"
    );
    // The tab is reused for the next page.
    let again = render(
        &r,
        "<body><script>document.body.innerHTML = '<a href=/x>x</a>'</script>",
        &files,
    )
    .unwrap();
    assert!(again.html.contains("href=\"/x\""));
}

#[test]
fn faults_end_in_a_page_read_or_refused_never_a_hang() {
    let Some(r) = renderer(3) else { return };
    let files = Files::default();
    // A page that never goes idle: read at the timeout, with what it built.
    let busy = "<body><a href=/a>a</a><script>setInterval(() => fetch('/poll'), 100);\
                document.body.insertAdjacentHTML('beforeend', '<a href=/b>b</a>')</script>";
    let dom = render(&r, busy, &files).unwrap();
    assert!(dom.timed_out && dom.html.contains("href=\"/b\""));
    // Dialogs do not hold the page.
    let dialogs = "<body><script>alert('hi'); confirm('sure?'); window.open('/popup');\
                   document.body.innerHTML = '<a href=/after-alert>ok</a>'</script>";
    assert!(
        render(&r, dialogs, &files)
            .unwrap()
            .html
            .contains("/after-alert")
    );
    // A page that navigates away: the page is read, its target kept as a link.
    let away = "<body><a href=/stay>s</a><script>location.href = '/elsewhere.html'</script>";
    let dom = render(&r, away, &files).unwrap();
    assert!(
        dom.html.contains("/stay") && dom.html.contains("href=\"http://a.test/elsewhere.html\""),
        "{}",
        dom.html
    );
    // A script that fails: what ran before it stays.
    let fails = "<body><script>document.body.innerHTML = '<a href=/ok>ok</a>'; null.x()</script>";
    assert!(render(&r, fails, &files).unwrap().html.contains("/ok"));
    // A script that loops forever: interrupted, the page read or refused, the next one fine.
    let looping = "<body><a href=/a>a</a><script>while (true) {}</script>";
    match render(&r, looping, &files) {
        Ok(dom) => assert!(dom.timed_out),
        Err(e) => assert!(
            matches!(e, RenderError::Unresponsive(_) | RenderError::Browser(_)),
            "{e}"
        ),
    }
    assert!(render(&r, fails, &files).unwrap().html.contains("/ok"));
}

#[test]
fn a_killed_browser_is_started_again() {
    let Some(r) = renderer(10) else { return };
    let files = Files::default();
    let page = "<body><script>document.body.innerHTML = '<a href=/k>k</a>'</script>";
    assert!(render(&r, page, &files).unwrap().html.contains("/k"));
    let pid = r.browser_pid().unwrap();
    let _ = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status();
    std::thread::sleep(Duration::from_millis(300));
    assert!(render(&r, page, &files).unwrap().html.contains("/k"));
    assert_ne!(r.browser_pid(), Some(pid));
}

#[test]
fn a_tab_is_replaced_after_its_pages_and_each_page_reads_its_own_dom() {
    let Some(r) = renderer(10) else { return };
    let files = Files::default();
    // Past RECYCLE_AFTER: the tab is closed and a new one opened on the way.
    for i in 0..super::RECYCLE_AFTER + 5 {
        let page =
            format!("<body><script>document.body.innerHTML = '<a href=/n{i}>n</a>'</script>");
        let dom = render(&r, &page, &files).unwrap();
        assert!(
            dom.html.contains(&format!("href=\"/n{i}\"")),
            "page {i}: {}",
            dom.html
        );
    }
}

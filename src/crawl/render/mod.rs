//! Pages whose links scripts build (SPEC §18): the `Renderer` component, which loads a page in
//! a browser and gives back its DOM once scripts ran, and the crawl's side of it — which pages
//! are rendered ([`plan`]), what looks script-built in the HTML a server sends ([`score`]),
//! what the browser may fetch ([`resources`]) and the scripts it was given ([`script_cache`]).
//!
//! The renderer never touches the network itself: every request the browser makes is put to
//! the crawl through [`Resources`], which answers it under the site's politeness, robots.txt
//! and log, or refuses it. So another engine (WebDriver, a lighter JavaScript runtime) can
//! replace Chromium without the engine knowing.

pub mod archived;
pub mod chromium;
pub mod plan;
pub mod resources;
pub mod score;
pub mod script_cache;

use std::fmt::Debug;
use std::time::Duration;

use url::Url;

/// `Render`: which pages are loaded in the browser.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RenderMode {
    /// None (the paper's crawl): the HTML the server sends; sites that look script-built are
    /// named.
    #[default]
    No,
    /// A sample of each site, and further pages only where the sample's rendered links differ
    /// from the raw ones.
    Auto,
    /// Every page.
    All,
}

impl RenderMode {
    /// The setting's value.
    pub fn parse(value: &str) -> Option<Self> {
        match value.to_ascii_lowercase().as_str() {
            "no" => Some(RenderMode::No),
            "auto" => Some(RenderMode::Auto),
            "all" => Some(RenderMode::All),
            _ => None,
        }
    }

    /// As settings.ini writes it.
    pub fn name(self) -> &'static str {
        match self {
            RenderMode::No => "no",
            RenderMode::Auto => "auto",
            RenderMode::All => "all",
        }
    }
}

/// What settings.ini tells a renderer.
#[derive(Debug, Clone)]
pub struct RenderOptions {
    /// `Render`.
    pub mode: RenderMode,
    /// `RenderIdleMillis`: the page is read once no request was made for this long after its
    /// `load` event.
    pub idle: Duration,
    /// `RenderTimeoutSeconds`: the page is read at this time whatever it still does.
    pub timeout: Duration,
    /// `RenderTabs`: pages rendered at once.
    pub tabs: usize,
    /// `ChromiumPath` (empty: found on `PATH`).
    pub chromium: Option<std::path::PathBuf>,
}

/// A page to render: the answer the crawl already has for it.
#[derive(Debug, Clone, Copy)]
pub struct RenderJob<'a> {
    /// The page's address (the last hop of its redirects).
    pub url: &'a Url,
    /// Its `Content-Type` as the server sent it.
    pub content_type: &'a str,
    /// Its body.
    pub body: &'a [u8],
}

/// What a browser asks for, as the crawl classifies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceKind {
    /// A frame's document.
    Document,
    /// A script.
    Script,
    /// Data a script asked for (`fetch`, `XMLHttpRequest`, an event stream).
    Data,
    /// Anything else the browser wants that may change the DOM.
    Other,
}

/// The crawl's answer to one request of the browser.
#[derive(Debug)]
pub enum Resource {
    /// An answer to hand the browser.
    Answer {
        /// Its HTTP status.
        status: u16,
        /// The headers the browser needs of it: `Content-Type`, and `Location` for a redirect.
        headers: Vec<(String, String)>,
        /// Its body.
        body: Vec<u8>,
    },
    /// An answer given before (a script the crawl keeps): no request was made for it.
    Kept {
        /// The headers the browser needs of it.
        headers: Vec<(String, String)>,
        /// Its body.
        body: Vec<u8>,
    },
    /// Asked for and not answered (the host not found, a timeout, a body that could not be
    /// read): the browser sees a failed request; the request counts in `Fetched`.
    Failed,
    /// Not asked for (robots.txt, a tracker, a host found unreachable before, the crawl
    /// stopping): the browser sees a failed request.
    Refused,
}

/// The crawl's side of rendering: answers the browser's requests.
pub trait Resources: Sync {
    /// Fetches `url` for the page being rendered.
    fn fetch(&self, url: &Url, kind: ResourceKind) -> Resource;
}

/// A page after its scripts ran.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenderedDom {
    /// The document serialized (`document.documentElement.outerHTML`), with what the page
    /// tried to navigate to as links at its end.
    pub html: String,
    /// `document.baseURI`: what relative links resolve against (a `pushState` route moves it).
    pub base: String,
    /// The page did not go idle within `RenderTimeoutSeconds`: read as it was then.
    pub timed_out: bool,
    /// Requests the crawl answered for it (counted in `Fetched`).
    pub requests: u32,
}

/// Why a page could not be rendered (it is then kept as the server sent it).
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// No browser to start.
    #[error("no browser: {0}")]
    Missing(String),
    /// The browser did not start or died twice on this page.
    #[error("browser: {0}")]
    Browser(String),
    /// The page's scripts held the browser past every deadline.
    #[error("the page did not answer within {0:?} (its scripts never yield)")]
    Unresponsive(Duration),
    /// The crawl is stopping.
    #[error("the crawl is stopping")]
    Stopping,
    /// The page was not rendered when it was crawled (a rebuild's renderer): it is kept as the
    /// server sent it, and nothing is reported.
    #[error("not rendered when it was crawled")]
    NotRendered,
}

/// The `Renderer` component: loads pages in a browser. One is shared by the parsing threads;
/// it limits the pages rendered at once itself (`RenderTabs`).
pub trait Renderer: Send + Sync + Debug {
    /// Checks that the browser can run (before the crawl starts): `Render ≠ no` with no
    /// browser stops the run with exit 2.
    fn check(&self) -> Result<(), RenderError>;

    /// Loads `job` and returns its DOM once its network was idle for `RenderIdleMillis` or at
    /// `RenderTimeoutSeconds`, each of its requests answered by `resources`.
    fn render(
        &self,
        job: &RenderJob<'_>,
        resources: &dyn Resources,
    ) -> Result<RenderedDom, RenderError>;

    /// Whether every page is put to it whatever `Render` and the plan say (a rebuild's
    /// renderer knows which pages were rendered).
    fn always(&self) -> bool {
        false
    }
}

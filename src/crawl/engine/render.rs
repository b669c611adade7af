//! Rendering in the parsing threads (SPEC §18). A page is parsed as the server sent it first;
//! if the plan wants it rendered, the `Renderer` loads it, the DOM is parsed by the same parser,
//! and the page's record becomes the rendered one: its links, title, content hash (pages of an
//! application share one shell; their rendered DOMs tell them apart) — each link that the raw
//! HTML lacks marked script-only. The browser's requests are the crawl's: a request to one of
//! the crawl's sites waits for the site's turn, obeys its robots.txt, carries its cookies,
//! goes in the common log and counts in `Fetched`; one to another host (a CDN's script) is
//! logged too and has its own turns.

use std::sync::Arc;
use std::time::Instant;

use url::Url;

use super::Context;
use crate::crawl::fetch::{FetchError, HttpClient, Pacer, SendTurn};
use crate::crawl::message::{
    Downloaded, FetchTask, LinkTarget, Log, PageLinks, PageRecord, RenderMark,
};
use crate::crawl::parse::{ParseEnv, ParseWorker};
use crate::crawl::render::plan::RenderPlan;
use crate::crawl::render::score::ScriptSigns;
use crate::crawl::render::{RenderJob, Renderer, Resource, ResourceKind, Resources};
use crate::model::link_attrs::Rel;
use crate::model::sites::SiteEntry;
use crate::model::url_norm::NormUrl;

/// The crawl's rendering: the renderer, which pages it gets, and the client its requests go
/// through.
#[derive(Debug)]
pub(crate) struct Rendering {
    renderer: Arc<dyn Renderer>,
    plan: RenderPlan,
    client: HttpClient,
    /// Turns of hosts outside the crawl: one request at a time.
    foreign: Arc<Pacer>,
    /// Scripts already given to the browser.
    scripts: crate::crawl::render::script_cache::ScriptCache,
    /// Hosts outside the crawl the browser asked for and that could not be reached.
    unreachable: parking_lot::Mutex<hashbrown::HashSet<String>>,
}

impl Rendering {
    /// The rendering of a crawl with `settings` by `renderer`.
    pub(crate) fn new(
        settings: &crate::crawl::settings::Settings,
        renderer: Arc<dyn Renderer>,
    ) -> Result<Self, crate::crawl::fetch::CaFileError> {
        let mode = if renderer.always() {
            crate::crawl::render::RenderMode::All
        } else {
            settings.render.mode
        };
        Ok(Rendering {
            renderer,
            plan: RenderPlan::new(mode),
            client: HttpClient::new(settings)?,
            foreign: Arc::default(),
            scripts: Default::default(),
            unreachable: Default::default(),
        })
    }

    /// A site is written: its plan is not needed again.
    pub(crate) fn forget(&self, site: crate::base::ids::SiteId) {
        self.plan.forget(site);
    }
}

/// What a page keeps for rendering while it is parsed raw.
pub(super) struct Kept {
    body: Vec<u8>,
    content_type: String,
    signs: ScriptSigns,
}

impl Kept {
    /// What `page` keeps: its signs always (a home page's say whether its site looks
    /// script-built), its body when it may be rendered.
    pub(super) fn of(ctx: &Context, task: &FetchTask, page: &Downloaded) -> Option<Self> {
        if (ctx.render.is_none() && task.level != 0) || page.node_type.is_document() {
            return None;
        }
        let signs = ScriptSigns::of(&page.body);
        // A page that will not be rendered keeps no copy of its body: with `Render = auto`, a
        // page without a script (every page of a static site).
        let may_render = ctx.render.as_ref().is_some_and(|r| {
            r.plan.mode() == crate::crawl::render::RenderMode::All || signs.scripts > 0
        });
        Some(Kept {
            body: if may_render {
                page.body.clone()
            } else {
                Vec::new()
            },
            content_type: page.content_type.clone().unwrap_or_default(),
            signs,
        })
    }
}

/// A page's record, and the rendered DOM it was read from (for the archive) with the
/// requests the browser made for it.
pub(super) type AfterParse = (PageRecord, Option<(Vec<u8>, u32)>);

/// Renders the page of `record` when the plan wants it, and returns its record (and the DOM,
/// when it was rendered).
pub(super) fn after_parse(
    ctx: &Context,
    env: &ParseEnv<'_>,
    worker: &mut dyn ParseWorker,
    task: &FetchTask,
    (mut record, kept): (PageRecord, Kept),
    log: &Log,
) -> AfterParse {
    if record.rejected.is_some() {
        return (record, None);
    }
    let site = env.sites.get(task.site);
    let url = record.chain.last().map_or(&task.url, |h| &h.url).clone();
    let links = record.links.len();
    let Some(rendering) = &ctx.render else {
        if task.level == 0 && kept.signs.looks_script_built(links) {
            record.render.script_built = true;
            log.note(format!(
                "{}: its home page looks script-built ({}): the graph may lack what scripts \
                 build; Render = auto reads it",
                site.origin,
                kept.signs.why()
            ));
        }
        return (record, None);
    };
    record.render.script_built = kept.signs.looks_script_built(links);
    if !rendering
        .plan
        .wants(task.site, url.as_url(), &kept.signs, links)
    {
        return (record, None);
    }
    let resources = PageResources {
        ctx,
        site: &site,
        rendering,
        log,
        jar_changed: std::sync::atomic::AtomicBool::new(false),
    };
    let job = RenderJob {
        url: url.as_url(),
        content_type: &kept.content_type,
        body: &kept.body,
    };
    let dom = match rendering.renderer.render(&job, &resources) {
        Ok(dom) => dom,
        Err(crate::crawl::render::RenderError::NotRendered) => return (record, None),
        Err(e) => {
            log.problem(
                &site.origin,
                &url,
                format!("not rendered ({e}): its links are those the server sent"),
            );
            return (record, None);
        }
    };
    if dom.timed_out {
        log.problem(
            &site.origin,
            &url,
            format!(
                "still busy after RenderTimeoutSeconds = {}: read as it was then",
                ctx.settings.render.timeout.as_secs()
            ),
        );
    }
    let page = rendered_page(&url, &record, &dom);
    // The archive keeps the DOM as parsed, without the byte-order mark said to the parser.
    let archived = page.body.get(BOM.len()..).unwrap_or_default().to_vec();
    let rendered = worker.parse(env, task, page);
    let mut rendered = mark_script_only(record.links.clone(), rendered);
    let differs = rendered_differs(&record.links, &rendered.links);
    rendering.plan.learn(task.site, url.as_url(), differs);
    rendered.chain = std::mem::take(&mut record.chain);
    rendered.bytes = record.bytes;
    rendered.extra_requests = record.extra_requests.saturating_add(dom.requests);
    rendered.learned = record.learned.take();
    rendered.cookies = if resources.jar_changed.into_inner() {
        Some(Box::new(site.cookies.save()))
    } else {
        record.cookies.take()
    };
    rendered.rejected = None;
    rendered.render = RenderMark {
        rendered: true,
        script_built: record.render.script_built,
    };
    (rendered, Some((archived, dom.requests)))
}

/// UTF-8's byte-order mark.
const BOM: &[u8] = "\u{feff}".as_bytes();

/// The rendered DOM as a page for the parser: UTF-8 said by a byte-order mark (the DOM keeps
/// the page's `<meta charset>`, which no longer holds), and a `<base>` where a script moved
/// the document's address (`history.pushState`) so relative links resolve as the browser's.
fn rendered_page(
    url: &NormUrl,
    record: &PageRecord,
    dom: &crate::crawl::render::RenderedDom,
) -> Downloaded {
    let mut body = Vec::with_capacity(dom.html.len() + 64);
    body.extend_from_slice(BOM);
    if !dom.base.is_empty() && dom.base != url.as_str() && !dom.html.contains("<base") {
        body.extend_from_slice(b"<base href=\"");
        body.extend_from_slice(dom.base.replace('"', "%22").as_bytes());
        body.extend_from_slice(b"\">");
    }
    body.extend_from_slice(dom.html.as_bytes());
    Downloaded {
        chain: record.chain.clone(),
        content_type: Some("text/html; charset=utf-8".to_owned()),
        body,
        permit: crate::base::bodies::BodyPermit::default(),
        twin: None,
        cookies: None,
        robots_tag: None,
        capture: None,
        node_type: Default::default(),
    }
}

/// The rendered record with each link the raw page lacks marked script-only: per target, the
/// rendered links beyond the raw page's count of it.
fn mark_script_only(raw: PageLinks, mut rendered: PageRecord) -> PageRecord {
    let mut budget: hashbrown::HashMap<String, u32> = hashbrown::HashMap::new();
    for link in raw.iter() {
        *budget.entry(key(link.target)).or_default() += 1;
    }
    rendered.links.mark_each(|target| {
        let left = budget.entry(key(target)).or_default();
        if *left > 0 {
            *left -= 1;
            Rel::NONE
        } else {
            Rel::SCRIPT_ONLY
        }
    });
    rendered
}

/// Whether the rendered page links a target the raw one does not, or the other way round.
fn rendered_differs(raw: &PageLinks, rendered: &PageLinks) -> bool {
    let targets = |l: &PageLinks| {
        let mut t: Vec<String> = l.iter().map(|x| key(x.target)).collect();
        t.sort_unstable();
        t.dedup();
        t
    };
    targets(raw) != targets(rendered)
}

/// A link target as text, to compare the raw and the rendered pages' targets.
fn key(target: &LinkTarget) -> String {
    match target {
        LinkTarget::Internal { url, .. } | LinkTarget::External(url) => url.as_str().to_owned(),
        LinkTarget::Bad(bad) => bad.raw.clone(),
        LinkTarget::Ignored => String::new(),
    }
}

/// The browser's requests for one page, answered by the crawl.
struct PageResources<'a> {
    ctx: &'a Context,
    site: &'a SiteEntry,
    rendering: &'a Rendering,
    log: &'a Log,
    jar_changed: std::sync::atomic::AtomicBool,
}

impl Resources for PageResources<'_> {
    fn fetch(&self, url: &Url, kind: ResourceKind) -> Resource {
        if kind == ResourceKind::Script
            && let Some(script) = self.rendering.scripts.get(url.as_str())
        {
            return Resource::Kept {
                headers: script.headers.clone(),
                body: script.body.clone(),
            };
        }
        let answer = self.fetch_new(url);
        if kind == ResourceKind::Script
            && let Resource::Answer {
                status: 200,
                headers,
                body,
            } = &answer
        {
            self.rendering.scripts.put(
                url.as_str(),
                crate::crawl::render::script_cache::Cached {
                    headers: headers.clone(),
                    body: body.clone(),
                },
            );
        }
        answer
    }
}

impl PageResources<'_> {
    /// Fetches `url` for the browser (see the module's comment).
    fn fetch_new(&self, url: &Url) -> Resource {
        let Ok(norm) = NormUrl::from_url(url.clone()) else {
            return Resource::Refused;
        };
        let own = self.site.origin_of(url);
        let other = if own.is_some() {
            None
        } else {
            self.ctx.sites.find(url).map(|id| self.ctx.sites.get(id))
        };
        let site = other.as_deref().unwrap_or(self.site);
        let foreign = own.is_none() && other.is_none();
        let host = url.host_str().unwrap_or_default();
        if foreign && self.rendering.unreachable.lock().contains(host) {
            return Resource::Refused;
        }
        if let Some(origin) = &own
            && let Some(robots) = origin.robots()
            && !robots.allowed(norm.path_and_query())
        {
            self.log.problem(
                &site.origin,
                &norm,
                "not fetched for rendering: robots.txt disallows it",
            );
            return Resource::Refused;
        }
        let turn: Option<SendTurn> = if !foreign {
            crate::crawl::fetch::Pacing::pace(&*self.ctx.dispatcher, site.id)
        } else {
            self.rendering.foreign.turn(&self.ctx.stop)
        };
        let Some(turn) = turn else {
            return Resource::Refused;
        };
        let cookies = self.ctx.fetch_options.cookies && own.is_some();
        let cookie = cookies.then(|| site.cookies.header_for(url)).flatten();
        let started = Instant::now();
        let answer = self.rendering.client.get(
            site.id,
            site.spec.max_downloads,
            &norm,
            &turn,
            (cookie.as_deref(), None),
        );
        drop(turn);
        let sent = Sent {
            site,
            norm: &norm,
            cookie: cookie.as_deref(),
            started,
        };
        match answer {
            Ok(response) => self.answer(&sent, response, cookies),
            Err(e) => self.failed(&sent, &e, foreign),
        }
    }

    /// A request that got no answer: logged and archived; a host outside the crawl that
    /// cannot be reached is asked once (a site whose pages all load a script from it would
    /// otherwise ask on every page).
    fn failed(&self, sent: &Sent<'_>, e: &FetchError, foreign: bool) -> Resource {
        let (site, norm) = (sent.site, sent.norm);
        self.log.request(site.id, norm, 0, 0, sent.started);
        let env = self.ctx.fetch_env();
        env.archive_failure(norm, (sent.cookie, None), sent.started, e);
        let host = norm.as_url().host_str().unwrap_or_default();
        let gone = foreign
            && matches!(
                e,
                FetchError::HostNotFound | FetchError::Refused | FetchError::Timeout
            );
        let later = if gone && self.rendering.unreachable.lock().insert(host.to_owned()) {
            format!("; the browser's later requests to {host} are refused without asking")
        } else {
            String::new()
        };
        self.log
            .problem(&site.origin, norm, format!("for rendering: {e}{later}"));
        Resource::Failed
    }

    /// An answer for the browser: its status, the headers it needs, its body read; archived
    /// like the crawl's own requests (`Archive = warc`), its cookies kept in the site's jar.
    fn answer(
        &self,
        sent: &Sent<'_>,
        response: crate::crawl::fetch::Response,
        cookies: bool,
    ) -> Resource {
        let (site, norm) = (sent.site, sent.norm);
        let env = self.ctx.fetch_env();
        let capture = env.capture(
            norm,
            &crate::crawl::fetch::Head::of(&response),
            (sent.cookie, None),
            sent.started,
        );
        let status = response.status;
        let mut headers = Vec::new();
        if let Some(ct) = &response.content_type {
            headers.push(("Content-Type".to_owned(), ct.clone()));
        }
        if let Some(location) = &response.location {
            headers.push(("Location".to_owned(), location.clone()));
        }
        if cookies && !response.set_cookies.is_empty() {
            let stored = site.cookies.store(norm.as_url(), &response.set_cookies);
            if stored.generation != 0 {
                self.jar_changed
                    .store(true, std::sync::atomic::Ordering::Relaxed);
            }
        }
        let body = match response.read_body(self.ctx.settings.http.max_page_bytes) {
            Ok(body) => {
                env.archive(capture.as_ref(), Some(Ok(&body)));
                body
            }
            Err(e) => {
                env.archive(capture.as_ref(), Some(Err(&e)));
                self.log.request(site.id, norm, status, 0, sent.started);
                self.log
                    .problem(&site.origin, norm, format!("for rendering: {e}"));
                return Resource::Failed;
            }
        };
        self.log
            .request(site.id, norm, status, body.len() as u64, sent.started);
        Resource::Answer {
            status,
            headers,
            body,
        }
    }
}

/// A request the browser's page made, as sent.
struct Sent<'a> {
    site: &'a SiteEntry,
    norm: &'a NormUrl,
    cookie: Option<&'a str>,
    started: Instant,
}

//! Fetching one URL of the crawl (SPEC §2.3–§2.5): robots checked for the URL and every
//! redirect hop (each origin's own robots.txt, fetched before its first other request),
//! redirects 301/302/303/307/308 and meta refreshes followed up to 5 hops (relative targets
//! resolved), a hop to another site makes the link external — except on the home page's
//! chain, whose origins become aliases of the site (SPEC §2) — a loop or a sixth hop makes it a
//! bad link, and only a final 200 with an HTML Content-Type is read.
//!
//! The decisions live in [`Walk`], which does no I/O: it says which URL to request next and
//! what each answer (its head, then a page's body) means. `http_downloader::fetch_page` drives it with the
//! blocking client. Another driver — one thread polling many connections, where a thread
//! blocked on each request sleeps and is woken for every page (issue 19) — can drive the same
//! walk and decide everything the same way.

use std::sync::Arc;
use std::time::{Instant, SystemTime};

use super::client::HttpClient;
use super::head::MAX_HOPS;
use super::response::{Declared, Head, is_html};
use super::retry::{Transient, is_transient_status};
use super::robots_txt::fetch_robots;
use super::{FetchEnv, PageResult, RobotsAnswer};
use crate::crawl::message::{Downloaded, Failure, FetchTask, Hop, HopClaim, HopKind, Log, Outcome};
use crate::crawl::parse::refresh::meta_refresh;
use crate::formats::warc::Capture;
use crate::model::documents::NodeType;
use crate::model::path_rules::EXCLUDED;
use crate::model::robots::DisallowAll;
use crate::model::site::Origin;
use crate::model::sites::{SiteEntry, SiteOrigin, SiteView};
use crate::model::url_norm::{self, NormUrl, UrlError};
use crate::model::url_rules::refusal;

fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// What one answer means for the walk along the redirect chain.
// A step lives on the stack for one answer and is returned at once: boxing the large variant
// would allocate once a page to save a move.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Step {
    /// Request this URL next (a redirect hop).
    Next(NormUrl),
    /// The walk ends here.
    Done(PageResult),
}

/// Whether a URL may be requested now.
// Like `Step`: on the stack for one check and returned at once.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Check {
    /// Yes: take the site's turn and send it.
    Go,
    /// No: the walk ends with this result.
    Stop(PageResult),
    /// Its origin's robots.txt is not known yet (an alias): fetch it, then check again.
    NeedRobots(Arc<SiteOrigin>),
}

/// What an answer's head means for the walk.
#[allow(clippy::large_enum_variant)]
pub(crate) enum HeadStep {
    /// Request this URL next (a redirect hop).
    Next(NormUrl),
    /// The walk ends here.
    Done(PageResult),
    /// A 200 HTML page: read its body (within `MaxPageBytes`) and give it to [`Walk::body`].
    Body,
}

/// One task's walk along its redirect chain, without I/O: the driver (the blocking
/// downloader here) sends the requests it asks for and hands it the answers, so that every
/// way of downloading decides the same things the same way.
pub(crate) struct Walk<'a> {
    env: &'a FetchEnv<'a>,
    task: FetchTask,
    pub(super) site: Arc<SiteEntry>,
    log: &'a Log,
    /// Hops after the task URL so far.
    chain: Vec<Hop>,
    /// The page's first copy while a second is fetched to learn what the site changes per
    /// response (SPEC §14): if the second fails, the first is the page.
    sample: Option<Sample>,
    /// The answer whose body is being read, for the archive (boxed: most crawls keep none).
    pending: Option<Box<Capture>>,
    /// The last answer was a re-crawl's `304`, standing for the archived answer: logged as
    /// the 304 it was, with no bytes.
    not_modified: bool,
    /// Names of the cookies the last answer set, for its common log line.
    set_cookie: String,
    /// This walk's answers changed the site's cookie jar: the page carries it to be saved.
    jar_changed: bool,
    /// The last request whose answer set a cookie (0: the task's URL, i + 1: `chain[i]`).
    cookie_set_at: Option<usize>,
    /// Times the walk went back to a URL it had asked for, after a cookie was set.
    gate_returns: u8,
    /// The answer whose body is read is a document (`Documents = yes`, SPEC §19).
    document: Option<NodeType>,
}

/// A page's first copy, kept while its second is fetched: its headers, body, place among the
/// bodies held, and its answer for the archive.
type Sample = (
    Declared,
    Vec<u8>,
    crate::base::bodies::BodyPermit,
    Option<Box<Capture>>,
);

/// Most returns to a URL after a cookie was set (a cookie wall sends the client back once;
/// a server that sets a new cookie and redirects for ever is a redirect loop).
const MAX_GATE_RETURNS: u8 = 2;

impl<'a> Walk<'a> {
    /// The walk of `task`, at its URL.
    pub(crate) fn new(env: &'a FetchEnv<'a>, task: &FetchTask, log: &'a Log) -> Self {
        Walk {
            env,
            task: task.clone(),
            site: env.sites.get(task.site),
            log,
            chain: Vec::new(),
            sample: None,
            pending: None,
            not_modified: false,
            set_cookie: String::new(),
            jar_changed: false,
            cookie_set_at: None,
            gate_returns: 0,
            document: None,
        }
    }

    /// The most body bytes to read of the answer [`Self::head`] said to read:
    /// `MaxDocumentBytes` for a document, `MaxPageBytes` for a page.
    pub(crate) fn body_cap(&self) -> u64 {
        match self.document {
            Some(_) => self.env.options.max_document_bytes,
            None => self.env.options.max_page_bytes,
        }
    }

    /// The `Cookie` header for a request to `url` (`Cookies = yes` and the site's jar has
    /// cookies for it).
    pub(crate) fn cookie(&self, url: &NormUrl) -> Option<String> {
        if !self.env.options.cookies {
            return None;
        }
        self.site.cookies.header_for(url.as_url())
    }

    /// Keeps the cookies an answer to `url` set in the site's jar (SPEC §14).
    fn keep_cookies(&mut self, url: &NormUrl, set_cookies: &[String]) {
        self.set_cookie.clear();
        if !self.env.options.cookies || set_cookies.is_empty() {
            return;
        }
        let stored = self.site.cookies.store(url.as_url(), set_cookies);
        if stored.generation != 0 {
            self.jar_changed = true;
            self.cookie_set_at = Some(self.chain.len());
        }
        self.set_cookie = stored.names;
    }

    /// The common log line of a request to `url`, with the cookies its answer set.
    fn logged(&mut self, url: &NormUrl, status: u16, bytes: u64, started: Instant) {
        let (status, bytes) = if self.not_modified {
            (304, 0)
        } else {
            (status, bytes)
        };
        let set_cookie = std::mem::take(&mut self.set_cookie);
        self.log
            .request_setting(self.site.id, url, status, bytes, started, set_cookie);
    }

    /// The site's jar to save with the page, when this walk changed it.
    fn jar(&self) -> Option<crate::model::cookies::SavedJar> {
        self.jar_changed.then(|| self.site.cookies.save())
    }

    /// The first copy of a sampled page as the page, when its second copy cannot be had.
    fn first_copy(&mut self) -> Option<PageResult> {
        let (declared, body, permit, capture) = self.sample.take()?;
        Some(self.page(declared, body, permit, None, capture))
    }

    /// The walk's page: its chain, body and the site's jar when the walk changed it.
    fn page(
        &mut self,
        declared: Declared,
        body: Vec<u8>,
        permit: crate::base::bodies::BodyPermit,
        twin: Option<Vec<u8>>,
        capture: Option<Box<Capture>>,
    ) -> PageResult {
        PageResult::Page(Downloaded {
            chain: std::mem::take(&mut self.chain),
            content_type: declared.content_type,
            body,
            permit,
            twin,
            cookies: self.jar(),
            robots_tag: declared.robots_tag,
            capture,
            node_type: self.document.unwrap_or_default(),
        })
    }

    fn failed(&mut self, failure: Failure) -> PageResult {
        PageResult::Done(self.outcome(failure))
    }

    fn outcome(&mut self, failure: Failure) -> Outcome {
        Outcome::Failed {
            task: self.task.clone(),
            chain: std::mem::take(&mut self.chain),
            failure,
        }
    }

    /// The checks before requesting `url`: its origin's robots.txt (which the driver fetches
    /// first if this is the origin's first request), and the URL rules for a redirect hop.
    pub(crate) fn before_request(&mut self, url: &NormUrl) -> Check {
        match self.robots_check(url) {
            Check::Go => {}
            other => return other,
        }
        match self.url_rules(url) {
            Some(result) => Check::Stop(result),
            None => Check::Go,
        }
    }

    fn robots_check(&mut self, url: &NormUrl) -> Check {
        if let Some(origin) = self.site.origin_of(url.as_url()) {
            let Some(robots) = origin.robots().map(Arc::clone) else {
                return Check::NeedRobots(origin);
            };
            if !robots.allowed(url.path_and_query()) {
                let reason = robots.denial_reason().to_owned();
                return Check::Stop(self.failed(Failure::without_request(reason)));
            }
        }
        Check::Go
    }

    /// The URL rules a redirect hop must pass (a link's target passed them when it was found).
    fn url_rules(&mut self, url: &NormUrl) -> Option<PageResult> {
        if self.chain.is_empty() {
            return None;
        }
        // hosts.txt's include= and exclude= hold for where a redirect leads too.
        if !self.site.spec.rules.allows(url.path_and_query()) {
            return Some(self.failed(Failure::without_request(EXCLUDED.to_owned())));
        }
        let reason = refusal(url.as_url(), self.env.options.rule_limits)?;
        Some(self.failed(Failure::without_request(reason)))
    }

    /// The robots.txt rules of an alias origin, fetched now if no request has fetched them
    /// yet (one downloader fetches, the others wait for it). The listed origin's robots.txt
    /// is the site's first task; aliases are found later, on the home page's chain or in
    /// links to the other scheme.
    pub(crate) fn alias_robots(
        &mut self,
        client: &HttpClient,
        origin: &SiteOrigin,
    ) -> Result<Arc<dyn crate::model::robots::RobotsRules>, Box<PageResult>> {
        let site = Arc::clone(&self.site);
        let _fetching = site.robots_fetch_lock();
        if let Some(r) = origin.robots() {
            return Ok(Arc::clone(r));
        }
        let robots_url = origin.origin.robots_url();
        let answer = fetch_robots(self.env, client, self.task.site, &robots_url, self.log);
        let rules = match answer {
            RobotsAnswer::Rules(rules) => rules,
            RobotsAnswer::Abandoned => return Err(Box::new(PageResult::Abandoned)),
            RobotsAnswer::Unavailable { why, transient } => {
                let reason = super::robots_txt::unavailable_reason(&why);
                if let Some(transient) = transient {
                    // Unavailable for now: this URL is retried with the site's back-off, and
                    // robots.txt with it.
                    let outcome = self.outcome(Failure::fetched(reason));
                    return Err(Box::new(PageResult::Retry { outcome, transient }));
                }
                self.log.problem(
                    &origin.origin,
                    &robots_url,
                    format!("{reason}: nothing will be fetched"),
                );
                Arc::new(DisallowAll { reason })
            }
        };
        origin.set_robots(Arc::clone(&rules));
        Ok(rules)
    }

    /// No answer at all: a failure, retried when it may pass.
    pub(crate) fn transport_error(
        &mut self,
        url: &NormUrl,
        e: super::FetchError,
        started: Instant,
    ) -> PageResult {
        if self.env.archive.is_some() {
            let cookie = self.cookie(url);
            let validators = super::recrawl::validators(self.env.recrawl, url);
            self.env
                .archive_failure(url, (cookie.as_deref(), validators), started, &e);
        }
        if let Some(first) = self.first_copy() {
            if e != super::FetchError::Abandoned {
                self.logged(url, 0, 0, started);
            }
            return first;
        }
        if e == super::FetchError::Abandoned {
            return PageResult::Abandoned;
        }
        self.logged(url, 0, 0, started);
        self.log.problem(&self.site.origin, url, e.to_string());
        let outcome = self.outcome(Failure::fetched(e.to_string()));
        if e.is_transient() {
            return PageResult::Retry {
                outcome,
                transient: Transient::transport(),
            };
        }
        PageResult::Done(outcome)
    }

    /// What the answer to `url` means, from its head. With an archive, an answer whose body
    /// is not read is archived now; a page's once its body is read.
    pub(crate) fn head(&mut self, url: &NormUrl, response: Head<'_>, started: Instant) -> HeadStep {
        self.not_modified = response.not_modified.is_some();
        // The cookie sent is the jar's before this answer's own cookies are kept.
        let capture = self.env.archive.and_then(|_| {
            let cookie = self.cookie(url);
            let validators = super::recrawl::validators(self.env.recrawl, url);
            self.env
                .capture(url, &response, (cookie.as_deref(), validators), started)
        });
        let step = self.read_head(url, response, started);
        // Set past the head only for a document refused for the length it declares: archived
        // as the answer too large that it is, which a rebuild replays (not an empty body).
        let refused = super::documents::refused(self.document, self.env.options);
        match step {
            HeadStep::Body => self.pending = capture.map(Box::new),
            _ => self
                .env
                .archive(capture.as_ref(), refused.as_ref().map(Err)),
        }
        step
    }

    fn read_head(&mut self, url: &NormUrl, response: Head<'_>, started: Instant) -> HeadStep {
        self.keep_cookies(url, response.set_cookies);
        let status = response.status;
        self.document = None;
        let document = super::documents::document_type(self.env.options, response.content_type);
        if status != 200 || !(is_html(response.content_type) || document.is_some()) {
            self.logged(url, status, 0, started);
            if let Some(first) = self.first_copy() {
                return HeadStep::Done(first);
            }
        }
        if is_transient_status(status) {
            let transient = Transient::status(status, response.retry_after, SystemTime::now());
            let outcome = self.outcome(Failure::fetched(format!("status {status}")));
            return HeadStep::Done(PageResult::Retry { outcome, transient });
        }
        if is_redirect(status) {
            let Some(location) = response.location else {
                let reason = format!("status {status} without Location");
                return HeadStep::Done(self.failed(Failure::fetched(reason)));
            };
            let next = match url_norm::normalize(url.as_url(), location.trim()) {
                Ok(n) => n,
                Err(UrlError::Scheme(s)) => {
                    let reason = format!("redirect to scheme {s}");
                    return HeadStep::Done(self.failed(Failure::fetched(reason)));
                }
                Err(e) => {
                    let reason = format!("bad redirect ({e})");
                    return HeadStep::Done(self.failed(Failure::fetched(reason)));
                }
            };
            return match self.hop(next, HopKind::Http) {
                Step::Next(next) => HeadStep::Next(next),
                Step::Done(result) => HeadStep::Done(result),
            };
        }
        if status != 200 {
            return HeadStep::Done(self.failed(Failure::fetched(format!("status {status}"))));
        }
        if document.is_some() {
            self.document = document;
            let declared = response.declared_len;
            if let Some(reason) = super::documents::declared_too_large(self.env.options, declared) {
                self.logged(url, 200, 0, started);
                self.log.problem(&self.site.origin, url, &reason);
                return HeadStep::Done(self.failed(Failure::fetched(reason)));
            }
            return HeadStep::Body;
        }
        if !is_html(response.content_type) {
            let ct = response.content_type.unwrap_or("no content type");
            let essence = ct
                .split(';')
                .next()
                .unwrap_or(ct)
                .trim()
                .to_ascii_lowercase();
            return HeadStep::Done(self.failed(Failure::fetched(format!("not html ({essence})"))));
        }
        HeadStep::Body
    }

    /// Follows a hop to `next`: the next request, or the end of the walk (another site, a
    /// loop, too many hops).
    fn hop(&mut self, next: NormUrl, kind: HopKind) -> Step {
        if !self.site.contains(next.as_url()) && !self.home_alias(&next) {
            // Another site of the same scope (a multi-host filter, SPEC §6): that site fetches
            // it, with its own robots.txt and politeness.
            let origins = self.site.origins();
            let view = SiteView {
                entry: &self.site,
                origins: &origins,
            };
            if let Some(site) = self
                .env
                .filter
                .scope_site(&view, next.as_url(), self.env.sites)
                .filter(|s| *s != self.task.site)
            {
                return Step::Done(PageResult::Done(Outcome::Elsewhere {
                    task: self.task.clone(),
                    chain: std::mem::take(&mut self.chain),
                    target: Hop { url: next, kind },
                    site,
                }));
            }
            return Step::Done(PageResult::Done(Outcome::OffSite {
                task: self.task.clone(),
                chain: std::mem::take(&mut self.chain),
                target: next,
            }));
        }
        let repeat = if next == self.task.url {
            Some(0)
        } else {
            self.chain.iter().position(|h| h.url == next).map(|i| i + 1)
        };
        if let Some(at) = repeat
            && self.cookie_set_at.is_some_and(|set| set >= at)
            && self.gate_returns < MAX_GATE_RETURNS
        {
            // A cookie wall (SPEC §14): the server set a cookie and sent the client back to a
            // URL it asked for. It is asked again, with the cookie; the gate's hops are no
            // addresses of the page.
            self.gate_returns += 1;
            self.cookie_set_at = None;
            self.chain.truncate(at);
            return Step::Next(next);
        }
        let problem = if repeat.is_some() {
            Some("redirect loop")
        } else if self.chain.len() >= MAX_HOPS {
            Some("too many redirects")
        } else {
            None
        };
        if let Some(problem) = problem {
            self.log.problem(&self.site.origin, &self.task.url, problem);
            self.chain.clear();
            return Step::Done(self.failed(Failure::fetched(problem)));
        }
        // A URL is fetched once: another task fetching it (or one that did) decides it.
        if self.env.hops.claim_hop(&self.task, &next) == HopClaim::Taken {
            return Step::Done(PageResult::Done(Outcome::Elsewhere {
                task: self.task.clone(),
                chain: std::mem::take(&mut self.chain),
                target: Hop { url: next, kind },
                site: self.task.site,
            }));
        }
        self.chain.push(Hop {
            url: next.clone(),
            kind,
        });
        Step::Next(next)
    }

    /// On the home page's chain, a hop to another origin makes that origin an alias of the
    /// site (SPEC §2: `http://x.org` that moved to `https://www.x.org/` is crawled as that
    /// site) — unless another listed site has it. Returns whether `next` is on the site now.
    fn home_alias(&self, next: &NormUrl) -> bool {
        if self.task.level != 0 {
            return false;
        }
        let Some(origin) = Origin::of(next.as_url()) else {
            return false;
        };
        match self.env.sites.add_alias(self.task.site, origin) {
            Ok(added) => {
                self.log.note(format!(
                    "{}: the home page moved to {} (an alias of the site)",
                    self.site.origin, added.origin
                ));
                true
            }
            Err(_) => false,
        }
    }

    /// A 200 HTML answer's body (read within `MaxPageBytes`, counted by `permit` among the
    /// bodies held at once): the page for the parsers — or, when it refreshes elsewhere soon
    /// enough (`MetaRefreshMaxDelay`), a hop like a 302.
    pub(crate) fn body(
        &mut self,
        url: &NormUrl,
        declared: Declared,
        body: Result<Vec<u8>, super::FetchError>,
        mut permit: crate::base::bodies::BodyPermit,
        started: Instant,
    ) -> Step {
        let capture = self.pending.take();
        let body = match body {
            Ok(body) => body,
            Err(e) => {
                // An abandoned body is fetched again by the next run.
                if e != super::FetchError::Abandoned {
                    self.env.archive(capture.as_deref(), Some(Err(&e)));
                }
                return self.body_failed(url, e, started);
            }
        };
        permit.resize(body.len() as u64);
        self.logged(url, 200, body.len() as u64, started);
        if self.document.is_some() {
            // A document is neither refreshed nor sampled: its bytes are all it is. Its
            // answer is archived by the parser, next to its links, as a page's is.
            return Step::Done(self.page(declared, body, permit, None, capture));
        }
        if let Some((first_declared, first, permit, first_capture)) = self.sample.take() {
            self.env.archive(capture.as_deref(), Some(Ok(&body)));
            return Step::Done(self.page(first_declared, first, permit, Some(body), first_capture));
        }
        let tld = url.host().rsplit('.').next();
        let refresh = meta_refresh(&body, declared.content_type.as_deref(), tld)
            .filter(|r| r.delay <= self.env.options.meta_refresh_max_delay)
            .and_then(|r| r.url)
            .and_then(|target| url_norm::normalize(url.as_url(), target.trim()).ok())
            .filter(|next| next != url);
        if let Some(next) = refresh {
            self.env.archive(capture.as_deref(), Some(Ok(&body)));
            return self.hop(next, HopKind::MetaRefresh);
        }
        if self.env.options.duplicates == crate::model::fold::Duplicates::Fold
            && self
                .site
                .learning
                .wants_sample(self.task.level, || crate::model::fold::looks_dynamic(&body))
        {
            // The same URL once more, at the site's pace like any request: what differs
            // between the two copies is what the site changes per response.
            self.sample = Some((declared, body, permit, capture));
            return Step::Next(url.clone());
        }
        Step::Done(self.page(declared, body, permit, None, capture))
    }

    /// A page body that could not be read (too large, a timeout, a broken connection).
    fn body_failed(&mut self, url: &NormUrl, e: super::FetchError, started: Instant) -> Step {
        match e {
            _ if self.sample.is_some() => {
                self.logged(url, 200, 0, started);
                Step::Done(self.first_copy().unwrap_or(PageResult::Abandoned))
            }
            super::FetchError::Abandoned => Step::Done(PageResult::Abandoned),
            e => {
                self.logged(url, 200, 0, started);
                let reason = super::documents::failure_reason(self.document, &e);
                self.log.problem(&self.site.origin, url, &reason);
                let outcome = self.outcome(Failure::fetched(reason));
                // A body cut by a timeout or a broken connection may come whole next time,
                // as an answer that never came may (README: timeouts are retried).
                if e.is_transient() {
                    let transient = Transient::transport();
                    return Step::Done(PageResult::Retry { outcome, transient });
                }
                Step::Done(PageResult::Done(outcome))
            }
        }
    }
}

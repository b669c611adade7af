//! What the threads hand each other: a [`FetchTask`] from the dispatcher to a downloader, a
//! [`Downloaded`] page from a downloader to a parser, a [`PageRecord`] or another
//! [`Outcome`] from either to the data manager, and [`LogEvent`]s from everyone to the
//! routine thread.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;

use crate::base::ids::{ScopeId, SiteId, UrlId};
use crate::model::url_norm::NormUrl;

/// What a task fetches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskKind {
    /// The site's `/robots.txt` (always its first request).
    Robots,
    /// A URL of the crawl.
    Page,
    /// The site's sitemaps (`Sitemaps = yes`, SPEC §17): its robots.txt task, continued once
    /// the rules are known, before any page of the site.
    Sitemaps,
}

/// One URL to download.
#[derive(Debug, Clone)]
pub struct FetchTask {
    /// The crawl the URL belongs to.
    pub scope: ScopeId,
    /// The site it is on (politeness).
    pub site: SiteId,
    /// Its id in the scope (meaningless for robots tasks).
    pub url_id: UrlId,
    /// The URL.
    pub url: NormUrl,
    /// Its level when claimed (it may only get lower).
    pub level: u32,
    /// Page or robots.txt.
    pub kind: TaskKind,
}

/// How a failure was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decided {
    /// From a response or a transport error.
    ByRequest,
    /// From the URL alone (robots rules, extension), without a request: such a bad link is
    /// reported wherever it appears, even beyond `maxCrawlLevel`.
    WithoutRequest,
}

/// Why a URL is not a page; `reason` is the `Reason` column of `bad_links.csv`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// Human-readable reason: `status 404`, `robots`, `not html (application/pdf)`, …
    pub reason: String,
    /// How it was decided.
    pub decided: Decided,
}

impl Failure {
    /// A failure seen in a response or a transport error.
    pub fn fetched(reason: impl Into<String>) -> Self {
        Failure {
            reason: reason.into(),
            decided: Decided::ByRequest,
        }
    }

    /// A failure decided from the URL alone.
    pub fn without_request(reason: impl Into<String>) -> Self {
        Failure {
            reason: reason.into(),
            decided: Decided::WithoutRequest,
        }
    }
}

/// How a redirect hop was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HopKind {
    /// An HTTP redirect (301, 302, 303, 307, 308).
    Http,
    /// `<meta http-equiv="refresh" content="N; url=…">` (SPEC §2.4).
    MetaRefresh,
}

/// One redirect hop: where it led, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hop {
    /// The URL it led to.
    pub url: NormUrl,
    /// How.
    pub kind: HopKind,
}

/// A downloaded HTML page on its way to a parser.
#[derive(Debug)]
pub struct Downloaded {
    /// Redirect hops after the task's URL; the last one is the page's address. Empty: no
    /// redirect.
    pub chain: Vec<Hop>,
    /// The Content-Type header (for the charset).
    pub content_type: Option<String>,
    /// The body, decompressed.
    pub body: Vec<u8>,
    /// The body's bytes, counted against the bodies held at once until it is dropped.
    pub permit: crate::base::bodies::BodyPermit,
    /// A second copy of the page, fetched right after the first to learn what the site
    /// changes per response (SPEC §14; see `fold::learning`).
    pub twin: Option<Vec<u8>>,
    /// The site's cookie jar, when this walk's answers changed it (saved with the page).
    pub cookies: Option<crate::model::cookies::SavedJar>,
    /// The page's `X-Robots-Tag` header values, one per line (SPEC §17).
    pub robots_tag: Option<String>,
    /// Its answer, to archive with the body (`Archive = warc`): the parser archives it next
    /// to the page's links.
    pub capture: Option<Box<crate::formats::warc::Capture>>,
    /// What its Content-Type says it is: a page, or a document (`Documents = yes`, SPEC §19).
    pub node_type: crate::model::documents::NodeType,
}

impl Downloaded {
    /// The page's own address: the end of the redirect chain started by `task`.
    pub fn final_url<'a>(&'a self, task: &'a FetchTask) -> &'a NormUrl {
        self.chain.last().map_or(&task.url, |h| &h.url)
    }
}

/// Where a link on a page points, as the parser classified it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkTarget {
    /// In the crawl's scope.
    Internal {
        /// The normalized URL.
        url: NormUrl,
        /// Its site.
        site: SiteId,
        /// Set when the URL may not be fetched (robots, extension); boxed, as it is rare and
        /// a page may hold tens of thousands of targets.
        failure: Option<Box<Failure>>,
    },
    /// http(s) on another site.
    External(NormUrl),
    /// Left out of the results (`OtherSchemeLinks = Ignore`: the site's host under the other
    /// scheme).
    Ignored,
    /// Not a crawlable URL at all.
    Bad(Box<BadHref>),
}

/// A link that is not a crawlable URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadHref {
    /// The href as written (resolved when possible).
    pub raw: String,
    /// Why.
    pub reason: String,
}

/// One link on a page, in document order: which of the page's targets it points to, and
/// where its texts are in the page's [`PageLinks`] text buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
struct LinkEntry {
    /// Index into [`PageLinks`]' targets.
    target: u32,
    /// Byte range of the anchor text.
    anchor: (u32, u32),
    /// Byte range of the text around it (`ExternalLinkContext`; empty otherwise).
    context: (u32, u32),
    /// How many times in a row the page has this link (at least 1).
    times: u32,
    /// Its `rel` qualifiers.
    rel: crate::model::link_attrs::Rel,
}

/// One link of a page as read back from [`PageLinks`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageLink<'a> {
    /// Where it points.
    pub target: &'a LinkTarget,
    /// The target's place among the page's targets ([`PageLinks::target_count`]): links
    /// with the same index have the same target, so what is worked out for a target once
    /// holds for every link to it.
    pub target_index: usize,
    /// The anchor text.
    pub anchor: &'a str,
    /// The text around an external link (`ExternalLinkContext`; empty otherwise).
    pub context: &'a str,
    /// Its `rel` qualifiers (`nofollow`, `ugc`, `sponsored`).
    pub rel: crate::model::link_attrs::Rel,
}

/// A page's links in document order, their texts in one buffer. A source listing has tens
/// of thousands of links: a `String` for each anchor and context was an allocation each and
/// 104 bytes a link, 10 MB for one such page (issue 19); here an entry is the index of its
/// target, two ranges into one buffer and how many copies of the link follow each other.
///
/// Targets are kept apart from the links: a page names most of its targets several times
/// (a sidebar, a header and the text link to the same pages), and the parser adds each
/// target once ([`Self::add_target`], [`Self::push_to`]); the data manager then interns
/// each once per page instead of once per link.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageLinks {
    targets: Vec<LinkTarget>,
    entries: Vec<LinkEntry>,
    texts: String,
    /// Links, every copy counted (a page of at most 1 GiB has fewer than 2^32).
    len: u32,
    /// Links to targets beyond `MaxLinksPerPage`, left out by the parser.
    pub left_out: u32,
}

impl PageLinks {
    /// Adds a link without `rel` qualifiers to a target of its own. A link without texts,
    /// the same as the one before, counts as one more copy of it: a source listing's line
    /// anchors, which carry no text once the parser drops them, are one entry.
    pub fn push(&mut self, target: LinkTarget, anchor: &str, context: &str) {
        let rel = crate::model::link_attrs::Rel::NONE;
        if anchor.is_empty()
            && context.is_empty()
            && let Some(last) = self.entries.last()
            && self.targets[last.target as usize] == target
        {
            let t = last.target;
            self.push_to(t, anchor, context, rel);
            return;
        }
        let t = self.add_target(target);
        self.push_to(t, anchor, context, rel);
    }

    /// Adds a target no link points to yet; returns its index for [`Self::push_to`].
    pub fn add_target(&mut self, target: LinkTarget) -> u32 {
        // A page's targets are far fewer than 4 billion: a page is at most `MaxPageBytes`.
        let t = u32::try_from(self.targets.len()).unwrap_or(u32::MAX);
        self.targets.push(target);
        t
    }

    /// Target `t` (an index [`Self::add_target`] returned).
    pub fn target(&self, t: u32) -> &LinkTarget {
        &self.targets[t as usize]
    }

    /// How many targets the page's links point to (each counted once, as added).
    pub fn target_count(&self) -> usize {
        self.targets.len()
    }

    /// Adds a link to target `t` with `rel` qualifiers. A link without texts to the same
    /// target as the link before, with the same qualifiers, counts as one more copy of it.
    /// (Links with texts are not compared: copies of those seldom follow each other, and
    /// comparing every neighbour cost more than it saved.)
    pub fn push_to(
        &mut self,
        t: u32,
        anchor: &str,
        context: &str,
        rel: crate::model::link_attrs::Rel,
    ) {
        self.len = self.len.saturating_add(1);
        if anchor.is_empty()
            && context.is_empty()
            && let Some(last) = self.entries.last_mut()
            && last.times < u32::MAX
            && last.anchor.0 == last.anchor.1
            && last.context.0 == last.context.1
            && last.target == t
            && last.rel == rel
        {
            last.times += 1;
            return;
        }
        let anchor = self.add_text(anchor);
        let context = self.add_text(context);
        self.entries.push(LinkEntry {
            target: t,
            anchor,
            context,
            times: 1,
            rel,
        });
    }

    /// Appends `s` to the buffer; its range (empty past 4 GiB of text, which no page within
    /// `MaxPageBytes` reaches).
    fn add_text(&mut self, s: &str) -> (u32, u32) {
        let start = self.texts.len();
        let end = start + s.len();
        match (u32::try_from(start), u32::try_from(end)) {
            (Ok(a), Ok(b)) => {
                self.texts.push_str(s);
                (a, b)
            }
            _ => (0, 0),
        }
    }

    /// The links, in document order, every copy.
    pub fn iter(&self) -> impl Iterator<Item = PageLink<'_>> + '_ {
        self.entries.iter().flat_map(|e| {
            let link = PageLink {
                target: &self.targets[e.target as usize],
                target_index: e.target as usize,
                anchor: &self.texts[e.anchor.0 as usize..e.anchor.1 as usize],
                context: &self.texts[e.context.0 as usize..e.context.1 as usize],
                rel: e.rel,
            };
            std::iter::repeat_n(link, e.times as usize)
        })
    }

    /// Adds to each link, in document order and every copy, the qualifiers `mark` gives for
    /// its target (a rendered page's script-only links, SPEC §18).
    pub fn mark_each(
        &mut self,
        mut mark: impl FnMut(&LinkTarget) -> crate::model::link_attrs::Rel,
    ) {
        let mut out = Vec::with_capacity(self.entries.len());
        for e in std::mem::take(&mut self.entries) {
            let mut run: Option<LinkEntry> = None;
            for _ in 0..e.times {
                let rel = e.rel.with(mark(&self.targets[e.target as usize]));
                match &mut run {
                    Some(r) if r.rel == rel => r.times += 1,
                    _ => {
                        out.extend(run.take());
                        run = Some(LinkEntry {
                            times: 1,
                            rel,
                            ..e.clone()
                        });
                    }
                }
            }
            out.extend(run);
        }
        self.entries = out;
    }

    /// How many links, every copy counted.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl<'a> FromIterator<(LinkTarget, &'a str, &'a str)> for PageLinks {
    fn from_iter<I: IntoIterator<Item = (LinkTarget, &'a str, &'a str)>>(iter: I) -> Self {
        let mut links = PageLinks::default();
        for (target, anchor, context) in iter {
            links.push(target, anchor, context);
        }
        links
    }
}

/// What rendering says of a page (SPEC §18).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RenderMark {
    /// Its links were read from the DOM a browser rendered (nodes.csv `Rendered`).
    pub rendered: bool,
    /// The HTML the server sent looks built by scripts (a home page's, with `Render = no`,
    /// names its site in summary.csv).
    pub script_built: bool,
}

/// A parsed page, ready to be recorded.
#[derive(Debug, Clone)]
pub struct PageRecord {
    /// Redirect hops after the task URL (the last is the page address).
    pub chain: Vec<Hop>,
    /// Content hash of the body (128-bit xxh3).
    pub hash: u128,
    /// The fold digests (SPEC §14; zero with `Duplicates = exact`).
    pub digests: crate::model::fold::Digests,
    /// The print rule's sketch of its text, for a print version or a page that links to one
    /// ([`crate::model::fold::print_sketch`]; empty: none).
    pub print_sketch: String,
    /// The page looks like a "not found" page (its text names its own address, or its title
    /// says 404): the site's soft-404 probe is asked for.
    pub soft_404_suspect: bool,
    /// The site's rules after this page's two copies taught something new (saved with the
    /// crawl's state, SPEC §14).
    pub learned: Option<std::sync::Arc<crate::model::fold::SiteRules>>,
    /// Requests made for this page besides its redirect chain (its second copy, what the
    /// browser asked for while it rendered it).
    pub extra_requests: u32,
    /// Whether it was rendered, or looks script-built (SPEC §18).
    pub render: RenderMark,
    /// The site's cookie jar, when fetching this page changed it (saved with the crawl's
    /// state, SPEC §14).
    pub cookies: Option<Box<crate::model::cookies::SavedJar>>,
    /// Body size in bytes.
    pub bytes: u64,
    /// The `<title>`.
    pub title: String,
    /// The `<link rel="canonical">` URL, normalized (empty: none).
    pub canonical: String,
    /// Its robots directives, from meta tags and `X-Robots-Tag` ([`crate::model::link_attrs::Robots`]
    /// text; empty: none).
    pub robots: String,
    /// Links in document order.
    pub links: PageLinks,
    /// Why the page is not kept although it was fetched (a probed page off topic,
    /// `TopicFilter`): it is then a bad link with this reason.
    pub rejected: Option<String>,
    /// What it is: a page, or a document (`Documents = yes`, SPEC §19).
    pub node_type: crate::model::documents::NodeType,
    /// Its text for text.csv (`PageText = yes`; boxed, as most crawls keep none).
    pub text: Option<Box<crate::model::fold::page_text::PageText>>,
    /// What went wrong reading it (a PDF that could not be read), for the error log.
    pub problem: Option<String>,
}

/// What became of one claimed URL. Every claimed URL ends in exactly one `Outcome`.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// An HTML page.
    Page {
        /// The task.
        task: FetchTask,
        /// The page (boxed: it is by far the largest outcome, and the others travel the same
        /// channels).
        page: Box<PageRecord>,
    },
    /// A redirect (chain) to another site: links to this URL are external links.
    OffSite {
        /// The task.
        task: FetchTask,
        /// Same-site hops before leaving.
        chain: Vec<Hop>,
        /// The off-site address.
        target: NormUrl,
    },
    /// Not a page.
    Failed {
        /// The task.
        task: FetchTask,
        /// Redirect hops before the failure (the failure applies to the last one).
        chain: Vec<Hop>,
        /// Why.
        failure: Failure,
    },
    /// A redirect (chain) to a URL that another fetch decides: on another site of the same
    /// scope (a multi-host scope, SPEC §6: the target is fetched there, with that site's
    /// politeness, at the task's level), or on this site when another task fetches it or
    /// has fetched it already (so it is never fetched twice).
    Elsewhere {
        /// The task.
        task: FetchTask,
        /// Same-site hops before leaving.
        chain: Vec<Hop>,
        /// The address on the other site, and how the last hop got there.
        target: Hop,
        /// The target's site.
        site: SiteId,
    },
}

impl Outcome {
    /// The task this outcome answers.
    pub fn task(&self) -> &FetchTask {
        match self {
            Outcome::Page { task, .. }
            | Outcome::OffSite { task, .. }
            | Outcome::Failed { task, .. }
            | Outcome::Elsewhere { task, .. } => task,
        }
    }
}

/// Something for the log files or the console; the routine thread is the only writer.
#[derive(Debug, Clone)]
pub enum LogEvent {
    /// A request finished (common log).
    Request {
        /// Site (its name is looked up by the routine thread: no string per request).
        site: SiteId,
        /// URL requested.
        url: NormUrl,
        /// HTTP status, or 0 when there was no response.
        status: u16,
        /// Body bytes read.
        bytes: u64,
        /// Duration.
        elapsed: Duration,
        /// When it started, on the wall clock (the common log's `Time`).
        at: std::time::SystemTime,
        /// Names of the cookies its answer set (`;`-separated), empty when none.
        set_cookie: String,
    },
    /// Something went wrong with a URL (error log).
    Problem {
        /// Site.
        site: String,
        /// URL.
        url: String,
        /// What happened.
        what: String,
    },
    /// A line for the console (and the error log when `important`).
    Note {
        /// The text.
        text: String,
    },
}

/// Whether a redirect hop's target may be fetched by the chain that reached it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HopClaim {
    /// Yes: this chain fetches it (a queued URL is taken from its frontier for it).
    Fetch,
    /// No: another task fetches it, or it is decided already; the chain ends with a hop to it.
    Taken,
}

/// A handle for sending log events; sending never fails the caller (if the routine thread is
/// gone, the crawl is over anyway). Problems are counted as they are sent, so whoever shows
/// the count (the status page) need not read the events the routine writes.
#[derive(Debug, Clone)]
pub struct Log {
    tx: Sender<LogEvent>,
    problems: Arc<AtomicU64>,
}

impl Log {
    /// Events into `tx`, each problem counted in `problems`.
    pub fn new(tx: Sender<LogEvent>, problems: Arc<AtomicU64>) -> Self {
        Log { tx, problems }
    }

    /// Sends one event.
    pub fn send(&self, ev: LogEvent) {
        if matches!(ev, LogEvent::Problem { .. }) {
            self.problems.fetch_add(1, Ordering::Relaxed);
        }
        let _ = self.tx.send(ev);
    }

    /// A problem with a URL (error log).
    pub fn problem(&self, site: &impl ToString, url: &impl ToString, what: impl Into<String>) {
        self.send(LogEvent::Problem {
            site: site.to_string(),
            url: url.to_string(),
            what: what.into(),
        });
    }

    /// A request made (common log): `status` 0 when there was no response.
    pub fn request(&self, site: SiteId, url: &NormUrl, status: u16, bytes: u64, started: Instant) {
        self.request_setting(site, url, status, bytes, started, String::new());
    }

    /// A request whose answer set cookies (their names, `;`-separated; empty: none).
    pub fn request_setting(
        &self,
        site: SiteId,
        url: &NormUrl,
        status: u16,
        bytes: u64,
        started: Instant,
        set_cookie: String,
    ) {
        let elapsed = started.elapsed();
        let now = std::time::SystemTime::now();
        self.send(LogEvent::Request {
            site,
            url: url.clone(),
            status,
            bytes,
            elapsed,
            at: now.checked_sub(elapsed).unwrap_or(now),
            set_cookie,
        });
    }

    /// A console note.
    pub fn note(&self, text: impl Into<String>) {
        self.send(LogEvent::Note { text: text.into() });
    }
}

#[cfg(test)]
mod page_links_tests {
    use super::*;
    use crate::model::link_attrs::Rel;

    #[test]
    fn copies_in_a_row_are_one_entry_and_every_copy_reads_back() {
        let home = LinkTarget::External(NormUrl::parse("http://a.test/").unwrap());
        let other = LinkTarget::External(NormUrl::parse("http://b.test/").unwrap());
        let mut links = PageLinks::default();
        for (target, anchor) in [
            (&home, ""),
            (&home, ""),
            (&home, ""),
            (&home, "named"),
            (&home, "named"),
            (&other, ""),
            (&home, ""),
        ] {
            links.push(target.clone(), anchor, "");
        }
        assert_eq!(links.len(), 7);
        assert_eq!(
            links.entries.len(),
            5,
            "the first three are one entry; links with texts are not compared"
        );
        let read: Vec<(String, &str)> = links
            .iter()
            .map(|l| {
                let LinkTarget::External(u) = l.target else {
                    panic!("{l:?}")
                };
                (u.as_str().to_owned(), l.anchor)
            })
            .collect();
        assert_eq!(read.len(), 7);
        assert_eq!(read[3], ("http://a.test/".to_owned(), "named"));
        assert_eq!(read[4], ("http://a.test/".to_owned(), "named"));
        assert_eq!(read[5].0, "http://b.test/");
        assert_eq!(read[6], ("http://a.test/".to_owned(), ""));
    }

    #[test]
    fn links_added_to_one_target_share_it() {
        let target = |p: &str| LinkTarget::External(NormUrl::parse(p).unwrap());
        let mut links = PageLinks::default();
        let a = links.add_target(target("http://a.test/"));
        let b = links.add_target(target("http://b.test/"));
        let (none, nofollow) = (Rel::NONE, Rel::NOFOLLOW);
        links.push_to(a, "one", "", none);
        links.push_to(b, "", "", none);
        links.push_to(a, "two", "", none);
        links.push_to(a, "", "", none);
        links.push_to(a, "", "", none);
        links.push_to(a, "", "", nofollow);
        links.push_to(a, "", "", nofollow);
        assert_eq!((links.len(), links.target_count()), (7, 2));
        assert_eq!(
            links.entries.len(),
            5,
            "the copies in a row without texts, with the same rel, are one"
        );
        let rels: Vec<Rel> = links.iter().map(|l| l.rel).collect();
        assert_eq!(rels[..5], [none; 5]);
        assert_eq!(rels[5..], [nofollow; 2]);
        let read: Vec<(usize, &str, &str)> = links
            .iter()
            .map(|l| {
                let LinkTarget::External(u) = l.target else {
                    panic!("{l:?}")
                };
                (l.target_index, u.as_str(), l.anchor)
            })
            .collect();
        assert_eq!(
            read,
            vec![
                (0, "http://a.test/", "one"),
                (1, "http://b.test/", ""),
                (0, "http://a.test/", "two"),
                (0, "http://a.test/", ""),
                (0, "http://a.test/", ""),
                (0, "http://a.test/", ""),
                (0, "http://a.test/", ""),
            ]
        );
    }
}

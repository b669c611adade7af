//! `PT0`: the HTML parser. Decodes each page, extracts its links, resolves them against
//! `<base href>` or the page address, normalizes and classifies them (internal / external /
//! bad, with the link-time checks of internal URLs), and hashes the body.

use hashbrown::HashMap;
use url::Url;

use super::href_cache::{self, HrefCache};
use super::links::{Extracted, Wanted};
use super::{PageParser, ParseEnv, ParseWorker, charset, links};
use crate::crawl::message::{
    BadHref, Downloaded, Failure, FetchTask, LinkTarget, PageLinks, PageRecord,
};
use crate::model::fold::{self, Digests, Duplicates};
use crate::model::link_attrs::Robots;
use crate::model::path_rules::EXCLUDED;
use crate::model::sites::{OtherScheme, SiteEntry, SiteView};
use crate::model::url_norm::{self, UrlError};
use crate::model::url_rules::RuleLimits;

/// The HTML parser component.
#[derive(Debug, Clone, Copy, Default)]
pub struct HtmlParser;

impl PageParser for HtmlParser {
    fn worker(&self, env: &ParseEnv<'_>) -> Box<dyn ParseWorker> {
        Box::new(
            HtmlWorker::new(
                env.options.max_url_length,
                env.options.rule_limits,
                env.options.external_link_context,
            )
            .reading_robots_for(&env.options.robots_agent),
        )
    }
}

/// What a parser thread keeps from page to page: its href cache and the buffers of link
/// extraction.
#[derive(Debug)]
pub struct HtmlWorker {
    cache: HrefCache,
    extracted: Extracted,
    /// Characters of context kept for external links (`ExternalLinkContext`; 0: none).
    context: usize,
    /// Our robots product token: meta tags and `X-Robots-Tag` lines named after it are ours.
    agent: String,
    /// The thread's PDF reader (`Documents = yes`).
    pdf: super::pdf_child::PdfReader,
}

impl HtmlWorker {
    /// Fresh, for URLs of at most `max_url_length` bytes checked against the URL rules with
    /// `limits`, keeping `context` characters of context for external links.
    pub fn new(max_url_length: usize, limits: RuleLimits, context: usize) -> Self {
        HtmlWorker {
            cache: HrefCache::new(max_url_length, href_cache::DEFAULT_ENTRIES, limits),
            extracted: Extracted::default(),
            context,
            agent: String::new(),
            pdf: Default::default(),
        }
    }

    /// The worker, reading robots directives addressed to `agent` besides those to all
    /// crawlers.
    pub fn reading_robots_for(mut self, agent: &str) -> Self {
        self.agent = agent.to_owned();
        self
    }
}

impl ParseWorker for HtmlWorker {
    fn parse(&mut self, env: &ParseEnv<'_>, task: &FetchTask, page: Downloaded) -> PageRecord {
        let site = env.sites.get(task.site);
        if page.node_type.is_document() {
            let readers = (&mut self.cache, &mut self.pdf);
            return super::document::parse_document(env, &site, task, page, readers);
        }
        parse_page(env, &site, task, page, self)
    }
}

/// Turns a downloaded page into a record (pure apart from reading robots rules).
fn parse_page(
    env: &ParseEnv<'_>,
    site: &SiteEntry,
    task: &FetchTask,
    page: Downloaded,
    worker: &mut HtmlWorker,
) -> PageRecord {
    let page_url = page.final_url(task).clone();
    let page_url = page_url.as_url();
    let Downloaded {
        chain,
        content_type,
        body,
        permit,
        twin,
        cookies,
        robots_tag,
        // Archived by the parsing thread before the page came here.
        capture: _,
        node_type,
    } = page;
    let cookies = cookies.map(Box::new);
    let hash = xxhash_rust::xxh3::xxh3_128(&body);
    let bytes = body.len() as u64;
    // The top-level domain helps the charset detector with pages that declare none.
    let tld = page_url.host_str().and_then(|h| h.rsplit('.').next());
    let HtmlWorker {
        cache,
        extracted,
        context,
        agent,
        ..
    } = worker;
    // A page of a probed host (TopicFilter) is kept only when it is about the topic.
    let topic = site.is_probed().then(|| env.filter.topic()).flatten();
    let wanted = Wanted {
        context: *context,
        body_text: topic.is_some(),
        agent,
    };
    let extra_requests = u32::from(twin.is_some());
    let mut learned = None;
    let mut page_text = None;
    let (digests, print_sketch) = {
        let (text, _) = charset::decode(&body, content_type.as_deref(), tld);
        links::extract_into(&text, extracted, wanted);
        if env.options.page_text > 0 {
            page_text = Some(Box::new(fold::page_text::page_text(
                &text,
                env.options.page_text,
            )));
        }
        if let Some(twin) = &twin {
            let (second, _) = charset::decode(twin, content_type.as_deref(), tld);
            learned = learn_from_copies(site, (&text, extracted), &second, *twin != body);
        }
        digests_of(env, site, &text, page_url, hash, extracted)
    };
    drop(twin);
    // Everything the record needs is extracted: the body goes before the links are
    // classified (a page of 8 MB with 74,000 links held both, and the end of the Rust
    // documentation's crawl parses two such pages at once).
    drop(body);
    drop(permit);
    let robots = robots_of(extracted, robots_tag.as_deref(), agent);
    // A page left out for its topic keeps no links.
    let rejected = topic.and_then(|t| rejected_by_topic(t, extracted));
    let (links, canonical) = if rejected.is_some() {
        (PageLinks::default(), String::new())
    } else {
        links_and_canonical(env, site, page_url, extracted, cache)
    };
    let title = extracted.title.clone();
    let soft_404_suspect = rejected.is_none()
        && env.options.duplicates == Duplicates::Fold
        && (digests.names_itself || fold::title_says_not_found(&title));
    extracted.release_excess();
    PageRecord {
        chain,
        hash,
        digests,
        print_sketch,
        soft_404_suspect,
        learned,
        extra_requests,
        render: Default::default(),
        cookies,
        bytes,
        title,
        canonical,
        robots,
        links,
        rejected,
        node_type,
        text: page_text,
        problem: None,
    }
}

/// The page's links, classified, and its canonical URL (normalized; empty: none), both
/// against its `<base href>` when it has a usable one.
fn links_and_canonical(
    env: &ParseEnv<'_>,
    site: &SiteEntry,
    page_url: &Url,
    extracted: &Extracted,
    cache: &mut HrefCache,
) -> (PageLinks, String) {
    let base = extracted
        .base_href
        .as_deref()
        .and_then(|b| url_norm::resolve(page_url, b.trim()).ok())
        .filter(|b| matches!(b.scheme(), "http" | "https"))
        .unwrap_or_else(|| page_url.clone());
    let links = classify_links(env, site, &base, page_url, extracted, cache);
    let canonical = extracted
        .canonical
        .as_deref()
        .and_then(|c| url_norm::normalize(&base, c.trim()).ok())
        .map(|c| c.as_str().to_owned())
        .unwrap_or_default();
    (links, canonical)
}

/// The page's robots directives for us (SPEC §17): its meta tags', then its `X-Robots-Tag`
/// headers' (`robots_tag`, one per line).
fn robots_of(extracted: &Extracted, robots_tag: Option<&str>, agent: &str) -> String {
    Robots::gather(
        [extracted.meta_robots.as_str()],
        robots_tag.into_iter().flat_map(str::lines),
        agent,
    )
    .as_str()
    .to_owned()
}

/// What the site's rules are after comparing two copies of one page fetched one after the
/// other (SPEC §14), if that taught something new: what changed in them, and the session ids
/// their links carry (the first copy's links are extracted already; the second's are read
/// here — a few pages per site).
fn learn_from_copies(
    site: &SiteEntry,
    (first, first_links): (&str, &Extracted),
    second: &str,
    bytes_differ: bool,
) -> Option<std::sync::Arc<fold::SiteRules>> {
    let mut taught = fold::learn::learn(first, second);
    let second_links = links::extract(second);
    taught.session_params = fold::session::detect(
        first_links.links().map(|l| l.href),
        second_links.links().map(|l| l.href),
    );
    if site.learning.learned(&taught, bytes_differ) {
        site.learning.rules()
    } else {
        None
    }
}

/// Why a page of a probed host is left out for its topic, if it is.
fn rejected_by_topic(
    topic: &crate::model::url_filter::topic::Topic,
    extracted: &Extracted,
) -> Option<String> {
    let score = topic.score(&extracted.title, &extracted.body);
    (!topic.keeps(score)).then(|| {
        format!(
            "topic score {:.2}, not above {}",
            score.value,
            topic.threshold()
        )
    })
}

/// A page's fold digests (SPEC §14) under its site's rules so far. They are computed in full
/// only where something can differ between two addresses of the page: on a site that changes
/// its pages per response, on a page with per-request parts, one that writes its own address,
/// a print version or a page that links to one. Elsewhere a page's bytes are all there is to
/// compare, and its digests are its hash's (a static site's pages cost one substring search).
fn digests_of(
    env: &ParseEnv<'_>,
    site: &SiteEntry,
    text: &str,
    page_url: &Url,
    hash: u128,
    extracted: &Extracted,
) -> (Digests, String) {
    let bytes_only = || Digests::of_bytes(hash, extracted.visible_text);
    let exact = env.options.duplicates == Duplicates::Exact;
    let rules = if exact { None } else { site.learning.rules() };
    let full = rules.is_some()
        || (!exact && site.learning.is_dynamic())
        || fold::needs_full_digest(
            text,
            page_url,
            extracted.per_request_signs,
            extracted.links().map(|l| l.href),
        );
    // A print version, or a page that links to its own: its text's blocks too, for the print
    // rule (a print template of its own keeps the page's blocks).
    let sketch = !exact
        && full
        && (fold::url_shape::may_be_print(page_url.as_str())
            || extracted
                .links()
                .any(|l| is_own_print_version(page_url, l.href)));
    let default_rules = fold::SiteRules::default();
    let (d, sketch) = match (full, rules.as_deref()) {
        (false, _) => (bytes_only(), None),
        (true, rules) => {
            fold::digest_with_sketch(text, page_url, rules.unwrap_or(&default_rules), sketch)
        }
    };
    if exact {
        // Equal bytes only: no fold digest; the text digest the fold rule would write still
        // tells `compare` what changed (a static site's nodes.csv is the same either way).
        return (
            Digests {
                request: 0,
                own: 0,
                ..d
            },
            String::new(),
        );
    }
    (d, sketch.unwrap_or_default())
}

/// Whether `href` (on `page`) is a print version of `page` itself: a book's one `print.html`
/// linked from every chapter is none of the chapters' (their sketches would cost parse time
/// on every chapter of the Rust documentation's books for nothing).
fn is_own_print_version(page: &Url, href: &str) -> bool {
    if !fold::url_shape::may_be_print(href) {
        return false;
    }
    let Some(target) = page
        .join(href)
        .ok()
        .and_then(|u| fold::url_shape::print_target(u.as_str()))
    else {
        return false;
    };
    let canonical = fold::url_shape::canonical;
    canonical(&target).is_some() && canonical(&target) == canonical(page.as_str())
}

/// The page's links, classified once per distinct href and in document order.
fn classify_links(
    env: &ParseEnv<'_>,
    site: &SiteEntry,
    base: &Url,
    page_url: &Url,
    extracted: &Extracted,
    cache: &mut HrefCache,
) -> PageLinks {
    let origins = site.origins();
    let view = SiteView {
        entry: site,
        origins: &origins,
    };
    // A page's links repeat (a sidebar names the same pages; a source listing has tens of
    // thousands of `#L123` line anchors): within one page the base is fixed, so an href
    // classified once answers for every copy, and every `#…` href resolves to the page
    // itself — one `NormUrl` shared instead of one allocated per link.
    // The target is added to the page's links once, and every copy points to it.
    // Sized for an ordinary page's links at once (growing it was 1 % of a parser's time);
    // a source listing's thousands of `#L…` anchors are one entry, so no more than that.
    let mut seen: HashMap<&str, u32> = HashMap::with_capacity(extracted.links().len().min(1024));
    // Not sized by the links found: copies in a row share an entry.
    let mut links = PageLinks::default();
    let most = env.options.max_links_per_page as usize;
    for raw in extracted.links() {
        let key = if raw.href.starts_with('#') {
            "#"
        } else {
            raw.href
        };
        let t = match seen.get(key) {
            Some(&t) => t,
            // A page of more distinct targets than MaxLinksPerPage: its links to further
            // ones are left out (each target costs the parser a URL; pages of hundreds of
            // thousands of them held hundreds of MB while parsed).
            None if most > 0 && links.target_count() >= most => {
                links.left_out += 1;
                continue;
            }
            None => {
                let target = classify(env, &view, base, raw.href, cache);
                // A bad `#…` link keeps its own text (the base is what failed).
                let shared = key != "#" || !matches!(target, LinkTarget::Bad(_));
                let t = links.add_target(target);
                if shared {
                    seen.insert(key, t);
                }
                t
            }
        };
        let target = links.target(t);
        // Only external links keep a context: they are what it is for (BeeBot).
        let context = match target {
            LinkTarget::External(_) => raw.context,
            _ => "",
        };
        // A link to the page itself never leads off the site, and only such a link's anchor
        // is ever read (the data manager keeps none): without it, a source listing's line
        // anchors are one entry.
        let anchor = match target {
            LinkTarget::Internal { url, .. } if url.as_url() == page_url => "",
            _ => raw.anchor,
        };
        links.push_to(t, anchor, context, raw.rel);
    }
    links
}

/// Internal, external or bad (SPEC §2.8), with the link-time checks of internal URLs.
pub(super) fn classify(
    env: &ParseEnv<'_>,
    site: &SiteView<'_>,
    base: &Url,
    href: &str,
    cache: &mut HrefCache,
) -> LinkTarget {
    let (url, refusal) = match cache.normalize_checked(base, href) {
        Ok(checked) => checked,
        // MaxUrlLength is for URLs we would fetch: a long external link is still a link the
        // site makes (SPEC §5: external links are the product; a documentation site's
        // playground links run to thousands of bytes).
        Err(e @ UrlError::TooLong(_)) => match url_norm::normalize(base, href) {
            Ok(long)
                if env
                    .filter
                    .scope_site(site, long.as_url(), env.sites)
                    .is_none() =>
            {
                if env.options.other_scheme_links == OtherScheme::Ignore
                    && site.is_other_scheme(long.as_url())
                {
                    return LinkTarget::Ignored;
                }
                return LinkTarget::External(long);
            }
            _ => {
                return LinkTarget::Bad(Box::new(BadHref {
                    raw: url_norm::resolve(base, href)
                        .map(String::from)
                        .unwrap_or_else(|_| href.trim().to_owned()),
                    reason: e.to_string(),
                }));
            }
        },
        Err(e) => {
            // The link as resolved when it resolves (mailto:…, a too long URL), else as written.
            let raw = match &e {
                UrlError::Unparseable => href.trim().to_owned(),
                _ => url_norm::resolve(base, href)
                    .map(String::from)
                    .unwrap_or_else(|_| href.trim().to_owned()),
            };
            return LinkTarget::Bad(Box::new(BadHref {
                raw,
                reason: e.to_string(),
            }));
        }
    };
    let Some(target_site) = env.filter.scope_site(site, url.as_url(), env.sites) else {
        if env.options.other_scheme_links == OtherScheme::Ignore
            && site.is_other_scheme(url.as_url())
        {
            return LinkTarget::Ignored;
        }
        return LinkTarget::External(url);
    };
    let failure = if let Some(reason) = refusal {
        Some(Failure::without_request(reason.into_string()))
    } else {
        // Borrowed from the page's snapshot, not cloned: an Arc count touched by every link of
        // every parser thread would bounce between cores.
        let (other, other_origin);
        let (origin, rules) = if target_site == site.entry.id {
            (site.origin_of(url.as_url()), &site.entry.spec.rules)
        } else {
            other = env.sites.get(target_site);
            other_origin = other.origin_of(url.as_url());
            (other_origin.as_ref(), &other.spec.rules)
        };
        // Unknown rules (an alias whose robots.txt is not fetched yet): checked when fetched.
        origin
            .and_then(|o| o.robots())
            .filter(|r| !r.allowed(url.path_and_query()))
            .map(|r| Failure::without_request(r.denial_reason()))
            // hosts.txt's include= and exclude= for the site (crate::model::path_rules).
            .or_else(|| {
                (!rules.allows(url.path_and_query())).then(|| Failure::without_request(EXCLUDED))
            })
    };
    LinkTarget::Internal {
        url,
        site: target_site,
        failure: failure.map(Box::new),
    }
}

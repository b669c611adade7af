//! A document's record (`Documents = yes`, SPEC §19): its bytes' hash (two URLs serving the
//! same bytes are one node), its size and type; a PDF's link annotations as its links and its
//! text; any other document is a leaf.

use super::ParseEnv;
use super::href_cache::HrefCache;
use super::pdf_child::PdfReader;
use crate::crawl::message::{Downloaded, FetchTask, LinkTarget, PageLinks, PageRecord};
use crate::formats::pdf::PdfLimits;
use crate::model::documents::NodeType;
use crate::model::fold::page_text::PageText;
use crate::model::fold::{Digests, Duplicates};
use crate::model::sites::{SiteEntry, SiteView};

/// Turns a downloaded document into its record.
pub(super) fn parse_document(
    env: &ParseEnv<'_>,
    site: &SiteEntry,
    task: &FetchTask,
    page: Downloaded,
    (cache, pdf): (&mut HrefCache, &mut PdfReader),
) -> PageRecord {
    let page_url = page.final_url(task).clone();
    let Downloaded {
        chain,
        body,
        permit,
        cookies,
        robots_tag,
        node_type,
        ..
    } = page;
    let hash = xxhash_rust::xxh3::xxh3_128(&body);
    let bytes = body.len() as u64;
    // Its bytes are all there is to compare: no template, no per-response parts.
    let digests = match env.options.duplicates {
        Duplicates::Exact => Digests::default(),
        Duplicates::Fold => Digests::of_bytes(hash, 0),
    };
    let max_text = env.options.page_text;
    let mut text = (max_text > 0).then(|| Box::new(PageText::of_words([], max_text)));
    let mut links = PageLinks::default();
    let mut problem = None;
    if node_type == NodeType::Pdf {
        let limits = PdfLimits {
            max_text_bytes: max_text,
            ..PdfLimits::default()
        };
        match pdf.read(&body, limits) {
            Ok(content) => {
                if max_text > 0 {
                    let words = content.text.split_whitespace();
                    text = Some(Box::new(PageText::of_words(words, max_text)));
                }
                links = classify(env, site, &page_url, &content.links, cache);
            }
            Err(e) => problem = Some(e.to_string()),
        }
    }
    drop(body);
    drop(permit);
    let robots = crate::model::link_attrs::Robots::gather(
        [""],
        robots_tag.as_deref().into_iter().flat_map(str::lines),
        &env.options.robots_agent,
    )
    .as_str()
    .to_owned();
    PageRecord {
        chain,
        hash,
        digests,
        print_sketch: String::new(),
        soft_404_suspect: false,
        learned: None,
        extra_requests: 0,
        render: Default::default(),
        cookies: cookies.map(Box::new),
        bytes,
        title: String::new(),
        canonical: String::new(),
        robots,
        links,
        rejected: None,
        node_type,
        text,
        problem,
    }
}

/// The PDF's links, classified like a page's (relative URIs against the document's address).
fn classify(
    env: &ParseEnv<'_>,
    site: &SiteEntry,
    page_url: &crate::model::url_norm::NormUrl,
    found: &[crate::formats::pdf::PdfLink],
    cache: &mut HrefCache,
) -> PageLinks {
    let origins = site.origins();
    let view = SiteView {
        entry: site,
        origins: &origins,
    };
    let mut links = PageLinks::default();
    let most = env.options.max_links_per_page as usize;
    let mut seen = hashbrown::HashMap::<&str, u32>::new();
    for link in found {
        let t = match seen.get(link.uri.as_str()) {
            Some(&t) => t,
            None if most > 0 && links.target_count() >= most => {
                links.left_out += 1;
                continue;
            }
            None => {
                let target =
                    super::html_parser::classify(env, &view, page_url.as_url(), &link.uri, cache);
                let t = links.add_target(target);
                seen.insert(&link.uri, t);
                t
            }
        };
        let anchor = super::text::clean_text(&link.anchor);
        let rel = crate::model::link_attrs::Rel::NONE;
        let self_link =
            matches!(links.target(t), LinkTarget::Internal { url, .. } if url == page_url);
        links.push_to(t, if self_link { "" } else { &anchor }, "", rel);
    }
    links
}

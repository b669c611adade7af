//! Which earlier node a page of the breadth-first walk is (SPEC §2.6, §14), and why: equal
//! bytes; equal once the parts that change per response are masked; equal once the page's own
//! address is masked too; or a print version whose text is the node's. The URLs' shapes name
//! the reason when they tell it (a tracking parameter, an index document, …).

use hashbrown::HashMap;

use super::{ScopeGraph, UrlState};
use crate::crawl::data::records::PageMeta;
use crate::model::fold::url_shape::{ShapeReason, print_target, shape_reason_in};

/// Why an alias URL maps to a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AliasReason {
    /// The URL redirects to the node's page.
    Redirect,
    /// The URL's page refreshes to the node's page (`<meta http-equiv="refresh">`).
    MetaRefresh,
    /// The URL's page has the same content hash.
    SameContent,
    /// Equal once what the site changes per response is masked.
    PerRequest,
    /// Equal once the page's own address is masked.
    OwnUrl,
    /// The URLs' shapes say why (the content decided that they are one page).
    Shape(ShapeReason),
}

impl AliasReason {
    /// The `Reason` column of duplicates.csv.
    pub fn as_str(self) -> &'static str {
        match self {
            AliasReason::Redirect => "redirect",
            AliasReason::MetaRefresh => "meta refresh",
            AliasReason::SameContent => "same content",
            AliasReason::PerRequest => "same content but per-request parts",
            AliasReason::OwnUrl => "own URL",
            AliasReason::Shape(s) => s.as_str(),
        }
    }
}

/// The nodes so far, by every key a later page may match.
#[derive(Debug, Default)]
pub(super) struct Folder {
    exact: HashMap<u128, u32>,
    request: HashMap<u64, u32>,
    own: HashMap<u64, u32>,
    /// Print nodes by the URL id of the page they render, with their text digest and sketch.
    print_of: HashMap<u32, (u32, u64, Option<u32>)>,
    /// Nodes by URL id, with their text digest and sketch (for a print version met after its
    /// page).
    by_url: HashMap<u32, (u32, u64, Option<u32>)>,
    /// What the site answered for a path it cannot have (its soft-404 probe), when that was
    /// a page other than the home page: (URL id, exact hash, own-address digest).
    soft_404: Vec<(u32, u128, u64)>,
    /// Query parameters the scope's sites' links showed to be session ids (SPEC §14).
    session: std::collections::BTreeSet<String>,
}

/// Whether a URL may name a print or AMP rendering (checked before it is parsed).
fn may_be_print(url: &str) -> bool {
    let b = url.as_bytes();
    b.windows(5).any(|w| w.eq_ignore_ascii_case(b"print"))
        || b.windows(3).any(|w| w.eq_ignore_ascii_case(b"amp"))
}

/// The URL id of the page a print URL renders, if it is one and that URL is known.
fn print_target_id(g: &ScopeGraph, url: &str) -> Option<u32> {
    if !may_be_print(url) {
        return None;
    }
    g.urls.lookup(&print_target(url)?)
}

impl Folder {
    /// A folder for the walk of `g`, knowing what its soft-404 probes found.
    pub(super) fn new(g: &ScopeGraph) -> Self {
        let page_of = |id: u32| -> Option<(u32, PageMeta)> {
            let mut cur = id;
            for _ in 0..16 {
                let rec = g.recs[cur as usize];
                if rec.state == UrlState::Page {
                    return Some((cur, g.pages[rec.data as usize].meta));
                }
                if !rec.state.is_hop() {
                    return None;
                }
                cur = rec.data;
            }
            None
        };
        let homes: Vec<(u32, PageMeta)> = g.homes().filter_map(page_of).collect();
        let mut soft_404 = Vec::new();
        for id in 0..g.recs.len() as u32 {
            let rec = g.recs[id as usize];
            if rec.state == UrlState::External
                || rec.state.is_open()
                || !g.url(id).ends_with(crate::model::fold::SOFT_404_PROBE)
            {
                continue;
            }
            let Some((page, meta)) = page_of(id) else {
                continue;
            };
            let own = meta.fold_digests().own;
            // A site that answers unknown paths with its home page has no "not found" page:
            // such URLs are aliases of the home page.
            let home_like = homes.iter().any(|(h, m)| {
                *h == page || m.hash() == meta.hash() || (own != 0 && m.fold_digests().own == own)
            });
            if !home_like {
                soft_404.push((page, meta.hash(), own));
            }
        }
        let session = g
            .memory
            .learned()
            .iter()
            .flat_map(|(_, rules)| rules.session_params.iter().cloned())
            .collect();
        Folder {
            soft_404,
            session,
            ..Folder::default()
        }
    }

    /// Whether the page of `url` is what the site answers for any unknown path (a soft 404).
    pub(super) fn is_soft_404(&self, url: u32, meta: &PageMeta) -> bool {
        let own = meta.fold_digests().own;
        self.soft_404
            .iter()
            .any(|&(page, hash, o)| page == url || hash == meta.hash() || (own != 0 && o == own))
    }

    /// The node an earlier page of `url` with `meta` makes this one, and why.
    /// `node_url` names a node's URL.
    pub(super) fn find<'g>(
        &self,
        g: &'g ScopeGraph,
        url: u32,
        meta: &PageMeta,
        node_url: impl Fn(u32) -> &'g str,
    ) -> Option<(u32, AliasReason)> {
        let d = meta.fold_digests();
        let content = self
            .exact
            .get(&meta.hash())
            .map(|&n| (n, AliasReason::SameContent))
            .or_else(|| {
                (d.request != 0)
                    .then(|| self.request.get(&d.request))
                    .flatten()
                    .map(|&n| (n, AliasReason::PerRequest))
            })
            .or_else(|| {
                // A page whose only words are its address ("page /1") is no page served under
                // two addresses: its address is all it has.
                (d.own != 0 && d.text != 0)
                    .then(|| self.own.get(&d.own))
                    .flatten()
                    .map(|&n| (n, AliasReason::OwnUrl))
            })
            .or_else(|| self.print(g, url, d.text, meta.sketch()));
        let (node, reason) = content?;
        // Equal bytes say it all (and a static site's duplicates.csv stays the paper's); past
        // them, the URLs' shapes say why the server gave one page twice.
        let reason = match reason {
            AliasReason::SameContent => reason,
            _ => shape_reason_in(g.url(url), node_url(node), &self.session)
                .map_or(reason, AliasReason::Shape),
        };
        Some((node, reason))
    }

    /// A print version and the page it renders, in either order: with equal text, or the
    /// print version's text holding the page's, in order, with a few short lines of its own
    /// (its template's: [`crate::model::fold::print_sketch`]).
    fn print(
        &self,
        g: &ScopeGraph,
        url: u32,
        text: u64,
        sketch: Option<u32>,
    ) -> Option<(u32, AliasReason)> {
        if text == 0 && sketch.is_none() {
            return None;
        }
        let reason = AliasReason::Shape(ShapeReason::PrintVersion);
        let holds = |page: Option<u32>, print: Option<u32>| match (page, print) {
            (Some(a), Some(p)) => {
                crate::model::fold::print_sketch::print_holds(g.texts.get(a), g.texts.get(p))
            }
            _ => false,
        };
        // `url` is a print version of a page met before.
        if let Some(target) = print_target_id(g, g.url(url))
            && let Some(&(node, t, s)) = self.by_url.get(&target)
            && ((text != 0 && t == text) || holds(s, sketch))
        {
            return Some((node, reason));
        }
        // `url` is the page a print version met before renders.
        match self.print_of.get(&url) {
            Some(&(node, t, s)) if (text != 0 && t == text) || holds(sketch, s) => {
                Some((node, reason))
            }
            _ => None,
        }
    }

    /// Node `node` is the page of `url` with `meta`.
    pub(super) fn add(&mut self, g: &ScopeGraph, node: u32, url: u32, meta: &PageMeta) {
        let d = meta.fold_digests();
        self.exact.entry(meta.hash()).or_insert(node);
        if d.request != 0 {
            self.request.entry(d.request).or_insert(node);
        }
        if d.own != 0 && d.text != 0 {
            self.own.entry(d.own).or_insert(node);
        }
        if d.text != 0 || meta.sketch().is_some() {
            let entry = (node, d.text, meta.sketch());
            match print_target_id(g, g.url(url)) {
                Some(target) => {
                    self.print_of.entry(target).or_insert(entry);
                }
                None => {
                    self.by_url.entry(url).or_insert(entry);
                }
            }
        }
    }
}

//! The written web graph of one scope, computed from the recorded outcomes after the crawl
//! (SPEC §2.5–§2.10, §4).
//!
//! A breadth-first walk from the home page over the stored data, links taken in document
//! order: exactly what a one-thread breadth-first crawler would find, whatever order the
//! concurrent downloads actually finished in. A URL is a node when it resolves (through its
//! redirect chain) to an HTML page whose content hash is not yet a node; otherwise it is an
//! alias of the node that has that content (duplicates.csv). A node's level is the level at
//! which its first alias is reached, so the shallowest; its links are those of that alias.
//! URLs deeper than `maxCrawlLevel` are not visited, exactly as such a crawler would not fetch
//! them. Node ids are 1-based in discovery order, so equal crawls give byte-equal files.

use std::collections::VecDeque;
use std::sync::OnceLock;

use hashbrown::HashSet;

use super::folding::Folder;
use super::traps::{TrapCut, TrapWalk};
use super::{NO_LEVEL, STATIC_BIT, ScopeGraph, UrlState};
use crate::crawl::data::records::LinkKind;

pub use super::folding::AliasReason;

/// One node (page) of the graph.
#[derive(Debug, Clone, Copy)]
pub struct Node {
    url: u32,
    page: u32,
    /// Breadth-first depth from the home page; `NO_LEVEL` for an orphan a sitemap listed
    /// (see [`Node::level`]).
    pub(crate) level: u32,
}

impl Node {
    /// Breadth-first depth from the home page; `None` for a page no link reaches, fetched
    /// because a sitemap listed it (`SitemapSeeds`, SPEC §17).
    pub fn level(&self) -> Option<u32> {
        (self.level != NO_LEVEL).then_some(self.level)
    }
}

/// An arc out of a node, with its weight (number of links).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    /// Target node id.
    pub target: u32,
    /// Links from the source page to the target node.
    pub weight: u32,
    /// How many of them carry `nofollow`, `ugc` or `sponsored` (SPEC §17).
    pub nofollow: u32,
    /// How many of them are only in the DOM a browser rendered (SPEC §18).
    pub script_only: u32,
}

/// A row of external_links.csv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalRow<'a> {
    /// The external URL.
    pub url: &'a str,
    /// Its host.
    pub host: &'a str,
    /// Anchor text.
    pub anchor: &'a str,
    /// The text around the link (`ExternalLinkContext`; empty when not kept).
    pub context: &'a str,
    /// Its `rel` qualifiers (SPEC §17).
    pub rel: crate::model::link_attrs::Rel,
}

/// A row of bad_links.csv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRow<'a> {
    /// The link as written (normalized when possible).
    pub url: &'a str,
    /// Why it is not a node.
    pub reason: &'a str,
}

/// A row of duplicates.csv.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Alias {
    url: u32,
    /// Node id it maps to.
    pub node: u32,
    /// Why.
    pub reason: AliasReason,
}

/// The graph of one scope, borrowed from the data manager's records.
#[derive(Debug)]
pub struct SiteGraph<'a> {
    pub(super) g: &'a ScopeGraph,
    nodes: Vec<Node>,
    /// Per URL id: the level it was visited at, or `NO_LEVEL`.
    pub(super) visited: Vec<u32>,
    /// Per URL id: node id (1-based) it resolves to, or 0.
    pub(super) node_of: Vec<u32>,
    aliases: Vec<Alias>,
    /// URL patterns the trap rule left out.
    traps: Vec<TrapCut>,
    /// Pages that are the site's "not found" page answered with 200 (bad links `soft 404`).
    soft_404: HashSet<u32>,
    /// Per node (by index): the counts nodes.csv, graph.gexf and summary.csv each need, made
    /// on first use. Each output counted them again from the link records: on the Rust
    /// documentation (2.6 million links) that was most of the work of writing its results,
    /// done after the last page, on one core (issue 19).
    counts: OnceLock<Vec<NodeCounts>>,
}

/// A node's out-degree, in-degree, external link rows and bad link rows.
#[derive(Debug, Clone, Copy, Default)]
struct NodeCounts {
    arcs: u32,
    /// Arcs that end at the node: the pages linking to it.
    inbound: u32,
    external: u32,
    bad: u32,
}

/// Longest redirect chain followed through the records (the downloader stops at 5 hops).
const MAX_CHAIN: usize = 16;

/// Sites with this many pages or more have their per-node counts computed on two threads
/// (a thread costs tens of microseconds; counting 2,000 pages, milliseconds).
const COUNT_ON_TWO_THREADS: usize = 2_000;

#[cfg(test)]
thread_local! {
    /// Tests split small sites too (the data tests' sites have a handful of pages).
    pub(crate) static TEST_COUNT_ON_TWO_THREADS: std::cell::Cell<usize> =
        const { std::cell::Cell::new(COUNT_ON_TWO_THREADS) };
}

/// Pages from which counts are split over two threads.
fn count_on_two_threads() -> usize {
    #[cfg(test)]
    {
        TEST_COUNT_ON_TWO_THREADS.with(std::cell::Cell::get)
    }
    #[cfg(not(test))]
    {
        COUNT_ON_TWO_THREADS
    }
}

/// The nodes being made: a page reached (at the end of its hop chain) becomes a node, or an
/// address of one (duplicates.csv), or a soft 404.
struct Placing {
    nodes: Vec<Node>,
    node_of: Vec<u32>,
    aliases: Vec<Alias>,
    folder: Folder,
    soft_404: HashSet<u32>,
}

impl Placing {
    /// Places the page `chain` ends on at `level`, and the chain's hops as its addresses;
    /// returns its page record when it is a new node.
    fn place(&mut self, g: &ScopeGraph, chain: &[u32], level: u32) -> Option<super::PageRec> {
        let (&cur, hops) = chain.split_last()?;
        let rec = g.recs[cur as usize];
        if rec.state != UrlState::Page {
            return None;
        }
        let page = g.pages[rec.data as usize];
        if self.node_of[cur as usize] == 0 && self.folder.is_soft_404(cur, &page.meta) {
            self.soft_404.insert(cur);
            return None;
        }
        let mut new = None;
        let node = if self.node_of[cur as usize] != 0 {
            self.node_of[cur as usize]
        } else {
            let nodes = &self.nodes;
            let found = self
                .folder
                .find(g, cur, &page.meta, |n| g.url(nodes[n as usize - 1].url));
            if let Some((existing, reason)) = found {
                self.node_of[cur as usize] = existing;
                self.folder.add(g, existing, cur, &page.meta);
                self.aliases.push(Alias {
                    url: cur,
                    node: existing,
                    reason,
                });
                existing
            } else {
                self.nodes.push(Node {
                    url: cur,
                    page: rec.data,
                    level,
                });
                let id = self.nodes.len() as u32;
                self.node_of[cur as usize] = id;
                self.folder.add(g, id, cur, &page.meta);
                new = Some(page);
                id
            }
        };
        for &h in hops {
            if self.node_of[h as usize] == 0 {
                self.node_of[h as usize] = node;
                let reason = if g.recs[h as usize].state == UrlState::Refresh {
                    AliasReason::MetaRefresh
                } else {
                    AliasReason::Redirect
                };
                self.aliases.push(Alias {
                    url: h,
                    node,
                    reason,
                });
            }
        }
        new
    }
}

/// `start` and the hops its redirects and refreshes lead through (a loop cut), into `chain`.
fn hop_chain(g: &ScopeGraph, start: u32, chain: &mut Vec<u32>) {
    chain.clear();
    chain.push(start);
    let mut cur = start;
    while g.recs[cur as usize].state.is_hop() && chain.len() < MAX_CHAIN {
        let next = g.recs[cur as usize].data;
        if chain.contains(&next) {
            break;
        }
        chain.push(next);
        cur = next;
    }
}

impl<'a> SiteGraph<'a> {
    /// Walks the crawl of `g` breadth-first.
    pub(crate) fn build(g: &'a ScopeGraph) -> Self {
        let n = g.recs.len();
        let mut visited = vec![NO_LEVEL; n];
        let mut queue = VecDeque::new();
        let mut traps = TrapWalk::new(g);
        for home in g.homes() {
            if visited[home as usize] == NO_LEVEL {
                visited[home as usize] = 0;
                traps.reached(home, 0);
                queue.push_back(home);
            }
        }
        let mut chain = Vec::new();
        let mut p = Placing {
            nodes: Vec::new(),
            node_of: vec![0u32; n],
            aliases: Vec::new(),
            folder: Folder::new(g),
            soft_404: HashSet::new(),
        };
        while let Some(u) = queue.pop_front() {
            let level = visited[u as usize];
            hop_chain(g, u, &mut chain);
            for &hop in &chain[1..] {
                if visited[hop as usize] == NO_LEVEL {
                    visited[hop as usize] = level;
                    traps.reached(hop, level);
                }
            }
            let Some(page) = p.place(g, &chain, level) else {
                continue;
            };
            let obey = g.obey_nofollow;
            if level < g.max_level && !(obey && g.says_nofollow(&page.meta)) {
                for l in g.page_links(&page) {
                    let t = l.id();
                    if l.is_internal() && l.follows(obey) && visited[t as usize] == NO_LEVEL {
                        traps.reached(t, level + 1);
                        if traps.admits(t, level + 1) {
                            visited[t as usize] = level + 1;
                            queue.push_back(t);
                        }
                    }
                }
            }
        }
        // Pages a sitemap listed that no link reaches (SitemapSeeds): nodes without a level,
        // after the others; a sitemap gives no arc, and their links are not followed.
        for &o in g.orphans() {
            if visited[o as usize] == NO_LEVEL {
                hop_chain(g, o, &mut chain);
                p.place(g, &chain, NO_LEVEL);
            }
        }
        let Placing {
            nodes,
            node_of,
            aliases,
            soft_404,
            ..
        } = p;
        let traps = traps.cuts();
        SiteGraph {
            g,
            nodes,
            visited,
            node_of,
            aliases,
            traps,
            soft_404,
            counts: OnceLock::new(),
        }
    }

    /// The site (scope seed) this graph is of.
    pub fn origin(&self) -> String {
        self.g.origin.to_string()
    }

    /// Nodes; node id = index + 1.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// A node's label: its normalized URL.
    pub fn label(&self, node: &Node) -> &'a str {
        self.g.url(node.url)
    }

    /// A node's host (a multi-host scope's pages are on several, SPEC §6).
    pub fn host(&self, node: &Node) -> &'a str {
        host_of(self.label(node))
    }

    /// A node's `<title>`.
    pub fn title(&self, node: &Node) -> &'a str {
        self.g
            .texts
            .get(self.g.pages[node.page as usize].meta.title)
    }

    /// A node's text digest (0: too little text; SPEC §14).
    pub fn text_hash(&self, node: &Node) -> u64 {
        self.g.pages[node.page as usize].meta.digests().text
    }

    /// A node's content hash.
    pub fn content_hash(&self, node: &Node) -> u128 {
        self.g.pages[node.page as usize].meta.hash()
    }

    /// A node's `<link rel="canonical">` URL, normalized (empty: none).
    pub fn canonical(&self, node: &Node) -> &'a str {
        match self.g.pages[node.page as usize].meta.canonical() {
            None => "",
            Some(text) => self.g.texts.get(text),
        }
    }

    /// A node's robots directives (meta robots and `X-Robots-Tag`, [`crate::model::link_attrs::Robots`]
    /// text; empty: none).
    pub fn robots(&self, node: &Node) -> &'a str {
        match self.g.pages[node.page as usize].meta.robots() {
            None => "",
            Some(text) => self.g.texts.get(text),
        }
    }

    /// A node's body size in bytes.
    pub fn bytes(&self, node: &Node) -> u32 {
        self.g.pages[node.page as usize].meta.body_bytes()
    }

    /// What a node is: a page or a document (SPEC §19).
    pub fn node_type(&self, node: &Node) -> crate::model::documents::NodeType {
        self.g.pages[node.page as usize].meta.node_type()
    }

    /// The index (node id − 1) of the node `url` is, or resolves to (an address of its
    /// redirect chain, a duplicate), with whether `url` is the node's own label.
    pub fn node_index_of(&self, url: &str) -> Option<(usize, bool)> {
        let id = self.g.urls.lookup(url)?;
        let node = *self.node_of.get(id as usize)?;
        let index = node.checked_sub(1)? as usize;
        let own = self.nodes.get(index).is_some_and(|n| n.url == id);
        Some((index, own))
    }

    /// What rendering says of a node's page (SPEC §18).
    pub fn render_mark(&self, node: &Node) -> crate::crawl::message::RenderMark {
        self.g.pages[node.page as usize].meta.render_mark()
    }

    /// Where an internal link target resolves: `Ok(node id)`, or the final URL state.
    fn resolve(&self, url: u32) -> Option<(u32, UrlState, u32)> {
        if self.visited[url as usize] == NO_LEVEL {
            return None;
        }
        let mut cur = url;
        for _ in 0..MAX_CHAIN {
            let rec = self.g.recs[cur as usize];
            if !rec.state.is_hop() {
                return Some((cur, rec.state, rec.data));
            }
            cur = rec.data;
        }
        None
    }

    /// The arcs out of a node, by target id, with weights (SPEC §2.9).
    pub fn arcs(&self, node: &Node) -> Vec<Edge> {
        let mut out = Vec::new();
        self.arcs_into(node, &mut out);
        out
    }

    /// [`Self::arcs`] into a buffer the caller reuses from node to node.
    pub fn arcs_into(&self, node: &Node, out: &mut Vec<Edge>) {
        out.clear();
        let page = self.g.pages[node.page as usize];
        // Whether the last record made an arc (a repeat record adds to that arc's weight).
        let mut arc = false;
        for l in self.g.page_links(&page) {
            let n = l.repeats();
            if n > 0 {
                if arc && let Some(last) = out.last_mut() {
                    last.weight += n;
                    // The arc so far is one record and its copies: all nofollow, or none.
                    if last.nofollow > 0 {
                        last.nofollow += n;
                    }
                    if last.script_only > 0 {
                        last.script_only += n;
                    }
                }
                continue;
            }
            arc = false;
            // Every URL that resolves to a node was reached breadth-first, or is an orphan a
            // sitemap listed (SitemapSeeds), which its fellow orphans may link to.
            if l.is_internal() {
                let target = self.node_of[l.id() as usize];
                if target != 0 {
                    let (nofollow, script_only) = (
                        u32::from(l.rel().is_nofollow()),
                        u32::from(l.rel().is_script_only()),
                    );
                    out.push(Edge {
                        target,
                        weight: 1,
                        nofollow,
                        script_only,
                    });
                    arc = true;
                }
            }
        }
        out.sort_unstable_by_key(|a| a.target);
        // Runs of one target become one arc weighing the run's length.
        let mut kept = 0;
        for i in 0..out.len() {
            if kept > 0 && out[kept - 1].target == out[i].target {
                out[kept - 1].weight += out[i].weight;
                out[kept - 1].nofollow += out[i].nofollow;
                out[kept - 1].script_only += out[i].script_only;
            } else {
                out[kept] = out[i];
                kept += 1;
            }
        }
        out.truncate(kept);
    }

    /// External links of a node in document order, one row per (url, anchor): links to other
    /// sites, and internal links that redirect to another site.
    pub fn external_links(&self, node: &Node) -> Vec<ExternalRow<'a>> {
        self.external_ids_in(node, &mut HashSet::new())
            .map(|(ext, aux)| {
                let url = self.g.url(ext);
                let rec = super::LinkRec { target: 0, aux };
                let text = self.g.texts.get(rec.text());
                let (anchor, context) = text
                    .split_once(super::CONTEXT_SEPARATOR)
                    .unwrap_or((text, ""));
                ExternalRow {
                    url,
                    host: host_of(url),
                    anchor,
                    context,
                    rel: rec.rel(),
                }
            })
            .collect()
    }

    /// The hosts of every node's external links, each once: external_links.csv's `Host`
    /// column as a set, without building its rows (the live network counts a written site's
    /// links by them).
    pub fn external_hosts(&self) -> HashSet<&'a str> {
        let mut urls = HashSet::new();
        let mut hosts = HashSet::new();
        for node in self.nodes() {
            let page = self.g.pages[node.page as usize];
            for l in self.g.page_links(&page) {
                if let Some(e) = self.external_id(&l)
                    && urls.insert(e)
                {
                    hosts.insert(host_of(self.g.url(e)));
                }
            }
        }
        hosts
    }

    /// How many rows [`Self::external_links`] has for `node` (nodes.csv's and graph.gexf's
    /// `ExternalLinks`), without building them.
    pub fn external_link_count(&self, node: &Node) -> usize {
        self.counts_of(node).external as usize
    }

    /// How many arcs leave `node` (`arcs(node).len()`: nodes.csv's `OutDegree`).
    pub fn out_degree(&self, node: &Node) -> usize {
        self.counts_of(node).arcs as usize
    }

    /// How many arcs end at `node`: the distinct pages linking to it (nodes.csv's
    /// `InDegree`).
    pub fn in_degree(&self, node: &Node) -> usize {
        self.counts_of(node).inbound as usize
    }

    /// How many rows [`Self::bad_links`] has for `node`, without building them.
    pub fn bad_link_count(&self, node: &Node) -> usize {
        self.counts_of(node).bad as usize
    }

    fn counts_of(&self, node: &Node) -> NodeCounts {
        let counts = self.counts.get_or_init(|| self.count_all());
        // A node's id is node_of of its own URL (1-based).
        let id = self.node_of[node.url as usize] as usize;
        counts.get(id.wrapping_sub(1)).copied().unwrap_or_default()
    }

    /// Every node's counts, in one pass over its links with buffers reused from node to node;
    /// a big site's in two halves on two threads, as every result file waits for them (the
    /// writer that does not compute them idled meanwhile).
    fn count_all(&self) -> Vec<NodeCounts> {
        // Each half counts the arcs into every node it meets; the halves' counts are added.
        let count = |nodes: &[Node]| -> (Vec<NodeCounts>, Vec<u32>) {
            let mut arcs = Vec::new();
            let mut external = HashSet::new();
            let mut bad = HashSet::new();
            let mut inbound = vec![0u32; self.nodes.len()];
            let counts = nodes
                .iter()
                .map(|n| {
                    self.arcs_into(n, &mut arcs);
                    for a in &arcs {
                        // Node ids are 1-based.
                        if let Some(c) = inbound.get_mut((a.target as usize).wrapping_sub(1)) {
                            *c += 1;
                        }
                    }
                    external.clear();
                    bad.clear();
                    NodeCounts {
                        arcs: arcs.len() as u32,
                        inbound: 0,
                        external: self.external_ids_in(n, &mut external).count() as u32,
                        bad: self.bad_links_in(n, &mut bad, |_| {}) as u32,
                    }
                })
                .collect();
            (counts, inbound)
        };
        let (mut counts, inbound) = if self.nodes.len() < count_on_two_threads().max(2) {
            count(&self.nodes)
        } else {
            let (first, second) = self.nodes.split_at(self.nodes.len() / 2);
            let ((mut counts, mut inbound), (rest, more)) =
                crate::base::parallel::join("node-counts", || count(first), || count(second));
            counts.extend(rest);
            for (a, b) in inbound.iter_mut().zip(more) {
                *a += b;
            }
            (counts, inbound)
        };
        for (c, n) in counts.iter_mut().zip(inbound) {
            c.inbound = n;
        }
        counts
    }

    /// The (external URL, anchor text) pairs of a node, each once, in document order; `seen`
    /// is the caller's set of pairs met (empty at the start, reused from node to node).
    fn external_ids_in<'s>(
        &'s self,
        node: &Node,
        seen: &'s mut HashSet<(u32, u32)>,
    ) -> impl Iterator<Item = (u32, u32)> + 's {
        let page = self.g.pages[node.page as usize];
        self.g.page_links(&page).filter_map(move |l| {
            self.external_id(&l)
                .filter(|&e| seen.insert((e, l.aux)))
                .map(|e| (e, l.aux))
        })
    }

    /// The external URL a link leads to: an external link's own, or where an internal one
    /// redirected off the site.
    fn external_id(&self, l: &super::LinkRec) -> Option<u32> {
        match l.kind() {
            Some(LinkKind::External) => Some(l.id()),
            Some(LinkKind::Internal) => match self.resolve(l.id()) {
                Some((_, UrlState::OffSite, ext)) => Some(ext),
                _ => None,
            },
            _ => None,
        }
    }

    /// Bad links of a node in document order, one row per URL.
    pub fn bad_links(&self, node: &Node) -> Vec<BadRow<'a>> {
        let mut rows = Vec::new();
        self.bad_links_in(node, &mut HashSet::new(), |row| rows.push(row));
        rows
    }

    /// Gives each of [`Self::bad_links`]'s rows to `row`, with the caller's set of URLs met
    /// (empty at the start, reused from node to node); how many there were.
    fn bad_links_in(
        &self,
        node: &Node,
        seen: &mut HashSet<&'a str>,
        mut row: impl FnMut(BadRow<'a>),
    ) -> usize {
        let page = self.g.pages[node.page as usize];
        let mut count = 0;
        // Links the crawl did not follow (`FollowNofollow = no`), from a page whose level let
        // it follow links.
        let unfollowed = self.g.obey_nofollow && node.level < self.g.max_level;
        let page_unfollowed = unfollowed && self.g.says_nofollow(&page.meta);
        for l in self.g.page_links(&page) {
            let bad = match l.kind() {
                Some(LinkKind::Bad) => Some((self.g.texts.get(l.id()), self.g.texts.get(l.text()))),
                Some(LinkKind::Internal) => {
                    let failed = match self.resolve(l.id()) {
                        Some((_, UrlState::Failed, data)) => Some(data),
                        Some((end, UrlState::Page, _)) if self.soft_404.contains(&end) => {
                            if seen.insert(self.g.url(l.id())) {
                                row(BadRow {
                                    url: self.g.url(l.id()),
                                    reason: "soft 404",
                                });
                                count += 1;
                            }
                            continue;
                        }
                        None => {
                            // A node no followed link reaches: an orphan its sitemap listed
                            // (`SitemapSeeds`), not a bad link.
                            if self.node_of.get(l.id() as usize).is_some_and(|&n| n != 0) {
                                continue;
                            }
                            // Not visited (deeper than maxCrawlLevel): report only what is known
                            // without fetching it.
                            let rec = self.g.recs[l.id() as usize];
                            if rec.state == UrlState::Failed && rec.data & STATIC_BIT != 0 {
                                Some(rec.data)
                            } else {
                                // Or not followed (`FollowNofollow = no`): nothing else led
                                // there.
                                if unfollowed && !l.follows(true) || page_unfollowed {
                                    let url = self.g.url(l.id());
                                    if seen.insert(url) {
                                        row(BadRow {
                                            url,
                                            reason: "nofollow",
                                        });
                                        count += 1;
                                    }
                                }
                                continue;
                            }
                        }
                        _ => None,
                    };
                    failed.map(|data| (self.g.url(l.id()), self.g.texts.get(data & !STATIC_BIT)))
                }
                _ => None,
            };
            if let Some((url, reason)) = bad
                && seen.insert(url)
            {
                row(BadRow { url, reason });
                count += 1;
            }
        }
        count
    }

    /// Why the home page is not a node, when it is not (the site is then unreachable).
    pub fn home_failure(&self) -> Option<BadRow<'a>> {
        if !self.nodes.is_empty() {
            return None;
        }
        let home = self.g.home;
        let reason = match self.resolve(home) {
            Some((_, UrlState::Failed, data)) => self.g.texts.get(data & !STATIC_BIT),
            Some((_, UrlState::OffSite, _)) => "redirect to another site",
            _ => "not fetched",
        };
        Some(BadRow {
            url: self.g.url(home),
            reason,
        })
    }

    /// Alias URLs in discovery order (duplicates.csv).
    pub fn aliases(&self) -> &[Alias] {
        &self.aliases
    }

    /// The URL of an alias.
    pub fn alias_url(&self, a: &Alias) -> &'a str {
        self.g.url(a.url)
    }

    /// The scope's fetches in breadth-first order with their rewards (yield.csv).
    pub fn yields(&self) -> Vec<super::yields::YieldRow<'a>> {
        self.g.yields()
    }

    /// The fetches this scope's crawl made so far (in every run), and the external links
    /// they revealed: (fetches, new external links, all external links).
    pub fn fetched(&self) -> (u64, u64, u64) {
        self.g.pulls().fold((0, 0, 0), |(n, new, all), p| {
            (
                n + 1 + u64::from(p.extra),
                new + u64::from(p.yielded.new_external),
                all + u64::from(p.yielded.external),
            )
        })
    }

    /// URL patterns the trap rule left out (calendars, numbered pages that never end), most
    /// URLs first.
    pub fn traps(&self) -> &[TrapCut] {
        &self.traps
    }

    /// `MaxUrlsPerSite`, when the crawl reached it and left links to further URLs out.
    pub fn url_limit(&self) -> Option<u32> {
        self.g.url_limit_hit()
    }

    /// The deepest level.
    pub fn max_level(&self) -> u32 {
        self.nodes.iter().filter_map(Node::level).max().unwrap_or(0)
    }
}

/// The host of a normalized absolute URL, as `url::Url::host_str` gives it (IPv6 in
/// brackets), without parsing the whole URL: external links are counted in millions.
/// The host of a URL as written (no port, no user), for result files.
pub(crate) fn host_of(url: &str) -> &str {
    let Some((_, rest)) = url.split_once("://") else {
        return "";
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if host_port.starts_with('[') {
        return host_port.split_inclusive(']').next().unwrap_or("");
    }
    host_port.split(':').next().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::host_of;

    #[test]
    fn hosts_as_the_url_crate_gives_them() {
        for u in [
            "http://a.test/",
            "https://user:pw@b.test:8443/x?y#z",
            "http://[::1]:81/p",
            "http://[2001:db8::1]/",
            "https://xn--e1afmkfd.xn--p1ai?q",
            "http://c.test#frag",
            "ftp://files.test:21/a@b",
            "http://d.test/path@with-at",
        ] {
            let want = url::Url::parse(u).unwrap().host_str().unwrap().to_owned();
            assert_eq!(host_of(u), want, "{u}");
        }
        assert_eq!(host_of("mailto:x@y"), "");
    }
}

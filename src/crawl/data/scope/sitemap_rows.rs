//! What a scope's sitemaps say against its graph (SPEC §17): sitemap.csv's rows and
//! summary.csv's `SitemapUrls` and `Orphans`.

use super::graph::SiteGraph;
use super::{NO_LEVEL, ScopeGraph};

/// A row of sitemap.csv: one page a sitemap lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SitemapRow<'a> {
    /// Its URL, normalized.
    pub url: &'a str,
    /// It is a node, or an address of one (a redirect to it, a copy of it).
    pub in_graph: bool,
    /// The depth at which the crawl's links reach it: its breadth-first level when the crawl
    /// reached it, else the shortest path known (past `maxCrawlLevel` when a page of the last
    /// level links to it); `None` when no link reaches it (an orphan).
    pub level: Option<u32>,
    /// Its `<lastmod>`, as written.
    pub lastmod: &'a str,
}

/// What the counts of summary.csv need.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SitemapCounts {
    /// Pages the sitemaps list.
    pub urls: u64,
    /// Of them, pages no link reaches.
    pub orphans: u64,
}

impl<'a> SiteGraph<'a> {
    /// The sitemap's rows in the order listed; `None` when the scope's sitemaps were not read
    /// (`Sitemaps = no`, or not in this run).
    pub fn sitemap_rows(&self) -> Option<Vec<SitemapRow<'a>>> {
        let g: &'a ScopeGraph = self.g;
        let sitemap = g.sitemap.as_ref()?;
        // Orphans fetched for the sitemap (SitemapSeeds) are queued one level past
        // maxCrawlLevel: no link reaches them all the same.
        let orphans: std::collections::HashSet<u32> = g.orphans().iter().copied().collect();
        Some(
            sitemap
                .entries
                .iter()
                .map(|e| {
                    let (in_graph, level) = match g.urls.lookup(&e.url) {
                        Some(id) => {
                            let i = id as usize;
                            let known = match self.visited[i] {
                                NO_LEVEL if orphans.contains(&id) => NO_LEVEL,
                                NO_LEVEL => g.recs[i].level,
                                visited => visited,
                            };
                            (self.node_of[i] != 0, (known != NO_LEVEL).then_some(known))
                        }
                        None => (false, None),
                    };
                    SitemapRow {
                        url: &e.url,
                        in_graph,
                        level,
                        lastmod: &e.lastmod,
                    }
                })
                .collect(),
        )
    }

    /// How many pages the sitemaps list, and how many of them no link reaches.
    pub fn sitemap_counts(&self) -> Option<SitemapCounts> {
        let rows = self.sitemap_rows()?;
        Some(SitemapCounts {
            urls: rows.len() as u64,
            orphans: rows.iter().filter(|r| r.level.is_none()).count() as u64,
        })
    }
}

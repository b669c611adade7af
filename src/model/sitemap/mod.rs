//! Sitemaps (SPEC §17): the pages a site's owner says exist. With `Sitemaps = yes`, right
//! after a site's robots.txt the files its `Sitemap:` lines name (else `/sitemap.xml`) are
//! read — sitemap indexes followed, gzip undone, at most [`MAX_FILE_URLS`] URLs and
//! [`MAX_FILE_BYTES`] per file as the protocol allows, malformed files reported and read as
//! far as they go (by the downloaders, `fetch::sitemaps`; each file read by [`parse()`]) —
//! and kept with the scope ([`Sitemap`]) until its results are
//! written: `sitemap.csv` says which of them are in the graph and at what level, summary.csv
//! how many were listed and how many no link reaches (orphans).
//!
//! Read in every run that crawls the site, as robots.txt is: a continued crawl reads them
//! again rather than saving them.

mod parse;

pub(crate) use parse::{Kind, parse};

/// URLs one sitemap file may list (sitemaps.org): the rest are reported and not read.
pub const MAX_FILE_URLS: usize = 50_000;
/// Bytes one sitemap file may hold, uncompressed (sitemaps.org): the rest is not read.
pub const MAX_FILE_BYTES: usize = 50 * 1024 * 1024;
/// Sitemap files read per site at most (an index lists up to 50,000 of them).
pub const MAX_FILES: usize = 1_000;
/// Indexes nested in indexes followed at most (the protocol has one level; some sites nest).
pub const MAX_DEPTH: usize = 4;
/// Distinct page URLs kept per site at most (each costs about a hundred bytes until the
/// site's results are written).
pub const MAX_SITE_URLS: usize = 1_000_000;

/// One page a site's sitemaps list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SitemapEntry {
    /// Its URL, normalized as links are.
    pub url: Box<str>,
    /// Its `<lastmod>`, as written (empty when absent).
    pub lastmod: Box<str>,
    /// It may be fetched if no link reaches it (`SitemapSeeds`): on the site, allowed by its
    /// robots.txt and hosts.txt, not refused by the URL rules.
    pub seed: bool,
}

/// What the sitemaps of a scope's sites list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sitemap {
    /// The pages on the scope's sites, each once, in the order first listed.
    pub entries: Vec<SitemapEntry>,
    /// Sitemap files read.
    pub files: u32,
}

impl Sitemap {
    /// Adds another site's sitemap (a scope of several hosts), each URL once.
    pub(crate) fn merge(&mut self, other: Sitemap) {
        if self.entries.is_empty() {
            self.files += other.files;
            self.entries = other.entries;
            return;
        }
        let known: std::collections::HashSet<Box<str>> =
            self.entries.iter().map(|e| e.url.clone()).collect();
        self.files += other.files;
        self.entries.extend(
            other
                .entries
                .into_iter()
                .filter(|e| !known.contains(&e.url)),
        );
    }
}

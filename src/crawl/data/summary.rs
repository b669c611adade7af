//! What a scope's crawl amounts to: its [`SiteSummary`], summary.csv's row — counted from its
//! graph while the scope is in memory, and kept (in memory and in the saved state) once the
//! scope is written and released, so that summary.csv keeps every site's row.

use std::fmt;

use crate::base::storage::codec::{Corrupt, Put, Reader};
use crate::crawl::data::{SiteGraph, TrapCut};
use crate::model::bandit::RewardKind;

/// How a site's crawl ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SiteState {
    /// Nothing left to fetch.
    Done,
    /// Stopped with URLs still pending; running again continues it.
    Stopped,
    /// Its home page is not an HTML page (or robots.txt denied everything).
    Unreachable,
    /// No longer in hosts.txt: its saved data is kept and reported, not crawled.
    Removed,
    /// Stopped answering (`SiteDownAfterFailures`); its queue is kept for the next run.
    Down,
    /// Reached `MaxPagesPerSite`.
    PageLimit,
    /// The crawl's `PageBudget` was spent with URLs of the site still pending (a larger
    /// budget continues it).
    BudgetSpent,
}

impl fmt::Display for SiteState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SiteState::Done => "done",
            SiteState::Stopped => "stopped",
            SiteState::Unreachable => "unreachable",
            SiteState::Removed => "removed",
            SiteState::Down => "down",
            SiteState::PageLimit => "page limit",
            SiteState::BudgetSpent => "budget spent",
        })
    }
}

/// One row of summary.csv.
#[derive(Debug, Clone, PartialEq)]
pub struct SiteSummary {
    /// The site.
    pub site: String,
    /// Its results folder name.
    pub folder: String,
    /// Nodes.
    pub pages: usize,
    /// Distinct arcs.
    pub arcs: usize,
    /// external_links.csv rows.
    pub external_links: usize,
    /// bad_links.csv rows.
    pub bad_links: usize,
    /// duplicates.csv rows.
    pub duplicates: usize,
    /// Deepest level.
    pub max_level: u32,
    /// Seconds spent crawling it.
    pub seconds: f64,
    /// How it ended.
    pub state: SiteState,
    /// Where the home page ended (node 1's URL; empty when there is no node): names the
    /// origin a moved site is crawled at.
    pub home: String,
    /// Why it is unreachable, down or stopped at its page limit (empty otherwise).
    pub reason: String,
    /// Pages fetched, every run together (what the page budget counts).
    pub fetched: u64,
    /// What those fetches paid (`BanditReward`).
    pub reward: u64,
    /// Hosts its pages are on (a multi-host scope, SPEC §6).
    pub hosts: usize,
    /// What its sitemaps list and how many of those pages no link reaches (SPEC §17); `None`
    /// when they were not read.
    pub sitemap: Option<crate::crawl::data::SitemapCounts>,
    /// Its pages rendered and arcs only scripts make (SPEC §18); `None` when pages are not
    /// rendered (`Render = no`).
    pub render: Option<RenderCounts>,
    /// Its documents by type (SPEC §19); `None` when documents are not nodes
    /// (`Documents = no`).
    pub documents: Option<DocumentCounts>,
}

/// summary.csv's `Documents` and `DocumentTypes`: a site's nodes that are documents, by type.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DocumentCounts {
    /// Per document type, in [`crate::model::documents::NODE_TYPES`]' order after `html`.
    pub by_type: [u64; 11],
}

impl DocumentCounts {
    /// Counts a graph's documents.
    pub fn of(g: &SiteGraph<'_>) -> Self {
        let mut counts = DocumentCounts::default();
        for n in g.nodes() {
            let t = g.node_type(n);
            if let Some(c) = usize::from(t.code()).checked_sub(1) {
                counts.by_type[c] += 1;
            }
        }
        counts
    }

    /// Documents of every type.
    pub fn total(&self) -> u64 {
        self.by_type.iter().sum()
    }

    /// `pdf 10; docx 2`: the types present, most first (ties in type order).
    pub fn types(&self) -> String {
        let mut present: Vec<(u64, usize)> = (0..self.by_type.len())
            .filter(|&i| self.by_type[i] > 0)
            .map(|i| (self.by_type[i], i))
            .collect();
        present.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        present
            .iter()
            .map(|&(n, i)| {
                format!(
                    "{} {n}",
                    crate::model::documents::NODE_TYPES[i + 1].as_str()
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Reads [`Self::types`]' text back (the report reads summary.csv).
    pub fn parse_types(text: &str) -> Option<Self> {
        let mut counts = DocumentCounts::default();
        for part in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, n) = part.split_once(' ')?;
            let code = crate::model::documents::NodeType::parse(name)?.code();
            let slot = counts.by_type.get_mut(usize::from(code).checked_sub(1)?)?;
            *slot = n.trim().parse().ok()?;
        }
        Some(counts)
    }
}

/// summary.csv's `Rendered` and `ScriptOnlyArcs`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RenderCounts {
    /// Pages whose links were read from the rendered DOM.
    pub rendered: u64,
    /// Arcs with at least one link only in a rendered DOM.
    pub script_only_arcs: u64,
}

impl RenderCounts {
    /// Counts a graph's rendered pages and script-only arcs.
    pub fn of(g: &SiteGraph<'_>) -> Self {
        let mut counts = RenderCounts::default();
        let mut arcs = Vec::new();
        for n in g.nodes() {
            counts.rendered += u64::from(g.render_mark(n).rendered);
            g.arcs_into(n, &mut arcs);
            counts.script_only_arcs += arcs.iter().filter(|a| a.script_only > 0).count() as u64;
        }
        counts
    }
}

/// The `Reason` of a site crawled with `Render = no` whose home page looks script-built (the
/// report finds it by its first words, [`crate::analysis::report::SCRIPT_BUILT_MARK`]).
pub fn script_built_reason() -> String {
    format!(
        "{} (an empty application root, a noscript asking for JavaScript, or many script \
         bytes for few links): its graph may lack what scripts build; Render = auto reads it",
        crate::analysis::report::SCRIPT_BUILT_MARK
    )
}

impl SiteSummary {
    /// The domain-name filter paper's time-link product: seconds × URLs fetched (SPEC §6).
    pub fn tlp(&self) -> f64 {
        self.seconds * self.fetched as f64
    }
}

impl SiteSummary {
    /// Counts a graph's rows; `pending` decides done vs stopped; `reward` says what a fetch
    /// pays.
    pub fn of(
        g: &SiteGraph<'_>,
        folder: String,
        pending: usize,
        seconds: f64,
        reward: RewardKind,
    ) -> Self {
        let (fetched, new_external, external) = g.fetched();
        let mut s = SiteSummary {
            site: g.origin(),
            folder,
            pages: g.nodes().len(),
            arcs: 0,
            external_links: 0,
            bad_links: usize::from(g.home_failure().is_some()),
            duplicates: g.aliases().len(),
            max_level: g.max_level(),
            seconds,
            state: if pending > 0 {
                SiteState::Stopped
            } else {
                SiteState::Done
            },
            home: g
                .nodes()
                .first()
                .map(|n| g.label(n).to_owned())
                .unwrap_or_default(),
            reason: String::new(),
            fetched,
            reward: match reward {
                RewardKind::NewExternal => new_external,
                RewardKind::AllExternal => external,
            },
            hosts: 0,
            sitemap: g.sitemap_counts(),
            render: None,
            documents: None,
        };
        let mut hosts: Vec<&str> = g.nodes().iter().map(|n| g.host(n)).collect();
        hosts.sort_unstable();
        hosts.dedup();
        s.hosts = hosts.len();
        for n in g.nodes() {
            s.arcs += g.out_degree(n);
            s.external_links += g.external_link_count(n);
            s.bad_links += g.bad_link_count(n);
        }
        if s.pages == 0 && pending == 0 {
            s.state = SiteState::Unreachable;
            s.reason = g
                .home_failure()
                .map(|f| f.reason.to_owned())
                .unwrap_or_default();
        }
        if s.reason.is_empty() {
            s.reason = trap_reason(g.traps());
        }
        if let Some(limit) = g.url_limit() {
            let limited = format!(
                "URL limit: links to URLs beyond the first {limit} left out (MaxUrlsPerSite)"
            );
            s.reason = if s.reason.is_empty() {
                limited
            } else {
                format!("{}; {limited}", s.reason)
            };
        }
        s
    }

    /// The origin the home page ended on, when it is not the listed one (`moved to …`).
    pub fn moved_to(&self) -> Option<&str> {
        crate::base::words::moved_to(&self.site, &self.home)
    }
}

/// What the trap rule left out, for the `Reason` column: the three patterns with most URLs.
fn trap_reason(traps: &[TrapCut]) -> String {
    let mut parts: Vec<String> = traps
        .iter()
        .take(3)
        .map(|t| {
            format!(
                "{}: {} deeper than level {} left out ({} URLs)",
                if t.branching {
                    "branching trap (TrapPatternUrls)"
                } else {
                    "trap"
                },
                t.pattern,
                t.deepest_kept,
                t.urls
            )
        })
        .collect();
    if traps.len() > 3 {
        parts.push(format!("{} more trap patterns", traps.len() - 3));
    }
    parts.join("; ")
}

impl SiteState {
    fn code(self) -> u8 {
        match self {
            SiteState::Done => 0,
            SiteState::Stopped => 1,
            SiteState::Unreachable => 2,
            SiteState::Removed => 3,
            SiteState::Down => 4,
            SiteState::PageLimit => 5,
            SiteState::BudgetSpent => 6,
        }
    }

    fn from_code(c: u8) -> Option<Self> {
        [
            SiteState::Done,
            SiteState::Stopped,
            SiteState::Unreachable,
            SiteState::Removed,
            SiteState::Down,
            SiteState::PageLimit,
            SiteState::BudgetSpent,
        ]
        .get(usize::from(c))
        .copied()
    }
}

impl SiteSummary {
    /// Its bytes, as the saved state keeps a written scope's row.
    pub(crate) fn put(&self, out: &mut impl Put) {
        out.put_bytes(self.site.as_bytes());
        out.put_bytes(self.folder.as_bytes());
        for n in [
            self.pages,
            self.arcs,
            self.external_links,
            self.bad_links,
            self.duplicates,
            self.hosts,
        ] {
            out.put_var(n as u64);
        }
        out.put_var(u64::from(self.max_level));
        out.put_var(self.seconds.to_bits());
        out.put_u8(self.state.code());
        out.put_bytes(self.home.as_bytes());
        out.put_bytes(self.reason.as_bytes());
        out.put_var(self.fetched);
        out.put_var(self.reward);
        // 0: not read; else 1 + the pages listed, then the orphans.
        match self.sitemap {
            None => out.put_var(0),
            Some(c) => {
                out.put_var(c.urls.saturating_add(1));
                out.put_var(c.orphans);
            }
        }
        match self.render {
            None => out.put_var(0),
            Some(c) => {
                out.put_var(c.rendered.saturating_add(1));
                out.put_var(c.script_only_arcs);
            }
        }
        match self.documents {
            None => out.put_var(0),
            Some(c) => {
                out.put_var(1);
                for n in c.by_type {
                    out.put_var(n);
                }
            }
        }
    }

    /// Reads only (pages, seconds) of what [`Self::put`] wrote, allocating nothing: the
    /// progress figures, summed over every scope at each progress tick.
    pub(crate) fn read_figures(r: &mut Reader<'_>) -> Result<(usize, f64), Corrupt> {
        r.bytes()?; // site
        r.bytes()?; // folder
        let pages = usize::try_from(r.var()?).map_err(|_| Corrupt("count out of range"))?;
        for _ in 0..5 {
            r.var()?; // arcs, external links, bad links, duplicates, hosts
        }
        r.var32()?; // max level
        Ok((pages, f64::from_bits(r.var()?)))
    }

    /// Reads what [`Self::put`] wrote.
    pub(crate) fn read(r: &mut Reader<'_>) -> Result<Self, Corrupt> {
        let site = r.str()?.to_owned();
        // Joined to the results folder when the site's files are read or written again: a
        // state or database row that names a path is damaged (or crafted), never followed.
        let folder = crate::base::storage::paths::plain_name(r.str()?)
            .map_err(|_| Corrupt("a summary row's folder is not a plain folder name"))?
            .to_owned();
        let mut counts = [0usize; 6];
        for c in &mut counts {
            *c = usize::try_from(r.var()?).map_err(|_| Corrupt("count out of range"))?;
        }
        let [pages, arcs, external_links, bad_links, duplicates, hosts] = counts;
        Ok(SiteSummary {
            site,
            folder,
            pages,
            arcs,
            external_links,
            bad_links,
            duplicates,
            hosts,
            max_level: r.var32()?,
            seconds: f64::from_bits(r.var()?),
            state: SiteState::from_code(r.u8()?).ok_or(Corrupt("bad site state"))?,
            home: r.str()?.to_owned(),
            reason: r.str()?.to_owned(),
            fetched: r.var()?,
            reward: r.var()?,
            sitemap: match r.var()? {
                0 => None,
                n => Some(crate::crawl::data::SitemapCounts {
                    urls: n - 1,
                    orphans: r.var()?,
                }),
            },
            render: match r.var()? {
                0 => None,
                n => Some(RenderCounts {
                    rendered: n - 1,
                    script_only_arcs: r.var()?,
                }),
            },
            documents: match r.var()? {
                0 => None,
                _ => {
                    let mut c = DocumentCounts::default();
                    for n in &mut c.by_type {
                        *n = r.var()?;
                    }
                    Some(c)
                }
            },
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A row with every field set, text that needs quoting included.
    pub(crate) fn sample_row(site: &str) -> SiteSummary {
        SiteSummary {
            site: site.into(),
            folder: "a.test".into(),
            pages: 3,
            arcs: 4,
            external_links: 5,
            bad_links: 6,
            duplicates: 7,
            max_level: 2,
            seconds: 1.25,
            state: SiteState::PageLimit,
            home: format!("{site}/\"x\","),
            reason: "MaxPagesPerSite = 3".into(),
            fetched: 9,
            reward: 10,
            hosts: 1,
            sitemap: Some(crate::crawl::data::SitemapCounts {
                urls: 12,
                orphans: 3,
            }),
            render: Some(RenderCounts {
                rendered: 2,
                script_only_arcs: 1,
            }),
            documents: Some(DocumentCounts {
                by_type: [2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1],
            }),
        }
    }

    #[test]
    fn document_types_read_back_as_written() {
        let c = DocumentCounts {
            by_type: [2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3],
        };
        assert_eq!(c.types(), "rtf 3; pdf 2; docx 1");
        assert_eq!(c.total(), 6);
        assert_eq!(DocumentCounts::parse_types(&c.types()), Some(c));
        assert_eq!(DocumentCounts::parse_types("exe 1"), None);
    }

    #[test]
    fn a_row_reads_back_as_written() {
        let row = sample_row("http://a.test");
        let mut bytes = Vec::new();
        row.put(&mut bytes);
        assert_eq!(SiteSummary::read(&mut Reader::new(&bytes)).unwrap(), row);
        // Sitemaps not read, or read and empty: told apart.
        for sitemap in [None, Some(crate::crawl::data::SitemapCounts::default())] {
            let row = SiteSummary {
                sitemap,
                ..row.clone()
            };
            let mut bytes = Vec::new();
            row.put(&mut bytes);
            assert_eq!(SiteSummary::read(&mut Reader::new(&bytes)).unwrap(), row);
        }
    }

    // See: issue 63 item 1 — a saved state's or a database's summary row (both read here)
    // whose folder names a path is damaged, never joined to the results folder.
    #[test]
    fn a_row_whose_folder_is_a_path_is_refused() {
        for folder in ["../../x", "/etc", "a/b", "..", ""] {
            let row = SiteSummary {
                folder: folder.into(),
                ..sample_row("http://a.test")
            };
            let mut bytes = Vec::new();
            row.put(&mut bytes);
            assert!(
                SiteSummary::read(&mut Reader::new(&bytes)).is_err(),
                "{folder:?} read"
            );
        }
    }
}

//! results/summary.csv: one row per site (SPEC §4).

use std::fmt;
use std::io;
use std::path::Path;

use super::gephi_csv::CsvOut;
use crate::bandit::RewardKind;
use crate::data::{SiteGraph, TrapCut};
use crate::storage::write_atomic;

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
        };
        let mut hosts: Vec<&str> = g.nodes().iter().map(|n| g.host(n)).collect();
        hosts.sort_unstable();
        hosts.dedup();
        s.hosts = hosts.len();
        let mut arcs = Vec::new();
        for n in g.nodes() {
            g.arcs_into(n, &mut arcs);
            s.arcs += arcs.len();
            s.external_links += g.external_links(n).len();
            s.bad_links += g.bad_links(n).len();
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
        s
    }

    /// The origin the home page ended on, when it is not the listed one (`moved to …`).
    pub fn moved_to(&self) -> Option<&str> {
        let listed = self.site.trim_end_matches('/');
        let origin_end = self
            .home
            .find("://")
            .and_then(|i| self.home[i + 3..].find('/').map(|j| i + 3 + j))
            .unwrap_or(self.home.len());
        let home_origin = &self.home[..origin_end];
        (!self.home.is_empty() && home_origin != listed).then_some(home_origin)
    }
}

/// What the trap rule left out, for the `Reason` column: the three patterns with most URLs.
fn trap_reason(traps: &[TrapCut]) -> String {
    let mut parts: Vec<String> = traps
        .iter()
        .take(3)
        .map(|t| {
            format!(
                "trap: {} deeper than level {} left out ({} URLs)",
                t.pattern, t.deepest_kept, t.urls
            )
        })
        .collect();
    if traps.len() > 3 {
        parts.push(format!("{} more trap patterns", traps.len() - 3));
    }
    parts.join("; ")
}

/// Writes summary.csv atomically.
pub fn write_summary(path: &Path, rows: &[SiteSummary]) -> io::Result<()> {
    write_atomic(path, |w| {
        let mut csv = CsvOut::new(
            w,
            &[
                "Site",
                "Folder",
                "Pages",
                "Arcs",
                "ExternalLinks",
                "BadLinks",
                "Duplicates",
                "MaxLevel",
                "Seconds",
                "State",
                "Home",
                "Reason",
                "Fetched",
                "Reward",
                "Hosts",
                "TLP",
            ],
        )?;
        for r in rows {
            csv.text(&r.site)?
                .text(&r.folder)?
                .num(r.pages)?
                .num(r.arcs)?
                .num(r.external_links)?
                .num(r.bad_links)?
                .num(r.duplicates)?
                .num(r.max_level)?
                .raw(&format!("{:.1}", r.seconds))?
                .text(&r.state.to_string())?
                .text(&r.home)?
                .text(&r.reason)?
                .num(r.fetched)?
                .num(r.reward)?
                .num(r.hosts)?
                .raw(&format!("{:.1}", r.tlp()))?
                .end()?;
        }
        csv.finish()
    })
}

//! `results/report.html` (SPEC §12): one self-contained page — no network, no script or
//! font from elsewhere — that shows a crawl at a glance: the sites table, the RCCrawler
//! paper's cross-site statistics, the external hosts and registrable domains linked to, the
//! BeeBot yield curves, and a section per site. Built from the files of a results folder
//! (`read.rs`), so the result unloader `ReportRU` (at the end of a crawl), `rccrawler report`
//! and a folder written by `rccrawler export` all give the same page.

mod graph;
pub(crate) mod html;
mod layout;
mod network;
pub(crate) mod plot;
mod ranked;
mod read;
mod sections;
mod site_columns;
mod stats;

use crate::base::parallel::for_each_index;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use parking_lot::Mutex;
use thiserror::Error;

pub(crate) use read::ReadError;
pub(crate) use read::{SummaryRow, read_summary};

use html::escape;
use read::{SiteFigures, Want, read_site};
use sections::{across, external, overview, site_section, sites_table, yields};

/// The report's file name in the results folder.
pub(crate) const REPORT_FILE: &str = "report.html";

/// How summary.csv's `Reason` begins for a site whose home page looks script-built and was not
/// rendered (`Render = no`, SPEC §18): the report marks such a site.
pub(crate) const SCRIPT_BUILT_MARK: &str = "home page looks script-built";

/// Sites that get a section of their own (the most pages first): beyond that, a page
/// of 4,000 sections would be neither readable nor small; every site stays in the table.
pub(crate) const MAX_SECTIONS: usize = 50;
/// Entries of each top list (external hosts, domains, most linked pages).
const TOP: usize = 20;
/// Yield curves drawn (the sites with most reward).
const MAX_CURVES: usize = 10;

/// What the results folder cannot say about the crawl that wrote it.
#[derive(Debug, Clone, Default)]
pub struct ReportOptions {
    /// The page budget and the rule that spent it, in words (`PageBudget = 300, pages split
    /// by DiscountedUcb`), for a budgeted crawl.
    pub budget: Option<String>,
    /// The crawl followed links across hosts (its `UrlAnalyzingThread` declares scopes that
    /// span hosts):
    /// the sites table shows each scope's hosts and the filter paper's TLP.
    pub domain_filter: bool,
}

/// What was written.
#[derive(Debug, Clone)]
pub(crate) struct ReportFacts {
    /// The file.
    pub path: PathBuf,
    /// Sites in it.
    pub sites: usize,
    /// Its size.
    pub bytes: usize,
    /// Seconds it took to read the results and write it.
    pub seconds: f64,
}

/// Why no report was written.
#[derive(Debug, Error)]
pub(crate) enum ReportError {
    /// summary.csv is missing or not rccrawler's.
    #[error("{0} (is this a results folder of rccrawler?)")]
    Summary(#[from] ReadError),
    /// The report could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// Reads `results` (its summary.csv and the folders it names) and writes
/// `results/report.html` atomically.
pub(crate) fn write_report(
    results: &Path,
    options: &ReportOptions,
) -> Result<ReportFacts, ReportError> {
    write_report_beside(results, options, &|| {})
}

/// [`write_report`] beside the network of sites being written: the sites' files are read
/// first, then `network_written` returns once `results/network/` is complete, then it is read
/// (at the end of a crawl of one large site the two readings took a tenth of a second each,
/// one after the other, with a core idle).
pub(crate) fn write_report_beside(
    results: &Path,
    options: &ReportOptions,
    network_written: &dyn Fn(),
) -> Result<ReportFacts, ReportError> {
    let started = Instant::now();
    let rows = read_summary(&results.join("summary.csv"))?;
    let (sectioned, curves) = plan(&rows);
    let mut wants = vec![
        Want {
            graph: false,
            curve: false,
            arcs: 0,
        };
        rows.len()
    ];
    for &i in &sectioned {
        wants[i].graph = true;
        wants[i].arcs = usize::try_from(rows[i].arcs).unwrap_or(0);
    }
    for &i in &curves {
        wants[i].curve = true;
    }
    let mut collected = read_sites(results, &rows, &wants);
    network_written();
    collected.network = crate::analysis::network::read::read_network(results, &network::shown)
        .unwrap_or_else(|why| {
            eprintln!("warning: the report leaves out the network: {why}");
            None
        });
    let path = results.join(REPORT_FILE);
    crate::base::storage::write_atomic(&path, |w| {
        w.write_all(html::head("rccrawler report").as_bytes())?;
        render(w, results, &rows, &collected, &sectioned, &curves, options)?;
        w.write_all(html::TAIL.as_bytes())
    })
    .map_err(|source| ReportError::Write {
        path: path.clone(),
        source,
    })?;
    let bytes = std::fs::metadata(&path).map_or(0, |m| m.len() as usize);
    Ok(ReportFacts {
        path,
        sites: rows.len(),
        bytes,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// What was read of the sites: the figures of those the page shows (a section, a yield
/// curve), and every external host over all sites with its links and linking sites.
#[derive(Debug, Default)]
struct Collected {
    /// Boxed: a few hundred sites have figures, and a million rows of an inline `None` cost
    /// 300 MB.
    figures: Vec<Option<Box<SiteFigures>>>,
    /// Every site's external links marked nofollow, ugc, sponsored (the sites table).
    rel: Vec<[u64; 3]>,
    hosts: HashMap<String, (u64, u64)>,
    /// The network of sites, when the folder has one (`network/`): the arcs the page shows.
    network: Option<crate::analysis::network::Network>,
}

/// Which sites get a section (most pages first, the first in hosts.txt among equals) and
/// which a yield curve (most reward first): decided from summary.csv, before any site's
/// files are read.
fn plan(rows: &[SummaryRow]) -> (Vec<usize>, Vec<usize>) {
    let top = |key: fn(&SummaryRow) -> u64, n: usize| {
        let crawled: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].pages > 0).collect();
        crate::base::best::best_by(crawled, n, |&a: &usize, &b: &usize| {
            key(&rows[b]).cmp(&key(&rows[a])).then(a.cmp(&b))
        })
    };
    (
        top(|r| r.pages, MAX_SECTIONS),
        top(|r| r.reward, MAX_CURVES),
    )
}

/// Reads the sites, several at once (reading is CPU work: CSV and petgraph); a site's
/// external hosts are added to the totals and dropped unless its section shows them.
fn read_sites(results: &Path, rows: &[SummaryRow], wants: &[Want]) -> Collected {
    let out = Mutex::new(Collected {
        figures: vec![None; rows.len()],
        rel: vec![[0; 3]; rows.len()],
        hosts: HashMap::new(),
        network: None,
    });
    let workers = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(4);
    for_each_index(rows.len(), workers, "report", |index| {
        let (row, want) = (&rows[index], wants[index]);
        // read_summary took only plain folder names.
        let mut f = read_site(&results.join(&row.folder), want);
        let mut out = out.lock();
        out.rel[index] = f.rel;
        for (h, &n) in &f.external_hosts {
            let e = out.hosts.entry(h.clone()).or_default();
            e.0 += n;
            e.1 += 1;
        }
        if !want.graph {
            f.external_hosts = HashMap::new();
        }
        if want.graph || want.curve || !f.problems.is_empty() {
            out.figures[index] = Some(Box::new(f));
        }
    });
    out.into_inner()
}

/// A site's anchor in the page.
fn anchor(i: usize) -> String {
    format!("site-{}", i + 1)
}

/// A plot, or why it is missing.
fn plot_or_note(p: Result<String, plot::PlotError>) -> String {
    p.unwrap_or_else(|e| format!("<p class=\"problem\">plot not drawn: {}</p>", escape(&e)))
}

/// Hands what `b` holds to the file: the page is written section by section (the sites
/// table in pieces), so a report of thousands of sites is never one string in memory.
fn emit(b: &mut String, w: &mut dyn Write) -> io::Result<()> {
    w.write_all(b.as_bytes())?;
    b.clear();
    Ok(())
}

/// Pieces of the sites table handed to the file at a time.
const PIECE: usize = 64 * 1024;

/// The page's body.
fn render(
    w: &mut dyn Write,
    results: &Path,
    rows: &[SummaryRow],
    collected: &Collected,
    sectioned: &[usize],
    curves: &[usize],
    options: &ReportOptions,
) -> io::Result<()> {
    let none = SiteFigures::default();
    let figures = |i: usize| collected.figures[i].as_deref().unwrap_or(&none);
    let has_section = {
        let mut v = vec![false; rows.len()];
        for &i in sectioned {
            v[i] = true;
        }
        v
    };
    let name = results
        .canonicalize()
        .unwrap_or_else(|_| results.to_path_buf())
        .display()
        .to_string();
    let mut b = String::with_capacity(2 * PIECE);
    let _ = write!(b, "<h1>rccrawler report</h1><p>{}", overview(rows));
    let _ = write!(
        b,
        " Results folder <code>{}</code>, report written {}.</p>",
        escape(&name),
        escape(&httpdate::fmt_http_date(SystemTime::now()))
    );
    if let Some(budget) = &options.budget {
        let _ = write!(
            b,
            "<p id=\"budget\">Budgeted crawl: {}.</p>",
            escape(budget)
        );
    }
    b.push_str("<nav><ol>");
    if collected.network.is_some() {
        b.push_str("<li><a href=\"#network\">Network of sites</a></li>");
    }
    b.push_str("<li><a href=\"#sites\">Sites</a></li>");
    b.push_str("<li><a href=\"#across\">Across sites</a></li>");
    b.push_str("<li><a href=\"#external\">External links</a></li>");
    if !curves.is_empty() {
        b.push_str("<li><a href=\"#yield\">Yield curves</a></li>");
    }
    b.push_str("<li><a href=\"#one-by-one\">Site by site</a></li></ol></nav>");

    if let Some(net) = &collected.network {
        network::section(&mut b, net);
        emit(&mut b, w)?;
    }
    sites_table(
        &mut b,
        w,
        (rows, &collected.rel),
        &has_section,
        options.domain_filter,
    )?;
    across(&mut b, rows);
    external(&mut b, &collected.hosts);
    emit(&mut b, w)?;
    if !curves.is_empty() {
        yields(&mut b, rows, &figures, curves, options);
    }
    let _ = write!(b, "<h2 id=\"one-by-one\">Site by site</h2>");
    if sectioned.len() < rows.iter().filter(|r| r.pages > 0).count() {
        let _ = write!(
            b,
            "<p class=\"note\">Sections for the {} sites with most pages; every site is in \
             the table above and has its files in its folder.</p>",
            sectioned.len()
        );
    }
    b.push_str("<nav><ol>");
    for &i in sectioned {
        let _ = write!(
            b,
            "<li><a href=\"#{}\">{}</a></li>",
            anchor(i),
            escape(&rows[i].site)
        );
    }
    b.push_str("</ol></nav>");
    for &i in sectioned {
        site_section(&mut b, i, &rows[i], figures(i));
        emit(&mut b, w)?;
    }
    emit(&mut b, w)
}

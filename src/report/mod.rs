//! `results/report.html` (SPEC §12): one self-contained page — no network, no script or
//! font from elsewhere — that shows a crawl at a glance: the sites table, the RCCrawler
//! paper's cross-site statistics, the external hosts and registrable domains linked to, the
//! BeeBot yield curves, and a section per site. Built from the files of a results folder
//! (`read.rs`), so the result unloader `ReportRU` (at the end of a crawl), `rccrawler report`
//! and a folder written by `rccrawler export` all give the same page.

mod graph;
mod html;
mod plot;
mod read;
mod stats;

use crate::parallel::for_each_index;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use parking_lot::Mutex;
use thiserror::Error;

pub use read::ReadError;
pub(crate) use read::read_summary;

use html::{Cell, escape, group, table};
use read::{SiteFigures, SummaryRow, Want, most_first, read_site};

/// The report's file name in the results folder.
pub const REPORT_FILE: &str = "report.html";

/// Sites that get a section of their own (the most pages first): beyond that, a page
/// of 4,000 sections would be neither readable nor small; every site stays in the table.
pub const MAX_SECTIONS: usize = 50;
/// Entries of each top list (external hosts, domains, most linked pages).
const TOP: usize = 20;
/// Yield curves drawn (the sites with most reward).
const MAX_CURVES: usize = 10;

/// What the results folder cannot say about the crawl that wrote it.
#[derive(Debug, Clone, Default)]
pub struct ReportOptions {
    /// The page budget and the rule that spent it, in words (`PageBudget = 300, rule
    /// GuardedUcb(...)`), for a budgeted crawl.
    pub budget: Option<String>,
    /// The crawl followed links across hosts (a `UrlAnalyzingThread` other than `EmptyUAT`):
    /// the sites table shows each scope's hosts and the filter paper's TLP.
    pub domain_filter: bool,
}

/// What was written.
#[derive(Debug, Clone)]
pub struct ReportFacts {
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
pub enum ReportError {
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
pub fn write_report(results: &Path, options: &ReportOptions) -> Result<ReportFacts, ReportError> {
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
    let collected = read_sites(results, &rows, &wants);
    let path = results.join(REPORT_FILE);
    crate::storage::write_atomic(&path, |w| {
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
    figures: Vec<Option<SiteFigures>>,
    hosts: HashMap<String, (u64, u64)>,
}

/// Which sites get a section (most pages first, the first in hosts.txt among equals) and
/// which a yield curve (most reward first): decided from summary.csv, before any site's
/// files are read.
fn plan(rows: &[SummaryRow]) -> (Vec<usize>, Vec<usize>) {
    let top = |key: fn(&SummaryRow) -> u64, n: usize| {
        let mut v: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].pages > 0).collect();
        v.sort_by(|&a, &b| key(&rows[b]).cmp(&key(&rows[a])).then(a.cmp(&b)));
        v.truncate(n);
        v
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
        hosts: HashMap::new(),
    });
    let workers = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(4);
    for_each_index(rows.len(), workers, "report", |index| {
        let (row, want) = (&rows[index], wants[index]);
        // A folder name from the file itself: one plain name inside the results folder,
        // never a path that leaves it (`..`, `/etc`, `a/../..`).
        let mut parts = Path::new(&row.folder).components();
        let plain =
            matches!(parts.next(), Some(std::path::Component::Normal(_))) && parts.next().is_none();
        if !plain {
            return;
        }
        let mut f = read_site(&results.join(&row.folder), want);
        let mut out = out.lock();
        for (h, &n) in &f.external_hosts {
            let e = out.hosts.entry(h.clone()).or_default();
            e.0 += n;
            e.1 += 1;
        }
        if !want.graph {
            f.external_hosts = HashMap::new();
        }
        if want.graph || want.curve || !f.problems.is_empty() {
            out.figures[index] = Some(f);
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
    let figures = |i: usize| collected.figures[i].as_ref().unwrap_or(&none);
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
    b.push_str("<li><a href=\"#sites\">Sites</a></li>");
    b.push_str("<li><a href=\"#across\">Across sites</a></li>");
    b.push_str("<li><a href=\"#external\">External links</a></li>");
    if !curves.is_empty() {
        b.push_str("<li><a href=\"#yield\">Yield curves</a></li>");
    }
    b.push_str("<li><a href=\"#one-by-one\">Site by site</a></li></ol></nav>");

    sites_table(&mut b, w, rows, &has_section, options.domain_filter)?;
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

/// The first line: what the crawl holds.
fn overview(rows: &[SummaryRow]) -> String {
    let sum = |f: fn(&SummaryRow) -> u64| rows.iter().map(f).sum::<u64>();
    let mut states: HashMap<String, u64> = HashMap::new();
    for r in rows {
        *states.entry(r.state.clone()).or_default() += 1;
    }
    let states: Vec<String> = most_first(states)
        .into_iter()
        .map(|(s, n)| format!("{n} {s}"))
        .collect();
    format!(
        "<span id=\"totals\">{} site{} ({}): {} pages, {} internal links, {} external links, \
         {} bad links.</span>",
        group(rows.len() as u64),
        if rows.len() == 1 { "" } else { "s" },
        escape(&states.join(", ")),
        group(sum(|r| r.pages)),
        group(sum(|r| r.arcs)),
        group(sum(|r| r.external_links)),
        group(sum(|r| r.bad_links)),
    )
}

fn sites_table(
    b: &mut String,
    w: &mut dyn Write,
    rows: &[SummaryRow],
    has_section: &[bool],
    domain_filter: bool,
) -> io::Result<()> {
    let _ = write!(
        b,
        "<h2 id=\"sites\">Sites</h2><p class=\"note\">As in summary.csv; click a column to \
         sort. Internal links are distinct arcs; TLP = seconds × pages fetched.</p>"
    );
    // Hosts and TLP say something with a domain filter, or where a scope spans hosts.
    let multi_host = domain_filter || rows.iter().any(|r| r.hosts > 1);
    let mut header = vec![
        "site",
        "pages",
        "internal links",
        "external links",
        "bad links",
        "duplicates",
        "max level",
        "state",
        "seconds",
        "fetched",
        "reward",
    ];
    if multi_host {
        header.extend(["hosts", "TLP"]);
    }
    b.push_str("<div class=\"wrap\">");
    html::table_start(b, "sites-table", &header, true);
    let mut row = Vec::with_capacity(header.len());
    for (i, r) in rows.iter().enumerate() {
        let site = if has_section[i] {
            format!("<a href=\"#{}\">{}</a>", anchor(i), escape(&r.site))
        } else {
            escape(&r.site)
        };
        row.clear();
        row.extend([
            Cell::Html(site),
            Cell::int(r.pages),
            Cell::int(r.arcs),
            Cell::int(r.external_links),
            Cell::int(r.bad_links),
            Cell::int(r.duplicates),
            Cell::int(r.max_level),
            Cell::Text(r.state.clone()),
            Cell::dec(r.seconds, 1),
            Cell::int(r.fetched),
            Cell::int(r.reward),
        ]);
        if multi_host {
            row.extend([Cell::int(r.hosts), Cell::dec(r.tlp, 1)]);
        }
        html::table_row(b, &row);
        if b.len() > PIECE {
            emit(b, w)?;
        }
    }
    html::table_end(b);
    b.push_str("</div>");
    Ok(())
}

/// The RCCrawler paper's experiments section: ranges, rank correlations, mean out-degree,
/// the pages-vs-links scatter.
fn across(b: &mut String, rows: &[SummaryRow]) {
    let crawled: Vec<&SummaryRow> = rows.iter().filter(|r| r.pages > 0).collect();
    let _ = write!(b, "<h2 id=\"across\">Across sites</h2>");
    if crawled.is_empty() {
        b.push_str("<p>No site has a page.</p>");
        return;
    }
    let pages: Vec<f64> = crawled.iter().map(|r| r.pages as f64).collect();
    let arcs: Vec<f64> = crawled.iter().map(|r| r.arcs as f64).collect();
    let ext: Vec<f64> = crawled.iter().map(|r| r.external_links as f64).collect();
    let span = |f: fn(&SummaryRow) -> u64| {
        stats::range(crawled.iter().map(|r| f(r))).map_or_else(String::new, |(lo, hi)| {
            format!("{} – {}", group(lo), group(hi))
        })
    };
    let rho = |x: &[f64], y: &[f64]| {
        stats::spearman(x, y).map_or_else(
            || Cell::Text("undefined (fewer than 3 sites, or all equal)".into()),
            |r| Cell::dec(r, 3),
        )
    };
    let total_pages: u64 = crawled.iter().map(|r| r.pages).sum();
    let total_arcs: u64 = crawled.iter().map(|r| r.arcs).sum();
    let total_ext: u64 = crawled.iter().map(|r| r.external_links).sum();
    let per_page = |n: u64| n as f64 / total_pages.max(1) as f64;
    // The per-site means, and their median: one large site does not decide it.
    let mut site_means: Vec<f64> = crawled
        .iter()
        .map(|r| r.arcs as f64 / r.pages as f64)
        .collect();
    site_means.sort_by(f64::total_cmp);
    let median = site_means[site_means.len() / 2];
    let stat_rows = vec![
        vec![
            Cell::Text("sites with at least one page".into()),
            Cell::int(crawled.len() as u64),
        ],
        vec![
            Cell::Text("pages per site".into()),
            Cell::Text(span(|r| r.pages)),
        ],
        vec![
            Cell::Text("internal links per site".into()),
            Cell::Text(span(|r| r.arcs)),
        ],
        vec![
            Cell::Text("external links per site".into()),
            Cell::Text(span(|r| r.external_links)),
        ],
        vec![
            Cell::Text("Spearman's ρ, pages vs internal links".into()),
            rho(&pages, &arcs),
        ],
        vec![
            Cell::Text("Spearman's ρ, pages vs external links".into()),
            rho(&pages, &ext),
        ],
        vec![
            Cell::Text("mean out-degree (internal links per page, all pages)".into()),
            Cell::dec(per_page(total_arcs), 2),
        ],
        vec![
            Cell::Text("median over sites of their mean out-degree".into()),
            Cell::dec(median, 2),
        ],
        vec![
            Cell::Text("mean external links per page".into()),
            Cell::dec(per_page(total_ext), 2),
        ],
    ];
    b.push_str("<div class=\"plots\"><div>");
    b.push_str(&table(
        "across-table",
        &["statistic", "value"],
        &stat_rows,
        false,
    ));
    b.push_str("</div>");
    let points: Vec<(f64, f64)> = crawled
        .iter()
        .filter(|r| r.arcs > 0)
        .map(|r| (r.pages as f64, r.arcs as f64))
        .collect();
    let left_out = crawled.len() - points.len();
    let mut caption = "Pages against internal links, one point per site (log axes).".to_owned();
    if left_out > 0 {
        let _ = write!(
            caption,
            " {left_out} sites without internal links are not on the log axes."
        );
    }
    b.push_str(&plot_or_note(plot::scatter(
        &points,
        "pages",
        "internal links",
        &caption,
    )));
    b.push_str("</div>");
}

/// Top external hosts and registrable domains over all sites.
fn external(b: &mut String, hosts: &HashMap<String, (u64, u64)>) {
    let _ = write!(b, "<h2 id=\"external\">External links</h2>");
    if hosts.is_empty() {
        b.push_str("<p>No external link.</p>");
        return;
    }
    // Registrable domains (the Public Suffix List): a.b.example.co.uk → example.co.uk;
    // an IP address or a bare suffix stays as it is.
    let mut domains: HashMap<String, (u64, u64, u64)> = HashMap::new();
    for (h, &(links, sites)) in hosts {
        let d = psl::domain_str(h).unwrap_or(h).to_owned();
        let e = domains.entry(d).or_default();
        e.0 += links;
        e.1 = e.1.max(sites);
        e.2 += 1;
    }
    let mut top_hosts: Vec<(&str, (u64, u64))> =
        hosts.iter().map(|(h, &n)| (h.as_str(), n)).collect();
    top_hosts.sort_by(|a, b| b.1.0.cmp(&a.1.0).then_with(|| a.0.cmp(b.0)));
    let host_count = top_hosts.len();
    let host_rows: Vec<Vec<Cell>> = top_hosts
        .iter()
        .take(TOP)
        .map(|(h, (links, sites))| {
            vec![
                Cell::Text((*h).to_owned()),
                Cell::int(*links),
                Cell::int(*sites),
            ]
        })
        .collect();
    let mut top_domains: Vec<(String, (u64, u64, u64))> = domains.into_iter().collect();
    top_domains.sort_by(|a, b| b.1.0.cmp(&a.1.0).then_with(|| a.0.cmp(&b.0)));
    let domain_count = top_domains.len();
    let domain_rows: Vec<Vec<Cell>> = top_domains
        .iter()
        .take(TOP)
        .map(|(d, (links, _, hosts))| {
            vec![Cell::Text(d.clone()), Cell::int(*links), Cell::int(*hosts)]
        })
        .collect();
    let _ = write!(
        b,
        "<p class=\"note\">{} external hosts in {} registrable domains (Public Suffix List); \
         the {TOP} most linked of each.</p><div class=\"plots\"><div>{}</div><div>{}</div></div>",
        group(host_count as u64),
        group(domain_count as u64),
        table(
            "external-hosts",
            &["external host", "links", "sites linking"],
            &host_rows,
            false
        ),
        table(
            "external-domains",
            &["registrable domain", "links", "hosts"],
            &domain_rows,
            false
        ),
    );
}

/// The BeeBot yield curves: reward against pages fetched, and the pages each site got.
fn yields<'f>(
    b: &mut String,
    rows: &[SummaryRow],
    figures: &impl Fn(usize) -> &'f SiteFigures,
    curves: &[usize],
    options: &ReportOptions,
) {
    let _ = write!(b, "<h2 id=\"yield\">Yield curves</h2>");
    let what = if options.budget.is_some() {
        "the pages the budget rule gave each site"
    } else {
        "the pages each site was crawled with"
    };
    let _ = write!(
        b,
        "<p class=\"note\">Each site's reward so far (yield.csv's Reward: new external links, or \
         all of them with BanditReward = AllExternal) against its pages in breadth-first order, \
         as in the BeeBot paper; the table lists {what}.{}</p>",
        {
            let fetched = rows.iter().filter(|r| r.fetched > 0).count();
            if fetched > curves.len() {
                format!(
                    " Curves of the {} sites with most reward (of {fetched}).",
                    curves.len()
                )
            } else {
                String::new()
            }
        }
    );
    let series: Vec<(String, Vec<(u64, u64)>)> = curves
        .iter()
        .map(|&i| (rows[i].site.clone(), figures(i).yield_curve.clone()))
        .collect();
    let table_rows: Vec<Vec<Cell>> = rows
        .iter()
        .filter(|r| r.fetched > 0)
        .map(|r| {
            vec![
                Cell::Text(r.site.clone()),
                Cell::int(r.fetched),
                Cell::int(r.reward),
                Cell::dec(r.reward as f64 / r.fetched.max(1) as f64, 2),
            ]
        })
        .collect();
    let _ = write!(
        b,
        "<div class=\"plots\">{}<div class=\"wrap\">{}</div></div>",
        plot_or_note(plot::curves(
            &series,
            "pages fetched",
            "reward (external links)",
            "Cumulative reward against pages fetched, per site.",
        )),
        table(
            "yield-table",
            &["site", "pages fetched", "reward", "reward per page"],
            &table_rows,
            true
        )
    );
}

fn site_section(b: &mut String, i: usize, r: &SummaryRow, f: &SiteFigures) {
    let _ = write!(
        b,
        "<section id=\"{}\" class=\"site\"><h3>{}</h3>",
        anchor(i),
        escape(&r.site)
    );
    let facts = vec![vec![
        Cell::int(f.nodes),
        Cell::int(f.arcs),
        Cell::int(r.external_links),
        Cell::int(r.bad_links),
        Cell::int(f.levels.len().saturating_sub(1) as u64),
        Cell::int(f.components as u64),
        Cell::int(f.largest_component as u64),
        Cell::Text(r.state.clone()),
    ]];
    b.push_str(&table(
        &format!("{}-facts", anchor(i)),
        &[
            "pages",
            "internal links",
            "external links",
            "bad links",
            "max level",
            "strongly connected components",
            "largest component (pages)",
            "state",
        ],
        &facts,
        false,
    ));
    for p in &f.problems {
        let _ = write!(b, "<p class=\"problem\">{}</p>", escape(p));
    }
    b.push_str("<div class=\"plots\">");
    b.push_str(&plot_or_note(plot::levels(
        &f.levels,
        "Pages per level (breadth-first depth from the home page).",
    )));
    b.push_str(&plot_or_note(plot::degrees(
        &stats::log_binned(&f.in_degrees),
        &stats::log_binned(&f.out_degrees),
        "In- and out-degree distributions (internal links, log-log; pages with degree 0 \
         are not on the axes; degrees above 100 binned).",
    )));
    b.push_str("</div>");
    let linked: Vec<Vec<Cell>> = f
        .top_linked
        .iter()
        .map(|l| {
            vec![
                Cell::int(l.in_links),
                Cell::Text(l.title.clone()),
                Cell::Html(format!("<span class=\"url\">{}</span>", escape(&l.url))),
            ]
        })
        .collect();
    b.push_str("<div class=\"plots\"><div><h4>Most linked pages</h4>");
    b.push_str(&table(
        &format!("{}-linked", anchor(i)),
        &["in-links", "title", "URL"],
        &linked,
        false,
    ));
    b.push_str("</div><div><h4>Bad links</h4>");
    if f.bad_reasons.is_empty() {
        b.push_str("<p>None.</p>");
    } else {
        let reasons: Vec<Vec<Cell>> = f
            .bad_reasons
            .iter()
            .map(|(why, n)| vec![Cell::Text(why.clone()), Cell::int(*n)])
            .collect();
        b.push_str(&table(
            &format!("{}-bad", anchor(i)),
            &["reason", "links"],
            &reasons,
            false,
        ));
    }
    b.push_str("</div><div><h4>Top external hosts</h4>");
    if f.external_hosts.is_empty() {
        b.push_str("<p>None.</p>");
    } else {
        let hosts: Vec<Vec<Cell>> = most_first(f.external_hosts.clone())
            .into_iter()
            .take(10)
            .map(|(h, n)| vec![Cell::Text(h), Cell::int(n)])
            .collect();
        b.push_str(&table(
            &format!("{}-hosts", anchor(i)),
            &["host", "links"],
            &hosts,
            false,
        ));
    }
    b.push_str("</div></div></section>");
}

//! The report's sections: the overview line, the sites table, the cross-site statistics,
//! the external hosts and domains, the yield curves, and one section per site.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Write};

use super::html::{self, Cell, escape, group, table};
use super::ranked::RANKED_BY;
use super::read::{SiteFigures, SummaryRow, most_first};
use super::{PIECE, ReportOptions, TOP, anchor, emit, plot, plot_or_note, stats};

/// The most sites the pages-vs-links scatter draws (the largest, by pages).
const MAX_SCATTER_POINTS: usize = 2_000;

/// The first line: what the crawl holds.
pub(super) fn overview(rows: &[SummaryRow]) -> String {
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

pub(super) fn sites_table(
    b: &mut String,
    w: &mut dyn Write,
    (rows, rel): (&[SummaryRow], &[[u64; 3]]),
    has_section: &[bool],
    domain_filter: bool,
) -> io::Result<()> {
    let extra = super::site_columns::Extra::of(rows, rel, domain_filter);
    let _ = write!(
        b,
        "<h2 id=\"sites\">Sites</h2><p class=\"note\">As in summary.csv; click a column to \
         sort. Internal links are distinct arcs; TLP = seconds × pages fetched.{}</p>",
        extra.notes()
    );
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
    extra.header(&mut header);
    b.push_str("<div class=\"wrap\">");
    html::table_start(b, "sites-table", &header, true);
    let mut row = Vec::with_capacity(header.len());
    for (i, r) in rows.iter().enumerate() {
        let mut site = if has_section[i] {
            format!("<a href=\"#{}\">{}</a>", anchor(i), escape(&r.site))
        } else {
            escape(&r.site)
        };
        if r.script_built {
            site.push_str(" <span class=\"warn\" title=\"its home page looks built by scripts; Render = auto reads what they build\">script-built</span>");
        }
        row.clear();
        row.extend([
            Cell::Html(site),
            Cell::int(r.pages),
            Cell::int(r.arcs),
            Cell::int(r.external_links),
            Cell::int(r.bad_links),
            Cell::int(r.duplicates),
            Cell::int(r.max_level),
            Cell::Text(r.shown_state()),
            Cell::dec(r.seconds, 1),
            Cell::int(r.fetched),
            Cell::int(r.reward),
        ]);
        extra.cells(r, &rel[i], &mut row);
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
pub(super) fn across(b: &mut String, rows: &[SummaryRow]) {
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
    b.push_str(&pages_links_scatter(&crawled));
    b.push_str("</div>");
}

/// The pages-vs-links scatter of the sites with a page: a point per site with internal links.
fn pages_links_scatter(crawled: &[&SummaryRow]) -> String {
    // The largest sites (by pages) when there are many: a point per site of 100,000 sites
    // was megabytes of SVG, and no one tells 100,000 points apart.
    let mut on_axes: Vec<_> = crawled.iter().copied().filter(|r| r.arcs > 0).collect();
    let with_links = on_axes.len();
    if with_links > MAX_SCATTER_POINTS {
        on_axes = crate::base::best::best_by(on_axes, MAX_SCATTER_POINTS, |a, b| {
            b.pages.cmp(&a.pages).then_with(|| a.site.cmp(&b.site))
        });
    }
    let points: Vec<(f64, f64)> = on_axes
        .iter()
        .map(|r| (r.pages as f64, r.arcs as f64))
        .collect();
    let names: Vec<String> = on_axes
        .iter()
        .map(|r| format!("{}: {} pages, {} links", r.site, r.pages, r.arcs))
        .collect();
    let left_out = crawled.len() - with_links;
    let mut caption = "Pages against internal links, one point per site (log axes).".to_owned();
    if with_links > MAX_SCATTER_POINTS {
        let _ = write!(
            caption,
            " The {MAX_SCATTER_POINTS} largest of {with_links} sites with internal links."
        );
    }
    if left_out > 0 {
        let _ = write!(
            caption,
            " {left_out} sites without internal links are not on the log axes."
        );
    }
    plot_or_note(plot::scatter(
        &points,
        &names,
        "pages",
        "internal links",
        &caption,
    ))
}

/// Top external hosts and registrable domains over all sites.
pub(super) fn external(b: &mut String, hosts: &HashMap<String, (u64, u64)>) {
    let _ = write!(b, "<h2 id=\"external\">External links</h2>");
    if hosts.is_empty() {
        b.push_str("<p>No external link.</p>");
        return;
    }
    // Registrable domains (the Public Suffix List): a.b.example.co.uk → example.co.uk;
    // an IP address, a dotless name or a bare suffix stays as it is (as the network's units).
    let mut domains: HashMap<String, (u64, u64, u64)> = HashMap::new();
    for (h, &(links, sites)) in hosts {
        let d = crate::analysis::network::registrable_domain(h).to_owned();
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
/// Rows of the yield table at most: the sites table lists every site's pages fetched and
/// reward already, and a table of a million rows is no page a browser opens.
const YIELD_ROWS: usize = 2_000;

/// The `n` sites of `among` with most reward (the first in hosts.txt among equals), in
/// hosts.txt order.
fn most_reward(rows: &[SummaryRow], among: &[usize], n: usize) -> Vec<usize> {
    let mut chosen = crate::base::best::best_by(among.to_vec(), n, |&a: &usize, &b: &usize| {
        rows[b].reward.cmp(&rows[a].reward).then(a.cmp(&b))
    });
    chosen.sort_unstable();
    chosen
}

pub(super) fn yields<'f>(
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
    let fetched: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].fetched > 0).collect();
    let listed = most_reward(rows, &fetched, YIELD_ROWS);
    let _ = write!(
        b,
        "<p class=\"note\">Each site's reward so far (yield.csv's Reward: new external links, or \
         all of them with BanditReward = AllExternal) against its pages in breadth-first order, \
         as in the BeeBot paper; the table lists {what}.{}{}</p>",
        if fetched.len() > curves.len() {
            format!(
                " Curves of the {} sites with most reward (of {}).",
                curves.len(),
                fetched.len()
            )
        } else {
            String::new()
        },
        if listed.len() < fetched.len() {
            format!(
                " The table lists the {} sites with most reward; the sites table above has \
                 every site's pages fetched and reward.",
                listed.len()
            )
        } else {
            String::new()
        }
    );
    let series: Vec<(String, Vec<(u64, u64)>)> = curves
        .iter()
        .map(|&i| (rows[i].site.clone(), figures(i).yield_curve.clone()))
        .collect();
    let table_rows: Vec<Vec<Cell>> = listed
        .iter()
        .map(|&i| &rows[i])
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
            "Cumulative reward against pages fetched, per site (log reward axis: a curve \
             starts at its first external link).",
        )),
        table(
            "yield-table",
            &["site", "pages fetched", "reward", "reward per page"],
            &table_rows,
            true
        )
    );
}

/// The result files of a site every report links (relative to report.html, so that the links
/// work opened from disk and served by the status page alike).
const SITE_FILES: [&str; 5] = [
    "nodes.csv",
    "edges.csv",
    "graph.gexf",
    "external_links.csv",
    "bad_links.csv",
];

/// The links to a site's files, relative to the report (text.csv where the crawl wrote one).
fn site_files(b: &mut String, r: &SummaryRow, text: bool) {
    if r.folder.is_empty() {
        return;
    }
    // A folder name is one plain name (summary.csv's Folder is checked so): only the
    // characters a URL path treats apart are encoded.
    let folder: String = r
        .folder
        .chars()
        .map(|c| match c {
            '%' => "%25".to_owned(),
            '#' => "%23".to_owned(),
            '?' => "%3F".to_owned(),
            ' ' => "%20".to_owned(),
            c => c.to_string(),
        })
        .collect();
    let links: Vec<String> = SITE_FILES
        .iter()
        .chain(text.then_some(&"text.csv"))
        .map(|file| format!("<a href=\"{}/{file}\">{file}</a>", escape(&folder)))
        .collect();
    let _ = write!(
        b,
        "<p class=\"files\">Files in <code>{}/</code>: {}</p>",
        escape(&r.folder),
        links.join(" · ")
    );
}

pub(super) fn site_section(b: &mut String, i: usize, r: &SummaryRow, f: &SiteFigures) {
    let _ = write!(
        b,
        "<section id=\"{}\" class=\"site\"><h3>{}</h3>",
        anchor(i),
        escape(&r.site)
    );
    site_files(b, r, f.text);
    let facts = vec![vec![
        Cell::int(f.nodes),
        Cell::int(f.arcs),
        Cell::int(r.external_links),
        Cell::int(r.bad_links),
        Cell::int(f.levels.len().saturating_sub(1) as u64),
        Cell::int(f.components as u64),
        Cell::int(f.largest_component as u64),
        Cell::Text(r.shown_state()),
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
    b.push_str("<div class=\"plots\">");
    page_tables(b, i, f);
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

/// A site's tables of pages: the most linked, then those each measure ranks highest (each in
/// its own box of the row the caller opened and closes).
fn page_tables(b: &mut String, i: usize, f: &SiteFigures) {
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
    b.push_str("<div><h4>Most linked pages</h4>");
    b.push_str(&table(
        &format!("{}-linked", anchor(i)),
        &["in-links", "title", "URL"],
        &linked,
        false,
    ));
    for ((column, heading, decimals), top) in RANKED_BY.iter().zip(&f.top_ranked) {
        if top.is_empty() {
            continue;
        }
        let rows: Vec<Vec<Cell>> = top
            .iter()
            .map(|p| {
                vec![
                    Cell::Text(format!("{:.*}", decimals, p.value)),
                    Cell::Text(p.title.clone()),
                    Cell::Html(format!("<span class=\"url\">{}</span>", escape(&p.url))),
                ]
            })
            .collect();
        let _ = write!(b, "</div><div><h4>{heading}</h4>");
        b.push_str(&table(
            &format!("{}-{}", anchor(i), column.to_ascii_lowercase()),
            &[column, "title", "URL"],
            &rows,
            false,
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scatter_draws_the_largest_sites_when_there_are_many() {
        let rows: Vec<SummaryRow> = (0..2_500u64)
            .map(|i| SummaryRow {
                site: format!("http://s{i}.test"),
                pages: i + 1,
                arcs: 2 * (i + 1),
                ..SummaryRow::default()
            })
            .collect();
        let crawled: Vec<&SummaryRow> = rows.iter().collect();
        let html = pages_links_scatter(&crawled);
        assert!(html.contains("data-marks=\"2000\""), "{}", &html[..200]);
        assert!(html.contains("The 2000 largest of 2500 sites with internal links."));
        // The largest are drawn, the smallest left out.
        assert!(html.contains("http://s2499.test: 2500 pages"));
        assert!(!html.contains("http://s0.test: 1 pages"));
        let few = pages_links_scatter(&crawled[..10]);
        assert!(few.contains("data-marks=\"10\""));
        assert!(!few.contains("largest of"));
    }
}

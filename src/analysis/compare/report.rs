//! `DIR/report.html`: the change at a glance — the crawls, where they cannot be compared, what
//! changed, the sites that grew and shrank most, the levels side by side, the network before
//! and after. One self-contained page (styles, plots and script inline), like the crawl's
//! report.html, built with the same pieces.

use std::fmt::Write as _;
use std::io;
use std::path::Path;

use super::PairTotals;
use super::comparable::Verdict;
use super::folder::Crawl;
use super::network_diff::NetworkChange;

/// Each pair of crawls compared, the first and last first: its figures and the two crawls'
/// indices.
type Pairs<'a> = (&'a [PairTotals], &'a [(usize, usize)]);
use crate::analysis::report::html::{Cell, TAIL, escape, group, head, table};
use crate::analysis::report::plot::levels_side_by_side;

/// The report's file name in DIR.
pub(crate) const REPORT_FILE: &str = "report.html";
/// Sites listed among those that grew, and shrank, most.
const TOP_SITES: usize = 15;
/// Links between sites, and sites, listed.
const TOP_LINKS: usize = 25;

/// Writes `out/report.html`.
pub(crate) fn write(
    out: &Path,
    crawls: &[Crawl],
    pairs: Pairs<'_>,
    levels: &[Vec<u64>],
    network: Option<&NetworkChange>,
) -> io::Result<()> {
    let html = page(out, crawls, pairs, levels, network);
    super::write_file(&out.join(REPORT_FILE), |f| {
        io::Write::write_all(f, html.as_bytes())
    })
}

fn page(
    out: &Path,
    crawls: &[Crawl],
    pairs: Pairs<'_>,
    levels: &[Vec<u64>],
    network: Option<&NetworkChange>,
) -> String {
    let (top, (a, b)) = (&pairs.0[0], pairs.1[0]);
    let mut h = head(&format!("rccrawler: {} crawls compared", crawls.len()));
    let _ = write!(
        h,
        "<h1>{} crawls compared</h1><p>{} → {}: what changed between the first and the last.</p>",
        crawls.len(),
        escape(&crawls[a].name()),
        escape(&crawls[b].name())
    );
    h.push_str(&crawls_table(crawls));
    comparability(&mut h, top);
    changes(&mut h, pairs, crawls);
    super::page_lists::section(&mut h, out);
    growth(&mut h, top);
    let series: Vec<(String, Vec<u64>)> = crawls
        .iter()
        .map(|c| c.name())
        .zip(levels.iter().cloned())
        .collect();
    h.push_str("<h2 id=\"levels\">Pages per level</h2>");
    match levels_side_by_side(&series, "Pages at each level, every site of each crawl") {
        Ok(svg) => h.push_str(&svg),
        Err(e) => {
            let _ = write!(h, "<p class=\"problem\">{}</p>", escape(&e));
        }
    }
    network_section(&mut h, crawls, network);
    h.push_str(TAIL);
    h
}

fn crawls_table(crawls: &[Crawl]) -> String {
    let rows: Vec<Vec<Cell>> = crawls
        .iter()
        .map(|c| {
            let sum = |f: fn(&crate::analysis::report::SummaryRow) -> u64| {
                Cell::int(c.rows.iter().map(f).sum())
            };
            vec![
                Cell::int(c.number as u64),
                Cell::Text(c.path.display().to_string()),
                Cell::Text(c.started().to_owned()),
                Cell::int(c.rows.len() as u64),
                sum(|r| r.pages),
                sum(|r| r.arcs),
                sum(|r| r.external_links),
            ]
        })
        .collect();
    let mut h = String::from("<h2 id=\"crawls\">Crawls</h2>");
    h.push_str(&table(
        "crawls",
        &[
            "crawl",
            "folder",
            "started",
            "sites",
            "pages",
            "arcs",
            "external links",
        ],
        &rows,
        false,
    ));
    h
}

fn comparability(h: &mut String, t: &PairTotals) {
    let [yes, unknown, no] = t.verdicts;
    let _ = write!(
        h,
        "<h2 id=\"comparable\">Comparable</h2><p id=\"verdicts\">{} sites comparable, {} not, {} unknown (settings not recorded).</p>",
        group(yes),
        group(no),
        group(unknown)
    );
    if !t.global_notes.is_empty() {
        h.push_str("<p>Settings that differ for every site:</p><ul id=\"global-notes\">");
        for n in &t.global_notes {
            let _ = write!(h, "<li>{}</li>", escape(n));
        }
        h.push_str("</ul>");
    }
    if !t.site_notes.is_empty() {
        let rows: Vec<Vec<Cell>> = t
            .site_notes
            .iter()
            .map(|(s, n)| vec![Cell::Text(s.clone()), Cell::Text(n.join("; "))])
            .collect();
        h.push_str("<p>Sites with differences of their own (all in sites.csv's Notes):</p>");
        h.push_str(&table(
            "site-notes",
            &["site", "why not comparable"],
            &rows,
            true,
        ));
    }
}

fn changes(h: &mut String, (totals, numbers): Pairs<'_>, crawls: &[Crawl]) {
    h.push_str("<h2 id=\"changes\">What changed</h2>");
    let rows: Vec<Vec<Cell>> = totals
        .iter()
        .zip(numbers)
        .map(|(t, &(a, b))| {
            let mut row = vec![Cell::Text(format!(
                "{} → {}",
                crawls[a].number, crawls[b].number
            ))];
            row.extend(
                t.pages
                    .iter()
                    .chain(&t.arcs)
                    .chain(&t.external)
                    .map(|&n| Cell::int(n)),
            );
            row
        })
        .collect();
    h.push_str(&table(
        "change-counts",
        &[
            "crawls",
            "pages added",
            "pages removed",
            "changed",
            "renamed",
            "level changed",
            "arcs added",
            "arcs removed",
            "reweighted",
            "external links added",
            "external links removed",
        ],
        &rows,
        false,
    ));
}

fn growth(h: &mut String, t: &PairTotals) {
    let mut grown: Vec<(&str, u64, u64, i64, Verdict)> = t
        .growth
        .iter()
        .filter_map(|(s, a, b, v)| Some((s.as_str(), (*a)?, (*b)?, *v)))
        .map(|(s, a, b, v)| (s, a, b, b as i64 - a as i64, v))
        .collect();
    grown.sort_by(|x, y| y.3.cmp(&x.3).then_with(|| x.0.cmp(y.0)));
    let row = |(s, a, b, d, v): &(&str, u64, u64, i64, Verdict)| {
        vec![
            Cell::Text((*s).to_owned()),
            Cell::int(*a),
            Cell::int(*b),
            Cell::Num(*d as f64, format!("{d:+}")),
            Cell::Text(v.as_str().to_owned()),
        ]
    };
    let header = [
        "site",
        "pages before",
        "pages after",
        "change",
        "comparable",
    ];
    let up: Vec<Vec<Cell>> = grown
        .iter()
        .filter(|g| g.3 > 0)
        .take(TOP_SITES)
        .map(row)
        .collect();
    let down: Vec<Vec<Cell>> = grown
        .iter()
        .rev()
        .filter(|g| g.3 < 0)
        .take(TOP_SITES)
        .map(row)
        .collect();
    h.push_str("<h2 id=\"growth\">Sites that grew and shrank most</h2>");
    if up.is_empty() && down.is_empty() {
        // Empty tables say nothing a reader can see (issue 68).
        h.push_str("<p class=\"note\" id=\"growth-none\">No site grew or shrank.</p>");
    } else {
        h.push_str("<h3>Grew</h3>");
        if up.is_empty() {
            h.push_str("<p class=\"note\" id=\"grew-none\">No site grew.</p>");
        } else {
            h.push_str(&table("grew", &header, &up, true));
        }
        h.push_str("<h3>Shrank</h3>");
        if down.is_empty() {
            h.push_str("<p class=\"note\" id=\"shrank-none\">No site shrank.</p>");
        } else {
            h.push_str(&table("shrank", &header, &down, true));
        }
    }
    let gone: Vec<&str> = t
        .growth
        .iter()
        .filter(|g| g.2.is_none())
        .map(|g| g.0.as_str())
        .collect();
    let new: Vec<&str> = t
        .growth
        .iter()
        .filter(|g| g.1.is_none())
        .map(|g| g.0.as_str())
        .collect();
    for (what, sites) in [
        ("Only in the first crawl", gone),
        ("Only in the last crawl", new),
    ] {
        if !sites.is_empty() {
            let _ = write!(h, "<p>{what}: {}</p>", escape(&sites.join(", ")));
        }
    }
}

fn network_section(h: &mut String, crawls: &[Crawl], network: Option<&NetworkChange>) {
    h.push_str("<h2 id=\"network\">The network of sites</h2>");
    let Some(n) = network else {
        h.push_str("<p class=\"note\">Not every crawl compared has a network of sites.</p>");
        return;
    };
    let rows: Vec<Vec<Cell>> = crawls
        .iter()
        .zip(&n.sizes)
        .map(|(c, &(t, a, e))| {
            vec![
                Cell::Text(c.name()),
                Cell::int(t as u64),
                Cell::int(a as u64),
                Cell::int(e as u64),
            ]
        })
        .collect();
    h.push_str(&table(
        "network-sizes",
        &["crawl", "targets", "accompanying sites", "arcs"],
        &rows,
        false,
    ));
    let _ = write!(
        h,
        "<h3>New links between sites</h3><p>{} arcs gained, {} lost (network/arcs.csv lists them all).</p>",
        group(n.gained.len() as u64),
        group(n.lost as u64)
    );
    let rows: Vec<Vec<Cell>> = n
        .gained
        .iter()
        .take(TOP_LINKS)
        .map(|(s, t, w)| vec![Cell::Text(s.clone()), Cell::Text(t.clone()), Cell::int(*w)])
        .collect();
    h.push_str(&table("gained", &["from", "to", "links"], &rows, true));
    for (what, sites) in [
        ("New accompanying sites", &n.new_sites),
        ("Accompanying sites gone", &n.gone_sites),
    ] {
        let shown: Vec<&str> = sites.iter().take(TOP_LINKS).map(String::as_str).collect();
        let more = sites.len().saturating_sub(TOP_LINKS);
        let _ = write!(
            h,
            "<p>{what} ({}): {}",
            sites.len(),
            escape(&shown.join(", "))
        );
        if more > 0 {
            let _ = write!(h, " and {more} more");
        }
        h.push_str("</p>");
    }
}

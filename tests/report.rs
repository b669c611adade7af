//! report.html (SPEC §12): written at the end of a crawl by `ReportRU` and by `rccrawler
//! report` from any results folder, its numbers equal to those recomputed here from the CSV
//! files, and seen in headless Chromium as a person sees it: no script error, every plot
//! drawn with its marks.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::process::Output;
use std::time::Duration;

use common::run_binary as run;
use common::webgen::{self, WebSpec};
use common::{TestWeb, read_csv};

const SITES: [(&str, u64); 4] = [
    ("s01.test", 60),
    ("s02.test", 150),
    ("s03.test", 25),
    ("s04.test", 90),
];

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Four generated sites, a hand-made one whose external links go to hosts of two
/// registrable domains, and one that cannot be reached.
fn web() -> (TestWeb, Vec<String>) {
    let web = TestWeb::new();
    for (i, (host, pages)) in SITES.iter().enumerate() {
        webgen::install(
            &web,
            WebSpec {
                host,
                pages: *pages,
                seed: 900 + i as u64,
                delay: Duration::ZERO,
                slow: Vec::new(),
            },
        );
    }
    web.page(
        "news.bbc.co.uk",
        "/",
        "<title>News &amp; more</title><a href=/a>a</a> <a href=http://x.example.co.uk/1>1</a> \
         <a href=http://y.example.co.uk/2>2</a> <a href=http://y.example.co.uk/3>3</a>",
    );
    web.page("news.bbc.co.uk", "/a", "<a href=/>home</a>");
    let mut hosts: Vec<String> = SITES.iter().map(|(h, _)| web.origin(h)).collect();
    hosts.push(web.origin("news.bbc.co.uk"));
    // Nothing listens on port 1.
    hosts.push("http://s05.test:1".to_owned());
    (web, hosts)
}

/// Spearman's ρ as a textbook computes it: mid-ranks for ties, Pearson's r of the ranks.
fn spearman(x: &[f64], y: &[f64]) -> f64 {
    fn ranks(v: &[f64]) -> Vec<f64> {
        v.iter()
            .map(|a| {
                let below = v.iter().filter(|b| *b < a).count() as f64;
                let equal = v.iter().filter(|b| *b == a).count() as f64;
                below + (equal + 1.0) / 2.0
            })
            .collect()
    }
    let (rx, ry) = (ranks(x), ranks(y));
    let n = rx.len() as f64;
    let (mx, my) = (rx.iter().sum::<f64>() / n, ry.iter().sum::<f64>() / n);
    let cov: f64 = rx.iter().zip(&ry).map(|(a, b)| (a - mx) * (b - my)).sum();
    let vx: f64 = rx.iter().map(|a| (a - mx).powi(2)).sum();
    let vy: f64 = ry.iter().map(|b| (b - my).powi(2)).sum();
    cov / (vx * vy).sqrt()
}

/// The text of the HTML between `start` and the next `end` after it.
fn between<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
    let from = html
        .find(start)
        .unwrap_or_else(|| panic!("{start:?} is not in the report"));
    let rest = &html[from + start.len()..];
    &rest[..rest.find(end).unwrap_or(rest.len())]
}

/// The exact value (`data-v`) of the number cell in the row of `table` whose first cell
/// holds `label`.
fn stat(html: &str, table: &str, label: &str) -> f64 {
    let t = between(html, &format!("<table id=\"{table}\""), "</table>");
    let row = between(t, label, "</tr>");
    between(row, "data-v=\"", "\"").parse().unwrap()
}

/// What the CSV files say: per site folder, (nodes, arcs); the in-degrees; every external host.
struct FromCsv {
    sites: Vec<(String, f64, f64)>,
    external: f64,
    bad: f64,
    hosts: HashMap<String, u64>,
}

fn from_csv(results: &Path) -> FromCsv {
    let (header, rows) = read_csv(&results.join("summary.csv"));
    let folder = header.iter().position(|h| h == "Folder").unwrap();
    let mut out = FromCsv {
        sites: Vec::new(),
        external: 0.0,
        bad: 0.0,
        hosts: HashMap::new(),
    };
    for r in rows {
        let dir = results.join(&r[folder]);
        if !dir.join("nodes.csv").exists() {
            continue;
        }
        let (_, ext) = read_csv(&dir.join("external_links.csv"));
        for e in &ext {
            *out.hosts.entry(e[2].clone()).or_default() += 1;
        }
        out.external += ext.len() as f64;
        // An unreachable site has no page, and its home page as a bad link.
        out.bad += read_csv(&dir.join("bad_links.csv")).1.len() as f64;
        let nodes = read_csv(&dir.join("nodes.csv")).1.len() as f64;
        if nodes > 0.0 {
            let arcs = read_csv(&dir.join("edges.csv")).1.len() as f64;
            out.sites.push((r[folder].clone(), nodes, arcs));
        }
    }
    out
}

#[test]
fn the_report_shows_the_crawl_with_numbers_recomputed_from_its_files() {
    let (web, hosts) = web();
    let dir = common::prepare(
        &hosts,
        &[
            ("ResultUnloaders", "GephiSiteGraphRU,ReportRU"),
            ("MaxRetries", "0"),
        ],
    );
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let results = dir.path().join("results");
    let report = results.join("report.html");
    assert!(
        text(&o)
            .lines()
            .any(|l| l.starts_with("report: ") && l.ends_with("results/report.html")),
        "the end of the crawl says where the report is: {}",
        text(&o)
    );
    let html = std::fs::read_to_string(&report).unwrap();
    let csv = from_csv(&results);
    assert_eq!(csv.sites.len(), 5, "five sites crawled, one unreachable");

    // Totals: 6 sites, pages, arcs, external and bad links as the files count them.
    let totals = between(&html, "<span id=\"totals\">", "</span>");
    let pages: f64 = csv.sites.iter().map(|s| s.1).sum();
    let arcs: f64 = csv.sites.iter().map(|s| s.2).sum();
    let grouped = |n: f64| {
        let s = (n as u64).to_string();
        let mut out = String::new();
        for (i, c) in s.chars().enumerate() {
            if i > 0 && (s.len() - i).is_multiple_of(3) {
                out.push('\u{202f}');
            }
            out.push(c);
        }
        out
    };
    for (n, what) in [
        (pages, "pages"),
        (arcs, "internal links"),
        (csv.external, "external links"),
        (csv.bad, "bad links"),
    ] {
        assert!(
            totals.contains(&format!("{} {what}", grouped(n))),
            "{what}: {} in {totals}",
            grouped(n)
        );
    }
    assert!(totals.starts_with("6 sites ("), "{totals}");
    assert!(totals.contains("1 unreachable"), "{totals}");

    // The paper's statistics.
    let xs: Vec<f64> = csv.sites.iter().map(|s| s.1).collect();
    let ys: Vec<f64> = csv.sites.iter().map(|s| s.2).collect();
    let rho = stat(&html, "across-table", "pages vs internal links");
    assert!((rho - spearman(&xs, &ys)).abs() < 1e-9, "{rho}");
    let mean = stat(&html, "across-table", "mean out-degree");
    assert!((mean - arcs / pages).abs() < 1e-9, "{mean}");
    assert_eq!(
        stat(&html, "across-table", "sites with at least one page"),
        5.0
    );

    // Per site: pages per level drawn as one bar per level, the most linked page.
    for (folder, nodes, _) in &csv.sites {
        let d = results.join(folder);
        let (_, node_rows) = read_csv(&d.join("nodes.csv"));
        let (_, edge_rows) = read_csv(&d.join("edges.csv"));
        let levels = node_rows
            .iter()
            .map(|r| r[2].parse::<usize>().unwrap())
            .max()
            .unwrap()
            + 1;
        let mut in_links: BTreeMap<usize, u64> = BTreeMap::new();
        for e in &edge_rows {
            *in_links.entry(e[1].parse().unwrap()).or_default() += 1;
        }
        let (&top_id, &top_in) = in_links
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .unwrap();
        let site_name = hosts
            .iter()
            .find(|h| {
                h.trim_start_matches("http://")
                    .replace(':', "_")
                    .eq(folder.as_str())
            })
            .unwrap();
        let section = between(&html, &format!("<h3>{site_name}</h3>"), "</section>");
        let facts = between(section, "<tbody>", "</tbody>");
        assert!(
            facts.contains(&format!("data-v=\"{nodes}\"")),
            "{folder}: {nodes} pages in {facts}"
        );
        assert!(
            section.contains(&format!("class=\"plot\" data-marks=\"{levels}\"")),
            "{folder}: {levels} levels drawn"
        );
        let linked = between(section, "-linked\"", "</table>");
        let first = between(linked, "<tbody><tr>", "</tr>");
        assert!(
            first.contains(&format!("data-v=\"{top_in}\""))
                && first.contains(&format!(">{}<", node_rows[top_id - 1][1])),
            "{folder}: the most linked page is {} with {top_in}: {first}",
            node_rows[top_id - 1][1]
        );
        // See: issue 53 — the pages each measure ranks highest, from nodes.csv's columns.
        for (column, table_id, decimals) in
            [("PageRank", "pagerank", 5), ("Harmonic", "harmonic", 1)]
        {
            let (header, _) = read_csv(&d.join("nodes.csv"));
            let at = header.iter().position(|h| h == column).unwrap();
            let best = node_rows
                .iter()
                .map(|r| (r[at].parse::<f64>().unwrap(), &r[1]))
                .fold(None::<(f64, &String)>, |m, x| match m {
                    Some(m) if m.0 >= x.0 => Some(m),
                    _ => Some(x),
                })
                .unwrap();
            let table = between(section, &format!("-{table_id}\""), "</table>");
            let first = between(table, "<tbody><tr>", "</tr>");
            assert!(
                first.contains(&format!(">{:.*}<", decimals, best.0))
                    && first.contains(&format!(">{}<", best.1)),
                "{folder}: {column} highest is {} with {}: {first}",
                best.1,
                best.0
            );
        }
    }

    // External hosts over all sites, and their registrable domains.
    let top_host = csv
        .hosts
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .unwrap();
    let hosts_table = between(&html, "<table id=\"external-hosts\"", "</table>");
    let first = between(hosts_table, "<tbody><tr>", "</tr>");
    assert!(
        first.contains(&format!("<td>{}</td>", top_host.0))
            && first.contains(&format!("data-v=\"{}\"", top_host.1)),
        "{top_host:?}: {first}"
    );
    let domains = between(&html, "<table id=\"external-domains\"", "</table>");
    let row = between(domains, "<td>example.co.uk</td>", "</tr>");
    assert!(
        row.contains("data-v=\"3\"") && row.contains("data-v=\"2\""),
        "example.co.uk: 3 links from 2 hosts: {row}"
    );

    // What a person sees.
    if let Some((dom, console)) =
        common::chromium::dump_dom(&format!("file://{}", report.display()))
    {
        assert!(!console.contains("Uncaught"), "script errors: {console}");
        check_plots(&dom);
        assert!(dom.contains("Site by site"));
    }

    // `rccrawler report` writes the same page from the folder (the date aside).
    let first_html = html;
    std::fs::remove_file(&report).unwrap();
    let o = run(dir.path(), &["report", "results"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("report of 6 sites"), "{}", text(&o));
    let again = std::fs::read_to_string(&report).unwrap();
    let undated = |h: &str| {
        let at = h.find("report written").unwrap();
        let end = at + h[at..].find("</p>").unwrap();
        format!("{}{}", &h[..at], &h[end..])
    };
    assert_eq!(undated(&again), undated(&first_html));
    // Hosts and TLP columns: with a domain filter only (or a scope over several hosts).
    let sites_header = |h: &str| between(h, "<table id=\"sites-table\"", "</thead>").to_owned();
    assert!(!sites_header(&again).contains("TLP"));
    let settings = dir.path().join("settings.ini");
    let mut text_ini = std::fs::read_to_string(&settings).unwrap();
    text_ini.push_str("UrlAnalyzingThread = KeyDomainUAT\n");
    std::fs::write(&settings, text_ini).unwrap();
    let o = run(dir.path(), &["report", "results"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let filtered = std::fs::read_to_string(&report).unwrap();
    assert!(sites_header(&filtered).contains("<th>hosts</th><th>TLP</th>"));
    drop(web);
}

/// Every plot has data marks, and at least as many marks drawn in a data colour (points,
/// bars, triangles) or as a data curve (2 px lines) as it says.
fn check_plots(dom: &str) {
    let figures: Vec<&str> = dom
        .split("<figure class=\"plot\" data-marks=\"")
        .skip(1)
        .collect();
    assert!(!figures.is_empty(), "the report has plots");
    for f in figures {
        let marks: usize = f[..f.find('"').unwrap()].parse().unwrap();
        let svg = &f[..f.find("</figure>").unwrap()];
        let coloured = ["#1F77B4", "#FF7F0E"]
            .iter()
            .map(|c| svg.matches(&format!("fill=\"{c}\"")).count())
            .sum::<usize>()
            + svg.matches("stroke-width=\"2\"").count();
        assert!(
            marks >= 1,
            "a plot without data: {}",
            &svg[..svg.len().min(300)]
        );
        assert!(
            coloured >= marks,
            "{marks} marks said, {coloured} drawn: {}",
            &svg[..svg.len().min(300)]
        );
    }
}

#[test]
fn a_budgeted_crawl_reports_its_rule_and_the_pages_each_site_got() {
    let (web, hosts) = web();
    let dir = common::prepare(
        &hosts[..4],
        &[
            ("ResultUnloaders", "GephiSiteGraphRU,ReportRU"),
            ("PageBudget", "80"),
        ],
    );
    let o = run(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let results = dir.path().join("results");
    let html = std::fs::read_to_string(results.join("report.html")).unwrap();
    let budget = between(&html, "<p id=\"budget\">", "</p>");
    assert!(
        budget.contains("PageBudget = 80") && budget.contains("DiscountedUcb"),
        "{budget}"
    );
    // The yield table: each site's pages fetched and reward, as summary.csv has them.
    let (header, rows) = read_csv(&results.join("summary.csv"));
    let col = |n: &str| header.iter().position(|h| h == n).unwrap();
    let table = between(&html, "<table id=\"yield-table\"", "</table>");
    for r in rows.iter().filter(|r| r[col("Pages")] != "0") {
        let row = between(table, &format!("<td>{}</td>", r[col("Site")]), "</tr>");
        let cells: Vec<&str> = row
            .split("data-v=\"")
            .skip(1)
            .map(|c| &c[..c.find('"').unwrap()])
            .collect();
        assert_eq!(cells[0], r[col("Fetched")], "{row}");
        assert_eq!(cells[1], r[col("Reward")], "{row}");
    }
    let fetched: u64 = rows
        .iter()
        .map(|r| r[col("Fetched")].parse::<u64>().unwrap())
        .sum();
    assert!(fetched <= 80 + 8, "the budget held: {fetched}");
    drop(web);
}

#[test]
fn report_of_a_folder_that_is_not_a_results_folder_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(dir.path(), &["report", "nowhere"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("summary.csv"), "{}", text(&o));
    // Without an argument or settings.ini: ./results.
    std::fs::create_dir(dir.path().join("results")).unwrap();
    std::fs::write(
        dir.path().join("results/summary.csv"),
        "Site,Folder,Pages\n",
    )
    .unwrap();
    let o = run(dir.path(), &["report"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(dir.path().join("results/report.html").exists());
    // Folder names come from the file: one that leaves the results folder is not read.
    std::fs::create_dir(dir.path().join("outside")).unwrap();
    std::fs::write(
        dir.path().join("outside/external_links.csv"),
        "Source,Url,Host,Anchor\n1,http://leak.example/,leak.example,\"\"\n",
    )
    .unwrap();
    let outside = dir.path().join("outside").display().to_string();
    std::fs::write(
        dir.path().join("results/summary.csv"),
        format!("Site,Folder,Pages\nhttp://a,../outside,1\nhttp://b,{outside},1\n"),
    )
    .unwrap();
    // See: issue 63 item 1 — refused, naming the row, rather than left out quietly.
    let o = run(dir.path(), &["report"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("summary.csv:2: Folder"), "{}", text(&o));
    let html = std::fs::read_to_string(dir.path().join("results/report.html")).unwrap();
    assert!(
        !html.contains("leak.example"),
        "a file outside the results folder was read"
    );
}

/// A report of thousands of sites (issue 69: a million sites' report held every site's row
/// in three tables): the sites table lists every site, the yield table the 2,000 with most
/// reward and says so.
#[test]
fn the_yield_table_of_thousands_of_sites_lists_those_with_most_reward() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    std::fs::create_dir(&results).unwrap();
    let mut summary = String::from(
        "Site,Folder,Pages,Arcs,ExternalLinks,BadLinks,Duplicates,MaxLevel,Seconds,State,Home,\
         Reason,Fetched,Reward,Hosts,TLP,SitemapUrls,Orphans,Rendered,ScriptOnlyArcs,Documents,\
         DocumentTypes\n",
    );
    let reward = |k: usize| (k * 37) % 2_503;
    for k in 0..2_500 {
        summary.push_str(&format!(
            "\"http://s{k}.test\",\"s{k}.test\",3,2,1,0,0,1,0.1,\"done\",\"http://s{k}.test/\",\
             \"\",3,{},1,0.3,\"\",\"\",\"\",\"\",\"\",\"\"\n",
            reward(k)
        ));
    }
    std::fs::write(results.join("summary.csv"), summary).unwrap();
    let o = run(dir.path(), &["report", "results"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let html = std::fs::read_to_string(results.join("report.html")).unwrap();
    let sites = between(&html, "<table id=\"sites-table\"", "</table>");
    assert_eq!(sites.matches("<tr>").count(), 1 + 2_500);
    let yields = between(&html, "<table id=\"yield-table\"", "</table>");
    assert_eq!(yields.matches("<tr>").count(), 1 + 2_000);
    let mut by_reward: Vec<usize> = (0..2_500).collect();
    by_reward.sort_by_key(|&k| std::cmp::Reverse(reward(k)));
    for &k in &by_reward[..2_000] {
        assert!(
            yields.contains(&format!("<td>http://s{k}.test</td>")),
            "s{k}"
        );
    }
    for &k in &by_reward[2_000..] {
        assert!(
            !yields.contains(&format!("<td>http://s{k}.test</td>")),
            "s{k}"
        );
    }
    // In hosts.txt order, as the sites table.
    let first = yields.find("<td>http://s").unwrap();
    let k0 = by_reward[..2_000].iter().min().unwrap();
    assert!(yields[first..].starts_with(&format!("<td>http://s{k0}.test</td>")));
    assert!(
        html.contains("The table lists the 2000 sites with most reward"),
        "the note says so"
    );
}

//! Reading a results folder back for the report: summary.csv, then each site's files, one
//! site at a time (a site's rows are reduced to its figures and dropped before the next, so
//! the report of 4,000 sites holds figures, not graphs). The graph properties — in- and
//! out-degrees, the most linked pages, strongly connected components — come from a petgraph
//! graph of the site's edges.csv.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{self, BufReader};
use std::path::Path;

use petgraph::algo::kosaraju_scc;

use super::graph::{Adjacency, Edges, read_edges};
use super::ranked::{RANKED_COLUMNS, Ranked, first_by, highest, ranked_columns, ranked_value};
use crate::formats::gephi_csv::gephi_unescape;

/// One row of summary.csv. Columns a results folder of an older version lacks read as 0 or
/// empty.
#[derive(Debug, Clone, Default)]
pub(crate) struct SummaryRow {
    pub(crate) site: String,
    pub(crate) folder: String,
    pub(crate) pages: u64,
    pub(crate) arcs: u64,
    pub(crate) external_links: u64,
    pub(crate) bad_links: u64,
    pub(crate) duplicates: u64,
    pub(crate) max_level: u64,
    pub(crate) seconds: f64,
    pub(crate) state: String,
    /// Where its home page ended, when not at the listed origin.
    pub(crate) moved_to: Option<String>,
    pub(crate) fetched: u64,
    pub(crate) reward: u64,
    pub(crate) hosts: u64,
    pub(crate) tlp: f64,
    /// `(SitemapUrls, Orphans)`: its sitemaps' pages and those no link reaches, when read.
    pub(crate) sitemap: Option<(u64, u64)>,
    /// `(Rendered, ScriptOnlyArcs)`: its pages rendered and arcs only scripts make, when pages
    /// were rendered (SPEC §18).
    pub(crate) render: Option<(u64, u64)>,
    /// Its home page looks script-built and was not rendered (`Render = no`): `Reason` says so.
    pub(crate) script_built: bool,
    /// `(Documents, DocumentTypes)`: its nodes that are documents, and by type (`pdf 3; docx
    /// 1`), when documents were nodes (SPEC §19).
    pub(crate) documents: Option<(u64, String)>,
}

impl SummaryRow {
    /// Its state as the console says it: `done, moved to https://www.a.test/` for a site whose
    /// home page ended on another origin.
    pub(crate) fn shown_state(&self) -> String {
        match &self.moved_to {
            Some(to) => format!("{}, moved to {to}/", self.state),
            None => self.state.clone(),
        }
    }
}

/// A page among the most linked of its site.
#[derive(Debug, Clone)]
pub(crate) struct Linked {
    pub(crate) in_links: u64,
    pub(crate) title: String,
    pub(crate) url: String,
}

/// What the report shows of one site, read from its folder.
#[derive(Debug, Clone, Default)]
pub(crate) struct SiteFigures {
    /// Pages per level, level 0 first.
    pub(crate) levels: Vec<u64>,
    /// Pages per in-degree (distinct internal arcs in).
    pub(crate) in_degrees: BTreeMap<u64, u64>,
    /// Pages per out-degree (distinct internal arcs out).
    pub(crate) out_degrees: BTreeMap<u64, u64>,
    /// The pages with most in-links, most first.
    pub(crate) top_linked: Vec<Linked>,
    /// For each measure of [`RANKED_BY`](super::ranked::RANKED_BY), the pages it ranks highest, highest first (none when
    /// nodes.csv has no measures).
    pub(crate) top_ranked: Vec<Vec<Ranked>>,
    /// Strongly connected components, and the pages of the largest.
    pub(crate) components: usize,
    pub(crate) largest_component: usize,
    /// Bad links per reason, most first.
    pub(crate) bad_reasons: Vec<(String, u64)>,
    /// External links per host, every host (the report keeps the top ones).
    pub(crate) external_hosts: HashMap<String, u64>,
    /// External links whose `rel` says `nofollow`, `ugc`, `sponsored` (external_links.csv's
    /// Rel; SPEC §17).
    pub(crate) rel: [u64; 3],
    /// Cumulative reward after each page of yield.csv, thinned to at most
    /// [`CURVE_POINTS`] points (page number, reward so far).
    pub(crate) yield_curve: Vec<(u64, u64)>,
    /// Nodes and arcs read (to compare with summary.csv).
    pub(crate) nodes: u64,
    pub(crate) arcs: u64,
    /// Files that could not be read, in words.
    pub(crate) problems: Vec<String>,
    /// The folder has text.csv (`PageText = yes`, SPEC §19).
    pub(crate) text: bool,
}

/// The `rel` words the report counts, in its columns' order.
pub(crate) const REL_WORDS: [&str; 3] = ["nofollow", "ugc", "sponsored"];

/// Most linked pages listed per site.
pub(crate) const TOP_LINKED: usize = 10;
/// Points kept of a yield curve.
pub(crate) const CURVE_POINTS: usize = 200;

/// Why summary.csv cannot be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReadError {
    /// The file could not be opened or read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// It is not the CSV rccrawler writes.
    #[error("{path}: {why}")]
    Format {
        /// The file.
        path: String,
        /// What is wrong.
        why: String,
    },
}

fn open(path: &Path) -> io::Result<csv::Reader<BufReader<File>>> {
    Ok(csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_reader(BufReader::with_capacity(1 << 16, File::open(path)?)))
}

/// The index of each named column (`None` for one the header lacks).
fn columns<const N: usize>(header: &csv::StringRecord, names: [&str; N]) -> [Option<usize>; N] {
    names.map(|n| header.iter().position(|h| h == n))
}

fn field(r: &csv::StringRecord, i: Option<usize>) -> &str {
    i.and_then(|i| r.get(i)).unwrap_or("")
}

fn num(r: &csv::StringRecord, i: Option<usize>) -> u64 {
    field(r, i).trim().parse().unwrap_or(0)
}

/// The columns of summary.csv read, by the names `unload::summary::COLUMNS` writes.
const SUMMARY_READ: [&str; 22] = [
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
    "Fetched",
    "Reward",
    "Hosts",
    "TLP",
    "SitemapUrls",
    "Orphans",
    "Rendered",
    "ScriptOnlyArcs",
    "Reason",
    "Documents",
    "DocumentTypes",
];

/// Reads summary.csv.
pub(crate) fn read_summary(path: &Path) -> Result<Vec<SummaryRow>, ReadError> {
    let name = path.display().to_string();
    let io = |source| ReadError::Io {
        path: name.clone(),
        source,
    };
    let mut rdr = open(path).map_err(io)?;
    let header = rdr
        .headers()
        .map_err(|e| ReadError::Format {
            path: name.clone(),
            why: e.to_string(),
        })?
        .clone();
    let [
        site,
        folder,
        pages,
        arcs,
        ext,
        bad,
        dup,
        level,
        secs,
        state,
        home,
        fetched,
        reward,
        hosts,
        tlp,
        sitemap_urls,
        orphans,
        rendered,
        script_only,
        reason,
        documents,
        document_types,
    ] = columns(&header, SUMMARY_READ);
    if site.is_none() || folder.is_none() || pages.is_none() {
        return Err(ReadError::Format {
            path: name,
            why: "not a summary.csv of rccrawler (no Site, Folder or Pages column)".into(),
        });
    }
    let mut rows = Vec::new();
    for r in rdr.records() {
        let r = r.map_err(|e| ReadError::Format {
            path: name.clone(),
            why: e.to_string(),
        })?;
        // A folder name from the file itself: one plain name inside the results folder,
        // never a path that leaves it — every reader joins it to the results folder.
        let folder = crate::base::storage::paths::plain_name(field(&r, folder)).map_err(|e| {
            ReadError::Format {
                path: format!("{name}:{}", r.position().map_or(0, csv::Position::line)),
                why: format!("Folder: {e}"),
            }
        })?;
        rows.push(SummaryRow {
            site: field(&r, site).to_owned(),
            folder: folder.to_owned(),
            pages: num(&r, pages),
            arcs: num(&r, arcs),
            external_links: num(&r, ext),
            bad_links: num(&r, bad),
            duplicates: num(&r, dup),
            max_level: num(&r, level),
            seconds: field(&r, secs).trim().parse().unwrap_or(0.0),
            state: field(&r, state).to_owned(),
            moved_to: crate::base::words::moved_to(field(&r, site), field(&r, home))
                .map(str::to_owned),
            fetched: num(&r, fetched),
            reward: num(&r, reward),
            hosts: num(&r, hosts),
            tlp: field(&r, tlp).trim().parse().unwrap_or(0.0),
            // Empty when the site's sitemaps were not read.
            sitemap: field(&r, sitemap_urls)
                .trim()
                .parse()
                .ok()
                .map(|urls| (urls, num(&r, orphans))),
            // Empty when pages were not rendered.
            render: field(&r, rendered)
                .trim()
                .parse()
                .ok()
                .map(|pages| (pages, num(&r, script_only))),
            script_built: field(&r, reason).contains(super::SCRIPT_BUILT_MARK),
            // Empty when documents were not nodes.
            documents: field(&r, documents)
                .trim()
                .parse()
                .ok()
                .map(|n| (n, field(&r, document_types).to_owned())),
        });
    }
    Ok(rows)
}

/// What to read of a site beyond its external links (which every site's count in the
/// totals over all sites): a report of 4,000 sites reads the graphs of the few it shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Want {
    /// nodes.csv, edges.csv and bad_links.csv: the site's section.
    pub(crate) graph: bool,
    /// yield.csv: the site's yield curve.
    pub(crate) curve: bool,
    /// Arcs summary.csv counts, to size the graph once.
    pub(crate) arcs: usize,
}

/// Reads one site's folder. A missing file (an unreachable site has none) reads as empty;
/// a damaged one is named in `problems` and read as far as it goes.
pub(crate) fn read_site(folder: &Path, want: Want) -> SiteFigures {
    let mut f = SiteFigures {
        text: folder.join("text.csv").is_file(),
        ..SiteFigures::default()
    };
    if !want.graph {
        read_outside(folder, want.curve, &mut f);
        return f;
    }
    // A site whose graph is drawn: its graph files and its external links, tens of megabytes
    // each on a big site, are read side by side (the report of a crawl comes right after its
    // last site's results, and this was the one stretch where a core waited).
    let mut outside = SiteFigures::default();
    crate::base::parallel::join(
        "report-site",
        || read_graph(folder, want.arcs, &mut f),
        || read_outside(folder, want.curve, &mut outside),
    );
    // The same figures, and the same problems in the same order, as read one after another.
    let SiteFigures {
        external_hosts,
        yield_curve,
        rel,
        mut problems,
        ..
    } = outside;
    f.rel = rel;
    problems.append(&mut f.problems);
    f.problems = problems;
    f.external_hosts = external_hosts;
    f.yield_curve = yield_curve;
    f
}

/// What every site's figures need: external links per host, and the yield curve if `curve`.
fn read_outside(folder: &Path, curve: bool, f: &mut SiteFigures) {
    each_row(
        folder,
        "external_links.csv",
        &mut f.problems,
        &["Host", "?Rel"],
        |r| {
            *f.external_hosts.entry(r[0].to_owned()).or_default() += 1;
            for (i, word) in REL_WORDS.iter().enumerate() {
                if r[1]
                    .split_whitespace()
                    .any(|w| w.eq_ignore_ascii_case(word))
                {
                    f.rel[i] += 1;
                }
            }
        },
    );
    if curve {
        let mut points = Vec::new();
        let mut total = 0u64;
        each_row(folder, "yield.csv", &mut f.problems, &["Reward"], |r| {
            total += r[0].trim().parse::<u64>().unwrap_or(0);
            points.push(total);
        });
        f.yield_curve = thin(&points);
    }
}

/// The graph figures of a site: levels, degrees, most linked pages, pages the measures rank
/// highest, components (petgraph's Tarjan over the compact [`Adjacency`]), bad links.
/// nodes.csv is read twice — once for the levels and the measures, once for the titles of
/// the few pages shown — rather than holding every page's URL and title.
fn read_graph(folder: &Path, arcs: usize, f: &mut SiteFigures) {
    let mut nodes = 0usize;
    let has = ranked_columns(folder);
    let mut values: [Vec<f64>; RANKED_COLUMNS.len()] = Default::default();
    let mut columns = vec!["Level"];
    columns.extend(RANKED_COLUMNS);
    each_row(folder, "nodes.csv", &mut f.problems, &columns, |r| {
        // An orphan a sitemap listed has no level: it is in no level's count.
        if let Ok(level) = r[0].trim().parse::<usize>() {
            if f.levels.len() <= level {
                f.levels.resize(level + 1, 0);
            }
            f.levels[level] += 1;
        }
        for ((v, &cell), &has) in values.iter_mut().zip(&r[1..]).zip(&has) {
            if has {
                v.push(ranked_value(cell));
            }
        }
        nodes += 1;
    });
    f.nodes = nodes as u64;
    let edges = read_edges(&folder.join("edges.csv"), nodes, arcs).unwrap_or_else(|e| {
        f.problems.push(format!("edges.csv: {e}"));
        Edges {
            graph: Adjacency::without_arcs(nodes),
            bad_ends: 0,
        }
    });
    if edges.bad_ends > 0 {
        f.problems.push(format!(
            "edges.csv: {} arcs name no node of nodes.csv",
            edges.bad_ends
        ));
    }
    let g = &edges.graph;
    f.arcs = g.arcs() as u64;
    let in_links = g.in_degrees();
    for (i, &d) in in_links.iter().enumerate() {
        *f.in_degrees.entry(u64::from(d)).or_default() += 1;
        *f.out_degrees.entry(g.out_degree(i) as u64).or_default() += 1;
    }
    // Most in-links first; among equals, the page found first (lowest id).
    let order = first_by(in_links.len(), |a, b| {
        in_links[*b as usize]
            .cmp(&in_links[*a as usize])
            .then(a.cmp(b))
    });
    let ranked: Vec<Vec<(u32, f64)>> = values.iter().map(|v| highest(v)).collect();
    let wanted = |row: u32| {
        order.contains(&row) || ranked.iter().any(|top| top.iter().any(|&(r, _)| r == row))
    };
    let mut found: HashMap<usize, (String, String)> = HashMap::new();
    let mut row = 0usize;
    each_row(
        folder,
        "nodes.csv",
        &mut f.problems,
        &["Label", "Title"],
        |r| {
            if wanted(row as u32) {
                let text = |s: &str| gephi_unescape(s).unwrap_or_else(|_| s.to_owned());
                found.insert(row, (text(r[0]), text(r[1])));
            }
            row += 1;
        },
    );
    f.top_linked = order
        .iter()
        .map(|&i| {
            let (url, title) = found.get(&(i as usize)).cloned().unwrap_or_default();
            Linked {
                in_links: u64::from(in_links[i as usize]),
                url,
                title,
            }
        })
        .collect();
    f.top_ranked = ranked
        .iter()
        .map(|top| {
            top.iter()
                .map(|&(i, value)| {
                    let (url, title) = found.get(&(i as usize)).cloned().unwrap_or_default();
                    Ranked { value, title, url }
                })
                .collect()
        })
        .collect();
    let sccs = kosaraju_scc(&super::graph::BothWays::new(g));
    f.components = sccs.len();
    f.largest_component = sccs.iter().map(Vec::len).max().unwrap_or(0);
    drop(sccs);
    drop(edges);
    let mut reasons: HashMap<String, u64> = HashMap::new();
    each_row(folder, "bad_links.csv", &mut f.problems, &["Reason"], |r| {
        *reasons.entry(r[0].to_owned()).or_default() += 1;
    });
    f.bad_reasons = most_first(reasons);
}

/// `(page number, value)` of a cumulative curve, at most [`CURVE_POINTS`] of them, the
/// first and last page always among them.
fn thin(curve: &[u64]) -> Vec<(u64, u64)> {
    let n = curve.len();
    if n == 0 {
        return Vec::new();
    }
    let step = n.div_ceil(CURVE_POINTS).max(1);
    let mut out: Vec<(u64, u64)> = (0..n)
        .step_by(step)
        .map(|i| (i as u64 + 1, curve[i]))
        .collect();
    if out.last().map(|p| p.0) != Some(n as u64) {
        out.push((n as u64, curve[n - 1]));
    }
    out
}

/// Counts, most first, then by name.
pub(crate) fn most_first(counts: HashMap<String, u64>) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = counts.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

/// Whether `folder/name`'s header has column `column` (a file that cannot be read has none).
pub(super) fn has_column(folder: &Path, name: &str, column: &str) -> bool {
    open(&folder.join(name))
        .ok()
        .and_then(|mut r| r.headers().ok().map(|h| h.iter().any(|c| c == column)))
        .unwrap_or(false)
}

/// Columns [`each_row`] hands over at most.
const MAX_COLUMNS: usize = 4;

/// Calls `row` with the named columns of each record of `folder/name` (in the order
/// named). A missing file is no rows; a missing column or a damaged record is a problem.
pub(super) fn each_row(
    folder: &Path,
    name: &str,
    problems: &mut Vec<String>,
    names: &[&str],
    mut row: impl FnMut(&[&str]),
) {
    let mut rdr = match open(&folder.join(name)) {
        Ok(r) => r,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return,
        Err(e) => return problems.push(format!("{name}: {e}")),
    };
    let header = match rdr.headers() {
        Ok(h) => h.clone(),
        Err(e) => return problems.push(format!("{name}: {e}")),
    };
    debug_assert!(names.len() <= MAX_COLUMNS);
    let mut at = Vec::with_capacity(names.len());
    for n in names {
        // `?Name`: a column older files lack, read as empty there.
        let (n, optional) = match n.strip_prefix('?') {
            Some(n) => (n, true),
            None => (*n, false),
        };
        match header.iter().position(|h| h == n) {
            Some(i) => at.push(i),
            None if optional => at.push(usize::MAX),
            None => return problems.push(format!("{name}: no {n} column")),
        }
    }
    let mut record = csv::StringRecord::new();
    loop {
        match rdr.read_record(&mut record) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => return problems.push(format!("{name}: {e}")),
        }
        let mut fields = [""; MAX_COLUMNS];
        for (slot, &i) in fields.iter_mut().zip(&at) {
            *slot = record.get(i).unwrap_or("");
        }
        row(&fields[..at.len()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_summary_column_read_is_one_the_crawl_writes() {
        let written: Vec<&str> = crate::crawl::unload::summary::COLUMNS
            .iter()
            .map(|(name, _)| *name)
            .collect();
        for name in SUMMARY_READ {
            assert!(written.contains(&name), "{name} is not written");
        }
    }

    #[test]
    fn a_site_whose_home_page_moved_says_where_in_its_state() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("summary.csv");
        std::fs::write(
            &path,
            "Site,Folder,Pages,Arcs,ExternalLinks,BadLinks,Duplicates,MaxLevel,Seconds,State,Home,Reason\n\
             \"http://a.test\",\"a.test\",3,2,0,0,0,1,0.1,\"done\",\"https://www.a.test/start\",\"\"\n\
             \"http://b.test\",\"b.test\",1,0,0,0,0,0,0.1,\"stopped\",\"http://b.test/\",\"\"\n",
        )
        .unwrap();
        let rows = read_summary(&path).unwrap();
        assert_eq!(rows[0].state, "done");
        assert_eq!(rows[0].shown_state(), "done, moved to https://www.a.test/");
        assert_eq!(rows[1].shown_state(), "stopped");
        // Written before summary.csv had sitemap columns: none read.
        assert!(rows.iter().all(|r| r.sitemap.is_none()));
    }

    #[test]
    fn sitemap_counts_are_read_where_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("summary.csv");
        std::fs::write(
            &path,
            "Site,Folder,Pages,SitemapUrls,Orphans
             \"http://a.test\",\"a.test\",3,8,4\n\
             \"http://b.test\",\"b.test\",1,0,0\n\
             \"http://c.test\",\"c.test\",1,\"\",\"\"\n",
        )
        .unwrap();
        let rows = read_summary(&path).unwrap();
        let got: Vec<Option<(u64, u64)>> = rows.iter().map(|r| r.sitemap).collect();
        assert_eq!(got, [Some((8, 4)), Some((0, 0)), None]);
    }

    #[test]
    fn a_site_folder_reads_into_its_figures() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(
            d.join("nodes.csv"),
            "Id,Label,Level,Title\n1,\"http://a/\",0,\"Home \\\\ page\"\n2,\"http://a/x\",1,\"X\"\n3,\"http://a/y\",1,\"Y\"\n4,\"http://a/z\",2,\"Z\"\n",
        )
        .unwrap();
        std::fs::write(
            d.join("edges.csv"),
            "Source,Target,Type,Weight\n1,2,Directed,1\n1,3,Directed,2\n2,4,Directed,1\n3,4,Directed,1\n4,1,Directed,1\n",
        )
        .unwrap();
        std::fs::write(
            d.join("bad_links.csv"),
            "Source,Url,Reason\n1,http://a/p,status 404\n2,http://a/q,status 404\n2,mailto:x,scheme\n",
        )
        .unwrap();
        std::fs::write(
            d.join("external_links.csv"),
            "Source,Url,Host,Anchor\n1,http://b/,b,\"B\"\n2,http://b/2,b,\"\"\n3,http://c/,c,\"C\"\n",
        )
        .unwrap();
        std::fs::write(
            d.join("yield.csv"),
            "Page,Level,ExternalLinks,Reward\n1,0,1,1\n2,1,1,0\n3,1,1,1\n4,2,0,0\n",
        )
        .unwrap();
        let f = read_site(
            d,
            Want {
                graph: true,
                curve: true,
                arcs: 0,
            },
        );
        assert!(f.problems.is_empty(), "{:?}", f.problems);
        assert_eq!(f.levels, vec![1, 2, 1]);
        assert_eq!((f.nodes, f.arcs), (4, 5));
        // In-degrees: 1←4, 2←1, 3←1, 4←2,3.
        assert_eq!(f.in_degrees, BTreeMap::from([(1, 3), (2, 1)]));
        assert_eq!(f.out_degrees, BTreeMap::from([(1, 3), (2, 1)]));
        assert_eq!(f.top_linked[0].url, "http://a/z");
        assert_eq!(f.top_linked[0].in_links, 2);
        assert_eq!(
            f.top_linked[1].title, "Home \\ page",
            "Gephi's \\\\ read back"
        );
        // 1→2→4→1 and 1→3→4→1: one component of 4 pages.
        assert_eq!((f.components, f.largest_component), (1, 4));
        assert_eq!(
            f.bad_reasons,
            vec![("status 404".to_owned(), 2), ("scheme".to_owned(), 1)]
        );
        assert_eq!(f.external_hosts["b"], 2);
        assert_eq!(f.yield_curve, vec![(1, 1), (2, 1), (3, 2), (4, 2)]);
    }

    #[test]
    fn missing_files_are_empty_and_damage_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let all = Want {
            graph: true,
            curve: true,
            arcs: 0,
        };
        let f = read_site(dir.path(), all);
        assert_eq!(f.nodes, 0);
        assert!(f.problems.is_empty());
        std::fs::write(dir.path().join("nodes.csv"), "Id,Name\n1,x\n").unwrap();
        std::fs::write(dir.path().join("edges.csv"), "Source,Target\n1,9\n").unwrap();
        let f = read_site(dir.path(), all);
        assert!(
            f.problems.iter().any(|p| p.contains("no Label column")),
            "{:?}",
            f.problems
        );
        assert!(
            f.problems.iter().any(|p| p.contains("name no node")),
            "{:?}",
            f.problems
        );
        // The external links are read beside the graph files: their problems still come
        // first, as when the files were read one after another.
        std::fs::write(dir.path().join("external_links.csv"), "Source,Url\n1,x\n").unwrap();
        let f = read_site(dir.path(), all);
        assert!(f.problems.len() >= 3, "{:?}", f.problems);
        assert!(
            f.problems[0].starts_with("external_links.csv"),
            "{:?}",
            f.problems
        );
        assert!(
            f.problems[1..]
                .iter()
                .all(|p| !p.starts_with("external_links.csv")),
            "{:?}",
            f.problems
        );
        let alone = read_site(
            dir.path(),
            Want {
                graph: false,
                ..all
            },
        );
        assert_eq!(alone.problems, f.problems[..1]);
    }

    #[test]
    fn long_curves_are_thinned_to_their_ends() {
        let c: Vec<u64> = (1..=1000).collect();
        let t = thin(&c);
        assert!(t.len() <= CURVE_POINTS + 1);
        assert_eq!(t[0], (1, 1));
        assert_eq!(*t.last().unwrap(), (1000, 1000));
    }
}

//! `TestRU`: checks the result files the unloaders before it wrote, as a reader of them would
//! (the RCCrawler paper's test unloader). For each scope it reads `nodes.csv` and
//! `edges.csv` back the way Gephi's spreadsheet import reads them, builds the graph with
//! petgraph and checks:
//!
//! - both files parse: the header Gephi expects, the same number of fields on every row,
//!   integers where integers belong, no control character and no lone backslash (Gephi's
//!   escape character) in text;
//! - node ids are dense, `1..=n`, in order, and labels are distinct;
//! - every arc's ends are nodes, no arc is listed twice, weights are at least 1, `Type` is
//!   `Directed`;
//! - every level is the true breadth-first depth from node 1 over the written arcs (so every
//!   node is reachable from the home page);
//! - the files hold the graph the crawl recorded (as many nodes and arcs).
//!
//! After the last scope it writes `test_report.txt` into the result folder: one block per
//! scope with its figures (nodes, arcs, deepest level, strongly connected components) and
//! every failed check; any failure makes the run's exit code 1.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::io;
use std::path::Path;

use parking_lot::Mutex;
use petgraph::algo::{dijkstra, tarjan_scc};
use petgraph::graph::{DiGraph, NodeIndex};

use super::{UnloadError, Unloader, gephi_unescape};
use crate::base::storage::write_atomic;
use crate::crawl::data::SiteGraph;

/// The name of the report in the result folder.
pub const REPORT_FILE: &str = "test_report.txt";

/// The result checker.
#[derive(Debug, Default)]
pub struct ResultCheck {
    scopes: Mutex<Vec<ScopeCheck>>,
}

/// What was checked in one scope's folder.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScopeCheck {
    /// The folder (under the result folder).
    pub folder: String,
    /// Nodes read.
    pub nodes: usize,
    /// Arcs read.
    pub arcs: usize,
    /// Deepest level read.
    pub max_level: u32,
    /// Strongly connected components of the written graph.
    pub components: usize,
    /// Failed checks, in words.
    pub failures: Vec<String>,
}

impl Unloader for ResultCheck {
    fn unload(&self, graph: &SiteGraph<'_>, folder: &Path) -> Result<(), UnloadError> {
        let mut check = check_folder(folder);
        let arcs: usize = graph.nodes().iter().map(|n| graph.arcs(n).len()).sum();
        if check.nodes != graph.nodes().len() || check.arcs != arcs {
            check.failures.push(format!(
                "the files hold {} nodes and {} arcs, the crawl recorded {} and {arcs}",
                check.nodes,
                check.arcs,
                graph.nodes().len()
            ));
        }
        self.scopes.lock().push(check);
        Ok(())
    }

    fn finish(&self, result_folder: &Path) -> Result<Vec<String>, UnloadError> {
        let mut scopes = self.scopes.lock().clone();
        scopes.sort_by(|a, b| a.folder.cmp(&b.folder));
        let path = result_folder.join(REPORT_FILE);
        let text = report(&scopes);
        write_atomic(&path, |w| w.write_all(text.as_bytes()))
            .map_err(|source| UnloadError { path, source })?;
        Ok(scopes
            .iter()
            .flat_map(|s| s.failures.iter().map(move |f| format!("{}: {f}", s.folder)))
            .collect())
    }
}

/// The report's text.
fn report(scopes: &[ScopeCheck]) -> String {
    let failed = scopes.iter().filter(|s| !s.failures.is_empty()).count();
    let mut out = format!(
        "rccrawler {} result check (TestRU): {}, {} passed, {failed} failed\n",
        env!("CARGO_PKG_VERSION"),
        crate::base::words::count(scopes.len() as u64, "scope"),
        scopes.len() - failed
    );
    for s in scopes {
        let verdict = if s.failures.is_empty() {
            "ok"
        } else {
            "FAILED"
        };
        let _ = writeln!(
            out,
            "\n{}: {verdict}\n  nodes {}, arcs {}, deepest level {}, strongly connected components {}",
            s.folder, s.nodes, s.arcs, s.max_level, s.components
        );
        for f in &s.failures {
            let _ = writeln!(out, "  - {f}");
        }
    }
    out
}

/// Checks the files of one scope folder.
pub fn check_folder(folder: &Path) -> ScopeCheck {
    let mut check = ScopeCheck {
        folder: folder
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        ..ScopeCheck::default()
    };
    let nodes = read_table(&folder.join("nodes.csv"), &["Id", "Label", "Level"]);
    let edges = read_table(
        &folder.join("edges.csv"),
        &["Source", "Target", "Type", "Weight"],
    );
    let (nodes, edges) = match (nodes, edges) {
        (Ok(n), Ok(e)) => (n, e),
        (n, e) => {
            check.failures.extend(n.err());
            check.failures.extend(e.err());
            return check;
        }
    };
    let f = &mut check.failures;
    let (mut graph, levels) = node_graph(&nodes, edges.len(), f);
    add_arcs(&mut graph, &edges, f);
    if !nodes.is_empty() {
        check_levels(&graph, &levels, f);
    }
    check.nodes = nodes.len();
    check.arcs = edges.len();
    check.max_level = levels
        .iter()
        .copied()
        .filter(|&l| l != NO_LEVEL)
        .max()
        .unwrap_or(0);
    check.components = tarjan_scc(&graph).len();
    check
}

/// The nodes of nodes.csv as a graph without arcs (each weighted by its level), and their
/// levels; ids that are not 1, 2, 3…, labels twice and levels that are not numbers are
/// failures.
fn node_graph(
    nodes: &[Vec<String>],
    arcs: usize,
    f: &mut Vec<String>,
) -> (DiGraph<u32, u32>, Vec<u32>) {
    let mut graph: DiGraph<u32, u32> = DiGraph::with_capacity(nodes.len(), arcs);
    let mut levels = Vec::with_capacity(nodes.len());
    let mut labels = HashSet::with_capacity(nodes.len());
    for (i, row) in nodes.iter().enumerate() {
        let line = i + 2;
        let (id, level) = (int(&row[0]), int(&row[2]));
        if id != Some(i as u64 + 1) {
            f.push(format!(
                "nodes.csv:{line}: id {:?}, expected {}",
                row[0],
                i + 1
            ));
        }
        if !labels.insert(row[1].as_str()) {
            f.push(format!("nodes.csv:{line}: label {} twice", row[1]));
        }
        // Empty: a page no link reaches, which a sitemap listed (SitemapSeeds).
        let level = if row[2].is_empty() {
            NO_LEVEL
        } else {
            level
                .and_then(|l| u32::try_from(l).ok())
                .filter(|&l| l != NO_LEVEL)
                .unwrap_or_else(|| {
                    f.push(format!("nodes.csv:{line}: level {:?}", row[2]));
                    NO_LEVEL
                })
        };
        levels.push(level);
        graph.add_node(level);
    }
    (graph, levels)
}

/// The arcs of edges.csv added to `graph`; ends outside the nodes, arcs twice, another
/// type than `Directed` and weights below 1 are failures.
fn add_arcs(graph: &mut DiGraph<u32, u32>, edges: &[Vec<String>], f: &mut Vec<String>) {
    let n = graph.node_count() as u64;
    let mut arcs = HashSet::with_capacity(edges.len());
    for (i, row) in edges.iter().enumerate() {
        let line = i + 2;
        let ends = (int(&row[0]), int(&row[1]));
        let (Some(s), Some(t)) = ends else {
            f.push(format!("edges.csv:{line}: ends {:?} {:?}", row[0], row[1]));
            continue;
        };
        if !(1..=n).contains(&s) || !(1..=n).contains(&t) {
            f.push(format!(
                "edges.csv:{line}: arc {s} -> {t} ends outside 1..={n}"
            ));
            continue;
        }
        if !arcs.insert((s, t)) {
            f.push(format!("edges.csv:{line}: arc {s} -> {t} listed twice"));
        }
        if row[2] != "Directed" {
            f.push(format!("edges.csv:{line}: type {:?}", row[2]));
        }
        let weight = int(&row[3]).filter(|&w| w >= 1);
        if weight.is_none() {
            f.push(format!("edges.csv:{line}: weight {:?}", row[3]));
        }
        let (s, t) = (
            NodeIndex::new(s as usize - 1),
            NodeIndex::new(t as usize - 1),
        );
        graph.add_edge(s, t, u32::try_from(weight.unwrap_or(1)).unwrap_or(u32::MAX));
    }
}

/// Every node's level is its breadth-first depth from the home pages. Every seed's home page
/// is level 0 (a scope may hold several seeds, SPEC §6): depths count from all of them at
/// once, through a source one step before each.
fn check_levels(graph: &DiGraph<u32, u32>, levels: &[u32], f: &mut Vec<String>) {
    let mut from_homes = graph.clone();
    let source = from_homes.add_node(u32::MAX);
    for (i, &level) in levels.iter().enumerate() {
        if level == 0 {
            from_homes.add_edge(source, NodeIndex::new(i), 1);
        }
    }
    let depth = dijkstra(&from_homes, source, None, |_| 1u32);
    for (i, &level) in levels.iter().enumerate() {
        match depth.get(&NodeIndex::new(i)).map(|d| d - 1) {
            Some(d) if d == level => {}
            None if level == NO_LEVEL => {}
            Some(d) if level == NO_LEVEL => f.push(format!(
                "node {}: no level, but its breadth-first depth is {d}",
                i + 1
            )),
            Some(d) => f.push(format!(
                "node {}: level {level}, but its breadth-first depth is {d}",
                i + 1
            )),
            None => f.push(format!(
                "node {}: not reachable from a home page (a level-0 node) over the arcs",
                i + 1
            )),
        }
    }
}

/// A node without a level (read from an empty field).
const NO_LEVEL: u32 = u32::MAX;

fn int(s: &str) -> Option<u64> {
    s.parse().ok()
}

/// Reads a result CSV as Gephi's spreadsheet import does: comma-separated, header row, `"`
/// quotes with `""` inside, `\` an escape character (written `\\` for a literal one). The
/// rows come back with their fields unescaped; `Err` says what does not parse.
fn read_table(path: &Path, header: &[&str]) -> Result<Vec<Vec<String>>, String> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(format!(
                "{name} is missing (TestRU checks what the unloaders before it in ResultUnloaders wrote)"
            ));
        }
        Err(e) => return Err(format!("{name}: {e}")),
    };
    let text = std::str::from_utf8(&bytes).map_err(|e| format!("{name}: not UTF-8 ({e})"))?;
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(text.as_bytes());
    let found: Vec<String> = rdr
        .headers()
        .map_err(|e| format!("{name}: {e}"))?
        .iter()
        .map(str::to_owned)
        .collect();
    if found.len() < header.len() || found[..header.len()] != *header {
        return Err(format!(
            "{name}: header {found:?}, expected it to start with {header:?}"
        ));
    }
    let mut rows = Vec::new();
    for (i, record) in rdr.records().enumerate() {
        let line = i + 2;
        let record = record.map_err(|e| format!("{name}:{line}: {e}"))?;
        let mut row = Vec::with_capacity(record.len());
        for field in &record {
            row.push(gephi_unescape(field).map_err(|why| format!("{name}:{line}: {why}"))?);
        }
        rows.push(row);
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(nodes: &str, edges: &str) -> (tempfile::TempDir, ScopeCheck) {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.test");
        std::fs::create_dir(&f).unwrap();
        std::fs::write(f.join("nodes.csv"), nodes).unwrap();
        std::fs::write(f.join("edges.csv"), edges).unwrap();
        let c = check_folder(&f);
        (dir, c)
    }

    const NODES: &str = "Id,Label,Level,Title\n1,\"http://a.test/\",0,\"Home \\\\ \"\"q\"\"\"\n2,\"http://a.test/b\",1,\"\"\n3,\"http://a.test/c\",2,\"\"\n";
    const EDGES: &str =
        "Source,Target,Type,Weight\n1,2,\"Directed\",1\n2,3,\"Directed\",2\n3,1,\"Directed\",1\n";

    #[test]
    fn a_correct_graph_passes_with_its_figures() {
        let (_d, c) = folder(NODES, EDGES);
        assert_eq!(c.failures, Vec::<String>::new());
        assert_eq!((c.nodes, c.arcs, c.max_level, c.components), (3, 3, 2, 1));
    }

    #[test]
    fn each_kind_of_damage_is_reported() {
        let cases: &[(&str, &str, &str)] = &[
            (
                NODES,
                "Source,Target,Type,Weight\n1,2,\"Directed\",1\n2,4,\"Directed\",1\n",
                "ends outside",
            ),
            (
                NODES,
                "Source,Target,Type,Weight\n1,2,\"Directed\",1\n",
                "not reachable",
            ),
            (
                NODES,
                "Source,Target,Type,Weight\n1,2,\"Directed\",1\n1,3,\"Directed\",1\n",
                "breadth-first depth is 1",
            ),
            (
                "Id,Label,Level\n1,\"x\",0\n3,\"y\",1\n",
                "Source,Target,Type,Weight\n1,2,\"Directed\",1\n",
                "expected 2",
            ),
            (
                "Id,Label,Level\n1,\"x\",0\n2,\"x\",1\n",
                "Source,Target,Type,Weight\n1,2,\"Directed\",1\n",
                "twice",
            ),
            (
                NODES,
                "Source,Target,Type,Weight\n1,2,\"Directed\",1\n1,2,\"Directed\",1\n2,3,\"Directed\",1\n",
                "listed twice",
            ),
            (
                NODES,
                "Source,Target,Type,Weight\n1,2,\"Undirected\",0\n2,3,\"Directed\",1\n",
                "weight",
            ),
            (
                "Id,Label,Level\n1,\"a\\b\",0\n",
                "Source,Target,Type,Weight\n",
                "lone backslash",
            ),
            (
                "Id,Label,Level\n1,\"a\",0,9\n",
                "Source,Target,Type,Weight\n",
                "nodes.csv:2",
            ),
            ("Label,Id,Level\n", "Source,Target,Type,Weight\n", "header"),
        ];
        for (nodes, edges, want) in cases {
            let (_d, c) = folder(nodes, edges);
            assert!(
                c.failures.iter().any(|f| f.contains(want)),
                "{want}: {:?}",
                c.failures
            );
        }
    }

    #[test]
    fn missing_files_and_the_report() {
        let dir = tempfile::tempdir().unwrap();
        let c = check_folder(&dir.path().join("nowhere"));
        assert!(c.failures[0].contains("nodes.csv is missing"), "{c:?}");
        let text = report(&[c]);
        assert!(text.contains("1 scope, 0 passed, 1 failed"), "{text}");
        assert!(text.contains("nowhere: FAILED"), "{text}");
    }
}

//! A site's graph for the report, compact: the arcs of edges.csv as a compressed sparse row
//! (4 bytes an arc), on which petgraph's algorithms run through its visit traits. petgraph's
//! own `Graph` keeps 16 bytes an arc and more: on a 50,000-page site with 3.4 million arcs
//! the report then needed 72 MB, nearly the crawl's own 76 MB.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

use fixedbitset::FixedBitSet;
use petgraph::Direction;
use petgraph::visit::{
    GraphBase, IntoNeighbors, IntoNeighborsDirected, IntoNodeIdentifiers, NodeIndexable, Visitable,
};

/// Arcs out of each page: `targets[offsets[i]..offsets[i + 1]]` are page i's (0-based).
#[derive(Debug, Default)]
pub(crate) struct Adjacency {
    offsets: Vec<u32>,
    targets: Vec<u32>,
}

impl Adjacency {
    /// `nodes` pages and no arc.
    pub(crate) fn without_arcs(nodes: usize) -> Self {
        Adjacency {
            offsets: vec![0; nodes + 1],
            targets: Vec::new(),
        }
    }

    /// Pages.
    pub(crate) fn nodes(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Arcs.
    pub(crate) fn arcs(&self) -> usize {
        self.targets.len()
    }

    /// Page `i`'s out-degree.
    pub(crate) fn out_degree(&self, i: usize) -> usize {
        (self.offsets[i + 1] - self.offsets[i]) as usize
    }

    /// Each page's in-degree.
    pub(crate) fn in_degrees(&self) -> Vec<u32> {
        let mut d = vec![0u32; self.nodes()];
        for &t in &self.targets {
            d[t as usize] += 1;
        }
        d
    }
}

/// The arcs both ways, for petgraph's strongly connected components by Kosaraju's algorithm:
/// an iterative depth-first search, where Tarjan's recurses once per page of a path (a
/// calendar trap's site, 6,000 pages deep, overflowed a thread's stack). The arcs in are built
/// for it: 4 bytes an arc more, for as long as it runs.
#[derive(Debug)]
pub(crate) struct BothWays<'a> {
    out: &'a Adjacency,
    into: Adjacency,
}

impl<'a> BothWays<'a> {
    /// `out` and its arcs reversed.
    pub(crate) fn new(out: &'a Adjacency) -> Self {
        let n = out.nodes();
        let mut offsets = vec![0u32; n + 1];
        for &t in &out.targets {
            offsets[t as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut next = offsets.clone();
        let mut targets = vec![0u32; out.targets.len()];
        for s in 0..n {
            for &t in &out.targets[out.offsets[s] as usize..out.offsets[s + 1] as usize] {
                targets[next[t as usize] as usize] = s as u32;
                next[t as usize] += 1;
            }
        }
        BothWays {
            out,
            into: Adjacency { offsets, targets },
        }
    }
}

impl GraphBase for BothWays<'_> {
    type EdgeId = ();
    type NodeId = u32;
}

impl<'b> IntoNeighbors for &'b BothWays<'_> {
    type Neighbors = std::iter::Copied<std::slice::Iter<'b, u32>>;

    fn neighbors(self, a: u32) -> Self::Neighbors {
        self.out.neighbors(a)
    }
}

impl IntoNeighborsDirected for &BothWays<'_> {
    type NeighborsDirected = Self::Neighbors;

    fn neighbors_directed(self, a: u32, d: Direction) -> Self::NeighborsDirected {
        match d {
            Direction::Outgoing => self.out.neighbors(a),
            Direction::Incoming => (&self.into).neighbors(a),
        }
    }
}

impl IntoNodeIdentifiers for &BothWays<'_> {
    type NodeIdentifiers = std::ops::Range<u32>;

    fn node_identifiers(self) -> Self::NodeIdentifiers {
        0..self.out.nodes() as u32
    }
}

impl Visitable for BothWays<'_> {
    type Map = FixedBitSet;

    fn visit_map(&self) -> FixedBitSet {
        FixedBitSet::with_capacity(self.out.nodes())
    }

    fn reset_map(&self, map: &mut FixedBitSet) {
        map.clear();
        map.grow(self.out.nodes());
    }
}

/// What reading edges.csv gave.
#[derive(Debug, Default)]
pub(crate) struct Edges {
    pub(crate) graph: Adjacency,
    /// Rows whose ends are not both pages of nodes.csv.
    pub(crate) bad_ends: u64,
}

/// Reads `path` (edges.csv: `Source,Target,…`, ids 1..=`nodes`) into an [`Adjacency`];
/// `arcs` is the expected count (summary.csv's), to size it once. Rows come in source order
/// as rccrawler writes them; a file in another order is read a second time and placed by
/// counting. A missing file is no arcs.
pub(crate) fn read_edges(path: &Path, nodes: usize, arcs: usize) -> io::Result<Edges> {
    let mut out = Edges::default();
    let mut offsets = Vec::with_capacity(nodes + 1);
    offsets.push(0u32);
    let mut targets: Vec<u32> = Vec::with_capacity(arcs);
    let mut sorted = true;
    each_arc(path, nodes, &mut out.bad_ends, |s, t| {
        if !sorted {
            return;
        }
        if s + 1 < offsets.len() {
            sorted = false;
            return;
        }
        while offsets.len() <= s {
            offsets.push(targets.len() as u32);
        }
        targets.push(t as u32);
    })?;
    if !sorted {
        // Counting sort over two more passes: out-degrees, then places.
        let mut counts = vec![0u32; nodes + 1];
        let mut ignored = 0;
        each_arc(path, nodes, &mut ignored, |s, _| counts[s + 1] += 1)?;
        for i in 1..counts.len() {
            counts[i] += counts[i - 1];
        }
        offsets = counts.clone();
        targets = vec![0; counts[nodes] as usize];
        each_arc(path, nodes, &mut ignored, |s, t| {
            targets[counts[s] as usize] = t as u32;
            counts[s] += 1;
        })?;
    }
    while offsets.len() <= nodes {
        offsets.push(targets.len() as u32);
    }
    targets.shrink_to_fit();
    out.graph = Adjacency { offsets, targets };
    Ok(out)
}

/// Calls `arc` with the 0-based ends of each row of edges.csv that names two pages; counts
/// the others in `bad`. rccrawler's own rows (`12,345,"Directed",1`) are read by hand, a
/// line at a time — a site's edges.csv runs to millions of rows and the CSV parser took most
/// of the report's time; any other line, or a file whose first columns are not
/// `Source,Target`, goes through the CSV parser.
fn each_arc(
    path: &Path,
    nodes: usize,
    bad: &mut u64,
    mut arc: impl FnMut(usize, usize),
) -> io::Result<()> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let mut lines = BufReader::with_capacity(1 << 16, file);
    let mut line = Vec::with_capacity(128);
    lines.read_until(b'\n', &mut line)?;
    if !line.starts_with(b"Source,Target") {
        let file = File::open(path)?;
        return each_arc_csv(file, nodes, bad, arc);
    }
    let page = |i: u64| (i >= 1 && i <= nodes as u64).then(|| i as usize - 1);
    loop {
        line.clear();
        if lines.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        match plain_arc(&line) {
            Some((s, t)) => match (page(s), page(t)) {
                (Some(s), Some(t)) => arc(s, t),
                _ => *bad += 1,
            },
            None if line.iter().all(u8::is_ascii_whitespace) => {}
            None => each_arc_csv(&line[..], nodes, bad, &mut arc)?,
        }
    }
}

/// `Source,Target,` as two bare numbers at the start of a line.
fn plain_arc(line: &[u8]) -> Option<(u64, u64)> {
    let number = |bytes: &[u8]| -> Option<(u64, usize)> {
        let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 || digits > 18 {
            return None;
        }
        let n = bytes[..digits]
            .iter()
            .fold(0u64, |n, &b| n * 10 + u64::from(b - b'0'));
        Some((n, digits))
    };
    let (s, used) = number(line)?;
    let rest = line.get(used..)?.strip_prefix(b",")?;
    let (t, used) = number(rest)?;
    match rest.get(used) {
        Some(b',' | b'\n' | b'\r') | None => Some((s, t)),
        Some(_) => None,
    }
}

/// The CSV parser's reading of edges.csv rows (`input` with its header, or one row
/// without it when `input` is a slice of bytes).
fn each_arc_csv(
    input: impl io::Read,
    nodes: usize,
    bad: &mut u64,
    mut arc: impl FnMut(usize, usize),
) -> io::Result<()> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(BufReader::with_capacity(1 << 16, input));
    let mut record = csv::ByteRecord::new();
    // A whole file starts with its header; a single row from the fast path does not.
    if !rdr
        .read_byte_record(&mut record)
        .map_err(io::Error::other)?
    {
        return Ok(());
    }
    let col = |name: &[u8]| record.iter().position(|h| h == name);
    let (source, target, first_is_row) = match (col(b"Source"), col(b"Target")) {
        (Some(s), Some(t)) => (s, t, false),
        _ if record.len() >= 2 && record.iter().all(|f| !f.eq_ignore_ascii_case(b"Source")) => {
            (0, 1, true)
        }
        _ => return Err(io::Error::other("no Source and Target columns")),
    };
    let id = |field: Option<&[u8]>| -> Option<usize> {
        let field = field?;
        let text = std::str::from_utf8(field).ok()?.trim();
        text.parse::<usize>().ok().filter(|&i| i >= 1 && i <= nodes)
    };
    let mut more = first_is_row;
    if !more {
        more = rdr
            .read_byte_record(&mut record)
            .map_err(io::Error::other)?;
    }
    while more {
        match (id(record.get(source)), id(record.get(target))) {
            (Some(s), Some(t)) => arc(s - 1, t - 1),
            _ => *bad += 1,
        }
        more = rdr
            .read_byte_record(&mut record)
            .map_err(io::Error::other)?;
    }
    Ok(())
}

impl GraphBase for Adjacency {
    type EdgeId = ();
    type NodeId = u32;
}

impl<'a> IntoNeighbors for &'a Adjacency {
    type Neighbors = std::iter::Copied<std::slice::Iter<'a, u32>>;

    fn neighbors(self, a: u32) -> Self::Neighbors {
        let i = a as usize;
        self.targets[self.offsets[i] as usize..self.offsets[i + 1] as usize]
            .iter()
            .copied()
    }
}

impl IntoNodeIdentifiers for &Adjacency {
    type NodeIdentifiers = std::ops::Range<u32>;

    fn node_identifiers(self) -> Self::NodeIdentifiers {
        0..self.nodes() as u32
    }
}

impl NodeIndexable for Adjacency {
    fn node_bound(&self) -> usize {
        self.nodes()
    }

    fn to_index(&self, a: u32) -> usize {
        a as usize
    }

    fn from_index(&self, i: usize) -> u32 {
        i as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use petgraph::algo::tarjan_scc;

    fn edges(text: &str, nodes: usize) -> Edges {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("edges.csv");
        std::fs::write(&path, text).unwrap();
        read_edges(&path, nodes, 0).unwrap()
    }

    #[test]
    fn arcs_in_any_order_give_the_same_graph_and_petgraph_runs_on_it() {
        let sorted = edges(
            "Source,Target,Type,Weight\n1,2,\"Directed\",1\n1,3,\"Directed\",1\n3,1,\"Directed\",1\n5,4,\"Directed\",1\n",
            5,
        );
        let shuffled = edges("Source,Target\n5,4\n3,1\n1,3\n1,2\n9,1\n", 5);
        assert_eq!(shuffled.bad_ends, 1, "node 9 is not a page");
        for e in [&sorted, &shuffled] {
            let g = &e.graph;
            assert_eq!((g.nodes(), g.arcs()), (5, 4));
            let mut out: Vec<Vec<u32>> = (0..5).map(|i| g.neighbors(i).collect()).collect();
            for o in &mut out {
                o.sort();
            }
            assert_eq!(out, vec![vec![1, 2], vec![], vec![0], vec![], vec![3]]);
            assert_eq!(g.in_degrees(), vec![1, 1, 1, 1, 0]);
            assert_eq!(g.out_degree(0), 2);
            // {1, 3} is one component; 2, 4 and 5 are alone: Tarjan's and Kosaraju's agree.
            let sccs = tarjan_scc(g);
            assert_eq!(sccs.len(), 4);
            assert_eq!(sccs.iter().map(Vec::len).max(), Some(2));
            let both = BothWays::new(g);
            let ins: Vec<Vec<u32>> = (0..5)
                .map(|i| (&both).neighbors_directed(i, Direction::Incoming).collect())
                .collect();
            assert_eq!(ins, vec![vec![2], vec![0], vec![0], vec![4], vec![]]);
            let mut kosaraju: Vec<Vec<u32>> = petgraph::algo::kosaraju_scc(&both);
            for c in &mut kosaraju {
                c.sort();
            }
            kosaraju.sort();
            assert_eq!(kosaraju, vec![vec![0, 2], vec![1], vec![3], vec![4]]);
        }
    }

    #[test]
    fn a_path_of_a_million_pages_does_not_overflow_the_stack() {
        // Page i links page i + 1, the last links the first: one component a million deep.
        let n = 1_000_000u32;
        let g = Adjacency {
            offsets: (0..=n).collect(),
            targets: (1..n).chain([0]).collect(),
        };
        // On a thread of 256 KiB of stack: the recursion of Tarjan's would need hundreds of MB.
        let sccs = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || petgraph::algo::kosaraju_scc(&BothWays::new(&g)).len())
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(sccs, 1);
    }

    #[test]
    fn rows_the_fast_path_does_not_know_go_through_the_csv_parser() {
        // Quoted ids in one row, spaces in another, a blank line, a CRLF.
        let e = edges(
            "Source,Target,Type,Weight\r\n1,2,\"Directed\",1\r\n\"2\",\"3\",\"Directed\",1\n 3 ,1\n\nx,1\n",
            3,
        );
        assert_eq!(e.graph.arcs(), 3);
        assert_eq!(e.bad_ends, 1, "x is not a page");
        assert_eq!(e.graph.in_degrees(), vec![1, 1, 1]);
        // Another column order: the whole file through the parser, by column name.
        let e = edges("Target,Source\n2,1\n3,1\n", 3);
        assert_eq!(e.graph.out_degree(0), 2);
        assert_eq!(plain_arc(b"12,345,\"Directed\",1\n"), Some((12, 345)));
        assert_eq!(plain_arc(b"12,345\r\n"), Some((12, 345)));
        assert_eq!(plain_arc(b"12,34x,1\n"), None);
        assert_eq!(plain_arc(b"\"12\",3\n"), None);
    }

    #[test]
    fn a_missing_file_is_no_arcs() {
        let g = read_edges(Path::new("/nonexistent/edges.csv"), 3, 0).unwrap();
        assert_eq!((g.graph.nodes(), g.graph.arcs(), g.bad_ends), (3, 0, 0));
    }
}

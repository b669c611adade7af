//! The measures people compute from a site graph (SPEC §17): each page's `PageRank`
//! ([`pagerank`]) and `Harmonic` centrality ([`harmonic`]), written beside the per-page
//! columns of nodes.csv and graph.gexf. Both read the graph once into [`Csr`], the arcs of
//! every node side by side; they are computed side by side on two threads.

pub(crate) mod harmonic;
pub(crate) mod pagerank;

use crate::data::SiteGraph;

/// A graph's arcs in compressed sparse rows: node `i`'s arcs are
/// `targets[offsets[i]..offsets[i + 1]]` (0-based node ids), with their weights.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Csr {
    pub(crate) offsets: Vec<usize>,
    pub(crate) targets: Vec<u32>,
    pub(crate) weights: Vec<u32>,
}

impl Csr {
    /// `n` nodes with the arcs `arcs(i)` gives for node `i`: (0-based target, weight).
    pub(crate) fn build(n: usize, mut arcs: impl FnMut(usize, &mut Vec<(u32, u32)>)) -> Self {
        let mut csr = Csr {
            offsets: Vec::with_capacity(n + 1),
            ..Csr::default()
        };
        csr.offsets.push(0);
        let mut row = Vec::new();
        for i in 0..n {
            row.clear();
            arcs(i, &mut row);
            for &(t, w) in &row {
                csr.targets.push(t);
                csr.weights.push(w);
            }
            csr.offsets.push(csr.targets.len());
        }
        csr
    }

    /// `n` nodes and the arcs `(source, target, weight)` (0-based ids), in any order.
    pub(crate) fn from_arcs(n: usize, mut arcs: Vec<(u32, u32, u32)>) -> Self {
        arcs.sort_unstable();
        let mut next = arcs.iter().peekable();
        Csr::build(n, |i, row| {
            while let Some(&&(s, t, w)) = next.peek() {
                if s as usize != i {
                    break;
                }
                row.push((t, w));
                next.next();
            }
        })
    }

    /// The arcs of a site graph (its node ids are 1-based).
    pub(crate) fn of(g: &SiteGraph<'_>) -> Self {
        let nodes = g.nodes();
        let mut buf = Vec::new();
        Csr::build(nodes.len(), |i, row| {
            g.arcs_into(&nodes[i], &mut buf);
            row.extend(buf.iter().map(|e| (e.target - 1, e.weight)));
        })
    }

    /// Nodes.
    pub(crate) fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Node `i`'s arcs: targets and weights.
    pub(crate) fn row(&self, i: usize) -> (&[u32], &[u32]) {
        let r = self.offsets[i]..self.offsets[i + 1];
        (&self.targets[r.clone()], &self.weights[r])
    }
}

/// One measure's column in nodes.csv and graph.gexf (written after the per-page columns of
/// `data::columns`; a measure is of the whole graph, computed when the files are written,
/// so PgDM's pages table does not keep it).
#[derive(Debug, Clone, Copy)]
pub(crate) struct MeasureColumn {
    /// nodes.csv's header, and the GEXF attribute's title.
    pub(crate) name: &'static str,
    /// The GEXF attribute's id (a `double`).
    pub(crate) gexf_id: &'static str,
    /// Node `i`'s value.
    pub(crate) value: fn(&Measures, usize) -> f64,
}

/// The measures' columns, in nodes.csv's order.
pub(crate) const MEASURE_COLUMNS: &[MeasureColumn] = &[
    MeasureColumn {
        name: "PageRank",
        gexf_id: "pagerank",
        value: |m, i| m.pagerank[i],
    },
    MeasureColumn {
        name: "Harmonic",
        gexf_id: "harmonic",
        value: |m, i| m.harmonic[i],
    },
];

/// A measure as written: the shortest decimal that reads back as the same number, never in
/// exponent form (Gephi and spreadsheets read it as a number).
pub(crate) fn write_value(out: &mut Vec<u8>, v: f64) {
    use std::io::Write as _;
    // Infallible: writing into a Vec.
    let _ = write!(out, "{v}");
}

/// A site graph's measures, by node (0-based: nodes.csv's `Id` less one).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Measures {
    /// PageRank: sums to 1 over the graph.
    pub(crate) pagerank: Vec<f64>,
    /// Harmonic centrality: the sum over the other pages of one over their distance to it.
    pub(crate) harmonic: Vec<f64>,
}

impl Measures {
    /// Both measures of `g`.
    pub(crate) fn of(g: &SiteGraph<'_>) -> Self {
        Measures::of_csr(&Csr::of(g))
    }

    /// Both measures of the graph `csr`.
    pub(crate) fn of_csr(csr: &Csr) -> Self {
        let (pagerank, harmonic) = crate::parallel::join(
            "measures",
            || pagerank::pagerank(csr),
            || harmonic::harmonic(csr).values,
        );
        Measures { pagerank, harmonic }
    }
}

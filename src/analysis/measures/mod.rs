//! The measures people compute from a site graph (SPEC §17): each page's `PageRank`
//! ([`pagerank`]) and `Harmonic` centrality ([`harmonic`]), written beside the per-page
//! columns of nodes.csv and graph.gexf. Both read the graph once into [`Csr`], the arcs of
//! every node side by side; they are computed side by side on two threads.

pub(crate) mod harmonic;
pub(crate) mod pagerank;

use crate::formats::gexf::{Attribute, Gexf};

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

    /// A graph to be filled row by row ([`Self::push_row`]), room made for `arcs` arcs.
    pub(crate) fn with_capacity(arcs: usize) -> Self {
        Csr {
            offsets: vec![0],
            targets: Vec::with_capacity(arcs),
            weights: Vec::with_capacity(arcs),
        }
    }

    /// Node `source`'s arcs `(target, weight)`; rows come in ascending order (the nodes
    /// between get none). `false`, changing nothing, for a row out of order.
    pub(crate) fn push_row(
        &mut self,
        source: usize,
        arcs: impl IntoIterator<Item = (u32, u32)>,
    ) -> bool {
        if source + 1 < self.offsets.len() {
            return false;
        }
        while self.offsets.len() < source + 1 {
            self.offsets.push(self.targets.len());
        }
        for (t, w) in arcs {
            self.targets.push(t);
            self.weights.push(w);
        }
        self.offsets.push(self.targets.len());
        true
    }

    /// Ends the graph at `n` nodes (the last ones without arcs).
    pub(crate) fn finish(mut self, n: usize) -> Self {
        while self.offsets.len() < n + 1 {
            self.offsets.push(self.targets.len());
        }
        self
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
fn write_value(out: &mut Vec<u8>, v: f64) {
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
    /// Both measures of the graph `csr`.
    pub(crate) fn of_csr(csr: &Csr) -> Self {
        let (pagerank, harmonic) = both(
            csr,
            "measures",
            || pagerank::pagerank(csr),
            || harmonic::harmonic(csr).values,
        );
        Measures { pagerank, harmonic }
    }
}

/// Graphs with fewer arcs are measured on the calling thread: a thread started per small
/// site (thousands of them in a crawl of many sites) cost more than the work and kept the
/// allocator's per-thread arenas growing (+8 MB peak on 4,000 sites).
const SIDE_BY_SIDE_FROM_ARCS: usize = 100_000;

/// `a` and `b`, side by side on a thread named `name` when `g` is big enough to gain from it.
fn both<A, B: Send>(
    g: &Csr,
    name: &str,
    a: impl FnOnce() -> A,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    if g.targets.len() >= SIDE_BY_SIDE_FROM_ARCS {
        crate::base::parallel::join(name, a, b)
    } else {
        (a(), b())
    }
}

/// Appends node `i`'s measures to a nodes.csv row, in [`MEASURE_COLUMNS`]' order (`buf` is
/// reused between rows).
pub(crate) fn csv_cells(
    csv: &mut crate::formats::gephi_csv::CsvOut<'_>,
    m: &Measures,
    i: usize,
    buf: &mut Vec<u8>,
) -> std::io::Result<()> {
    for c in MEASURE_COLUMNS {
        buf.clear();
        write_value(buf, (c.value)(m, i));
        // Digits, a point and a sign only: written as they are.
        csv.raw(std::str::from_utf8(buf).unwrap_or("0"))?;
    }
    Ok(())
}

/// The measures' GEXF attributes (doubles), after the per-page ones.
pub(crate) fn gexf_attributes() -> impl Iterator<Item = Attribute<'static>> {
    MEASURE_COLUMNS
        .iter()
        .map(|c| Attribute::new(c.gexf_id, c.name, "double"))
}

/// Node `i`'s measures as GEXF values.
pub(crate) fn gexf_values(g: &mut Gexf<'_>, m: &Measures, i: usize) {
    for c in MEASURE_COLUMNS {
        g.value(c.gexf_id, None, |line| write_value(line, (c.value)(m, i)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_pushed_in_order_leave_the_nodes_between_without_arcs() {
        let mut g = Csr::with_capacity(3);
        assert!(g.push_row(1, [(0, 2), (2, 1)]));
        assert!(g.push_row(3, [(1, 1)]));
        assert!(!g.push_row(2, [(0, 1)]), "out of order");
        let g = g.finish(5);
        assert_eq!(g.len(), 5);
        assert_eq!(g.row(0), (&[][..], &[][..]));
        assert_eq!(g.row(1), (&[0, 2][..], &[2, 1][..]));
        assert_eq!(g.row(2).0.len(), 0);
        assert_eq!(g.row(3), (&[1][..], &[1][..]));
        assert_eq!(g.row(4).0.len(), 0);
    }
}

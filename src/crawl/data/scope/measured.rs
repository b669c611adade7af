//! A site graph as the measures read it (SPEC §17): its arcs in compressed sparse rows, and
//! the measures of those. Here rather than in `measures`, which knows graphs, not the data
//! manager's records.

use super::graph::SiteGraph;
use crate::analysis::measures::{Csr, Measures};

impl SiteGraph<'_> {
    /// The graph's arcs (its node ids are 1-based; the rows' are 0-based).
    pub(crate) fn csr(&self) -> Csr {
        let nodes = self.nodes();
        let mut buf = Vec::new();
        Csr::build(nodes.len(), |i, row| {
            self.arcs_into(&nodes[i], &mut buf);
            row.extend(buf.iter().map(|e| (e.target - 1, e.weight)));
        })
    }

    /// Both measures of the graph.
    pub(crate) fn measures(&self) -> Measures {
        Measures::of_csr(&self.csr())
    }
}

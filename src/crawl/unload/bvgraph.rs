//! `GraphFormat = bvgraph` (SPEC §17): a site graph also in the WebGraph BVGraph format, for
//! very large graphs and the WebGraph tools — `graph.graph`, `graph.offsets` and
//! `graph.properties`, compressed by the `webgraph` crate (big-endian, as the Java WebGraph
//! reads), node `i` being nodes.csv's `Id` `i + 1` — and `graph.weights`: each arc's weight
//! (its links), one per line, in the order BVGraph lists arcs (by source, then target).

use std::io::{self, Write};
use std::path::Path;

use dsi_bitstream::traits::BE;
use webgraph::graphs::bvgraph::BvComp;
use webgraph::graphs::vec_graph::VecGraph;

use super::UnloadError;
use crate::base::storage::replace_file;
use crate::crawl::data::SiteGraph;

/// The files BVGraph writes for a basename, by extension.
const EXTENSIONS: [&str; 3] = ["graph", "offsets", "properties"];

/// Writes `g` as `folder/graph.{graph,offsets,properties,weights}`, each file replaced whole
/// (compressed under a temporary basename, then renamed).
pub(super) fn write_bvgraph(g: &SiteGraph<'_>, folder: &Path) -> Result<(), UnloadError> {
    let nodes = g.nodes();
    let mut graph = VecGraph::empty(nodes.len());
    let mut weights = Vec::new();
    let mut arcs = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        // By target, each once: the order BVGraph stores successors in.
        g.arcs_into(n, &mut arcs);
        for a in &arcs {
            graph.add_arc(i, a.target as usize - 1);
            weights.push(a.weight);
        }
    }
    let fail = |path: &Path, source: io::Error| UnloadError {
        path: path.to_path_buf(),
        source,
    };
    // No dot after the first: the crate names its files with `Path::with_extension`.
    let temporary = folder.join(".graph-bvgraph-tmp");
    BvComp::with_basename(&temporary)
        .comp_graph::<BE>(&graph)
        .map_err(|e| fail(&temporary, io::Error::other(format!("{e:#}"))))?;
    for ext in EXTENSIONS {
        let from = temporary.with_extension(ext);
        let to = folder.join(format!("graph.{ext}"));
        std::fs::rename(&from, &to).map_err(|e| fail(&from, e))?;
    }
    let path = folder.join("graph.weights");
    replace_file(&path, |w: &mut dyn Write| {
        let mut num = itoa::Buffer::new();
        for &weight in &weights {
            w.write_all(num.format(weight).as_bytes())?;
            w.write_all(b"\n")?;
        }
        Ok(())
    })
    .map_err(|e| fail(&path, e))
}

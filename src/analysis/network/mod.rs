//! The network of sites (SPEC §13, BeeBot's model of a fragment of the Web): the **target
//! set** (the sites of hosts.txt), the **accompanying set** (every site outside it that a
//! target links to, split into subsets by how many targets link to it), and the arcs between
//! them, derived from the external links the crawl recorded — so a results folder always
//! rebuilds it (`rccrawler network`), one written by `rccrawler export` too.
//!
//! - [`targets`] — the targets, and which hosts each one's scope takes in;
//! - [`unit`](mod@unit) — what one accompanying site is (a registrable domain, or a host), the subsets;
//! - `aggregate` — the counts, one target's external_links.csv at a time;
//! - [`model`] — nodes, arcs and subsets as the files show them;
//! - [`write`](mod@write) — the files of `results/network/`; [`read`] — the same read back (the report);
//! - [`live`] — the totals while a crawl runs (the status page).

mod aggregate;
pub(crate) mod entities;
mod entity_count;
pub(crate) mod live;
pub(crate) mod model;
pub(crate) mod read;
mod spill;
pub(crate) mod targets;
pub(crate) mod unit;
pub(crate) mod write;

use std::path::{Path, PathBuf};

use thiserror::Error;

pub(crate) use entities::{Entities, EntitiesError};
pub(crate) use model::{Network, NodeRow, Set};
pub(crate) use targets::TargetScopes;
pub(crate) use unit::{Subsets, Unit, is_public_name, registrable_domain};

/// The folder of the network's files, in the results folder.
pub(crate) const NETWORK_DIR: &str = "network";

/// The network could not be built.
#[derive(Debug, Error)]
pub(crate) enum NetworkError {
    /// A file of the results folder is not what a crawl writes.
    #[error("{}{}: {why}", path.display(), if *line > 0 { format!(":{line}") } else { String::new() })]
    Input {
        /// The file.
        path: PathBuf,
        /// Its line (0: the file as a whole).
        line: u64,
        /// What is wrong.
        why: String,
    },
    /// A file of the network could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// How the network is made: the unit of an accompanying site, the subsets, and which hosts
/// each target's scope takes in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkSpec {
    /// `NetworkUnit`.
    pub unit: Unit,
    /// `NetworkSubsets`.
    pub subsets: Subsets,
    /// The targets' scopes.
    pub scopes: TargetScopes,
    /// The study's web entities (`NetworkEntities`, `--entities`; SPEC §20).
    pub entities: Option<std::sync::Arc<Entities>>,
}

/// Builds the network of the results folder `results` and writes it into
/// `results/network/`; with `prospects = Some(k)`, also `prospects.txt`: the accompanying
/// sites at least `k` targets link to, as hosts.txt lines. Nothing is written unless every
/// input file reads. The network returned holds its nodes; its arcs went to the files.
pub(crate) fn build(
    results: &Path,
    spec: &NetworkSpec,
    prospects: Option<u32>,
) -> Result<Network, NetworkError> {
    let set = targets::TargetSet::read(results, &spec.scopes)?;
    if let Some(entities) = &spec.entities {
        return build_with_entities(results, spec, &set, entities, prospects);
    }
    let (counts, mut arcs) = aggregate::count(results, &set, spec.unit, prospects.is_some())?;
    let (net, ids) = Network::assemble(&set, &counts, &spec.subsets);
    let lines = prospects.map(|k| prospect_lines(&net, &counts, k));
    write::write_all(
        &results.join(NETWORK_DIR),
        &net,
        (&mut arcs, &ids),
        lines.as_deref(),
    )?;
    Ok(net)
}

/// [`build`] with the study's web entities (SPEC §20).
fn build_with_entities(
    results: &Path,
    spec: &NetworkSpec,
    set: &targets::TargetSet,
    entities: &Entities,
    prospects: Option<u32>,
) -> Result<Network, NetworkError> {
    let counted = entity_count::count(results, set, spec.unit, entities)?;
    let (net, edges, accompanying) = entity_count::assemble(set, entities, &counted, &spec.subsets);
    let written = |source: std::io::Error| NetworkError::Write {
        path: results.to_path_buf(),
        source,
    };
    // The arcs by their final ids already: spilled as they are, read back as the same ids.
    let mut spill = spill::Spill::new(results).map_err(written)?;
    for e in &edges {
        spill
            .push(aggregate::Arc {
                source: e.source - 1,
                target: aggregate::NodeKey::Target(e.target - 1).code(),
                weight: e.weight,
                pages: e.pages,
                nofollow: e.nofollow,
            })
            .map_err(written)?;
    }
    let mut arcs = spill.finish().map_err(written)?;
    let lines =
        prospects.map(|k| entity_count::prospect_lines(&net, &counted, &accompanying, entities, k));
    write::write_all(
        &results.join(NETWORK_DIR),
        &net,
        (&mut arcs, &model::Ids::identity()),
        lines.as_deref(),
    )?;
    Ok(net)
}

/// hosts.txt lines of the accompanying sites `k` targets or more link to: the most linked
/// `scheme://host` of each (its home page), after a comment naming the site and its links.
fn prospect_lines(net: &Network, counts: &aggregate::Counts, k: u32) -> Vec<String> {
    let mut lines = vec![format!(
        "# accompanying sites linked by at least {k} targets (rccrawler network --prospects {k})"
    )];
    let index: std::collections::HashMap<&str, usize> = counts
        .units
        .iter()
        .enumerate()
        .map(|(i, u)| (u.as_str(), i))
        .collect();
    // Public names first (`Network::prospects`); names without a dot after them, flagged.
    for (_, n) in net.prospects(k) {
        let home = index
            .get(n.label.as_str())
            .and_then(|&u| counts.homes.as_ref()?.get(u))
            .and_then(|hosts| {
                hosts
                    .iter()
                    .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
                    .map(|(h, _)| h.clone())
            })
            .unwrap_or_else(|| format!("https://{}", n.label));
        let flag = if unit::is_public_name(&n.label) {
            ""
        } else {
            " — no dot: an intranet's or a broken link's host, not a public site"
        };
        lines.push(format!(
            "# {}: linked by {} targets, {} links{flag}",
            n.label, n.inbound.targets, n.inbound.links
        ));
        lines.push(home);
    }
    lines
}

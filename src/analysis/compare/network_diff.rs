//! The network of sites compared (SPEC §13, §16): `network/sites.csv` (sites of the network
//! new, gone, or in another set or subset), `network/arcs.csv` (arcs between sites gained,
//! lost, reweighted) and `network/graph.gexf` over every crawl — when every crawl compared has
//! a network.

use hashbrown::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use super::dynamic_gexf::Timeline;
use super::folder::Crawl;
use super::{Pair, pair_dir};
use crate::analysis::network::Network;
use crate::analysis::network::read::read_network;
use crate::formats::gephi_csv::CsvOut;

/// network/sites.csv's columns.
pub(crate) const SITES_HEADER: &[&str] = &[
    "Site",
    "Change",
    "OldSet",
    "NewSet",
    "OldSubset",
    "NewSubset",
];
/// network/arcs.csv's columns.
pub(crate) const ARCS_HEADER: &[&str] = &["Source", "Target", "Change", "OldWeight", "NewWeight"];

/// What the report shows of the networks: each crawl's sizes, and of the first and last
/// crawl, the arcs gained (heaviest first) and the accompanying sites new and gone.
#[derive(Debug, Clone, Default)]
pub(crate) struct NetworkChange {
    /// Per crawl: targets, accompanying sites, arcs.
    pub(crate) sizes: Vec<(usize, usize, usize)>,
    /// Arcs gained: source, target, weight.
    pub(crate) gained: Vec<(String, String, u64)>,
    /// Arcs lost.
    pub(crate) lost: usize,
    /// Accompanying sites new, and gone.
    pub(crate) new_sites: Vec<String>,
    pub(crate) gone_sites: Vec<String>,
}

/// A network's arcs by the labels of their ends.
fn arcs(net: &Network) -> HashMap<(&str, &str), u64> {
    let label = |id: u32| net.nodes[(id - 1) as usize].label.as_str();
    net.edges
        .iter()
        .filter(|e| e.source >= 1 && e.target >= 1)
        .filter(|e| {
            (e.source as usize) <= net.nodes.len() && (e.target as usize) <= net.nodes.len()
        })
        .map(|e| ((label(e.source), label(e.target)), u64::from(e.weight)))
        .collect()
}

/// Every crawl's network, when every crawl has one (`None` when one has none); a network
/// whose files are not what a crawl writes is refused.
pub(crate) fn read_all(crawls: &[Crawl]) -> Result<Option<Vec<Network>>, super::CompareError> {
    let mut nets = Vec::with_capacity(crawls.len());
    for c in crawls {
        match read_network(&c.path, &|n: &Network| vec![true; n.nodes.len()]) {
            Ok(Some(net)) => nets.push(net),
            Ok(None) => return Ok(None),
            Err(why) => return Err(super::CompareError::Unreadable(why)),
        }
    }
    Ok(Some(nets))
}

/// Compares the crawls' networks `nets` into `out/network/` (and each step's).
pub(crate) fn compare(nets: &[Network], pairs: &[Pair], out: &Path) -> io::Result<NetworkChange> {
    let mut change = NetworkChange {
        sizes: nets
            .iter()
            .map(|n| (n.targets, n.nodes.len() - n.targets, n.edges.len()))
            .collect(),
        ..NetworkChange::default()
    };
    for (k, p) in pairs.iter().enumerate() {
        let (a, b) = p.crawls;
        let dir = pair_dir(out, p.crawls, nets.len()).join("network");
        std::fs::create_dir_all(&dir)?;
        let first = (k == 0).then_some(&mut change);
        write_pair(&nets[a], &nets[b], &dir, first)?;
    }
    timeline(nets).write(
        &out.join("network").join("graph.gexf"),
        "The network of sites in each crawl compared (time = the crawl's number)",
    )?;
    Ok(change)
}

fn write_pair(
    old: &Network,
    new: &Network,
    dir: &Path,
    mut change: Option<&mut NetworkChange>,
) -> io::Result<()> {
    write_sites(old, new, dir, change.as_deref_mut())?;
    write_arcs(old, new, dir, change)
}

/// network/sites.csv: sites new, in another set or subset, gone.
fn write_sites(
    old: &Network,
    new: &Network,
    dir: &Path,
    mut change: Option<&mut NetworkChange>,
) -> io::Result<()> {
    let was: HashMap<&str, usize> = old
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.label.as_str(), i))
        .collect();
    let is: HashMap<&str, usize> = new
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.label.as_str(), i))
        .collect();
    write_csv(&dir.join("sites.csv"), SITES_HEADER, |o| {
        for n in &new.nodes {
            let before = was.get(n.label.as_str()).map(|&i| &old.nodes[i]);
            let what = match before {
                None => "added",
                Some(b) if b.set != n.set || b.subset != n.subset => "set",
                Some(_) => continue,
            };
            if let (None, Some(c)) = (before, change.as_deref_mut())
                && n.set == crate::analysis::network::Set::Accompanying
            {
                c.new_sites.push(n.label.clone());
            }
            o.text(&n.label)?.text(what)?;
            o.text(before.map_or("", |b| b.set.as_str()))?
                .text(n.set.as_str())?;
            o.text(before.map_or("", |b| b.subset.as_str()))?
                .text(&n.subset)?
                .end()?;
        }
        for n in old
            .nodes
            .iter()
            .filter(|n| !is.contains_key(n.label.as_str()))
        {
            if let Some(c) = change.as_deref_mut()
                && n.set == crate::analysis::network::Set::Accompanying
            {
                c.gone_sites.push(n.label.clone());
            }
            o.text(&n.label)?
                .text("removed")?
                .text(n.set.as_str())?
                .empty()?;
            o.text(&n.subset)?.empty()?.end()?;
        }
        Ok(())
    })
}

/// network/arcs.csv: arcs between sites gained, reweighted, lost.
fn write_arcs(
    old: &Network,
    new: &Network,
    dir: &Path,
    change: Option<&mut NetworkChange>,
) -> io::Result<()> {
    let (before, after) = (arcs(old), arcs(new));
    let mut gained = Vec::new();
    let mut lost = 0;
    write_csv(&dir.join("arcs.csv"), ARCS_HEADER, |o| {
        let ends = |e: &crate::analysis::network::model::EdgeRow, net: &Network| {
            (
                net.nodes[(e.source - 1) as usize].label.clone(),
                net.nodes[(e.target - 1) as usize].label.clone(),
            )
        };
        for e in new.edges.iter() {
            let (s, t) = ends(e, new);
            let w = u64::from(e.weight);
            let what = match before.get(&(s.as_str(), t.as_str())) {
                None => "added",
                Some(&x) if x != w => "reweighted",
                Some(_) => continue,
            };
            o.text(&s)?.text(&t)?.text(what)?;
            match before.get(&(s.as_str(), t.as_str())) {
                Some(&x) => o.num(x)?,
                None => o.empty()?,
            };
            o.num(w)?.end()?;
            if what == "added" {
                gained.push((s, t, w));
            }
        }
        for e in old.edges.iter() {
            let (s, t) = ends(e, old);
            if !after.contains_key(&(s.as_str(), t.as_str())) {
                lost += 1;
                o.text(&s)?
                    .text(&t)?
                    .text("removed")?
                    .num(e.weight)?
                    .empty()?
                    .end()?;
            }
        }
        Ok(())
    })?;
    if let Some(c) = change {
        gained.sort_by(|x, y| y.2.cmp(&x.2).then_with(|| (&x.0, &x.1).cmp(&(&y.0, &y.1))));
        c.gained = gained;
        c.lost = lost;
    }
    Ok(())
}

/// Writes a plain CSV file with `header` and the rows `rows` writes, whole or not at all.
fn write_csv(
    path: &Path,
    header: &[&str],
    rows: impl FnOnce(&mut CsvOut<'_>) -> io::Result<()>,
) -> io::Result<()> {
    super::write_file(path, |f: &mut File| {
        let mut w = BufWriter::with_capacity(1 << 16, f);
        let mut o = CsvOut::plain(&mut w, header)?;
        rows(&mut o)?;
        o.finish()?;
        w.flush()
    })
}

/// Network node attributes over time.
const NETWORK_ATTRS: &[(&str, &str)] =
    &[("set", "string"), ("subset", "string"), ("pages", "long")];

fn timeline(nets: &[Network]) -> Timeline {
    let mut tl = Timeline::new(NETWORK_ATTRS);
    for (i, net) in nets.iter().enumerate() {
        let t = i + 1;
        let ids: Vec<u32> = net
            .nodes
            .iter()
            .map(|n| {
                let pages = if n.set == crate::analysis::network::Set::Target {
                    n.pages.to_string()
                } else {
                    String::new()
                };
                tl.node(
                    t,
                    &n.label,
                    vec![n.set.as_str().to_owned(), n.subset.clone(), pages],
                )
            })
            .collect();
        for e in &net.edges {
            if let (Some(&a), Some(&b)) = (
                ids.get((e.source as usize).wrapping_sub(1)),
                ids.get((e.target as usize).wrapping_sub(1)),
            ) {
                tl.edge(t, a, b, u64::from(e.weight));
            }
        }
    }
    tl
}

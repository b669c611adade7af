//! The network of sites with the study's web entities (SPEC §20): every node is an entity, a
//! target no entity takes, or an accompanying site of `NetworkUnit` no entity takes. A
//! target whose site matches an entity becomes it (two targets in one: one node, pages
//! summed); a target's page falls into the entity of its own URL when one matches (a path
//! prefix splits a target), else into its target's node. Links between pages of two nodes are
//! arcs between them — a target's external links (external_links.csv) and, where its pages
//! fall into several nodes, its internal ones (edges.csv) — as Hyphe counts links between
//! web entities; links inside one node are none. Counts of targets (InTargets, OutTargets,
//! the subsets) count nodes. Held in memory: a study's entities are hundreds, not the
//! hundred thousand sites a crawl without them may have (aggregate.rs streams those).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

use super::NetworkError;
use super::aggregate::{Inbound, read_links};
use super::entities::Entities;
use super::model::{EdgeRow, Network, NodeRow, Set, SubsetTally};
use super::targets::TargetSet;
use super::unit::{Subsets, Unit};

/// A node while counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Key {
    /// A target no entity takes, by index.
    Target(u32),
    /// An entity, by id.
    Entity(u32),
    /// An accompanying site of `NetworkUnit`, by index in [`Counted::units`].
    Unit(u32),
}

/// One arc's counts.
#[derive(Debug, Clone, Copy, Default)]
struct ArcCount {
    links: u64,
    pages: u64,
    nofollow: u64,
}

/// What every target's files came to.
#[derive(Debug, Default)]
pub(super) struct Counted {
    /// Units' names.
    units: Vec<String>,
    unit_index: HashMap<String, u32>,
    /// Pages falling into each node.
    pages: HashMap<Key, u64>,
    /// Hosts of each node: of its pages, and of the links into it.
    hosts: HashMap<Key, BTreeSet<String>>,
    /// Arcs.
    arcs: HashMap<(Key, Key), ArcCount>,
    /// Nodes with pages, in the order they came (each target's own node first).
    order: Vec<Key>,
    /// Per accompanying node: how often each `scheme://host` was linked (prospects).
    pub(super) homes: HashMap<Key, HashMap<String, u64>>,
}

impl Counted {
    fn unit(&mut self, name: &str) -> Key {
        let next = u32::try_from(self.units.len()).unwrap_or(u32::MAX);
        let i = *self.unit_index.entry(name.to_owned()).or_insert_with(|| {
            self.units.push(name.to_owned());
            next
        });
        Key::Unit(i)
    }

    fn placed(&mut self, key: Key) {
        if !self.order.contains(&key) {
            self.order.push(key);
        }
    }
}

/// The node of target `t`: the entity its site falls into, or itself.
fn target_node(set: &TargetSet, entities: &Entities, t: usize) -> Key {
    let target = &set.targets[t];
    let path = url::Url::parse(&target.site)
        .map(|u| u.path().to_owned())
        .unwrap_or_else(|_| "/".into());
    match entities.of(&target.host, &path) {
        Some(e) => Key::Entity(e),
        None => Key::Target(u32::try_from(t).unwrap_or(u32::MAX)),
    }
}

/// Counts the files of every target of `set` in `results` with `entities`.
pub(super) fn count(
    results: &Path,
    set: &TargetSet,
    unit: Unit,
    entities: &Entities,
) -> Result<Counted, NetworkError> {
    let mut c = Counted::default();
    let homes: Vec<Key> = (0..set.targets.len())
        .map(|t| target_node(set, entities, t))
        .collect();
    for (t, target) in set.targets.iter().enumerate() {
        let home = homes[t];
        c.placed(home);
        c.pages.entry(home).or_insert(0);
        c.hosts.entry(home).or_default().insert(target.host.clone());
        let folder = results.join(&target.folder);
        // Each page's node, by nodes.csv's Id.
        let (page_nodes, split) = page_nodes(&folder.join("nodes.csv"), entities, home, &mut c)?;
        let node_of = |page: u64| {
            usize::try_from(page)
                .ok()
                .and_then(|p| page_nodes.get(p.wrapping_sub(1)))
                .copied()
                .unwrap_or(home)
        };
        // (arc, linking page) pairs: a page is counted once per arc.
        let mut linking: HashSet<(Key, Key, u64)> = HashSet::new();
        if split {
            read_edges(&folder.join("edges.csv"), &mut |s, d, weight, nofollow| {
                let (from, to) = (node_of(s), node_of(d));
                if from != to {
                    let a = c.arcs.entry((from, to)).or_default();
                    a.links += weight;
                    a.nofollow += nofollow;
                    linking.insert((from, to, s));
                }
            })?;
        }
        let own_unit = unit.of(&target.host).to_owned();
        read_links(
            &folder.join("external_links.csv"),
            &mut |page, url, host, nofollow| {
                let from = node_of(page);
                let path = url::Url::parse(url)
                    .map(|u| u.path().to_owned())
                    .unwrap_or_default();
                let to = match entities.of(host, &path) {
                    Some(e) => Key::Entity(e),
                    None => match set.taking(host) {
                        Some(t2) => homes[t2],
                        None => {
                            let u = unit.of(host);
                            if u == own_unit { home } else { c.unit(u) }
                        }
                    },
                };
                if from == to {
                    return;
                }
                if !matches!(to, Key::Target(_)) {
                    c.hosts.entry(to).or_default().insert(host.to_owned());
                    let scheme = url.split(':').next().unwrap_or("http").to_ascii_lowercase();
                    *c.homes
                        .entry(to)
                        .or_default()
                        .entry(format!("{scheme}://{host}"))
                        .or_insert(0) += 1;
                }
                let a = c.arcs.entry((from, to)).or_default();
                a.links += 1;
                a.nofollow += u64::from(nofollow);
                linking.insert((from, to, page));
            },
        )?;
        for (from, to, _) in linking {
            c.arcs.entry((from, to)).or_default().pages += 1;
        }
    }
    Ok(c)
}

/// Each page's node (by nodes.csv's Id) and whether they are in more than one; its pages and
/// hosts counted into `c`.
fn page_nodes(
    path: &Path,
    entities: &Entities,
    home: Key,
    c: &mut Counted,
) -> Result<(Vec<Key>, bool), NetworkError> {
    let mut nodes = Vec::new();
    let mut split = false;
    let Ok(mut rdr) = csv::Reader::from_path(path) else {
        // A target without pages has no nodes.csv.
        return Ok((nodes, false));
    };
    let bad = |line: u64, why: String| NetworkError::Input {
        path: path.to_path_buf(),
        line,
        why,
    };
    let header = rdr.headers().map_err(|e| bad(1, e.to_string()))?.clone();
    let Some(label) = header.iter().position(|h| h == "Label") else {
        return Err(bad(1, "not a nodes.csv (no Label column)".into()));
    };
    for r in rdr.records() {
        let r = r.map_err(|e| bad(e.position().map_or(0, csv::Position::line), e.to_string()))?;
        let url = r.get(label).unwrap_or("");
        let node = entities.of_url(url).map_or(home, Key::Entity);
        if node != home {
            split = true;
            c.placed(node);
        }
        *c.pages.entry(node).or_insert(0) += 1;
        if let Some(host) = url::Url::parse(url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
        {
            c.hosts.entry(node).or_default().insert(host);
        }
        nodes.push(node);
    }
    Ok((nodes, split))
}

/// Calls `each(source, target, weight, nofollow)` for every row of an edges.csv.
fn read_edges(path: &Path, each: &mut dyn FnMut(u64, u64, u64, u64)) -> Result<(), NetworkError> {
    let Ok(mut rdr) = csv::Reader::from_path(path) else {
        return Ok(());
    };
    let bad = |line: u64, why: String| NetworkError::Input {
        path: path.to_path_buf(),
        line,
        why,
    };
    let header = rdr.headers().map_err(|e| bad(1, e.to_string()))?.clone();
    let col = |n: &str| header.iter().position(|h| h == n);
    let (Some(s), Some(t), Some(w)) = (col("Source"), col("Target"), col("Weight")) else {
        return Err(bad(1, "not an edges.csv (no Source,Target,Weight)".into()));
    };
    let nofollow = col("Nofollow");
    for r in rdr.records() {
        let r = r.map_err(|e| bad(e.position().map_or(0, csv::Position::line), e.to_string()))?;
        let line = r.position().map_or(0, csv::Position::line);
        let n = |i: usize| {
            r.get(i)
                .and_then(|v| v.trim().parse::<u64>().ok())
                .ok_or_else(|| {
                    bad(
                        line,
                        format!("{:?} is not a number", r.get(i).unwrap_or("")),
                    )
                })
        };
        let nf = match nofollow {
            Some(i) => n(i)?,
            None => 0,
        };
        each(n(s)?, n(t)?, n(w)?, nf);
    }
    Ok(())
}

/// The network `c` makes: nodes in order (nodes with pages as their targets came, then the
/// accompanying ones by how many nodes link to them, most first, then by name), arcs by
/// source id then target id. Also each accompanying node's key, by id, for prospects.
pub(super) fn assemble(
    set: &TargetSet,
    entities: &Entities,
    c: &Counted,
    subsets: &Subsets,
) -> (Network, Vec<EdgeRow>, BTreeMap<u32, Key>) {
    let label = |k: Key| match k {
        Key::Target(t) => set.targets[t as usize].site.clone(),
        Key::Entity(e) => entities.name(e).to_owned(),
        Key::Unit(u) => c.units[u as usize].clone(),
    };
    let (inbound, out) = totals(c);
    let mut keys: Vec<Key> = c.order.clone();
    let mut others: Vec<Key> = inbound
        .keys()
        .copied()
        .filter(|k| !c.pages.contains_key(k))
        .collect();
    others.sort_by(|a, b| {
        let n = |k: &Key| inbound.get(k).map_or(0, |i| i.targets);
        n(b).cmp(&n(a)).then_with(|| label(*a).cmp(&label(*b)))
    });
    let targets = keys.len();
    keys.extend(others);
    let id: HashMap<Key, u32> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (*k, u32::try_from(i + 1).unwrap_or(u32::MAX)))
        .collect();
    let mut classes = SubsetTally::new(subsets);
    let mut nodes = Vec::with_capacity(keys.len());
    let mut accompanying = BTreeMap::new();
    for (i, &k) in keys.iter().enumerate() {
        let inb = inbound.get(&k).copied().unwrap_or_default();
        let (set_of, subset) = if i < targets {
            (Set::Target, "target".to_owned())
        } else {
            accompanying.insert(u32::try_from(i + 1).unwrap_or(u32::MAX), k);
            (Set::Accompanying, classes.add(inb))
        };
        let (out_targets, out_links) = out.get(&k).copied().unwrap_or_default();
        nodes.push(NodeRow {
            label: label(k),
            set: set_of,
            subset,
            inbound: inb,
            out_targets,
            out_links,
            pages: c.pages.get(&k).copied().unwrap_or(0),
            hosts: c
                .hosts
                .get(&k)
                .map(|h| h.iter().cloned().collect::<Vec<_>>().join(";"))
                .unwrap_or_default(),
        });
    }
    let edges = edges(c, &id);
    let net = Network {
        arcs: edges.len() as u64,
        links: edges.iter().map(|e| u64::from(e.weight)).sum(),
        nodes,
        targets,
        edges: Vec::new(),
        subsets: classes.rows,
    };
    (net, edges, accompanying)
}

/// Each node's links in (from how many nodes, links, linking pages) and out (to how many
/// nodes, links).
fn totals(c: &Counted) -> (HashMap<Key, Inbound>, HashMap<Key, (u32, u64)>) {
    let mut inbound: HashMap<Key, Inbound> = HashMap::new();
    let mut out: HashMap<Key, (u32, u64)> = HashMap::new();
    for (&(from, to), a) in &c.arcs {
        let i = inbound.entry(to).or_default();
        i.targets += 1;
        i.links += a.links;
        i.pages += a.pages;
        let o = out.entry(from).or_default();
        o.0 += 1;
        o.1 += a.links;
    }
    (inbound, out)
}

/// The arcs between node ids, by source then target.
fn edges(c: &Counted, id: &HashMap<Key, u32>) -> Vec<EdgeRow> {
    let id_of = |k: &Key| id.get(k).copied().unwrap_or(0);
    let mut edges: Vec<EdgeRow> = c
        .arcs
        .iter()
        .map(|((from, to), a)| EdgeRow {
            source: id_of(from),
            target: id_of(to),
            weight: u32::try_from(a.links).unwrap_or(u32::MAX),
            pages: u32::try_from(a.pages).unwrap_or(u32::MAX),
            nofollow: u32::try_from(a.nofollow).unwrap_or(u32::MAX),
        })
        .collect();
    edges.sort_unstable();
    edges
}

/// prospects.txt with entities: the accompanying nodes `k` nodes or more link to — entities
/// by name with their prefixes, sites of `NetworkUnit` by name — each with the most linked
/// `scheme://host` as its hosts.txt line.
pub(super) fn prospect_lines(
    net: &Network,
    c: &Counted,
    accompanying: &BTreeMap<u32, Key>,
    entities: &Entities,
    k: u32,
) -> Vec<String> {
    let mut lines = vec![format!(
        "# accompanying entities and sites linked by at least {k} targets (rccrawler network --prospects {k})"
    )];
    for (i, n) in net.prospects(k) {
        let Some(&key) = u32::try_from(i + 1)
            .ok()
            .and_then(|id| accompanying.get(&id))
        else {
            continue;
        };
        let home = c
            .homes
            .get(&key)
            .and_then(|h| {
                h.iter()
                    .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
                    .map(|(h, _)| h.clone())
            })
            .unwrap_or_else(|| format!("https://{}", n.label));
        let what = match key {
            Key::Entity(e) => format!(" (entity: {})", entities.prefixes(e).join(" ")),
            _ => String::new(),
        };
        let flag = if n.is_public() {
            ""
        } else {
            " — no dot: an intranet's or a broken link's host, not a public site"
        };
        lines.push(format!(
            "# {}{what}: linked by {} targets, {} links{flag}",
            n.label, n.inbound.targets, n.inbound.links
        ));
        lines.push(home);
    }
    lines
}

//! One dynamic GEXF 1.3 file over every crawl compared (`mode="dynamic"`, time as the crawl's
//! number, one timestamp per crawl a node or edge is in), so that Gephi's timeline plays the
//! change: nodes and edges appear and vanish, levels, hashes and weights change over time.
//! Nodes are matched by label (a site's pages by normalized URL, the network's sites by name).

use std::io::{self, BufWriter, Write};
use std::path::Path;

use hashbrown::HashMap;

use super::diff::SiteDiff;
use super::snapshot::{Page, Snapshot};
use crate::formats::gexf::{Attribute, Gexf, Time};

/// A graph over time being gathered.
#[derive(Debug)]
pub(crate) struct Timeline {
    /// The nodes' dynamic attributes: `(id, type)`.
    attrs: &'static [(&'static str, &'static str)],
    nodes: Vec<Node>,
    index: HashMap<String, u32>,
    edges: Vec<Edge>,
    edge_index: HashMap<(u32, u32), u32>,
}

#[derive(Debug)]
struct Node {
    label: String,
    /// Each crawl it is in: its number and its attributes' values (empty: none).
    at: Vec<(usize, Vec<String>)>,
}

#[derive(Debug)]
struct Edge {
    ends: (u32, u32),
    /// Each crawl it is in: its number and weight.
    at: Vec<(usize, u64)>,
}

impl Timeline {
    /// An empty timeline whose nodes carry `attrs`.
    pub(crate) fn new(attrs: &'static [(&'static str, &'static str)]) -> Timeline {
        Timeline {
            attrs,
            nodes: Vec::new(),
            index: HashMap::new(),
            edges: Vec::new(),
            edge_index: HashMap::new(),
        }
    }

    /// Node `label` is in crawl `t` with these attribute values; its id.
    pub(crate) fn node(&mut self, t: usize, label: &str, values: Vec<String>) -> u32 {
        let next = self.nodes.len() as u32;
        let id = *self.index.entry(label.to_owned()).or_insert(next);
        if id == next {
            self.nodes.push(Node {
                label: label.to_owned(),
                at: Vec::new(),
            });
        }
        self.nodes[id as usize].at.push((t, values));
        id
    }

    /// Node `id` (one that was in an earlier crawl under another label: a renamed page) is
    /// in crawl `t` as `label` with these values: its label becomes the newest, and `label`
    /// names it from now on.
    pub(crate) fn node_again(&mut self, id: u32, t: usize, label: &str, values: Vec<String>) {
        self.index.insert(label.to_owned(), id);
        let n = &mut self.nodes[id as usize];
        label.clone_into(&mut n.label);
        n.at.push((t, values));
    }

    /// The id of the node `label` names, if any.
    pub(crate) fn id_of(&self, label: &str) -> Option<u32> {
        self.index.get(label).copied()
    }

    /// A new node `label` in crawl `t` (the label names it from now on), whatever node the
    /// label named before: a page at the URL another page left.
    pub(crate) fn new_node(&mut self, t: usize, label: &str, values: Vec<String>) -> u32 {
        let id = self.nodes.len() as u32;
        self.nodes.push(Node {
            label: label.to_owned(),
            at: vec![(t, values)],
        });
        self.index.insert(label.to_owned(), id);
        id
    }

    /// An edge between node ids in crawl `t`.
    pub(crate) fn edge(&mut self, t: usize, a: u32, b: u32, weight: u64) {
        let next = self.edges.len() as u32;
        let id = *self.edge_index.entry((a, b)).or_insert(next);
        if id == next {
            self.edges.push(Edge {
                ends: (a, b),
                at: Vec::new(),
            });
        }
        self.edges[id as usize].at.push((t, weight));
    }

    /// Writes the file (whole or not at all); `about` is its description.
    pub(crate) fn write(&self, path: &Path, about: &str) -> io::Result<()> {
        super::write_file(path, |f| {
            let mut w = BufWriter::with_capacity(1 << 16, f);
            self.write_to(&mut w, about)?;
            w.flush()
        })
    }

    fn write_to(&self, w: &mut dyn Write, about: &str) -> io::Result<()> {
        let nodes: Vec<Attribute<'_>> = self
            .attrs
            .iter()
            .map(|(id, ty)| Attribute::new(id, id, ty))
            .collect();
        let edges = [Attribute::new("weight", "weight", "double")];
        let mut g = Gexf::start(w, about, Time::Dynamic, &nodes, &edges)?;
        let mut times = Vec::new();
        for (i, n) in self.nodes.iter().enumerate() {
            g.node(i as u64, &n.label);
            for (t, values) in &n.at {
                for ((id, _), v) in self.attrs.iter().zip(values) {
                    if !v.is_empty() {
                        g.text(id, Some(*t), v);
                    }
                }
            }
            times.clear();
            times.extend(n.at.iter().map(|&(t, _)| t));
            g.end_node(&times)?;
        }
        g.edges()?;
        for e in &self.edges {
            let first = e.at.first().map_or(1, |&(_, weight)| weight);
            let steady = e.at.iter().all(|&(_, weight)| weight == first);
            let (a, b) = (u64::from(e.ends.0), u64::from(e.ends.1));
            g.edge(a, b, steady.then_some(first));
            if !steady {
                // Gephi reads an edge's weight over time from attvalues for "weight".
                g.edge_values();
                for &(t, weight) in &e.at {
                    g.int("weight", Some(t), weight);
                }
            }
            times.clear();
            times.extend(e.at.iter().map(|&(t, _)| t));
            g.end_edge(!steady, &times)?;
        }
        g.finish()
    }
}

/// A site page's attributes over time: its level, its content hash, its URL (a renamed page
/// is one node whose URL changes), and how it changed since the crawl before (`added`,
/// `changed`, `renamed`, `level`; none when it did not change, and in the first crawl).
const SITE_ATTRS: &[(&str, &str)] = &[
    ("level", "integer"),
    ("hash", "string"),
    ("url", "string"),
    ("change", "string"),
];

/// A page's attribute values in one crawl (see [`SITE_ATTRS`]).
fn values(p: &Page, change: &str) -> Vec<String> {
    let level = p.level.map(|l| l.to_string()).unwrap_or_default();
    vec![level, p.hash.clone(), p.url.clone(), change.to_owned()]
}

/// Writes the dynamic graph of `site` over its snapshots (one per crawl, `None` where a crawl
/// does not list it); `steps[i]` is what changed from crawl `i` to crawl `i + 1` when both
/// list it (its pages matched by URL, or renamed).
pub(crate) fn site(
    path: &Path,
    site: &str,
    snaps: &[Option<Snapshot>],
    steps: &[Option<&SiteDiff>],
) -> io::Result<()> {
    let mut tl = Timeline::new(SITE_ATTRS);
    // The crawl before: its snapshot and each of its pages' node.
    let mut before: Option<(&Snapshot, Vec<u32>)> = None;
    for (i, snap) in snaps.iter().enumerate() {
        let Some(snap) = snap else {
            before = None;
            continue;
        };
        let t = i + 1;
        // Each page's page in the crawl before, when the step says which.
        let mut was: Vec<Option<u32>> = vec![None; snap.pages.len()];
        let step = i
            .checked_sub(1)
            .and_then(|k| steps.get(k).copied().flatten());
        if let (Some(_), Some(d)) = (&before, step) {
            for (old, new) in d.old_to_new.iter().enumerate() {
                if let Some(slot) = new.and_then(|n| was.get_mut(n as usize)) {
                    *slot = u32::try_from(old).ok();
                }
            }
        }
        // The pages the step matches keep their nodes first; then a page no step matches is
        // the node its URL named in an earlier crawl, unless that node is taken (a page at a
        // URL another page was renamed from is a new node).
        let mut ids: Vec<Option<u32>> = vec![None; snap.pages.len()];
        let mut taken = hashbrown::HashSet::new();
        for (j, p) in snap.pages.iter().enumerate() {
            let earlier = before
                .as_ref()
                .zip(was[j])
                .map(|((s, ids), old)| (&s.pages[old as usize], ids[old as usize]));
            let change = match (&before, earlier) {
                (None, _) => "",
                (Some(_), None) => "added",
                (_, Some((w, _))) if w.url != p.url => "renamed",
                (_, Some((w, _))) if w.same_content(p) == Some(false) => "changed",
                (_, Some((w, _))) if w.level != p.level => "level",
                _ => "",
            };
            if let Some((_, id)) = earlier {
                tl.node_again(id, t, &p.url, values(p, change));
                taken.insert(id);
                ids[j] = Some(id);
            }
        }
        for (j, p) in snap.pages.iter().enumerate() {
            if ids[j].is_some() {
                continue;
            }
            let change = if before.is_some() { "added" } else { "" };
            let id = match tl.id_of(&p.url).filter(|id| !taken.contains(id)) {
                Some(id) => {
                    tl.node_again(id, t, &p.url, values(p, change));
                    id
                }
                None => tl.new_node(t, &p.url, values(p, change)),
            };
            taken.insert(id);
            ids[j] = Some(id);
        }
        let ids: Vec<u32> = ids.into_iter().map(|i| i.unwrap_or(0)).collect();
        for &(a, b, w) in &snap.arcs {
            tl.edge(t, ids[a as usize], ids[b as usize], w);
        }
        before = Some((snap, ids));
    }
    tl.write(
        path,
        &format!("{site}: its web graph in each crawl compared (time = the crawl's number)"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_added_and_one_gone_over_two_crawls() {
        let page = |u: &str, l: u32, h: &str| Page {
            url: u.into(),
            level: Some(l),
            hash: h.into(),
            text: String::new(),
        };
        let one = Snapshot {
            pages: vec![page("/", 0, "a"), page("/x", 1, "x")],
            arcs: vec![(0, 1, 2)],
            ..Snapshot::default()
        };
        let two = Snapshot {
            pages: vec![page("/", 0, "b"), page("/y", 1, "y")],
            arcs: vec![(0, 1, 1)],
            ..Snapshot::default()
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.gexf");
        let step = super::super::diff::diff(&one, &two);
        site(
            &path,
            "http://a.test",
            &[Some(one), Some(two)],
            &[Some(&step)],
        )
        .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("mode=\"dynamic\""), "{text}");
        // The home page: its level, hash and URL in both crawls, changed in the second.
        assert!(
            text.contains(
                "<node id=\"0\" label=\"/\"><attvalues><attvalue for=\"level\" value=\"0\" start=\"1\" end=\"1\"/><attvalue for=\"hash\" value=\"a\" start=\"1\" end=\"1\"/><attvalue for=\"url\" value=\"/\" start=\"1\" end=\"1\"/><attvalue for=\"level\" value=\"0\" start=\"2\" end=\"2\"/><attvalue for=\"hash\" value=\"b\" start=\"2\" end=\"2\"/><attvalue for=\"url\" value=\"/\" start=\"2\" end=\"2\"/><attvalue for=\"change\" value=\"changed\" start=\"2\" end=\"2\"/></attvalues><spells><spell start=\"1\" end=\"1\"/><spell start=\"2\" end=\"2\"/></spells></node>"
            ),
            "{text}"
        );
        assert!(text.contains("label=\"/x\""), "{text}");
        assert!(text.contains("<attvalue for=\"change\" value=\"added\" start=\"2\" end=\"2\"/>"));
        // Two edges: / → /x in crawl 1, / → /y in crawl 2.
        assert_eq!(text.matches("<edge ").count(), 2, "{text}");
        assert!(
            text.contains(
                "<edge id=\"0\" source=\"0\" target=\"1\" weight=\"2\"><spells><spell start=\"1\" end=\"1\"/></spells></edge>"
            ),
            "{text}"
        );
    }
}

//! One site of one crawl, read from its results folder for comparing: its pages (URL, level,
//! content hash), arcs and external links. Only one site's snapshots are held at a time.

use hashbrown::HashMap;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use crate::gephi_csv::gephi_unescape;

/// A node of a site graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Page {
    /// Its normalized URL (nodes.csv `Label`).
    pub(crate) url: String,
    /// Its level (empty for an orphan from a sitemap).
    pub(crate) level: Option<u32>,
    /// nodes.csv `ContentHash` (empty when not written).
    pub(crate) hash: String,
    /// nodes.csv `TextHash`: what a person reads on it (empty: too little text, or a results
    /// folder written before the column).
    pub(crate) text: String,
}

impl Page {
    /// Whether it has the same content as `other`: the same bytes, or — on a site whose
    /// pages differ per response — the same text; `None` when neither can tell (a hash
    /// missing).
    pub(crate) fn same_content(&self, other: &Page) -> Option<bool> {
        if !self.text.is_empty() && self.text == other.text {
            return Some(true);
        }
        if self.hash.is_empty() || other.hash.is_empty() {
            return None;
        }
        Some(self.hash == other.hash)
    }
}

/// An external link of a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct External {
    /// The page's index in [`Snapshot::pages`].
    pub(crate) page: u32,
    /// Where it leads.
    pub(crate) url: String,
    /// Its host.
    pub(crate) host: String,
    /// Its anchor text.
    pub(crate) anchor: String,
}

/// A site as one crawl saw it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Snapshot {
    /// Its pages, in nodes.csv's order.
    pub(crate) pages: Vec<Page>,
    /// Its arcs `(source, target, weight)`, indices into `pages`, in edges.csv's order.
    pub(crate) arcs: Vec<(u32, u32, u64)>,
    /// Its external links, in external_links.csv's order.
    pub(crate) external: Vec<External>,
    /// Files that could not be read, in words.
    pub(crate) problems: Vec<String>,
}

fn reader(path: &Path) -> Option<csv::Reader<BufReader<File>>> {
    let file = File::open(path).ok()?;
    Some(
        csv::ReaderBuilder::new()
            .flexible(true)
            .from_reader(BufReader::with_capacity(1 << 16, file)),
    )
}

fn column(header: &csv::StringRecord, name: &str) -> Option<usize> {
    header.iter().position(|h| h == name)
}

/// Reads the site folder `folder`. A missing file (an unreachable site has none) reads as
/// empty; a damaged one is named in `problems` and read as far as it goes.
pub(crate) fn read(folder: &Path) -> Snapshot {
    let mut s = Snapshot::default();
    let ids = read_nodes(folder, &mut s);
    read_edges(folder, &ids, &mut s);
    read_external(folder, &ids, &mut s);
    s
}

fn read_nodes(folder: &Path, s: &mut Snapshot) -> HashMap<u64, u32> {
    let mut ids = HashMap::new();
    let path = folder.join("nodes.csv");
    let Some(mut rdr) = reader(&path) else {
        return ids;
    };
    let Ok(header) = rdr.headers().cloned() else {
        s.problems.push(format!("{}: no header", path.display()));
        return ids;
    };
    let (Some(id), Some(label)) = (column(&header, "Id"), column(&header, "Label")) else {
        s.problems
            .push(format!("{}: no Id or Label column", path.display()));
        return ids;
    };
    let (level, hash) = (column(&header, "Level"), column(&header, "ContentHash"));
    let text_hash = column(&header, "TextHash");
    for r in rdr.records() {
        let Ok(r) = r else {
            s.problems
                .push(format!("{}: unreadable row", path.display()));
            break;
        };
        let Some(n) = r.get(id).and_then(|v| v.trim().parse::<u64>().ok()) else {
            continue;
        };
        let text = |i: Option<usize>| {
            let raw = i.and_then(|i| r.get(i)).unwrap_or("");
            gephi_unescape(raw).unwrap_or_else(|_| raw.to_owned())
        };
        ids.insert(n, s.pages.len() as u32);
        s.pages.push(Page {
            url: text(Some(label)),
            level: level
                .and_then(|i| r.get(i))
                .and_then(|v| v.trim().parse().ok()),
            hash: text(hash),
            text: text(text_hash),
        });
    }
    ids
}

fn read_edges(folder: &Path, ids: &HashMap<u64, u32>, s: &mut Snapshot) {
    let path = folder.join("edges.csv");
    let Some(mut rdr) = reader(&path) else {
        return;
    };
    let Ok(header) = rdr.headers().cloned() else {
        return;
    };
    let (Some(src), Some(dst)) = (column(&header, "Source"), column(&header, "Target")) else {
        s.problems
            .push(format!("{}: no Source or Target column", path.display()));
        return;
    };
    let weight = column(&header, "Weight");
    let node = |r: &csv::StringRecord, i: usize| {
        r.get(i)
            .and_then(|v| v.trim().parse::<u64>().ok())
            .and_then(|n| ids.get(&n).copied())
    };
    for r in rdr.records() {
        let Ok(r) = r else {
            s.problems
                .push(format!("{}: unreadable row", path.display()));
            break;
        };
        if let (Some(a), Some(b)) = (node(&r, src), node(&r, dst)) {
            let w = weight
                .and_then(|i| r.get(i))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(1);
            s.arcs.push((a, b, w));
        }
    }
}

fn read_external(folder: &Path, ids: &HashMap<u64, u32>, s: &mut Snapshot) {
    let path = folder.join("external_links.csv");
    let Some(mut rdr) = reader(&path) else {
        return;
    };
    let Ok(header) = rdr.headers().cloned() else {
        return;
    };
    let (Some(src), Some(url)) = (column(&header, "Source"), column(&header, "Url")) else {
        s.problems
            .push(format!("{}: no Source or Url column", path.display()));
        return;
    };
    let (host, anchor) = (column(&header, "Host"), column(&header, "Anchor"));
    for r in rdr.records() {
        let Ok(r) = r else {
            s.problems
                .push(format!("{}: unreadable row", path.display()));
            break;
        };
        let Some(page) = r
            .get(src)
            .and_then(|v| v.trim().parse::<u64>().ok())
            .and_then(|n| ids.get(&n).copied())
        else {
            continue;
        };
        let text = |i: Option<usize>| i.and_then(|i| r.get(i)).unwrap_or("").to_owned();
        s.external.push(External {
            page,
            url: text(Some(url)),
            host: text(host),
            anchor: text(anchor),
        });
    }
}

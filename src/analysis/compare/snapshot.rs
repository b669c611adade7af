//! One site of one crawl, read from its results folder for comparing: its pages (URL, level,
//! content hash), arcs and external links. Only one site's snapshots are held at a time.

use hashbrown::HashMap;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use crate::formats::gephi_csv::gephi_unescape;

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
}

fn reader(path: &Path) -> Option<csv::Reader<BufReader<File>>> {
    let file = File::open(path).ok()?;
    Some(
        csv::ReaderBuilder::new()
            .flexible(true)
            .from_reader(BufReader::with_capacity(1 << 16, file)),
    )
}

/// The files of a site folder compare reads, with the columns it needs of each.
const NEEDED: [(&str, &[&str]); 3] = [
    ("nodes.csv", &["Id", "Label", "Level", "ContentHash"]),
    ("edges.csv", &["Source", "Target", "Weight"]),
    ("external_links.csv", &["Source", "Url", "Host", "Anchor"]),
];

/// Why a site's files cannot be compared: `file:line: what`.
pub(crate) type Unreadable = String;

fn at(path: &Path, line: u64, why: &str) -> Unreadable {
    format!("{}:{line}: {why}", path.display())
}

fn row_error(path: &Path, e: &csv::Error) -> Unreadable {
    at(
        path,
        e.position().map_or(0, csv::Position::line),
        &e.to_string(),
    )
}

/// The header of `path` (`None`: no such file — an unreachable site has none), each column
/// `names` needs found in it.
fn header<const N: usize>(
    path: &Path,
    rdr: &mut csv::Reader<BufReader<File>>,
    names: [&str; N],
) -> Result<[usize; N], Unreadable> {
    let header = rdr.headers().map_err(|e| row_error(path, &e))?.clone();
    let mut found = [0; N];
    for (slot, name) in found.iter_mut().zip(names) {
        *slot = header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| at(path, 1, &format!("no {name} column")))?;
    }
    Ok(found)
}

/// Checks that the files of site folder `folder` that exist have the columns compare needs,
/// before anything is written.
pub(crate) fn check(folder: &Path) -> Result<(), Unreadable> {
    for (name, columns) in NEEDED {
        let path = folder.join(name);
        let Some(mut rdr) = reader(&path) else {
            continue;
        };
        let header = rdr.headers().map_err(|e| row_error(&path, &e))?.clone();
        if let Some(missing) = columns.iter().find(|c| !header.iter().any(|h| h == **c)) {
            return Err(at(&path, 1, &format!("no {missing} column")));
        }
    }
    Ok(())
}

/// Reads the site folder `folder`. A missing file (an unreachable site has none) reads as
/// empty; a file without the columns compare needs, a row that does not read, or an arc or
/// link from a page nodes.csv lacks is an error naming the file and line.
pub(crate) fn read(folder: &Path) -> Result<Snapshot, Unreadable> {
    let mut s = Snapshot::default();
    let ids = read_nodes(folder, &mut s)?;
    read_edges(folder, &ids, &mut s)?;
    read_external(folder, &ids, &mut s)?;
    Ok(s)
}

/// The page of nodes.csv Id `v` (a field of `r` at `line` of `path`).
fn page_of(ids: &HashMap<u64, u32>, v: &str, path: &Path, line: u64) -> Result<u32, Unreadable> {
    v.trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| ids.get(&n).copied())
        .ok_or_else(|| at(path, line, &format!("{v:?} is no Id of nodes.csv")))
}

fn read_nodes(folder: &Path, s: &mut Snapshot) -> Result<HashMap<u64, u32>, Unreadable> {
    let mut ids = HashMap::new();
    let path = folder.join("nodes.csv");
    let Some(mut rdr) = reader(&path) else {
        return Ok(ids);
    };
    let [id, label, level, hash] =
        header(&path, &mut rdr, ["Id", "Label", "Level", "ContentHash"])?;
    let text_hash = rdr
        .headers()
        .map_err(|e| row_error(&path, &e))?
        .iter()
        .position(|h| h == "TextHash");
    for r in rdr.records() {
        let r = r.map_err(|e| row_error(&path, &e))?;
        let line = r.position().map_or(0, csv::Position::line);
        let n = r
            .get(id)
            .and_then(|v| v.trim().parse::<u64>().ok())
            .ok_or_else(|| at(&path, line, "Id is not a number"))?;
        let text = |i: Option<usize>| {
            let raw = i.and_then(|i| r.get(i)).unwrap_or("");
            gephi_unescape(raw).unwrap_or_else(|_| raw.to_owned())
        };
        let level = match r.get(level).map(str::trim).unwrap_or("") {
            // An orphan from a sitemap has no level.
            "" => None,
            v => Some(
                v.parse()
                    .map_err(|_| at(&path, line, &format!("Level {v:?} is not a number")))?,
            ),
        };
        if ids.insert(n, s.pages.len() as u32).is_some() {
            return Err(at(&path, line, &format!("Id {n} twice")));
        }
        s.pages.push(Page {
            url: text(Some(label)),
            level,
            hash: text(Some(hash)),
            text: text(text_hash),
        });
    }
    Ok(ids)
}

fn read_edges(folder: &Path, ids: &HashMap<u64, u32>, s: &mut Snapshot) -> Result<(), Unreadable> {
    let path = folder.join("edges.csv");
    let Some(mut rdr) = reader(&path) else {
        return Ok(());
    };
    let [src, dst, weight] = header(&path, &mut rdr, ["Source", "Target", "Weight"])?;
    for r in rdr.records() {
        let r = r.map_err(|e| row_error(&path, &e))?;
        let line = r.position().map_or(0, csv::Position::line);
        let field = |i: usize| r.get(i).unwrap_or("");
        let a = page_of(ids, field(src), &path, line)?;
        let b = page_of(ids, field(dst), &path, line)?;
        let w = field(weight).trim().parse().map_err(|_| {
            at(
                &path,
                line,
                &format!("Weight {:?} is not a number", field(weight)),
            )
        })?;
        s.arcs.push((a, b, w));
    }
    Ok(())
}

fn read_external(
    folder: &Path,
    ids: &HashMap<u64, u32>,
    s: &mut Snapshot,
) -> Result<(), Unreadable> {
    let path = folder.join("external_links.csv");
    let Some(mut rdr) = reader(&path) else {
        return Ok(());
    };
    let [src, url, host, anchor] = header(&path, &mut rdr, ["Source", "Url", "Host", "Anchor"])?;
    for r in rdr.records() {
        let r = r.map_err(|e| row_error(&path, &e))?;
        let line = r.position().map_or(0, csv::Position::line);
        let text = |i: usize| r.get(i).unwrap_or("").to_owned();
        s.external.push(External {
            page: page_of(ids, r.get(src).unwrap_or(""), &path, line)?,
            url: text(url),
            host: text(host),
            anchor: text(anchor),
        });
    }
    Ok(())
}

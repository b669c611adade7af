//! The network's counts, from each target's external_links.csv in turn (SPEC §13): a link
//! goes to the first target whose scope takes its host in, else to the accompanying site of
//! its unit — unless it stays in its own target (its scope, or its own unit: `www.uni.edu`
//! linking `lib.uni.edu` is the university talking to itself). One target's links are read,
//! counted and folded in before the next one's: what is kept is a few counts per site of the
//! network and per arc, never a site's pages.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::NetworkError;
use super::spill::{Arcs, Spill};
use super::targets::TargetSet;
use super::unit::Unit;

/// A site of the network while counting: a target (its index) or an accompanying site (its
/// index among them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum NodeKey {
    Target(u32),
    Accompanying(u32),
}

/// Links into one site of the network.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Inbound {
    /// Distinct targets linking to it.
    pub targets: u32,
    /// Links from target pages (repeats counted).
    pub links: u64,
    /// Distinct target pages linking to it.
    pub pages: u64,
}

/// One arc: a target's links to one site of the network. 20 bytes: a crawl of 4,000 sites
/// has 630,000 of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Arc {
    pub(super) source: u32,
    /// The site linked, as [`NodeKey::code`] writes it.
    pub(super) target: u32,
    /// Links (saturating).
    pub(super) weight: u32,
    /// Distinct linking pages of the source (saturating).
    pub(super) pages: u32,
    /// Links carrying `nofollow`, `ugc` or `sponsored` (saturating; SPEC §17).
    pub(super) nofollow: u32,
}

/// The bit of [`NodeKey::code`] that marks an accompanying site.
const ACCOMPANYING: u32 = 1 << 31;

impl NodeKey {
    /// The key in 32 bits: a target's index, or an accompanying site's with the top bit set.
    pub(super) fn code(self) -> u32 {
        match self {
            NodeKey::Target(i) => i,
            NodeKey::Accompanying(i) => i | ACCOMPANYING,
        }
    }

    /// The key [`Self::code`] wrote.
    pub(super) fn from_code(code: u32) -> Self {
        if code & ACCOMPANYING == 0 {
            NodeKey::Target(code)
        } else {
            NodeKey::Accompanying(code & !ACCOMPANYING)
        }
    }
}

/// What the links of every target came to.
#[derive(Debug)]
pub(super) struct Counts {
    /// Accompanying sites' names (their units), by index.
    pub(super) units: Vec<String>,
    /// Inbound counts of targets, by index.
    pub(super) into_targets: Vec<Inbound>,
    /// Inbound counts of accompanying sites, by index.
    pub(super) into_units: Vec<Inbound>,
    /// Each target's arcs out: how many, and their links.
    pub(super) out: Vec<(u32, u64)>,
    /// With prospects asked for: per accompanying site, how often each `scheme://host` was
    /// linked (its home page for the next round).
    pub(super) homes: Option<Vec<HashMap<String, u64>>>,
    /// Per target: the hosts of its pages, sorted, `;`-separated.
    pub(super) target_hosts: Vec<String>,
    /// Per accompanying site: the hosts linked, sorted (most sites have one).
    pub(super) unit_hosts: Vec<Vec<String>>,
}

/// Where one link of target `t` (whose own unit is `own_unit`) leads in the network: another
/// target, an accompanying site (its unit), or nowhere (it stays in its own target).
pub(super) enum Linked<'h> {
    /// Another target, by index.
    Target(usize),
    /// An accompanying site: its unit.
    Unit(&'h str),
}

/// Rules 1–3 of SPEC §13 for a link of target `t` to `host`.
pub(super) fn classify<'h>(
    set: &TargetSet,
    t: usize,
    own_unit: &str,
    unit: Unit,
    host: &'h str,
) -> Option<Linked<'h>> {
    match set.taking(host) {
        Some(t2) if t2 == t => None,
        Some(t2) => Some(Linked::Target(t2)),
        None => {
            let u = unit.of(host);
            (u != own_unit).then_some(Linked::Unit(u))
        }
    }
}

/// Counts the links of every target of `set` (its results folder `results`).
pub(super) fn count(
    results: &Path,
    set: &TargetSet,
    unit: Unit,
    homes: bool,
) -> Result<(Counts, Arcs), NetworkError> {
    let mut counts = Counts {
        units: Vec::new(),
        into_targets: vec![Inbound::default(); set.targets.len()],
        into_units: Vec::new(),
        out: vec![(0, 0); set.targets.len()],
        homes: homes.then(Vec::new),
        target_hosts: Vec::with_capacity(set.targets.len()),
        unit_hosts: Vec::new(),
    };
    let spilled = |source: std::io::Error| NetworkError::Write {
        path: results.to_path_buf(),
        source,
    };
    let mut spill = Spill::new(results).map_err(spilled)?;
    let mut index: HashMap<String, u32> = HashMap::new();
    // One target's links: links and nofollow links by node, and its (node, page) pairs.
    let mut links: HashMap<NodeKey, (u64, u64)> = HashMap::new();
    let mut pages: HashSet<(NodeKey, u64)> = HashSet::new();
    let mut order: Vec<NodeKey> = Vec::new();
    for (t, target) in set.targets.iter().enumerate() {
        let source = u32::try_from(t).unwrap_or(u32::MAX);
        let own_unit = unit.of(&target.host).to_owned();
        let folder = results.join(&target.folder);
        counts
            .target_hosts
            .push(page_hosts(&folder.join("nodes.csv"), &target.host)?);
        let path = folder.join("external_links.csv");
        read_links(&path, &mut |page, url, host, nofollow| {
            let key = match classify(set, t, &own_unit, unit, host) {
                None => return,
                Some(Linked::Target(t2)) => NodeKey::Target(u32::try_from(t2).unwrap_or(u32::MAX)),
                Some(Linked::Unit(u)) => {
                    let next = u32::try_from(index.len()).unwrap_or(u32::MAX);
                    let i = *index.entry(u.to_owned()).or_insert_with(|| {
                        counts.units.push(u.to_owned());
                        counts.into_units.push(Inbound::default());
                        counts.unit_hosts.push(Vec::new());
                        if let Some(h) = counts.homes.as_mut() {
                            h.push(HashMap::new());
                        }
                        next
                    });
                    if let Some(h) = counts.homes.as_mut() {
                        *h[i as usize].entry(home_of(url, host)).or_insert(0) += 1;
                    }
                    let hosts = &mut counts.unit_hosts[i as usize];
                    if let Err(at) = hosts.binary_search_by(|h| h.as_str().cmp(host)) {
                        hosts.insert(at, host.to_owned());
                    }
                    NodeKey::Accompanying(i)
                }
            };
            let n = links.entry(key).or_insert((0, 0));
            if n.0 == 0 {
                order.push(key);
            }
            n.0 += 1;
            n.1 += u64::from(nofollow);
            pages.insert((key, page));
        })?;
        let mut per_node: HashMap<NodeKey, u64> = HashMap::with_capacity(links.len());
        for (key, _) in pages.drain() {
            *per_node.entry(key).or_insert(0) += 1;
        }
        for key in order.drain(..) {
            let (weight, nofollow) = links.get(&key).copied().unwrap_or((0, 0));
            let distinct = per_node.get(&key).copied().unwrap_or(0);
            let into = match key {
                NodeKey::Target(i) => &mut counts.into_targets[i as usize],
                NodeKey::Accompanying(i) => &mut counts.into_units[i as usize],
            };
            into.targets += 1;
            into.links += weight;
            into.pages += distinct;
            counts.out[t].0 += 1;
            counts.out[t].1 += weight;
            spill
                .push(Arc {
                    source,
                    target: key.code(),
                    weight: u32::try_from(weight).unwrap_or(u32::MAX),
                    pages: u32::try_from(distinct).unwrap_or(u32::MAX),
                    nofollow: u32::try_from(nofollow).unwrap_or(u32::MAX),
                })
                .map_err(spilled)?;
        }
        links.clear();
    }
    let arcs = spill.finish().map_err(spilled)?;
    Ok((counts, arcs))
}

/// The hosts of a target's pages (nodes.csv's `Host`, or its `Label`'s host), sorted and
/// `;`-separated; `listed` (its listed site's host) when it has no page.
pub(super) fn page_hosts(path: &Path, listed: &str) -> Result<String, NetworkError> {
    let Ok(mut rdr) = csv::Reader::from_path(path) else {
        return Ok(listed.to_owned());
    };
    let bad = |line: u64, why: String| NetworkError::Input {
        path: path.to_path_buf(),
        line,
        why,
    };
    let header = rdr.headers().map_err(|e| bad(1, e.to_string()))?.clone();
    let host = header.iter().position(|h| h == "Host");
    let label = header.iter().position(|h| h == "Label");
    let mut hosts = std::collections::BTreeSet::new();
    for r in rdr.records() {
        let r = r.map_err(|e| bad(e.position().map_or(0, csv::Position::line), e.to_string()))?;
        let h = match (host, label) {
            (Some(i), _) => r.get(i).map(str::to_owned),
            (None, Some(i)) => r
                .get(i)
                .and_then(|u| url::Url::parse(u).ok())
                .and_then(|u| u.host_str().map(str::to_owned)),
            (None, None) => None,
        };
        if let Some(h) = h.filter(|h| !h.is_empty()) {
            hosts.insert(h);
        }
    }
    if hosts.is_empty() {
        hosts.insert(listed.to_owned());
    }
    Ok(hosts.into_iter().collect::<Vec<_>>().join(";"))
}

/// `scheme://host` of a linked URL (its host as external_links.csv names it).
fn home_of(url: &str, host: &str) -> String {
    let scheme = if url
        .get(..6)
        .is_some_and(|s| s.eq_ignore_ascii_case("https:"))
    {
        "https"
    } else {
        "http"
    };
    format!("{scheme}://{host}")
}

/// Calls `each(page, url, host, nofollow)` for every row of an external_links.csv (`nofollow`:
/// its `Rel` names a qualifier; a file written before the column has none). A missing file
/// (a site with no page has none) has no rows; a row without its three first fields, or with
/// a `Source` that is not a page id, is an error naming the file and line.
pub(super) fn read_links(
    path: &Path,
    each: &mut dyn FnMut(u64, &str, &str, bool),
) -> Result<(), NetworkError> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(NetworkError::Input {
                path: path.to_path_buf(),
                line: 0,
                why: e.to_string(),
            });
        }
    };
    let bad = |line: u64, why: String| NetworkError::Input {
        path: path.to_path_buf(),
        line,
        why,
    };
    // Every row rccrawler writes ends with a line end: a file that does not was cut short
    // (a copy interrupted, a disk full), even where its last row still parses.
    let complete = ends_with_line_end(&file).map_err(|e| bad(0, e.to_string()))?;
    let mut rdr = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(std::io::BufReader::with_capacity(1 << 16, file));
    let header = rdr.headers().map_err(|e| bad(1, e.to_string()))?.clone();
    if header.get(0) != Some("Source")
        || header.get(1) != Some("Url")
        || header.get(2) != Some("Host")
    {
        return Err(bad(
            1,
            "not an external_links.csv (no Source,Url,Host header)".into(),
        ));
    }
    let width = header.len();
    let rel = header.iter().position(|h| h == "Rel");
    let mut row = csv::StringRecord::new();
    let mut last_line = 1;
    loop {
        match rdr.read_record(&mut row) {
            Ok(false) if complete => return Ok(()),
            Ok(false) => {
                return Err(bad(
                    last_line,
                    "the file ends inside this row (truncated)".into(),
                ));
            }
            Ok(true) => {}
            Err(e) => {
                let line = e.position().map_or(0, csv::Position::line);
                return Err(bad(line, format!("unreadable row: {e}")));
            }
        }
        let line = row.position().map_or(0, csv::Position::line);
        last_line = line;
        if row.len() != width {
            return Err(bad(
                line,
                format!(
                    "{} fields where the header has {width} (a truncated file?)",
                    row.len()
                ),
            ));
        }
        let page = row[0]
            .parse::<u64>()
            .ok()
            .filter(|&p| p >= 1)
            .ok_or_else(|| bad(line, format!("Source {:?} is not a page id", &row[0])))?;
        let nofollow = rel.is_some_and(|i| !row[i].is_empty());
        each(page, &row[1], &row[2], nofollow);
    }
}

/// Whether `file` is empty or its last byte is a line end.
fn ends_with_line_end(file: &std::fs::File) -> std::io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = file;
    let len = f.seek(SeekFrom::End(0))?;
    if len == 0 {
        return Ok(true);
    }
    f.seek(SeekFrom::End(-1))?;
    let mut last = [0u8];
    f.read_exact(&mut last)?;
    f.seek(SeekFrom::Start(0))?;
    Ok(last[0] == b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (page, host, nofollow) of every row of `text` as external_links.csv.
    fn rows(text: &str) -> Vec<(u64, String, bool)> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("external_links.csv");
        std::fs::write(&path, text).unwrap();
        let mut out = Vec::new();
        read_links(&path, &mut |page, _, host, nofollow| {
            out.push((page, host.to_owned(), nofollow))
        })
        .unwrap();
        out
    }

    // See: issue 53 — Rel says which links carry nofollow, ugc or sponsored; a file written
    // before the column (a results folder of an earlier rccrawler) still builds a network,
    // every link counted as followed.
    #[test]
    fn rel_marks_nofollow_links_and_a_file_without_it_still_reads() {
        let with = "Source,Url,Host,Anchor,Context,Rel\n\
                    1,http://b.test/,b.test,B,,nofollow\n\
                    2,http://c.test/,c.test,C,,\n\
                    2,http://c.test/,c.test,C,,ugc sponsored\n";
        assert_eq!(
            rows(with),
            [
                (1, "b.test".to_owned(), true),
                (2, "c.test".to_owned(), false),
                (2, "c.test".to_owned(), true)
            ]
        );
        let without = "Source,Url,Host,Anchor\n1,http://b.test/,b.test,nofollow\n";
        assert_eq!(rows(without), [(1, "b.test".to_owned(), false)]);
    }
}

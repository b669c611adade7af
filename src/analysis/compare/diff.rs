//! What changed in one site between two crawls. Pages are matched by normalized URL, then —
//! among the pages only one crawl has — by content hash: the same content at a new URL is a
//! page renamed, not one removed and one added. Arcs and external links are matched through
//! that pairing, so an arc into a renamed page is the same arc.

use hashbrown::HashMap;

use super::snapshot::{Page, Snapshot};

/// How a page changed (pages.csv `Change`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Change {
    /// Only in the newer crawl.
    Added,
    /// Only in the older crawl.
    Removed,
    /// Same URL, other content hash.
    Changed,
    /// Same content at another URL.
    Renamed,
    /// Same URL and content, another level.
    Level,
}

impl Change {
    /// As pages.csv writes it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Changed => "changed",
            Change::Renamed => "renamed",
            Change::Level => "level",
        }
    }
}

/// A page that changed: its index in the older snapshot, the newer, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PageChange {
    pub(crate) change: Change,
    pub(crate) old: Option<u32>,
    pub(crate) new: Option<u32>,
}

/// How an arc changed (arcs.csv `Change`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArcChange {
    /// Only in the newer crawl: `(source, target, weight)` in the newer snapshot.
    Added((u32, u32, u64)),
    /// Only in the older crawl, in the older snapshot.
    Removed((u32, u32, u64)),
    /// In both with another weight: the newer arc and the older weight.
    Reweighted((u32, u32, u64), u64),
}

/// An external link added (index into the newer snapshot's) or removed (the older's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExternalChange {
    Added(u32),
    Removed(u32),
}

/// What changed in a site.
#[derive(Debug, Clone, Default)]
pub(crate) struct SiteDiff {
    /// Pages that changed: the newer crawl's in its order, then the removed ones.
    pub(crate) pages: Vec<PageChange>,
    /// Pages in both, same content and level.
    pub(crate) unchanged: u64,
    /// Matched pages whose level changed (whatever else changed).
    pub(crate) moved: u64,
    pub(crate) arcs: Vec<ArcChange>,
    pub(crate) external: Vec<ExternalChange>,
    /// For each page of the older crawl, the newer page it is (by URL or renamed).
    pub(crate) old_to_new: Vec<Option<u32>>,
}

impl SiteDiff {
    /// Pages whose change is `c`.
    pub(crate) fn count(&self, c: Change) -> u64 {
        self.pages.iter().filter(|p| p.change == c).count() as u64
    }

    /// Arcs added, removed and reweighted.
    pub(crate) fn arc_counts(&self) -> [u64; 3] {
        let mut n = [0; 3];
        for a in &self.arcs {
            n[match a {
                ArcChange::Added(_) => 0,
                ArcChange::Removed(_) => 1,
                ArcChange::Reweighted(..) => 2,
            }] += 1;
        }
        n
    }

    /// External links added and removed.
    pub(crate) fn external_counts(&self) -> [u64; 2] {
        let added = self
            .external
            .iter()
            .filter(|e| matches!(e, ExternalChange::Added(_)))
            .count() as u64;
        [added, self.external.len() as u64 - added]
    }
}

/// A page across the two crawls: the newer crawl's index, or an older page with no newer one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    New(u32),
    Old(u32),
}

/// Compares site snapshot `old` with `new`.
pub(crate) fn diff(old: &Snapshot, new: &Snapshot) -> SiteDiff {
    let mut d = SiteDiff {
        old_to_new: vec![None; old.pages.len()],
        ..SiteDiff::default()
    };
    let by_url: HashMap<&str, u32> = old
        .pages
        .iter()
        .enumerate()
        .map(|(i, p)| (p.url.as_str(), i as u32))
        .collect();
    let mut new_only = Vec::new();
    for (n, page) in new.pages.iter().enumerate() {
        let n = n as u32;
        let Some(&o) = by_url.get(page.url.as_str()) else {
            new_only.push(n);
            continue;
        };
        d.old_to_new[o as usize] = Some(n);
        let was = &old.pages[o as usize];
        let moved = was.level != page.level;
        d.moved += u64::from(moved);
        // A hash one crawl did not write is unknown, not changed.
        let changed = was.same_content(page) == Some(false);
        let change = if changed {
            Change::Changed
        } else if moved {
            Change::Level
        } else {
            d.unchanged += 1;
            continue;
        };
        d.pages.push(PageChange {
            change,
            old: Some(o),
            new: Some(n),
        });
    }
    // Pages only the older crawl has, by content — the same bytes, then (a dynamic site) the
    // same text: each newer-only page with the same content takes the first of them (in the
    // older crawl's order).
    let mut renamed = HashMap::new();
    let keys: [fn(&Page) -> &str; 2] = [|p| p.hash.as_str(), |p| p.text.as_str()];
    for key in keys {
        let mut by_key: HashMap<&str, std::collections::VecDeque<u32>> = HashMap::new();
        for (o, page) in old.pages.iter().enumerate() {
            if d.old_to_new[o].is_none() && !key(page).is_empty() {
                by_key.entry(key(page)).or_default().push_back(o as u32);
            }
        }
        for &n in &new_only {
            if renamed.contains_key(&n) {
                continue;
            }
            let wanted = key(&new.pages[n as usize]);
            if let Some(o) = by_key.get_mut(wanted).and_then(|q| q.pop_front()) {
                d.old_to_new[o as usize] = Some(n);
                renamed.insert(n, o);
                d.moved += u64::from(old.pages[o as usize].level != new.pages[n as usize].level);
            }
        }
    }
    // The newer crawl's pages in its order: changed ones above, renamed and added ones here.
    let mut changes: Vec<PageChange> = std::mem::take(&mut d.pages);
    changes.extend(new_only.iter().map(|&n| match renamed.get(&n) {
        Some(&o) => PageChange {
            change: Change::Renamed,
            old: Some(o),
            new: Some(n),
        },
        None => PageChange {
            change: Change::Added,
            old: None,
            new: Some(n),
        },
    }));
    changes.sort_by_key(|c| c.new);
    changes.extend(
        d.old_to_new
            .iter()
            .enumerate()
            .filter(|(_, m)| m.is_none())
            .map(|(o, _)| PageChange {
                change: Change::Removed,
                old: Some(o as u32),
                new: None,
            }),
    );
    d.pages = changes;
    d.arcs = arcs(old, new, &d.old_to_new);
    d.external = external(old, new, &d.old_to_new);
    d
}

fn old_key(old_to_new: &[Option<u32>], o: u32) -> Key {
    old_to_new[o as usize].map_or(Key::Old(o), Key::New)
}

fn arcs(old: &Snapshot, new: &Snapshot, old_to_new: &[Option<u32>]) -> Vec<ArcChange> {
    let mut was: HashMap<(Key, Key), (u64, bool)> = old
        .arcs
        .iter()
        .map(|&(a, b, w)| ((old_key(old_to_new, a), old_key(old_to_new, b)), (w, false)))
        .collect();
    let mut out = Vec::new();
    for &(a, b, w) in &new.arcs {
        match was.get_mut(&(Key::New(a), Key::New(b))) {
            Some((before, seen)) => {
                *seen = true;
                if *before != w {
                    out.push(ArcChange::Reweighted((a, b, w), *before));
                }
            }
            None => out.push(ArcChange::Added((a, b, w))),
        }
    }
    for &(a, b, w) in &old.arcs {
        let key = (old_key(old_to_new, a), old_key(old_to_new, b));
        if was.get(&key).is_some_and(|(_, seen)| !seen) {
            out.push(ArcChange::Removed((a, b, w)));
        }
    }
    out
}

fn external(old: &Snapshot, new: &Snapshot, old_to_new: &[Option<u32>]) -> Vec<ExternalChange> {
    let mut was: HashMap<(Key, &str, &str), u32> = HashMap::new();
    for e in &old.external {
        *was.entry((old_key(old_to_new, e.page), &e.url, &e.anchor))
            .or_default() += 1;
    }
    let mut out = Vec::new();
    for (i, e) in new.external.iter().enumerate() {
        match was.get_mut(&(Key::New(e.page), e.url.as_str(), e.anchor.as_str())) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(ExternalChange::Added(i as u32)),
        }
    }
    for (i, e) in old.external.iter().enumerate() {
        if let Some(n) = was.get_mut(&(
            old_key(old_to_new, e.page),
            e.url.as_str(),
            e.anchor.as_str(),
        )) && *n > 0
        {
            *n -= 1;
            out.push(ExternalChange::Removed(i as u32));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::snapshot::{External, Page};
    use super::*;

    fn page(url: &str, level: u32, hash: &str) -> Page {
        Page {
            url: url.into(),
            level: Some(level),
            hash: hash.into(),
            text: String::new(),
        }
    }

    fn ext(page: u32, url: &str) -> External {
        External {
            page,
            url: url.into(),
            host: "x.test".into(),
            anchor: "x".into(),
        }
    }

    #[test]
    fn every_kind_of_change() {
        let old = Snapshot {
            pages: vec![
                page("/", 0, "h0"),
                page("/same", 1, "s"),
                page("/edit", 1, "e1"),
                page("/deep", 1, "d"),
                page("/old-name", 1, "r"),
                page("/gone", 1, "g"),
            ],
            arcs: vec![(0, 1, 1), (0, 2, 2), (0, 4, 1), (0, 5, 1)],
            external: vec![ext(1, "http://x.test/a"), ext(5, "http://x.test/g")],
        };
        let new = Snapshot {
            pages: vec![
                page("/", 0, "h0"),
                page("/same", 1, "s"),
                page("/edit", 1, "e2"),
                page("/new-name", 1, "r"),
                page("/deep", 2, "d"),
                page("/fresh", 1, "f"),
            ],
            arcs: vec![(0, 1, 1), (0, 2, 3), (0, 3, 1), (3, 4, 1), (0, 5, 1)],
            external: vec![ext(1, "http://x.test/a"), ext(5, "http://x.test/f")],
        };
        let d = diff(&old, &new);
        let got: Vec<_> = d.pages.iter().map(|p| (p.change, p.old, p.new)).collect();
        assert_eq!(
            got,
            vec![
                (Change::Changed, Some(2), Some(2)),
                (Change::Renamed, Some(4), Some(3)),
                (Change::Level, Some(3), Some(4)),
                (Change::Added, None, Some(5)),
                (Change::Removed, Some(5), None),
            ]
        );
        assert_eq!((d.unchanged, d.moved), (2, 1));
        // The arc into the renamed page is the same arc; /gone's is removed.
        assert_eq!(
            d.arcs,
            vec![
                ArcChange::Reweighted((0, 2, 3), 2),
                ArcChange::Added((3, 4, 1)),
                ArcChange::Added((0, 5, 1)),
                ArcChange::Removed((0, 5, 1)),
            ]
        );
        assert_eq!(
            d.external,
            vec![ExternalChange::Added(1), ExternalChange::Removed(1)]
        );
        assert_eq!(d.arc_counts(), [2, 1, 1]);
    }

    // A dynamic site: bytes differ on every answer, the text does not.
    #[test]
    fn the_same_text_is_the_same_page_and_a_moved_one_is_renamed() {
        let with_text = |url: &str, hash: &str, text: &str| Page {
            text: text.into(),
            ..page(url, 1, hash)
        };
        let old = Snapshot {
            pages: vec![with_text("/", "h1", "t0"), with_text("/old", "h2", "t1")],
            ..Snapshot::default()
        };
        let new = Snapshot {
            pages: vec![with_text("/", "h3", "t0"), with_text("/new", "h4", "t1")],
            ..Snapshot::default()
        };
        let d = diff(&old, &new);
        let got: Vec<_> = d.pages.iter().map(|p| (p.change, p.old, p.new)).collect();
        assert_eq!(got, vec![(Change::Renamed, Some(1), Some(1))]);
        assert_eq!(d.unchanged, 1);
    }

    #[test]
    fn repeated_links_count_and_unknown_hashes_are_not_changes() {
        let mut old = Snapshot {
            pages: vec![page("/", 0, "")],
            ..Snapshot::default()
        };
        old.external = vec![ext(0, "http://x.test/a"); 2];
        let mut new = Snapshot {
            pages: vec![page("/", 0, "h")],
            ..Snapshot::default()
        };
        new.external = vec![ext(0, "http://x.test/a"); 3];
        let d = diff(&old, &new);
        assert!(d.pages.is_empty());
        assert_eq!(d.external, vec![ExternalChange::Added(2)]);
    }
}

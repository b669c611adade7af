//! The change files of two crawls — sites.csv, pages.csv, arcs.csv, external.csv, renamed.csv —
//! written a site at a time into temporary files, renamed into place once every site is in (a
//! reader never sees half a file).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::comparable::Verdict;
use super::diff::{ArcChange, Change, ExternalChange, SiteDiff};
use super::snapshot::Snapshot;
use crate::analysis::report::SummaryRow;
use crate::formats::gephi_csv::CsvOut;

/// sites.csv's columns.
pub(crate) const SITES_HEADER: &[&str] = &[
    "Site",
    "Comparable",
    "Notes",
    "OldState",
    "NewState",
    "OldPages",
    "NewPages",
    "PagesChange",
    "OldArcs",
    "NewArcs",
    "ArcsChange",
    "OldExternalLinks",
    "NewExternalLinks",
    "ExternalLinksChange",
    "OldBadLinks",
    "NewBadLinks",
    "BadLinksChange",
    "Unchanged",
    "Added",
    "Removed",
    "Changed",
    "Renamed",
    "Moved",
    "ArcsAdded",
    "ArcsRemoved",
    "ArcsReweighted",
    "ExternalAdded",
    "ExternalRemoved",
];
/// pages.csv's columns (SPEC §16's).
pub(crate) const PAGES_HEADER: &[&str] = &[
    "Site", "Url", "Change", "OldLevel", "NewLevel", "OldHash", "NewHash",
];
/// renamed.csv's columns: where each renamed page was, and what matched it (`bytes`: its
/// ContentHash, `text`: its TextHash).
pub(crate) const RENAMED_HEADER: &[&str] = &["Site", "OldUrl", "NewUrl", "By"];
/// arcs.csv's columns (pages by URL: ids differ between crawls).
pub(crate) const ARCS_HEADER: &[&str] = &[
    "Site",
    "Source",
    "Target",
    "Change",
    "OldWeight",
    "NewWeight",
];
/// external.csv's columns.
pub(crate) const EXTERNAL_HEADER: &[&str] = &["Site", "Page", "Url", "Host", "Anchor", "Change"];

const FILES: [(&str, &[&str]); 5] = [
    ("sites.csv", SITES_HEADER),
    ("pages.csv", PAGES_HEADER),
    ("arcs.csv", ARCS_HEADER),
    ("external.csv", EXTERNAL_HEADER),
    ("renamed.csv", RENAMED_HEADER),
];

/// A site of the two crawls, compared.
#[derive(Debug)]
pub(crate) struct PairSite<'a> {
    pub(crate) site: &'a str,
    pub(crate) verdict: Verdict,
    pub(crate) notes: &'a [String],
    /// Its summary.csv rows in the older and the newer crawl.
    pub(crate) rows: (Option<&'a SummaryRow>, Option<&'a SummaryRow>),
    pub(crate) old: &'a Snapshot,
    pub(crate) new: &'a Snapshot,
    /// What changed (none when one crawl does not list the site).
    pub(crate) diff: Option<&'a SiteDiff>,
}

/// The four files of one comparison being written.
#[derive(Debug)]
pub(crate) struct PairFiles {
    dir: PathBuf,
    files: Vec<(PathBuf, BufWriter<File>)>,
}

impl PairFiles {
    /// Starts the files in `dir` (created).
    pub(crate) fn create(dir: &Path) -> io::Result<PairFiles> {
        std::fs::create_dir_all(dir)?;
        let mut files = Vec::new();
        for (name, header) in FILES {
            let tmp = dir.join(format!(".{name}.tmp"));
            let mut w = BufWriter::with_capacity(1 << 16, File::create(&tmp)?);
            CsvOut::plain(&mut w, header)?.finish()?;
            files.push((tmp, w));
        }
        Ok(PairFiles {
            dir: dir.to_owned(),
            files,
        })
    }

    /// Appends a site's rows (from [`rows`]).
    pub(crate) fn append(&mut self, rows: &SiteRows) -> io::Result<()> {
        for ((_, w), bytes) in self.files.iter_mut().zip(&rows.0) {
            w.write_all(bytes)?;
        }
        Ok(())
    }

    /// Renames the files into place.
    pub(crate) fn finish(self) -> io::Result<()> {
        // Not synced, as every file of a comparison (see `write_file`).
        for ((tmp, mut w), (name, _)) in self.files.into_iter().zip(FILES) {
            w.flush()?;
            std::fs::rename(tmp, self.dir.join(name))?;
        }
        Ok(())
    }
}

/// A site's rows of the four files, in their order.
#[derive(Debug, Default)]
pub(crate) struct SiteRows([Vec<u8>; 5]);

/// A site's rows (sites, sites with workers side by side, appended in order after).
pub(crate) fn rows(s: &PairSite<'_>) -> io::Result<SiteRows> {
    let mut r = SiteRows::default();
    let [sites, pages, arcs, external, renamed] = &mut r.0;
    site_row(sites, s)?;
    if let Some(d) = s.diff {
        page_rows(pages, s, d)?;
        renamed_rows(renamed, s, d)?;
        arc_rows(arcs, s, d)?;
        external_rows(external, s, d)?;
    }
    Ok(r)
}

fn opt_num(o: &mut CsvOut<'_>, n: Option<impl itoa::Integer>) -> io::Result<()> {
    match n {
        Some(n) => o.num(n)?,
        None => o.empty()?,
    };
    Ok(())
}

fn site_row(w: &mut dyn Write, s: &PairSite<'_>) -> io::Result<()> {
    let mut o = CsvOut::plain_rows(w);
    let (was, is) = s.rows;
    let state = |r: Option<&SummaryRow>| r.map_or("absent", |r| r.state.as_str()).to_owned();
    o.text(s.site)?
        .text(s.verdict.as_str())?
        .text(&s.notes.join("; "))?
        .text(&state(was))?
        .text(&state(is))?;
    let figures: [fn(&SummaryRow) -> u64; 4] = [
        |r| r.pages,
        |r| r.arcs,
        |r| r.external_links,
        |r| r.bad_links,
    ];
    for f in figures {
        let (a, b) = (was.map(f), is.map(f));
        opt_num(&mut o, a)?;
        opt_num(&mut o, b)?;
        let change = a.zip(b).map(|(a, b)| b as i64 - a as i64);
        opt_num(&mut o, change)?;
    }
    match s.diff {
        Some(d) => {
            o.num(d.unchanged)?;
            for c in [
                Change::Added,
                Change::Removed,
                Change::Changed,
                Change::Renamed,
            ] {
                o.num(d.count(c))?;
            }
            o.num(d.moved)?;
            for n in d.arc_counts().into_iter().chain(d.external_counts()) {
                o.num(n)?;
            }
        }
        None => {
            for _ in 0..11 {
                o.empty()?;
            }
        }
    }
    o.end()?;
    o.finish()
}

fn page_rows(w: &mut dyn Write, s: &PairSite<'_>, d: &SiteDiff) -> io::Result<()> {
    let mut o = CsvOut::plain_rows(w);
    for c in &d.pages {
        let old = c.old.map(|i| &s.old.pages[i as usize]);
        let new = c.new.map(|i| &s.new.pages[i as usize]);
        let url = new.or(old).map_or("", |p| p.url.as_str());
        o.text(s.site)?.text(url)?.text(c.change.as_str())?;
        opt_num(&mut o, old.and_then(|p| p.level))?;
        opt_num(&mut o, new.and_then(|p| p.level))?;
        o.text(old.map_or("", |p| p.hash.as_str()))?
            .text(new.map_or("", |p| p.hash.as_str()))?
            .end()?;
    }
    o.finish()
}

fn renamed_rows(w: &mut dyn Write, s: &PairSite<'_>, d: &SiteDiff) -> io::Result<()> {
    let mut o = CsvOut::plain_rows(w);
    for c in d.pages.iter().filter(|c| c.change == Change::Renamed) {
        let (Some(old), Some(new)) = (c.old, c.new) else {
            continue;
        };
        let (old, new) = (&s.old.pages[old as usize], &s.new.pages[new as usize]);
        let by = if old.hash == new.hash {
            "bytes"
        } else {
            "text"
        };
        o.text(s.site)?
            .text(&old.url)?
            .text(&new.url)?
            .text(by)?
            .end()?;
    }
    o.finish()
}

fn arc_rows(w: &mut dyn Write, s: &PairSite<'_>, d: &SiteDiff) -> io::Result<()> {
    let mut o = CsvOut::plain_rows(w);
    for a in &d.arcs {
        let (snap, (x, y, _), change, weights) = match *a {
            ArcChange::Added(arc) => (s.new, arc, "added", (None, Some(arc.2))),
            ArcChange::Removed(arc) => (s.old, arc, "removed", (Some(arc.2), None)),
            ArcChange::Reweighted(arc, was) => (s.new, arc, "reweighted", (Some(was), Some(arc.2))),
        };
        o.text(s.site)?
            .text(&snap.pages[x as usize].url)?
            .text(&snap.pages[y as usize].url)?
            .text(change)?;
        opt_num(&mut o, weights.0)?;
        opt_num(&mut o, weights.1)?;
        o.end()?;
    }
    o.finish()
}

fn external_rows(w: &mut dyn Write, s: &PairSite<'_>, d: &SiteDiff) -> io::Result<()> {
    let mut o = CsvOut::plain_rows(w);
    for e in &d.external {
        let (snap, i, change) = match *e {
            ExternalChange::Added(i) => (s.new, i, "added"),
            ExternalChange::Removed(i) => (s.old, i, "removed"),
        };
        let link = &snap.external[i as usize];
        o.text(s.site)?
            .text(&snap.pages[link.page as usize].url)?
            .text(&link.url)?
            .text(&link.host)?
            .text(&link.anchor)?
            .text(change)?
            .end()?;
    }
    o.finish()
}

//! `rccrawler compare A B [C…] --out DIR` (SPEC §16): two or more crawls of the same sites, in
//! time order, compared.
//!
//! - [`folder`] opens a results folder (summary.csv, the crawl record) and refuses what is not
//!   one, or one of a newer format;
//! - [`comparable`] says where two crawls cannot be compared (levels, URL filter, budget,
//!   duplicate rule, page limits), per site;
//! - [`snapshot`] reads one site of one crawl; [`diff`] compares two snapshots of a site;
//! - [`pair_files`] writes sites.csv, pages.csv, arcs.csv and external.csv;
//! - [`network_diff`] does the same for the network of sites;
//! - [`dynamic_gexf`] writes the dynamic GEXF Gephi's timeline plays;
//! - [`report`] writes report.html.
//!
//! The sites are compared one at a time, each crawl's snapshot of it read and dropped before
//! the next: two crawls of 4,000 sites are never both in memory. With more than two crawls,
//! DIR's files compare the first with the last, `DIR/steps/I-J/` each crawl with the next, and
//! the dynamic GEXF holds them all.

mod comparable;
mod diff;
mod dynamic_gexf;
mod folder;
mod network_diff;
mod page_lists;
mod pair_files;
mod report;
mod snapshot;

use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};

use comparable::{Notes, Verdict};
use diff::{Change, SiteDiff};
use folder::Crawl;
use pair_files::{PairFiles, PairSite, SiteRows};
use snapshot::Snapshot;

/// Why a comparison cannot be made (exit code 2: nothing written) or could not be written
/// (exit code 1).
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// A folder that is not a results folder of rccrawler.
    #[error("{}: {why}", folder.display())]
    NotResults {
        /// The folder.
        folder: PathBuf,
        /// What is missing or wrong.
        why: String,
    },
    /// A results folder written by a newer version.
    #[error(
        "{}: results format {format} (rccrawler {version}) is newer than this rccrawler reads (format {}); compare with rccrawler {version} or later",
        folder.display(), crate::formats::crawl_record::RESULTS_FORMAT
    )]
    NewerFormat {
        /// The folder.
        folder: PathBuf,
        /// Its format.
        format: u32,
        /// The version that wrote it.
        version: String,
    },
    /// Two crawls next to each other in time with no site in common.
    #[error("{} and {} have no site in common: nothing to compare", a.display(), b.display())]
    NothingInCommon {
        /// The older.
        a: PathBuf,
        /// The newer.
        b: PathBuf,
    },
    /// The output folder holds files that are not an earlier comparison's.
    #[error("--out {}: the folder is not empty and holds no comparison (no {MARKER}): name a new or empty folder, or an earlier comparison's to replace it", out.display())]
    OutNotEmpty {
        /// `--out`.
        out: PathBuf,
    },
    /// The output folder is, is in, or holds one of the compared folders.
    #[error("--out {} overlaps the compared folder {}: compare writes nothing into a crawl's results", out.display(), input.display())]
    OutOverlaps {
        /// `--out`.
        out: PathBuf,
        /// The compared folder.
        input: PathBuf,
    },
    /// A file of a compared folder without the columns compare needs, or a row of it that
    /// does not read (`file:line: what`).
    #[error("{0}")]
    Unreadable(String),
    /// Fewer than two folders.
    #[error("compare needs two results folders or more, in time order")]
    TooFew,
    /// The output could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
}

impl CompareError {
    /// Whether the input was at fault (exit code 2), not the writing (1).
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, CompareError::Write { .. })
    }
}

/// What a comparison found, for the console.
#[derive(Debug, Clone, Default)]
pub struct Compared {
    /// Sites compared (in any crawl).
    pub sites: usize,
    /// Where crawls cannot be compared, one line each (the global ones, then some per site).
    pub warnings: Vec<String>,
    /// Of the first and last crawl: pages added, removed, changed, renamed, moved.
    pub pages: [u64; 5],
    /// Of the first and last crawl: sites whose comparison is yes, unknown, no.
    pub verdicts: [u64; 3],
}

/// Per-site warnings printed before "… and N more".
const SHOWN_SITE_WARNINGS: usize = 20;

/// One comparison of two crawls (the first and last, or a step) while it is written.
#[derive(Debug)]
pub(crate) struct Pair {
    /// The two crawls' indices.
    pub(crate) crawls: (usize, usize),
    notes: Notes,
    files: PairFiles,
    /// What the report shows of it.
    pub(crate) totals: PairTotals,
}

/// The figures of a comparison of two crawls.
#[derive(Debug, Clone, Default)]
pub(crate) struct PairTotals {
    /// Sites whose comparison is yes, unknown, no.
    pub(crate) verdicts: [u64; 3],
    /// Pages added, removed, changed, renamed, and those whose level changed.
    pub(crate) pages: [u64; 5],
    /// Arcs added, removed, reweighted.
    pub(crate) arcs: [u64; 3],
    /// External links added, removed.
    pub(crate) external: [u64; 2],
    /// Each site: pages in the older and the newer crawl, and its verdict.
    pub(crate) growth: Vec<(String, Option<u64>, Option<u64>, Verdict)>,
    /// The settings every site shares that differ.
    pub(crate) global_notes: Vec<String>,
    /// The sites with notes of their own, and those notes.
    pub(crate) site_notes: Vec<(String, Vec<String>)>,
}

impl PairTotals {
    /// Adds another's figures (the sites a worker compared).
    fn merge(&mut self, other: PairTotals) {
        for (t, n) in self.verdicts.iter_mut().zip(other.verdicts) {
            *t += n;
        }
        for (t, n) in self.pages.iter_mut().zip(other.pages) {
            *t += n;
        }
        for (t, n) in self.arcs.iter_mut().zip(other.arcs) {
            *t += n;
        }
        for (t, n) in self.external.iter_mut().zip(other.external) {
            *t += n;
        }
        self.growth.extend(other.growth);
        self.site_notes.extend(other.site_notes);
    }

    fn add(
        &mut self,
        site: &str,
        verdict: Verdict,
        notes: &[String],
        rows: Rows<'_>,
        d: Option<&SiteDiff>,
    ) {
        self.verdicts[verdict as usize] += 1;
        let own = notes
            .iter()
            .filter(|n| !self.global_notes.contains(n))
            .cloned()
            .collect::<Vec<_>>();
        if !own.is_empty() {
            self.site_notes.push((site.to_owned(), own));
        }
        self.growth.push((
            site.to_owned(),
            rows.0.map(|r| r.pages),
            rows.1.map(|r| r.pages),
            verdict,
        ));
        let Some(d) = d else { return };
        for (i, c) in [
            Change::Added,
            Change::Removed,
            Change::Changed,
            Change::Renamed,
        ]
        .into_iter()
        .enumerate()
        {
            self.pages[i] += d.count(c);
        }
        self.pages[4] += d.moved;
        for (t, n) in self.arcs.iter_mut().zip(d.arc_counts()) {
            *t += n;
        }
        for (t, n) in self.external.iter_mut().zip(d.external_counts()) {
            *t += n;
        }
    }
}

type Rows<'a> = (
    Option<&'a crate::analysis::report::SummaryRow>,
    Option<&'a crate::analysis::report::SummaryRow>,
);

/// Compares the results folders `inputs` (in time order) into folder `out`.
pub fn compare(inputs: &[PathBuf], out: &Path) -> Result<Compared, CompareError> {
    if inputs.len() < 2 {
        return Err(CompareError::TooFew);
    }
    let crawls = inputs
        .iter()
        .enumerate()
        .map(|(i, p)| Crawl::open(p, i + 1))
        .collect::<Result<Vec<_>, _>>()?;
    check_out(inputs, out)?;
    for w in crawls.windows(2) {
        if !w[0].rows.iter().any(|r| w[1].row(&r.site).is_some()) {
            return Err(CompareError::NothingInCommon {
                a: w[0].path.clone(),
                b: w[1].path.clone(),
            });
        }
    }
    // Every file's columns checked, and the networks read, before anything is written.
    check_sites(&crawls)?;
    let networks = network_diff::read_all(&crawls)?;
    clear_out(out)?;
    let write = |path: &Path| {
        let path = path.to_owned();
        move |source| CompareError::Write { path, source }
    };
    let mut pairs = pairs_of(&crawls, out).map_err(write(out))?;
    let sites = site_order(&crawls);
    let mut levels = vec![Vec::new(); crawls.len()];
    compare_sites(&sites, &crawls, &mut pairs, &mut levels, out)?;
    let network = match networks {
        Some(nets) => {
            Some(network_diff::compare(&nets, &pairs, out).map_err(write(&out.join("network")))?)
        }
        None => None,
    };
    let mut compared = Compared {
        sites: sites.len(),
        ..Compared::default()
    };
    let top = &pairs[0].totals;
    compared.pages = top.pages;
    compared.verdicts = top.verdicts;
    compared.warnings = warnings(&crawls, &pairs[0]);
    let (totals, numbers): (Vec<PairTotals>, Vec<(usize, usize)>) =
        pairs.iter().map(|p| (p.totals.clone(), p.crawls)).unzip();
    for p in pairs {
        let dir = pair_dir(out, p.crawls, crawls.len());
        p.files.finish().map_err(write(&dir))?;
    }
    // After the change files: the report lists pages from them.
    report::write(out, &crawls, (&totals, &numbers), &levels, network.as_ref())
        .map_err(write(&out.join("report.html")))?;
    Ok(compared)
}

/// Writes file `path` whole or not at all (a temporary file renamed into place), without
/// waiting for the disk: a comparison is made again in seconds, and 4,000 syncs were a tenth
/// of its time.
pub(crate) fn write_file(
    path: &Path,
    fill: impl FnOnce(&mut std::fs::File) -> io::Result<()>,
) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir)?;
    fill(tmp.as_file_mut())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Marks a folder as a comparison's: another comparison may replace what it holds.
const MARKER: &str = ".rccrawler-compare";

/// Makes `out` an empty comparison folder: created, or emptied when it holds an earlier
/// comparison (its site folders would otherwise stay beside the new ones); a folder with other
/// files is refused.
fn clear_out(out: &Path) -> Result<(), CompareError> {
    let write = |source| CompareError::Write {
        path: out.to_owned(),
        source,
    };
    if let Ok(mut entries) = std::fs::read_dir(out)
        && entries.next().is_some()
    {
        if !out.join(MARKER).is_file() {
            return Err(CompareError::OutNotEmpty {
                out: out.to_owned(),
            });
        }
        std::fs::remove_dir_all(out).map_err(write)?;
    }
    std::fs::create_dir_all(out).map_err(write)?;
    std::fs::write(
        out.join(MARKER),
        "rccrawler compare wrote this folder; the next comparison into it replaces it\n",
    )
    .map_err(write)
}

/// Refuses an output folder that is, is inside, or holds a compared folder (links resolved).
fn check_out(inputs: &[PathBuf], out: &Path) -> Result<(), CompareError> {
    match crate::base::storage::paths::overlapping(out, inputs.iter().map(PathBuf::as_path)) {
        Some(input) => Err(CompareError::OutOverlaps {
            out: out.to_owned(),
            input: input.to_owned(),
        }),
        None => Ok(()),
    }
}

/// Checks that every site folder of every crawl has the columns compare reads.
fn check_sites(crawls: &[Crawl]) -> Result<(), CompareError> {
    for c in crawls {
        for r in &c.rows {
            snapshot::check(&c.path.join(&r.folder)).map_err(CompareError::Unreadable)?;
        }
    }
    Ok(())
}

/// The comparisons written: first with last, then (more than two crawls) each with the next.
fn pairs_of(crawls: &[Crawl], out: &Path) -> io::Result<Vec<Pair>> {
    let n = crawls.len();
    let mut which = vec![(0, n - 1)];
    if n > 2 {
        which.extend((1..n).map(|i| (i - 1, i)));
    }
    which
        .into_iter()
        .map(|(a, b)| {
            let notes = Notes::of(&crawls[a], &crawls[b]);
            Ok(Pair {
                crawls: (a, b),
                files: PairFiles::create(&pair_dir(out, (a, b), n))?,
                totals: PairTotals {
                    global_notes: notes.global.clone(),
                    ..PairTotals::default()
                },
                notes,
            })
        })
        .collect()
}

/// Where a comparison's files go: DIR for the first and last, `DIR/steps/I-J` for a step.
pub(crate) fn pair_dir(out: &Path, (a, b): (usize, usize), crawls: usize) -> PathBuf {
    if a == 0 && b == crawls - 1 {
        out.to_owned()
    } else {
        out.join("steps").join(format!("{}-{}", a + 1, b + 1))
    }
}

/// Every site of any crawl: the last crawl's in its order, then those only earlier crawls
/// list (latest first).
fn site_order(crawls: &[Crawl]) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut order = Vec::new();
    for c in crawls.iter().rev() {
        for r in &c.rows {
            if seen.insert(r.site.as_str()) {
                order.push(r.site.clone());
            }
        }
    }
    order
}

/// Sites compared at once: their rows wait in memory until the batch is appended in order.
const BATCH: usize = 256;

/// What comparing one site gave: per comparison its rows and figures; its pages per level in
/// each crawl.
struct SiteOut {
    pairs: Vec<(SiteRows, PairTotals)>,
    levels: Vec<Vec<u64>>,
}

/// Compares every site, a batch at a time on the cores (a site's snapshots are read, compared
/// and dropped by one worker), appending the rows in site order.
fn compare_sites(
    sites: &[String],
    crawls: &[Crawl],
    pairs: &mut [Pair],
    levels: &mut [Vec<u64>],
    out: &Path,
) -> Result<(), CompareError> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(4);
    let pairs_ro: Vec<(Notes, (usize, usize))> =
        pairs.iter().map(|p| (p.notes.clone(), p.crawls)).collect();
    for batch in sites.chunks(BATCH) {
        let done: Vec<parking_lot::Mutex<Option<Result<SiteOut, CompareError>>>> = batch
            .iter()
            .map(|_| parking_lot::Mutex::new(None))
            .collect();
        crate::base::parallel::for_each_index(batch.len(), threads, "compare-sites", |i| {
            *done[i].lock() = Some(compare_site(&batch[i], crawls, &pairs_ro, out));
        });
        for slot in done {
            let Some(result) = slot.into_inner() else {
                continue;
            };
            let site = result?;
            for (hist, more) in levels.iter_mut().zip(&site.levels) {
                if hist.len() < more.len() {
                    hist.resize(more.len(), 0);
                }
                for (h, m) in hist.iter_mut().zip(more) {
                    *h += m;
                }
            }
            for (p, (rows, totals)) in pairs.iter_mut().zip(site.pairs) {
                p.files
                    .append(&rows)
                    .map_err(|source| CompareError::Write {
                        path: pair_dir(out, p.crawls, crawls.len()),
                        source,
                    })?;
                p.totals.merge(totals);
            }
        }
    }
    Ok(())
}

fn compare_site(
    site: &str,
    crawls: &[Crawl],
    pairs: &[(Notes, (usize, usize))],
    out: &Path,
) -> Result<SiteOut, CompareError> {
    let snaps: Vec<Option<Snapshot>> = crawls
        .iter()
        .map(|c| {
            c.row(site)
                .map(|r| snapshot::read(&c.path.join(&r.folder)))
                .transpose()
        })
        .collect::<Result<_, _>>()
        .map_err(CompareError::Unreadable)?;
    let levels = snaps
        .iter()
        .map(|snap| {
            let mut hist: Vec<u64> = Vec::new();
            for l in snap.iter().flat_map(|s| &s.pages).filter_map(|p| p.level) {
                let l = l as usize;
                if hist.len() <= l {
                    hist.resize(l + 1, 0);
                }
                hist[l] += 1;
            }
            hist
        })
        .collect();
    let empty = Snapshot::default();
    let mut done = Vec::with_capacity(pairs.len());
    // What changed from each crawl to the next (for the dynamic GEXF): the pairs' diffs of
    // crawls next to each other.
    let mut steps: Vec<Option<SiteDiff>> = vec![None; crawls.len().saturating_sub(1)];
    for (notes, (a, b)) in pairs {
        let (a, b) = (*a, *b);
        let rows = (crawls[a].row(site), crawls[b].row(site));
        let (verdict, site_notes) = notes.site((&crawls[a], &crawls[b]), site, rows);
        let d = match (&snaps[a], &snaps[b]) {
            (Some(x), Some(y)) => Some(diff::diff(x, y)),
            _ => None,
        };
        let s = PairSite {
            site,
            verdict,
            notes: &site_notes,
            rows,
            old: snaps[a].as_ref().unwrap_or(&empty),
            new: snaps[b].as_ref().unwrap_or(&empty),
            diff: d.as_ref(),
        };
        let written = pair_files::rows(&s).map_err(|source| CompareError::Write {
            path: pair_dir(out, (a, b), crawls.len()),
            source,
        })?;
        let mut totals = PairTotals {
            global_notes: notes.global.clone(),
            ..PairTotals::default()
        };
        totals.add(site, verdict, &site_notes, rows, d.as_ref());
        totals.global_notes.clear();
        done.push((written, totals));
        if b == a + 1 {
            steps[a] = d;
        }
    }
    // The site's folder in the latest crawl that lists it.
    let folder = crawls
        .iter()
        .rev()
        .find_map(|c| c.row(site))
        .map(|r| r.folder.clone())
        .unwrap_or_default();
    let path = out.join(&folder).join("graph.gexf");
    let steps: Vec<Option<&SiteDiff>> = steps.iter().map(Option::as_ref).collect();
    dynamic_gexf::site(&path, site, &snaps, &steps)
        .map_err(|source| CompareError::Write { path, source })?;
    Ok(SiteOut {
        pairs: done,
        levels,
    })
}

/// The lines the console shows: settings every site shares that differ, then the sites with
/// their own differences (the first [`SHOWN_SITE_WARNINGS`]).
fn warnings(crawls: &[Crawl], top: &Pair) -> Vec<String> {
    let (a, b) = top.crawls;
    let mut lines: Vec<String> = top
        .totals
        .global_notes
        .iter()
        .map(|n| format!("{} vs {}: {n}", crawls[a].name(), crawls[b].name()))
        .collect();
    let own = &top.totals.site_notes;
    for (site, notes) in own.iter().take(SHOWN_SITE_WARNINGS) {
        lines.push(format!("{site}: not comparable: {}", notes.join("; ")));
    }
    if own.len() > SHOWN_SITE_WARNINGS {
        lines.push(format!(
            "… and {} more sites (sites.csv's Notes)",
            own.len() - SHOWN_SITE_WARNINGS
        ));
    }
    lines
}

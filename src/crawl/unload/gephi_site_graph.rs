//! `GephiSiteGraphRU`: nodes.csv, edges.csv, external_links.csv, bad_links.csv,
//! duplicates.csv, graph.gexf and sitemap.csv of one site (SPEC §4, §17).

use crate::base::parallel::for_each_index;
use std::io::{self, Write};
use std::path::Path;

use parking_lot::Mutex;

use super::{UnloadError, Unloader, write_gexf};
use crate::analysis::measures::{MEASURE_COLUMNS, Measures, csv_cells};
use crate::base::storage::{replace_file, sync_dir};
use crate::crawl::data::columns::{Cell, NODE_COLUMNS};
use crate::crawl::data::{SiteGraph, SitemapRow};
use crate::formats::gephi_csv::CsvOut;
use crate::model::bandit::RewardKind;

/// The Gephi unloader.
#[derive(Debug, Clone)]
pub struct GephiSiteGraph {
    /// Write duplicates.csv (`SaveDuplicates = 1`).
    pub save_duplicates: bool,
    /// What yield.csv's `Reward` counts (`BanditReward`).
    pub reward: RewardKind,
    /// external_links.csv has a `Context` column (`ExternalLinkContext` > 0).
    pub context: bool,
    /// The graph also in WebGraph's BVGraph format (`GraphFormat = bvgraph`, SPEC §17).
    pub bvgraph: bool,
    /// Pages may be rendered (`Render` is `auto` or `all`, SPEC §18): nodes.csv ends with
    /// `Rendered`, edges.csv and external_links.csv with `ScriptOnly`.
    pub rendered: bool,
    /// Documents are nodes (`Documents = yes`, SPEC §19): nodes.csv ends with `Type`.
    pub documents: bool,
    /// `PageText = yes`: text.csv is written from the text spool in this folder
    /// ([`crate::crawl::data::text_spool`]).
    pub text: Option<std::path::PathBuf>,
}

fn file(
    folder: &Path,
    name: &str,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), UnloadError> {
    let path = folder.join(name);
    replace_file(&path, fill).map_err(|source| UnloadError { path, source })
}

/// One result file: its name and how to fill it.
type Job<'g, 'a> = (
    &'static str,
    &'g (dyn Fn(&mut dyn Write) -> io::Result<()> + Sync + 'a),
);

impl Unloader for GephiSiteGraph {
    fn unload(&self, g: &SiteGraph<'_>, folder: &Path) -> Result<(), UnloadError> {
        // A file of an earlier run that this one does not write would now be stale.
        let sitemap_rows = g.sitemap_rows();
        if !self.save_duplicates {
            remove_stale(folder, "duplicates.csv")?;
        }
        if sitemap_rows.is_none() {
            remove_stale(folder, "sitemap.csv")?;
        }
        // Of the whole graph: computed once, before the two files that carry them.
        let measures = g.measures();
        let extras = super::NodeExtras {
            rendered: self.rendered,
            documents: self.documents,
        };
        let gexf = |w: &mut dyn Write| write_gexf(g, &measures, extras, w);
        let edges = |w: &mut dyn Write| write_edges(g, self.rendered, w);
        let nodes = |w: &mut dyn Write| write_nodes(g, &measures, extras, w);
        let text = |w: &mut dyn Write| match &self.text {
            Some(spool) => super::text_csv::write_text(g, spool, w),
            None => Ok(()),
        };
        let external = |w: &mut dyn Write| write_external(g, (self.context, self.rendered), w);
        let bad = |w: &mut dyn Write| write_bad(g, w);
        let duplicates = |w: &mut dyn Write| write_duplicates(g, w);
        let yields = |w: &mut dyn Write| write_yields(g, self.reward, w);
        let sitemap = |w: &mut dyn Write| write_sitemap(sitemap_rows.as_deref().unwrap_or(&[]), w);
        // Largest first, so the files of a big site finish together.
        let mut jobs: Vec<Job<'_, '_>> = vec![
            ("graph.gexf", &gexf),
            ("edges.csv", &edges),
            ("nodes.csv", &nodes),
            ("external_links.csv", &external),
            ("bad_links.csv", &bad),
            ("yield.csv", &yields),
        ];
        if self.save_duplicates {
            jobs.push(("duplicates.csv", &duplicates));
        }
        if sitemap_rows.is_some() {
            jobs.push(("sitemap.csv", &sitemap));
        }
        if self.text.is_some() {
            jobs.push(("text.csv", &text));
        } else {
            remove_stale(folder, "text.csv")?;
        }
        run_jobs(&jobs, folder)?;
        if self.bvgraph {
            super::bvgraph::write_bvgraph(g, folder)?;
        }
        // The renames are durable once the folder is.
        sync_dir(folder).map_err(|source| UnloadError {
            path: folder.to_path_buf(),
            source,
        })
    }
}

/// Removes `name` from `folder` if it is there.
fn remove_stale(folder: &Path, name: &str) -> Result<(), UnloadError> {
    let path = folder.join(name);
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(UnloadError { path, source }),
    }
}

/// Writes the files on all cores: after a crawl the result files of a big site were the
/// last, single-threaded part of the run.
fn run_jobs(jobs: &[Job<'_, '_>], folder: &Path) -> Result<(), UnloadError> {
    let failed = Mutex::new(None);
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    for_each_index(jobs.len(), threads, "unload", |i| {
        let (name, fill) = jobs[i];
        if let Err(e) = file(folder, name, fill) {
            failed.lock().get_or_insert(e);
        }
    });
    match failed.into_inner() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// nodes.csv: `Id,Label`, the per-page columns ([`NODE_COLUMNS`]: `Level,Title,OutDegree,
/// ExternalLinks,Bytes,ContentHash,TextHash,Canonical,Robots,Host,Source`), the same columns
/// whatever the URL filter (a single-host site names its one host), then the graph's measures ([`MEASURE_COLUMNS`]:
/// `PageRank,Harmonic`), `Rendered` (`yes`/`no`) when pages may be rendered, and `Type`
/// (`html`, `pdf`, …) when documents are nodes.
pub(super) fn write_nodes(
    g: &SiteGraph<'_>,
    m: &Measures,
    extras: super::NodeExtras,
    w: &mut dyn Write,
) -> io::Result<()> {
    let rendered = extras.rendered;
    let mut columns = vec!["Id", "Label"];
    columns.extend(NODE_COLUMNS.iter().map(|c| c.name));
    columns.extend(MEASURE_COLUMNS.iter().map(|c| c.name));
    if rendered {
        columns.push("Rendered");
    }
    if extras.documents {
        columns.push("Type");
    }
    let mut value = Vec::new();
    let mut csv = CsvOut::new(w, &columns)?;
    let mut hash = String::with_capacity(32);
    for (i, n) in g.nodes().iter().enumerate() {
        csv.num(i + 1)?.text(g.label(n))?;
        for c in NODE_COLUMNS {
            match (c.value)(g, n) {
                Cell::Int(v) => csv.num(v)?,
                Cell::Text(t) => csv.text(t)?,
                Cell::Empty => csv.empty()?,
                Cell::Hash(h) => {
                    hash.clear();
                    // Infallible: writing into a String.
                    let _ = std::fmt::Write::write_fmt(&mut hash, format_args!("{h:032x}"));
                    csv.text(&hash)?
                }
                Cell::Digest(h) => {
                    hash.clear();
                    let _ = std::fmt::Write::write_fmt(&mut hash, format_args!("{h:016x}"));
                    csv.text(&hash)?
                }
            };
        }
        csv_cells(&mut csv, m, i, &mut value)?;
        if rendered {
            csv.text(if g.render_mark(n).rendered {
                "yes"
            } else {
                "no"
            })?;
        }
        if extras.documents {
            csv.text(g.node_type(n).as_str())?;
        }
        csv.end()?;
    }
    csv.finish()
}

/// edges.csv: `Source,Target,Type,Weight,Nofollow` (Nofollow: the arc's links carrying
/// `nofollow`, `ugc` or `sponsored`), and `ScriptOnly` (the arc's links only in the rendered
/// DOM) when pages may be rendered.
pub(super) fn write_edges(g: &SiteGraph<'_>, rendered: bool, w: &mut dyn Write) -> io::Result<()> {
    let header: &[&str] = if rendered {
        &[
            "Source",
            "Target",
            "Type",
            "Weight",
            "Nofollow",
            "ScriptOnly",
        ]
    } else {
        &["Source", "Target", "Type", "Weight", "Nofollow"]
    };
    let mut csv = CsvOut::new(w, header)?;
    let mut arcs = Vec::new();
    for (i, n) in g.nodes().iter().enumerate() {
        g.arcs_into(n, &mut arcs);
        for a in &arcs {
            let row = csv
                .num(i + 1)?
                .num(a.target)?
                .text("Directed")?
                .num(a.weight)?
                .num(a.nofollow)?;
            if rendered {
                row.num(a.script_only)?;
            }
            csv.end()?;
        }
    }
    csv.finish()
}

/// external_links.csv: `Source,Url,Host,Anchor`, `Context` when `context`, and `Rel` (the
/// link's `nofollow`, `ugc`, `sponsored`, space-separated; empty: none), and `ScriptOnly`
/// (`yes`: the link is only in the rendered DOM) when pages may be rendered.
pub(super) fn write_external(
    g: &SiteGraph<'_>,
    (context, rendered): (bool, bool),
    w: &mut dyn Write,
) -> io::Result<()> {
    let mut header = vec!["Source", "Url", "Host", "Anchor"];
    if context {
        header.push("Context");
    }
    header.push("Rel");
    if rendered {
        header.push("ScriptOnly");
    }
    let mut csv = CsvOut::plain(w, &header)?;
    let mut rel = String::new();
    for (i, n) in g.nodes().iter().enumerate() {
        for r in g.external_links(n) {
            let row = csv.num(i + 1)?.text(r.url)?.text(r.host)?.text(r.anchor)?;
            if context {
                row.text(r.context)?;
            }
            rel.clear();
            // Infallible: writing into a String.
            let _ = std::fmt::Write::write_fmt(&mut rel, format_args!("{}", r.rel));
            row.text(&rel)?;
            if rendered {
                row.text(if r.rel.is_script_only() { "yes" } else { "no" })?;
            }
            csv.end()?;
        }
    }
    csv.finish()
}

/// bad_links.csv: `Source,Url,Reason` (Source empty for the home page itself).
pub(super) fn write_bad(g: &SiteGraph<'_>, w: &mut dyn Write) -> io::Result<()> {
    let mut csv = CsvOut::plain(w, &["Source", "Url", "Reason"])?;
    if let Some(r) = g.home_failure() {
        csv.empty()?.text(r.url)?.text(r.reason)?.end()?;
    }
    for (i, n) in g.nodes().iter().enumerate() {
        for r in g.bad_links(n) {
            csv.num(i + 1)?.text(r.url)?.text(r.reason)?.end()?;
        }
    }
    csv.finish()
}

/// yield.csv: `Page,Level,ExternalLinks,Reward` — the fetches in breadth-first order, what
/// each revealed, and its reward for the budget rules (SPEC §5).
pub(super) fn write_yields(
    g: &SiteGraph<'_>,
    reward: RewardKind,
    w: &mut dyn Write,
) -> io::Result<()> {
    let mut csv = CsvOut::plain(w, &["Page", "Level", "ExternalLinks", "Reward"])?;
    for y in g.yields() {
        let r = y.yielded.reward(reward);
        csv.text(y.url)?
            .num(y.level)?
            .num(y.yielded.external)?
            .num(r)?
            .end()?;
    }
    csv.finish()
}

/// duplicates.csv: `Url,Id,Reason`.
pub(super) fn write_duplicates(g: &SiteGraph<'_>, w: &mut dyn Write) -> io::Result<()> {
    let mut csv = CsvOut::plain(w, &["Url", "Id", "Reason"])?;
    for a in g.aliases() {
        csv.text(g.alias_url(a))?
            .num(a.node)?
            .text(a.reason.as_str())?
            .end()?;
    }
    csv.finish()
}

/// sitemap.csv: `Url,InGraph,Level,LastMod` — each page the site's sitemaps list, in the order
/// listed: whether it is in the graph (`yes`: a node or an address of one), the depth at which
/// links reach it (empty: none does, an orphan), and its `<lastmod>`.
pub(super) fn write_sitemap(rows: &[SitemapRow<'_>], w: &mut dyn Write) -> io::Result<()> {
    let mut csv = CsvOut::plain(w, &["Url", "InGraph", "Level", "LastMod"])?;
    for r in rows {
        csv.text(r.url)?
            .text(if r.in_graph { "yes" } else { "no" })?;
        match r.level {
            Some(l) => csv.num(l)?,
            None => csv.empty()?,
        };
        csv.text(r.lastmod)?.end()?;
    }
    csv.finish()
}

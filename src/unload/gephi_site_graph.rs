//! `GephiSiteGraphRU`: nodes.csv, edges.csv, external_links.csv, bad_links.csv,
//! duplicates.csv and graph.gexf of one site (SPEC §4).

use std::io::{self, Write};
use std::path::Path;

use super::gephi_csv::CsvOut;
use super::{UnloadError, Unloader, write_atomic, write_gexf};
use crate::data::SiteGraph;

/// The Gephi unloader.
#[derive(Debug, Clone, Copy)]
pub struct GephiSiteGraph {
    /// Write duplicates.csv (`SaveDuplicates = 1`).
    pub save_duplicates: bool,
}

fn file(
    folder: &Path,
    name: &str,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), UnloadError> {
    let path = folder.join(name);
    write_atomic(&path, fill).map_err(|source| UnloadError { path, source })
}

impl Unloader for GephiSiteGraph {
    fn unload(&self, g: &SiteGraph<'_>, folder: &Path) -> Result<(), UnloadError> {
        file(folder, "nodes.csv", |w| write_nodes(g, w))?;
        file(folder, "edges.csv", |w| write_edges(g, w))?;
        file(folder, "external_links.csv", |w| write_external(g, w))?;
        file(folder, "bad_links.csv", |w| write_bad(g, w))?;
        if self.save_duplicates {
            file(folder, "duplicates.csv", |w| write_duplicates(g, w))?;
        } else {
            // A duplicates.csv of an earlier run would now be stale.
            let path = folder.join("duplicates.csv");
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(source) => return Err(UnloadError { path, source }),
            }
        }
        file(folder, "graph.gexf", |w| write_gexf(g, w))
    }
}

/// nodes.csv: `Id,Label,Level,Title,OutDegree,ExternalLinks,Bytes,ContentHash`.
pub(super) fn write_nodes(g: &SiteGraph<'_>, w: &mut dyn Write) -> io::Result<()> {
    let mut csv = CsvOut::new(
        w,
        &[
            "Id",
            "Label",
            "Level",
            "Title",
            "OutDegree",
            "ExternalLinks",
            "Bytes",
            "ContentHash",
        ],
    )?;
    for (i, n) in g.nodes().iter().enumerate() {
        csv.num(i + 1)?
            .text(g.label(n))?
            .num(n.level)?
            .text(g.title(n))?
            .num(g.arcs(n).len())?
            .num(g.external_links(n).len())?
            .num(g.bytes(n))?
            .text(&format!("{:032x}", g.content_hash(n)))?
            .end()?;
    }
    Ok(())
}

/// edges.csv: `Source,Target,Type,Weight`.
pub(super) fn write_edges(g: &SiteGraph<'_>, w: &mut dyn Write) -> io::Result<()> {
    let mut csv = CsvOut::new(w, &["Source", "Target", "Type", "Weight"])?;
    for (i, n) in g.nodes().iter().enumerate() {
        for a in g.arcs(n) {
            csv.num(i + 1)?
                .num(a.target)?
                .text("Directed")?
                .num(a.weight)?
                .end()?;
        }
    }
    Ok(())
}

/// external_links.csv: `Source,Url,Host,Anchor`.
pub(super) fn write_external(g: &SiteGraph<'_>, w: &mut dyn Write) -> io::Result<()> {
    let mut csv = CsvOut::new(w, &["Source", "Url", "Host", "Anchor"])?;
    for (i, n) in g.nodes().iter().enumerate() {
        for r in g.external_links(n) {
            csv.num(i + 1)?
                .text(r.url)?
                .text(&r.host)?
                .text(r.anchor)?
                .end()?;
        }
    }
    Ok(())
}

/// bad_links.csv: `Source,Url,Reason` (Source empty for the home page itself).
pub(super) fn write_bad(g: &SiteGraph<'_>, w: &mut dyn Write) -> io::Result<()> {
    let mut csv = CsvOut::new(w, &["Source", "Url", "Reason"])?;
    if let Some(r) = g.home_failure() {
        csv.empty()?.text(r.url)?.text(r.reason)?.end()?;
    }
    for (i, n) in g.nodes().iter().enumerate() {
        for r in g.bad_links(n) {
            csv.num(i + 1)?.text(r.url)?.text(r.reason)?.end()?;
        }
    }
    Ok(())
}

/// duplicates.csv: `Url,Id,Reason`.
pub(super) fn write_duplicates(g: &SiteGraph<'_>, w: &mut dyn Write) -> io::Result<()> {
    let mut csv = CsvOut::new(w, &["Url", "Id", "Reason"])?;
    for a in g.aliases() {
        csv.text(g.alias_url(a))?
            .num(a.node)?
            .text(a.reason.as_str())?
            .end()?;
    }
    Ok(())
}

//! Result unloaders (the paper's ResultUnloader): write each scope's graph under
//! `ResultFolder/<site>/`, atomically. `GephiSiteGraphRU` ([`GephiSiteGraph`]) is the one the
//! paper used; `TestRU` ([`ResultCheck`]) reads back and checks what was written; `ReportRU`
//! ([`Report`]) writes report.html; the summary
//! of all sites is written by [`summary`].

mod bvgraph;
mod check;

mod gephi_site_graph;
mod gexf;
mod report;
pub mod summary;
mod text_csv;

use std::fmt::Debug;
use std::path::{Path, PathBuf};

use thiserror::Error;

pub use crate::formats::gephi_csv::{CsvOut, gephi_unescape, quote};
pub use check::{REPORT_FILE, ResultCheck, ScopeCheck, check_folder};
pub use gephi_site_graph::GephiSiteGraph;
pub(crate) use gexf::write_gexf;

/// The node columns a crawl's settings add to nodes.csv and graph.gexf.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NodeExtras {
    /// `Rendered` (`Render` is `auto` or `all`, SPEC §18; also edges' `ScriptOnly`).
    pub rendered: bool,
    /// `Type` (`Documents = yes`, SPEC §19).
    pub documents: bool,
}
pub use report::{Report, report_options};

use crate::crawl::data::SiteGraph;

/// A result file could not be written.
#[derive(Debug, Error)]
#[error("cannot write {}: {source}", path.display())]
pub struct UnloadError {
    /// The file.
    pub path: PathBuf,
    /// Why.
    #[source]
    pub source: std::io::Error,
}

/// A `ResultUnloader`: writes (or checks) each scope's results. The application manager
/// calls `unload` once per scope, from several threads at once (one scope per thread), in the
/// order settings.ini lists the unloaders; then `finish` once.
pub trait Unloader: Send + Sync + Debug {
    /// Writes `graph` into `folder` (created if needed).
    fn unload(&self, graph: &SiteGraph<'_>, folder: &Path) -> Result<(), UnloadError>;
    /// After every scope and summary.csv: writes what covers the whole run into
    /// `result_folder` (which holds every site's files, earlier runs' too), and returns
    /// the problems found (a checking unloader's failed checks), which make the run fail.
    fn finish(&self, _result_folder: &Path) -> Result<Vec<String>, UnloadError> {
        Ok(Vec::new())
    }
    /// [`Self::finish`] while the network of sites may still be being written:
    /// `network_written` returns once it is (or there is none). One that reads the network
    /// calls it first — or, as the report does, reads the rest first and then calls it.
    fn finish_beside(
        &self,
        result_folder: &Path,
        network_written: &dyn Fn(),
    ) -> Result<Vec<String>, UnloadError> {
        network_written();
        self.finish(result_folder)
    }
}

//! Result unloaders (the paper's ResultUnloader): write each scope's graph under
//! `ResultFolder/<site>/`, atomically. `GephiSiteGraphRU` is the one the paper used; the
//! summary of all sites is written by [`summary`].

mod atomic;
mod gephi_csv;
mod gephi_site_graph;
mod gexf;
pub mod summary;

use std::fmt::Debug;
use std::path::{Path, PathBuf};

use thiserror::Error;

pub use atomic::{replace_file, sync_dir, write_atomic};
pub use gephi_csv::{CsvOut, quote};
pub use gephi_site_graph::GephiSiteGraph;
pub use gexf::write_gexf;

use crate::data::SiteGraph;
use crate::settings::Settings;
use crate::settings::registry::UnloaderKind;

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

/// Writes one scope's results into its folder.
pub trait Unloader: Send + Sync + Debug {
    /// Writes `graph` into `folder` (created if needed).
    fn unload(&self, graph: &SiteGraph<'_>, folder: &Path) -> Result<(), UnloadError>;
}

/// Builds the unloaders named in settings.
pub fn unloaders_for(settings: &Settings) -> Vec<Box<dyn Unloader>> {
    settings
        .unloaders
        .iter()
        .map(|k| -> Box<dyn Unloader> {
            match k {
                UnloaderKind::GephiSiteGraph => Box::new(GephiSiteGraph {
                    save_duplicates: settings.save_duplicates,
                }),
            }
        })
        .collect()
}

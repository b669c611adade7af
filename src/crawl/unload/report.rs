//! `ReportRU`: writes `report.html` (SPEC §12) once every scope's files are written, from
//! the results folder itself — the sites finished in earlier runs included.

use std::path::Path;

use super::{UnloadError, Unloader};
use crate::analysis::report::{ReportError, ReportOptions, write_report_beside};
use crate::crawl::data::SiteGraph;
use crate::crawl::settings::Settings;

/// The report unloader.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// What the results folder cannot say (the budget and its rule).
    pub options: ReportOptions,
}

impl Report {
    /// The report of a crawl with `settings`.
    pub fn new(settings: &Settings, scopes_span_hosts: bool) -> Self {
        Report {
            options: report_options(settings, scopes_span_hosts),
        }
    }
}

/// The budget and its rule in words, for a budgeted crawl; `scopes_span_hosts`: what the
/// registry says the URL filter declares (`registry::Implied`).
pub fn report_options(settings: &Settings, scopes_span_hosts: bool) -> ReportOptions {
    ReportOptions {
        domain_filter: scopes_span_hosts,
        budget: (settings.bandit.is_budgeted()).then(|| {
            format!(
                "PageBudget = {}, pages split by {}",
                settings.bandit.pages(),
                settings.components.scheduler
            )
        }),
    }
}

impl Unloader for Report {
    fn unload(&self, _graph: &SiteGraph<'_>, _folder: &Path) -> Result<(), UnloadError> {
        // Everything comes from the files, at the end: a site finished in an earlier run
        // is never unloaded again, and the report must still show it.
        Ok(())
    }

    fn finish(&self, result_folder: &Path) -> Result<Vec<String>, UnloadError> {
        self.finish_beside(result_folder, &|| {})
    }

    fn finish_beside(
        &self,
        result_folder: &Path,
        network_written: &dyn Fn(),
    ) -> Result<Vec<String>, UnloadError> {
        match write_report_beside(result_folder, &self.options, network_written) {
            Ok(_) => Ok(Vec::new()),
            Err(ReportError::Write { path, source }) => Err(UnloadError { path, source }),
            // Unreadable summary.csv: the crawl's own files are fine; say why there is no
            // report rather than fail a finished crawl.
            Err(e) => {
                eprintln!("warning: no report.html: {e}");
                Ok(Vec::new())
            }
        }
    }
}

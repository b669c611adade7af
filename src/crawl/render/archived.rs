//! The renderer of `rccrawler rebuild` (SPEC §15, §18): the DOM each page had when it was
//! crawled, read from the archive's `conversion` records — a rebuild reproduces the rendered
//! graph with no browser. A page the crawl did not render has no such record and is kept as
//! the server sent it, as it was then.

use std::sync::Arc;

use super::{RenderError, RenderJob, RenderedDom, Renderer, Resources};
use crate::formats::warc::archived::ArchivedWeb;

/// Reads rendered DOMs from an archive.
#[derive(Debug)]
pub struct ArchivedRenderer {
    archive: Arc<ArchivedWeb>,
}

impl ArchivedRenderer {
    /// The renderer over `archive`.
    pub fn new(archive: Arc<ArchivedWeb>) -> Self {
        ArchivedRenderer { archive }
    }
}

impl Renderer for ArchivedRenderer {
    fn check(&self) -> Result<(), RenderError> {
        Ok(())
    }

    fn render(
        &self,
        job: &RenderJob<'_>,
        _resources: &dyn Resources,
    ) -> Result<RenderedDom, RenderError> {
        match self.archive.conversion(job.url.as_str()) {
            Ok(Some((dom, requests))) => Ok(RenderedDom {
                html: String::from_utf8_lossy(&dom).into_owned(),
                base: job.url.to_string(),
                timed_out: false,
                requests,
            }),
            Ok(None) => Err(RenderError::NotRendered),
            Err(e) => Err(RenderError::Browser(format!("archive: {e}"))),
        }
    }

    fn always(&self) -> bool {
        true
    }
}

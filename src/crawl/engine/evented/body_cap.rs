//! How much of an answer's body a task of the loop reads.

use super::{InFlight, Walker};

impl InFlight<'_> {
    /// The most body bytes the task reads: its walk's (`MaxDocumentBytes` for a document,
    /// SPEC §19), else `cap`.
    pub(super) fn body_cap(&self, cap: u64) -> u64 {
        match &self.walk {
            Walker::Page(walk) => walk.body_cap(),
            Walker::Robots(_) => cap,
        }
    }
}

//! The data layer's errors: what recording a crawl's data can run into ([`DataError`]), and
//! what making it durable can ([`PersistError`]).

use thiserror::Error;

use super::interner::InternerFull;
use crate::base::storage::StateError;
use crate::base::storage::codec::Corrupt;

/// A scope's data cannot be recorded or restored.
#[derive(Debug, Error)]
pub enum DataError {
    /// Too many distinct strings in one scope.
    #[error(transparent)]
    Full(#[from] InternerFull),
    /// More than 2^30 URLs in one scope.
    #[error("more than 2^30 URLs in one crawl scope")]
    TooManyUrls,
    /// More than 65,534 hosts in one scope.
    #[error("more than 65,534 hosts in one crawl scope")]
    TooManySites,
    /// Saved bytes do not decode.
    #[error("saved state: {0}")]
    Undecodable(#[from] Corrupt),
    /// Saved data decodes but does not fit the data it is applied to (a journal of another
    /// state, records out of order); or an outcome names what its scope does not know.
    #[error("saved state: {0}")]
    Inconsistent(String),
    /// The scope's saved data could not be loaded.
    #[error(transparent)]
    Persist(#[from] PersistError),
}

impl DataError {
    /// An [`Inconsistent`](DataError::Inconsistent) error saying `what`.
    pub(crate) fn inconsistent(what: impl Into<String>) -> Self {
        DataError::Inconsistent(what.into())
    }
}

/// Recorded work could not be made durable, or saved work could not be read.
#[derive(Debug, Error)]
pub enum PersistError {
    /// The state folder's files could not be used.
    #[error(transparent)]
    Files(#[from] StateError),
    /// The backend that keeps the crawl (a database) could not be used.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// What was saved does not decode or fit together.
    #[error("{}: {source}; move the state folder away to start afresh", dir.display())]
    Recover {
        /// The state folder.
        dir: std::path::PathBuf,
        /// What is wrong.
        #[source]
        source: Box<DataError>,
    },
}

/// A storage backend's failure (the crawl's database), its own error boxed: the data layer's
/// errors name no backend's types, and a backend is added without changing them.
#[derive(Debug)]
pub struct BackendError {
    source: Box<dyn std::error::Error + Send + Sync>,
    bad_setting: bool,
}

impl BackendError {
    /// A backend's error `source`; `bad_setting` when the settings name what cannot be used
    /// (a database URL that is not one, or reaches no server) rather than a failure under way.
    pub fn new(source: impl std::error::Error + Send + Sync + 'static, bad_setting: bool) -> Self {
        BackendError {
            source: Box::new(source),
            bad_setting,
        }
    }

    /// Whether the settings name what cannot be used (exit code 2, SPEC §13).
    pub fn is_bad_setting(&self) -> bool {
        self.bad_setting
    }

    /// The backend's own error.
    pub fn inner(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        &*self.source
    }
}

impl std::fmt::Display for BackendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.source.fmt(f)
    }
}

impl std::error::Error for BackendError {
    // Transparent: the backend's message is this error's, so its cause is the backend's cause.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.source()
    }
}

/// A settled scope could not be retired (it stays live, in memory and in the saved state).
#[derive(Debug, Error)]
pub enum RetireError {
    /// Its result files could not be written.
    #[error(transparent)]
    Results(Box<dyn std::error::Error + Send + Sync>),
    /// Its retirement could not be saved.
    #[error("cannot save the crawl state: {0}")]
    State(#[from] PersistError),
}

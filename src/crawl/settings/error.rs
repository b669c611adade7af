//! What can be wrong with settings.ini, and where: errors that stop the crawl before it
//! starts ([`SettingsError`], each naming the file and line), and [`Warning`]s that do not.

use std::path::PathBuf;

use thiserror::Error;

/// Where in settings.ini something is: the file, and the line when it is known.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Location {
    /// The file.
    pub path: PathBuf,
    /// Its line (1-based).
    pub line: Option<usize>,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}", self.path.display()),
            None => write!(f, "{}", self.path.display()),
        }
    }
}

/// settings.ini could not be used.
#[derive(Debug, Error)]
pub enum SettingsError {
    /// `NetworkEntities` names a file that is not an entities file (its line named).
    #[error("NetworkEntities: {0}")]
    Entities(#[from] crate::analysis::network::EntitiesError),
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not UTF-8 text (saved as Latin-1, say).
    #[error(
        "{at}: not UTF-8 text: save settings.ini as UTF-8 (an editor's \"Latin-1\" or \"Windows-1252\" é is the usual cause)"
    )]
    NotUtf8 {
        /// The file and the line of the first byte that is not UTF-8.
        at: Location,
    },
    /// The file is not valid INI.
    #[error("{}: {source}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// The INI reader's error.
        #[source]
        source: Box<config::ConfigError>,
    },
    /// A component name is not known.
    #[error("{at}: {key} = {name}: unknown component; valid names: {}", valid.join(", "))]
    UnknownComponent {
        /// Where.
        at: Location,
        /// The key.
        key: String,
        /// The name given.
        name: String,
        /// Every valid name.
        valid: Vec<String>,
    },
    /// A value is out of range or of the wrong form.
    #[error("{at}: {key} = {value:?}: {expected}")]
    BadValue {
        /// Where.
        at: Location,
        /// The key.
        key: String,
        /// The value given.
        value: String,
        /// What is accepted.
        expected: String,
    },
    /// A key this rccrawler does not know.
    #[error("{at}: unknown key {key}{}", suggestion.as_ref().map(|s| format!(" (did you mean {s}?)")).unwrap_or_default())]
    UnknownKey {
        /// Where.
        at: Location,
        /// The key as written.
        key: String,
        /// The nearest known key, if one is near.
        suggestion: Option<String>,
    },
    /// A `[section]` header: settings.ini has none.
    #[error(
        "{at}: section header [{name}]: settings.ini has no sections; write every key at the top level, without [{name}]"
    )]
    Section {
        /// Where.
        at: Location,
        /// The section's name.
        name: String,
    },
    /// A folder the crawl writes into cannot be written.
    #[error("{at}: {key} = {}: cannot write there: {source}", path.display())]
    Unwritable {
        /// Where the key is (or the file, for a default).
        at: Location,
        /// The key.
        key: String,
        /// The folder, resolved.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// `StatusAddress` cannot be listened on (in use, or not this machine's address).
    #[error(
        "{at}: StatusAddress = {addr}: cannot serve the status page there: {source}; choose another port (port 0: any free one)"
    )]
    StatusAddress {
        /// Where the key is.
        at: Location,
        /// The address.
        addr: std::net::SocketAddr,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A key written twice.
    #[error("{at}: {key} is set again (first on line {first}); set each key once")]
    Duplicate {
        /// Where the second one is.
        at: Location,
        /// The key.
        key: String,
        /// The line of the first.
        first: usize,
    },
}

/// Something about settings.ini worth saying that does not stop the crawl.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// Where it is about.
    pub at: Location,
    /// What.
    pub text: String,
    note: bool,
}

impl Warning {
    /// A warning: something is probably not what the user meant.
    pub fn new(at: Location, text: impl Into<String>) -> Self {
        Warning {
            at,
            text: text.into(),
            note: false,
        }
    }

    /// A note: nothing is wrong, but the user should know (a key of the paper's settings.ini
    /// that this engine does not need, a component added because another needs it).
    pub fn note(at: Location, text: impl Into<String>) -> Self {
        Warning {
            at,
            text: text.into(),
            note: true,
        }
    }

    /// A note rather than a warning.
    pub fn is_note(&self) -> bool {
        self.note
    }
}

impl std::fmt::Display for Warning {
    /// `note: FILE:LINE: text` or `warning: FILE:LINE: text`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.note { "note" } else { "warning" };
        write!(f, "{kind}: {}: {}", self.at, self.text)
    }
}

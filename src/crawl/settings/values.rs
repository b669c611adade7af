//! Stage 2 of reading settings.ini: one key at a time, as written or its default from the key
//! table, into a typed value — or an error naming the key, the value and what is accepted.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use super::{Location, RawSettings, SettingsError};
use crate::formats::setting_keys::{self as keys, KeyDef, ValueKind, flag_value};

/// Typed lookup of keys, with defaults from the key table; relative paths start at `base`.
pub(super) struct Values<'a> {
    pub(super) raw: &'a RawSettings,
    pub(super) base: &'a Path,
}

impl Values<'_> {
    fn def(&self, key: &str) -> &'static KeyDef {
        keys::find(key).expect("every key read by Settings is in the key table")
    }

    /// Where `key` is written (the file alone when it is left to its default).
    pub(super) fn at(&self, key: &str) -> Location {
        Location {
            path: self.raw.path().to_owned(),
            line: self.raw.line(key),
        }
    }

    /// `key`'s value `value` is not one `expected` describes.
    pub(super) fn bad(&self, key: &str, value: &str, expected: impl Into<String>) -> SettingsError {
        SettingsError::BadValue {
            at: self.at(key),
            key: key.to_owned(),
            value: value.to_owned(),
            expected: expected.into(),
        }
    }

    /// An `ip:port` address, or `None` when empty.
    pub(super) fn socket_address(
        &self,
        key: &str,
    ) -> Result<Option<std::net::SocketAddr>, SettingsError> {
        let text = self.text(key);
        if text.is_empty() {
            return Ok(None);
        }
        text.parse()
            .map(Some)
            .map_err(|_| self.bad(key, text, "an address ip:port, such as 127.0.0.1:8765"))
    }

    /// The text of `key`: as written (trimmed), else its default.
    pub(super) fn text(&self, key: &str) -> &str {
        self.raw
            .get(key)
            .map(str::trim)
            .unwrap_or(self.def(key).default)
    }

    pub(super) fn decimal(&self, key: &str) -> Result<f64, SettingsError> {
        let ValueKind::Decimal { min, max } = self.def(key).kind else {
            unreachable!("{key} is declared as a decimal key")
        };
        let text = self.text(key);
        text.parse::<f64>()
            .ok()
            .filter(|n| n.is_finite() && (min..=max).contains(n))
            .ok_or_else(|| self.bad(key, text, format!("a number from {min} to {max}")))
    }

    /// One of the words a `Choice` key accepts (matched without regard to case).
    pub(super) fn choice(&self, key: &str) -> Result<&'static str, SettingsError> {
        let ValueKind::Choice(words) = self.def(key).kind else {
            unreachable!("{key} is declared as a choice key")
        };
        let text = self.text(key);
        words
            .iter()
            .find(|w| w.eq_ignore_ascii_case(text))
            .copied()
            .ok_or_else(|| self.bad(key, text, format!("one of {}", words.join(", "))))
    }

    /// A component name as written.
    pub(super) fn name(&self, key: &str) -> String {
        self.text(key).to_owned()
    }

    /// A comma-separated list of component names: empty items dropped, each name once.
    pub(super) fn names(&self, key: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for name in list(self.text(key)) {
            if !out.contains(&name) {
                out.push(name);
            }
        }
        out
    }

    pub(super) fn int(&self, key: &str) -> Result<u64, SettingsError> {
        let ValueKind::Integer { min, max } = self.def(key).kind else {
            unreachable!("{key} is declared as an integer key")
        };
        let text = self.text(key);
        text.parse::<u64>()
            .ok()
            .filter(|n| (min..=max).contains(n))
            .ok_or_else(|| self.bad(key, text, format!("an integer from {min} to {max}")))
    }

    /// An integer key that fits `T` (the key table's range keeps it in).
    pub(super) fn small<T: TryFrom<u64>>(&self, key: &str) -> Result<T, SettingsError> {
        let n = self.int(key)?;
        T::try_from(n).map_err(|_| self.bad(key, self.text(key), "a smaller number"))
    }

    pub(super) fn nonzero(&self, key: &str) -> Result<NonZeroUsize, SettingsError> {
        let n = self.int(key)?;
        NonZeroUsize::new(n as usize).ok_or_else(|| self.bad(key, self.text(key), "at least 1"))
    }

    pub(super) fn seconds(&self, key: &str) -> Result<std::time::Duration, SettingsError> {
        Ok(std::time::Duration::from_secs(self.int(key)?))
    }

    pub(super) fn millis(&self, key: &str) -> Result<std::time::Duration, SettingsError> {
        Ok(std::time::Duration::from_millis(self.int(key)?))
    }

    pub(super) fn flag(&self, key: &str) -> Result<bool, SettingsError> {
        let text = self.text(key);
        flag_value(text).ok_or_else(|| self.bad(key, text, FLAG_VALUES))
    }

    pub(super) fn path(&self, key: &str) -> PathBuf {
        let p = PathBuf::from(self.text(key));
        if p.is_absolute() {
            p
        } else {
            self.base.join(p)
        }
    }

    /// A path, or `None` for an empty value.
    pub(super) fn optional_path(&self, key: &str) -> Option<PathBuf> {
        (!self.text(key).is_empty()).then(|| self.path(key))
    }
}

/// A comma-separated list: items trimmed, empty ones dropped.
pub(super) fn list(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// What a yes/no setting takes, for messages.
pub(crate) const FLAG_VALUES: &str =
    "yes or no (1, true, on and 0, false, off are read as yes and no)";

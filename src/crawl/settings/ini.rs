//! Stage 1 of reading settings.ini: the text becomes a [`RawSettings`] map of strings, keys as
//! written. The `config` crate's INI reader (rust-ini underneath) reads the values — quotes,
//! `; comments` after a value, values continued over lines inside quotes — and a scan of the
//! lines says where each key and section header is, so that later messages can name the line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::SettingsError;

/// A key or section name with its line.
type Named = (String, usize);

/// Where a key was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The value as written (trimmed).
    pub value: String,
    /// Its line (1-based), when the scan found it.
    pub line: Option<usize>,
}

/// The keys and values of settings.ini as written, before validation.
#[derive(Debug, Clone, Default)]
pub struct RawSettings {
    /// The file they came from (for messages).
    path: PathBuf,
    values: BTreeMap<String, Written>,
    /// Every line a key is written on, in order (a key written twice has two).
    key_lines: Vec<(String, usize)>,
    /// Section headers, with their lines.
    sections: Vec<(String, usize)>,
    /// Read from a crawl's record (a results folder's crawl.ini, an archive's warcinfo):
    /// every key is there because the crawl ran with it, not because a person set it.
    recorded: bool,
}

/// A results folder's crawl.ini (SPEC §16) is a settings file: its `[settings]` are the
/// settings the crawl ran with, its `[crawl]` section says what wrote them.
const RECORD_SECTIONS: [&str; 2] = ["crawl", "settings"];

impl RawSettings {
    /// Parses INI text read from `path`. Keys keep their case; `; comments` after a value are
    /// dropped.
    pub fn from_ini(text: &str, path: &Path) -> Result<Self, SettingsError> {
        use config::Source;
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let file = config::File::from_str(text, config::FileFormat::Ini);
        let map = file.collect().map_err(|source| SettingsError::Syntax {
            path: path.to_owned(),
            source: Box::new(source),
        })?;
        let (key_lines, sections) = scan_lines(text);
        let line_of = |key: &str| {
            key_lines
                .iter()
                .rev()
                .find(|(k, _)| k == key)
                .map(|&(_, l)| l)
        };
        let mut values = BTreeMap::new();
        for (key, value) in map {
            match value.clone().into_string() {
                Ok(s) => {
                    let line = line_of(&key);
                    values.insert(
                        key,
                        Written {
                            value: s.trim().to_owned(),
                            line,
                        },
                    );
                }
                Err(_) => {
                    // A [section]: we use none, so its keys are unknown keys.
                    if let Ok(table) = value.into_table() {
                        for (k, v) in table {
                            let name = format!("[{key}] {k}");
                            let line = line_of(&name);
                            values.insert(
                                name,
                                Written {
                                    value: v.into_string().unwrap_or_default(),
                                    line,
                                },
                            );
                        }
                    }
                }
            }
        }
        let mut raw = RawSettings {
            path: path.to_owned(),
            values,
            key_lines,
            sections,
            recorded: false,
        };
        if raw.values.contains_key("[crawl] ResultsFormat") {
            raw.read_as_record();
        }
        Ok(raw)
    }

    /// Reads a crawl record's `[settings]` as the settings, leaving its `[crawl]` section
    /// aside; another section stays one (an error, as in any settings file).
    fn read_as_record(&mut self) {
        let unsection = |key: &str| -> Option<String> {
            match key.strip_prefix("[settings] ") {
                Some(k) => Some(k.to_owned()),
                None if key.starts_with("[crawl] ") => None,
                None => Some(key.to_owned()),
            }
        };
        self.values = std::mem::take(&mut self.values)
            .into_iter()
            .filter_map(|(k, w)| Some((unsection(&k)?, w)))
            .collect();
        self.key_lines = std::mem::take(&mut self.key_lines)
            .into_iter()
            .filter_map(|(k, l)| Some((unsection(&k)?, l)))
            .collect();
        self.sections
            .retain(|(name, _)| !RECORD_SECTIONS.contains(&name.as_str()));
        self.recorded = true;
    }

    /// Marks these settings as a crawl's record (an archive's warcinfo read back).
    pub fn mark_recorded(&mut self) {
        self.recorded = true;
    }

    /// Whether these settings are a crawl's record rather than a file a person wrote.
    pub fn is_recorded(&self) -> bool {
        self.recorded
    }

    /// Sets one key (tests and the demo use this to override the file).
    pub fn set(&mut self, key: &str, value: impl Into<String>) {
        self.values.insert(
            key.to_owned(),
            Written {
                value: value.into(),
                line: None,
            },
        );
    }

    /// The value written for `key`, if any.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(|w| w.value.as_str())
    }

    /// The line `key` was written on, if known.
    pub fn line(&self, key: &str) -> Option<usize> {
        self.values.get(key).and_then(|w| w.line)
    }

    /// Every key written, with where.
    pub fn written(&self) -> impl Iterator<Item = (&str, &Written)> {
        self.values.iter().map(|(k, w)| (k.as_str(), w))
    }

    /// The file the settings came from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Keys written more than once: each with the lines it is on.
    pub fn duplicates(&self) -> Vec<(&str, Vec<usize>)> {
        let mut seen: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (k, l) in &self.key_lines {
            seen.entry(k.as_str()).or_default().push(*l);
        }
        seen.into_iter().filter(|(_, l)| l.len() > 1).collect()
    }

    /// Section headers (`[name]`), with their lines.
    pub fn sections(&self) -> &[(String, usize)] {
        &self.sections
    }
}

/// The lines keys and section headers are on (a key under a section named `[section] key`, as
/// the map names it). A line inside a quoted value that continues over lines is neither.
fn scan_lines(text: &str) -> (Vec<Named>, Vec<Named>) {
    let (mut keys, mut sections) = (Vec::new(), Vec::<Named>::new());
    let mut in_quote = false;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let n = i + 1;
        if in_quote {
            if line.matches('"').count() % 2 == 1 {
                in_quote = false;
            }
            continue;
        }
        if line.is_empty() || line.starts_with(';') || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            let name = rest.split(']').next().unwrap_or_default().trim();
            sections.push((name.to_owned(), n));
            continue;
        }
        if let Some((key, value)) = line.split_once('=') {
            let key = key.trim();
            let key = match sections.last() {
                Some((section, _)) => format!("[{section}] {key}"),
                None => key.to_owned(),
            };
            keys.push((key, n));
            // A value that opens a quote and does not close it goes on.
            let value = value.split(" ;").next().unwrap_or_default();
            if value.matches('"').count() % 2 == 1 {
                in_quote = true;
            }
        }
    }
    (keys, sections)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_keys_sections_and_duplicates() {
        let text = "; c\nA = 1\nC = \"x,\n  y\"\nA = 2\n[crawl]\nB = 3\n";
        let raw = RawSettings::from_ini(text, Path::new("s.ini")).unwrap();
        assert_eq!(raw.line("A"), Some(5));
        assert_eq!(raw.get("A"), Some("2"));
        assert_eq!(raw.line("C"), Some(3));
        assert_eq!(raw.sections(), &[("crawl".to_owned(), 6)]);
        assert_eq!(raw.duplicates(), vec![("A", vec![2, 5])]);
        assert_eq!(raw.line("[crawl] B"), Some(7));
        assert!(!raw.is_recorded());
    }

    #[test]
    fn a_crawl_record_reads_as_its_settings() {
        let text = "; c\n[crawl]\nResultsFormat = 1\nVersion = 0.1.0\n\n[settings]\nA = 1\nB = x\n";
        let raw = RawSettings::from_ini(text, Path::new("crawl.ini")).unwrap();
        assert!(raw.is_recorded());
        assert_eq!(raw.get("A"), Some("1"));
        assert_eq!(raw.line("B"), Some(8));
        assert_eq!(raw.get("ResultsFormat"), None);
        assert!(raw.sections().is_empty());
        assert!(raw.duplicates().is_empty());
        // Another section in a record is still one.
        let other = format!("{text}[more]\nC = 1\n");
        let raw = RawSettings::from_ini(&other, Path::new("crawl.ini")).unwrap();
        assert_eq!(raw.sections(), &[("more".to_owned(), 9)]);
    }
}

//! A study's own units of the network of sites (SPEC §20, Hyphe's web entities): a file of
//! `NAME: PREFIX [PREFIX …]` lines. A prefix is `host` (that host and every host under it),
//! `=host` (exactly that host) or `host/path/` (the URLs on that host whose path starts with
//! `/path/`). A URL belongs to the entity of its longest matching prefix: a path beats a
//! host, `=host` beats `host`, a longer path or host beats a shorter one. What no prefix
//! matches falls back to `NetworkUnit`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use thiserror::Error;

/// A bad entities file: its path, the line, and what is wrong (exit 2, nothing written).
#[derive(Debug, Error)]
#[error("{}:{line}: {why}", path.display())]
pub struct EntitiesError {
    /// The file.
    pub path: PathBuf,
    /// Its line (0: the file as a whole).
    pub line: usize,
    /// What is wrong.
    pub why: String,
}

/// The entities of a file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Entities {
    /// Names, by id (file order).
    names: Vec<String>,
    /// Prefixes written, by id, as written (for the report and prospects).
    prefixes: Vec<Vec<String>>,
    /// `host` prefixes: the host, its entity.
    hosts: HashMap<String, u32>,
    /// `=host` prefixes.
    exact: HashMap<String, u32>,
    /// `host/path/` prefixes by host: (path, entity), longest path first.
    paths: HashMap<String, Vec<(String, u32)>>,
}

impl Entities {
    /// Reads the file at `path`.
    pub fn load(path: &Path) -> Result<Self, EntitiesError> {
        let text = std::fs::read_to_string(path).map_err(|e| EntitiesError {
            path: path.to_owned(),
            line: 0,
            why: e.to_string(),
        })?;
        Self::parse(&text, path)
    }

    /// Reads `text` (the file at `path`, for errors).
    pub fn parse(text: &str, path: &Path) -> Result<Self, EntitiesError> {
        let mut e = Entities::default();
        // Where each prefix and name was first written: a second one is an error naming both.
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut named: HashMap<String, usize> = HashMap::new();
        // A file saved by a Windows editor starts with a byte-order mark.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let bad = |why: String| EntitiesError {
                path: path.to_owned(),
                line,
                why,
            };
            // `#` starts a comment, at the start of a line or after a word.
            let content = match raw.find(" #").or_else(|| raw.find("\t#")) {
                Some(at) => &raw[..at],
                None => raw,
            }
            .trim();
            if content.is_empty() || content.starts_with('#') {
                continue;
            }
            let Some((name, rest)) = content.split_once(':') else {
                return Err(bad(format!(
                    "{content:?} is not `NAME: PREFIX [PREFIX ...]` (no colon)"
                )));
            };
            let name = name.trim();
            if name.is_empty() {
                return Err(bad("an entity without a name".into()));
            }
            if let Some(first) = named.insert(name.to_owned(), line) {
                return Err(bad(format!("{name:?} is named twice (also line {first})")));
            }
            let id = u32::try_from(e.names.len()).map_err(|_| bad("too many entities".into()))?;
            let mut written = Vec::new();
            for word in rest.split_whitespace() {
                let prefix = Prefix::parse(word).map_err(|why| bad(format!("{word:?}: {why}")))?;
                let key = prefix.key();
                if let Some(first) = seen.insert(key.clone(), line) {
                    return Err(bad(format!(
                        "the prefix {key} is written twice (also line {first})"
                    )));
                }
                match prefix {
                    Prefix::Host(h) => {
                        e.hosts.insert(h, id);
                    }
                    Prefix::Exact(h) => {
                        e.exact.insert(h, id);
                    }
                    Prefix::Path(h, p) => e.paths.entry(h).or_default().push((p, id)),
                }
                written.push(key);
            }
            if written.is_empty() {
                return Err(bad(format!("{name:?} has no prefix")));
            }
            e.names.push(name.to_owned());
            e.prefixes.push(written);
        }
        for list in e.paths.values_mut() {
            list.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
        }
        Ok(e)
    }

    /// How many entities.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Entity `id`'s name.
    pub fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }

    /// Entity `id`'s prefixes as written (normalized).
    pub fn prefixes(&self, id: u32) -> &[String] {
        &self.prefixes[id as usize]
    }

    /// The entity of a URL on `host` (lower case) with `path`, if a prefix matches.
    pub fn of(&self, host: &str, path: &str) -> Option<u32> {
        if let Some(list) = self.paths.get(host)
            && let Some((_, id)) = list.iter().find(|(p, _)| path_under(path, p))
        {
            return Some(*id);
        }
        if let Some(&id) = self.exact.get(host) {
            return Some(id);
        }
        // The longest host prefix: the host itself, then each parent in turn.
        let mut h = host;
        loop {
            if let Some(&id) = self.hosts.get(h) {
                return Some(id);
            }
            let (_, parent) = h.split_once('.')?;
            h = parent;
        }
    }

    /// The entity of a URL, if a prefix matches (`None` too for a URL without a host).
    pub fn of_url(&self, url: &str) -> Option<u32> {
        let u = url::Url::parse(url).ok()?;
        let host = u.host_str()?.to_ascii_lowercase();
        self.of(&host, u.path())
    }

    /// Whether some `host/path/` prefix is on `host`: its pages may be in several entities.
    pub fn has_paths_on(&self, host: &str) -> bool {
        self.paths.contains_key(host)
    }
}

/// Whether `path` is under the prefix `prefix` (`/~prof/` takes `/~prof/` and
/// `/~prof/x.html`; `/~prof` alone takes `/~prof` and `/~prof/…`, not `/~professor`).
fn path_under(path: &str, prefix: &str) -> bool {
    match path.strip_prefix(prefix) {
        None => prefix.strip_suffix('/') == Some(path),
        Some(rest) => prefix.ends_with('/') || rest.is_empty() || rest.starts_with('/'),
    }
}

/// One prefix of a line.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Prefix {
    Host(String),
    Exact(String),
    Path(String, String),
}

impl Prefix {
    fn parse(word: &str) -> Result<Prefix, String> {
        if word.contains("://") {
            return Err("a prefix is a host or host/path/, without a scheme".into());
        }
        let (exact, rest) = match word.strip_prefix('=') {
            Some(r) => (true, r),
            None => (false, word),
        };
        let (host, path) = match rest.find('/') {
            Some(i) => (&rest[..i], Some(&rest[i..])),
            None => (rest, None),
        };
        let host = host.trim_end_matches('.');
        if host.contains(':') && !host.starts_with('[') {
            return Err("a prefix names a host without a port".into());
        }
        // Links name an internationalised host in its ASCII form (punycode).
        let host = match idna::domain_to_ascii(host) {
            Ok(ascii) if !host.starts_with('[') => ascii,
            _ => host.to_ascii_lowercase(),
        };
        let valid = !host.is_empty()
            && !host.starts_with('.')
            && !host.contains("..")
            && host.chars().all(|c| {
                c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':' | '[' | ']')
            });
        if !valid {
            return Err(format!("{host:?} is not a host name"));
        }
        match (exact, path) {
            (true, Some(_)) => Err("=host takes no path".into()),
            (true, None) => Ok(Prefix::Exact(host)),
            (false, None) | (false, Some("/")) => Ok(Prefix::Host(host)),
            (false, Some(p)) => Ok(Prefix::Path(host, p.to_owned())),
        }
    }

    /// The prefix as one string: what makes two prefixes the same.
    fn key(&self) -> String {
        match self {
            Prefix::Host(h) => h.clone(),
            Prefix::Exact(h) => format!("={h}"),
            Prefix::Path(h, p) => format!("{h}{p}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Entities, EntitiesError> {
        Entities::parse(text, Path::new("entities.txt"))
    }

    #[test]
    fn the_longest_prefix_wins_a_path_beats_a_host_and_an_exact_host_a_host() {
        let e = parse(
            "# the study's actors\n\
             University: uni.test uni-press.test\n\
             \n\
             Professor: uni.test/~prof/\n\
             Library: lib.uni.test\n\
             Front: =www.uni.test\n",
        )
        .unwrap();
        assert_eq!(e.len(), 4);
        let name = |host: &str, path: &str| e.of(host, path).map(|id| e.name(id).to_owned());
        assert_eq!(name("uni.test", "/"), Some("University".into()));
        assert_eq!(name("cs.uni.test", "/x"), Some("University".into()));
        assert_eq!(name("uni-press.test", "/book"), Some("University".into()));
        assert_eq!(name("uni.test", "/~prof/"), Some("Professor".into()));
        assert_eq!(name("uni.test", "/~prof/cv.html"), Some("Professor".into()));
        assert_eq!(name("uni.test", "/~professor/"), Some("University".into()));
        // A path prefix is on its host only.
        assert_eq!(name("www.uni.test", "/~prof/"), Some("Front".into()));
        assert_eq!(name("lib.uni.test", "/"), Some("Library".into()));
        assert_eq!(name("x.lib.uni.test", "/"), Some("Library".into()));
        assert_eq!(name("a.www.uni.test", "/"), Some("University".into()));
        assert_eq!(name("other.test", "/"), None);
        assert_eq!(name("test", "/"), None);
        assert_eq!(
            e.of_url("http://UNI.test:8080/~prof/x").map(|i| e.name(i)),
            Some("Professor")
        );
        // A host written in Unicode matches the punycode links carry; case and a final dot
        // do not matter.
        let idn = parse("Cafe: café.test\nUpper: WWW.Example.TEST.\n").unwrap();
        assert_eq!(
            idn.of("xn--caf-dma.test", "/").map(|i| idn.name(i)),
            Some("Cafe")
        );
        assert_eq!(
            idn.of("www.example.test", "/").map(|i| idn.name(i)),
            Some("Upper")
        );
    }

    #[test]
    fn comments_blank_lines_a_byte_order_mark_and_windows_line_ends_are_nothing() {
        let e = parse("\u{feff}# actors\r\n\r\nUni: uni.test # the main one\r\n\t# indented\n")
            .unwrap();
        assert_eq!(e.len(), 1);
        assert_eq!(e.name(0), "Uni");
        assert_eq!(e.prefixes(0), ["uni.test"]);
    }

    #[test]
    fn a_bad_file_is_named_with_its_line() {
        for (text, line, says) in [
            ("A: a.test\nB a.test\n", 2, "no colon"),
            ("A: a.test\n : b.test\n", 2, "without a name"),
            (
                "A: a.test\nB: b.test a.test\n",
                2,
                "written twice (also line 1)",
            ),
            ("A: a.test\nA: b.test\n", 2, "named twice"),
            ("A:\n", 1, "has no prefix"),
            ("A: http://a.test/\n", 1, "without a scheme"),
            ("A: =a.test/x/\n", 1, "takes no path"),
            ("A: a..test\n", 1, "not a host name"),
            ("A: a.test:8080\n", 1, "without a port"),
        ] {
            let err = parse(text).unwrap_err();
            assert_eq!(err.line, line, "{text:?}: {err}");
            assert!(err.to_string().contains(says), "{text:?}: {err}");
            assert!(
                err.to_string()
                    .starts_with(&format!("entities.txt:{line}: ")),
                "{err}"
            );
        }
        // The same host as `host` and `=host` are two prefixes.
        assert!(parse("A: a.test\nB: =a.test\n").is_ok());
    }
}

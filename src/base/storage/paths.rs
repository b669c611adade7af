//! Paths that come from outside the command line: a folder name read from a file (summary.csv's
//! `Folder`, a saved state's or a database's summary row) and the folders a command writes
//! into. A file can be edited, copied or crafted; what it names is never trusted to stay where
//! it should. Every reader that joins a name read from a file to a folder goes through
//! [`plain_name`]; every command that empties or fills an output folder checks it with
//! [`overlapping`] against what it reads.

use std::path::{Component, Path, PathBuf};

/// Why a name read from a file is not used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotPlain {
    /// Nothing.
    #[error("an empty folder name")]
    Empty,
    /// It names a path, not one entry of the folder it is read in.
    #[error("{0:?} is not a plain folder name (a path, `..`, or an absolute path)")]
    Path(String),
}

/// `name` if it is one plain entry name — no separator, not `.` or `..`, not absolute, no
/// drive or NUL — so that `folder.join(name)` stays inside `folder`.
pub fn plain_name(name: &str) -> Result<&str, NotPlain> {
    if name.is_empty() {
        return Err(NotPlain::Empty);
    }
    let mut parts = Path::new(name).components();
    let one_normal = matches!(parts.next(), Some(Component::Normal(_))) && parts.next().is_none();
    // `a/` is one component to Path, and `\` is a separator where the files may be read.
    if !one_normal || name.contains(['/', '\\', '\0']) {
        return Err(NotPlain::Path(name.to_owned()));
    }
    Ok(name)
}

/// `path` absolute with its links resolved, where it exists: a path that does not exist yet is
/// resolved through its nearest existing ancestor (an output folder about to be made, or a
/// link to an empty folder, is where it leads).
pub fn resolved(path: &Path) -> PathBuf {
    resolved_within(path, 40)
}

/// [`resolved`], following at most `links` dangling links (a loop of links ends).
fn resolved_within(path: &Path, links: u32) -> PathBuf {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut existing = abs.as_path();
    let mut rest = Vec::new();
    while existing.symlink_metadata().is_err() {
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent;
            }
            _ => break,
        }
    }
    let mut real = match existing.canonicalize() {
        Ok(real) => real,
        // A link to what does not exist yet: where it points decides.
        Err(_) => match std::fs::read_link(existing) {
            Ok(target) if links > 0 => {
                let parent = existing.parent().unwrap_or(Path::new("/"));
                resolved_within(&parent.join(target), links - 1)
            }
            _ => existing.to_owned(),
        },
    };
    for name in rest.into_iter().rev() {
        real.push(name);
    }
    real
}

/// The first of `inputs` that `out` is, holds or is inside (links resolved), if any: a command
/// writing into `out` would change what it reads.
pub fn overlapping<'a>(out: &Path, inputs: impl IntoIterator<Item = &'a Path>) -> Option<&'a Path> {
    let o = resolved(out);
    inputs.into_iter().find(|input| {
        let i = resolved(input);
        o.starts_with(&i) || i.starts_with(&o)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_one_plain_name_is_a_folder_name() {
        for ok in ["a.test", "a.test_8080", "___1__81", "x..y", ".hidden"] {
            assert_eq!(plain_name(ok), Ok(ok));
        }
        assert_eq!(plain_name(""), Err(NotPlain::Empty));
        for bad in [
            "..", ".", "../x", "a/../..", "/etc", "/", "a/b", "a/", "./a", "a\\b", "..\\x", "a\0b",
            "C:\\x",
        ] {
            assert!(
                matches!(plain_name(bad), Err(NotPlain::Path(_))),
                "{bad:?} accepted"
            );
        }
    }

    #[test]
    fn an_output_folder_overlaps_what_it_is_in_holds_or_links_to() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let out = dir.path().join("out");
        std::fs::create_dir_all(a.join("inner")).unwrap();
        std::fs::create_dir_all(&out).unwrap();
        let inputs = [a.as_path()];
        assert_eq!(overlapping(&out, inputs), None);
        assert_eq!(overlapping(&a, inputs), Some(a.as_path()));
        assert_eq!(overlapping(&a.join("inner/new"), inputs), Some(a.as_path()));
        assert_eq!(overlapping(dir.path(), inputs), Some(a.as_path()));
        // Through `..` and through a link.
        assert_eq!(overlapping(&out.join("../a/x"), inputs), Some(a.as_path()));
        #[cfg(unix)]
        {
            let link = dir.path().join("link");
            std::os::unix::fs::symlink(a.join("inner"), &link).unwrap();
            assert_eq!(overlapping(&link, inputs), Some(a.as_path()));
            assert_eq!(overlapping(&link.join("new"), inputs), Some(a.as_path()));
            // A dangling link leads where it points.
            let dangling = dir.path().join("dangling");
            std::os::unix::fs::symlink(a.join("gone"), &dangling).unwrap();
            assert_eq!(overlapping(&dangling, inputs), Some(a.as_path()));
        }
    }
}

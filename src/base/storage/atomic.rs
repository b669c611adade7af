//! Atomic file writes: a temp file in the target folder, flushed and fsynced, then renamed
//! over the target, then the folder fsynced. A reader (or a crash) sees the old file or the
//! new one, never half of one (SPEC §4, §8).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Writes `path` atomically with what `fill` writes.
pub fn write_atomic(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    replace_file(path, fill)?;
    sync_dir(parent(path))
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// [`write_atomic`] without the final sync of the folder: for several files of one folder,
/// which then needs one [`sync_dir`] after the last (a site's six result files cost twelve
/// syncs otherwise, 2,400 for a crawl of 200 sites).
pub fn replace_file(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    replace_file_with(path, |file| {
        // Smaller than the chunks the result writers hand over, which then go to the file
        // without a copy; small writes (headers) are still gathered.
        let mut w = BufWriter::with_capacity(64 * 1024, file);
        fill(&mut w)?;
        w.flush()
    })
}

/// Makes the rename of a file in the folder of `path` durable.
pub fn sync_dir_of(path: &Path) -> io::Result<()> {
    sync_dir(parent(path))
}

/// [`replace_file`] handing `fill` the file itself (to seek back and fill in a header).
pub fn replace_file_with(
    path: &Path,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    let dir = parent(path);
    std::fs::create_dir_all(dir)?;
    let mut builder = tempfile::Builder::new();
    builder.prefix(".tmp-");
    // Temp files are private (0600) by default; results are for everyone who may read the
    // folder, as a normally created file would be.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o644));
    }
    let mut tmp = builder.tempfile_in(dir)?;
    fill(tmp.as_file_mut())?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Makes a rename in `dir` durable (a no-op where folders cannot be opened).
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    match File::open(dir) {
        Ok(f) => match f.sync_all() {
            Ok(()) => Ok(()),
            // Some file systems refuse fsync on folders; the rename is still atomic there.
            Err(e)
                if e.kind() == io::ErrorKind::InvalidInput
                    || e.kind() == io::ErrorKind::PermissionDenied =>
            {
                Ok(())
            }
            Err(e) => Err(e),
        },
        Err(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_files_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub/f.csv");
        write_atomic(&p, |w| w.write_all(b"one")).unwrap();
        write_atomic(&p, |w| w.write_all(b"two")).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
        let r = write_atomic(&p, |w| {
            w.write_all(b"partial")?;
            Err(io::Error::other("disk on fire"))
        });
        assert!(r.is_err());
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "two",
            "a failed write leaves the old file"
        );
        let names: Vec<_> = std::fs::read_dir(dir.path().join("sub"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("f.csv")]);
    }
}

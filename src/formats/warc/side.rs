//! Each archive file's side index, `NAME.warc.gz.idx.gz` (gzipped: about 1 % of the file, not
//! 5 %): a line per response and revisit — where it is, the payload digest a later revisit may
//! name, and its CDXJ index line — ended, once the file is finished, by the file's length. A
//! continued crawl reads the side indexes of finished files instead of inflating every record
//! again (the file being written, and a file whose side index is missing or does not end with
//! its length, is scanned as before), and the folder's `index.cdxj` is sorted from them.
//!
//! ```text
//! rccrawler-side 1
//! OFFSET DIGEST|- SURT TIMESTAMP {json}
//! …
//! end LENGTH
//! ```

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use flate2::bufread::GzDecoder;
use flate2::write::GzEncoder;

use super::cdxj;
use super::read::{ScanEnd, scan};
use super::record::digest_bytes;

/// The suffix of a side index, after its archive file's finished name.
pub const SIDE: &str = ".idx.gz";

const MAGIC: &str = "rccrawler-side 1";

/// The side index of archive file `finished` (its finished path, without `.open`).
pub fn side_path(finished: &Path) -> PathBuf {
    let mut p = finished.as_os_str().to_owned();
    p.push(SIDE);
    PathBuf::from(p)
}

/// A side index being written, a line per record as the records are.
#[derive(Debug)]
pub struct SideWriter {
    out: GzEncoder<BufWriter<File>>,
}

impl SideWriter {
    /// Starts side index `path` afresh: what is there goes first — a link planted there is
    /// removed, never written through.
    pub fn create(path: &Path) -> io::Result<SideWriter> {
        match std::fs::remove_file(path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)?;
        let file = BufWriter::with_capacity(1 << 16, file);
        let mut out = GzEncoder::new(file, flate2::Compression::fast());
        writeln!(out, "{MAGIC}")?;
        Ok(SideWriter { out })
    }

    /// The line of the record at `offset`: `first` is its payload digest when later equal
    /// payloads may be archived as revisits of it (a whole response with a body).
    pub fn line(&mut self, offset: u64, first: Option<&str>, cdxj: &str) -> io::Result<()> {
        writeln!(self.out, "{offset} {} {cdxj}", first.unwrap_or("-"))
    }

    /// Ends the side index of a finished file of `len` bytes, durably.
    pub fn finish(mut self, len: u64) -> io::Result<()> {
        writeln!(self.out, "end {len}")?;
        let file = self.out.finish()?;
        let file = file.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()
    }
}

/// What a side index gives a continued crawl: each first payload's digest and offset.
pub type Firsts = Vec<([u8; 20], u64)>;

/// Reads side index `path` of an archive file of `len` bytes: `None` when it is missing,
/// damaged or not ended by that length (the file is scanned instead).
pub fn read_firsts(path: &Path, len: u64) -> Option<Firsts> {
    let mut firsts = Vec::new();
    let ended = each_line(path, |offset, first, _| {
        if let Some(d) = first.and_then(digest_bytes) {
            firsts.push((d, offset));
        }
    })?;
    (ended == len).then_some(firsts)
}

/// The longest line a side index may hold (an index line with a URL of a megabyte): a longer
/// one is damage, not read into memory.
const MAX_LINE: u64 = 1 << 20;

/// Calls `visit(offset, first digest, CDXJ line)` for every line of side index `path`, and
/// gives the length its end line names; `None` when it is missing, not a plain file, damaged
/// or not ended.
pub fn each_line(path: &Path, mut visit: impl FnMut(u64, Option<&str>, &str)) -> Option<u64> {
    // A link or a pipe planted under a side index's name is not followed (a pipe would block).
    if !std::fs::symlink_metadata(path).ok()?.is_file() {
        return None;
    }
    let file = BufReader::with_capacity(1 << 16, File::open(path).ok()?);
    let mut r = BufReader::with_capacity(1 << 16, GzDecoder::new(file));
    let mut line = String::new();
    for at in 0u64.. {
        line.clear();
        let n = (&mut r).take(MAX_LINE).read_line(&mut line).ok()?;
        if n == 0 || !line.ends_with('\n') {
            return None;
        }
        let l = line.trim_end_matches('\n');
        if at == 0 {
            if l != MAGIC {
                return None;
            }
            continue;
        }
        if let Some(len) = l.strip_prefix("end ") {
            // Nothing after it, and the checksum holds (checked at the stream's end).
            return match r.read(&mut [0u8; 1]) {
                Ok(0) => len.parse().ok(),
                _ => None,
            };
        }
        let (offset, rest) = l.split_once(' ')?;
        let (first, cdxj) = rest.split_once(' ')?;
        let first = (first != "-").then_some(first);
        visit(offset.parse().ok()?, first, cdxj);
    }
    None
}

/// Scans archive file `path` (finished name `finished`), calling `line(first digest, offset,
/// CDXJ line)` for each response and revisit — the digest when later equal payloads may be
/// revisits of it (a whole response).
pub fn rescan(
    path: &Path,
    finished: &str,
    mut line: impl FnMut(Option<&str>, u64, &str) -> io::Result<()>,
) -> io::Result<ScanEnd> {
    let mut failed = None;
    let end = scan(path, |offset, length, r| {
        let Some(cdxj) = cdxj::line(r, finished, offset, length) else {
            return;
        };
        let first = (r.field("WARC-Type") == Some("response")
            && r.field("WARC-Truncated").is_none())
        .then(|| r.field("WARC-Payload-Digest"))
        .flatten();
        if failed.is_none()
            && let Err(e) = line(first, offset, &cdxj)
        {
            failed = Some(e);
        }
    })?;
    failed.map_or(Ok(end), Err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_side_index_is_read_only_when_it_ends_with_its_file_s_length() {
        let dir = tempfile::tempdir().unwrap();
        let path = side_path(&dir.path().join("a.warc.gz"));
        let digest = super::super::record::sha1_digest(b"x");
        let mut w = SideWriter::create(&path).unwrap();
        w.line(10, Some(&digest), "test,a)/ 2026 {}").unwrap();
        w.line(90, None, "test,a)/b 2026 {}").unwrap();
        w.out.flush().unwrap();
        w.out.get_mut().flush().unwrap();
        // Not ended yet: a file killed while it was written is scanned.
        assert_eq!(read_firsts(&path, 100), None);
        w.finish(100).unwrap();
        let firsts = read_firsts(&path, 100).unwrap();
        assert_eq!(firsts, vec![(digest_bytes(&digest).unwrap(), 10)]);
        // The file grew or shrank since: scanned.
        assert_eq!(read_firsts(&path, 101), None);
        let mut lines = Vec::new();
        each_line(&path, |o, _, l| lines.push((o, l.to_owned())));
        assert_eq!(lines[1], (90, "test,a)/b 2026 {}".to_owned()));
        // Damage in the middle: scanned.
        let bytes = std::fs::read(&path).unwrap();
        let n = bytes.len();
        for at in [20, n / 2, n - 12, n - 3] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x55;
            std::fs::write(&path, &damaged).unwrap();
            assert_eq!(read_firsts(&path, 100), None, "byte {at} of {n}");
        }

        assert_eq!(read_firsts(&dir.path().join("none.idx"), 100), None);
    }
}

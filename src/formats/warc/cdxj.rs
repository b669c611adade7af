//! The CDXJ index of an archive folder (`index.cdxj`): a line per response and revisit
//! record — `SURT timestamp {json}` with the URL, MIME type, status, payload digest, and where
//! the record is (file, offset, length) — sorted by SURT key then time, as pywb and warcio
//! write it.

use std::fmt::Write as _;
use std::io;
use std::path::Path;

use super::read::{RawRecord, scan};
use super::record::{cdx_timestamp, head_len};
use super::side;
use crate::base::storage::sorted_lines::LineSorter;

/// The index file's name in an archive folder.
pub const INDEX_FILE: &str = "index.cdxj";

pub use super::surt::surt;

fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The index line of a record at `offset` (`length` bytes) of file `filename`, if it is a
/// response or a revisit.
pub fn line(record: &RawRecord<'_>, filename: &str, offset: u64, length: u64) -> Option<String> {
    let kind = record.field("WARC-Type")?;
    if kind != "response" && kind != "revisit" {
        return None;
    }
    let (status, mime) = status_and_mime(&record.block[..head_len(&record.block)]);
    let entry = Entry {
        url: record.field("WARC-Target-URI")?,
        date: record.field("WARC-Date").unwrap_or(""),
        mime: if kind == "revisit" {
            "warc/revisit"
        } else {
            &mime
        },
        status: &status,
        digest: record.field("WARC-Payload-Digest").unwrap_or(""),
    };
    Some(entry.line(filename, offset, length))
}

/// The status code and MIME type (its essence) of an HTTP answer's head.
pub fn status_and_mime(head: &[u8]) -> (String, String) {
    let head = String::from_utf8_lossy(head);
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap_or("")
        .to_owned();
    let mime = lines
        .filter_map(|l| l.split_once(':'))
        .find(|(n, _)| n.trim().eq_ignore_ascii_case("content-type"))
        .map(|(_, v)| v.split(';').next().unwrap_or("").trim().to_owned())
        .unwrap_or_default();
    (status, mime)
}

/// What an index line says of a `response` or `revisit` record besides where it is.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    /// `WARC-Target-URI`.
    pub url: &'a str,
    /// `WARC-Date`.
    pub date: &'a str,
    /// The answer's MIME type (`warc/revisit` for a revisit).
    pub mime: &'a str,
    /// Its status code.
    pub status: &'a str,
    /// `WARC-Payload-Digest`.
    pub digest: &'a str,
}

impl Entry<'_> {
    /// The index line of the record at `offset` (`length` bytes) of file `filename`.
    pub fn line(&self, filename: &str, offset: u64, length: u64) -> String {
        let mut json = String::from("{\"url\": ");
        json_string(self.url, &mut json);
        for (name, value) in [
            ("mime", self.mime),
            ("status", self.status),
            ("digest", self.digest),
            ("length", &length.to_string()),
            ("offset", &offset.to_string()),
            ("filename", filename),
        ] {
            let _ = write!(json, ", \"{name}\": ");
            json_string(value, &mut json);
        }
        json.push('}');
        format!("{} {} {json}", surt(self.url), cdx_timestamp(self.date))
    }
}

/// The unsorted index lines earlier versions kept beside the files (removed when found: the
/// side indexes hold them now).
pub const UNSORTED_FILE: &str = "index.unsorted";

/// Writes `folder/index.cdxj`, sorted, from the side indexes of archive files `files` (names
/// in `folder`, finished; one removed since is left out) — a file whose side index does not
/// read is scanned — in bounded memory. The unsorted index an earlier version wrote goes.
pub fn index_from_sides(folder: &Path, files: &[String]) -> io::Result<()> {
    let mut sorter = LineSorter::new(folder);
    for name in files {
        let path = folder.join(name);
        // A file removed since it was written holds no record to index.
        let len = match std::fs::metadata(&path) {
            Ok(m) => m.len(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        let side = side::side_path(&path);
        // Read whole first, then again into the sorter: a file's lines are not held at once.
        if side::each_line(&side, |_, _, _| {}) == Some(len) {
            let mut failed = Ok(());
            side::each_line(&side, |_, _, l| {
                if failed.is_ok() {
                    failed = sorter.push(l.to_owned());
                }
            });
            failed?;
            continue;
        }
        let mut failed = Ok(());
        scan(&path, |offset, length, record| {
            if let (Ok(()), Some(l)) = (&failed, line(record, name, offset, length)) {
                failed = sorter.push(l);
            }
        })?;
        failed?;
    }
    crate::base::storage::atomic::replace_file_with(&folder.join(INDEX_FILE), |f| {
        let mut w = io::BufWriter::new(f);
        sorter.write_sorted(&mut w)?;
        io::Write::flush(&mut w)
    })?;
    match std::fs::remove_file(folder.join(UNSORTED_FILE)) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surt_keys() {
        assert_eq!(
            surt("http://www.Example.com/A/b?X=1"),
            "com,example)/a/b?x=1"
        );
        assert_eq!(surt("https://a.test:8443/"), "test,a:8443)/");
        assert_eq!(surt("http://sub.a.test/"), "test,a,sub)/");
    }
}

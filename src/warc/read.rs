//! Reading a WARC file back, record by record (each a gzip member): for the index, and to
//! find where a file killed mid-write stops being whole.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek};
use std::path::Path;

/// A record read back: its named fields, in order, and its block.
#[derive(Debug, Clone)]
pub struct RawRecord {
    /// `(name, value)`, as written.
    pub fields: Vec<(String, String)>,
    /// The block.
    pub block: Vec<u8>,
}

impl RawRecord {
    /// The value of field `name` (case-insensitive), if the record has it.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Parses an uncompressed record; `None` when it is not a whole WARC record.
    pub fn parse(raw: &[u8]) -> Option<RawRecord> {
        let end = memchr::memmem::find(raw, b"\r\n\r\n")?;
        let head = std::str::from_utf8(&raw[..end]).ok()?;
        let mut lines = head.split("\r\n");
        if !lines.next()?.starts_with("WARC/") {
            return None;
        }
        let fields: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
            .collect();
        let len: usize = fields
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("Content-Length"))?
            .1
            .parse()
            .ok()?;
        let block = raw.get(end + 4..end + 4 + len)?;
        if raw.get(end + 4 + len..)? != b"\r\n\r\n" {
            return None;
        }
        Some(RawRecord {
            fields,
            block: block.to_vec(),
        })
    }
}

/// How a scan of a file ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanEnd {
    /// Where the last whole record ends.
    pub whole: u64,
    /// The file's length: more than `whole` when its tail is torn.
    pub len: u64,
}

/// Calls `visit(offset, length, record)` for every whole record of WARC file `path`, in order,
/// until the end or the first member that is not a whole record (a torn tail).
pub fn scan(path: &Path, mut visit: impl FnMut(u64, u64, &RawRecord)) -> io::Result<ScanEnd> {
    let file = File::open(path)?;
    let len = file.metadata()?.len();
    let mut r = BufReader::with_capacity(1 << 16, file);
    let mut pos = 0;
    let mut raw = Vec::new();
    while pos < len {
        raw.clear();
        // One gzip member: the buffered decoder stops at its end.
        let ok = flate2::bufread::GzDecoder::new(&mut r)
            .read_to_end(&mut raw)
            .is_ok();
        let end = r.stream_position()?;
        let Some(record) = ok.then(|| RawRecord::parse(&raw)).flatten() else {
            break;
        };
        visit(pos, end - pos, &record);
        pos = end;
    }
    Ok(ScanEnd { whole: pos, len })
}

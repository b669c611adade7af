//! Reading a WARC file back, record by record (each a gzip member): for the index, and to
//! find where a file killed mid-write stops being whole.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek};
use std::path::Path;

/// A record read back: its named fields, in order, and its block — borrowed from the bytes it
/// was read from while a file is scanned (nothing copied), owned when kept.
#[derive(Debug, Clone)]
pub struct RawRecord<'a> {
    /// `(name, value)`, as written.
    pub fields: Vec<(String, String)>,
    /// The block.
    pub block: std::borrow::Cow<'a, [u8]>,
}

impl RawRecord<'_> {
    /// The record with its block owned.
    pub fn into_owned(self) -> RawRecord<'static> {
        RawRecord {
            fields: self.fields,
            block: std::borrow::Cow::Owned(self.block.into_owned()),
        }
    }
}

impl<'a> RawRecord<'a> {
    /// The value of field `name` (case-insensitive), if the record has it.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Parses an uncompressed record; `None` when it is not a whole WARC record.
    pub fn parse(raw: &'a [u8]) -> Option<RawRecord<'a>> {
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
            block: std::borrow::Cow::Borrowed(block),
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

thread_local! {
    /// Each thread's inflate stream, reset for every member: a decoder per member allocated
    /// its state and window each time, and on a re-crawl's opening scan of the Rust
    /// documentation's archive (100,000 members) the heap kept 700 MB of freed pieces.
    static INFLATE: std::cell::RefCell<Option<flate2::Decompress>> =
        const { std::cell::RefCell::new(None) };
}

/// Reads one gzip member (RFC 1952) from `r` into `out`; `false` when it is not whole (the
/// input ends first, or its CRC or length is wrong).
pub fn gunzip_member(r: &mut impl BufRead, out: &mut Vec<u8>) -> io::Result<bool> {
    let mut h = [0u8; 10];
    if r.read_exact(&mut h).is_err() || h[..3] != [0x1f, 0x8b, 8] {
        return Ok(false);
    }
    let flags = h[3];
    if flags & 4 != 0 {
        let mut xlen = [0u8; 2];
        r.read_exact(&mut xlen)?;
        io::copy(
            &mut r.take(u64::from(u16::from_le_bytes(xlen))),
            &mut io::sink(),
        )?;
    }
    for bit in [8u8, 16] {
        if flags & bit != 0 {
            r.read_until(0, &mut Vec::new())?;
        }
    }
    if flags & 2 != 0 {
        r.read_exact(&mut [0u8; 2])?;
    }
    let start = out.len();
    let ended = INFLATE.with(|cell| -> io::Result<bool> {
        let mut cell = cell.borrow_mut();
        let z = cell.get_or_insert_with(|| flate2::Decompress::new(false));
        z.reset(false);
        loop {
            let input = r.fill_buf()?;
            if input.is_empty() {
                return Ok(false);
            }
            if out.capacity() - out.len() < 4096 {
                out.reserve(input.len() * 3 + 4096);
            }
            let before = z.total_in();
            let status = z
                .decompress_vec(input, out, flate2::FlushDecompress::None)
                .map_err(io::Error::other)?;
            let used = usize::try_from(z.total_in() - before).unwrap_or(input.len());
            r.consume(used);
            if status == flate2::Status::StreamEnd {
                return Ok(true);
            }
        }
    })?;
    let mut trailer = [0u8; 8];
    if !ended || r.read_exact(&mut trailer).is_err() {
        return Ok(false);
    }
    let mut crc = flate2::Crc::new();
    crc.update(&out[start..]);
    let whole =
        trailer[..4] == crc.sum().to_le_bytes() && trailer[4..] == crc.amount().to_le_bytes();
    Ok(whole)
}

/// Calls `visit(offset, length, record)` for every whole record of WARC file `path`, in order,
/// until the end or the first member that is not a whole record (a torn tail).
pub fn scan(path: &Path, mut visit: impl FnMut(u64, u64, &RawRecord<'_>)) -> io::Result<ScanEnd> {
    let file = File::open(path)?;
    let len = file.metadata()?.len();
    let mut r = BufReader::with_capacity(1 << 16, file);
    let mut pos = 0;
    let mut raw = Vec::new();
    while pos < len {
        raw.clear();
        let ok = gunzip_member(&mut r, &mut raw).unwrap_or(false);
        let end = r.stream_position()?;
        let Some(record) = ok.then(|| RawRecord::parse(&raw)).flatten() else {
            break;
        };
        visit(pos, end - pos, &record);
        pos = end;
    }
    Ok(ScanEnd { whole: pos, len })
}

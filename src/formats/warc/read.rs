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

    /// A record's WARC head (its version line and fields, without the empty line), with an
    /// empty block; `None` when it is not a WARC head.
    fn parse_head(head: &[u8]) -> Option<RawRecord<'a>> {
        let head = std::str::from_utf8(head).ok()?;
        let mut lines = head.split("\r\n");
        if !lines.next()?.starts_with("WARC/") {
            return None;
        }
        let fields: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
            .collect();
        Some(RawRecord {
            fields,
            block: std::borrow::Cow::Borrowed(&[]),
        })
    }

    /// Parses an uncompressed record; `None` when it is not a whole WARC record.
    pub fn parse(raw: &'a [u8]) -> Option<RawRecord<'a>> {
        let end = memchr::memmem::find(raw, b"\r\n\r\n")?;
        let RawRecord { fields, .. } = RawRecord::parse_head(&raw[..end])?;
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

/// A span of a file that held no whole record and was passed over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Skipped {
    /// Where it starts.
    pub offset: u64,
    /// Its length.
    pub bytes: u64,
}

/// How a scan of a file ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanEnd {
    /// Where the last whole record ends.
    pub whole: u64,
    /// The file's length: more than `whole` when its tail is torn.
    pub len: u64,
    /// Damaged spans with whole records after them (a flipped byte, a cut in the middle, a
    /// record whose length lies), passed over: every record after them was read.
    pub skipped: Vec<Skipped>,
}

impl ScanEnd {
    /// The problems of file `path` in words, one a span (for the console and the error log).
    pub fn problems(&self, path: &Path) -> Vec<String> {
        self.skipped
            .iter()
            .map(|s| {
                format!(
                    "{}: {} damaged bytes at offset {} skipped (no whole record; the records after them were read)",
                    path.display(),
                    s.bytes,
                    s.offset
                )
            })
            .collect()
    }
}

/// What the first bytes of a record are kept for when a file is scanned: its WARC head and the
/// start of its block (the HTTP head, a `metadata` or `warcinfo` record's fields). The rest is
/// inflated for its checksum and dropped: a record that inflates to gigabytes costs a scan
/// this much.
pub const SCAN_KEEP: usize = 1 << 20;

thread_local! {
    /// Each thread's inflate stream, reset for every member: a decoder per member allocated
    /// its state and window each time, and on a re-crawl's opening scan of the Rust
    /// documentation's archive (100,000 members) the heap kept 700 MB of freed pieces.
    static INFLATE: std::cell::RefCell<Option<flate2::Decompress>> =
        const { std::cell::RefCell::new(None) };
}

/// What reading one gzip member gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Member {
    /// A whole member (its CRC and length right) that inflated to `len` bytes, of which the
    /// first `keep` asked for are in the output.
    Whole {
        /// Its inflated length.
        len: u64,
    },
    /// Not a whole member: the input ends first, it is not gzip, or its CRC or length is
    /// wrong.
    Broken,
    /// Longer than `keep`, and not read further (see [`Past::Stop`]).
    Cut,
}

/// What [`gunzip_member`] does with what a member inflates to past the bytes kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Past {
    /// Inflates it for the checksum: whether the member is whole is known.
    Check,
    /// Stops: a member whose wholeness was checked before (when the file was scanned) is read
    /// again for its first bytes only.
    Stop,
}

/// Reads one gzip member (RFC 1952) from `r`, appending at most `keep` bytes of what it
/// inflates to `out` (the rest is inflated for the checksum only, or not at all: `past`).
pub fn gunzip_member(
    r: &mut impl BufRead,
    out: &mut Vec<u8>,
    keep: usize,
    past: Past,
) -> io::Result<Member> {
    if !gzip_header(r)? {
        return Ok(Member::Broken);
    }
    let mut crc = flate2::Crc::new();
    match inflate(r, out, keep, past, &mut crc)? {
        Inflated::Ended => {}
        Inflated::Cut => return Ok(Member::Cut),
        Inflated::Broken => return Ok(Member::Broken),
    }
    let mut trailer = [0u8; 8];
    if r.read_exact(&mut trailer).is_err() {
        return Ok(Member::Broken);
    }
    let whole =
        trailer[..4] == crc.sum().to_le_bytes() && trailer[4..] == crc.amount().to_le_bytes();
    let len = INFLATE.with(|cell| {
        cell.borrow()
            .as_ref()
            .map_or(0, flate2::Decompress::total_out)
    });
    Ok(if whole {
        Member::Whole { len }
    } else {
        Member::Broken
    })
}

/// Reads a gzip member's header (RFC 1952 §2.3); `false` when it is not one.
fn gzip_header(r: &mut impl BufRead) -> io::Result<bool> {
    let mut h = [0u8; 10];
    if r.read_exact(&mut h).is_err() || h[..3] != [0x1f, 0x8b, 8] {
        return Ok(false);
    }
    let flags = h[3];
    if flags & 4 != 0 {
        let mut xlen = [0u8; 2];
        if r.read_exact(&mut xlen).is_err() {
            return Ok(false);
        }
        io::copy(
            &mut r.take(u64::from(u16::from_le_bytes(xlen))),
            &mut io::sink(),
        )?;
    }
    for bit in [8u8, 16] {
        if flags & bit != 0 {
            // A name or comment is short; one that runs on is not a member rccrawler wrote.
            let mut skipped = Vec::new();
            r.take(4096).read_until(0, &mut skipped)?;
            if skipped.last() != Some(&0) {
                return Ok(false);
            }
        }
    }
    Ok(flags & 2 == 0 || r.read_exact(&mut [0u8; 2]).is_ok())
}

/// How a member's deflate stream ended.
enum Inflated {
    /// At its end.
    Ended,
    /// At `keep` bytes, with [`Past::Stop`].
    Cut,
    /// Not a stream that ends: the input ran out, or it is not deflate data.
    Broken,
}

/// Inflates a member's deflate stream from `r`, appending at most `keep` bytes to `out` and
/// checksumming what it inflates into `crc`.
fn inflate(
    r: &mut impl BufRead,
    out: &mut Vec<u8>,
    keep: usize,
    past: Past,
    crc: &mut flate2::Crc,
) -> io::Result<Inflated> {
    let start = out.len();
    INFLATE.with(|cell| {
        let mut cell = cell.borrow_mut();
        let z = cell.get_or_insert_with(|| flate2::Decompress::new(false));
        z.reset(false);
        let mut scratch = Vec::new();
        loop {
            let input = r.fill_buf()?;
            if input.is_empty() {
                return Ok(Inflated::Broken);
            }
            let room = keep.saturating_sub(out.len() - start);
            if room == 0 && past == Past::Stop {
                return Ok(Inflated::Cut);
            }
            // Into the output while it has room, past that into a scratch buffer that is
            // checksummed and dropped.
            let target = if room > 0 {
                if out.capacity() - out.len() < 4096 {
                    out.reserve((input.len() * 3 + 4096).min(room));
                }
                &mut *out
            } else {
                scratch.clear();
                scratch.reserve(1 << 16);
                &mut scratch
            };
            let produced_from = target.len();
            let before = z.total_in();
            let Ok(status) = z.decompress_vec(input, target, flate2::FlushDecompress::None) else {
                // Not deflate data: a damaged member.
                return Ok(Inflated::Broken);
            };
            crc.update(&target[produced_from..]);
            let progress = target.len() > produced_from;
            if room > 0 && target.len() - start > keep {
                target.truncate(start + keep);
            }
            let used = usize::try_from(z.total_in() - before).unwrap_or(input.len());
            r.consume(used);
            if status == flate2::Status::StreamEnd {
                return Ok(Inflated::Ended);
            }
            if used == 0 && !progress {
                // No progress with input left: not a stream that ends.
                return Ok(Inflated::Broken);
            }
        }
    })
}

/// A whole record: its WARC head reads, and its `Content-Length` is what the member inflated
/// to (head, block, the two line ends); `raw` holds its first bytes (all of them when short).
pub(crate) fn record_of(raw: &[u8], member: Member) -> Option<RawRecord<'_>> {
    let len = match member {
        Member::Whole { len } => Some(len),
        // Read again for its first bytes: its length was checked when it was scanned.
        Member::Cut => None,
        Member::Broken => return None,
    };
    if let Some(len) = len
        && usize::try_from(len).ok()? <= raw.len()
    {
        return RawRecord::parse(raw);
    }
    // Kept in part: the head is read, the block is its first bytes.
    let end = memchr::memmem::find(raw, b"\r\n\r\n")?;
    let mut r = RawRecord::parse_head(&raw[..end])?;
    let declared: u64 = r.field("Content-Length")?.parse().ok()?;
    if let Some(len) = len
        && declared.checked_add(end as u64 + 8)? != len
    {
        return None;
    }
    r.block = std::borrow::Cow::Borrowed(&raw[end + 4..]);
    Some(r)
}

/// The WARC head of the record at `offset` of file `path` (its block cut to what was read
/// with it); `None` when no record starts there.
pub fn head_at(path: &Path, offset: u64) -> io::Result<Option<RawRecord<'static>>> {
    /// A record's WARC head is a few hundred bytes; its block is not wanted.
    const HEAD_KEEP: usize = 1 << 16;
    let mut file = File::open(path)?;
    file.seek(io::SeekFrom::Start(offset))?;
    let mut r = BufReader::with_capacity(1 << 14, file);
    let mut raw = Vec::new();
    let member = gunzip_member(&mut r, &mut raw, HEAD_KEEP, Past::Stop)?;
    Ok(record_of(&raw, member).map(RawRecord::into_owned))
}

/// Calls `visit(offset, length, record)` for every whole record of WARC file `path`, in order
/// (each kept to its first [`SCAN_KEEP`] bytes). A member that is not a whole record is passed
/// over to the next one that is — a gzip member whose WARC head reads — and its span named in
/// [`ScanEnd::skipped`]; what follows the last whole record with none after it is the torn
/// tail (`whole` < `len`).
pub fn scan(path: &Path, mut visit: impl FnMut(u64, u64, &RawRecord<'_>)) -> io::Result<ScanEnd> {
    let file = File::open(path)?;
    let len = file.metadata()?.len();
    let mut r = BufReader::with_capacity(1 << 16, file);
    let mut pos = 0;
    let mut whole = 0;
    let mut skipped = Vec::new();
    let mut raw = Vec::new();
    while pos < len {
        raw.clear();
        let member =
            gunzip_member(&mut r, &mut raw, SCAN_KEEP, Past::Check).unwrap_or(Member::Broken);
        let end = r.stream_position()?;
        if let Some(record) = record_of(&raw, member) {
            visit(pos, end - pos, &record);
            pos = end;
            whole = end;
            continue;
        }
        // Damage: the next member that is a whole record, if any.
        match next_record(&mut r, pos + 1, len)? {
            Some(next) => {
                skipped.push(Skipped {
                    offset: pos,
                    bytes: next - pos,
                });
                pos = next;
                r.seek(io::SeekFrom::Start(pos))?;
            }
            None => break,
        }
    }
    Ok(ScanEnd {
        whole,
        len,
        skipped,
    })
}

/// The offset of the first whole record at or after `from`: where the gzip magic starts a
/// member that inflates to a record whose WARC head reads.
fn next_record(r: &mut BufReader<File>, from: u64, len: u64) -> io::Result<Option<u64>> {
    const MAGIC: [u8; 3] = [0x1f, 0x8b, 8];
    let mut at = from;
    let mut window = vec![0u8; 1 << 16];
    let mut raw = Vec::new();
    while at < len {
        r.seek(io::SeekFrom::Start(at))?;
        let n = r.get_mut().read(&mut window)?;
        if n < MAGIC.len() {
            return Ok(None);
        }
        let mut found = None;
        let mut i = 0;
        while let Some(k) = memchr::memmem::find(&window[i..n], &MAGIC) {
            let candidate = at + (i + k) as u64;
            r.seek(io::SeekFrom::Start(candidate))?;
            raw.clear();
            let member =
                gunzip_member(r, &mut raw, SCAN_KEEP, Past::Check).unwrap_or(Member::Broken);
            if record_of(&raw, member).is_some() {
                found = Some(candidate);
                break;
            }
            i += k + 1;
        }
        if found.is_some() {
            return Ok(found);
        }
        // The magic may straddle two windows.
        at += (n - (MAGIC.len() - 1)) as u64;
    }
    Ok(None)
}

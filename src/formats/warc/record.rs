//! One WARC 1.1 record: its named fields, its block, and the bytes of the file — each record a
//! gzip member of its own, so that a reader (and the CDXJ index) can seek to any record.

use std::io::Write as _;
use std::time::SystemTime;

use sha1::{Digest, Sha1};

/// The kinds of record the archive writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordType {
    /// What wrote the file, and how (first in every file).
    Warcinfo,
    /// An HTTP request as sent.
    Request,
    /// An HTTP response as received.
    Response,
    /// A response whose payload equals an earlier one's: its head only.
    Revisit,
    /// What the crawler read of a page (its level, its outlinks).
    Metadata,
    /// A page's DOM as a browser rendered it (SPEC §18), referring to the page's response.
    Conversion,
}

impl RecordType {
    /// As `WARC-Type` writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            RecordType::Warcinfo => "warcinfo",
            RecordType::Request => "request",
            RecordType::Response => "response",
            RecordType::Revisit => "revisit",
            RecordType::Metadata => "metadata",
            RecordType::Conversion => "conversion",
        }
    }
}

/// The revisit profile of a payload equal to an earlier one (WARC 1.1 §6.7.2).
pub const IDENTICAL_PAYLOAD: &str =
    "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest";

/// The revisit profile of a `304 Not Modified` to a re-crawl's conditional request (WARC 1.1
/// §6.7.3).
pub const SERVER_NOT_MODIFIED: &str = "http://netpreserve.org/warc/1.1/revisit/server-not-modified";

/// A record to write.
#[derive(Debug, Clone)]
pub struct Record<'a> {
    /// `WARC-Type`.
    pub kind: RecordType,
    /// `WARC-Record-ID`, `<urn:uuid:…>`.
    pub id: String,
    /// `WARC-Date`.
    pub date: SystemTime,
    /// `WARC-Target-URI`, when it has one.
    pub target_uri: Option<String>,
    /// `Content-Type` of the block.
    pub content_type: &'static str,
    /// More named fields, in order (`WARC-Concurrent-To`, `WARC-Payload-Digest`, …).
    pub fields: Vec<(&'static str, String)>,
    /// The block, in parts written one after the other (a response's head, then its body
    /// as the crawler holds it: a page is not copied to be archived).
    pub block: Vec<&'a [u8]>,
}

/// What the crawler read of a page, for its `metadata` record.
#[derive(Debug, Clone, Copy)]
pub struct PageFacts<'a> {
    /// Its level (none: an orphan).
    pub level: Option<u32>,
    /// Its links, as the crawler read them.
    pub outlinks: &'a [&'a str],
}

/// A page's `metadata` block: its level and outlinks, a line each.
pub fn metadata_block(p: &PageFacts<'_>) -> String {
    let len: usize = p.outlinks.iter().map(|l| l.len() + 11).sum();
    let mut block = String::with_capacity(len + 16);
    if let Some(level) = p.level {
        block.push_str("level: ");
        block.push_str(&level.to_string());
        block.push_str("\r\n");
    }
    for link in p.outlinks {
        block.push_str("outlink: ");
        block.push_str(link);
        block.push_str("\r\n");
    }
    block
}

/// `sha1:` and the base32 SHA-1 of `bytes`, as WARC digests are written.
pub fn sha1_digest(bytes: &[u8]) -> String {
    sha1_of_parts(&[bytes])
}

/// A SHA-1 as WARC digests write it: `sha1:` and base32.
pub fn digest_string(sha1: &[u8; 20]) -> String {
    format!("sha1:{}", data_encoding::BASE32.encode(sha1))
}

/// The SHA-1 a `sha1:` digest names; `None` for another algorithm or a malformed one.
pub fn digest_bytes(digest: &str) -> Option<[u8; 20]> {
    let b32 = digest.strip_prefix("sha1:")?;
    data_encoding::BASE32
        .decode(b32.as_bytes())
        .ok()?
        .try_into()
        .ok()
}

/// [`sha1_digest`] of `parts` one after the other.
pub fn sha1_of_parts(parts: &[&[u8]]) -> String {
    let mut h = Sha1::new();
    for p in parts {
        h.update(p);
    }
    format!("sha1:{}", data_encoding::BASE32.encode(&h.finalize()))
}

/// A WARC date (W3C ISO 8601, UTC, to the microsecond as WARC 1.1 allows): a page's two
/// copies, fetched one after the other, are told apart by it when the archive is read back.
pub fn warc_date(t: SystemTime) -> String {
    let ms = crate::base::utc::utc_timestamp(t);
    let micros = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default()
        .subsec_micros();
    // `…SS.mmmZ` → `…SS.uuuuuuZ`.
    format!("{}.{micros:06}Z", &ms[..ms.len().saturating_sub(5)])
}

/// The 14 digits of a CDXJ timestamp (`20261128134500`) of a WARC date.
pub fn cdx_timestamp(warc_date: &str) -> String {
    warc_date
        .chars()
        .filter(char::is_ascii_digit)
        .take(14)
        .collect()
}

impl Record<'_> {
    /// The block's length.
    fn block_len(&self) -> usize {
        self.block.iter().map(|p| p.len()).sum()
    }

    /// The version line and fields, through the empty line before the block.
    fn header(&self) -> Vec<u8> {
        self.header_digested(None)
    }

    /// [`Self::header`], with the block's SHA-1 when the caller has it already.
    fn header_digested(&self, block_sha1: Option<&[u8; 20]>) -> Vec<u8> {
        let mut out = Vec::with_capacity(512);
        let _ = write!(
            out,
            "WARC/1.1\r\nWARC-Type: {}\r\nWARC-Record-ID: {}\r\nWARC-Date: {}\r\n",
            self.kind.as_str(),
            self.id,
            warc_date(self.date)
        );
        if let Some(uri) = &self.target_uri {
            let _ = write!(out, "WARC-Target-URI: {uri}\r\n");
        }
        for (name, value) in &self.fields {
            let _ = write!(out, "{name}: {value}\r\n");
        }
        let _ = write!(
            out,
            "WARC-Block-Digest: {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n\r\n",
            block_sha1.map_or_else(|| sha1_of_parts(&self.block), digest_string),
            self.content_type,
            self.block_len()
        );
        out
    }

    /// The record as a WARC file holds it, uncompressed: version line, fields, block, and
    /// the two line ends that close it.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.header();
        for p in &self.block {
            out.extend_from_slice(p);
        }
        out.extend_from_slice(b"\r\n\r\n");
        out
    }

    /// The record as one gzip member, compressed from its parts (nothing copied first).
    pub fn to_gzip(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.gzip_into(&mut out);
        out
    }

    /// [`Self::to_gzip`] appended to `out`: an exchange's records go into one buffer, written
    /// at once, without a buffer of their own each.
    pub fn gzip_into(&self, out: &mut Vec<u8>) {
        self.gzip_digested_into(None, out);
    }

    /// [`Self::gzip_into`] with the block's SHA-1 when the caller has it: a response's, made
    /// with its payload's in one go ([`super::sha1_pair`]). It must be the block's.
    pub fn gzip_digested_into(&self, block_sha1: Option<&[u8; 20]>, out: &mut Vec<u8>) {
        let header = self.header_digested(block_sha1);
        let mut parts: Vec<&[u8]> = Vec::with_capacity(self.block.len() + 2);
        parts.push(&header);
        parts.extend(self.block.iter().copied());
        parts.push(b"\r\n\r\n");
        gzip_member_into(&parts, out);
    }
}

thread_local! {
    /// Each thread's deflate stream, reset for every member: a fresh one per record allocated
    /// and zeroed its window and tables each time — on the Rust documentation a tenth of the
    /// crawl's CPU went to that, and the freed memory stayed with the process.
    static DEFLATE: std::cell::RefCell<Option<flate2::Compress>> =
        const { std::cell::RefCell::new(None) };
}

/// `parts`, one after the other, as one gzip member (RFC 1952: header, raw deflate at level
/// 1, CRC-32 and length) appended to `out`.
pub fn gzip_member_into(parts: &[&[u8]], out: &mut Vec<u8>) {
    let total: usize = parts.iter().map(|p| p.len()).sum();
    // Level 1 makes HTML about a third of its size; what does not shrink grows the buffer.
    out.reserve(total / 2 + 64);
    // ID1 ID2, deflate, no flags, no time, no extra flags, unknown OS.
    out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
    let mut crc = flate2::Crc::new();
    DEFLATE.with(|cell| {
        let mut cell = cell.borrow_mut();
        let z =
            cell.get_or_insert_with(|| flate2::Compress::new(flate2::Compression::fast(), false));
        z.reset();
        for p in parts {
            crc.update(p);
            deflate_into(z, p, flate2::FlushCompress::None, out);
        }
        deflate_into(z, &[], flate2::FlushCompress::Finish, out);
    });
    out.extend_from_slice(&crc.sum().to_le_bytes());
    out.extend_from_slice(&crc.amount().to_le_bytes());
}

thread_local! {
    /// Each thread's buffer for the members it appends: a page's three records are gzipped
    /// into it and written at once, without an allocation of their own.
    static MEMBERS: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A buffer larger than this (a large document's member) is not kept for the next exchange.
const KEEP_MEMBERS: usize = 1 << 20;

/// Runs `f` with this thread's members buffer, empty.
pub fn with_members<T>(f: impl FnOnce(&mut Vec<u8>) -> T) -> T {
    MEMBERS.with(|cell| {
        let mut buf = std::mem::take(&mut *cell.borrow_mut());
        buf.clear();
        let out = f(&mut buf);
        if buf.capacity() <= KEEP_MEMBERS {
            *cell.borrow_mut() = buf;
        }
        out
    })
}

/// Feeds `input` to `z` into `out` (grown as needed) until it is all taken — and, with
/// `Finish`, until the stream is ended.
fn deflate_into(
    z: &mut flate2::Compress,
    mut input: &[u8],
    flush: flate2::FlushCompress,
    out: &mut Vec<u8>,
) {
    loop {
        if out.capacity() - out.len() < 1024 {
            out.reserve(input.len() / 2 + 4096);
        }
        let before = z.total_in();
        let status = z.compress_vec(input, out, flush);
        let taken = usize::try_from(z.total_in() - before).unwrap_or(input.len());
        input = &input[taken.min(input.len())..];
        match status {
            Ok(flate2::Status::StreamEnd) | Err(_) => return,
            Ok(_) if input.is_empty() && !matches!(flush, flate2::FlushCompress::Finish) => return,
            Ok(_) => {}
        }
    }
}

/// Where an HTTP message's head ends: the index just past its empty line (`\r\n\r\n`, or a
/// bare `\n\n`), or the whole message when it has none.
pub fn head_len(message: &[u8]) -> usize {
    memchr::memmem::find(message, b"\r\n\r\n")
        .map(|i| i + 4)
        .or_else(|| memchr::memmem::find(message, b"\n\n").map(|i| i + 2))
        .unwrap_or(message.len())
}

/// Record ids: UUIDs (version 4 layout) drawn from a hash of the process, the time and a
/// counter — unique across processes and runs without a random-number crate.
#[derive(Debug)]
pub struct Ids {
    seed: u64,
    next: std::sync::atomic::AtomicU64,
}

impl Default for Ids {
    fn default() -> Self {
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Ids {
            seed: nanos ^ (u64::from(std::process::id()) << 32),
            next: std::sync::atomic::AtomicU64::new(0),
        }
    }
}

impl Ids {
    /// A new `<urn:uuid:…>`.
    pub fn next(&self) -> String {
        let n = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut key = [0u8; 16];
        key[..8].copy_from_slice(&self.seed.to_le_bytes());
        key[8..].copy_from_slice(&n.to_le_bytes());
        let mut b = xxhash_rust::xxh3::xxh3_128(&key).to_le_bytes();
        b[6] = (b[6] & 0x0f) | 0x40;
        b[8] = (b[8] & 0x3f) | 0x80;
        let h = data_encoding::HEXLOWER.encode(&b);
        format!(
            "<urn:uuid:{}-{}-{}-{}-{}>",
            &h[..8],
            &h[8..12],
            &h[12..16],
            &h[16..20],
            &h[20..]
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_framed_and_digested() {
        let r = Record {
            kind: RecordType::Response,
            id: "<urn:uuid:1>".into(),
            date: SystemTime::UNIX_EPOCH,
            target_uri: Some("http://a.test/".into()),
            content_type: "application/http;msgtype=response",
            fields: vec![("WARC-Payload-Digest", sha1_digest(b"hi"))],
            block: vec![b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n", b"hi"],
        };
        let text = String::from_utf8(r.to_bytes()).unwrap();
        assert!(
            text.starts_with("WARC/1.1\r\nWARC-Type: response\r\n"),
            "{text}"
        );
        assert!(
            text.contains("WARC-Date: 1970-01-01T00:00:00.000000Z\r\n"),
            "{text}"
        );
        assert!(
            text.contains("Content-Length: 40\r\n\r\nHTTP/1.1 200"),
            "{text}"
        );
        assert!(text.ends_with("hi\r\n\r\n"));
        // The SHA-1 of "hi", base32.
        assert_eq!(sha1_digest(b"hi"), "sha1:YIVV7ELYGQTASQUNN5I3FRNPJQF542SC");
        let mut back = Vec::new();
        std::io::Read::read_to_end(
            &mut flate2::read::GzDecoder::new(&r.to_gzip()[..]),
            &mut back,
        )
        .unwrap();
        assert_eq!(back, r.to_bytes());
        assert_eq!(cdx_timestamp("2026-11-28T13:45:07.123Z"), "20261128134507");
        assert_eq!(head_len(b"HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody"), 25);
    }

    #[test]
    fn ids_are_distinct_uuids() {
        let ids = Ids::default();
        let (a, b) = (ids.next(), ids.next());
        assert_ne!(a, b);
        assert_eq!(a.len(), "<urn:uuid:>".len() + 36);
        assert_eq!(&a[24..25], "4", "{a}");
    }
}

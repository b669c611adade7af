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
        }
    }
}

/// The revisit profile of a payload equal to an earlier one (WARC 1.1 §6.7.2).
pub const IDENTICAL_PAYLOAD: &str =
    "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest";

/// A record to write.
#[derive(Debug, Clone)]
pub struct Record {
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
    /// The block.
    pub block: Vec<u8>,
}

/// `sha1:` and the base32 SHA-1 of `bytes`, as WARC digests are written.
pub fn sha1_digest(bytes: &[u8]) -> String {
    let hash = Sha1::digest(bytes);
    format!("sha1:{}", data_encoding::BASE32.encode(&hash))
}

/// A WARC date (W3C ISO 8601, UTC, to the microsecond as WARC 1.1 allows): a page's two
/// copies, fetched one after the other, are told apart by it when the archive is replayed.
pub fn warc_date(t: SystemTime) -> String {
    let ms = crate::utc::utc_timestamp(t);
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

impl Record {
    /// The record as a WARC file holds it, uncompressed: version line, fields, block, and
    /// the two line ends that close it.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.block.len() + 512);
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
            sha1_digest(&self.block),
            self.content_type,
            self.block.len()
        );
        out.extend_from_slice(&self.block);
        out.extend_from_slice(b"\r\n\r\n");
        out
    }

    /// The record as one gzip member.
    pub fn to_gzip(&self) -> Vec<u8> {
        let raw = self.to_bytes();
        let mut gz = flate2::write::GzEncoder::new(
            Vec::with_capacity(raw.len() / 3 + 64),
            flate2::Compression::fast(),
        );
        // Writing into a Vec cannot fail.
        let _ = gz.write_all(&raw);
        gz.finish().unwrap_or_default()
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
            block: b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi".to_vec(),
        };
        let text = String::from_utf8(r.to_bytes()).unwrap();
        assert!(
            text.starts_with("WARC/1.1\r\nWARC-Type: response\r\n"),
            "{text}"
        );
        assert!(
            text.contains("WARC-Date: 1970-01-01T00:00:00.000Z\r\n"),
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

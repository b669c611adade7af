//! Framing of journal records: `len: u32 | crc32: u32 | payload`, payload = scope number
//! (varint) then entries. A torn write or flipped bit fails the length or checksum check, so
//! a damaged tail is recognised and never read as data.

use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::Path;

use super::atomic::{replace_file_with, sync_dir_of};
use super::codec::Put;

/// Counts and checksums what passes through.
pub(crate) struct Tally<W: Write> {
    pub(crate) w: W,
    pub(crate) len: u64,
    pub(crate) crc: crc32fast::Hasher,
}

impl<W: Write> Write for Tally<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.w.write(buf)?;
        self.len += n as u64;
        self.crc.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

/// Writes a file holding one framed record for scope `scope`, atomically, the entries
/// streamed by `entries` to the file: the same bytes as [`frame`] makes, without holding
/// them. A retired scope's data is tens of megabytes on a large site, and built in memory it
/// was held three times over (a 50,000-page site peaked at 167 MB instead of 69 MB).
pub fn write_framed_file(
    path: &Path,
    scope: u32,
    entries: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    replace_file_with(path, |file| {
        file.write_all(&[0; FRAME_HEADER])?;
        // The buffer goes before the tally: entries are written a few bytes at a time, and
        // a checksum updated per varint cost more than encoding them (a third of the time
        // a large site's data took to save).
        let mut buffered = BufWriter::with_capacity(
            64 * 1024,
            Tally {
                // A second handle to the same open file (one offset): the header is written
                // through the first once the entries are through.
                w: file.try_clone()?,
                len: 0,
                crc: crc32fast::Hasher::new(),
            },
        );
        let mut head = Vec::new();
        head.put_var(u64::from(scope));
        buffered.write_all(&head)?;
        entries(&mut buffered)?;
        let Tally { w, len, crc } = buffered.into_inner().map_err(|e| e.into_error())?;
        drop(w);
        let crc = crc.finalize();
        let len = u32::try_from(len)
            .ok()
            .filter(|&l| l as usize <= MAX_PAYLOAD)
            .ok_or_else(|| io::Error::other("a scope's data over 1 GiB"))?;
        let mut header = Vec::with_capacity(FRAME_HEADER);
        header.put_u32(len);
        header.put_u32(crc);
        file.seek(SeekFrom::Start(0))?;
        file.write_all(&header)
    })?;
    sync_dir_of(path)
}

/// Bytes before a record's payload.
pub const FRAME_HEADER: usize = 8;
/// Largest payload accepted when reading (a damaged length must not allocate gigabytes).
const MAX_PAYLOAD: usize = 1 << 30;

/// Appends one framed record for scope `scope`.
pub fn frame(out: &mut Vec<u8>, scope: u32, entries: &[u8]) {
    let start = open_frame(out, scope);
    out.extend_from_slice(entries);
    close_frame(out, start);
}

/// Starts a record for scope `scope` at the end of `out`, to be filled in place (entries
/// appended to `out`) and closed by [`close_frame`] with the position this returns. A record
/// is built where it ends up: the largest pages' records are megabytes, and assembling one
/// apart and copying it held it two or three times over (issue 19).
pub fn open_frame(out: &mut Vec<u8>, scope: u32) -> usize {
    let start = out.len();
    out.extend_from_slice(&[0; FRAME_HEADER]);
    out.put_var(u64::from(scope));
    start
}

/// Ends the record [`open_frame`] started at `start`: everything after its header is its
/// payload, whose length and checksum the header now holds.
pub fn close_frame(out: &mut [u8], start: usize) {
    let payload = &out[start + FRAME_HEADER..];
    let len = (payload.len() as u32).to_le_bytes();
    let crc = crc32fast::hash(payload).to_le_bytes();
    out[start..start + 4].copy_from_slice(&len);
    out[start + 4..start + FRAME_HEADER].copy_from_slice(&crc);
}

/// The payloads of the valid records at the start of `buf`, in order, stopping at the first
/// torn or damaged one.
pub fn frames(buf: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = buf;
    std::iter::from_fn(move || {
        let (payload, used) = next_frame(rest)?;
        rest = &rest[used..];
        Some(payload)
    })
}

/// How many bytes at the start of `buf` are whole, valid records.
pub fn valid_prefix(buf: &[u8]) -> usize {
    let mut used = 0;
    while let Some((_, n)) = next_frame(&buf[used..]) {
        used += n;
    }
    used
}

fn next_frame(buf: &[u8]) -> Option<(&[u8], usize)> {
    let header = buf.get(..FRAME_HEADER)?;
    let len = u32::from_le_bytes([header[0], header[1], header[2], header[3]]) as usize;
    let crc = u32::from_le_bytes([header[4], header[5], header[6], header[7]]);
    if len > MAX_PAYLOAD {
        return None;
    }
    let payload = buf.get(FRAME_HEADER..FRAME_HEADER + len)?;
    (crc32fast::hash(payload) == crc).then_some((payload, FRAME_HEADER + len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_framed_file_holds_the_bytes_frame_makes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("scopes").join("7.bin");
        // Longer than the writer's buffer: the header is filled in after several flushes.
        let entries: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        write_framed_file(&path, 300, |w| {
            w.write_all(&entries[..5])?;
            w.write_all(&entries[5..])
        })
        .unwrap();
        let mut want = Vec::new();
        frame(&mut want, 300, &entries);
        assert_eq!(std::fs::read(&path).unwrap(), want);
        // A failing writer leaves no file.
        let failed = write_framed_file(&dir.path().join("8.bin"), 1, |_| {
            Err(io::Error::other("disk full"))
        });
        assert!(failed.is_err());
        assert!(!dir.path().join("8.bin").exists());
    }

    #[test]
    fn every_cut_and_every_flipped_byte_is_caught() {
        let mut buf = Vec::new();
        frame(&mut buf, 3, b"hello");
        let first = buf.len();
        frame(&mut buf, 3, b"world!");
        assert_eq!(frames(&buf).count(), 2);
        for cut in 0..buf.len() {
            let v = valid_prefix(&buf[..cut]);
            assert_eq!(v, if cut >= first { first } else { 0 }, "cut at {cut}");
        }
        for i in first..buf.len() {
            let mut bad = buf.clone();
            bad[i] ^= 0x55;
            assert_eq!(valid_prefix(&bad), first, "flip at {i}");
        }
    }
}

//! Framing of journal records: `len: u32 | crc32: u32 | payload`, payload = scope number
//! (varint) then entries. A torn write or flipped bit fails the length or checksum check, so
//! a damaged tail is recognised and never read as data.

use super::codec::Put;

/// Bytes before a record's payload.
pub const FRAME_HEADER: usize = 8;
/// Largest payload accepted when reading (a damaged length must not allocate gigabytes).
const MAX_PAYLOAD: usize = 1 << 30;

/// Appends one framed record for scope `scope`.
pub fn frame(out: &mut Vec<u8>, scope: u32, entries: &[u8]) {
    let mut payload = Vec::with_capacity(entries.len() + 5);
    payload.put_var(u64::from(scope));
    payload.extend_from_slice(entries);
    out.put_u32(payload.len() as u32);
    out.put_u32(crc32fast::hash(&payload));
    out.extend_from_slice(&payload);
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

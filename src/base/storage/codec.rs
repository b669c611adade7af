//! The binary encoding of journal records and snapshots: little-endian fixed-size integers,
//! LEB128 varints and length-prefixed byte strings. Decoding never panics: every read checks
//! its bounds and reports [`Corrupt`].

/// The bytes do not decode (truncated or damaged data).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("corrupt data: {0}")]
pub struct Corrupt(pub &'static str);

/// Appends encoded values to a buffer.
pub(crate) trait Put {
    fn put_u8(&mut self, v: u8);
    fn put_var(&mut self, v: u64);
    fn put_u32(&mut self, v: u32);
    fn put_u128(&mut self, v: u128);
    fn put_bytes(&mut self, b: &[u8]);
}

impl Put for Vec<u8> {
    fn put_u8(&mut self, v: u8) {
        self.push(v);
    }
    fn put_var(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.push(v as u8);
    }
    fn put_u32(&mut self, v: u32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_u128(&mut self, v: u128) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_bytes(&mut self, b: &[u8]) {
        self.put_var(b.len() as u64);
        self.extend_from_slice(b);
    }
}

/// [`Put`] over any writer; the first I/O error is kept and returned by [`IoPut::finish`].
pub(crate) struct IoPut<'a> {
    w: &'a mut dyn std::io::Write,
    err: Option<std::io::Error>,
}

impl<'a> IoPut<'a> {
    pub(crate) fn new(w: &'a mut dyn std::io::Write) -> Self {
        IoPut { w, err: None }
    }

    fn write(&mut self, b: &[u8]) {
        if self.err.is_none()
            && let Err(e) = self.w.write_all(b)
        {
            self.err = Some(e);
        }
    }

    pub(crate) fn finish(self) -> std::io::Result<()> {
        self.err.map_or(Ok(()), Err)
    }
}

impl Put for IoPut<'_> {
    fn put_u8(&mut self, v: u8) {
        self.write(&[v]);
    }
    fn put_var(&mut self, v: u64) {
        let mut buf = Vec::with_capacity(10);
        buf.put_var(v);
        self.write(&buf);
    }
    fn put_u32(&mut self, v: u32) {
        self.write(&v.to_le_bytes());
    }
    fn put_u128(&mut self, v: u128) {
        self.write(&v.to_le_bytes());
    }
    fn put_bytes(&mut self, b: &[u8]) {
        self.put_var(b.len() as u64);
        self.write(b);
    }
}

/// Reads encoded values from a slice.
#[derive(Debug)]
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }

    /// Bytes consumed so far.
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], Corrupt> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or(Corrupt("unexpected end"))?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    pub(crate) fn u8(&mut self) -> Result<u8, Corrupt> {
        Ok(self.take(1)?[0])
    }

    pub(crate) fn var(&mut self) -> Result<u64, Corrupt> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(Corrupt("varint too long"))
    }

    /// A varint that must fit in `u32`.
    pub(crate) fn var32(&mut self) -> Result<u32, Corrupt> {
        u32::try_from(self.var()?).map_err(|_| Corrupt("value out of range"))
    }

    pub(crate) fn u32(&mut self) -> Result<u32, Corrupt> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().map_err(|_| Corrupt("u32"))?,
        ))
    }

    pub(crate) fn u128(&mut self) -> Result<u128, Corrupt> {
        Ok(u128::from_le_bytes(
            self.take(16)?.try_into().map_err(|_| Corrupt("u128"))?,
        ))
    }

    pub(crate) fn bytes(&mut self) -> Result<&'a [u8], Corrupt> {
        let n = usize::try_from(self.var()?).map_err(|_| Corrupt("length out of range"))?;
        self.take(n)
    }

    pub(crate) fn str(&mut self) -> Result<&'a str, Corrupt> {
        std::str::from_utf8(self.bytes()?).map_err(|_| Corrupt("invalid UTF-8"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_and_truncation() {
        let mut b = Vec::new();
        b.put_var(0);
        b.put_var(300);
        b.put_var(u64::MAX);
        b.put_u32(7);
        b.put_u128(1 << 100);
        b.put_bytes("héllo".as_bytes());
        let mut r = Reader::new(&b);
        assert_eq!(r.var().unwrap(), 0);
        assert_eq!(r.var().unwrap(), 300);
        assert_eq!(r.var().unwrap(), u64::MAX);
        assert_eq!(r.u32().unwrap(), 7);
        assert_eq!(r.u128().unwrap(), 1 << 100);
        assert_eq!(r.str().unwrap(), "héllo");
        assert!(r.is_empty());
        for cut in 0..b.len() {
            let mut r = Reader::new(&b[..cut]);
            let all = (|| -> Result<(), Corrupt> {
                r.var()?;
                r.var()?;
                r.var()?;
                r.u32()?;
                r.u128()?;
                r.str()?;
                Ok(())
            })();
            assert!(all.is_err(), "cut at {cut} must not decode");
        }
    }
}

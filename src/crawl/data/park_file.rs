//! Where parked scopes' compressed records wait ([`super::scope::park`]): one unnamed temporary
//! file (in `TMPDIR`; gone with the process, whatever ends it), written and read at offsets.
//! Held in memory, the records of 4,000 parked sites were 6 MB of small blocks made and freed
//! all crawl long among the crawl's own, and the heap kept the gaps; in a file they cost the
//! page cache, which the system takes back when it needs it.
//!
//! Room is reused by size class (powers of two from 256 bytes): the room a scope left when it
//! thawed takes a later scope's records of the same class, so the file grows with the records
//! parked at once, at most twice their size per class, not with every parking.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::Arc;

use parking_lot::Mutex;

/// The smallest room given: 2^8 bytes.
const MIN_CLASS: u32 = 8;

/// Where one scope's records are in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Spot {
    at: u64,
    len: u32,
}

impl Spot {
    /// The records' length.
    pub(crate) fn len(self) -> usize {
        self.len as usize
    }
}

/// The size class of `len` bytes: the power of two of the room they take.
fn class(len: usize) -> u32 {
    len.max(1)
        .next_power_of_two()
        .trailing_zeros()
        .max(MIN_CLASS)
}

#[derive(Debug, Default)]
struct Rooms {
    /// Where the file ends.
    end: u64,
    /// Free rooms by class.
    free: Vec<Vec<u64>>,
}

/// The file of parked records.
#[derive(Debug)]
pub(crate) struct ParkFile {
    file: File,
    rooms: Mutex<Rooms>,
}

impl ParkFile {
    /// A new, empty file.
    pub(crate) fn create() -> std::io::Result<Arc<Self>> {
        Ok(Arc::new(ParkFile {
            file: tempfile::tempfile()?,
            rooms: Mutex::new(Rooms::default()),
        }))
    }

    /// Writes `bytes` into a free room; where they are.
    pub(crate) fn put(&self, bytes: &[u8]) -> std::io::Result<Spot> {
        let len = u32::try_from(bytes.len()).map_err(|_| std::io::Error::other("over 4 GiB"))?;
        let c = class(bytes.len());
        let at = {
            let mut rooms = self.rooms.lock();
            let reused = rooms.free.get_mut(c as usize).and_then(Vec::pop);
            reused.unwrap_or_else(|| {
                let at = rooms.end;
                rooms.end += 1 << c;
                at
            })
        };
        let spot = Spot { at, len };
        if let Err(e) = self.file.write_all_at(bytes, at) {
            self.free(spot);
            return Err(e);
        }
        Ok(spot)
    }

    /// Reads the records at `spot` into `out` (replacing what it held).
    pub(crate) fn get(&self, spot: Spot, out: &mut Vec<u8>) -> std::io::Result<()> {
        out.clear();
        out.resize(spot.len(), 0);
        self.file.read_exact_at(out, spot.at)
    }

    /// The room at `spot` is free again.
    pub(crate) fn free(&self, spot: Spot) {
        let c = class(spot.len()) as usize;
        let mut rooms = self.rooms.lock();
        if rooms.free.len() <= c {
            rooms.free.resize_with(c + 1, Vec::new);
        }
        rooms.free[c].push(spot.at);
    }

    /// Bytes the file holds, free rooms included.
    #[cfg(test)]
    pub(crate) fn size(&self) -> u64 {
        self.rooms.lock().end
    }
}

/// One scope's records in the file; their room is freed when this is dropped.
#[derive(Debug)]
pub(crate) struct Filed {
    file: Arc<ParkFile>,
    spot: Spot,
}

impl Filed {
    /// Writes `bytes` into `file`.
    pub(crate) fn put(file: &Arc<ParkFile>, bytes: &[u8]) -> std::io::Result<Self> {
        Ok(Filed {
            file: Arc::clone(file),
            spot: file.put(bytes)?,
        })
    }

    /// Reads them into `out`.
    pub(crate) fn get(&self, out: &mut Vec<u8>) -> std::io::Result<()> {
        self.file.get(self.spot, out)
    }
}

impl Drop for Filed {
    fn drop(&mut self) {
        self.file.free(self.spot);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_come_back_as_written_and_freed_rooms_are_reused() {
        let f = ParkFile::create().unwrap();
        let a = Filed::put(&f, &[1u8; 300]).unwrap();
        let b = Filed::put(&f, &[2u8; 5000]).unwrap();
        let mut out = Vec::new();
        a.get(&mut out).unwrap();
        assert_eq!(out, vec![1u8; 300]);
        b.get(&mut out).unwrap();
        assert_eq!(out, vec![2u8; 5000]);
        assert_eq!(f.size(), 512 + 8192);
        drop(a);
        // A record of the same class takes the room a freed one left; another class does not.
        let c = Filed::put(&f, &[3u8; 400]).unwrap();
        assert_eq!(f.size(), 512 + 8192);
        let d = Filed::put(&f, &[4u8; 100]).unwrap();
        assert_eq!(f.size(), 512 + 8192 + 256);
        for (r, byte, len) in [(&b, 2u8, 5000), (&c, 3, 400), (&d, 4, 100)] {
            r.get(&mut out).unwrap();
            assert_eq!(out, vec![byte; len]);
        }
        // Parked and thawed many times over, the file stays the size of what is parked at once.
        drop((b, c, d));
        for round in 0..100u8 {
            let held: Vec<Filed> = (0..10)
                .map(|i| Filed::put(&f, &vec![round; 200 + 90 * i]).unwrap())
                .collect();
            for (i, r) in held.iter().enumerate() {
                r.get(&mut out).unwrap();
                assert_eq!(out.len(), 200 + 90 * i);
            }
        }
        assert!(
            f.size() < 4 * (512 + 8192 + 256 + 10 * 1024),
            "{}",
            f.size()
        );
    }
}

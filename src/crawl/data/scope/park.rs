//! A scope parked: its records as compressed bytes while the crawl does not need them. A budgeted
//! crawl keeps every site open (its rule chooses among all of them at each fetch), and most of
//! them wait most of the time; parked, a waiting site of a hundred URLs holds about a tenth of
//! what it holds live (`../parking.rs` decides which are parked).
//!
//! Thawing gives back the scope exactly as it was, not as a continued crawl would rebuild it:
//! the snapshot's records ([`ScopeGraph::encode`]), then what a snapshot rebuilds or leaves out
//! — the frontiers with their entries in order (stale ones included), the trap shapes with
//! their histories (a fallen level leaves its digit range behind), the content keys, this run's
//! site ids and limits — and, kept aside as they are, the journal records not yet handed to the
//! store, the sitemap, and this run's times. A parked scope answers what needs no records (its
//! figures, its journal, its snapshot's bytes) without thawing.

use std::io::Write;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use std::sync::Arc;

use super::ScopeGraph;
use crate::base::ids::SiteId;
use crate::base::storage::codec::{Corrupt, Put, Reader};
use crate::crawl::data::frontier::Frontier;
use crate::crawl::data::journal::JournalBuf;
use crate::crawl::data::park_file::{Filed, ParkFile};
use crate::model::site::Origin;
use crate::model::sitemap::Sitemap;

/// A scope's records and their compressed bytes, buffers kept from scope to scope in a small
/// pool: buffers made and dropped per scope parked leave the heap in pieces (with deflate's
/// states, a budgeted crawl of 4,000 sites peaked at 204 MB RSS for a 47 MB heap). A pool, not
/// one per thread: any thread that commits may park, and a crawl may run thousands.
///
/// LZ4, not deflate: a budgeted crawl thaws and parks a scope at almost every fetch (its rule
/// spreads the fetches over every site), and deflate at its fastest level with inflate were
/// 40 % of what parking added to the crawl's CPU; LZ4 compresses the records nearly as well
/// (2.2 KB a site of a generated web on average: 0.9 KB, deflate 0.8) at several times the
/// speed, and needs no state kept between calls.
struct Codec {
    raw: Vec<u8>,
    /// Compressed bytes: made when parking, read back from the park file when thawing.
    packed: Vec<u8>,
}

/// Codecs not in use; more are made while all are taken, and kept up to [`KEEP_CODECS`].
static CODECS: Mutex<Vec<Codec>> = Mutex::new(Vec::new());

/// Codecs kept between uses: as many as threads park or thaw at once on two cores, and more.
const KEEP_CODECS: usize = 4;

/// The bytes a codec's buffers keep between scopes at most.
const KEEP_RAW: usize = 1 << 20;

/// Runs `f` with a codec of the pool.
fn with_codec<R>(f: impl FnOnce(&mut Codec) -> R) -> R {
    let taken = CODECS.lock().pop();
    let mut codec = taken.unwrap_or_else(|| Codec {
        raw: Vec::new(),
        packed: Vec::new(),
    });
    codec.raw.clear();
    let r = f(&mut codec);
    if codec.raw.capacity() > KEEP_RAW {
        codec.raw = Vec::new();
    }
    if codec.packed.capacity() > KEEP_RAW {
        codec.packed = Vec::new();
    }
    let mut pool = CODECS.lock();
    if pool.len() < KEEP_CODECS {
        pool.push(codec);
    }
    r
}

impl Codec {
    /// `self.raw` compressed into `self.packed` (`None` if LZ4 fails, which it does not on an
    /// output of its maximum size).
    fn compress(&mut self) -> Option<()> {
        self.packed.clear();
        self.packed
            .resize(lz4_flex::block::get_maximum_output_size(self.raw.len()), 0);
        let n = lz4_flex::block::compress_into(&self.raw, &mut self.packed).ok()?;
        self.packed.truncate(n);
        Some(())
    }

    /// `stored` decompressed into `self.raw`: exactly `len` bytes, or what went wrong.
    fn decompress(&mut self, stored: &Stored, len: usize) -> std::io::Result<()> {
        let blob = match stored {
            Stored::Memory(b) => &b[..],
            Stored::File(f) => {
                f.get(&mut self.packed)?;
                &self.packed[..]
            }
        };
        self.raw.clear();
        self.raw.resize(len, 0);
        let n =
            lz4_flex::block::decompress_into(blob, &mut self.raw).map_err(std::io::Error::other)?;
        if n != len {
            return Err(std::io::Error::other("a parked scope decompresses short"));
        }
        Ok(())
    }
}

/// Where a parked scope's compressed records are.
#[derive(Debug)]
enum Stored {
    /// In memory (no park file could be made or written).
    Memory(Box<[u8]>),
    /// In the park file.
    File(Filed),
}

impl Stored {
    /// Bytes held in memory.
    fn heap_bytes(&self) -> usize {
        match self {
            Stored::Memory(b) => b.len(),
            Stored::File(_) => 0,
        }
    }
}

/// The URL a site of a parked scope gives next (what [`ScopeGraph::claim`] would answer),
/// worked out when the scope was parked. A budgeted crawl fetches from a parked site at almost
/// every fetch: handing this one out leaves the thaw to whoever records the page (a parser),
/// off the thread that hands out the downloads; the thaw then claims it again, exactly.
#[derive(Debug)]
struct Ahead {
    site: SiteId,
    id: u32,
    level: u32,
    url: Box<str>,
    /// When it was handed out (the claim's time, replayed at the thaw).
    claimed: Option<Instant>,
}

/// A scope's records, compressed, with the figures asked of it while it waits.
#[derive(Debug)]
pub(crate) struct Parked {
    /// The snapshot's bytes, then the rest (see the module's comment), compressed.
    stored: Stored,
    /// How many of the inflated bytes are the snapshot's.
    snapshot_len: usize,
    /// How many bytes the blob decompresses to.
    raw_len: usize,
    origin: Origin,
    pending: usize,
    outcomes: u64,
    pages: usize,
    pulls: usize,
    earlier_active: Duration,
    active: Option<(Instant, Instant)>,
    journal: Option<JournalBuf>,
    sitemap: Option<Box<Sitemap>>,
    seed_orphans: bool,
    /// `MaxPagesPerSite` (0: none), for the claims handed out while parked.
    page_limit: u32,
    /// Each site's next URL.
    ahead: Box<[Ahead]>,
}

impl ScopeGraph {
    /// Whether the scope can be parked: nothing of it in flight, no redirect chain holding one
    /// of its URLs, no level change half propagated.
    pub(crate) fn parkable(&self) -> bool {
        self.in_flight == 0
            && self.hop_claims.is_empty()
            && self.new_hop_claims.is_empty()
            && self.worklist.is_empty()
    }

    /// Parks the scope, its records written into `file` if there is one (else kept in
    /// memory), or gives it back if it cannot be parked ([`Self::parkable`]).
    pub(crate) fn park(
        mut self: Box<Self>,
        file: Option<&Arc<ParkFile>>,
    ) -> Result<Parked, Box<ScopeGraph>> {
        if !self.parkable() {
            return Err(self);
        }
        let packed = with_codec(|c| {
            self.encode(&mut c.raw);
            let snapshot_len = c.raw.len();
            self.encode_rest(&mut c.raw);
            c.compress()?;
            // A file that cannot be written (the disk full) leaves the records in memory.
            let stored = match file.map(|f| Filed::put(f, &c.packed)) {
                Some(Ok(filed)) => Stored::File(filed),
                _ => Stored::Memory(c.packed[..].into()),
            };
            Some((stored, snapshot_len, c.raw.len()))
        });
        // Compression fails only on a short output buffer: then the scope stays live.
        let Some((stored, snapshot_len, raw_len)) = packed else {
            return Err(self);
        };
        let ahead = self
            .sites
            .iter()
            .filter_map(|&site| {
                let (id, level) = self.next_claim(site)?;
                Some(Ahead {
                    site,
                    id,
                    level,
                    url: self.url(id).into(),
                    claimed: None,
                })
            })
            .collect();
        Ok(Parked {
            stored,
            snapshot_len,
            raw_len,
            origin: self.origin.clone(),
            pending: self.pending,
            outcomes: self.outcomes,
            pages: self.page_count(),
            pulls: self.pulls.len(),
            earlier_active: self.earlier_active,
            active: self.active,
            journal: self.journal.take(),
            sitemap: self.sitemap.take().map(Box::new),
            seed_orphans: self.seed_orphans,
            page_limit: self.page_limit,
            ahead,
        })
    }

    /// What [`Self::claim`] would give for `site` now, the scope left as it is.
    fn next_claim(&self, site: SiteId) -> Option<(u32, u32)> {
        let l = self.local(site)?;
        self.frontiers[l]
            .in_order()
            .find(|&id| self.recs[id as usize].state == super::UrlState::Queued)
            .map(|id| (id, self.recs[id as usize].level))
    }

    /// What follows the snapshot's bytes in a parked scope.
    fn encode_rest(&self, out: &mut Vec<u8>) {
        out.put_var(self.sites.len() as u64);
        for s in &self.sites {
            out.put_var(u64::from(s.0));
        }
        out.put_var(self.local_of.len() as u64);
        for (s, &l) in &self.local_of {
            out.put_var(u64::from(s.0));
            out.put_var(u64::from(l));
        }
        out.put_var(u64::from(self.page_limit));
        out.put_var(u64::from(self.url_limit));
        for (f, &q) in self.frontiers.iter().zip(&self.queued) {
            f.put(out);
            out.put_var(q as u64);
        }
        out.put_var(self.pending as u64);
        self.shapes.put(out);
        self.contents.put(out);
    }

    /// Reads what [`Self::encode_rest`] wrote into a scope decoded from the snapshot's bytes.
    fn decode_rest(&mut self, r: &mut Reader<'_>) -> Result<(), Corrupt> {
        if r.var()? != self.sites.len() as u64 {
            return Err(Corrupt("parked sites differ in number"));
        }
        for s in self.sites.iter_mut() {
            *s = SiteId(r.var32()?);
        }
        self.local_of.clear();
        for _ in 0..r.var()? {
            let site = SiteId(r.var32()?);
            let local = u16::try_from(r.var()?).map_err(|_| Corrupt("site out of range"))?;
            self.local_of.insert(site, local);
        }
        self.page_limit = r.var32()?;
        self.url_limit = r.var32()?;
        for l in 0..self.sites.len() {
            self.frontiers[l] = Frontier::read(r)?;
            self.queued[l] = r.var()? as usize;
        }
        self.pending = r.var()? as usize;
        self.in_flight = 0;
        self.shapes = super::traps::Shapes::read(r)?;
        self.contents = super::contents::Contents::read(r)?;
        Ok(())
    }
}

impl Parked {
    /// The scope as it was when parked.
    pub(crate) fn thaw(self) -> Result<Box<ScopeGraph>, Corrupt> {
        let mut g = self.records()?;
        g.journal = self.journal;
        g.sitemap = self.sitemap.map(|s| *s);
        Ok(g)
    }

    /// A copy of the scope to read, left parked (no journal: a copy records nothing): what
    /// writes a waiting scope's results or reads its figures does not bring it back to life.
    pub(crate) fn copy(&self) -> Result<Box<ScopeGraph>, Corrupt> {
        let mut g = self.records()?;
        g.sitemap = self.sitemap.as_deref().cloned();
        Ok(g)
    }

    /// Hands out `site`'s next URL without thawing, if `accept` takes it (its id, level and
    /// text): what [`ScopeGraph::claim`] would give, within the page limit as it counts. The
    /// scope stays parked with it in flight; a thaw claims it again.
    pub(crate) fn claim<T>(
        &mut self,
        site: SiteId,
        accept: impl FnOnce(u32, u32, &str) -> Option<T>,
    ) -> Option<T> {
        if self.page_limit > 0 && self.pages + self.in_flight() >= self.page_limit as usize {
            return None;
        }
        let next = self
            .ahead
            .iter_mut()
            .find(|a| a.site == site && a.claimed.is_none())?;
        let taken = accept(next.id, next.level, &next.url)?;
        next.claimed = Some(Instant::now());
        Some(taken)
    }

    /// URLs handed out while parked.
    pub(crate) fn in_flight(&self) -> usize {
        self.ahead.iter().filter(|a| a.claimed.is_some()).count()
    }

    /// The records and everything but the journal and the sitemap.
    fn records(&self) -> Result<Box<ScopeGraph>, Corrupt> {
        let mut g = with_codec(|c| {
            c.decompress(&self.stored, self.raw_len)
                .map_err(|_| Corrupt("a parked scope cannot be read back"))?;
            let mut r = Reader::new(&c.raw);
            let mut g = Box::new(ScopeGraph::decode(&mut r)?);
            g.decode_rest(&mut r)?;
            if !r.is_empty() {
                return Err(Corrupt("trailing bytes"));
            }
            Ok(g)
        })?;
        g.earlier_active = self.earlier_active;
        g.active = self.active;
        g.seed_orphans = self.seed_orphans;
        let mut claimed: Vec<(Instant, &Ahead)> = self
            .ahead
            .iter()
            .filter_map(|a| Some((a.claimed?, a)))
            .collect();
        claimed.sort_by_key(|&(at, _)| at);
        for (at, a) in claimed {
            // Claimed at `at`: a scope's first claim starts its crawl time.
            g.active.get_or_insert((at, at));
            if g.claim(a.site) != Some((a.id, a.level)) {
                return Err(Corrupt("a URL handed out while parked claims otherwise"));
            }
        }
        Ok(g)
    }

    /// The snapshot's bytes, as [`ScopeGraph::write_to`] writes them.
    pub(crate) fn write_to(&self, w: &mut dyn Write) -> std::io::Result<()> {
        if self.in_flight() > 0 {
            // The bytes parked say the URLs handed out since are queued: the records as
            // they are now say so.
            let g = self.records().map_err(std::io::Error::other)?;
            return g.write_to(w);
        }
        with_codec(|c| {
            c.decompress(&self.stored, self.raw_len)?;
            w.write_all(&c.raw[..self.snapshot_len])
        })
    }

    /// Moves the journal records written before the scope was parked to the end of `out`.
    pub(crate) fn take_journal(&mut self, out: &mut Vec<u8>) {
        if let Some(j) = self.journal.as_mut() {
            j.take_into(out);
        }
    }

    /// The seed site.
    pub(crate) fn origin(&self) -> &Origin {
        &self.origin
    }

    /// URLs queued (none is in flight).
    pub(crate) fn pending(&self) -> usize {
        self.pending
    }

    /// Outcomes recorded.
    pub(crate) fn outcomes(&self) -> u64 {
        self.outcomes
    }

    /// Pages recorded, one per distinct content.
    pub(crate) fn page_count(&self) -> usize {
        self.pages
    }

    /// Fetches recorded.
    pub(crate) fn pull_count(&self) -> usize {
        self.pulls
    }

    /// Crawl time, as [`ScopeGraph::active_time`].
    pub(crate) fn active_time(&self) -> Duration {
        super::active_time(self.earlier_active, self.active)
    }

    /// Approximate heap use.
    pub(crate) fn heap_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.stored.heap_bytes()
            + self.journal.as_ref().map_or(0, JournalBuf::heap_bytes)
            + self.sitemap.as_ref().map_or(0, |s| {
                s.entries.len() * std::mem::size_of::<crate::model::sitemap::SitemapEntry>()
            })
    }
}

#[cfg(test)]
impl ScopeGraph {
    /// Everything the scope holds, maps in key order: equal for two scopes that behave the
    /// same from here on (the tests of parking compare a scope before and after).
    pub(crate) fn state_text(&self) -> String {
        let mut snapshot = Vec::new();
        self.encode(&mut snapshot);
        let mut local_of: Vec<_> = self.local_of.iter().collect();
        local_of.sort();
        let mut hop_claims: Vec<_> = self.hop_claims.iter().collect();
        hop_claims.sort();
        let mut journal = Vec::new();
        if let Some(j) = &self.journal {
            journal = j.pending_bytes().to_vec();
        }
        format!(
            "snapshot {snapshot:?}\nsites {:?} {local_of:?}\nlimits {} {}\nfrontiers {:?} {:?}\n\
             pending {} in flight {}\nshapes {}\ncontents {}\nhop claims {hop_claims:?} {:?}\n\
             times {:?} {:?}\njournal {journal:?}\nsitemap {:?} {}\nurls {}\n",
            self.sites,
            self.page_limit,
            self.url_limit,
            self.frontiers,
            self.queued,
            self.pending,
            self.in_flight,
            self.shapes.state_text(),
            self.contents.state_text(),
            self.new_hop_claims,
            self.earlier_active,
            self.active,
            self.sitemap,
            self.seed_orphans,
            // The interner's table: every URL found by its text.
            (0..self.urls.len() as u32).all(|id| self.urls.lookup(self.urls.get(id)) == Some(id)),
        )
    }
}

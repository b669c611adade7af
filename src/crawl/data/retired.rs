//! A scope written and released (SPEC §11): once a scope's work in this run is over — nothing
//! left to fetch, or its site suspended — its result files are written at once and its data
//! leaves memory. What stays, in memory and in the saved state, is a [`RetiredScope`]: its
//! summary.csv row and the figures the crawl still reports. Its data is kept on disk (the state
//! folder's `scopes/` file, a database's rows), for `rccrawler export` and, if it was not
//! finished, for the next run to continue it.

use std::sync::Arc;

use super::summary::SiteSummary;
use crate::base::storage::codec::{Corrupt, Put, Reader};
use crate::model::site::Origin;

/// What is kept of a scope written and released.
#[derive(Debug, Clone, PartialEq)]
pub struct RetiredScope {
    /// Its number in the saved state.
    pub index: u32,
    /// The first seed of the scope.
    pub origin: Origin,
    /// Nothing was left to fetch. Otherwise its site was suspended (down, page limit): the
    /// next run continues it from its saved data.
    pub finished: bool,
    /// URLs left to fetch (0 when finished).
    pub pending: usize,
    /// Outcomes recorded.
    pub outcomes: u64,
    /// Its summary.csv row, shared with the summary.csv written as the crawl goes on.
    pub row: Arc<SiteSummary>,
}

impl RetiredScope {
    /// Its bytes, as the saved state keeps them.
    pub(crate) fn put(&self, out: &mut impl Put) {
        out.put_var(u64::from(self.index));
        out.put_bytes(self.origin.to_string().as_bytes());
        out.put_u8(u8::from(self.finished));
        out.put_var(self.pending as u64);
        out.put_var(self.outcomes);
        self.row.put(out);
    }

    /// Reads what [`Self::put`] wrote.
    pub(crate) fn read(r: &mut Reader<'_>) -> Result<Self, Corrupt> {
        Ok(RetiredScope {
            index: r.var32()?,
            origin: Origin::parse(r.str()?).ok_or(Corrupt("bad origin"))?,
            finished: r.u8()? != 0,
            pending: usize::try_from(r.var()?).map_err(|_| Corrupt("count out of range"))?,
            outcomes: r.var()?,
            row: Arc::new(SiteSummary::read(r)?),
        })
    }
}

/// What the progress figures need of a retired scope, read without decoding the rest.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RetiredFigures {
    /// URLs left to fetch.
    pub(crate) pending: usize,
    /// Outcomes recorded.
    pub(crate) outcomes: u64,
    /// Pages of its row.
    pub(crate) pages: usize,
    /// Seconds of its row.
    pub(crate) seconds: f64,
}

/// Reads the head of what [`RetiredScope::put`] wrote up to its row, skipping the index, the
/// origin and the finished flag (nothing parsed, nothing allocated): (pending, outcomes).
fn skip_to_row(r: &mut Reader<'_>) -> Result<(usize, u64), Corrupt> {
    r.var32()?; // index
    r.bytes()?; // origin
    r.u8()?; // finished
    let pending = usize::try_from(r.var()?).map_err(|_| Corrupt("count out of range"))?;
    Ok((pending, r.var()?))
}

impl RetiredFigures {
    /// Reads them from what [`RetiredScope::put`] wrote, allocating nothing.
    fn read(r: &mut Reader<'_>) -> Result<Self, Corrupt> {
        let (pending, outcomes) = skip_to_row(r)?;
        let (pages, seconds) = SiteSummary::read_figures(r)?;
        Ok(RetiredFigures {
            pending,
            outcomes,
            pages,
            seconds,
        })
    }
}

/// About what a retired scope takes in a [`RetiredTable`] (a row with its URLs).
const ROW_BYTES: usize = 160;

/// Where a retired scope's bytes are in a [`RetiredTable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RetiredAt {
    start: usize,
    len: usize,
}

/// The retired scopes of a crawl, kept as the saved state encodes them, one after another in
/// one block (SPEC §11: a finished site costs its encoded row, about a hundred bytes, not a
/// handful of small allocations each: those pinned the pages the sites crawled after them
/// freed, and peak memory grew with every finished site). Read back when asked for: whole at
/// start and end and at checkpoints; the progress figures at each tick and the summary.csv
/// row at each rewrite of that file, each without decoding the rest.
#[derive(Debug, Default)]
pub(crate) struct RetiredTable {
    bytes: Vec<u8>,
}

impl RetiredTable {
    /// Keeps `r`; returns where.
    pub(crate) fn push(&mut self, r: &RetiredScope) -> RetiredAt {
        let start = self.bytes.len();
        r.put(&mut self.bytes);
        RetiredAt {
            start,
            len: self.bytes.len() - start,
        }
    }

    /// Room for `n` scopes in all (their rows' bytes are guessed: an unused tail of a large
    /// block costs no memory until it is written).
    pub(crate) fn reserve(&mut self, n: usize) {
        self.bytes
            .reserve((n * ROW_BYTES).saturating_sub(self.bytes.len()));
    }

    /// The scope kept at `at`.
    pub(crate) fn get(&self, at: RetiredAt) -> RetiredScope {
        // Bytes this table wrote itself, with the codec the saved state reads with every run.
        RetiredScope::read(&mut self.reader(at))
            .expect("a retired scope reads back as it was written")
    }

    /// The progress figures of the scope kept at `at` (cheap: the progress line sums them
    /// over every scope opened, at each tick).
    pub(crate) fn figures(&self, at: RetiredAt) -> RetiredFigures {
        RetiredFigures::read(&mut self.reader(at))
            .expect("a retired scope reads back as it was written")
    }

    /// The summary.csv row of the scope kept at `at`, its origin skipped, not parsed
    /// (summary.csv, rewritten as sites finish, reads every retired scope's row).
    pub(crate) fn row(&self, at: RetiredAt) -> SiteSummary {
        let mut r = self.reader(at);
        skip_to_row(&mut r)
            .and_then(|_| SiteSummary::read(&mut r))
            .expect("a retired scope reads back as it was written")
    }

    fn reader(&self, at: RetiredAt) -> Reader<'_> {
        Reader::new(&self.bytes[at.start..at.start + at.len])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawl::data::summary::tests::sample_row;

    fn retired(i: u32) -> RetiredScope {
        let site = format!("http://s{i}.test:8080");
        RetiredScope {
            index: i,
            origin: Origin::parse(&site).expect("origin"),
            finished: i.is_multiple_of(2),
            pending: i as usize * 3,
            outcomes: u64::from(i) * 7,
            row: Arc::new(SiteSummary {
                pages: i as usize * 11,
                seconds: f64::from(i) / 4.0,
                ..sample_row(&site)
            }),
        }
    }

    #[test]
    fn every_scope_kept_reads_back_as_it_was_whatever_came_after() {
        let mut table = RetiredTable::default();
        table.reserve(2);
        // More than reserved: the block moves, the places stay valid.
        let kept: Vec<(RetiredAt, RetiredScope)> = (0..50)
            .map(|i| {
                let r = retired(i);
                (table.push(&r), r)
            })
            .collect();
        for (at, r) in &kept {
            assert_eq!(&table.get(*at), r);
            assert_eq!(table.row(*at), *r.row);
            let f = table.figures(*at);
            assert_eq!(
                (f.pending, f.outcomes, f.pages, f.seconds),
                (r.pending, r.outcomes, r.row.pages, r.row.seconds)
            );
        }
    }
}

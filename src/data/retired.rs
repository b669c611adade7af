//! A scope written and released (SPEC §11): once a scope's work in this run is over — nothing
//! left to fetch, or its site suspended — its result files are written at once and its data
//! leaves memory. What stays, in memory and in the saved state, is a [`RetiredScope`]: its
//! summary.csv row and the figures the crawl still reports. Its data is kept on disk (the state
//! folder's `scopes/` file, a database's rows), for `rccrawler export` and, if it was not
//! finished, for the next run to continue it.

use std::sync::Arc;

use super::summary::SiteSummary;
use crate::site::Origin;
use crate::storage::codec::{Corrupt, Put, Reader};

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

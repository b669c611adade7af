//! The contents a scope has recorded: what tells whether a fetched page is a new page or
//! another address of one recorded before (SPEC §2.6, §14), for the page count, the budget's
//! reward and the yields walked from the graph.

use super::PageMeta;
use crate::base::storage::codec::{Corrupt, Put, Reader};

/// The keys of the pages' contents: exact hashes and fold digests (rebuilt from the pages
/// when a scope is loaded). A page with a key met before is no new page.
#[derive(Debug, Default)]
pub(crate) struct Contents {
    keys: hashbrown::HashSet<u128>,
    /// Pages whose content was new when recorded.
    distinct: usize,
}

impl Contents {
    /// The content keys of a page: its exact hash, and its fold digests when computed (the
    /// own-address one only for a page with text, as the graph folds them). The top bits
    /// keep the three kinds apart.
    fn keys_of(meta: &PageMeta) -> impl Iterator<Item = u128> {
        let d = meta.fold_digests();
        [
            Some(meta.hash()),
            (d.request != 0).then(|| 1 << 127 | u128::from(d.request)),
            (d.own != 0 && d.text != 0).then(|| 1 << 126 | u128::from(d.own)),
        ]
        .into_iter()
        .flatten()
    }

    /// Pages recorded, one per distinct content.
    pub(crate) fn distinct(&self) -> usize {
        self.distinct
    }

    /// Whether a page of this content was recorded before.
    pub(crate) fn knows(&self, meta: &PageMeta) -> bool {
        Self::keys_of(meta).any(|k| self.keys.contains(&k))
    }

    /// Whether the page is another address of a page recorded before that only the fold
    /// digests tell (equal bytes are a duplicate the paper's way: its links count as they
    /// always did, and a static site's yields stay what they were).
    pub(crate) fn folds_into_known(&self, meta: &PageMeta) -> bool {
        !self.keys.contains(&meta.hash()) && self.knows(meta)
    }

    /// Records a page's content keys.
    pub(crate) fn add(&mut self, meta: &PageMeta) {
        if !self.knows(meta) {
            self.distinct += 1;
        }
        self.keys.extend(Self::keys_of(meta));
    }

    /// Encodes the keys and the count as they are (a parked scope: [`super::park`]).
    pub(crate) fn put(&self, out: &mut impl Put) {
        out.put_var(self.distinct as u64);
        out.put_var(self.keys.len() as u64);
        for &k in &self.keys {
            out.put_u128(k);
        }
    }

    /// Decodes what [`Self::put`] wrote.
    pub(crate) fn read(r: &mut Reader<'_>) -> Result<Self, Corrupt> {
        let distinct = r.var()? as usize;
        let n = r.var()? as usize;
        let mut keys = hashbrown::HashSet::with_capacity(n.min(1 << 20));
        for _ in 0..n {
            keys.insert(r.u128()?);
        }
        Ok(Contents { keys, distinct })
    }

    /// The keys in order ([`super::ScopeGraph::state_text`]).
    #[cfg(test)]
    pub(crate) fn state_text(&self) -> String {
        let mut keys: Vec<_> = self.keys.iter().collect();
        keys.sort();
        format!("{} {keys:?}", self.distinct)
    }

    /// Bytes held on the heap (an estimate: a key and a control byte per slot).
    pub(crate) fn heap_bytes(&self) -> usize {
        self.keys.capacity() * 17
    }
}

//! One link of a page as a scope keeps it: its kind and target in one word, its text and
//! `rel` qualifiers in another ([`LinkRec`]), or a repeat of the record before it.

use super::LinkKind;

/// Link kinds are kept in the top two bits of `LinkRec::target`.
pub(super) const KIND_SHIFT: u32 = 30;
/// The id part of `LinkRec::target`.
pub(super) const ID_MASK: u32 = (1 << KIND_SHIFT) - 1;

/// The kind code of a [`LinkRec`] that repeats the record before it (see [`LinkRec::repeat`]).
pub(super) const REPEAT: u32 = 3;

/// One link of a page. 8 bytes: internal/external → (url id, anchor text id);
/// bad → (raw text id, reason text id); or a repeat: the page's record before it, `n` more
/// times (a source listing's 74,000 line anchors all point to the listing itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct LinkRec {
    pub(super) target: u32,
    /// The text id (below [`TEXT_LIMIT`]), and the link's `rel` qualifiers in the top
    /// [`Rel::BITS`](crate::model::link_attrs::Rel::BITS) bits.
    pub(super) aux: u32,
}

/// Text ids of a scope stay below this: a link record keeps its `rel` qualifiers above them.
/// (2^29 texts would take tens of GB; a scope reaching it stops with an error.)
pub(super) const TEXT_LIMIT: u32 = 1 << (32 - crate::model::link_attrs::Rel::BITS);

impl LinkRec {
    pub(super) fn new(
        kind: LinkKind,
        id: u32,
        aux: u32,
        rel: crate::model::link_attrs::Rel,
    ) -> Self {
        LinkRec {
            target: (kind.code() << KIND_SHIFT) | id,
            aux: (aux & (TEXT_LIMIT - 1))
                | rel.bits() << (32 - crate::model::link_attrs::Rel::BITS),
        }
    }
    /// Whether the link gives its target a level: not when it carries `nofollow`, `ugc` or
    /// `sponsored` and the crawl obeys them (`obey`).
    pub(super) fn follows(self, obey: bool) -> bool {
        !(obey && self.rel().is_nofollow())
    }
    /// The anchor's (internal, external) or reason's (bad) text id.
    pub(super) fn text(self) -> u32 {
        self.aux & (TEXT_LIMIT - 1)
    }
    /// The link's `rel` qualifiers.
    pub(super) fn rel(self) -> crate::model::link_attrs::Rel {
        crate::model::link_attrs::Rel::from_bits(
            self.aux >> (32 - crate::model::link_attrs::Rel::BITS),
        )
    }
    /// The record before it, `n` (at least 1) more times.
    pub(super) fn repeat(n: u32) -> Self {
        LinkRec {
            target: (REPEAT << KIND_SHIFT) | n.min(ID_MASK),
            aux: 0,
        }
    }
    /// How many more times the record before it occurs, when this is a repeat (else 0).
    pub(super) fn repeats(self) -> u32 {
        if self.target >> KIND_SHIFT == REPEAT {
            self.id()
        } else {
            0
        }
    }
    /// A link's kind (`None` for a repeat: readers that do not count copies skip it).
    pub(super) fn kind(self) -> Option<LinkKind> {
        LinkKind::from_code(self.target >> KIND_SHIFT)
    }
    pub(super) fn is_internal(self) -> bool {
        self.target >> KIND_SHIFT == 0
    }
    pub(super) fn id(self) -> u32 {
        self.target & ID_MASK
    }
}

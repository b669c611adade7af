//! What a scope records, as values in ids: an outcome whose strings are already interned
//! ([`Resolved`]), and the journal entries that introduce those strings ([`Entry`]). A live
//! commit produces them, the journal stores them (`journal.rs`), and re-applying a journal
//! applies the same values with the same code.

use crate::base::storage::codec::{Corrupt, Put, Reader};
use crate::crawl::message::{Decided, HopKind};
use crate::model::bandit::Yield;
use crate::model::site::Origin;

/// What a link of a page points to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LinkKind {
    /// A URL of the scope: target = URL id, aux = anchor text id.
    Internal,
    /// A URL on another site: target = URL id, aux = anchor text id.
    External,
    /// Not a crawlable URL: target = raw text id, aux = reason text id.
    Bad,
}

impl LinkKind {
    /// The two-bit code kept in link records and the journal.
    pub(crate) fn code(self) -> u32 {
        match self {
            LinkKind::Internal => 0,
            LinkKind::External => 1,
            LinkKind::Bad => 2,
        }
    }

    /// The kind of a code, if it is one.
    pub(crate) fn from_code(code: u32) -> Option<Self> {
        match code {
            0 => Some(LinkKind::Internal),
            1 => Some(LinkKind::External),
            2 => Some(LinkKind::Bad),
            _ => None,
        }
    }
}

/// A text id that names no text (a page without a canonical URL).
pub(crate) const NO_TEXT: u32 = u32::MAX;

/// What a scope records of a page besides its links, in ids: one value and one codec, used by
/// live commits, the journal and snapshots alike. A new per-page field goes here (its bytes
/// in [`PageMeta::put`] and [`PageMeta::read`], with a `storage::FORMAT_VERSION` bump), in the
/// parser's `PageRecord` that fills it, in the commit that interns it, and in a `SiteGraph`
/// accessor for the unloaders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PageMeta {
    /// The body's 128-bit hash, as four words (so a page record is not padded to a 16-byte
    /// alignment).
    hash: [u32; 4],
    /// Body bytes (capped at [`MAX_BYTES`]), and in the two bits above what rendering says of
    /// the page ([`RENDERED`], [`SCRIPT_BUILT`]): kept, journaled and saved with the size at
    /// no cost a page.
    bytes: u32,
    /// The `<title>`'s text id.
    pub(crate) title: u32,
    /// The `<link rel="canonical">` URL's text id, or [`NO_TEXT`].
    pub(crate) canonical: u32,
    /// The robots directives' text id (SPEC §17), or [`NO_TEXT`].
    robots: u32,
    /// The print rule's sketch's text id ([`crate::model::fold::print_sketch`]), or [`NO_TEXT`];
    /// or, for a document (which has no sketch), [`DOCUMENT_BASE`] minus its type's code
    /// (SPEC §19): the type costs a page record nothing.
    sketch: u32,
    /// The fold digests (SPEC §14: request, own address, text), as six words like `hash`;
    /// zero when not computed (`Duplicates = exact`).
    digests: [u32; 6],
}

/// Sketch words from here down to `DOCUMENT_BASE − 11` name a document type, not a text: a
/// scope's texts are interned strings, never four billion of them.
const DOCUMENT_BASE: u32 = NO_TEXT - 1;

/// The largest body size a page record holds (1 GiB − 1, above `MaxPageBytes`' largest).
pub(crate) const MAX_BYTES: u32 = (1 << 30) - 1;
/// The page was rendered (SPEC §18).
const RENDERED: u32 = 1 << 31;
/// The page's HTML looks script-built (SPEC §18).
const SCRIPT_BUILT: u32 = 1 << 30;

impl PageMeta {
    /// The body's size in bytes.
    pub(crate) fn body_bytes(&self) -> u32 {
        self.bytes & MAX_BYTES
    }

    /// What rendering says of the page.
    pub(crate) fn render_mark(&self) -> crate::crawl::message::RenderMark {
        crate::crawl::message::RenderMark {
            rendered: self.bytes & RENDERED != 0,
            script_built: self.bytes & SCRIPT_BUILT != 0,
        }
    }

    /// The record with what rendering says of the page.
    pub(crate) fn with_render(mut self, mark: crate::crawl::message::RenderMark) -> Self {
        self.bytes &= MAX_BYTES;
        if mark.rendered {
            self.bytes |= RENDERED;
        }
        if mark.script_built {
            self.bytes |= SCRIPT_BUILT;
        }
        self
    }

    /// A page's record.
    pub(crate) fn new(hash: u128, bytes: u32, title: u32, canonical: Option<u32>) -> Self {
        PageMeta {
            hash: [
                hash as u32,
                (hash >> 32) as u32,
                (hash >> 64) as u32,
                (hash >> 96) as u32,
            ],
            bytes,
            title,
            canonical: canonical.unwrap_or(NO_TEXT),
            robots: NO_TEXT,
            sketch: NO_TEXT,
            digests: [0; 6],
        }
    }

    /// The record with the page's robots directives' text id.
    pub(crate) fn with_robots(mut self, robots: Option<u32>) -> Self {
        self.robots = robots.unwrap_or(NO_TEXT);
        self
    }

    /// The record with its print sketch's text id.
    pub(crate) fn with_sketch(mut self, sketch: Option<u32>) -> Self {
        self.sketch = sketch.unwrap_or(NO_TEXT);
        self
    }

    /// The print sketch's text id, if the page has one.
    pub(crate) fn sketch(&self) -> Option<u32> {
        (self.sketch < DOCUMENT_BASE - 16).then_some(self.sketch)
    }

    /// What the node is: a page or a document type (SPEC §19).
    pub(crate) fn node_type(&self) -> crate::model::documents::NodeType {
        use crate::model::documents::NodeType;
        let code = DOCUMENT_BASE.checked_sub(self.sketch).filter(|c| *c < 16);
        code.and_then(|c| NodeType::from_code(c as u8 + 1))
            .unwrap_or(NodeType::Html)
    }

    /// The record of a node of type `t` (a document has no sketch).
    pub(crate) fn with_node_type(mut self, t: crate::model::documents::NodeType) -> Self {
        if t.is_document() {
            self.sketch = DOCUMENT_BASE - u32::from(t.code() - 1);
        }
        self
    }

    /// The robots directives' text id, if the page has any.
    pub(crate) fn robots(&self) -> Option<u32> {
        (self.robots != NO_TEXT).then_some(self.robots)
    }

    /// The record with the page's fold digests.
    pub(crate) fn with_digests(mut self, d: crate::model::fold::Digests) -> Self {
        let split = |v: u64| [v as u32, (v >> 32) as u32];
        let [a, b] = split(d.request);
        let [c, e] = split(d.own);
        let [f, g] = split(d.text);
        self.digests = [a, b, c, e, f, g];
        self
    }

    /// The page's digests as the fold rules use them: a page whose bytes are the page (its
    /// request and own digests its hash's), or one of a `Duplicates = exact` crawl (none),
    /// carries a text digest for `compare` alone (nodes.csv `TextHash`): the rules see none.
    pub(crate) fn fold_digests(&self) -> crate::model::fold::Digests {
        let mut d = self.digests();
        let bytes_only = d.request == d.own && d.request == self.hash() as u64;
        // `Duplicates = exact` records the text digest alone: no fold digest at all.
        let exact = d.request == 0 && d.own == 0;
        if bytes_only || exact {
            d.text = 0;
        }
        d
    }

    /// The page's digests as recorded (all zero when not computed).
    pub(crate) fn digests(&self) -> crate::model::fold::Digests {
        let join = |lo: u32, hi: u32| u64::from(lo) | u64::from(hi) << 32;
        let d = self.digests;
        crate::model::fold::Digests {
            request: join(d[0], d[1]),
            own: join(d[2], d[3]),
            text: join(d[4], d[5]),
            names_itself: false,
        }
    }

    /// The body's hash.
    pub(crate) fn hash(&self) -> u128 {
        let [a, b, c, d] = self.hash;
        u128::from(a) | u128::from(b) << 32 | u128::from(c) << 64 | u128::from(d) << 96
    }

    /// The canonical URL's text id, if the page names one.
    pub(crate) fn canonical(&self) -> Option<u32> {
        (self.canonical != NO_TEXT).then_some(self.canonical)
    }

    /// Whether every text id it names is below `texts`.
    pub(crate) fn texts_known(&self, texts: u32) -> bool {
        self.title < texts
            && self.canonical().is_none_or(|c| c < texts)
            && self.robots().is_none_or(|r| r < texts)
            && self.sketch().is_none_or(|s| s < texts)
    }

    /// Its bytes, as journal records and snapshots hold them.
    pub(crate) fn put(&self, out: &mut impl Put) {
        out.put_u128(self.hash());
        out.put_var(u64::from(self.bytes));
        out.put_var(u64::from(self.title));
        out.put_var(self.canonical().map_or(0, |c| u64::from(c) + 1));
        out.put_var(self.robots().map_or(0, |c| u64::from(c) + 1));
        // 0: none, 1 + id: a sketch, a document type above u32's range: 2^32 + its code.
        let sketch = match self.sketch() {
            Some(c) => u64::from(c) + 1,
            None if self.node_type().is_document() => {
                (1 << 32) + u64::from(self.node_type().code())
            }
            None => 0,
        };
        out.put_var(sketch);
        let d = self.digests();
        out.put_u128(u128::from(d.request) | u128::from(d.own) << 64);
        out.put_u32(d.text as u32);
        out.put_u32((d.text >> 32) as u32);
    }

    /// Reads what [`Self::put`] wrote.
    pub(crate) fn read(r: &mut Reader<'_>) -> Result<Self, Corrupt> {
        let hash = r.u128()?;
        let bytes = r.var32()?;
        let title = r.var32()?;
        let canonical = r.var32()?.checked_sub(1);
        let robots = r.var32()?.checked_sub(1);
        let word = r.var()?;
        let node_type = match word >> 32 {
            0 => crate::model::documents::NodeType::Html,
            1 => crate::model::documents::NodeType::from_code((word & 0xff) as u8)
                .ok_or(Corrupt("a page record's node type"))?,
            _ => return Err(Corrupt("a page record's node type")),
        };
        let sketch = if node_type.is_document() {
            None
        } else {
            (word as u32).checked_sub(1)
        };
        let pair = r.u128()?;
        let text = u64::from(r.u32()?) | u64::from(r.u32()?) << 32;
        Ok(PageMeta::new(hash, bytes, title, canonical)
            .with_robots(robots)
            .with_sketch(sketch)
            .with_node_type(node_type)
            .with_digests(crate::model::fold::Digests {
                request: pair as u64,
                own: (pair >> 64) as u64,
                text,
                names_itself: false,
            }))
    }
}

/// One link in ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ResolvedLink {
    /// What it points to.
    pub(crate) kind: LinkKind,
    /// URL id (internal, external) or raw-text id (bad).
    pub(crate) target: u32,
    /// Anchor text id (internal, external) or reason text id (bad).
    pub(crate) aux: u32,
    /// For internal links that may not be fetched: the reason's text id.
    pub(crate) failure: Option<u32>,
    /// Its `rel` qualifiers (internal, external; none on bad links).
    pub(crate) rel: crate::model::link_attrs::Rel,
}

/// What became of the task URL, in ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ResolvedKind {
    /// An HTML page; `probe`: a URL of its site that cannot exist, to be fetched to learn
    /// whether the site answers unknown paths with a 200 "not found" page (SPEC §14).
    Page {
        meta: PageMeta,
        links: Vec<ResolvedLink>,
        probe: Option<u32>,
    },
    /// A redirect to another site: the external URL's id.
    OffSite(u32),
    /// A redirect to another site of the scope: that URL's id, and the last hop's kind.
    Elsewhere { url: u32, kind: HopKind },
    /// Not a page: the reason's text id.
    Failed { reason: u32, decided: Decided },
}

/// One redirect hop in ids: the URL it led to, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ResolvedHop {
    pub(crate) url: u32,
    pub(crate) kind: HopKind,
}

/// One fetch of the crawl as the budget counts it: its place among all fetches of the run
/// (`seq`, over every scope), and what it paid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pull {
    pub(crate) seq: u64,
    /// What it revealed.
    pub(crate) yielded: Yield,
    /// Requests it made besides its redirect chain (a page fetched twice to learn what its
    /// site changes per response, SPEC §14): counted in `Fetched`, not in the budget.
    pub(crate) extra: u32,
}

/// An outcome in ids: the task URL, its redirect hops, what they ended in, and the fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Resolved {
    pub(crate) task: u32,
    pub(crate) chain: Vec<ResolvedHop>,
    pub(crate) kind: ResolvedKind,
    pub(crate) pull: Pull,
}

/// One journal entry. A record is the entries of one commit (or one scope-level change):
/// first each string interned for the first time, in interning order, then what happened.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Entry<'a> {
    /// A scope is created (the first record of a scope).
    AddScope { origin: Origin, max_level: u32 },
    /// A URL of local site `site` is interned.
    NewUrl { site: u16, url: &'a str },
    /// A URL of another site is interned.
    NewExternal { url: &'a str },
    /// An anchor, title or reason text is interned.
    NewText { text: &'a str },
    /// A site joins the scope (its next local index).
    NewSite { origin: Origin },
    /// `maxCrawlLevel` or a trap rule changed (hosts.txt or settings.ini edited between
    /// runs).
    SetLevelLimits {
        max_level: u32,
        traps: super::TrapRules,
        /// `FollowNofollow = no`.
        obey_nofollow: bool,
    },
    /// Another seed joins the scope (SPEC §6): its site if new, its home page at level 0.
    AddSeed { origin: Origin },
    /// An outcome.
    Commit(Resolved),
    /// The scope was written and released (the last record of its journal).
    Retired(super::RetiredScope),
    /// A scope retired unfinished is crawled again from its data, which this entry holds
    /// (as a snapshot holds it): the records after it are applied to this data.
    Revived { data: &'a [u8] },
    /// What local site `site` changes per response, as learned so far (SPEC §14): its rules
    /// replace the ones before.
    Learned {
        site: u16,
        rules: crate::model::fold::SiteRules,
    },
    /// Local site `site`'s cookie jar (SPEC §14): replaces the one before if newer.
    Cookies {
        site: u16,
        jar: crate::model::cookies::SavedJar,
    },
    /// A page a sitemap lists, which no link reached, is queued as an orphan
    /// (`SitemapSeeds`, SPEC §17).
    Orphan { site: u16, url: &'a str },
}

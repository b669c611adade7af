//! The ids every part of the crawl names things by. Dense `u32` newtypes: they index vectors,
//! cost four bytes, and cannot be mixed up with each other.

/// A crawl scope: one seed's crawl (the set of URLs whose pages form its graph).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScopeId(pub u32);

/// A site: the unit of politeness (SPEC §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SiteId(pub u32);

impl SiteId {
    /// No site of this run: a saved site not bound yet (or no longer listed).
    pub const NONE: SiteId = SiteId(u32::MAX);
}

/// A URL within one scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UrlId(pub u32);

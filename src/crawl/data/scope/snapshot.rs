//! A scope's complete data as bytes (the body of a snapshot file) and back. Frontiers are not
//! saved: they are rebuilt from the URL states, with URLs that were in flight queued again.

use std::time::Duration;

use super::{
    LinkRange, LinkRec, NO_LEVEL, PageRec, PullRec, STATIC_BIT, ScopeGraph, UNBOUND, UrlRec,
    UrlState,
};
use crate::base::storage::codec::{Corrupt, IoPut, Put, Reader};
use crate::crawl::data::interner::Interner;
use crate::crawl::data::records::{LinkKind, PageMeta, Pull};
use crate::model::site::Origin;

fn origin_from(text: &str) -> Result<Origin, Corrupt> {
    Origin::parse(text).ok_or(Corrupt("bad origin"))
}

fn put_interner(out: &mut impl Put, i: &Interner) {
    let (arena, ends) = i.parts();
    out.put_bytes(arena.as_bytes());
    out.put_var(ends.len() as u64);
    for &e in ends {
        out.put_u32(e);
    }
}

fn read_interner(r: &mut Reader<'_>) -> Result<Interner, Corrupt> {
    let arena = r.str()?.to_owned();
    let n = r.var()?;
    let mut ends = Vec::with_capacity(n.min(1 << 24) as usize);
    for _ in 0..n {
        ends.push(r.u32()?);
    }
    Interner::from_parts(arena, ends)
}

/// The orphans a sitemap listed (SitemapSeeds), each a URL of the `urls` recorded.
fn read_orphans(r: &mut Reader<'_>, urls: usize) -> Result<Vec<u32>, Corrupt> {
    let mut orphans = Vec::new();
    for _ in 0..r.var()? {
        let o = r.var32()?;
        if o as usize >= urls {
            return Err(Corrupt("an orphan of an unknown URL"));
        }
        orphans.push(o);
    }
    Ok(orphans)
}

impl ScopeGraph {
    /// Encodes everything but the frontiers into `w` (streamed: no copy of the scope is
    /// built in memory).
    pub(crate) fn write_to(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut out = IoPut::new(w);
        self.encode(&mut out);
        out.finish()
    }

    /// The snapshot's bytes ([`Self::write_to`]; a parked scope's first part).
    pub(super) fn encode(&self, out: &mut impl Put) {
        out.put_var(u64::from(self.index));
        out.put_bytes(self.origin.to_string().as_bytes());
        out.put_var(u64::from(self.max_level));
        out.put_var(u64::from(self.traps.levels));
        out.put_var(u64::from(self.traps.pattern_urls));
        out.put_u8(u8::from(self.obey_nofollow));
        out.put_var(self.site_origins.len() as u64);
        for o in &self.site_origins {
            out.put_bytes(o.to_string().as_bytes());
        }
        out.put_var(u64::from(self.home));
        out.put_var(self.more_homes.len() as u64);
        for &h in &self.more_homes {
            out.put_var(u64::from(h));
        }
        out.put_var(self.outcomes);
        out.put_var(self.active_time().as_millis() as u64);
        put_interner(out, &self.urls);
        out.put_var(self.recs.len() as u64);
        for r in &self.recs {
            out.put_u32(r.level);
            out.put_u32(r.data);
            out.put_u8(r.state.to_u8());
            out.put_var(u64::from(r.site));
        }
        put_interner(out, &self.texts);
        // Link records are saved unpacked, pages naming them by record number: the format
        // of the saved state does not depend on how memory holds them.
        out.put_var(self.pages.len() as u64);
        let mut at = 0u32;
        for p in &self.pages {
            let n = self.page_links(p).count() as u32;
            out.put_u32(at);
            out.put_u32(n);
            p.meta.put(out);
            at += n;
        }
        out.put_var(u64::from(at));
        for p in &self.pages {
            for l in self.page_links(p) {
                out.put_u32(l.target);
                out.put_u32(l.aux);
            }
        }
        out.put_var(self.pulls.len() as u64);
        for p in &self.pulls {
            out.put_var(p.pull.seq);
            out.put_var(u64::from(p.pull.yielded.new_external));
            out.put_var(u64::from(p.pull.yielded.external));
            out.put_var(u64::from(p.pull.extra));
            out.put_var(u64::from(p.site));
            out.put_var(u64::from(p.url));
        }
        self.memory.put(out);
        out.put_var(self.orphans.len() as u64);
        for &o in &self.orphans {
            out.put_var(u64::from(o));
        }
    }

    /// Decodes a scope; its sites are unbound until the caller binds them to this run's ids.
    pub(crate) fn from_bytes(bytes: &[u8]) -> Result<ScopeGraph, Corrupt> {
        let mut r = Reader::new(bytes);
        let mut g = Self::decode(&mut r)?;
        if !r.is_empty() {
            return Err(Corrupt("trailing bytes"));
        }
        for i in 0..g.pages.len() {
            let meta = g.pages[i].meta;
            g.contents.add(&meta);
        }
        g.rebuild_shapes();
        g.rebuild_frontiers();
        Ok(g)
    }

    /// Decodes the saved records from `r`, leaving the contents, shapes and frontiers empty
    /// for the caller to rebuild or read, and what follows in `r`.
    pub(super) fn decode(r: &mut Reader<'_>) -> Result<ScopeGraph, Corrupt> {
        let index = r.var32()?;
        let origin = origin_from(r.str()?)?;
        let max_level = r.var32()?;
        let mut g = ScopeGraph::empty(index, origin, max_level);
        g.traps.levels = r.var32()?;
        g.traps.pattern_urls = r.var32()?;
        g.obey_nofollow = r.u8()? != 0;
        for _ in 0..r.var()? {
            let o = origin_from(r.str()?)?;
            g.add_local_site(UNBOUND, o)
                .map_err(|_| Corrupt("too many sites"))?;
        }
        g.home = r.var32()?;
        for _ in 0..r.var()? {
            g.more_homes.push(r.var32()?);
        }
        g.outcomes = r.var()?;
        g.earlier_active = Duration::from_millis(r.var()?);
        g.urls = read_interner(r)?;
        let n = r.var()?;
        if n != g.urls.len() as u64 {
            return Err(Corrupt("URL records and URLs differ in number"));
        }
        for _ in 0..n {
            let level = r.u32()?;
            let data = r.u32()?;
            let state = UrlState::from_u8(r.u8()?).ok_or(Corrupt("bad URL state"))?;
            let site = u16::try_from(r.var()?).map_err(|_| Corrupt("site out of range"))?;
            if usize::from(site) >= g.sites.len().max(1) {
                return Err(Corrupt("URL of an unknown site"));
            }
            g.recs.push(UrlRec {
                level,
                data,
                state,
                site,
            });
        }
        g.texts = read_interner(r)?;
        let mut ranges = Vec::new();
        for _ in 0..r.var()? {
            let (start, len) = (r.u32()?, r.u32()?);
            ranges.push((start, len));
            g.pages.push(PageRec {
                meta: PageMeta::read(r)?,
                links: LinkRange::default(),
            });
        }
        let mut links = Vec::new();
        for _ in 0..r.var()? {
            links.push(LinkRec {
                target: r.u32()?,
                aux: r.u32()?,
            });
        }
        for _ in 0..r.var()? {
            let pull = Pull {
                seq: r.var()?,
                yielded: crate::model::bandit::Yield {
                    new_external: r.var32()?,
                    external: r.var32()?,
                },
                extra: r.var32()?,
            };
            let site = u16::try_from(r.var()?).map_err(|_| Corrupt("site out of range"))?;
            let url = r.var32()?;
            if usize::from(site) >= g.sites.len().max(1) || url as usize >= g.recs.len() {
                return Err(Corrupt("a fetch of an unknown URL"));
            }
            g.pulls.push(PullRec { pull, site, url });
        }
        g.memory = super::site_memory::SiteMemory::read(r, g.sites.len())?;
        g.orphans = read_orphans(r, g.recs.len())?;
        g.check()?;
        g.check_links(&ranges, &links)?;
        for (p, &(start, len)) in g.pages.iter_mut().zip(&ranges) {
            let start = start as usize;
            let recs = &links[start..start + len as usize];
            p.links = g
                .links
                .append(recs)
                .map_err(|_| Corrupt("too many link records"))?;
        }
        Ok(g)
    }

    /// Every id stored in the records points inside its table.
    fn check(&self) -> Result<(), Corrupt> {
        let (n_urls, n_texts, n_pages) = (
            self.recs.len() as u32,
            self.texts.len() as u32,
            self.pages.len() as u32,
        );
        if self.home >= n_urls || self.more_homes.iter().any(|&h| h >= n_urls) {
            return Err(Corrupt("home page"));
        }
        for r in &self.recs {
            // A breadth-first level is below the number of URLs; queued URLs have one. (A
            // damaged level of four billion made the frontier allocate a bucket per level:
            // found by the saved_state fuzz target.)
            // An orphan's is one past maxCrawlLevel (SitemapSeeds).
            if r.level != NO_LEVEL
                && r.level >= n_urls
                && r.level > self.max_level.saturating_add(1)
            {
                return Err(Corrupt("URL level out of range"));
            }
            if r.level == NO_LEVEL && matches!(r.state, UrlState::Queued | UrlState::InFlight) {
                return Err(Corrupt("queued URL without a level"));
            }
            let ok = match r.state {
                UrlState::Page => r.data < n_pages,
                UrlState::Redirect | UrlState::Refresh | UrlState::OffSite => r.data < n_urls,
                UrlState::Failed => (r.data & !STATIC_BIT) < n_texts,
                _ => true,
            };
            if !ok {
                return Err(Corrupt("URL record points nowhere"));
            }
        }
        if self.pages.iter().any(|p| !p.meta.texts_known(n_texts)) {
            return Err(Corrupt("page record points nowhere"));
        }
        Ok(())
    }

    /// Every page's range of link records lies in `links`, and every record points inside
    /// its table.
    fn check_links(&self, ranges: &[(u32, u32)], links: &[LinkRec]) -> Result<(), Corrupt> {
        let (n_urls, n_texts) = (self.recs.len() as u32, self.texts.len() as u32);
        for &(start, len) in ranges {
            if u64::from(start) + u64::from(len) > links.len() as u64 {
                return Err(Corrupt("page record points nowhere"));
            }
        }
        for l in links {
            let ok = match l.kind() {
                Some(LinkKind::Bad) => l.id() < n_texts,
                Some(LinkKind::Internal | LinkKind::External) => l.id() < n_urls,
                None => l.repeats() > 0,
            };
            if !ok || l.text() >= n_texts {
                return Err(Corrupt("link record points nowhere"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::Journaling;
    use super::*;
    use crate::base::ids::SiteId;

    fn home_only() -> ScopeGraph {
        let origin = origin_from("http://a.test/").unwrap();
        ScopeGraph::new(0, origin, SiteId(0), 3, Journaling::Off).unwrap()
    }

    fn bytes(g: &ScopeGraph) -> Vec<u8> {
        let mut out = Vec::new();
        g.write_to(&mut out).unwrap();
        out
    }

    #[test]
    fn round_trip() {
        let g = home_only();
        let back = ScopeGraph::from_bytes(&bytes(&g)).unwrap();
        assert_eq!(back.recs.len(), 1);
        assert_eq!(back.pending(), 1, "the home page is queued again");
    }

    /// See: issue 19. Link records are packed in memory; the saved state still holds them
    /// unpacked (8 bytes each), pages naming them by record number, and loads back to the
    /// same records and the same bytes.
    #[test]
    fn packed_links_are_saved_unpacked_and_load_back_the_same() {
        use crate::crawl::data::records::{PageMeta, ResolvedLink};
        use crate::model::link_attrs::Rel;
        let mut g = home_only();
        let x = g.url_ref("http://a.test/x", 0).unwrap();
        let far = g.url_ref("http://b.test/far", 0).unwrap();
        let (empty, t1) = (g.text_ref("").unwrap(), g.text_ref("one").unwrap());
        let link = |kind, target, aux| ResolvedLink {
            kind,
            target,
            aux,
            failure: None,
            rel: Rel::NONE,
        };
        let nofollow = ResolvedLink {
            rel: Rel::parse("nofollow sponsored"),
            ..link(LinkKind::External, far, t1)
        };
        let first = [
            link(LinkKind::Internal, x, empty),
            link(LinkKind::Internal, x, empty),
            nofollow,
        ];
        let second = [
            link(LinkKind::Bad, t1, empty),
            link(LinkKind::Internal, 0, t1),
        ];
        g.add_page(PageMeta::new(1, 1, empty, None), &first)
            .unwrap();
        g.add_page(PageMeta::new(2, 1, empty, None), &second)
            .unwrap();
        let saved = bytes(&g);
        let back = ScopeGraph::from_bytes(&saved).unwrap();
        for (a, b) in g.pages.iter().zip(&back.pages) {
            let (a, b): (Vec<_>, Vec<_>) =
                (g.page_links(a).collect(), back.page_links(b).collect());
            assert_eq!(a, b);
        }
        assert_eq!(bytes(&back), saved);
        // The links section: their count, then 5 records (x, a repeat, far; bad, home) of 8
        // bytes each; the second page names records 3 and 4.
        let mut tail = Vec::new();
        for r in [
            LinkRec::new(LinkKind::Internal, x, empty, Rel::NONE),
            LinkRec::repeat(1),
            LinkRec::new(LinkKind::External, far, t1, nofollow.rel),
            LinkRec::new(LinkKind::Bad, t1, empty, Rel::NONE),
            LinkRec::new(LinkKind::Internal, 0, t1, Rel::NONE),
        ] {
            tail.extend_from_slice(&r.target.to_le_bytes());
            tail.extend_from_slice(&r.aux.to_le_bytes());
        }
        let at = saved
            .windows(tail.len())
            .position(|w| w == tail.as_slice())
            .expect("the records, unpacked and in page order");
        assert_eq!(saved[at - 1], 5, "their count");
        let mut second_page = 3u32.to_le_bytes().to_vec();
        second_page.extend_from_slice(&2u32.to_le_bytes());
        assert!(saved.windows(8).any(|w| w == second_page.as_slice()));
    }

    #[test]
    fn impossible_levels_are_corrupt_not_an_allocation() {
        let mut g = home_only();
        g.recs[0].level = 4_000_000_000;
        assert_eq!(
            ScopeGraph::from_bytes(&bytes(&g)).err(),
            Some(Corrupt("URL level out of range"))
        );
        g.recs[0].level = NO_LEVEL;
        assert_eq!(
            ScopeGraph::from_bytes(&bytes(&g)).err(),
            Some(Corrupt("queued URL without a level"))
        );
        // Not queued and not levelled is fine, and stays unqueued even with the largest
        // maximum level.
        g.recs[0].state = UrlState::Seen;
        g.max_level = u32::MAX;
        let back = ScopeGraph::from_bytes(&bytes(&g)).unwrap();
        assert_eq!(back.pending(), 0);
    }
}

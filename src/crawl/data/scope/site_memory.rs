//! What a scope keeps about each of its sites besides pages (SPEC §14): what the site changes
//! per response, as learned so far, and its cookie jar — saved with the scope so that a
//! continued crawl digests and requests as the earlier runs did.

use super::ScopeGraph;
use crate::base::storage::codec::{Corrupt, Put, Reader};
use crate::model::cookies::SavedJar;
use crate::model::fold::SiteRules;
use crate::model::site::Origin;

/// Per local site (its index in the scope), in the order the sites first had something.
#[derive(Debug, Default)]
pub(crate) struct SiteMemory {
    learned: Vec<(u16, SiteRules)>,
    cookies: Vec<(u16, SavedJar)>,
}

impl SiteMemory {
    /// Sets what local site `site` changes per response (its rules so far).
    pub(crate) fn set_learned(&mut self, site: u16, rules: SiteRules) {
        match self.learned.iter_mut().find(|(s, _)| *s == site) {
            Some(slot) => slot.1 = rules,
            None => self.learned.push((site, rules)),
        }
    }

    /// Keeps local site `site`'s cookie jar, unless it is older than the one kept (a commit
    /// that came late).
    pub(crate) fn set_cookies(&mut self, site: u16, jar: SavedJar) {
        match self.cookies.iter_mut().find(|(s, _)| *s == site) {
            Some(slot) if slot.1.generation <= jar.generation => slot.1 = jar,
            Some(_) => {}
            None => self.cookies.push((site, jar)),
        }
    }

    /// The learned rules, by local site.
    pub(crate) fn learned(&self) -> &[(u16, SiteRules)] {
        &self.learned
    }

    /// The cookie jars, by local site.
    pub(crate) fn cookies(&self) -> &[(u16, SavedJar)] {
        &self.cookies
    }

    /// Appends it to a snapshot.
    pub(crate) fn put(&self, out: &mut impl Put) {
        out.put_var(self.learned.len() as u64);
        for (site, rules) in &self.learned {
            out.put_var(u64::from(*site));
            rules.put(out);
        }
        out.put_var(self.cookies.len() as u64);
        for (site, jar) in &self.cookies {
            out.put_var(u64::from(*site));
            out.put_var(jar.generation);
            out.put_bytes(&jar.bytes);
        }
    }

    /// Reads it back from a snapshot of a scope of `sites` local sites.
    pub(crate) fn read(r: &mut Reader<'_>, sites: usize) -> Result<Self, Corrupt> {
        let mut m = SiteMemory::default();
        let site = |r: &mut Reader<'_>, what| {
            let site = u16::try_from(r.var()?).map_err(|_| Corrupt("site out of range"))?;
            if usize::from(site) >= sites.max(1) {
                return Err(Corrupt(what));
            }
            Ok(site)
        };
        for _ in 0..r.var()? {
            let s = site(r, "rules of an unknown site")?;
            m.set_learned(s, SiteRules::read(r)?);
        }
        for _ in 0..r.var()? {
            let s = site(r, "cookies of an unknown site")?;
            let generation = r.var()?;
            let bytes = r.bytes()?.to_vec();
            m.set_cookies(s, SavedJar { generation, bytes });
        }
        Ok(m)
    }
}

impl ScopeGraph {
    /// Sets what local site `site` changes per response (its rules so far).
    pub(crate) fn set_learned(&mut self, site: u16, rules: SiteRules) {
        self.memory.set_learned(site, rules);
    }

    /// Keeps local site `site`'s cookie jar (unless older than the one kept).
    pub(crate) fn set_cookies(&mut self, site: u16, jar: SavedJar) {
        self.memory.set_cookies(site, jar);
    }

    /// `(local site, x)` pairs by the site's origin.
    fn by_origin<T: Clone>(&self, of: &[(u16, T)]) -> Vec<(Origin, T)> {
        of.iter()
            .filter_map(|(s, x)| Some((self.site_origins.get(usize::from(*s))?.clone(), x.clone())))
            .collect()
    }

    /// The scope's sites' cookie jars, by origin (to install in this run's sites when a saved
    /// scope is continued).
    pub(crate) fn saved_cookies(&self) -> Vec<(Origin, SavedJar)> {
        self.by_origin(self.memory.cookies())
    }

    /// What the scope's sites change per response, by origin (to install in this run's sites
    /// when a saved scope is continued).
    pub(crate) fn learned(&self) -> Vec<(Origin, SiteRules)> {
        self.by_origin(self.memory.learned())
    }
}

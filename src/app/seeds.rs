//! The seeds of hosts.txt and the scopes they are crawled in: which seeds share a scope (the
//! URL filter's plan), opening a scope — its saved crawl continued or a new one started —
//! and making its sites known to the sites registry and the dispatcher: the seeds, the hosts
//! a multi-host filter had found (a continued crawl), the aliases its home page had moved to.
//!
//! A store of one process opens every scope at the start. A store shared by several
//! processes opens those it gives this process, and hands out more while the crawl runs
//! ([`Seeds::open_more`], called by the routine thread about once a second).

use std::sync::Arc;

use parking_lot::Mutex;

use super::unload_all::ScopeRow;
use crate::data::coord::Coordinator;
use crate::data::{DataManager, OpenScopeError, ScopeLimits};
use crate::ids::{ScopeId, SiteId};
use crate::schedule::Dispatcher;
use crate::settings::SiteRules;
use crate::site::{Origin, SiteSpec};
use crate::sites::{SiteEntry, SiteKind, SiteView, Sites};
use crate::url_filter::{SeedPlan, UrlFilter};

/// The seeds and the scopes opened for them in this process.
#[derive(Debug)]
pub(crate) struct Seeds {
    hosts: Vec<SiteSpec>,
    plans: Vec<SeedPlan>,
    /// `MaxPagesPerSite` and `TrapLevels`, for every scope.
    limits: SiteRules,
    /// The scopes opened, as the results name them.
    rows: Mutex<Vec<ScopeRow>>,
}

/// What opening a scope needs.
pub(crate) struct Crawl<'a> {
    pub(crate) dm: &'a dyn DataManager,
    pub(crate) coordinator: &'a dyn Coordinator,
    pub(crate) sites: &'a Sites,
    pub(crate) dispatcher: &'a Dispatcher,
    pub(crate) filter: &'a dyn UrlFilter,
}

impl Seeds {
    /// Plans hosts.txt's seeds with `filter` (printing their key domains, if any).
    pub(crate) fn plan(hosts: &[SiteSpec], filter: &mut dyn UrlFilter, limits: SiteRules) -> Self {
        let origins: Vec<Origin> = hosts.iter().map(|h| h.origin.clone()).collect();
        let plans = filter.plan(&origins);
        for (spec, plan) in hosts.iter().zip(&plans) {
            if !plan.key_domains.is_empty() {
                eprintln!(
                    "{}: key domains {}",
                    spec.origin,
                    plan.key_domains.join(", ")
                );
            }
        }
        Seeds {
            hosts: hosts.to_vec(),
            plans,
            limits,
            rows: Mutex::new(Vec::new()),
        }
    }

    /// The first seed of every scope, in hosts.txt order.
    pub(crate) fn scope_origins(&self) -> Vec<Origin> {
        self.leaders()
            .map(|i| self.hosts[i].origin.clone())
            .collect()
    }

    fn leaders(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.hosts.len()).filter(|&i| self.plans[i].scope_of == i)
    }

    /// Opens every scope the data manager gives this process.
    pub(crate) fn open_all(&self, c: &Crawl<'_>) -> Result<(), OpenScopeError> {
        for i in self.leaders().collect::<Vec<_>>() {
            self.open(i, c)?;
        }
        Ok(())
    }

    /// Opens the scopes of `origins` (seed origins a shared store handed out); returns them as
    /// (scope, name) for the progress line.
    pub(crate) fn open_more(
        &self,
        origins: &[Origin],
        c: &Crawl<'_>,
    ) -> Result<Vec<(ScopeId, String)>, OpenScopeError> {
        let mut opened = Vec::new();
        for origin in origins {
            let Some(i) = self.leaders().find(|&i| self.hosts[i].origin == *origin) else {
                continue;
            };
            if let Some(scope) = self.open(i, c)? {
                opened.push((scope, origin.to_string()));
            }
        }
        Ok(opened)
    }

    /// The scopes opened so far, as the results name them.
    pub(crate) fn rows(&self) -> Vec<ScopeRow> {
        self.rows.lock().clone()
    }

    /// Opens the scope of seed `i` (the first of its scope) if the data manager gives it to
    /// this process, with the seeds that share it.
    fn open(&self, i: usize, c: &Crawl<'_>) -> Result<Option<ScopeId>, OpenScopeError> {
        let spec = &self.hosts[i];
        if self
            .rows
            .lock()
            .iter()
            .any(|r| r.name == spec.origin.to_string())
        {
            return Ok(None);
        }
        let limits = ScopeLimits {
            max_level: spec.max_level,
            max_pages: self.limits.max_pages,
            trap_levels: self.limits.trap_levels,
        };
        if let Some(most) = c.coordinator.scopes_per_process()
            && busy_scopes(c.dm) >= most
        {
            return Ok(None);
        }
        let Some(claim) = c.coordinator.claim(&spec.origin)? else {
            return Ok(None);
        };
        let (scope, _) = c.dm.open_scope(claim, SiteId::NONE, limits)?;
        c.filter.scope_opened(i, scope);
        let seed = c.sites.add(spec.clone(), scope);
        c.dm.bind_site(scope, &seed.origin, seed.id);
        c.dispatcher.add_site(&seed);
        for (j, plan) in self.plans.iter().enumerate() {
            if plan.scope_of != i || j == i {
                continue;
            }
            let member = c.sites.add(self.hosts[j].clone(), scope);
            c.dm.add_seed(scope, member.origin.clone(), member.id)?;
            c.dispatcher.add_site(&member);
            eprintln!(
                "{} shares the scope of {}: {}",
                member.origin, seed.origin, plan.shares_because
            );
        }
        self.rows
            .lock()
            .push(ScopeRow::new(scope, Some(seed.id), &seed.origin));
        Ok(Some(scope))
    }

    /// After the listed sites are in (and their other-scheme aliases): a continued crawl's
    /// hosts found by a multi-host filter become sites again, and the origins its home pages
    /// moved to aliases again.
    pub(crate) fn restore_sites(&self, scopes: &[ScopeId], c: &Crawl<'_>) {
        for &scope in scopes {
            let Some(seed) = c
                .sites
                .all()
                .into_iter()
                .find(|e| e.scope == scope && e.is_listed())
            else {
                continue;
            };
            for (origin, bound) in c.dm.scope_sites(scope) {
                if bound.is_some() {
                    continue;
                }
                let entry = rebind_host(c.filter, c.sites, &seed, origin.clone());
                c.dm.bind_site(scope, &origin, entry.id);
                c.dispatcher.add_site(&entry);
            }
            for origin in c.dm.home_origins(scope) {
                let _ = c.sites.add_alias(seed.id, origin);
            }
        }
    }
}

/// Scopes this process crawls that still have work.
pub(crate) fn busy_scopes(dm: &dyn DataManager) -> usize {
    dm.scopes()
        .iter()
        .filter(|s| s.active && dm.progress(s.id).pending > 0)
        .count()
}

/// A host of a continued multi-host scope, registered again: as the filter now sees it (so a
/// probed host is probed again), or as a plain host of the scope if the filter no longer
/// counts it in (its queued URLs still need a site to be fetched from or kept for).
fn rebind_host(
    filter: &dyn UrlFilter,
    sites: &Sites,
    seed: &SiteEntry,
    origin: Origin,
) -> Arc<SiteEntry> {
    let origins = seed.origins();
    let view = SiteView {
        entry: seed,
        origins: &origins,
    };
    filter
        .scope_site(&view, origin.home().as_url(), sites)
        .map(|id| sites.get(id))
        .filter(|e| e.origin == origin)
        .unwrap_or_else(|| sites.add_discovered(origin, seed, SiteKind::Found))
}

//! The seeds of hosts.txt and the scopes they are crawled in: which seeds share a scope (the
//! URL filter's plan), opening a scope — its saved crawl continued or a new one started —
//! and making its sites known to the sites registry and the dispatcher: the seeds, the hosts
//! a multi-host filter had found (a continued crawl), the aliases its home page had moved to.
//!
//! Scopes are opened a window at a time (SPEC §11), in hosts.txt order
//! ([`Seeds::open_next`]); a store shared by several processes opens those it gives this
//! process ([`Seeds::open_more`]). Every lookup is by index or hash: a crawl of 20,000 sites
//! opens scopes as fast as one of 20.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use parking_lot::Mutex;

use super::unload_all::{ScopeRow, dedupe_folder};
use crate::analysis::network::TargetScopes;
use crate::base::ids::{ScopeId, SiteId};
use crate::crawl::data::coord::Coordinator;
use crate::crawl::data::{DataManager, OpenScopeError, ScopeLimits, ScopeOpen};
use crate::crawl::schedule::Dispatcher;
use crate::crawl::settings::SiteRules;
use crate::model::site::{Origin, SiteSpec};
use crate::model::sites::{SiteEntry, SiteKind, SiteView, Sites};
use crate::model::url_filter::UrlFilter;

/// The seeds and the scopes opened for them in this process.
#[derive(Debug)]
pub(crate) struct Seeds {
    hosts: Vec<SiteSpec>,
    /// `MaxPagesPerSite` and `TrapLevels`, for every scope.
    limits: SiteRules,
    /// The first seed of each scope, in hosts.txt order.
    leaders: Vec<usize>,
    /// Each leader's other seeds (those that share its scope), with why they share it.
    members: HashMap<usize, Vec<(usize, String)>>,
    /// Leaders by their origin.
    leader_of: HashMap<Origin, usize>,
    /// The results folder of each leader whose folder name an earlier leader of hosts.txt
    /// has (`http://x` and `https://x`): chosen once from the whole list, so a scope's folder
    /// does not depend on which scopes this run or this process opened before it.
    renamed: HashMap<usize, String>,
    /// Which hosts each scope takes in, for the network of sites (its key domains, if any).
    network: TargetScopes,
    state: Mutex<Opened>,
}

/// The leaders of `hosts` whose results folder name an earlier leader has, with the folder
/// each gets instead. Worked out once, for the whole list: a scope's folder is the same
/// whichever scopes were opened before it (in this run, an earlier one, another process).
fn renamed_folders(hosts: &[SiteSpec], leaders: &[usize]) -> HashMap<usize, String> {
    let mut taken = super::unload_all::reserved_folders();
    taken.reserve(leaders.len());
    let mut renamed = HashMap::new();
    for &i in leaders {
        let origin = &hosts[i].origin;
        let folder = origin.folder_name();
        if let Some(other) = dedupe_folder(&mut taken, &folder, origin.scheme().as_str()) {
            renamed.insert(i, other);
        }
    }
    renamed
}

/// What is opened so far.
#[derive(Debug, Default)]
struct Opened {
    /// Leaders before this position of `leaders` were tried (opened, or given to another
    /// process).
    next: usize,
    /// Leaders opened, by seed index (a flag a seed, not a hash entry: SPEC §11 keeps a
    /// finished site small).
    done: Vec<bool>,
    /// The rows of the scopes opened and not written yet, as the results name them (a
    /// written scope's row leaves: a crawl of thousands of sites keeps none of them).
    rows: HashMap<ScopeId, ScopeRow>,
    /// Scopes opened in this run and not retired yet.
    live: HashSet<ScopeId>,
    /// Scopes being written and released: they keep their place in the window until their
    /// retirement is saved (a scope opened in their place must not be crawled before: a kill
    /// then would leave a scope whose results are written but whose state is not retired).
    retiring: HashSet<ScopeId>,
    /// Settled scopes whose results could not be written: kept in memory, out of the window,
    /// for the end of the run to write (or say why it cannot).
    unwritten: HashSet<ScopeId>,
    /// Scopes written and released in this run.
    written: usize,
    /// Scopes being opened now: no longer counted as not tried (`next` passed them) nor yet
    /// as pending work (their home page is not queued yet). Counted as waiting, so that the
    /// routine, which asks the finishers on another thread than the one opening scopes,
    /// never sees a moment with no work left while a scope is being opened.
    opening: usize,
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
        let network = TargetScopes::from_plans(&origins, &plans, filter.host_rule());
        for (spec, plan) in hosts.iter().zip(&plans) {
            if !plan.key_domains.is_empty() {
                eprintln!(
                    "{}: key domains {}",
                    spec.origin,
                    plan.key_domains.join(", ")
                );
            }
        }
        let leaders: Vec<usize> = (0..hosts.len())
            .filter(|&i| plans[i].scope_of == i)
            .collect();
        // Only what opening a scope needs is kept of the plan: a crawl of thousands of sites
        // keeps no plan per seed (SPEC §11).
        let mut members: HashMap<usize, Vec<(usize, String)>> = HashMap::new();
        for (j, plan) in plans.into_iter().enumerate() {
            if plan.scope_of != j {
                members
                    .entry(plan.scope_of)
                    .or_default()
                    .push((j, plan.shares_because));
            }
        }
        let leader_of = leaders
            .iter()
            .map(|&i| (hosts[i].origin.clone(), i))
            .collect();
        let renamed = renamed_folders(hosts, &leaders);
        Seeds {
            hosts: hosts.to_vec(),
            limits,
            leaders,
            members,
            leader_of,
            renamed,
            network,
            state: Mutex::new(Opened {
                done: vec![false; hosts.len()],
                ..Opened::default()
            }),
        }
    }

    /// Which hosts each scope takes in, for the network of sites.
    pub(crate) fn target_scopes(&self) -> &TargetScopes {
        &self.network
    }

    /// The first seed of every scope, in hosts.txt order.
    pub(crate) fn scope_origins(&self) -> Vec<Origin> {
        self.leaders
            .iter()
            .map(|&i| self.hosts[i].origin.clone())
            .collect()
    }

    /// Every origin of hosts.txt.
    pub(crate) fn origins(&self) -> impl Iterator<Item = Origin> + '_ {
        self.hosts.iter().map(|h| h.origin.clone())
    }

    /// How many scopes there are.
    pub(crate) fn scope_count(&self) -> usize {
        self.leaders.len()
    }

    /// Scopes not tried yet (of a crawl of one process: not opened yet).
    pub(crate) fn unopened(&self) -> usize {
        self.leaders.len() - self.state.lock().next.min(self.leaders.len())
    }

    /// How many scopes opened in this run hold a place in the window.
    pub(crate) fn live(&self) -> usize {
        let st = self.state.lock();
        st.live.len() + st.retiring.len()
    }

    /// The scopes opened in this run and not retired yet, with their rows.
    pub(crate) fn live_rows(&self) -> Vec<ScopeRow> {
        let st = self.state.lock();
        let mut rows: Vec<ScopeRow> = st
            .live
            .iter()
            .chain(&st.unwritten)
            .filter_map(|s| st.rows.get(s).cloned())
            .collect();
        rows.sort_by_key(|r| r.scope);
        rows
    }

    /// The ids of the scopes opened in this run and not retired yet.
    pub(crate) fn live_scopes(&self) -> Vec<ScopeId> {
        self.state.lock().live.iter().copied().collect()
    }

    /// Takes live scope `scope` out of the live set to retire it (its row returned); `None`
    /// if it is not live (retired already, or being retired).
    pub(crate) fn begin_retire(&self, scope: ScopeId) -> Option<ScopeRow> {
        let mut st = self.state.lock();
        if !st.live.remove(&scope) {
            return None;
        }
        st.retiring.insert(scope);
        st.rows.get(&scope).cloned()
    }

    /// A scope taken out by [`Self::begin_retire`] was written and released.
    pub(crate) fn retired(&self, scope: ScopeId) {
        let mut st = self.state.lock();
        st.retiring.remove(&scope);
        st.rows.remove(&scope);
        st.written += 1;
    }

    /// How many scopes are live, written and waiting.
    pub(crate) fn counts(&self) -> crate::crawl::live::ScopeCounts {
        let st = self.state.lock();
        crate::crawl::live::ScopeCounts {
            live: st.live.len() + st.retiring.len() + st.unwritten.len(),
            written: st.written,
            waiting: self.leaders.len() - st.next.min(self.leaders.len()) + st.opening,
        }
    }

    /// Scope `scope`, taken out by [`Self::begin_retire`], stays live after all.
    pub(crate) fn keep(&self, scope: ScopeId) {
        let mut st = self.state.lock();
        st.retiring.remove(&scope);
        st.live.insert(scope);
    }

    /// Scope `scope`, taken out by [`Self::begin_retire`], could not be written: it stays in
    /// memory for the end of the run, and its place in the window goes to the next scope.
    pub(crate) fn keep_unwritten(&self, scope: ScopeId) {
        let mut st = self.state.lock();
        st.retiring.remove(&scope);
        st.unwritten.insert(scope);
    }

    /// The names of the scopes [`Self::keep_unwritten`] kept, in scope order.
    pub(crate) fn unwritten_names(&self) -> Vec<String> {
        let st = self.state.lock();
        let mut rows: Vec<&ScopeRow> = st.unwritten.iter().filter_map(|s| st.rows.get(s)).collect();
        rows.sort_by_key(|r| r.scope);
        rows.iter().map(|r| r.name.clone()).collect()
    }

    /// Opens scopes in hosts.txt order until `n` more are live (or every scope was tried);
    /// returns them as (scope, name) for the progress line. Scopes an earlier run finished
    /// are passed over (their rows are kept), and so are scopes the data manager does not give
    /// this process.
    pub(crate) fn open_next(
        &self,
        n: usize,
        c: &Crawl<'_>,
    ) -> Result<Vec<(ScopeId, String)>, OpenScopeError> {
        let mut opened = Vec::new();
        while opened.len() < n {
            let i = {
                let mut st = self.state.lock();
                let Some(&i) = self.leaders.get(st.next) else {
                    break;
                };
                st.next += 1;
                st.opening += 1;
                i
            };
            let result = self.open(i, c);
            self.state.lock().opening -= 1;
            if let Some((scope, ScopeOpen::Created | ScopeOpen::Resumed)) = result? {
                opened.push((scope, self.hosts[i].origin.to_string()));
            }
        }
        Ok(opened)
    }

    /// Opens the scopes of `origins` (seed origins a shared store handed out); returns them as
    /// (scope, name) for the progress line.
    pub(crate) fn open_more(
        &self,
        origins: &[Origin],
        c: &Crawl<'_>,
    ) -> Result<Vec<(ScopeId, String)>, OpenScopeError> {
        let mut opened = Vec::new();
        // Counted as opening from before their claims (a claim takes them out of the
        // scopes outstanding elsewhere) until their home pages are queued.
        self.state.lock().opening += origins.len();
        let mut left = origins.len();
        let mut result = Ok(());
        for origin in origins {
            left -= 1;
            let Some(&i) = self.leader_of.get(origin) else {
                self.state.lock().opening -= 1;
                continue;
            };
            let one = self.open(i, c);
            self.state.lock().opening -= 1;
            match one {
                Ok(Some((scope, _))) => opened.push((scope, origin.to_string())),
                Ok(None) => {}
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.state.lock().opening -= left;
        result.map(|()| opened)
    }

    /// Where the scope whose first seed is `origin` comes in hosts.txt (for sorting rows).
    pub(crate) fn position(&self, origin: &Origin) -> Option<usize> {
        self.leader_of.get(origin).copied()
    }

    /// Opens the scope of seed `i` (the first of its scope) if the data manager gives it to
    /// this process, with the seeds that share it and the sites a continued crawl had found.
    fn open(
        &self,
        i: usize,
        c: &Crawl<'_>,
    ) -> Result<Option<(ScopeId, ScopeOpen)>, OpenScopeError> {
        if self.state.lock().done[i] {
            return Ok(None);
        }
        let spec = &self.hosts[i];
        let limits = ScopeLimits {
            max_level: spec.max_level,
            // hosts.txt's pages= for this line, in place of MaxPagesPerSite.
            max_pages: spec.rules.max_pages.unwrap_or(self.limits.max_pages),
            max_urls: self.limits.max_urls,
            traps: crate::crawl::data::TrapRules {
                levels: self.limits.trap_levels,
                pattern_urls: self.limits.trap_pattern_urls,
            },
            obey_nofollow: !self.limits.follow_nofollow,
        };
        if let Some(most) = c.coordinator.scopes_per_process()
            && self.live() >= most
        {
            return Ok(None);
        }
        let Some(claim) = c.coordinator.claim(&spec.origin)? else {
            return Ok(None);
        };
        let (scope, how) = c.dm.open_scope(claim, SiteId::NONE, limits)?;
        self.state.lock().done[i] = true;
        if how == ScopeOpen::Finished {
            // Written by an earlier run: its row is kept, nothing is crawled.
            return Ok(Some((scope, how)));
        }
        c.filter.scope_opened(i, scope);
        let seed = c.sites.add(spec.clone(), scope);
        c.dm.bind_site(scope, &seed.origin, seed.id);
        c.dispatcher.add_site(&seed);
        for (j, because) in self.members.get(&i).into_iter().flatten() {
            let j = *j;
            let member = c.sites.add(self.hosts[j].clone(), scope);
            c.dm.add_seed(scope, member.origin.clone(), member.id)?;
            c.dispatcher.add_site(&member);
            eprintln!(
                "{} shares the scope of {}: {}",
                member.origin, seed.origin, because
            );
        }
        self.restore_sites(scope, &seed, c);
        let mut row = ScopeRow::new(scope, Some(seed.id), &seed.origin);
        row.order = i;
        row.page_cap = spec.rules.max_pages;
        if let Some(folder) = self.renamed.get(&i) {
            row.folder.clone_from(folder);
        }
        let mut st = self.state.lock();
        st.rows.insert(scope, row);
        st.live.insert(scope);
        Ok(Some((scope, how)))
    }

    /// A continued crawl's hosts found by a multi-host filter become sites again, and the
    /// origins its home pages moved to aliases again.
    fn restore_sites(&self, scope: ScopeId, seed: &Arc<SiteEntry>, c: &Crawl<'_>) {
        for (origin, bound) in c.dm.scope_sites(scope) {
            if bound.is_some() {
                continue;
            }
            let entry = rebind_host(c.filter, c.sites, seed, origin.clone());
            c.dm.bind_site(scope, &origin, entry.id);
            c.dispatcher.add_site(&entry);
        }
        for origin in c.dm.home_origins(scope) {
            let _ = c.sites.add_alias(seed.id, origin);
        }
        for (origin, rules) in c.dm.learned_rules(scope) {
            if let Some(id) = c.sites.site_of_origin(&origin) {
                c.sites.get(id).learning.restore(rules);
            }
        }
        for (origin, jar) in c.dm.saved_cookies(scope) {
            if let Some(id) = c.sites.site_of_origin(&origin)
                && let Err(e) = c.sites.get(id).cookies.restore(&jar)
            {
                // A jar that cannot be read back costs a new session, not the crawl.
                eprintln!("{origin}: {e}; its cookies start empty");
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(url: &str) -> SiteSpec {
        let url = url::Url::parse(url).expect("a test URL");
        SiteSpec {
            origin: Origin::of(&url).expect("an origin"),
            max_downloads: 1,
            max_level: 3,
            crawl_delay: std::time::Duration::ZERO,
            rules: Default::default(),
        }
    }

    #[test]
    fn a_folder_name_taken_by_an_earlier_leader_gets_the_scheme_appended() {
        let hosts = [
            "http://x.test",
            "https://y.test",
            "https://x.test",
            "http://y.test:8080",
            "https://y.test:8080",
        ]
        .map(spec);
        let renamed = renamed_folders(&hosts, &[0, 1, 2, 3, 4]);
        let mut got: Vec<(usize, &str)> = renamed.iter().map(|(i, f)| (*i, f.as_str())).collect();
        got.sort();
        assert_eq!(got, [(2, "x.test_https"), (4, "y.test_8080_https")]);
        // Only leaders take folders: a seed that shares another's scope has none.
        let renamed = renamed_folders(&hosts, &[1, 2]);
        assert!(renamed.is_empty(), "{renamed:?}");
        // `network/` is the network of sites' folder, not a site's.
        let hosts = ["http://network", "https://network.test"].map(spec);
        let renamed = renamed_folders(&hosts, &[0, 1]);
        assert_eq!(renamed.get(&0).map(String::as_str), Some("network_http"));
        assert_eq!(renamed.len(), 1);
    }
}

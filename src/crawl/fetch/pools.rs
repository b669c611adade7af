//! Connection pools, one per site, with a budget on idle sockets across all of them.
//!
//! Why not one pool for the crawl: ureq's pool rescans its whole idle list for every host on
//! each request and each return (O(hosts × idle connections)), so with one shared pool a crawl
//! of 200 sites spent most of its CPU there and ran at a third of its one-site speed. A site is
//! our unit of politeness anyway: its pool needs as many idle connections as it may have
//! downloads at once, and no more.
//!
//! Why a budget: each pool keeps its idle keep-alive sockets until it is touched again, so a
//! crawl of thousands of sites would otherwise run out of file descriptors. The least recently
//! used pools are dropped (closing their idle sockets) once the idle connections they may hold
//! pass the budget ([`idle_connection_budget`](crate::base::fd_limits::idle_connection_budget)). The budget must still hold every site a
//! round-robin crawl visits: with 200 sites and a budget of 512 the pools were dropped before
//! their next turn, and nearly every request (11,000 of 10,400 pages) opened a connection.

use std::collections::HashMap;

use std::sync::Arc;

use parking_lot::Mutex;
use ureq::Agent;

use super::pacer::Pacer;
use crate::base::ids::SiteId;

/// Makes a site's agent: `(idle connections allowed, the site's pacer)`.
type MakeAgent = Box<dyn Fn(usize, &Arc<Pacer>) -> Agent + Send + Sync>;

/// The per-site agents.
pub(super) struct AgentPools {
    make: MakeAgent,
    budget: usize,
    inner: Mutex<Lru>,
}

#[derive(Default)]
struct Lru {
    slots: HashMap<SiteId, PoolEntry>,
    clock: u64,
    held: usize,
}

struct PoolEntry {
    agent: Agent,
    last_use: u64,
    idle: usize,
}

impl AgentPools {
    /// Pools made by `make(idle connections allowed)`, within `budget` idle connections.
    pub(super) fn new(
        budget: usize,
        make: impl Fn(usize, &Arc<Pacer>) -> Agent + Send + Sync + 'static,
    ) -> Self {
        AgentPools {
            make: Box::new(make),
            budget,
            inner: Mutex::new(Lru::default()),
        }
    }

    /// The agent for `site`, which may have `connections` downloads at once and whose writes
    /// are reported to `pacer`.
    pub(super) fn agent(&self, site: SiteId, connections: u32, pacer: &Arc<Pacer>) -> Agent {
        let idle = connections.max(1) as usize;
        let mut evicted = Vec::new();
        let agent = {
            let mut lru = self.inner.lock();
            lru.clock += 1;
            let now = lru.clock;
            if let Some(slot) = lru.slots.get_mut(&site) {
                slot.last_use = now;
                return slot.agent.clone();
            }
            while lru.held + idle > self.budget {
                let Some(oldest) = lru
                    .slots
                    .iter()
                    .min_by_key(|(_, s)| s.last_use)
                    .map(|(id, _)| *id)
                else {
                    break;
                };
                if let Some(slot) = lru.slots.remove(&oldest) {
                    lru.held -= slot.idle;
                    evicted.push(slot.agent);
                }
            }
            let agent = (self.make)(idle, pacer);
            lru.held += idle;
            lru.slots.insert(
                site,
                PoolEntry {
                    agent: agent.clone(),
                    last_use: now,
                    idle,
                },
            );
            agent
        };
        // Closing sockets outside the lock.
        drop(evicted);
        agent
    }

    /// Drops the pools of `sites` (closing their idle sockets): they are through, and a crawl
    /// of thousands of sites should not evict pools that are still used to make room.
    pub(super) fn forget(&self, sites: &[SiteId]) {
        let gone: Vec<Agent> = {
            let mut lru = self.inner.lock();
            let mut gone = Vec::new();
            for site in sites {
                if let Some(slot) = lru.slots.remove(site) {
                    lru.held -= slot.idle;
                    gone.push(slot.agent);
                }
            }
            gone
        };
        drop(gone);
    }

    /// How many pools are alive (for tests).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.inner.lock().slots.len()
    }
}

impl std::fmt::Debug for AgentPools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let lru = self.inner.lock();
        f.debug_struct("AgentPools")
            .field("pools", &lru.slots.len())
            .field("idle_connections_allowed", &lru.held)
            .field("budget", &self.budget)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pools(budget: usize) -> AgentPools {
        AgentPools::new(budget, |_, _| Agent::new_with_defaults())
    }

    #[test]
    fn one_agent_per_site_reused() {
        let p = pools(10);
        p.agent(SiteId(1), 2, &Arc::default());
        p.agent(SiteId(2), 2, &Arc::default());
        p.agent(SiteId(1), 2, &Arc::default());
        assert_eq!(p.len(), 2);
        assert_eq!(p.inner.lock().held, 4);
    }

    #[test]
    fn least_recently_used_pools_go_first_when_over_budget() {
        let p = pools(4);
        p.agent(SiteId(1), 2, &Arc::default());
        p.agent(SiteId(2), 2, &Arc::default());
        p.agent(SiteId(1), 2, &Arc::default()); // 1 is now the most recent
        p.agent(SiteId(3), 2, &Arc::default()); // over budget: 2 goes
        let lru = p.inner.lock();
        let mut ids: Vec<u32> = lru.slots.keys().map(|s| s.0).collect();
        ids.sort_unstable();
        assert_eq!(ids, vec![1, 3]);
        assert_eq!(lru.held, 4);
    }

    #[test]
    fn the_budget_holds_hundreds_of_sites() {
        let budget = crate::base::fd_limits::idle_connection_budget();
        assert!((64..=4096).contains(&budget), "{budget}");
        // Raising the soft limit is what lets a 200-site crawl keep a connection per site.
        if let Ok((soft, hard)) = rlimit::Resource::NOFILE.get()
            && hard >= 2048
        {
            assert!(soft >= 2048, "soft limit {soft} not raised (hard {hard})");
            assert!(budget >= 1024, "{budget}");
        }
    }

    #[test]
    fn a_site_larger_than_the_budget_still_gets_a_pool() {
        let p = pools(4);
        p.agent(SiteId(1), 2, &Arc::default());
        p.agent(SiteId(2), 10, &Arc::default());
        assert_eq!(p.len(), 1);
        p.agent(SiteId(3), 1, &Arc::default());
        assert_eq!(p.len(), 1, "the big one is evicted for the next site");
    }
}

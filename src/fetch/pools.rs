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
//! pass [`IDLE_CONNECTION_BUDGET`].

use std::collections::HashMap;

use parking_lot::Mutex;
use ureq::Agent;

use crate::data::SiteId;

/// Idle keep-alive connections all pools together may hold: well under the usual soft limit
/// of 1024 open files, leaving room for in-flight connections and the state files.
pub(super) const IDLE_CONNECTION_BUDGET: usize = 512;

/// The per-site agents.
pub(super) struct AgentPools {
    make: Box<dyn Fn(usize) -> Agent + Send + Sync>,
    budget: usize,
    inner: Mutex<Lru>,
}

#[derive(Default)]
struct Lru {
    slots: HashMap<SiteId, Slot>,
    clock: u64,
    held: usize,
}

struct Slot {
    agent: Agent,
    last_use: u64,
    idle: usize,
}

impl AgentPools {
    /// Pools made by `make(idle connections allowed)`, within `budget` idle connections.
    pub(super) fn new(
        budget: usize,
        make: impl Fn(usize) -> Agent + Send + Sync + 'static,
    ) -> Self {
        AgentPools {
            make: Box::new(make),
            budget,
            inner: Mutex::new(Lru::default()),
        }
    }

    /// The agent for `site`, which may have `connections` downloads at once.
    pub(super) fn agent(&self, site: SiteId, connections: u32) -> Agent {
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
            let agent = (self.make)(idle);
            lru.held += idle;
            lru.slots.insert(
                site,
                Slot {
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
        AgentPools::new(budget, |_| Agent::new_with_defaults())
    }

    #[test]
    fn one_agent_per_site_reused() {
        let p = pools(10);
        p.agent(SiteId(1), 2);
        p.agent(SiteId(2), 2);
        p.agent(SiteId(1), 2);
        assert_eq!(p.len(), 2);
        assert_eq!(p.inner.lock().held, 4);
    }

    #[test]
    fn least_recently_used_pools_go_first_when_over_budget() {
        let p = pools(4);
        p.agent(SiteId(1), 2);
        p.agent(SiteId(2), 2);
        p.agent(SiteId(1), 2); // 1 is now the most recent
        p.agent(SiteId(3), 2); // over budget: 2 goes
        let lru = p.inner.lock();
        let mut ids: Vec<u32> = lru.slots.keys().map(|s| s.0).collect();
        ids.sort_unstable();
        assert_eq!(ids, vec![1, 3]);
        assert_eq!(lru.held, 4);
    }

    #[test]
    fn a_site_larger_than_the_budget_still_gets_a_pool() {
        let p = pools(4);
        p.agent(SiteId(1), 2);
        p.agent(SiteId(2), 10);
        assert_eq!(p.len(), 1);
        p.agent(SiteId(3), 1);
        assert_eq!(p.len(), 1, "the big one is evicted for the next site");
    }
}

//! Claiming a scope's URLs for fetching: the next URL of a site's frontier (breadth-first,
//! within the page limit), a redirect hop's target for the chain that reached it, a URL
//! given back (a stop, a retry) or retried.

use std::time::Instant;

use super::{ScopeGraph, UrlState};
use crate::base::ids::SiteId;

impl ScopeGraph {
    /// Whether the scope holds `MaxUrlsPerSite` internal URLs: links to new ones are left out.
    pub(crate) fn url_limit_reached(&self) -> bool {
        self.url_limit > 0 && self.shapes.internal_urls() >= self.url_limit
    }

    /// `MaxUrlsPerSite` when the scope reached it (links to further URLs were left out).
    pub(crate) fn url_limit_hit(&self) -> Option<u32> {
        self.url_limit_reached().then_some(self.url_limit)
    }

    /// Takes the lowest-level queued URL of `site`; it becomes in flight.
    pub(crate) fn claim(&mut self, site: SiteId) -> Option<(u32, u32)> {
        let l = self.local(site)?;
        if self.limit_would_be_passed() {
            return None;
        }
        let now = Instant::now();
        self.active.get_or_insert((now, now));
        while let Some((_, id)) = self.frontiers[l].pop() {
            let rec = &mut self.recs[id as usize];
            if rec.state == UrlState::Queued {
                rec.state = UrlState::InFlight;
                self.queued[l] -= 1;
                self.in_flight += 1;
                return Some((id, rec.level));
            }
        }
        None
    }

    /// Whether `MaxPagesPerSite` pages were recorded.
    pub(super) fn limit_reached(&self) -> bool {
        self.page_limit > 0 && self.page_count() >= self.page_limit as usize
    }

    /// Whether claiming another URL could exceed `MaxPagesPerSite`: URLs in flight may all
    /// turn out to be pages.
    pub(super) fn limit_would_be_passed(&self) -> bool {
        self.page_limit > 0 && self.page_count() + self.in_flight >= self.page_limit as usize
    }

    /// Counts one more retry of a claimed URL, which stays in flight (the caller hands it out
    /// again when its wait is over), unless it was retried `max` times. While a URL is open
    /// its record's `data` counts its retries.
    pub(crate) fn retry(&mut self, id: u32, max: u32) -> Option<u32> {
        let rec = self.recs[id as usize];
        if rec.state != UrlState::InFlight || rec.data >= max {
            return None;
        }
        self.recs[id as usize].data += 1;
        Some(rec.data + 1)
    }

    /// Whether task `task`'s redirect chain may fetch `url` (see `DataManager::claim_hop`).
    pub(crate) fn claim_hop(&mut self, task: u32, url: &str) -> crate::crawl::message::HopClaim {
        use crate::crawl::message::HopClaim;
        let Some(id) = self.urls.lookup(url) else {
            return match self.new_hop_claims.get(url) {
                Some(&t) if t != task => HopClaim::Taken,
                _ => {
                    self.new_hop_claims.insert(url.to_owned(), task);
                    HopClaim::Fetch
                }
            };
        };
        let rec = self.recs[id as usize];
        match rec.state {
            // Known but not queued (deeper than maxCrawlLevel so far): queued later, it goes
            // to this chain (`levels::queue`).
            UrlState::Seen => match self.hop_claims.get(&id) {
                Some(&t) if t != task => HopClaim::Taken,
                _ => {
                    self.hop_claims.insert(id, task);
                    HopClaim::Fetch
                }
            },
            UrlState::Queued => {
                self.recs[id as usize].state = UrlState::InFlight;
                self.queued[usize::from(rec.site)] -= 1;
                self.in_flight += 1;
                self.hop_claims.insert(id, task);
                HopClaim::Fetch
            }
            UrlState::InFlight if id == task || self.hop_claims.get(&id) == Some(&task) => {
                HopClaim::Fetch
            }
            _ => HopClaim::Taken,
        }
    }

    /// Hop targets task `task`'s chain took before any link named them are free again.
    pub(super) fn forget_new_hops(&mut self, task: u32) {
        if !self.new_hop_claims.is_empty() {
            self.new_hop_claims.retain(|_, t| *t != task);
        }
    }

    /// Gives back the hop targets task `task`'s chain claimed and did not decide.
    pub(super) fn release_hops(&mut self, task: u32) {
        self.forget_new_hops(task);
        if self.hop_claims.is_empty() {
            return;
        }
        let mine: Vec<u32> = self
            .hop_claims
            .iter()
            .filter(|&(_, &t)| t == task)
            .map(|(&h, _)| h)
            .collect();
        for h in mine {
            self.hop_claims.remove(&h);
            self.release(h);
        }
    }

    /// Gives a claimed URL back (a stop came before its outcome), with the hop targets its
    /// chain claimed.
    pub(crate) fn release_task(&mut self, id: u32) {
        self.release(id);
        self.release_hops(id);
    }

    /// Gives a claimed URL back.
    pub(crate) fn release(&mut self, id: u32) {
        let rec = &mut self.recs[id as usize];
        if rec.state == UrlState::InFlight {
            rec.state = UrlState::Queued;
            self.in_flight -= 1;
            let site = usize::from(rec.site);
            self.queued[site] += 1;
            self.frontiers[site].push(rec.level, id);
        }
    }
}

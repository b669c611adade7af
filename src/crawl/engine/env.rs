//! What the engine hands each component of what it shares ([`Context`]): a downloader gets a
//! [`FetchEnv`], a parser a [`ParseEnv`] — each sees what it uses, and neither knows the data
//! manager or the dispatcher by name.

use std::sync::atomic::Ordering;
use std::time::Instant;

use super::Context;
use crate::base::ids::{ScopeId, SiteId};
use crate::base::stop::Stop;
use crate::crawl::data::Progress;
use crate::crawl::fetch::{FetchEnv, HopClaims};
use crate::crawl::finish::Tick;
use crate::crawl::live::{CrawlView, NetworkTotals, ScopeCounts};
use crate::crawl::message::{FetchTask, HopClaim};
use crate::crawl::parse::ParseEnv;
use crate::crawl::settings::Settings;
use crate::model::site::Origin;
use crate::model::url_norm::NormUrl;

impl HopClaims for Context {
    fn claim_hop(&self, task: &FetchTask, url: &NormUrl) -> HopClaim {
        self.dm.claim_hop(task, url)
    }
}

impl Context {
    /// What a downloader sees.
    pub(crate) fn fetch_env(&self) -> FetchEnv<'_> {
        FetchEnv {
            options: &self.fetch_options,
            sites: &self.sites,
            filter: &*self.filter,
            robots: self.robots,
            stop: &self.stop,
            bodies: &self.bodies,
            pacing: &*self.dispatcher,
            hops: self,
            archive: self.archive.as_deref(),
            recrawl: self.recrawl.as_deref(),
        }
    }

    /// What a parser sees.
    pub(crate) fn parse_env(&self) -> ParseEnv<'_> {
        ParseEnv {
            options: &self.parse_options,
            sites: &self.sites,
            filter: &*self.filter,
        }
    }
}

impl CrawlView for Context {
    fn settings(&self) -> &Settings {
        &self.settings
    }

    fn started(&self) -> Instant {
        self.started
    }

    fn stop(&self) -> &Stop {
        &self.stop
    }

    fn tick(&self) -> Tick {
        let pending = self.pending();
        Tick {
            now: Instant::now(),
            pending,
            // A look at every site's gate, under the dispatcher's lock: at each tick of a crawl
            // of a million sites that was 7 % of its CPU at 300,000 sites. It only matters
            // once nothing is pending (`WorkIsDoneAF`).
            robots_pending: if pending == 0 {
                self.dispatcher.robots_pending()
            } else {
                0
            },
            budget: self.dispatcher.budget(),
        }
    }

    fn origin(&self, site: SiteId) -> Origin {
        self.sites.get(site).origin.clone()
    }

    fn queued(&self) -> usize {
        self.dm.pending()
    }

    fn scope_count(&self) -> usize {
        self.dm.scope_count()
    }

    fn scope_progress(&self, scope: ScopeId) -> Progress {
        self.dm.progress(scope)
    }

    fn is_retired(&self, scope: ScopeId) -> bool {
        self.dm.is_retired(scope)
    }

    fn retired_pages(&self, scope: ScopeId) -> Option<u64> {
        self.dm.retired_row(scope).map(|row| row.pages as u64)
    }

    fn scope_counts(&self) -> Option<ScopeCounts> {
        self.feeder.as_ref().map(|f| f.counts())
    }

    fn downloaders(&self) -> usize {
        self.dispatcher.downloaders()
    }

    fn waiting(&self) -> (usize, usize) {
        self.dispatcher.waiting()
    }

    fn network(&self) -> Option<NetworkTotals> {
        self.network.as_ref().map(|n| {
            let t = n.totals();
            NetworkTotals {
                targets: t.targets,
                counted: t.counted,
                accompanying: t.accompanying,
                arcs: t.arcs,
            }
        })
    }

    fn problems(&self) -> u64 {
        self.problems.load(Ordering::Relaxed)
    }
}

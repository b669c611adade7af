//! What the engine hands each component of what it shares ([`Context`]): a downloader gets a
//! [`FetchEnv`], a parser a [`ParseEnv`] — each sees what it uses, and neither knows the data
//! manager or the dispatcher by name.

use crate::context::Context;
use crate::fetch::{FetchEnv, HopClaims};
use crate::message::{FetchTask, HopClaim};
use crate::parse::ParseEnv;
use crate::url_norm::NormUrl;

impl HopClaims for Context {
    fn claim_hop(&self, task: &FetchTask, url: &NormUrl) -> HopClaim {
        self.dm.claim_hop(task, url)
    }
}

impl Context {
    /// What a downloader sees.
    pub fn fetch_env(&self) -> FetchEnv<'_> {
        FetchEnv {
            settings: &self.settings,
            sites: &self.sites,
            filter: &*self.filter,
            robots: self.robots,
            stop: &self.stop,
            bodies: &self.bodies,
            pacing: &*self.dispatcher,
            hops: self,
        }
    }

    /// What a parser sees.
    pub fn parse_env(&self) -> ParseEnv<'_> {
        ParseEnv {
            settings: &self.settings,
            sites: &self.sites,
            filter: &*self.filter,
        }
    }
}

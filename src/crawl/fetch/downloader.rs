//! The `DownloadingThread` component's contract: the [`Downloader`] trait and what it answers
//! ([`PageResult`], [`RobotsAnswer`]).

use std::fmt::Debug;
use std::sync::Arc;

use super::env::FetchEnv;
use super::retry::Transient;

use crate::crawl::message::{Downloaded, FetchTask, Log, Outcome};
use crate::model::robots::RobotsRules;

/// What fetching a page task gave.
#[derive(Debug)]
pub enum PageResult {
    /// An HTML page for the parsers.
    Page(Downloaded),
    /// A final outcome without a page.
    Done(Outcome),
    /// A failure that may pass: retry later, or record `outcome` when retries are used up.
    Retry {
        /// What to record if it is not retried.
        outcome: Outcome,
        /// Why it may pass.
        transient: Transient,
    },
    /// The crawl is stopping: the URL goes back to the frontier.
    Abandoned,
}

/// What fetching a site's robots.txt gave (RFC 9309 §2.3).
#[derive(Debug)]
pub enum RobotsAnswer {
    /// The rules to obey: parsed from a 2xx body, or "allow all" after a 4xx.
    Rules(Arc<dyn RobotsRules>),
    /// Unavailable for now: everything is disallowed unless a retry succeeds.
    Unavailable {
        /// Why (`status 503`, `timeout`, …).
        why: String,
        /// Set when trying again may help.
        transient: Option<Transient>,
    },
    /// The crawl is stopping.
    Abandoned,
}

/// The `DownloadingThread` component: fetches one task at a time. Called concurrently from
/// `DownloadingThreadsCount` threads, each with a task leased from the dispatcher: the
/// engine has already taken the site's request slot, and gives everything back afterwards.
/// An implementation must call [`Pacing::pace`](super::Pacing::pace) (`env.pacing`) right before sending each
/// request of the task (its first, each redirect hop) so the site's delay holds between
/// requests as they leave, check every URL against robots.txt, log each request on `log`,
/// and return within `RequestTimeoutSeconds` per request once `env.stop` is requested.
pub trait Downloader: Send + Sync + Debug {
    /// Fetches the site's robots.txt (a task of kind `Robots`).
    fn fetch_robots(&self, env: &FetchEnv<'_>, task: &FetchTask, log: &Log) -> RobotsAnswer;
    /// Fetches a page task, following its redirects.
    fn fetch_page(&self, env: &FetchEnv<'_>, task: &FetchTask, log: &Log) -> PageResult;
    /// Reads the site's sitemaps (a task of kind `Sitemaps`; its robots.txt is known);
    /// `None` when the crawl stopped meanwhile.
    fn fetch_sitemaps(
        &self,
        env: &FetchEnv<'_>,
        task: &FetchTask,
        log: &Log,
    ) -> Option<crate::model::sitemap::Sitemap>;
    /// The crawl stopped a while ago: requests still under way should end now, their tasks
    /// abandoned (the engine calls this a second after the stop, so that a stop acts within
    /// a second). The default does nothing: requests end within their timeout.
    fn abandon_requests(&self) {}

    /// These sites are through in this run (their scope was written and released): what is
    /// kept for them (idle connections) can go. The default keeps nothing.
    fn sites_done(&self, _sites: &[crate::base::ids::SiteId]) {}
}

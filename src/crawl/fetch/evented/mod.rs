//! `DT1`: the event-driven downloader. One engine thread drives many requests at once over
//! non-blocking keep-alive connections ([`Connections`]), through the same walks as `DT0`
//! (so statuses, redirects, meta refreshes, robots.txt and retries are decided by the same
//! code), instead of one blocking thread per request: on the Rust documentation a thread per
//! request spent about a sixth of the crawl's CPU in the kernel's thread switches (issue 19).
//!
//! https too: rustls over the non-blocking socket (`wire`). What one thread cannot do without
//! blocking goes to a few blocking downloaders (`DT0`'s code, this component's [`Downloader`]
//! methods): a host name not resolved yet (its lookup fills the cache the loop reads; the
//! site's next requests come back here), and the robots.txt of a site's alias met along a
//! redirect.

mod conn;
mod decode;
mod events;
mod exchange;
mod wire;

pub use conn::Connections;
pub use events::{Carried, ConnRef, ConnSettings, Event, NotSent, ReqId};

use parking_lot::Mutex;

use super::{CaFileError, Downloader, FetchEnv, HttpClient, PageResult, RobotsAnswer};
use crate::base::fd_limits::idle_connection_budget;
use crate::base::ids::SiteId;
use crate::crawl::message::{FetchTask, Log};
use crate::crawl::settings::Settings;

/// The event-driven downloader.
#[derive(Debug)]
pub struct EventedDownloader {
    /// The blocking client, for what the loop passes on.
    client: HttpClient,
    settings: ConnSettings,
    /// Sites through since the loop last looked ([`Downloader::sites_done`] is called from
    /// another thread).
    done: Mutex<Vec<SiteId>>,
}

impl EventedDownloader {
    /// A downloader with the timeouts, user agent, `Resolve` entries and `CaFile` of
    /// `settings`.
    pub fn new(settings: &Settings) -> Result<Self, CaFileError> {
        Ok(EventedDownloader {
            client: HttpClient::new(settings)?,
            settings: ConnSettings {
                user_agent: settings.http.user_agent.clone(),
                request_timeout: settings.http.request_timeout,
                connect_timeout: settings.http.connect_timeout,
                idle_budget: idle_connection_budget(),
                tls: wire::client_config(&super::roots::root_certs(
                    settings.http.ca_file.as_deref(),
                    settings.location("CaFile"),
                )?),
                archive: settings.results.archive,
            },
            done: Mutex::new(Vec::new()),
        })
    }

    /// The connections of a loop, sharing this downloader's name lookups.
    pub fn connections(&self) -> std::io::Result<Connections> {
        Connections::new(self.client.resolver(), self.settings.clone())
    }

    /// The sites through since the last call.
    pub fn take_done_sites(&self) -> Vec<SiteId> {
        std::mem::take(&mut *self.done.lock())
    }
}

impl Downloader for EventedDownloader {
    fn fetch_robots(&self, env: &FetchEnv<'_>, task: &FetchTask, log: &Log) -> RobotsAnswer {
        super::robots_txt::fetch_robots(env, &self.client, task.site, &task.url, log)
    }

    fn fetch_page(&self, env: &FetchEnv<'_>, task: &FetchTask, log: &Log) -> PageResult {
        super::http_downloader::fetch_page(env, &self.client, task, log)
    }

    fn fetch_sitemaps(
        &self,
        env: &FetchEnv<'_>,
        task: &FetchTask,
        log: &Log,
    ) -> Option<crate::model::sitemap::Sitemap> {
        crate::crawl::fetch::read_sitemaps(env, &self.client, task.site, log)
    }

    fn abandon_requests(&self) {
        self.client.abandon_requests();
    }

    fn sites_done(&self, sites: &[SiteId]) {
        self.client.sites_done(sites);
        self.done.lock().extend_from_slice(sites);
    }
}

//! `DT0`: the HTTP downloader — blocking HTTP/1.1 over one shared client (ureq, a connection
//! pool per site), redirects followed by us so that each hop is checked and polite.

use super::page::fetch_page;
use super::robots_txt::fetch_robots;
use super::{CaFileError, Downloader, FetchEnv, HttpClient, PageResult, RobotsAnswer};
use crate::message::{FetchTask, Log};
use crate::settings::Settings;

/// The HTTP downloader.
#[derive(Debug)]
pub struct HttpDownloader {
    client: HttpClient,
}

impl HttpDownloader {
    /// A downloader with the timeouts, user agent, `Resolve` entries and `CaFile` of
    /// `settings`.
    pub fn new(settings: &Settings) -> Result<Self, CaFileError> {
        Ok(HttpDownloader {
            client: HttpClient::new(settings)?,
        })
    }

    /// A downloader whose answers come from an archive (`rccrawler rebuild`): every walk
    /// decides as a crawl's does, on the answers the crawl got.
    pub fn replaying(
        settings: &Settings,
        replay: std::sync::Arc<crate::warc::replay::Replay>,
    ) -> Result<Self, CaFileError> {
        Ok(HttpDownloader {
            client: HttpClient::replaying(settings, replay)?,
        })
    }
}

impl Downloader for HttpDownloader {
    fn fetch_robots(&self, env: &FetchEnv<'_>, task: &FetchTask, log: &Log) -> RobotsAnswer {
        fetch_robots(env, &self.client, task.site, &task.url, log)
    }

    fn fetch_page(&self, env: &FetchEnv<'_>, task: &FetchTask, log: &Log) -> PageResult {
        fetch_page(env, &self.client, task, log)
    }

    fn fetch_sitemaps(
        &self,
        env: &FetchEnv<'_>,
        task: &FetchTask,
        log: &Log,
    ) -> Option<crate::sitemap::Sitemap> {
        crate::fetch::read_sitemaps(env, &self.client, task.site, log)
    }

    fn abandon_requests(&self) {
        self.client.abandon_requests();
    }

    fn sites_done(&self, sites: &[crate::ids::SiteId]) {
        self.client.sites_done(sites);
    }
}

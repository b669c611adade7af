//! `DT0`: the HTTP downloader — blocking HTTP/1.1 over one shared client (ureq, a connection
//! pool per site), redirects followed by us so that each hop is checked and polite.

use super::from_archive::FromArchive;
use super::page::{Check, HeadStep, Step, Walk};
use super::response::{Declared, Head};
use super::robots_txt::fetch_robots;
use super::{CaFileError, Downloader, FetchEnv, HttpClient, PageResult, RobotsAnswer};
use crate::crawl::message::{FetchTask, Log};
use crate::crawl::settings::Settings;

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
    pub fn from_archive(
        settings: &Settings,
        archived: std::sync::Arc<crate::formats::warc::archived::ArchivedWeb>,
    ) -> Result<Self, CaFileError> {
        Ok(HttpDownloader {
            client: HttpClient::over(settings, Box::new(FromArchive(archived)))?,
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
    ) -> Option<crate::model::sitemap::Sitemap> {
        crate::crawl::fetch::read_sitemaps(env, &self.client, task.site, log)
    }

    fn abandon_requests(&self) {
        self.client.abandon_requests();
    }

    fn sites_done(&self, sites: &[crate::base::ids::SiteId]) {
        self.client.sites_done(sites);
    }
}

/// Fetches a page task with the blocking client: the walk (`page::Walk`) decides, this sends
/// what it asks for — in the site's turn — and hands it the answers.
pub(super) fn fetch_page(
    env: &FetchEnv<'_>,
    client: &HttpClient,
    task: &FetchTask,
    log: &Log,
) -> PageResult {
    let mut walk = Walk::new(env, task, log);
    let mut url = task.url.clone();
    loop {
        match walk.before_request(&url) {
            Check::Go => {}
            Check::Stop(result) => return result,
            Check::NeedRobots(origin) => {
                if let Err(stop) = walk.alias_robots(client, &origin) {
                    return *stop;
                }
                continue;
            }
        }
        // Every request waits for the site's turn (its delay), right before it is sent.
        let validators = super::recrawl::validators(env.recrawl, &url);
        let Some((sent, started)) = client.get_in_turn(env, &walk.site, &url, validators) else {
            return PageResult::Abandoned;
        };
        let response = match sent {
            Ok(r) => r,
            Err(e) => return walk.transport_error(&url, e, started),
        };
        let step = match walk.head(&url, Head::of(&response), started) {
            HeadStep::Next(next) => Step::Next(next),
            HeadStep::Done(result) => Step::Done(result),
            HeadStep::Body => {
                let cap = walk.body_cap();
                let expected = response.declared_body_len().map_or(0, |n| n.min(cap));
                let permit = env.bodies.acquire(expected, || env.stop.is_requested());
                let declared = Declared::of(&response);
                let body = response.read_body(cap);
                walk.body(&url, declared, body, permit, started)
            }
        };
        match step {
            Step::Next(next) => url = next,
            Step::Done(result) => return result,
        }
    }
}

//! Component names → components (SPEC §1: "chooses each component by name, as the RCCrawler
//! paper does"). The paper's names (`TextFileAM`, `BMICDM`, `DT0`, `PT0`, `RT0`, …) are
//! configuration strings and live only in [`Registry::builtin`]; the rest of the code uses
//! Rust names.
//!
//! A [`Registry`] is a value, not a global: the binary uses the built-in one, and a program
//! (or a test) may [`register`](Registry::register_downloader) more implementations under new
//! names and run a crawl with them by naming them in settings.ini. Each component key has one
//! table of constructors; every name a settings.ini gives is looked up in it before anything
//! starts ([`Registry::resolve`]), and an unknown name is an error listing the valid ones.
//!
//! What a component implies is declared with it, not inferred from its name elsewhere: a data
//! manager names the settings it needs (`PgDM`: `DatabaseUrl`, `CrawlName`), a URL filter
//! whether its scopes span hosts and whether it has a topic stage, a scheduler whether it is a
//! budget rule (and how replay runs it); a page budget implies the budget finisher and, unless
//! settings.ini names a scheduler, the default budget rule.

mod build;
mod builtin;
mod register;

use std::fmt;
use std::sync::Arc;

use crossbeam_channel::Receiver;

use crate::crawl::app::{AppError, ApplicationManager, Components, RunReport, TextFileManager};
use crate::crawl::data::{self, DataLayer, SavedCrawl};
use crate::crawl::fetch::{Downloader, EventedDownloader, HttpDownloader};
use crate::crawl::finish::{Finisher, PageBudget, StopFile, Timeout, WorkIsDone};
use crate::crawl::parse::{HtmlParser, PageParser};
use crate::crawl::routine::{ConsoleRoutine, Routine};
use crate::crawl::schedule::{BanditScheduler, RoundRobin, Scheduler, Sequential, TimeQuantum};
use crate::crawl::settings::{Settings, SettingsError, Warning};
use crate::crawl::unload::{GephiSiteGraph, ResultCheck, Unloader};
use crate::model::bandit::{self, Params, Policy, PolicyCtor};
use crate::model::robots::{OnlyDisallowRules, Rfc9309Rules, RobotsParse};
use crate::model::site::SiteSpec;
use crate::model::url_filter::key_domain::KeyDomains;
use crate::model::url_filter::topic::Topic;
use crate::model::url_filter::{AllHosts, KeyDomainFilter, SeedSiteOnly, UrlFilter};

/// Builds an application manager.
pub type ManagerCtor = Arc<dyn Fn(&Settings) -> Box<dyn ApplicationManager> + Send + Sync>;
/// Opens a data manager with its coordinator (it may recover saved state, so it may fail).
pub type DataManagerCtor = Arc<dyn Fn(&Settings) -> Result<DataLayer, AppError> + Send + Sync>;
/// Builds the downloading threads' component (its configuration may name files, so it may
/// fail).
pub type DownloaderCtor =
    Arc<dyn Fn(&Settings) -> Result<Arc<dyn Downloader>, AppError> + Send + Sync>;
/// What a `DownloadingThread` name builds: a downloader of one request per thread (any
/// registered one), or the event-driven downloader, whose loop the engine runs itself.
enum DownloaderEntry {
    Blocking(DownloaderCtor),
    Evented,
}

/// Builds the parsing threads' component.
pub type ParserCtor = Arc<dyn Fn(&Settings) -> Arc<dyn PageParser> + Send + Sync>;
/// Builds the routine thread's component.
pub type RoutineCtor = Arc<dyn Fn(&Settings) -> Arc<dyn Routine> + Send + Sync>;
/// Builds the URL filter from the seeds of hosts.txt.
pub type UrlFilterCtor = Arc<dyn Fn(&Settings, &[SiteSpec]) -> Box<dyn UrlFilter> + Send + Sync>;
/// Builds a finisher.
pub type FinisherCtor = Arc<dyn Fn(&Settings) -> Box<dyn Finisher> + Send + Sync>;
/// Builds a result unloader, knowing what the other chosen components imply.
pub type UnloaderCtor = Arc<dyn Fn(&Settings, &Implied) -> Box<dyn Unloader> + Send + Sync>;
/// Builds the renderer (`Renderer`, used when `Render` is `auto` or `all`).
pub type RendererCtor =
    Arc<dyn Fn(&Settings) -> Arc<dyn crate::crawl::render::Renderer> + Send + Sync>;
/// Builds a scheduler for a crawl of so many sites.
pub type SchedulerCtor = Arc<dyn Fn(&Settings, usize) -> Box<dyn Scheduler> + Send + Sync>;

/// What the chosen components imply for the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Implied {
    /// The URL filter's scopes may span several hosts (SPEC §6).
    pub scopes_span_hosts: bool,
}

/// What a URL filter declares with its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UrlFilterTraits {
    /// Its scopes may span several hosts (SPEC §6).
    pub spans_hosts: bool,
    /// It has the topic stage (`TopicFilter`, SPEC §6).
    pub topic_stage: bool,
}

/// A data manager with the settings it needs set, and how `rccrawler export` reads what it
/// saved.
struct DataManagerEntry {
    ctor: DataManagerCtor,
    requires: &'static [&'static str],
    read_saved: SavedReader,
}

/// Reads a saved crawl's scopes named by seed (all when none is named), to write their results.
pub type SavedReader =
    Arc<dyn Fn(&Settings, &[String]) -> Result<SavedCrawl, AppError> + Send + Sync>;

/// A URL filter with what it declares.
struct UrlFilterEntry {
    ctor: UrlFilterCtor,
    traits: UrlFilterTraits,
}

/// A scheduler: how a live crawl makes it, and how a replay of recorded yields runs it
/// (`None`: replay cannot); a budget rule makes both from one policy.
struct SchedulerEntry {
    live: SchedulerCtor,
    replay: Option<PolicyCtor>,
    budget_rule: bool,
}

/// One component key's names and what they stand for, in registration order.
struct Table<T> {
    key: &'static str,
    entries: Vec<(String, T)>,
}

impl<T> Table<T> {
    fn new(key: &'static str) -> Self {
        Table {
            key,
            entries: Vec::new(),
        }
    }

    /// Adds (or replaces) `name`.
    fn add(&mut self, name: &str, value: T) {
        match self.entries.iter_mut().find(|(n, _)| n == name) {
            Some(entry) => entry.1 = value,
            None => self.entries.push((name.to_owned(), value)),
        }
    }

    /// The component `name` of this key, as `settings` names it (an error says where).
    fn get(&self, name: &str, settings: &Settings) -> Result<&T, SettingsError> {
        self.entries
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
            .ok_or_else(|| SettingsError::UnknownComponent {
                at: settings.location(self.key),
                key: self.key.to_owned(),
                name: name.to_owned(),
                valid: self.names().into_iter().map(str::to_owned).collect(),
            })
    }

    fn names(&self) -> Vec<&str> {
        self.entries.iter().map(|(n, _)| n.as_str()).collect()
    }
}

/// Every component implementation known by name.
pub struct Registry {
    managers: Table<ManagerCtor>,
    data_managers: Table<DataManagerEntry>,
    downloaders: Table<DownloaderEntry>,
    parsers: Table<ParserCtor>,
    routines: Table<RoutineCtor>,
    url_filters: Table<UrlFilterEntry>,
    robots: Table<RobotsParse>,
    finishers: Table<FinisherCtor>,
    unloaders: Table<UnloaderCtor>,
    schedulers: Table<SchedulerEntry>,
    renderers: Table<RendererCtor>,
    /// The finisher a page budget needs.
    budget_finisher: Option<String>,
    /// The finisher that ends a crawl with nothing left to do: always among the finishers.
    work_done_finisher: Option<String>,
    /// The scheduler of a budgeted crawl whose settings.ini names none.
    default_budget_rule: Option<String>,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Registry");
        for key in COMPONENT_KEYS {
            d.field(key, &self.names(key));
        }
        d.finish()
    }
}

/// The settings.ini keys that name components.
pub const COMPONENT_KEYS: &[&str] = &[
    "ApplicationManager",
    "DataManager",
    "DownloadingThread",
    "ParsingThread",
    "RoutineThread",
    "UrlAnalyzingThread",
    "RobotsTxtClass",
    "ApplicationFinishers",
    "ResultUnloaders",
    "Scheduler",
    "Renderer",
];

impl Default for Registry {
    fn default() -> Self {
        Self::builtin()
    }
}

impl Registry {
    /// A registry with no component at all (build one up with the `register_*` methods).
    pub fn empty() -> Self {
        Registry {
            managers: Table::new("ApplicationManager"),
            data_managers: Table::new("DataManager"),
            downloaders: Table::new("DownloadingThread"),
            parsers: Table::new("ParsingThread"),
            routines: Table::new("RoutineThread"),
            url_filters: Table::new("UrlAnalyzingThread"),
            robots: Table::new("RobotsTxtClass"),
            finishers: Table::new("ApplicationFinishers"),
            unloaders: Table::new("ResultUnloaders"),
            schedulers: Table::new("Scheduler"),
            renderers: Table::new("Renderer"),
            budget_finisher: None,
            work_done_finisher: None,
            default_budget_rule: None,
        }
    }
}

impl Registry {
    /// The policy maker of budget rule `name`, if one is registered.
    pub fn policy(&self, name: &str) -> Option<PolicyCtor> {
        self.schedulers
            .entries
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, e)| e.replay.clone())
    }

    /// Every scheduler replay can run, budget rules first, with its policy maker.
    pub fn replay_rules(&self) -> Vec<(&str, PolicyCtor)> {
        let mut rules: Vec<(&str, PolicyCtor, bool)> = self
            .schedulers
            .entries
            .iter()
            .filter_map(|(n, e)| Some((n.as_str(), Arc::clone(e.replay.as_ref()?), e.budget_rule)))
            .collect();
        rules.sort_by_key(|r| !r.2);
        rules.into_iter().map(|(n, m, _)| (n, m)).collect()
    }

    /// The budget rules' names.
    pub fn budget_rules(&self) -> Vec<&str> {
        self.schedulers
            .entries
            .iter()
            .filter(|(_, e)| e.budget_rule)
            .map(|(n, _)| n.as_str())
            .collect()
    }

    /// The scheduler of a budgeted crawl whose settings.ini names none.
    pub fn default_budget_rule(&self) -> Option<&str> {
        self.default_budget_rule.as_deref()
    }

    /// The names known for a component key of settings.ini (empty for other keys).
    pub fn names(&self, key: &str) -> Vec<&str> {
        match key {
            "ApplicationManager" => self.managers.names(),
            "DataManager" => self.data_managers.names(),
            "DownloadingThread" => self.downloaders.names(),
            "ParsingThread" => self.parsers.names(),
            "RoutineThread" => self.routines.names(),
            "UrlAnalyzingThread" => self.url_filters.names(),
            "RobotsTxtClass" => self.robots.names(),
            "ApplicationFinishers" => self.finishers.names(),
            "ResultUnloaders" => self.unloaders.names(),
            "Scheduler" => self.schedulers.names(),
            "Renderer" => self.renderers.names(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests;

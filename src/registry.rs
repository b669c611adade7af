//! Component names → components (SPEC §1: "chooses each component by name, as the RCCrawler
//! paper does"). The paper's names (`TextFileAM`, `BMICDM`, `DT0`, `PT0`, `RT0`, …) are
//! configuration strings and live only in [`Registry::builtin`]; the rest of the code uses
//! Rust names.
//!
//! A [`Registry`] is a value, not a global: the binary uses the built-in one, and a program
//! (or a test) may [`register`](Registry::register_downloader) more implementations under new
//! names and run a crawl with them by naming them in settings.ini. Each component key has one
//! table of constructors; every name a settings.ini gives is looked up in it before anything
//! starts ([`Registry::check`]), and an unknown name is an error listing the valid ones.

use std::fmt;
use std::sync::Arc;

use crossbeam_channel::Receiver;

use crate::app::{AppError, ApplicationManager, Components, RunReport, TextFileManager};
use crate::bandit;
use crate::data::{self, DataLayer};
use crate::fetch::{Downloader, HttpDownloader};
use crate::finish::{Finisher, PageBudget, StopFile, Timeout, WorkIsDone};
use crate::parse::{HtmlParser, PageParser};
use crate::robots::{OnlyDisallowRules, Rfc9309Rules, RobotsParse};
use crate::routine::{ConsoleRoutine, Routine};
use crate::schedule::{BanditScheduler, RoundRobin, Scheduler, Sequential, TimeQuantum};
use crate::settings::{Settings, SettingsError};
use crate::site::SiteSpec;
use crate::unload::{GephiSiteGraph, ResultCheck, Unloader};
use crate::url_filter::key_domain::KeyDomains;
use crate::url_filter::topic::Topic;
use crate::url_filter::{AllHosts, KeyDomainFilter, SeedSiteOnly, UrlFilter};

/// Builds an application manager.
pub type ManagerCtor = Arc<dyn Fn(&Settings) -> Box<dyn ApplicationManager> + Send + Sync>;
/// Opens a data manager with its coordinator (it may recover saved state, so it may fail).
pub type DataManagerCtor = Arc<dyn Fn(&Settings) -> Result<DataLayer, AppError> + Send + Sync>;
/// Builds the downloading threads' component (its configuration may name files, so it may
/// fail).
pub type DownloaderCtor =
    Arc<dyn Fn(&Settings) -> Result<Arc<dyn Downloader>, AppError> + Send + Sync>;
/// Builds the parsing threads' component.
pub type ParserCtor = Arc<dyn Fn(&Settings) -> Arc<dyn PageParser> + Send + Sync>;
/// Builds the routine thread's component.
pub type RoutineCtor = Arc<dyn Fn(&Settings) -> Arc<dyn Routine> + Send + Sync>;
/// Builds the URL filter from the seeds of hosts.txt.
pub type UrlFilterCtor = Arc<dyn Fn(&Settings, &[SiteSpec]) -> Box<dyn UrlFilter> + Send + Sync>;
/// Builds a finisher.
pub type FinisherCtor = Arc<dyn Fn(&Settings) -> Box<dyn Finisher> + Send + Sync>;
/// Builds a result unloader.
pub type UnloaderCtor = Arc<dyn Fn(&Settings) -> Box<dyn Unloader> + Send + Sync>;
/// Builds a scheduler for a crawl of so many sites.
pub type SchedulerCtor = Arc<dyn Fn(&Settings, usize) -> Box<dyn Scheduler> + Send + Sync>;

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

    fn get(&self, name: &str) -> Result<&T, SettingsError> {
        self.entries
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
            .ok_or_else(|| SettingsError::UnknownComponent {
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
    data_managers: Table<DataManagerCtor>,
    downloaders: Table<DownloaderCtor>,
    parsers: Table<ParserCtor>,
    routines: Table<RoutineCtor>,
    url_filters: Table<UrlFilterCtor>,
    robots: Table<RobotsParse>,
    finishers: Table<FinisherCtor>,
    unloaders: Table<UnloaderCtor>,
    schedulers: Table<SchedulerCtor>,
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
        }
    }

    /// The components this crate ships, under the names settings.ini uses.
    pub fn builtin() -> Self {
        let mut r = Self::empty();
        r.register_manager("TextFileAM", |_| Box::new(TextFileManager));
        r.register_data_manager("BMICDM", |s| Ok(data::open_in_memory(s)?));
        r.register_data_manager("PgDM", |s| Ok(data::open_pg(s)?));
        r.register_downloader("DT0", |s| Ok(Arc::new(HttpDownloader::new(s)?)));
        r.register_parser("PT0", |_| Arc::new(HtmlParser));
        r.register_routine("RT0", |_| Arc::new(ConsoleRoutine));
        r.register_url_filter("EmptyUAT", |_, _| Box::new(SeedSiteOnly));
        r.register_url_filter("KeyDomainUAT", |s, _| {
            let domains = KeyDomains::new(
                s.scope.key_domain_source,
                s.scope.common_labels.iter().map(String::as_str),
            );
            let topic = s.scope.topic.clone().map(Topic::new);
            Box::new(KeyDomainFilter::new(domains, topic))
        });
        r.register_url_filter("AllHostsUAT", |_, _| Box::new(AllHosts));
        r.register_robots("Rfc9309RobotsTxt", Rfc9309Rules::parse_shared);
        r.register_robots("OnlyDisallowRobotsTxt", OnlyDisallowRules::parse_shared);
        r.register_finisher("WorkIsDoneAF", |_| Box::new(WorkIsDone));
        r.register_finisher("TimeoutAF", |s| Box::new(Timeout::new(s.timeout)));
        r.register_finisher("StopFileAF", |s| {
            Box::new(StopFile::new(s.stop_file.clone()))
        });
        r.register_finisher("PageBudgetAF", |_| Box::new(PageBudget));
        r.register_unloader("GephiSiteGraphRU", |s| {
            Box::new(GephiSiteGraph {
                save_duplicates: s.save_duplicates,
                reward: s.bandit.reward,
                context: s.external_link_context > 0,
                hosts: s.components.url_filter != "EmptyUAT",
            })
        });
        r.register_unloader("TestRU", |_| Box::new(ResultCheck::default()));
        r.register_scheduler("AllSites", |_, _| Box::new(RoundRobin::default()));
        r.register_scheduler("Sequential", |_, _| Box::new(Sequential));
        r.register_scheduler("TimeQuantum", |s, _| {
            Box::new(TimeQuantum::new(s.time_quantum))
        });
        for &rule in bandit::RULES {
            r.register_scheduler(rule, move |s, sites| {
                let params = s.bandit.params(sites);
                let policy = bandit::policy(rule, &params).expect("the rules are known by name");
                let downloaders = s.downloading_threads.get();
                Box::new(BanditScheduler::new(policy, s.bandit.reward, downloaders))
            });
        }
        r
    }

    /// Registers an `ApplicationManager` under `name`.
    pub fn register_manager(
        &mut self,
        name: &str,
        ctor: impl Fn(&Settings) -> Box<dyn ApplicationManager> + Send + Sync + 'static,
    ) {
        self.managers.add(name, Arc::new(ctor));
    }

    /// Registers a `DataManager` under `name`.
    pub fn register_data_manager(
        &mut self,
        name: &str,
        ctor: impl Fn(&Settings) -> Result<DataLayer, AppError> + Send + Sync + 'static,
    ) {
        self.data_managers.add(name, Arc::new(ctor));
    }

    /// Registers a `DownloadingThread` under `name`.
    pub fn register_downloader(
        &mut self,
        name: &str,
        ctor: impl Fn(&Settings) -> Result<Arc<dyn Downloader>, AppError> + Send + Sync + 'static,
    ) {
        self.downloaders.add(name, Arc::new(ctor));
    }

    /// Registers a `ParsingThread` under `name`.
    pub fn register_parser(
        &mut self,
        name: &str,
        ctor: impl Fn(&Settings) -> Arc<dyn PageParser> + Send + Sync + 'static,
    ) {
        self.parsers.add(name, Arc::new(ctor));
    }

    /// Registers a `RoutineThread` under `name`.
    pub fn register_routine(
        &mut self,
        name: &str,
        ctor: impl Fn(&Settings) -> Arc<dyn Routine> + Send + Sync + 'static,
    ) {
        self.routines.add(name, Arc::new(ctor));
    }

    /// Registers a `UrlAnalyzingThread` (URL filter) under `name`.
    pub fn register_url_filter(
        &mut self,
        name: &str,
        ctor: impl Fn(&Settings, &[SiteSpec]) -> Box<dyn UrlFilter> + Send + Sync + 'static,
    ) {
        self.url_filters.add(name, Arc::new(ctor));
    }

    /// Registers a `RobotsTxtClass` under `name`.
    pub fn register_robots(&mut self, name: &str, parse: RobotsParse) {
        self.robots.add(name, parse);
    }

    /// Registers one of the `ApplicationFinishers` under `name`.
    pub fn register_finisher(
        &mut self,
        name: &str,
        ctor: impl Fn(&Settings) -> Box<dyn Finisher> + Send + Sync + 'static,
    ) {
        self.finishers.add(name, Arc::new(ctor));
    }

    /// Registers one of the `ResultUnloaders` under `name`.
    pub fn register_unloader(
        &mut self,
        name: &str,
        ctor: impl Fn(&Settings) -> Box<dyn Unloader> + Send + Sync + 'static,
    ) {
        self.unloaders.add(name, Arc::new(ctor));
    }

    /// Registers a `Scheduler` under `name`.
    pub fn register_scheduler(
        &mut self,
        name: &str,
        ctor: impl Fn(&Settings, usize) -> Box<dyn Scheduler> + Send + Sync + 'static,
    ) {
        self.schedulers.add(name, Arc::new(ctor));
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
            _ => Vec::new(),
        }
    }

    /// Checks that every component settings.ini names is known: the first unknown one is an
    /// error listing the valid names of its key.
    pub fn check(&self, settings: &Settings) -> Result<(), SettingsError> {
        let c = &settings.components;
        self.managers.get(&c.manager)?;
        self.data_managers.get(&c.data_manager)?;
        self.downloaders.get(&c.downloader)?;
        self.parsers.get(&c.parser)?;
        self.routines.get(&c.routine)?;
        self.url_filters.get(&c.url_filter)?;
        self.robots.get(&c.robots)?;
        for f in &c.finishers {
            self.finishers.get(f)?;
        }
        for u in &c.unloaders {
            self.unloaders.get(u)?;
        }
        self.schedulers.get(&c.scheduler)?;
        Ok(())
    }

    /// Runs a crawl of `hosts` with the components `settings` names: checks the names, builds
    /// the components, and hands them to the application manager, which runs until a
    /// finisher fires or `ctrl_c` receives.
    pub fn run(
        &self,
        settings: &Settings,
        hosts: &[SiteSpec],
        ctrl_c: Receiver<()>,
    ) -> Result<RunReport, AppError> {
        self.check(settings)?;
        let manager = self.manager(settings)?;
        let parts = self.components(settings, hosts)?;
        manager.run(settings, hosts, parts, ctrl_c)
    }

    /// The application manager settings.ini names.
    pub fn manager(&self, settings: &Settings) -> Result<Box<dyn ApplicationManager>, AppError> {
        Ok((self.managers.get(&settings.components.manager)?)(settings))
    }

    /// The result unloaders settings.ini names.
    pub fn unloaders(&self, settings: &Settings) -> Result<Vec<Box<dyn Unloader>>, AppError> {
        settings
            .components
            .unloaders
            .iter()
            .map(|u| Ok((self.unloaders.get(u)?)(settings)))
            .collect()
    }

    /// Builds every other component settings.ini names, for a crawl of `hosts`. Opening the
    /// data manager recovers saved state, so this may fail.
    pub fn components(
        &self,
        settings: &Settings,
        hosts: &[SiteSpec],
    ) -> Result<Components, AppError> {
        let c = &settings.components;
        let finishers = c
            .finishers
            .iter()
            .map(|f| Ok((self.finishers.get(f)?)(settings)))
            .collect::<Result<Vec<_>, AppError>>()?;
        let unloaders = self.unloaders(settings)?;
        let layer = (self.data_managers.get(&c.data_manager)?)(settings)?;
        Ok(Components {
            data: layer.data,
            coordinator: layer.coordinator,
            downloader: (self.downloaders.get(&c.downloader)?)(settings)?,
            parser: (self.parsers.get(&c.parser)?)(settings),
            routine: (self.routines.get(&c.routine)?)(settings),
            url_filter: (self.url_filters.get(&c.url_filter)?)(settings, hosts),
            robots: *self.robots.get(&c.robots)?,
            finishers,
            unloaders,
            scheduler: (self.schedulers.get(&c.scheduler)?)(settings, hosts.len()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::RawSettings;

    fn settings(ini: &str) -> Settings {
        let raw = RawSettings::from_ini(ini, std::path::Path::new("settings.ini")).unwrap();
        Settings::from_raw(&raw, std::path::Path::new("/base"))
            .unwrap()
            .0
    }

    #[test]
    fn unknown_component_lists_valid_names() {
        let r = Registry::builtin();
        let e = r
            .check(&settings("RobotsTxtClass = Magic\n"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("RobotsTxtClass = Magic")
                && e.contains("Rfc9309RobotsTxt")
                && e.contains("OnlyDisallowRobotsTxt"),
            "{e}"
        );
        let e = r
            .check(&settings("ApplicationFinishers = WorkIsDoneAF,Nope\n"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("StopFileAF"), "{e}");
        assert!(r.check(&settings("")).is_ok(), "the defaults are all known");
    }

    #[test]
    fn every_component_key_has_names_and_registering_adds_one() {
        let mut r = Registry::builtin();
        for key in COMPONENT_KEYS {
            assert!(!r.names(key).is_empty(), "{key}");
        }
        assert!(r.check(&settings("ParsingThread = Mine\n")).is_err());
        r.register_parser("Mine", |_| Arc::new(HtmlParser));
        assert_eq!(r.names("ParsingThread"), ["PT0", "Mine"]);
        assert!(r.check(&settings("ParsingThread = Mine\n")).is_ok());
    }
}

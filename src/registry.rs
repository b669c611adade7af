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

use std::fmt;
use std::sync::Arc;

use crossbeam_channel::Receiver;

use crate::app::{AppError, ApplicationManager, Components, RunReport, TextFileManager};
use crate::bandit::{self, Params, Policy, PolicyCtor};
use crate::data::{self, DataLayer, SavedCrawl};
use crate::fetch::{Downloader, EventedDownloader, HttpDownloader};
use crate::finish::{Finisher, PageBudget, StopFile, Timeout, WorkIsDone};
use crate::parse::{HtmlParser, PageParser};
use crate::robots::{OnlyDisallowRules, Rfc9309Rules, RobotsParse};
use crate::routine::{ConsoleRoutine, Routine};
use crate::schedule::{BanditScheduler, RoundRobin, Scheduler, Sequential, TimeQuantum};
use crate::settings::{Settings, SettingsError, Warning};
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
            budget_finisher: None,
            work_done_finisher: None,
            default_budget_rule: None,
        }
    }

    /// The components this crate ships, under the names settings.ini uses.
    pub fn builtin() -> Self {
        let mut r = Self::empty();
        r.register_manager("TextFileAM", |_| Box::new(TextFileManager));
        r.register_data_manager(
            "BMICDM",
            &[],
            |s| Ok(data::open_in_memory(s)?),
            |s, which| Ok(data::read_state_folder(s, which)?),
        );
        r.register_data_manager(
            "PgDM",
            &["DatabaseUrl", "CrawlName"],
            |s| Ok(data::open_pg(s)?),
            |s, which| Ok(data::read_database(s, which)?),
        );
        r.register_downloader("DT0", |s| Ok(Arc::new(HttpDownloader::new(s)?)));
        r.downloaders.add("DT1", DownloaderEntry::Evented);
        r.register_parser("PT0", |_| Arc::new(HtmlParser));
        r.register_routine("RT0", |_| Arc::new(ConsoleRoutine));
        let (one_host, many_hosts) = (
            UrlFilterTraits {
                spans_hosts: false,
                topic_stage: false,
            },
            UrlFilterTraits {
                spans_hosts: true,
                topic_stage: false,
            },
        );
        r.register_url_filter("EmptyUAT", one_host, |_, _| Box::new(SeedSiteOnly));
        let key_domains = UrlFilterTraits {
            topic_stage: true,
            ..many_hosts
        };
        r.register_url_filter("KeyDomainUAT", key_domains, |s, _| {
            let domains = KeyDomains::new(
                s.scope.key_domain_source,
                s.scope.common_labels.iter().map(String::as_str),
            );
            let topic = s.scope.topic.clone().map(Topic::new);
            Box::new(KeyDomainFilter::new(domains, topic))
        });
        r.register_url_filter("AllHostsUAT", many_hosts, |_, _| Box::new(AllHosts));
        r.register_robots("Rfc9309RobotsTxt", Rfc9309Rules::parse_shared);
        r.register_robots("OnlyDisallowRobotsTxt", OnlyDisallowRules::parse_shared);
        r.register_finisher("WorkIsDoneAF", |_| Box::new(WorkIsDone));
        r.register_finisher("TimeoutAF", |s| Box::new(Timeout::new(s.stop.timeout)));
        r.register_finisher("StopFileAF", |s| {
            Box::new(StopFile::new(s.stop.stop_file.clone()))
        });
        r.register_finisher("PageBudgetAF", |_| Box::new(PageBudget));
        r.set_budget_finisher("PageBudgetAF");
        r.set_work_done_finisher("WorkIsDoneAF");
        r.register_unloader("GephiSiteGraphRU", |s, _| {
            Box::new(GephiSiteGraph {
                save_duplicates: s.results.save_duplicates,
                reward: s.bandit.reward,
                context: s.results.external_link_context > 0,
                bvgraph: s.results.bvgraph,
            })
        });
        r.register_unloader("TestRU", |_, _| Box::new(ResultCheck::default()));
        r.register_unloader("ReportRU", |s, i| {
            Box::new(crate::unload::Report::new(s, i.scopes_span_hosts))
        });
        r.register_baseline(
            "AllSites",
            |_, _| Box::new(RoundRobin::default()),
            |_| Box::new(bandit::baseline::RoundRobinPolicy::default()),
        );
        r.register_baseline(
            "Sequential",
            |_, _| Box::new(Sequential),
            |_| Box::new(bandit::baseline::SequentialPolicy),
        );
        r.register_baseline(
            "TimeQuantum",
            |s, _| Box::new(TimeQuantum::new(s.time_quantum)),
            // Time slices counted in pages: a quarter of each site's fair share.
            |p| {
                let quantum = (p.planned_budget() / (4 * p.arms.max(1))).max(1);
                Box::new(bandit::baseline::PageQuantum::new(quantum))
            },
        );
        r.register_budget_rule("R1", |p| {
            Box::new(bandit::paper::R1::new(p.arms, p.planned_budget()))
        });
        r.register_budget_rule("R2", |p| {
            Box::new(bandit::paper::R2::new(p.arms, p.tuning.r2_step.max(1)))
        });
        r.register_budget_rule("R3", |p| {
            Box::new(bandit::paper::R3::new(p.arms, p.tuning.r3_initial.max(1)))
        });
        r.register_budget_rule("WinsorUcb", |p| {
            Box::new(bandit::winsor::WinsorUcb::new(
                p.arms,
                p.window(),
                p.tuning.prior_pages,
                p.exploration(bandit::WINSOR_EXPLORATION),
            ))
        });
        // The rules it follows, as registered above under their names.
        let followers: Vec<PolicyCtor> = bandit::guard::FOLLOWERS
            .iter()
            .filter_map(|name| r.policy(name))
            .collect();
        r.register_budget_rule("GuardedUcb", move |p| {
            let rules = followers.iter().map(|make| make(p)).collect();
            Box::new(bandit::guard::GuardedUcb::following(
                p.arms,
                p.planned_budget(),
                rules,
            ))
        });
        r.register_budget_rule("PooledUcb", |p| {
            Box::new(bandit::pooled::PooledUcb::new(
                p.arms,
                p.window(),
                p.tuning.prior_pages,
                p.exploration(bandit::POOLED_EXPLORATION),
            ))
        });
        r.register_budget_rule("SlidingWindowUcb", |p| {
            Box::new(bandit::ucb::SlidingWindowUcb::new(
                p.arms,
                p.window(),
                p.exploration(bandit::UCB_EXPLORATION),
            ))
        });
        r.register_budget_rule("DiscountedUcb", |p| {
            Box::new(bandit::ucb::DiscountedUcb::new(
                p.arms,
                p.discount(),
                p.exploration(bandit::UCB_EXPLORATION),
            ))
        });
        r.register_budget_rule("Thompson", |p| {
            Box::new(bandit::thompson::Thompson::new(
                p.arms,
                p.window(),
                p.tuning.seed,
            ))
        });
        r.set_default_budget_rule("DiscountedUcb");
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

    /// Registers a `DataManager` under `name`, opened by `open`; settings.ini must set the
    /// keys of `requires` (to something not empty) when it is chosen; `read_saved` reads what
    /// it saved, for `rccrawler export`.
    pub fn register_data_manager(
        &mut self,
        name: &str,
        requires: &'static [&'static str],
        open: impl Fn(&Settings) -> Result<DataLayer, AppError> + Send + Sync + 'static,
        read_saved: impl Fn(&Settings, &[String]) -> Result<SavedCrawl, AppError>
        + Send
        + Sync
        + 'static,
    ) {
        let entry = DataManagerEntry {
            ctor: Arc::new(open),
            requires,
            read_saved: Arc::new(read_saved),
        };
        self.data_managers.add(name, entry);
    }

    /// The saved crawl of the data manager `settings` names, its scopes named by seed in
    /// `which` (all when empty).
    pub fn read_saved(
        &self,
        settings: &Settings,
        which: &[String],
    ) -> Result<SavedCrawl, AppError> {
        let entry = self
            .data_managers
            .get(&settings.components.data_manager, settings)?;
        (entry.read_saved)(settings, which)
    }

    /// Registers a `DownloadingThread` under `name`.
    pub fn register_downloader(
        &mut self,
        name: &str,
        ctor: impl Fn(&Settings) -> Result<Arc<dyn Downloader>, AppError> + Send + Sync + 'static,
    ) {
        self.downloaders
            .add(name, DownloaderEntry::Blocking(Arc::new(ctor)));
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

    /// Registers a `UrlAnalyzingThread` (URL filter) under `name`, with what it declares.
    pub fn register_url_filter(
        &mut self,
        name: &str,
        traits: UrlFilterTraits,
        ctor: impl Fn(&Settings, &[SiteSpec]) -> Box<dyn UrlFilter> + Send + Sync + 'static,
    ) {
        let ctor = Arc::new(ctor);
        self.url_filters.add(name, UrlFilterEntry { ctor, traits });
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

    /// The finisher that ends a crawl with nothing left to do: added to `ApplicationFinishers`
    /// whenever the list lacks it (a crawl without it never ended once its work was done).
    pub fn set_work_done_finisher(&mut self, name: &str) {
        self.work_done_finisher = Some(name.to_owned());
    }

    /// The finisher a page budget needs: added to `ApplicationFinishers` when `PageBudget` is
    /// set and the list lacks it.
    pub fn set_budget_finisher(&mut self, name: &str) {
        self.budget_finisher = Some(name.to_owned());
    }

    /// The scheduler of a budgeted crawl whose settings.ini names none.
    pub fn set_default_budget_rule(&mut self, name: &str) {
        self.default_budget_rule = Some(name.to_owned());
    }

    /// Registers one of the `ResultUnloaders` under `name`.
    pub fn register_unloader(
        &mut self,
        name: &str,
        ctor: impl Fn(&Settings, &Implied) -> Box<dyn Unloader> + Send + Sync + 'static,
    ) {
        self.unloaders.add(name, Arc::new(ctor));
    }

    /// Registers a `Scheduler` under `name` that replay cannot run.
    pub fn register_scheduler(
        &mut self,
        name: &str,
        ctor: impl Fn(&Settings, usize) -> Box<dyn Scheduler> + Send + Sync + 'static,
    ) {
        let live = Arc::new(ctor);
        self.schedulers.add(
            name,
            SchedulerEntry {
                live,
                replay: None,
                budget_rule: false,
            },
        );
    }

    /// Registers a `Scheduler` under `name` that is not a budget rule, with the policy that
    /// stands for it when recorded yields are replayed (one page per decision).
    pub fn register_baseline(
        &mut self,
        name: &str,
        live: impl Fn(&Settings, usize) -> Box<dyn Scheduler> + Send + Sync + 'static,
        replay: impl Fn(&Params) -> Box<dyn Policy> + Send + Sync + 'static,
    ) {
        let (live, replay) = (Arc::new(live), Arc::new(replay));
        self.schedulers.add(
            name,
            SchedulerEntry {
                live,
                replay: Some(replay),
                budget_rule: false,
            },
        );
    }

    /// Registers a budget rule (SPEC §5) under `name`: a `Scheduler` for budgeted crawls that
    /// runs the policy `make` builds, and the same policy in replays.
    pub fn register_budget_rule(
        &mut self,
        name: &str,
        make: impl Fn(&Params) -> Box<dyn Policy> + Send + Sync + 'static,
    ) {
        let make: PolicyCtor = Arc::new(make);
        let for_crawl = Arc::clone(&make);
        let rule = name.to_owned();
        let live: SchedulerCtor = Arc::new(move |s: &Settings, sites: usize| {
            let policy = for_crawl(&s.bandit.params(sites));
            if s.bandit.is_budgeted() {
                // See: issue 20 — which rule ran was said nowhere.
                let chosen = if s.is_written("Scheduler") {
                    "Scheduler in settings.ini"
                } else {
                    "the default rule"
                };
                let plural = if sites == 1 { "" } else { "s" };
                eprintln!(
                    "budget: {} pages split between {sites} site{plural} by {rule} ({chosen}): {}",
                    s.bandit.pages(),
                    policy.parameters()
                );
            }
            let downloaders = s.threads.max_downloaders();
            Box::new(BanditScheduler::new(policy, s.bandit.reward, downloaders))
                as Box<dyn Scheduler>
        });
        self.schedulers.add(
            name,
            SchedulerEntry {
                live,
                replay: Some(make),
                budget_rule: true,
            },
        );
    }

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
            _ => Vec::new(),
        }
    }

    /// Checks every component settings.ini names and completes the settings with what the
    /// choice implies: the first unknown name is an error listing the valid names of its key;
    /// a data manager's required settings must be set; a page budget adds the budget finisher
    /// and, if settings.ini names no scheduler, the default budget rule. Notes and warnings
    /// about the choice come back with the settings.
    pub fn resolve(
        &self,
        mut settings: Settings,
    ) -> Result<(Settings, Vec<Warning>), SettingsError> {
        let mut warnings = Vec::new();
        // See: issue 49 — `ApplicationFinishers =` (empty) was accepted, and the crawl never
        // ended when its work was done.
        if let Some(finisher) = &self.work_done_finisher
            && !settings.components.finishers.contains(finisher)
        {
            settings.components.finishers.insert(0, finisher.clone());
            warnings.push(Warning::note(
                settings.location("ApplicationFinishers"),
                format!(
                    "{finisher} is added to ApplicationFinishers: a crawl always ends when \
                     nothing is left to fetch"
                ),
            ));
        }
        let budgeted = settings.bandit.is_budgeted();
        if budgeted {
            if !settings.is_written("Scheduler")
                && let Some(rule) = &self.default_budget_rule
            {
                settings.components.scheduler = rule.clone();
            }
            if let Some(finisher) = &self.budget_finisher
                && !settings.components.finishers.contains(finisher)
            {
                settings.components.finishers.push(finisher.clone());
                if settings.is_written("ApplicationFinishers") {
                    warnings.push(Warning::note(
                        settings.location("ApplicationFinishers"),
                        format!(
                            "PageBudget is set, so {finisher} is added to ApplicationFinishers"
                        ),
                    ));
                }
            }
        }
        let c = &settings.components;
        self.managers.get(&c.manager, &settings)?;
        let data = self.data_managers.get(&c.data_manager, &settings)?;
        for key in data.requires {
            if settings.text(key).trim().is_empty() {
                return Err(SettingsError::BadValue {
                    at: settings.location(key),
                    key: (*key).to_owned(),
                    value: String::new(),
                    expected: format!("a value when DataManager = {}", c.data_manager),
                });
            }
        }
        self.downloaders.get(&c.downloader, &settings)?;
        self.parsers.get(&c.parser, &settings)?;
        self.routines.get(&c.routine, &settings)?;
        let filter = self.url_filters.get(&c.url_filter, &settings)?;
        if settings.scope.topic.is_some() && !filter.traits.topic_stage {
            warnings.push(Warning::new(
                settings.location("TopicFilter"),
                format!(
                    "TopicFilter = 1 applies to a URL filter with a topic stage only (here {}): ignored",
                    c.url_filter
                ),
            ));
        }
        self.robots.get(&c.robots, &settings)?;
        for f in &c.finishers {
            self.finishers.get(f, &settings)?;
        }
        for u in &c.unloaders {
            self.unloaders.get(u, &settings)?;
        }
        check_unloader_order(&settings)?;
        let scheduler = self.schedulers.get(&c.scheduler, &settings)?;
        if budgeted && settings.is_written("Scheduler") && !scheduler.budget_rule {
            // See: issue 20 — a shipped `Scheduler = AllSites` silently overrode the rule.
            let name = &c.scheduler;
            warnings.push(Warning::new(
                settings.location("Scheduler"),
                format!(
                    "PageBudget = {} with Scheduler = {name}, which is not a budget rule: the \
                     budget only caps the pages and {name} decides which site gets them; remove \
                     the Scheduler line for the default rule ({}) or name one of {}",
                    settings.bandit.pages(),
                    self.default_budget_rule.as_deref().unwrap_or("none"),
                    self.budget_rules().join(", ")
                ),
            ));
        }
        Ok((settings, warnings))
    }

    /// What the chosen components imply for the others (`settings` already resolved).
    pub fn implied(&self, settings: &Settings) -> Result<Implied, SettingsError> {
        let filter = self
            .url_filters
            .get(&settings.components.url_filter, settings)?;
        Ok(Implied {
            scopes_span_hosts: filter.traits.spans_hosts,
        })
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
        // Settings already resolved resolve to themselves; their notes were said then.
        let (settings, _) = self.resolve(settings.clone())?;
        settings.check_folders()?;
        settings.check_status_address()?;
        let manager = self.manager(&settings)?;
        let parts = self.components(&settings, hosts)?;
        manager.run(&settings, hosts, parts, ctrl_c)
    }

    /// The application manager settings.ini names.
    pub fn manager(&self, settings: &Settings) -> Result<Box<dyn ApplicationManager>, AppError> {
        Ok((self
            .managers
            .get(&settings.components.manager, settings)?)(
            settings
        ))
    }

    /// Which hosts each scope of a crawl of `hosts` takes in, as the URL filter settings.ini
    /// names plans them: what the network of sites needs to know of the scopes.
    pub fn target_scopes(
        &self,
        settings: &Settings,
        hosts: &[SiteSpec],
    ) -> Result<crate::network::TargetScopes, SettingsError> {
        let entry = self
            .url_filters
            .get(&settings.components.url_filter, settings)?;
        let mut filter = (entry.ctor)(settings, hosts);
        let origins: Vec<crate::site::Origin> = hosts.iter().map(|h| h.origin.clone()).collect();
        let plans = filter.plan(&origins);
        Ok(crate::network::TargetScopes::from_plans(
            &origins,
            &plans,
            filter.host_rule(),
        ))
    }

    /// The result unloaders settings.ini names.
    pub fn unloaders(&self, settings: &Settings) -> Result<Vec<Box<dyn Unloader>>, AppError> {
        let implied = self.implied(settings)?;
        settings
            .components
            .unloaders
            .iter()
            .map(|u| Ok((self.unloaders.get(u, settings)?)(settings, &implied)))
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
            .map(|f| Ok((self.finishers.get(f, settings)?)(settings)))
            .collect::<Result<Vec<_>, AppError>>()?;
        let unloaders = self.unloaders(settings)?;
        let layer = (self.data_managers.get(&c.data_manager, settings)?.ctor)(settings)?;
        let (downloader, evented) = match self.downloaders.get(&c.downloader, settings)? {
            DownloaderEntry::Blocking(make) => (make(settings)?, None),
            DownloaderEntry::Evented => {
                let evented = Arc::new(EventedDownloader::new(settings)?);
                (Arc::clone(&evented) as Arc<dyn Downloader>, Some(evented))
            }
        };
        Ok(Components {
            data: layer.data,
            coordinator: layer.coordinator,
            downloader,
            evented,
            parser: (self.parsers.get(&c.parser, settings)?)(settings),
            routine: (self.routines.get(&c.routine, settings)?)(settings),
            url_filter: (self.url_filters.get(&c.url_filter, settings)?.ctor)(settings, hosts),
            robots: *self.robots.get(&c.robots, settings)?,
            finishers,
            unloaders,
            scheduler: (self.schedulers.get(&c.scheduler, settings)?.live)(settings, hosts.len()),
        })
    }
}

/// `TestRU` reads back the files `GephiSiteGraphRU` writes: it must come after it, or every
/// check fails at the end of the crawl (exit code 1) for files nobody was asked to write.
fn check_unloader_order(settings: &Settings) -> Result<(), SettingsError> {
    let names = &settings.components.unloaders;
    let at = |n: &str| names.iter().position(|u| u == n);
    match (at("TestRU"), at("GephiSiteGraphRU")) {
        (Some(test), writer) if writer.is_none_or(|w| w > test) => Err(SettingsError::BadValue {
            at: settings.location("ResultUnloaders"),
            key: "ResultUnloaders".to_owned(),
            value: names.join(","),
            expected: "TestRU checks the files GephiSiteGraphRU writes: name GephiSiteGraphRU \
                       before it"
                .to_owned(),
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::RawSettings;

    #[test]
    fn test_ru_is_refused_before_or_without_the_files_it_checks() {
        let r = Registry::builtin();
        for bad in ["TestRU", "TestRU,GephiSiteGraphRU", "ReportRU,TestRU"] {
            let e = r
                .resolve(settings(&format!("ResultUnloaders = {bad}\n")))
                .unwrap_err()
                .to_string();
            assert!(e.contains("name GephiSiteGraphRU before it"), "{bad}: {e}");
        }
        for good in [
            "GephiSiteGraphRU,TestRU",
            "GephiSiteGraphRU,ReportRU,TestRU",
            "ReportRU",
        ] {
            assert!(
                r.resolve(settings(&format!("ResultUnloaders = {good}\n")))
                    .is_ok(),
                "{good}"
            );
        }
    }

    fn settings(ini: &str) -> Settings {
        let raw = RawSettings::from_ini(ini, std::path::Path::new("settings.ini")).unwrap();
        Settings::from_raw(&raw, std::path::Path::new("/base"))
            .unwrap()
            .0
    }

    #[test]
    fn dt1_is_built_as_the_event_driven_downloader_and_dt0_is_not() {
        let r = Registry::builtin();
        for (name, evented) in [("DT1", true), ("DT0", false)] {
            let s = settings(&format!("DownloadingThread = {name}\nSaveState = 0\n"));
            let c = r.components(&s, &[]).unwrap();
            assert_eq!(c.evented.is_some(), evented, "{name}");
        }
    }

    #[test]
    fn unknown_component_lists_valid_names() {
        let r = Registry::builtin();
        let e = r
            .resolve(settings("RobotsTxtClass = Magic\n"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("RobotsTxtClass = Magic")
                && e.contains("Rfc9309RobotsTxt")
                && e.contains("OnlyDisallowRobotsTxt"),
            "{e}"
        );
        let e = r
            .resolve(settings("ApplicationFinishers = WorkIsDoneAF,Nope\n"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("StopFileAF"), "{e}");
        assert!(
            r.resolve(settings("")).is_ok(),
            "the defaults are all known"
        );
    }

    #[test]
    fn a_budget_implies_its_finisher_and_the_default_rule_unless_a_scheduler_is_named() {
        let r = Registry::builtin();
        let (s, notes) = r.resolve(settings("PageBudget = 10\n")).unwrap();
        assert_eq!(s.components.scheduler, "DiscountedUcb");
        assert!(s.components.finishers.iter().any(|f| f == "PageBudgetAF"));
        assert!(notes.is_empty(), "{notes:?}");
        let (s, notes) = r
            .resolve(settings(
                "PageBudget = 10\nScheduler = R2\nApplicationFinishers = WorkIsDoneAF\n",
            ))
            .unwrap();
        assert_eq!(s.components.scheduler, "R2");
        assert_eq!(s.components.finishers, ["WorkIsDoneAF", "PageBudgetAF"]);
        assert!(notes[0].is_note() && notes[0].text.contains("PageBudgetAF is added"));
        assert_eq!(notes.len(), 1, "R2 is a budget rule: {notes:?}");
        // See: issue 49 — a crawl without the work-done finisher never ended.
        let (s, notes) = r.resolve(settings("ApplicationFinishers =\n")).unwrap();
        assert_eq!(s.components.finishers, ["WorkIsDoneAF"]);
        assert!(notes[0].is_note() && notes[0].text.contains("WorkIsDoneAF is added"));
        let (s, _) = r
            .resolve(settings("ApplicationFinishers = TimeoutAF\n"))
            .unwrap();
        assert_eq!(s.components.finishers, ["WorkIsDoneAF", "TimeoutAF"]);
        // See: issue 20 — a budget with a scheduler that is not a budget rule said nothing.
        let (s, w) = r
            .resolve(settings("PageBudget = 300\nScheduler = AllSites\n"))
            .unwrap();
        assert_eq!(s.components.scheduler, "AllSites");
        assert!(
            w.iter().any(|w| !w.is_note()
                && w.text
                    .contains("PageBudget = 300 with Scheduler = AllSites")
                && w.text.contains("DiscountedUcb")),
            "{w:?}"
        );
        let e = r
            .resolve(settings("DataManager = PgDM\n"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("DatabaseUrl") && e.contains("PgDM"), "{e}");
        let (_, w) = r
            .resolve(settings("TopicFilter = 1\nTopicKeywords = x\n"))
            .unwrap();
        assert!(w[0].text.contains("TopicFilter"), "{w:?}");
    }

    #[test]
    fn every_rule_replay_runs_is_known_by_name_and_spends_the_budget() {
        let r = Registry::builtin();
        let params = Params {
            arms: 3,
            budget: 30,
            tuning: bandit::Tuning {
                r2_step: 2,
                r3_initial: 2,
                window: 0,
                discount: 0.0,
                prior_pages: 5.0,
                exploration: 1.0,
                seed: 7,
            },
        };
        let seqs = vec![vec![1.0; 20], vec![0.0; 20], vec![3.0; 5]];
        let rules = r.replay_rules();
        assert_eq!(rules.len(), 12, "nine budget rules and three baselines");
        assert_eq!(
            r.budget_rules(),
            [
                "R1",
                "R2",
                "R3",
                "WinsorUcb",
                "GuardedUcb",
                "PooledUcb",
                "SlidingWindowUcb",
                "DiscountedUcb",
                "Thompson"
            ]
        );
        for (name, make) in rules {
            let mut p = make(&params);
            let (taken, _) = crate::bandit::tests::run(p.as_mut(), &seqs, 30);
            assert_eq!(taken.iter().sum::<usize>(), 30, "{name}: {taken:?}");
            assert!(taken[2] <= 5, "{name}: an exhausted arm leaves");
        }
        // GuardedUcb follows the rules registered under the names it lists, built as they
        // are: the same choices and description as built by hand.
        let guarded = r.policy("GuardedUcb").expect("registered");
        let mut from_registry = guarded(&params);
        let mut by_hand = crate::bandit::guard::GuardedUcb::new(
            params.arms,
            params.planned_budget(),
            (params.window(), 5.0, 1.0),
            2,
            2,
        );
        assert_eq!(from_registry.parameters(), by_hand.parameters());
        assert!(from_registry.parameters().contains("WinsorUcb ("));
        assert_eq!(
            crate::bandit::tests::run(from_registry.as_mut(), &seqs, 30),
            crate::bandit::tests::run(&mut by_hand, &seqs, 30)
        );
    }

    #[test]
    fn every_component_key_has_names_and_registering_adds_one() {
        let mut r = Registry::builtin();
        for key in COMPONENT_KEYS {
            assert!(!r.names(key).is_empty(), "{key}");
        }
        assert!(r.resolve(settings("ParsingThread = Mine\n")).is_err());
        r.register_parser("Mine", |_| Arc::new(HtmlParser));
        assert_eq!(r.names("ParsingThread"), ["PT0", "Mine"]);
        assert!(r.resolve(settings("ParsingThread = Mine\n")).is_ok());
    }
}

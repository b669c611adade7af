//! Adding a component to a registry under a name.

use super::*;

impl Registry {
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

    /// Registers a `Renderer` under `name`.
    pub fn register_renderer(
        &mut self,
        name: &str,
        ctor: impl Fn(&Settings) -> Arc<dyn crate::crawl::render::Renderer> + Send + Sync + 'static,
    ) {
        self.renderers.add(name, Arc::new(ctor));
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
}

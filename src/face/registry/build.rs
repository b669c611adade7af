//! What settings.ini names, checked, completed and built into the running components.

use super::*;

impl Registry {
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
        self.check_renderer(&settings)?;
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

    /// The renderer settings.ini names exists, and with `Render` ≠ `no` finds its browser:
    /// before anything starts, since a crawl that cannot render would give the server's
    /// graphs under a setting that asked for the visitor's.
    fn check_renderer(&self, settings: &Settings) -> Result<(), SettingsError> {
        let renderer = self
            .renderers
            .get(&settings.components.renderer, settings)?;
        if settings.render.mode == crate::crawl::render::RenderMode::No {
            return Ok(());
        }
        renderer(settings)
            .check()
            .map_err(|e| SettingsError::BadValue {
                at: settings.location("Render"),
                key: "Render".to_owned(),
                value: settings.render.mode.name().to_owned(),
                expected: format!(
                    "a browser to render with ({e}): install Debian's chromium package \
                     (apt install chromium) or set ChromiumPath, or set Render = no"
                ),
            })
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
        // A second crawl in a folder one runs in says so first (not that the status page's
        // port is taken, which only follows from it).
        if settings.state.save && crate::base::storage::held_by_another(&settings.state.folder) {
            let path = settings.state.folder.join("lock");
            let locked = crate::base::storage::StateError::Locked { path };
            return Err(AppError::Data(crate::crawl::data::DataError::Persist(
                locked.into(),
            )));
        }
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
    ) -> Result<crate::analysis::network::TargetScopes, SettingsError> {
        let entry = self
            .url_filters
            .get(&settings.components.url_filter, settings)?;
        let mut filter = (entry.ctor)(settings, hosts);
        let origins: Vec<crate::model::site::Origin> =
            hosts.iter().map(|h| h.origin.clone()).collect();
        let plans = filter.plan(&origins);
        Ok(crate::analysis::network::TargetScopes::from_plans(
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
            renderer: (settings.render.mode != crate::crawl::render::RenderMode::No)
                .then(|| self.renderers.get(&c.renderer, settings))
                .transpose()?
                .map(|make| make(settings)),
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

//! The components this crate ships, under the paper's names: the one place they are written.

use super::*;

impl Registry {
    /// The components this crate ships, under the names settings.ini uses.
    pub fn builtin() -> Self {
        let mut r = Self::empty();
        builtin_threads(&mut r);
        builtin_ends(&mut r);
        builtin_schedulers(&mut r);
        r
    }
}

/// The application manager, data managers, thread components, URL filters and robots.txt
/// classes.
fn builtin_threads(r: &mut Registry) {
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
    r.register_renderer("ChromiumRenderer", |s| {
        Arc::new(crate::crawl::render::chromium::ChromiumRenderer::new(
            s.render.clone(),
        ))
    });
}

/// The finishers and the result unloaders.
fn builtin_ends(r: &mut Registry) {
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
            rendered: s.render.mode != crate::crawl::render::RenderMode::No,
            documents: s.sites.documents.enabled,
            text: s
                .sites
                .documents
                .page_text
                .then(|| crate::crawl::data::text_spool::TextSpool::folder_of(&s.state.folder)),
        })
    });
    r.register_unloader("TestRU", |_, _| Box::new(ResultCheck::default()));
    r.register_unloader("ReportRU", |s, i| {
        Box::new(crate::crawl::unload::Report::new(s, i.scopes_span_hosts))
    });
}

/// The baselines and the budget rules.
fn builtin_schedulers(r: &mut Registry) {
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
}

//! The registry's tests.

use super::*;
use crate::crawl::settings::RawSettings;

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
        let (taken, _) = crate::model::bandit::tests::run(p.as_mut(), &seqs, 30);
        assert_eq!(taken.iter().sum::<usize>(), 30, "{name}: {taken:?}");
        assert!(taken[2] <= 5, "{name}: an exhausted arm leaves");
    }
    // GuardedUcb follows the rules registered under the names it lists, built as they
    // are: the same choices and description as built by hand.
    let guarded = r.policy("GuardedUcb").expect("registered");
    let mut from_registry = guarded(&params);
    let mut by_hand = crate::model::bandit::guard::GuardedUcb::new(
        params.arms,
        params.planned_budget(),
        (params.window(), 5.0, 1.0),
        2,
        2,
    );
    assert_eq!(from_registry.parameters(), by_hand.parameters());
    assert!(from_registry.parameters().contains("WinsorUcb ("));
    assert_eq!(
        crate::model::bandit::tests::run(from_registry.as_mut(), &seqs, 30),
        crate::model::bandit::tests::run(&mut by_hand, &seqs, 30)
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

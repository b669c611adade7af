//! The dispatcher with a learning rule that reserves its picks, and the request room.

use super::*;
use crate::base::ids::{ScopeId, SiteId};
use crate::crawl::data::{DataManager, InMemoryDataManager, ScopeData};
use crate::crawl::schedule::RoundRobin;
use crate::crawl::schedule::{Candidate, Scheduler};
use crate::model::site::{Origin, SiteSpec};
use crate::model::sites::SiteEntry;
use crate::model::sites::{OtherScheme, Sites};
use std::time::{Duration, Instant};

fn spec(url: &str, max_downloads: u32) -> SiteSpec {
    let url = url::Url::parse(url).expect("a test URL");
    SiteSpec {
        origin: Origin::of(&url).expect("an origin"),
        max_downloads,
        max_level: 3,
        crawl_delay: Duration::ZERO,
        rules: Default::default(),
    }
}

/// Prefers site 0 while it has work and nothing reserved, else site 1; writes down what
/// the dispatcher tells it.
#[derive(Debug)]
struct PrefersA(Arc<parking_lot::Mutex<Vec<String>>>, bool);

impl Scheduler for PrefersA {
    fn choose(&mut self, candidates: &[Candidate], _now: Instant) -> Option<SiteId> {
        let a = candidates.iter().find(|c| c.site == SiteId(0));
        let pick = match a {
            Some(a) if (a.has_work || a.ready) && !self.1 => SiteId(0),
            _ => SiteId(1),
        };
        self.0.lock().push(format!("choose {}", pick.0));
        Some(pick)
    }
    fn started(&mut self, site: SiteId, _scope: ScopeId) {
        self.0.lock().push(format!("started {}", site.0));
    }
    fn reserve(&mut self, site: SiteId, _scope: ScopeId) {
        self.1 |= site == SiteId(0);
        self.0.lock().push(format!("reserve {}", site.0));
    }
    fn unreserve(&mut self, site: SiteId, _scope: ScopeId) {
        self.1 &= site != SiteId(0);
        self.0.lock().push(format!("unreserve {}", site.0));
    }
    fn max_unobserved(&self) -> Option<usize> {
        Some(4)
    }
}

type Log = Arc<parking_lot::Mutex<Vec<String>>>;

/// Sites a (a 300 ms delay) and b, a budget of 10 pages, a rule preferring a; both
/// robots.txt fetched, nothing else: a must wait, b may start.
fn a_waits_b_may_start() -> (Arc<Dispatcher>, Log) {
    let dm = Arc::new(InMemoryDataManager::new());
    let mut a = spec("http://a.test", 1);
    a.crawl_delay = Duration::from_millis(300);
    let specs = [a, spec("http://b.test", 1)];
    let sites = Sites::with_listed(specs.iter().map(|s| s.origin.clone()), OtherScheme::Ignore);
    let limits = crate::crawl::data::ScopeLimits {
        max_level: 3,
        max_urls: 0,
        max_pages: 0,
        traps: Default::default(),
        obey_nofollow: false,
    };
    let entries: Vec<Arc<SiteEntry>> = specs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let claim = crate::crawl::data::coord::ScopeClaim::solo(s.origin.clone());
            let (scope, _) = dm
                .open_scope(claim, SiteId(i as u32), limits)
                .expect("a scope");
            sites.add(s.clone(), scope)
        })
        .collect();
    let log = Arc::new(parking_lot::Mutex::new(Vec::new()));
    let config = DispatcherConfig {
        down_after: 3,
        page_buffer: 8,
        parsers: 1,
        budget: 10,
        shared_budget: false,
        unpaced: false,
    };
    let d = Dispatcher::new(
        dm,
        Box::new(PrefersA(Arc::clone(&log), false)),
        Arc::new(Stop::new()),
        config,
    );
    for e in &entries {
        d.add_site(e);
    }
    for want in [0, 1] {
        let robots = d.try_acquire().expect("robots.txt first");
        assert_eq!(robots.task().site, SiteId(want));
        assert_eq!(robots.task().url.as_url().path(), "/robots.txt");
    }
    for e in &entries {
        d.robots_done(e.id, Duration::ZERO);
    }
    log.lock().clear();
    (d, log)
}

/// See: a budgeted crawl of 500 slow sites fetched 2.3 pages a second, every downloader
/// waiting for the one site the rule picked. A learning rule's pick that must wait for
/// its delay is kept its page, the rule chooses again meanwhile, and the kept page is
/// handed out when its turn comes, without asking the rule again.
#[test]
fn a_pick_that_must_wait_is_reserved_and_served_when_its_turn_comes() {
    let (d, log) = a_waits_b_may_start();
    // a waits 300 ms after its robots.txt: kept its page; b's page goes now.
    let b = d.try_acquire().expect("b's page, not a wait for a");
    assert_eq!(b.task().site, SiteId(1));
    assert_eq!(
        *log.lock(),
        ["choose 0", "reserve 0", "choose 1", "started 1"]
    );
    assert_eq!(
        d.budget(),
        Some((0, 2, 10)),
        "a's kept page holds the budget"
    );
    log.lock().clear();
    // a's turn: its page, without a choice.
    let until = Instant::now() + Duration::from_secs(10);
    let a = loop {
        match d.try_acquire() {
            Ok(lease) => break lease,
            Err(_) if Instant::now() < until => std::thread::sleep(Duration::from_millis(20)),
            Err(at) => panic!("a's kept page never came (asked to wait until {at:?})"),
        }
    };
    assert_eq!(a.task().site, SiteId(0));
    assert_eq!(a.task().url.as_url().path(), "/");
    let log = log.lock();
    assert!(
        log.ends_with(&["unreserve 0".into(), "started 0".into()]),
        "{log:?}"
    );
}

/// A kept page its site can no longer start goes back: the budget's page, the rule's
/// count of pulls under way (SPEC §5: the budget counts pages fetched).
#[test]
fn a_reserved_page_goes_back_when_its_site_is_suspended() {
    let (d, log) = a_waits_b_may_start();
    let b = d.try_acquire().expect("b's page");
    assert_eq!(b.task().site, SiteId(1));
    assert_eq!(d.budget(), Some((0, 2, 10)));
    d.suspend(SiteId(0), Suspension::PageLimit);
    assert_eq!(d.budget(), Some((0, 1, 10)), "a's kept page is given back");
    assert_eq!(log.lock().last().map(String::as_str), Some("unreserve 0"));
    drop(b);
    assert_eq!(d.budget(), Some((0, 0, 10)));
}

#[test]
fn the_request_room_is_what_the_crawled_sites_allow_at_once() {
    let dm: Arc<dyn DataManager> = Arc::new(InMemoryDataManager::new());
    let config = DispatcherConfig {
        down_after: 3,
        page_buffer: 8,
        parsers: 1,
        budget: 0,
        shared_budget: false,
        unpaced: false,
    };
    let d = Dispatcher::new(
        dm,
        Box::new(RoundRobin::default()),
        Arc::new(Stop::new()),
        config,
    );
    let specs = [
        spec("http://a.test", 2),
        spec("http://b.test", 3),
        spec("http://c.test", 4),
    ];
    let sites = Sites::with_listed(specs.iter().map(|s| s.origin.clone()), OtherScheme::Ignore);
    let [a, b, c] = [0, 1, 2].map(|i| sites.add(specs[i].clone(), ScopeId(i as u32)));
    assert_eq!(d.request_room(), 0, "no site yet");
    for s in [&a, &b, &c] {
        d.add_site(s);
    }
    assert_eq!(d.request_room(), 9);
    d.suspend(b.id, Suspension::PageLimit);
    assert_eq!(d.request_room(), 6, "a suspended site allows none");
    assert_eq!(d.retire_scope(ScopeId(2)), vec![c.id]);
    assert_eq!(d.request_room(), 2, "nor a retired one");
}

//! One look for a task: the ready gates are surveyed, the scheduler picks among them, and the
//! pick's task is leased. A rule that learns ([`Scheduler::max_unobserved`]) may pick a site
//! that must wait for its turn: the site is kept that page (a reservation, served first once
//! its turn comes) and the rule chooses again, so the crawl goes on while the chosen site
//! waits for its delay — politeness decides when, the rule which, and neither holds up the
//! other sites.
//!
//! [`Scheduler::max_unobserved`]: crate::crawl::schedule::Scheduler::max_unobserved

use std::sync::Arc;
use std::time::Instant;

use super::gate::RobotsPhase;
use super::state::State;
use super::{Dispatcher, Pass};
use crate::base::ids::{SiteId, UrlId};
use crate::crawl::message::{FetchTask, TaskKind};
use crate::crawl::schedule::{Candidate, TaskLease};

/// What the survey of the active gates found (the candidates are left in `State`).
struct Survey {
    /// A site whose reserved page may start now (a suspended or retired site has none).
    due: Option<SiteId>,
    /// When a site may start a request, if none may now.
    earliest: Option<Instant>,
    /// The budget allows another page.
    pages_allowed: bool,
}

/// What the rule's choice comes to.
enum Pick {
    /// Lease a task of this site (`true`: a page reserved for it).
    Site(SiteId, bool),
    /// The pick waits for its turn and keeps a page; choose again.
    Reserved,
    /// Nothing to hand out now.
    Nothing(Pass),
}

/// Folds `at` into the earliest moment a site may start.
fn sooner(earliest: &mut Option<Instant>, at: Instant) {
    *earliest = Some(earliest.map_or(at, |e| e.min(at)));
}

impl State {
    /// Every active gate as the scheduler sees it.
    fn survey(&mut self, now: Instant) -> Survey {
        let mut earliest = self.scheduler.wake_at();
        let mut candidates = std::mem::take(&mut self.candidates);
        candidates.clear();
        let pages_allowed = self.budget.allows_another();
        let mut due = None;
        for gate in self.active.iter().map(|&i| &self.gates[i]) {
            if gate.reserved > 0 && gate.in_flight < gate.max_in_flight {
                if gate.next_start <= now {
                    due = due.or(Some(gate.site));
                } else {
                    sooner(&mut earliest, gate.next_start);
                }
            }
            if !gate.is_candidate() {
                continue;
            }
            let page_ok = pages_allowed || gate.robots == RobotsPhase::Needed;
            let work = gate.has_work() || gate.ready_parked(now).is_some();
            let slot = gate.in_flight < gate.max_in_flight && page_ok;
            let free = slot && work;
            let ready = free && gate.next_start <= now && gate.reserved == 0;
            if free && !ready {
                sooner(&mut earliest, gate.next_start);
            } else if slot && !work && gate.robots == RobotsPhase::Ready {
                // Only retries wait: wake when the first one's wait is over.
                if let Some(at) = gate.next_parked() {
                    sooner(&mut earliest, at.max(gate.next_start));
                }
            }
            candidates.push(Candidate {
                site: gate.site,
                ready,
                has_work: work && page_ok,
                scope: gate.scope,
            });
        }
        self.candidates = candidates;
        Survey {
            due,
            earliest,
            pages_allowed,
        }
    }

    /// The scheduler's choice among the candidates, or a due reservation.
    fn pick(&mut self, survey: &Survey, now: Instant, waits_for_rewards: bool) -> Pick {
        if let Some(site) = survey.due {
            return Pick::Site(site, true);
        }
        let none = |st: &State| {
            // Room to start a task, no site ready, and the parsers waiting for pages too:
            // the whole crawl waits on its sites, and the time counts towards growing the
            // window of active scopes. (With pages waiting for the parsers, the CPU is the
            // bound.)
            Pick::Nothing(Pass::NoneReady {
                earliest: survey.earliest,
                starved: st.parsers_idle(),
            })
        };
        if self.candidates.is_empty() || waits_for_rewards {
            return none(self);
        }
        let choice = self.scheduler.choose(&self.candidates, now);
        let pick = choice.and_then(|s| self.candidates.iter().find(|c| c.site == s).copied());
        let Some(pick) = pick.filter(|c| c.ready || c.has_work) else {
            return none(self);
        };
        if pick.ready {
            return Pick::Site(pick.site, false);
        }
        let gate = &self.gates[pick.site.0 as usize];
        // One page reserved a site at most: a second could not start before the first one's
        // delay, and the rule knows more by then.
        let may_reserve = self.scheduler.max_unobserved().is_some()
            && gate.robots == RobotsPhase::Ready
            && gate.reserved == 0
            && survey.pages_allowed;
        if !may_reserve {
            return none(self);
        }
        self.reserve(pick.site);
        Pick::Reserved
    }
}

impl Dispatcher {
    /// One look for a task (see the module docs).
    pub(super) fn pass(self: &Arc<Self>, st: &mut State) -> Pass {
        loop {
            if self.stop.is_requested() {
                return Pass::Stopping;
            }
            let waits_for_rewards = st.waits_for_rewards();
            if st.buffer_free == 0 || (waits_for_rewards && st.reservations == 0) {
                return Pass::Full;
            }
            let now = Instant::now();
            let survey = st.survey(now);
            let (site, reserved) = match st.pick(&survey, now, waits_for_rewards) {
                Pick::Site(site, reserved) => (site, reserved),
                Pick::Reserved => continue,
                Pick::Nothing(pass) => return pass,
            };
            let Some(task) = self.next_task(st, site, reserved, now) else {
                if reserved {
                    // Its frontier ran out: the rule will choose again.
                    st.drop_reservations(site);
                }
                continue;
            };
            return Pass::Lease(self.hand_out(st, task, reserved, now));
        }
    }

    /// The site's next task: its robots.txt first, then a retry whose wait is over, then a
    /// URL of its frontier (none: the site is out of work for now).
    fn next_task(
        &self,
        st: &mut State,
        site: SiteId,
        reserved: bool,
        now: Instant,
    ) -> Option<FetchTask> {
        let gate = &mut st.gates[site.0 as usize];
        if !reserved
            && gate.robots == RobotsPhase::Needed
            && let Some(url) = gate.robots_url.clone()
        {
            gate.robots = RobotsPhase::Fetching;
            return Some(FetchTask {
                scope: gate.scope,
                site,
                url_id: UrlId(u32::MAX),
                url,
                level: 0,
                kind: TaskKind::Robots,
            });
        }
        if let Some(i) = gate.ready_parked(now) {
            return Some(gate.parked.swap_remove(i).1);
        }
        let task = self.dm.take_task(gate.scope, site);
        if task.is_none() {
            gate.has_work = false;
        }
        task
    }

    /// Leases `task`: its site's slot and a place in the page buffer are taken, the budget and
    /// the rule count it; a wake-up is passed on when there may be more to hand out.
    fn hand_out(
        self: &Arc<Self>,
        st: &mut State,
        task: FetchTask,
        reserved: bool,
        now: Instant,
    ) -> TaskLease {
        let site = task.site;
        st.count_start(site, reserved, task.kind == TaskKind::Page);
        let gate = &mut st.gates[site.0 as usize];
        gate.started(now);
        let site_free = gate.free_now(now);
        let others_ready = st.candidates.iter().any(|c| c.ready && c.site != site);
        if st.buffer_free > 0 && (site_free || others_ready) {
            if st.waiting > 0 {
                // There may be more to hand out: pass the wake-up on.
                self.cv.notify_one();
            } else if st.parsers_idle() {
                // Every downloader is busy, a site could start now, and the parsers wait for
                // pages: another downloader might add requests.
                st.wanted += 1;
            }
        }
        TaskLease::new(Arc::clone(self), task)
    }
}

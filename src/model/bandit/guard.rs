//! `GuardedUcb`: `WinsorUcb` guarded by the paper's rules. It runs WinsorUcb, R2, R1 and R3
//! side by side, each on the pages the crawl has already fetched, and fetches the page the
//! rule that is ahead is waiting for.
//!
//! Why (`bench/yield_protocol.sh`, docs/budget.md "How good they are"): every rule loses somewhere.
//! WinsorUcb is far above the paper's rules where sites rot or pay in bursts (the
//! documentation split into sections), and below R2 (a ten-page look, then batches to the
//! best lifelong mean) where a site's yield holds for thousands of pages. Which case a crawl
//! is in shows in its own data, and — as a page of a site pays the same whichever rule
//! asked for it (a site is crawled in breadth-first order) — each rule can be followed
//! without fetching anything for it: a rule is replayed on the crawl's pages until it asks
//! for a page nobody fetched yet, and there it waits.
//!
//! - **Who is ahead.** The rules are compared on the pages each of them has been given, up
//!   to the length all have reached (L): the external links their pages L/2..L found. The
//!   second half only, as the first pages pay the same under every rule (each looks at
//!   every site first) and, where yields rot, what a rule found lately says more about its
//!   next pages than its start.
//! - **A rule ahead that stopped paying gives way.** The comparison settles early: the rule
//!   followed leaves some sites behind, the others soon wait for pages of those sites, and
//!   the length all rules reach stops growing (near a hundred pages). A rule ahead there is
//!   followed for the rest of the budget, and R2 can be ahead there for the wrong reason:
//!   sites whose first pages paid a burst and then rot, beside sites that pay nothing for
//!   hundreds of pages and then steadily (late starters, `bench/yield_late.py`). R2 keeps
//!   giving pages to the rotted sites and never looks again at a site whose first ten pages
//!   paid nothing: at N = 10,000 it got 0.14 of the oracle where R1 got 0.43. So when the
//!   latest pages of the rule ahead (as many as the comparison spans, at least one a site)
//!   paid nothing at all, while another rule's latest pages paid something, that rule is
//!   followed instead, until its own latest pages also stop paying; when no rule's latest
//!   pages paid, R1 is: with nothing to go on, every site its fair share in turn (the deserts
//!   of late starters are crossed that way). No parameter: "nothing at all" is where an
//!   empty stretch of a sparse site (most pages of most sites pay nothing) is no longer bad
//!   luck but the end of what that rule knows.
//! - **Whose page.** The page the rule that is ahead waits for; if that site is not offered
//!   now (busy, out of work) or its next page is already being fetched, the next rule's.
//!   When every rule waits that way, the leading rule chooses among the sites offered.
//! - **A site that is through** (offered no more, pulled before and nothing of it in
//!   flight) is skipped by every rule from then on, as a replay skips a finished sequence.
//!
//! Parameters: the four rules' own (BanditWindow, BanditPrior, BanditExploration for
//! WinsorUcb; R2Step; R3Initial; R1 takes the budget) and nothing else.

use std::cell::RefCell;
use std::sync::Arc;

use super::Policy;
use super::paper::{R1, R2, R3};
use super::winsor::WinsorUcb;

/// Where R1 is in the rules followed: the plan taken when no rule's latest pages paid.
const SPREAD: usize = 2;

/// The rules GuardedUcb follows, by their names in the registry, in its order: R1, the one
/// that spreads the pages evenly, at `SPREAD`.
pub const FOLLOWERS: [&str; 4] = ["WinsorUcb", "R2", "R1", "R3"];

/// `WinsorUcb` guarded by R2, R1 and R3 (see the module documentation).
#[derive(Debug)]
pub struct GuardedUcb {
    /// Marking sites through happens where the rule learns which sites are offered, in
    /// `select` (which takes `&self`): a site that is through changes no rule's choices,
    /// only when a rule stops waiting for it, so a rule restored from its pulls (`chosen` and
    /// `update`, without `select`) learns the same on its first `select` and goes on as the
    /// original.
    state: RefCell<State>,
    /// Pages the rules are replayed to at most.
    budget: usize,
}

#[derive(Debug)]
struct State {
    rules: Vec<Follower>,
    /// Every site's rewards, in the order its pages were fetched.
    seen: Seen,
    /// Pulls of each site chosen (its pages fetched or being fetched).
    pulled: Vec<usize>,
    /// Sites through: offered no more, with every pull chosen answered.
    through: Vec<bool>,
    /// Scratch: the sites offered to the current `select`.
    offered: Vec<bool>,
}

/// One rule replayed on the crawl's pages.
#[derive(Debug)]
struct Follower {
    rule: Box<dyn Policy>,
    /// Pages of each site it has been given.
    taken: Vec<usize>,
    /// Its total reward after each of its pages (`gained[0]` = 0).
    gained: Shared<f64>,
    /// The site whose next page it waits for (`None`: it has its budget, or nothing is left).
    waits_for: Option<usize>,
    /// The sites it may choose (`None`: to be made again): those not through, and those it
    /// has pages of left. Kept from page to page: made for every page, it was most of the
    /// work of following the rules over thousands of sites.
    open: Option<Vec<usize>>,
}

impl GuardedUcb {
    /// For `k` sites and a budget of `budget` pages: WinsorUcb with a window of `window`
    /// pages, `prior_pages` pages of pooling and exploration `exploration`; R2 in batches of
    /// `r2_step`; R3 after `r3_initial` pages of each site.
    pub fn new(
        k: usize,
        budget: usize,
        (window, prior_pages, exploration): (usize, f64, f64),
        r2_step: usize,
        r3_initial: usize,
    ) -> Self {
        Self::following(
            k,
            budget,
            vec![
                Box::new(WinsorUcb::new(k, window, prior_pages, exploration)),
                Box::new(R2::new(k, r2_step.max(1))),
                Box::new(R1::new(k, budget)),
                Box::new(R3::new(k, r3_initial.max(1))),
            ],
        )
    }

    /// For `k` sites and a budget of `budget` pages, following `rules`: the rules
    /// [`FOLLOWERS`] names, in its order (the registry builds them by those names, with the
    /// crawl's parameters).
    pub fn following(k: usize, budget: usize, rules: Vec<Box<dyn Policy>>) -> Self {
        debug_assert_eq!(rules.len(), FOLLOWERS.len());
        let mut state = State {
            rules: rules
                .into_iter()
                .map(|rule| Follower {
                    rule,
                    taken: vec![0; k],
                    gained: Shared::from(vec![0.0]),
                    waits_for: None,
                    open: None,
                })
                .collect(),
            seen: Seen::new(k),
            pulled: vec![0; k],
            through: vec![false; k],
            offered: vec![false; k],
        };
        state.advance(budget);
        GuardedUcb {
            state: RefCell::new(state),
            budget,
        }
    }
}

/// A list shared with the copies of the rule (`Policy::snapshot`) made while it does not
/// change: a copy keeps what it adds beside it. A budgeted crawl asks a copy for every choice
/// made while pages are under way, and copying every rule's history (as long as the budget)
/// each time was most of a choice's cost.
#[derive(Debug, Clone, Default)]
struct Shared<T> {
    shared: Arc<Vec<T>>,
    own: Vec<T>,
}

impl<T: Copy> From<Vec<T>> for Shared<T> {
    fn from(v: Vec<T>) -> Self {
        Shared {
            shared: Arc::new(v),
            own: Vec::new(),
        }
    }
}

impl<T: Copy> Shared<T> {
    fn len(&self) -> usize {
        self.shared.len() + self.own.len()
    }

    fn get(&self, i: usize) -> Option<T> {
        match self.shared.get(i) {
            Some(&v) => Some(v),
            None => self.own.get(i - self.shared.len()).copied(),
        }
    }

    /// Element `i`, which exists.
    fn at(&self, i: usize) -> T {
        match self.get(i) {
            Some(v) => v,
            None => panic!("index {i} of a list of {}", self.len()),
        }
    }

    fn last(&self) -> Option<T> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    fn push(&mut self, v: T) {
        match Arc::get_mut(&mut self.shared) {
            // No copy shares it (any more): what was kept beside it joins it.
            Some(shared) => {
                shared.append(&mut self.own);
                shared.push(v);
            }
            None => self.own.push(v),
        }
    }
}

/// Every site's rewards, shared with the rule's copies like [`Shared`]: a copy keeps the
/// pages it is told of beside them (a few sites').
#[derive(Debug, Clone, Default)]
struct Seen {
    shared: Arc<Vec<Vec<f64>>>,
    /// (site, rewards) added while `shared` was shared.
    own: Vec<(usize, Vec<f64>)>,
}

impl Seen {
    fn new(k: usize) -> Self {
        Seen {
            shared: Arc::new(vec![Vec::new(); k]),
            own: Vec::new(),
        }
    }

    fn sites(&self) -> usize {
        self.shared.len()
    }

    fn own(&self, site: usize) -> &[f64] {
        self.own
            .iter()
            .find(|(s, _)| *s == site)
            .map_or(&[], |(_, v)| v.as_slice())
    }

    /// Pages of `site` seen.
    fn len(&self, site: usize) -> usize {
        self.shared[site].len() + self.own(site).len()
    }

    /// The reward of page `i` of `site`, if seen.
    fn get(&self, site: usize, i: usize) -> Option<f64> {
        let base = &self.shared[site];
        match base.get(i) {
            Some(&r) => Some(r),
            None => self.own(site).get(i - base.len()).copied(),
        }
    }

    fn push(&mut self, site: usize, reward: f64) {
        if let Some(shared) = Arc::get_mut(&mut self.shared) {
            // No copy shares it (any more): what was kept beside it joins it.
            for (s, mut rewards) in self.own.drain(..) {
                shared[s].append(&mut rewards);
            }
            shared[site].push(reward);
            return;
        }
        match self.own.iter_mut().find(|(s, _)| *s == site) {
            Some((_, v)) => v.push(reward),
            None => self.own.push((site, vec![reward])),
        }
    }

    fn grow(&mut self, k: usize) {
        if self.shared.len() < k {
            Arc::make_mut(&mut self.shared).resize(k, Vec::new());
        }
    }
}

impl State {
    /// Pulls chosen of `arm` whose reward has not come yet.
    fn in_flight(&self, arm: usize) -> usize {
        self.pulled[arm].saturating_sub(self.seen.len(arm))
    }

    /// The sites through changed, or how many there are: every rule's open sites are made
    /// again.
    fn forget_open(&mut self) {
        for f in &mut self.rules {
            f.open = None;
        }
    }

    /// Replays every rule on the pages fetched until it waits for one not fetched yet.
    fn advance(&mut self, budget: usize) {
        let State {
            rules,
            seen,
            through,
            ..
        } = self;
        for f in rules.iter_mut() {
            loop {
                if f.gained.len() > budget {
                    f.waits_for = None;
                    break;
                }
                if let Some(w) = f.waits_for
                    && f.taken[w] >= seen.len(w)
                    && !through[w]
                {
                    // Still waiting: nothing it could learn has changed.
                    break;
                }
                let open = f.open.get_or_insert_with(|| {
                    (0..seen.sites())
                        .filter(|&a| f.taken[a] < seen.len(a) || !through[a])
                        .collect()
                });
                if open.is_empty() {
                    f.waits_for = None;
                    break;
                }
                let a = f.rule.select(open);
                let Some(r) = seen.get(a, f.taken[a]) else {
                    f.waits_for = Some(a);
                    break;
                };
                f.taken[a] += 1;
                if through[a]
                    && f.taken[a] >= seen.len(a)
                    && let Ok(at) = open.binary_search(&a)
                {
                    open.remove(at);
                }
                f.rule.chosen(a);
                f.rule.update(a, r);
                let total = f.gained.last().unwrap_or(0.0) + r;
                f.gained.push(total);
                f.waits_for = None;
            }
        }
    }

    /// The rules, the one ahead first (ties: the order they are listed in); a rule ahead
    /// whose own latest pages paid nothing gives way (see the module documentation).
    fn ranking(&self) -> Vec<usize> {
        let common = self
            .rules
            .iter()
            .map(|f| f.gained.len() - 1)
            .min()
            .unwrap_or(0);
        let lately = |f: &Follower| f.gained.at(common) - f.gained.at(common / 2);
        let mut order: Vec<usize> = (0..self.rules.len()).collect();
        order.sort_by(|&a, &b| {
            lately(&self.rules[b])
                .total_cmp(&lately(&self.rules[a]))
                .then(a.cmp(&b))
        });
        // The same length of pages, each rule's own latest ones.
        let window = (common / 2).max(self.seen.sites());
        let latest = |f: &Follower| {
            let len = f.gained.len() - 1;
            f.gained.at(len) - f.gained.at(len.saturating_sub(window))
        };
        // A stretch that paid nothing needs that many pages: at the start, before any rule
        // has them, nothing is known and the comparison's order stands.
        let ahead = &self.rules[order[0]];
        if ahead.gained.len() > window && latest(ahead) <= 0.0 {
            let paying = (1..order.len())
                .filter(|&i| latest(&self.rules[order[i]]) > 0.0)
                .max_by(|&a, &b| {
                    latest(&self.rules[order[a]])
                        .total_cmp(&latest(&self.rules[order[b]]))
                        .then(b.cmp(&a))
                });
            // Nobody's latest pages paid: R1's plan, every site its fair share in turn.
            let next = paying.or_else(|| order.iter().position(|&r| r == SPREAD));
            if let Some(i) = next {
                let rule = order.remove(i);
                order.insert(0, rule);
            }
        }
        order
    }
}

impl Policy for GuardedUcb {
    fn select(&self, arms: &[usize]) -> usize {
        let mut st = self.state.borrow_mut();
        let k = st.seen.sites();
        st.offered.clear();
        st.offered.resize(k, false);
        for &a in arms {
            if let Some(o) = st.offered.get_mut(a) {
                *o = true;
            }
        }
        let mut newly_through = false;
        for a in 0..k {
            if !st.offered[a] && !st.through[a] && st.pulled[a] > 0 && st.in_flight(a) == 0 {
                st.through[a] = true;
                newly_through = true;
            }
        }
        if newly_through {
            st.forget_open();
            st.advance(self.budget);
        }
        let order = st.ranking();
        // The rule ahead decides, as it would alone: its site again while a page of it is
        // still being fetched. With several downloaders choices run ahead of rewards; handing
        // the choice to the next rule's wish then (R1's round robin, early on) or to the
        // sites with nothing in flight made the guard split a budget evenly on a busy machine
        // (tests/budget.rs, 4 downloaders: 2 runs in 15 under load).
        let ahead = order[0];
        if let Some(w) = st.rules[ahead].waits_for
            && st.offered.get(w).copied().unwrap_or(false)
        {
            return w;
        }
        // Its site is not offered now (busy, out of work): another rule's wish that is, then
        // the rule ahead among the sites offered.
        for &i in &order[1..] {
            if let Some(w) = st.rules[i].waits_for
                && st.offered.get(w).copied().unwrap_or(false)
                && st.in_flight(w) == 0
            {
                return w;
            }
        }
        st.rules[ahead].rule.select(arms)
    }

    fn chosen(&mut self, arm: usize) {
        self.grow(arm + 1);
        self.state.get_mut().pulled[arm] += 1;
    }

    fn unchosen(&mut self, arm: usize) {
        if let Some(n) = self.state.get_mut().pulled.get_mut(arm) {
            *n = n.saturating_sub(1);
        }
    }

    fn update(&mut self, arm: usize, reward: f64) {
        self.grow(arm + 1);
        let budget = self.budget;
        let st = self.state.get_mut();
        st.seen.push(arm, reward);
        if st.through[arm] {
            // A site through has a page again (a page of it came back after all).
            st.forget_open();
        }
        st.advance(budget);
    }

    fn grow(&mut self, arms: usize) {
        let st = self.state.get_mut();
        if st.seen.sites() >= arms {
            return;
        }
        st.seen.grow(arms);
        st.pulled.resize(arms, 0);
        st.through.resize(arms, false);
        st.forget_open();
        for f in &mut st.rules {
            f.rule.grow(arms);
            f.taken.resize(arms, 0);
            // A rule that had nothing left to choose may choose a new site.
            f.waits_for = None;
        }
        let budget = self.budget;
        st.advance(budget);
    }

    fn snapshot(&self) -> Option<Box<dyn Policy>> {
        let st = self.state.borrow();
        let mut rules = Vec::with_capacity(st.rules.len());
        for f in &st.rules {
            rules.push(Follower {
                rule: f.rule.snapshot()?,
                taken: f.taken.clone(),
                gained: f.gained.clone(),
                waits_for: f.waits_for,
                open: f.open.clone(),
            });
        }
        Some(Box::new(GuardedUcb {
            state: RefCell::new(State {
                rules,
                seen: st.seen.clone(),
                pulled: st.pulled.clone(),
                through: st.through.clone(),
                offered: Vec::new(),
            }),
            budget: self.budget,
        }))
    }

    fn snapshot_over(&self, into: &mut dyn Policy) -> bool {
        let Some(copy) = into
            .as_any_mut()
            .and_then(|a| a.downcast_mut::<GuardedUcb>())
        else {
            return false;
        };
        let st = self.state.borrow();
        let to = copy.state.get_mut();
        if to.rules.len() != st.rules.len() {
            return false;
        }
        for (t, f) in to.rules.iter_mut().zip(&st.rules) {
            if !f.rule.snapshot_over(&mut *t.rule) {
                match f.rule.snapshot() {
                    Some(rule) => t.rule = rule,
                    None => return false,
                }
            }
            t.taken.clone_from(&f.taken);
            t.gained.clone_from(&f.gained);
            t.waits_for = f.waits_for;
            t.open.clone_from(&f.open);
        }
        to.seen.clone_from(&st.seen);
        to.pulled.clone_from(&st.pulled);
        to.through.clone_from(&st.through);
        copy.budget = self.budget;
        true
    }

    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        Some(self)
    }

    fn release(&mut self) {
        // The histories a copy shares with the rule: the rule appends in place only while
        // nothing shares them.
        let st = self.state.get_mut();
        st.seen.shared = Arc::default();
        for f in &mut st.rules {
            f.gained.shared = Arc::default();
        }
    }

    fn parameters(&self) -> String {
        let st = self.state.borrow();
        let parts: Vec<String> = st
            .rules
            .iter()
            .zip(FOLLOWERS)
            .map(|(f, n)| {
                let p = f.rule.parameters();
                if p.is_empty() {
                    n.to_owned()
                } else {
                    format!("{n} ({p})")
                }
            })
            .collect();
        format!(
            "follows whichever of {} found the most over the second half of the pages all were given, unless its latest pages found nothing and another's did (none did: R1)",
            parts.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::run;
    use super::*;

    fn guarded(k: usize, budget: usize) -> GuardedUcb {
        GuardedUcb::new(k, budget, ((budget / k).max(2), 5.0, 0.3), 10, 10)
    }

    #[test]
    fn it_follows_r2_where_r2_is_ahead_and_winsor_where_winsor_is() {
        // Steady sites (R2's case): site 0 pays 3 a page for ever, the others 1.
        let mut steady = vec![vec![3.0; 2000]];
        steady.extend(vec![vec![1.0; 2000]; 9]);
        let budget = 1000;
        let (_, g) = run(&mut guarded(10, budget), &steady, budget);
        let (_, r2) = run(&mut R2::new(10, 10), &steady, budget);
        assert!(g >= r2 - 0.01 * r2, "guarded {g} vs R2 {r2}");
        // A burst that R2 holds on to (the documentation's case): site 0's first page pays
        // 3,000 and then 1 a page; the others pay 4 a page.
        let mut burst = vec![3000.0];
        burst.extend(vec![1.0; 2000]);
        let mut seqs = vec![burst];
        seqs.extend(vec![vec![4.0; 2000]; 3]);
        let budget = 400;
        let (_, g) = run(&mut guarded(4, budget), &seqs, budget);
        let (_, r2) = run(&mut R2::new(4, 10), &seqs, budget);
        let (_, w) = run(&mut WinsorUcb::new(4, 100, 5.0, 0.3), &seqs, budget);
        assert!(g > r2, "guarded {g} vs R2 {r2}");
        assert!(g >= w - 0.01 * w, "guarded {g} vs WinsorUcb {w}");
    }

    #[test]
    fn a_rule_ahead_whose_pages_stopped_paying_gives_way() {
        // Two sites pay a burst and then rot; two pay nothing for 300 pages, then one link a
        // page. R2 is ahead on the first pages and never looks at a late starter again.
        let early = |_| {
            let mut s = vec![100.0];
            s.extend((1..3000).map(|j| if j < 20 { 5.0 } else { 0.0 }));
            s
        };
        let late = |_| {
            let mut s = vec![0.0; 300];
            s.extend(vec![1.0; 2700]);
            s
        };
        let seqs: Vec<Vec<f64>> = vec![early(0), late(1), early(2), late(3)];
        let budget = 2000;
        let (_, g) = run(&mut guarded(4, budget), &seqs, budget);
        let (_, r1) = run(&mut R1::new(4, budget), &seqs, budget);
        let (_, r2) = run(&mut R2::new(4, 10), &seqs, budget);
        assert_eq!(r2, 390.0, "R2 stays with the rotted sites");
        assert!(g >= r1, "guarded {g} vs R1 {r1}");
    }

    #[test]
    fn a_site_that_is_through_does_not_hold_a_rule() {
        // Site 0 has 3 pages; every rule looks at every site first and so waits for its 4th,
        // until the rule sees site 0 is no longer offered (then none waits for it).
        let seqs = vec![vec![5.0; 3], vec![1.0; 500], vec![2.0; 500]];
        let mut g = guarded(3, 300);
        let (taken, _) = run(&mut g, &seqs, 300);
        assert_eq!(taken.iter().sum::<usize>(), 300);
        assert_eq!(taken[0], 3);
        let st = g.state.borrow();
        assert!(st.through[0] && !st.through[1]);
        for f in &st.rules {
            assert_ne!(f.waits_for, Some(0), "{}", f.rule.parameters());
        }
    }

    /// A page retried (503, a timeout) was chosen, given back and chosen again; counted as
    /// two pulls with one reward, its site was never through, and the rules that waited for
    /// its next page waited for ever: the guard chose differently from then on than a replay
    /// of the same pages, and than the same crawl continued from its recorded pulls.
    #[test]
    fn a_pull_given_back_is_not_counted() {
        let seqs = [vec![5.0; 3], vec![1.0; 500], vec![2.0; 500]];
        // The choices of 300 pulls; with `retry`, the first pull of site 0 is given back
        // (its page failed once) and chosen again.
        let crawl = |retry: bool| {
            let mut g = guarded(3, 300);
            let (mut choices, mut taken, mut retried) = (Vec::new(), [0; 3], !retry);
            while choices.len() < 300 {
                let arms: Vec<usize> = (0..3).filter(|&i| taken[i] < seqs[i].len()).collect();
                let a = g.select(&arms);
                g.chosen(a);
                if a == 0 && !retried {
                    retried = true;
                    g.unchosen(a);
                    continue;
                }
                choices.push(a);
                g.update(a, seqs[a][taken[a]]);
                taken[a] += 1;
            }
            (choices, g)
        };
        let (plain, _) = crawl(false);
        let (choices, g) = crawl(true);
        assert_eq!(choices, plain);
        let st = g.state.borrow();
        assert!(
            st.through[0],
            "site 0 is through: none of its pulls is in flight"
        );
        for f in &st.rules {
            assert_ne!(f.waits_for, Some(0), "{}", f.rule.parameters());
        }
    }

    /// A copy shares the rule's histories (`Shared`, `Seen`): what the copy is told must
    /// stay in the copy, and the rule must go on as one that never had a copy.
    #[test]
    fn a_copy_told_of_pages_leaves_the_rule_as_it_was() {
        let seqs: Vec<Vec<f64>> = (0..5)
            .map(|s| (0..200).map(|i| ((s * 5 + i * 7) % 9) as f64).collect())
            .collect();
        let arms: Vec<usize> = (0..5).collect();
        let (mut rule, mut alone) = (guarded(5, 300), guarded(5, 300));
        let mut taken = [0usize; 5];
        // A copy is kept for a few of the rule's pages now and then: the rule's own pages
        // wait beside what it shares, and join it once the copy is gone.
        let mut held = None;
        for step in 0..250 {
            let a = rule.select(&arms);
            assert_eq!(alone.select(&arms), a, "step {step}");
            if step % 10 == 0 {
                let Some(mut copy) = rule.snapshot() else {
                    panic!("GuardedUcb has copies");
                };
                for b in [a, (a + 1) % 5, a] {
                    copy.chosen(b);
                    copy.update(b, 100.0);
                }
                let _ = copy.select(&arms);
                held = Some(copy);
            }
            if step % 10 == 4 {
                drop(held.take());
            }
            for p in [&mut rule, &mut alone] {
                p.chosen(a);
                p.update(a, seqs[a][taken[a]]);
            }
            taken[a] += 1;
        }
    }

    #[test]
    fn a_rule_restored_from_its_pulls_chooses_as_the_original() {
        let seqs: Vec<Vec<f64>> = (0..6)
            .map(|s| (0..300).map(|i| ((s * 7 + i * 3) % 11) as f64).collect())
            .collect();
        let mut original = guarded(6, 600);
        let mut pulls = Vec::new();
        let mut taken = [0usize; 6];
        let arms: Vec<usize> = (0..6).collect();
        for _ in 0..250 {
            let a = original.select(&arms);
            original.chosen(a);
            let r = seqs[a][taken[a]];
            taken[a] += 1;
            original.update(a, r);
            pulls.push((a, r));
        }
        let mut restored = guarded(6, 600);
        for &(a, r) in &pulls {
            restored.chosen(a);
            restored.update(a, r);
        }
        for _ in 0..200 {
            let a = original.select(&arms);
            assert_eq!(restored.select(&arms), a);
            for p in [&mut original, &mut restored] {
                p.chosen(a);
                p.update(a, seqs[a][taken[a]]);
            }
            taken[a] += 1;
        }
    }

    #[test]
    fn while_its_page_is_in_flight_the_rule_ahead_still_decides() {
        // Site 1 pays, the others do not: once WinsorUcb is ahead on site 1, a choice made
        // while a page of site 1 is being fetched is site 1 again, as WinsorUcb alone would
        // choose — not another rule's wish or whichever site has nothing in flight.
        let seqs = [vec![0.0; 300], vec![4.0; 300], vec![0.0; 300]];
        let mut g = guarded(3, 300);
        let arms = [0, 1, 2];
        let mut taken = [0usize; 3];
        for _ in 0..60 {
            let a = g.select(&arms);
            g.chosen(a);
            g.update(a, seqs[a][taken[a]]);
            taken[a] += 1;
        }
        let next = g.select(&arms);
        assert_eq!(next, 1, "taken so far {taken:?}");
        g.chosen(next);
        assert_eq!(g.select(&arms), 1, "with a page of site 1 in flight");
    }
}

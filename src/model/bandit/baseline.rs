//! The schedulers that do not learn, as replay runs them (the live crawl's are
//! `schedule::{RoundRobin, Sequential, TimeQuantum}`): `AllSites` (round robin),
//! `Sequential` (one site after another) and `TimeQuantum` (each site in turn for a slice —
//! counted in pages here, since a replay has no clock: a quarter of a fair share, N/(4K)).

use super::Policy;

/// Round robin: the next site after the last one chosen.
#[derive(Debug, Clone, Default)]
pub struct RoundRobinPolicy {
    last: Option<usize>,
}

impl Policy for RoundRobinPolicy {
    fn snapshot(&self) -> Option<Box<dyn Policy>> {
        Some(Box::new(self.clone()))
    }

    fn select(&self, arms: &[usize]) -> usize {
        match self.last {
            Some(last) => *arms.iter().find(|&&a| a > last).unwrap_or(&arms[0]),
            None => arms[0],
        }
    }

    fn chosen(&mut self, arm: usize) {
        self.last = Some(arm);
    }

    fn update(&mut self, _arm: usize, _reward: f64) {}

    fn grow(&mut self, _arms: usize) {}
}

/// The first site until it runs out, then the next.
#[derive(Debug, Clone, Copy, Default)]
pub struct SequentialPolicy;

impl Policy for SequentialPolicy {
    fn snapshot(&self) -> Option<Box<dyn Policy>> {
        Some(Box::new(*self))
    }

    fn select(&self, arms: &[usize]) -> usize {
        arms[0]
    }

    fn update(&mut self, _arm: usize, _reward: f64) {}

    fn grow(&mut self, _arms: usize) {}
}

/// Each site in turn for `quantum` pages.
#[derive(Debug, Clone)]
pub struct PageQuantum {
    quantum: usize,
    current: Option<(usize, usize)>,
}

impl PageQuantum {
    /// Slices of `quantum` pages.
    pub fn new(quantum: usize) -> Self {
        PageQuantum {
            quantum: quantum.max(1),
            current: None,
        }
    }
}

impl Policy for PageQuantum {
    fn snapshot(&self) -> Option<Box<dyn Policy>> {
        Some(Box::new(self.clone()))
    }

    fn select(&self, arms: &[usize]) -> usize {
        if let Some((site, left)) = self.current
            && left > 0
            && arms.contains(&site)
        {
            return site;
        }
        let after = self.current.map(|(s, _)| s);
        *arms
            .iter()
            .find(|&&a| after.is_none_or(|s| a > s))
            .unwrap_or(&arms[0])
    }

    fn chosen(&mut self, arm: usize) {
        let continues = self
            .current
            .is_some_and(|(site, left)| site == arm && left > 0);
        if !continues {
            self.current = Some((arm, self.quantum));
        }
    }

    fn grow(&mut self, _arms: usize) {}

    fn update(&mut self, arm: usize, _reward: f64) {
        if let Some((site, left)) = &mut self.current
            && *site == arm
        {
            *left = left.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::run;
    use super::*;

    #[test]
    fn baselines_split_as_they_say() {
        let seqs = vec![vec![1.0; 10], vec![0.0; 10], vec![0.0; 2]];
        assert_eq!(
            run(&mut RoundRobinPolicy::default(), &seqs, 9).0,
            vec![4, 3, 2]
        );
        assert_eq!(run(&mut SequentialPolicy, &seqs, 12).0, vec![10, 2, 0]);
        assert_eq!(run(&mut PageQuantum::new(3), &seqs, 11).0, vec![6, 3, 2]);
    }
}

//! Windowed Thompson sampling, Gamma–Poisson: each site's rate is drawn from
//! Gamma(1 + links, 1 + pages) over its last `window` pages, and the largest draw wins.
//!
//! Seeded and stateless in its randomness: every draw is a function of (seed, pull number,
//! site), so the same seed gives the same choices, and a continued crawl that replays its
//! recorded pulls makes the same draws as an uninterrupted one.

use std::collections::VecDeque;

use super::{Policy, argmax};

/// Windowed Gamma–Poisson Thompson sampling.
#[derive(Debug, Clone)]
pub struct Thompson {
    window: usize,
    seed: u64,
    recent: Vec<VecDeque<f64>>,
    total: u64,
}

impl Thompson {
    /// For `k` sites, a window of `window` pages and a seed.
    pub fn new(k: usize, window: usize, seed: u64) -> Self {
        Thompson {
            window: window.max(1),
            seed,
            recent: vec![VecDeque::new(); k],
            total: 0,
        }
    }
}

impl Policy for Thompson {
    fn snapshot(&self) -> Option<Box<dyn Policy>> {
        Some(Box::new(self.clone()))
    }

    fn parameters(&self) -> String {
        format!("window {} pages, seed {}", self.window, self.seed)
    }

    fn select(&self, arms: &[usize]) -> usize {
        let (seed, total) = (self.seed, self.total);
        argmax(arms, |a| {
            let recent = &self.recent[a];
            let links: f64 = recent.iter().sum();
            let mut rng = SplitMix(mix(seed, total, a as u64));
            gamma(&mut rng, 1.0 + links) / (1.0 + recent.len() as f64)
        })
    }

    fn grow(&mut self, arms: usize) {
        if self.recent.len() < arms {
            self.recent.resize(arms, VecDeque::new());
        }
    }

    fn update(&mut self, arm: usize, reward: f64) {
        let recent = &mut self.recent[arm];
        recent.push_back(reward);
        if recent.len() > self.window {
            recent.pop_front();
        }
        self.total += 1;
    }
}

/// One 64-bit value from three (a seed, a pull number, a site).
fn mix(seed: u64, t: u64, arm: u64) -> u64 {
    let mut s = SplitMix(seed ^ t.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let a = s.next();
    SplitMix(a ^ arm.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)).next()
}

/// SplitMix64 (Steele, Lea & Flood 2014): a small, well-mixed generator.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in (0, 1).
    fn uniform(&mut self) -> f64 {
        ((self.next() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Standard normal (Box–Muller).
    fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

/// A Gamma(shape, 1) draw, shape ≥ 1 (Marsaglia & Tsang 2000).
fn gamma(rng: &mut SplitMix, shape: f64) -> f64 {
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    for _ in 0..64 {
        let x = rng.normal();
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u = rng.uniform();
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
    // Practically unreachable: the acceptance rate is above 95%.
    shape
}

#[cfg(test)]
mod tests {
    use super::super::tests::run;
    use super::*;

    #[test]
    fn same_seed_same_choices_and_the_draws_have_the_right_mean() {
        let seqs = vec![[0.0, 3.0, 0.0, 1.0].repeat(20), vec![1.0; 80]];
        let a = run(&mut Thompson::new(2, 10, 42), &seqs, 100);
        let b = run(&mut Thompson::new(2, 10, 42), &seqs, 100);
        assert_eq!(a, b);
        let mut rng = SplitMix(1);
        let n = 20_000;
        let mean: f64 = (0..n).map(|_| gamma(&mut rng, 5.0)).sum::<f64>() / n as f64;
        assert!((mean - 5.0).abs() < 0.1, "{mean}");
    }
}

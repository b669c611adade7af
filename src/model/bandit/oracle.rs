//! The exact oracle: the best total a budget of N pages can collect, when each site's pages
//! must be taken in their breadth-first order — max over t₁ + … + t_K ≤ N of Σ prefixᵢ(tᵢ).
//!
//! Prefix sums are not concave (a link list deep in a site), so no greedy split is exact. A
//! dynamic programme over sites is: `f[b]` is the best total with b pages over the sites so
//! far. Rewards are never negative, so only prefixes that end on a positive reward need be
//! tried (a page that pays nothing is never worth ending on), which keeps it fast on the
//! mostly-zero sequences of real sites.

/// The best total of `budget` pages over `seqs` (each site's rewards in order), and how many
/// pages of each site reach it.
pub fn oracle(seqs: &[Vec<f64>], budget: usize) -> (f64, Vec<usize>) {
    // best[b] for the sites seen so far; take[i][b]: pages of site i in that best.
    let mut best = vec![0.0f64; budget + 1];
    let mut take: Vec<Vec<u32>> = Vec::with_capacity(seqs.len());
    for seq in seqs {
        // Candidate prefix lengths: 0 and every position after a positive reward.
        let mut prefix = 0.0;
        let mut cands: Vec<(usize, f64)> = vec![(0, 0.0)];
        for (j, &r) in seq.iter().enumerate() {
            prefix += r;
            if r > 0.0 && j < budget {
                cands.push((j + 1, prefix));
            }
        }
        let mut next = vec![0.0f64; budget + 1];
        let mut chosen = vec![0u32; budget + 1];
        for b in 0..=budget {
            let mut top = f64::NEG_INFINITY;
            let mut arg = 0;
            for &(t, gain) in &cands {
                if t > b {
                    break;
                }
                let v = best[b - t] + gain;
                if v > top {
                    top = v;
                    arg = t;
                }
            }
            next[b] = top;
            chosen[b] = arg as u32;
        }
        best = next;
        take.push(chosen);
    }
    // Walk back from the full budget.
    let mut pages = vec![0usize; seqs.len()];
    let mut b = budget;
    for i in (0..seqs.len()).rev() {
        let t = take[i][b] as usize;
        pages[i] = t;
        b -= t;
    }
    (best[budget], pages)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every split, tried.
    fn brute(seqs: &[Vec<f64>], budget: usize) -> f64 {
        fn go(seqs: &[Vec<f64>], left: usize) -> f64 {
            let Some((first, rest)) = seqs.split_first() else {
                return 0.0;
            };
            (0..=left.min(first.len()))
                .map(|t| first[..t].iter().sum::<f64>() + go(rest, left - t))
                .fold(f64::NEG_INFINITY, f64::max)
        }
        go(seqs, budget)
    }

    #[test]
    fn equals_brute_force_on_small_random_instances() {
        let mut state = 0x1234_5678_u64;
        let mut next = move |m: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % m
        };
        for _ in 0..300 {
            let k = 1 + next(4) as usize;
            let seqs: Vec<Vec<f64>> = (0..k)
                .map(|_| {
                    let len = next(7) as usize;
                    (0..len)
                        .map(|_| if next(3) == 0 { next(9) as f64 } else { 0.0 })
                        .collect()
                })
                .collect();
            let budget = next(12) as usize;
            let (total, pages) = oracle(&seqs, budget);
            assert!(
                (total - brute(&seqs, budget)).abs() < 1e-9,
                "{seqs:?} {budget}"
            );
            assert!(pages.iter().sum::<usize>() <= budget);
            let got: f64 = pages
                .iter()
                .zip(&seqs)
                .map(|(&t, s)| s[..t].iter().sum::<f64>())
                .sum();
            assert!((got - total).abs() < 1e-9, "the split reaches the total");
        }
    }

    #[test]
    fn a_deep_link_list_is_worth_reaching() {
        // Site 0: nothing for 4 pages, then 100. Site 1: 1 per page. Budget 5.
        let seqs = vec![vec![0.0, 0.0, 0.0, 0.0, 100.0], vec![1.0; 10]];
        assert_eq!(oracle(&seqs, 5), (100.0, vec![5, 0]));
        assert_eq!(oracle(&seqs, 7).0, 102.0);
    }
}

//! PageRank as Screaming Frog's Link Score and Common Crawl's host ranks use it: damping
//! 0.85, each page's rank shared among its arcs in proportion to their weights (the links of
//! the arc), a page without arcs (dangling) sharing its rank among all pages, iterated until
//! the ranks change by less than 1e-10 in L1 norm.

use super::Csr;

/// The damping factor.
pub(crate) const DAMPING: f64 = 0.85;

/// Iteration stops once the L1 change is below this.
pub(crate) const TOLERANCE: f64 = 1e-10;

/// At most this many iterations (0.85^200 ≈ 1e-14: reached only if rounding keeps the change
/// above the tolerance).
const MAX_ITERATIONS: usize = 200;

/// Each node's PageRank; they sum to 1 (empty for an empty graph).
pub(crate) fn pagerank(g: &Csr) -> Vec<f64> {
    let n = g.len();
    if n == 0 {
        return Vec::new();
    }
    let nf = n as f64;
    // Each node's total arc weight: its rank is shared in proportion to each arc's.
    let out: Vec<f64> = (0..n)
        .map(|i| g.row(i).1.iter().map(|&w| f64::from(w)).sum())
        .collect();
    let mut rank = vec![1.0 / nf; n];
    let mut next = vec![0.0; n];
    for _ in 0..MAX_ITERATIONS {
        let dangling: f64 = (0..n).filter(|&i| out[i] == 0.0).map(|i| rank[i]).sum();
        let base = (1.0 - DAMPING) / nf + DAMPING * dangling / nf;
        next.iter_mut().for_each(|x| *x = base);
        for i in 0..n {
            if out[i] == 0.0 {
                continue;
            }
            let share = DAMPING * rank[i] / out[i];
            let (targets, weights) = g.row(i);
            for (&t, &w) in targets.iter().zip(weights) {
                next[t as usize] += share * f64::from(w);
            }
        }
        let change: f64 = rank.iter().zip(&next).map(|(a, b)| (a - b).abs()).sum();
        std::mem::swap(&mut rank, &mut next);
        if change < TOLERANCE {
            break;
        }
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The textbook computation: the Google matrix written out whole, multiplied until it
    /// settles. (petgraph 0.8's `page_rank` is not this chain: a page that links another gives
    /// it no teleport share, and the ranks are renormalised each round; on a 4-node graph it
    /// differs from this one by 0.005.)
    fn dense(n: usize, arcs: &[(usize, usize, u32)]) -> Vec<f64> {
        let nf = n as f64;
        let mut m = vec![vec![0.0; n]; n];
        let mut out = vec![0.0; n];
        for &(s, _, w) in arcs {
            out[s] += f64::from(w);
        }
        for &(s, t, w) in arcs {
            m[t][s] += DAMPING * f64::from(w) / out[s];
        }
        for s in 0..n {
            for row in m.iter_mut() {
                row[s] += if out[s] == 0.0 { DAMPING / nf } else { 0.0 } + (1.0 - DAMPING) / nf;
            }
        }
        let mut x = vec![1.0 / nf; n];
        for _ in 0..1000 {
            x = (0..n)
                .map(|t| (0..n).map(|s| m[t][s] * x[s]).sum())
                .collect();
        }
        x
    }

    fn csr(n: usize, arcs: &[(usize, usize, u32)]) -> Csr {
        Csr::build(n, |i, row| {
            row.extend(arcs.iter().filter(|a| a.0 == i).map(|a| (a.1 as u32, a.2)))
        })
    }

    #[test]
    fn weighted_ranks_with_dangling_pages_match_the_google_matrix() {
        // 0 ⇄ 1 (weight 3 one way), 1 → 2, 2 → 0, 3 dangling, 4 → 3, a self-loop on 2.
        let arcs = [
            (0, 1, 3),
            (1, 0, 1),
            (1, 2, 1),
            (2, 0, 1),
            (2, 2, 2),
            (4, 3, 1),
        ];
        let got = pagerank(&csr(5, &arcs));
        let want = dense(5, &arcs);
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() < 1e-9, "{got:?} vs {want:?}");
        }
        assert!((got.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn an_empty_graph_has_no_ranks() {
        assert!(pagerank(&Csr::build(0, |_, _| {})).is_empty());
    }
}

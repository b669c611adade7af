//! PageRank and harmonic centrality computed the textbook way, independently of the crawler's
//! own code, to check what it writes (SPEC §17).

/// The Google matrix (damping 0.85, arcs `(source, target, weight)` 0-based, by weight, dangling
/// pages to every page), multiplied until it settles.
pub fn pagerank(n: usize, arcs: &[(usize, usize, f64)]) -> Vec<f64> {
    let d = 0.85;
    let nf = n as f64;
    let mut out = vec![0.0; n];
    for &(s, _, w) in arcs {
        out[s] += w;
    }
    let mut m = vec![vec![(1.0 - d) / nf; n]; n];
    for (s, &o) in out.iter().enumerate() {
        if o == 0.0 {
            for row in m.iter_mut() {
                row[s] += d / nf;
            }
        }
    }
    for &(s, t, w) in arcs {
        m[t][s] += d * w / out[s];
    }
    let mut x = vec![1.0 / nf; n];
    for _ in 0..400 {
        x = m
            .iter()
            .map(|row| row.iter().zip(&x).map(|(a, b)| a * b).sum())
            .collect();
    }
    x
}

/// Each page's sum of one over its distance from every other page.
pub fn harmonic(n: usize, arcs: &[(usize, usize, f64)]) -> Vec<f64> {
    let mut out = vec![Vec::new(); n];
    for &(s, t, _) in arcs {
        out[s].push(t);
    }
    let mut h = vec![0.0; n];
    for s in 0..n {
        let mut dist = vec![usize::MAX; n];
        dist[s] = 0;
        let mut queue = std::collections::VecDeque::from([s]);
        while let Some(u) = queue.pop_front() {
            for &t in &out[u] {
                if dist[t] == usize::MAX {
                    dist[t] = dist[u] + 1;
                    h[t] += 1.0 / dist[t] as f64;
                    queue.push_back(t);
                }
            }
        }
    }
    h
}

/// Each written `(PageRank, Harmonic)` equals the computed one to 1e-9; the ranks sum to 1.
pub fn assert_close(values: &[(f64, f64)], pr: &[f64], hc: &[f64]) {
    assert_eq!(values.len(), pr.len());
    for (i, &(p, h)) in values.iter().enumerate() {
        assert!(
            (p - pr[i]).abs() < 1e-9,
            "node {}: PageRank {p} vs {}",
            i + 1,
            pr[i]
        );
        assert!(
            (h - hc[i]).abs() < 1e-9,
            "node {}: Harmonic {h} vs {}",
            i + 1,
            hc[i]
        );
    }
    assert!((values.iter().map(|v| v.0).sum::<f64>() - 1.0).abs() < 1e-9);
}

//! The report's numbers that are not graph properties: ranks, Spearman's ρ, ranges and
//! logarithmic bins.

/// Ranks of `xs` (1-based), ties given the mean of the ranks they span, as Spearman's
/// coefficient needs.
pub(crate) fn ranks(xs: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..xs.len()).collect();
    order.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
    let mut out = vec![0.0; xs.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && xs[order[j + 1]] == xs[order[i]] {
            j += 1;
        }
        // Ranks i+1 ..= j+1 shared.
        let mean = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            out[k] = mean;
        }
        i = j + 1;
    }
    out
}

/// Spearman's rank correlation: Pearson's coefficient of the ranks (right with ties, where
/// the 1 − 6Σd²/(n(n²−1)) shortcut is not). `None` under 3 pairs or when one side is
/// constant: no correlation is defined then, and a report should say so rather than print 0.
pub(crate) fn spearman(xs: &[f64], ys: &[f64]) -> Option<f64> {
    if xs.len() != ys.len() || xs.len() < 3 {
        return None;
    }
    pearson(&ranks(xs), &ranks(ys))
}

fn pearson(xs: &[f64], ys: &[f64]) -> Option<f64> {
    let n = xs.len() as f64;
    let mx = xs.iter().sum::<f64>() / n;
    let my = ys.iter().sum::<f64>() / n;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (x, y) in xs.iter().zip(ys) {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// Smallest and largest of `xs`, `None` when empty.
pub(crate) fn range(xs: impl IntoIterator<Item = u64>) -> Option<(u64, u64)> {
    xs.into_iter().fold(None, |r, x| match r {
        None => Some((x, x)),
        Some((lo, hi)) => Some((lo.min(x), hi.max(x))),
    })
}

/// A degree distribution for a log-log plot: `(degree, pages)` for each degree above 0
/// that some page has. Degrees are exact up to 100 and binned by powers of 10^(1/10) above
/// (each bin plotted at its geometric middle with its mean count per degree), so a site of
/// a million pages still draws a few dozen marks.
pub(crate) fn log_binned(counts: &std::collections::BTreeMap<u64, u64>) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    let mut bin: Option<(i64, u64, u64)> = None; // (bin index, pages, lowest degree)
    let flush = |bin: Option<(i64, u64, u64)>, out: &mut Vec<(f64, f64)>| {
        if let Some((b, pages, _)) = bin {
            let lo = 10f64.powf(b as f64 / 10.0).ceil();
            let hi = 10f64.powf((b + 1) as f64 / 10.0).ceil();
            let width = (hi - lo).max(1.0);
            out.push(((lo * (hi - 1.0).max(lo)).sqrt(), pages as f64 / width));
        }
    };
    for (&d, &pages) in counts {
        if d == 0 || pages == 0 {
            continue;
        }
        if d <= 100 {
            out.push((d as f64, pages as f64));
            continue;
        }
        let b = ((d as f64).log10() * 10.0).floor() as i64;
        match &mut bin {
            Some((cur, p, _)) if *cur == b => *p += pages,
            _ => {
                flush(bin.take(), &mut out);
                bin = Some((b, pages, d));
            }
        }
    }
    flush(bin, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_share_ties() {
        assert_eq!(ranks(&[10.0, 20.0, 20.0, 5.0]), vec![2.0, 3.5, 3.5, 1.0]);
    }

    #[test]
    fn spearman_of_known_data() {
        // Monotone, whatever the shape: 1; reversed: −1.
        let x = [1.0, 2.0, 3.0, 4.0, 5.0];
        let y = [1.0, 8.0, 27.0, 64.0, 1000.0];
        assert!((spearman(&x, &y).unwrap() - 1.0).abs() < 1e-12);
        let r: Vec<f64> = y.iter().rev().copied().collect();
        assert!((spearman(&x, &r).unwrap() + 1.0).abs() < 1e-12);
        // A textbook case (d² sum 4 over n = 5, no ties): 1 − 6·4/(5·24) = 0.8.
        let a = [1.0, 2.0, 3.0, 4.0, 5.0];
        let b = [2.0, 1.0, 4.0, 3.0, 5.0];
        assert!((spearman(&a, &b).unwrap() - 0.8).abs() < 1e-12);
        // With ties: Pearson of the mid-ranks [1, 2.5, 2.5, 4] and [1, 2, 3, 4].
        let t = spearman(&[1.0, 2.0, 2.0, 3.0], &[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert!((t - 0.9486832980505138).abs() < 1e-12, "{t}");
        // Undefined: too few pairs, or a constant side.
        assert_eq!(spearman(&[1.0, 2.0], &[1.0, 2.0]), None);
        assert_eq!(spearman(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]), None);
    }

    #[test]
    fn ranges() {
        assert_eq!(range([5, 2, 9]), Some((2, 9)));
        assert_eq!(range([]), None);
    }

    #[test]
    fn degrees_above_100_are_binned_and_keep_their_pages() {
        let mut c = std::collections::BTreeMap::new();
        c.insert(0, 7); // not on a log axis
        c.insert(1, 50);
        c.insert(100, 3);
        for d in 1000..1100 {
            c.insert(d, 1);
        }
        let p = log_binned(&c);
        assert_eq!(p[0], (1.0, 50.0));
        assert_eq!(p[1], (100.0, 3.0));
        // 1000..1100 fall in bins [1000, 1259) (log10 3.0..3.1): one mark, mean per degree.
        assert_eq!(p.len(), 3);
        assert!(p[2].0 > 1000.0 && p[2].0 < 1259.0);
        assert!((p[2].1 - 100.0 / 259.0).abs() < 1e-9, "{:?}", p[2]);
    }
}

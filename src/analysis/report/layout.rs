//! A force-directed layout (Fruchterman & Reingold, 1991) for the network drawn at the top
//! of the report: linked sites pull together, all sites push apart, and the moves cool down
//! over a fixed number of rounds. Deterministic — the same network is drawn the same way —
//! and O(n²) a round, for the few hundred sites the drawing shows.

/// Rounds of moves.
const ROUNDS: usize = 250;

/// How strongly every node is pulled to the middle.
const GRAVITY: f64 = 0.04;

/// Positions in `[0, width] × [0, height]` of `n` nodes joined by `edges` (index pairs).
pub(super) fn layout(
    n: usize,
    edges: &[(usize, usize)],
    width: f64,
    height: f64,
) -> Vec<(f64, f64)> {
    if n == 0 {
        return Vec::new();
    }
    let (cx, cy) = (width / 2.0, height / 2.0);
    // A sunflower spiral: spread out, and no two nodes at one place.
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    let spread = width.min(height) * 0.45;
    let mut pos: Vec<(f64, f64)> = (0..n)
        .map(|i| {
            let r = spread * ((i as f64 + 0.5) / n as f64).sqrt();
            let a = golden * i as f64;
            (cx + r * a.cos(), cy + r * a.sin())
        })
        .collect();
    let k = (width * height / n as f64).sqrt();
    let mut shift = vec![(0.0f64, 0.0f64); n];
    for round in 0..ROUNDS {
        let temperature = width / 10.0 * (1.0 - round as f64 / ROUNDS as f64) + 0.5;
        shift.iter_mut().for_each(|s| *s = (0.0, 0.0));
        for i in 0..n {
            for j in i + 1..n {
                let (dx, dy) = (pos[i].0 - pos[j].0, pos[i].1 - pos[j].1);
                let d2 = (dx * dx + dy * dy).max(0.01);
                let f = k * k / d2;
                shift[i].0 += dx * f;
                shift[i].1 += dy * f;
                shift[j].0 -= dx * f;
                shift[j].1 -= dy * f;
            }
        }
        for &(a, b) in edges {
            if a == b || a >= n || b >= n {
                continue;
            }
            let (dx, dy) = (pos[a].0 - pos[b].0, pos[a].1 - pos[b].1);
            let d = (dx * dx + dy * dy).sqrt().max(0.1);
            let f = d / k;
            shift[a].0 -= dx * f;
            shift[a].1 -= dy * f;
            shift[b].0 += dx * f;
            shift[b].1 += dy * f;
        }
        for i in 0..n {
            // A pull to the middle, growing with the distance (ForceAtlas2's "gravity"):
            // parts that link to nothing else on the page stay near, and the drawing is not
            // one dense knot inside a ring of loners.
            let (gx, gy) = (cx - pos[i].0, cy - pos[i].1);
            let gd = (gx * gx + gy * gy).sqrt().max(1e-9);
            let pull = GRAVITY * k * (gd / spread).min(4.0);
            shift[i].0 += gx / gd * pull * k;
            shift[i].1 += gy / gd * pull * k;
            let (sx, sy) = shift[i];
            let len = (sx * sx + sy * sy).sqrt().max(1e-9);
            let step = len.min(temperature);
            pos[i].0 += sx / len * step;
            pos[i].1 += sy / len * step;
        }
    }
    fit(&mut pos, width, height);
    pos
}

/// Scales and moves `pos` to fill `[m, width − m] × [m, height − m]` (a margin for labels).
fn fit(pos: &mut [(f64, f64)], width: f64, height: f64) {
    let margin = 24.0;
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for &(x, y) in pos.iter() {
        x0 = x0.min(x);
        y0 = y0.min(y);
        x1 = x1.max(x);
        y1 = y1.max(y);
    }
    let sx = (width - 2.0 * margin) / (x1 - x0).max(1e-9);
    let sy = (height - 2.0 * margin) / (y1 - y0).max(1e-9);
    let s = sx.min(sy);
    let (ox, oy) = (
        (width - (x1 - x0) * s) / 2.0,
        (height - (y1 - y0) * s) / 2.0,
    );
    for p in pos.iter_mut() {
        *p = (ox + (p.0 - x0) * s, oy + (p.1 - y0) * s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dist(a: (f64, f64), b: (f64, f64)) -> f64 {
        ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
    }

    #[test]
    fn linked_nodes_end_closer_than_unlinked_ones_and_inside_the_box() {
        // Two stars of 8 leaves, their hubs not linked.
        let mut edges = Vec::new();
        for leaf in 2..10 {
            edges.push((0, leaf));
        }
        for leaf in 10..18 {
            edges.push((1, leaf));
        }
        let p = layout(18, &edges, 900.0, 600.0);
        assert_eq!(p.len(), 18);
        assert!(
            p.iter()
                .all(|&(x, y)| (0.0..=900.0).contains(&x) && (0.0..=600.0).contains(&y))
        );
        // Every leaf is nearer its own hub than the other star's.
        for l in 2..18 {
            let (own, other) = if l < 10 { (0, 1) } else { (1, 0) };
            assert!(
                dist(p[l], p[own]) < dist(p[l], p[other]),
                "leaf {l}: {:?} own hub {:?} other {:?}",
                p[l],
                p[own],
                p[other]
            );
        }
        assert_eq!(p, layout(18, &edges, 900.0, 600.0), "deterministic");
        assert_eq!(layout(1, &[], 100.0, 100.0).len(), 1);
        assert!(layout(0, &[], 100.0, 100.0).is_empty());
    }
}

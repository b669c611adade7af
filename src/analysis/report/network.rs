//! The report's first section: the network of sites (SPEC §13) as the crawl wrote it in
//! `results/network/` — drawn (a force-directed layout of the targets and the accompanying
//! sites most targets link to; sizes by links, colours by set and subset, every name on hover
//! and the largest written; the drawing pans and zooms), the subsets, the 20 accompanying
//! sites linked by most targets, and the targets' links to each other as a matrix.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::html::{Cell, escape, group, table};
use super::layout::layout;
use crate::analysis::network::{Network, NodeRow, Set};

/// Sites drawn at most: the targets linking and linked most, up to [`DRAWN_TARGETS`], then
/// the accompanying sites most targets link to.
const DRAWN: usize = 250;
/// Targets drawn at most (the others leave room for the sites they link to).
const DRAWN_TARGETS: usize = 120;
/// Targets in the matrix at most.
const MATRIX: usize = 60;
/// Names written on the drawing (the others on hover).
const NAMED: usize = 16;
/// Accompanying sites listed.
const LISTED: usize = 20;

const WIDTH: f64 = 1000.0;
const HEIGHT: f64 = 640.0;

/// Colours: targets, then each subset from the weakest link to the strongest.
const TARGET_COLOUR: &str = "#1f5fa8";
const SUBSET_COLOURS: [&str; 6] = [
    "#fdd49e", "#fdbb84", "#fc8d59", "#ef6548", "#d7301f", "#990000",
];

fn colour(net: &Network, n: &NodeRow) -> &'static str {
    match n.set {
        Set::Target => TARGET_COLOUR,
        Set::Accompanying => {
            let class = net.subsets.iter().position(|s| s.name == n.subset);
            let k = SUBSET_COLOURS.len() - 1;
            // Spread the classes over the palette, the last class the darkest.
            class.map_or(SUBSET_COLOURS[0], |c| {
                let steps = net.subsets.len().max(2) - 1;
                SUBSET_COLOURS[(c * k / steps).min(k)]
            })
        }
    }
}

/// What a node's size shows: a target's sites linked, an accompanying site's targets.
fn weight(n: &NodeRow) -> u64 {
    match n.set {
        Set::Target => u64::from(n.out_targets) + u64::from(n.inbound.targets),
        Set::Accompanying => u64::from(n.inbound.targets),
    }
}

/// The sites the section shows (drawn, or in the matrix): the report reads the arcs between
/// these only.
pub(super) fn shown(net: &Network) -> Vec<bool> {
    let mut flags = vec![false; net.nodes.len()];
    for n in candidates(net) {
        flags[n] = true;
    }
    for f in flags.iter_mut().take(net.targets.min(MATRIX)) {
        *f = true;
    }
    flags
}

/// The sites that may be drawn: the targets linking and linked most (up to
/// [`DRAWN_TARGETS`]), then the accompanying sites most targets link to, [`DRAWN`] in all.
fn candidates(net: &Network) -> Vec<usize> {
    let mut targets: Vec<usize> = (0..net.targets).collect();
    if targets.len() > DRAWN_TARGETS {
        // The most connected, then in hosts.txt order.
        targets.sort_by(|&a, &b| weight(&net.nodes[b]).cmp(&weight(&net.nodes[a])));
        targets.truncate(DRAWN_TARGETS);
        targets.sort_unstable();
    }
    targets
        .into_iter()
        .chain(net.targets..net.nodes.len())
        .take(DRAWN)
        .collect()
}

/// Writes the section into `b`.
pub(super) fn section(b: &mut String, net: &Network) {
    let accompanying = net.nodes.len() - net.targets;
    let _ = write!(
        b,
        "<h2 id=\"network\">Network of sites</h2><p>{} target sites (hosts.txt) link to {} \
         accompanying sites; {} arcs, {} links (<code>network/</code>: \
         <a href=\"network/nodes.csv\">nodes.csv</a>, <a href=\"network/edges.csv\">edges.csv</a>, \
         <a href=\"network/subsets.csv\">subsets.csv</a>, \
         <a href=\"network/graph.gexf\">graph.gexf</a>).</p>",
        group(net.targets as u64),
        group(accompanying as u64),
        group(net.arcs),
        group(net.links),
    );
    if net.nodes.is_empty() {
        return;
    }
    drawing(b, net);
    let rows: Vec<Vec<Cell>> = net
        .subsets
        .iter()
        .map(|s| {
            vec![
                Cell::Text(s.name.clone()),
                Cell::int(s.sites),
                Cell::int(s.links),
            ]
        })
        .collect();
    b.push_str("<h3>The accompanying set by the targets linking to a site</h3>");
    b.push_str(&table(
        "network-subsets",
        &["targets linking", "sites", "links"],
        &rows,
        false,
    ));
    // Names without a dot (an intranet's host, a broken link's) after the public sites.
    let rows: Vec<Vec<Cell>> = net
        .ranked_accompanying()
        .take(LISTED)
        .map(|(_, n)| {
            let flag = if crate::analysis::network::is_public_name(&n.label) {
                ""
            } else {
                " (no dot: not a public site)"
            };
            vec![
                Cell::Text(format!("{}{flag}", n.label)),
                Cell::int(u64::from(n.inbound.targets)),
                Cell::int(n.inbound.links),
                Cell::int(n.inbound.pages),
            ]
        })
        .collect();
    let _ = write!(
        b,
        "<h3>The {} accompanying sites most targets link to</h3>",
        rows.len()
    );
    b.push_str(&table(
        "network-prospects",
        &["site", "targets", "links", "pages linking"],
        &rows,
        true,
    ));
    matrix(b, net);
}

/// The sites drawn: the candidates with an arc to another candidate (a site with none would
/// only float at the edge), or every candidate when no two are linked.
fn drawn(net: &Network) -> Vec<usize> {
    let candidates = candidates(net);
    let chosen: std::collections::HashSet<usize> = candidates.iter().copied().collect();
    let mut linked = std::collections::HashSet::new();
    for e in &net.edges {
        let (s, t) = (e.source as usize - 1, e.target as usize - 1);
        if s != t && chosen.contains(&s) && chosen.contains(&t) {
            linked.insert(s);
            linked.insert(t);
        }
    }
    if linked.is_empty() {
        return candidates;
    }
    candidates
        .into_iter()
        .filter(|n| linked.contains(n))
        .collect()
}

/// A drawn site's radius.
fn radius(n: &NodeRow) -> f64 {
    2.5 + 1.2 * (weight(n) as f64).sqrt().min(8.0)
}

/// The drawn sites (indexes into `shown`, at `pos`) whose names are written: the largest,
/// where their names do not cover each other's (the others are named on hover).
fn named(net: &Network, shown: &[usize], pos: &[(f64, f64)]) -> std::collections::HashSet<usize> {
    let mut by_size: Vec<usize> = (0..shown.len()).collect();
    by_size.sort_by(|&x, &y| weight(&net.nodes[shown[y]]).cmp(&weight(&net.nodes[shown[x]])));
    let mut placed: Vec<(f64, f64, f64, f64)> = Vec::new();
    let mut named = std::collections::HashSet::new();
    for i in by_size {
        if named.len() == NAMED {
            break;
        }
        let node = &net.nodes[shown[i]];
        let (x, y) = pos[i];
        let chars = short(&node.label).chars().count() as f64;
        let rect = (x + radius(node) + 2.0, y - 8.0, 6.2 * chars, 12.0);
        let overlaps = |o: &(f64, f64, f64, f64)| {
            rect.0 < o.0 + o.2
                && o.0 < rect.0 + rect.2
                && rect.1 < o.1 + o.3
                && o.1 < rect.1 + rect.3
        };
        if !placed.iter().any(overlaps) {
            placed.push(rect);
            named.insert(i);
        }
    }
    named
}

/// The drawing: the targets and the accompanying sites most targets link to, laid out by
/// their arcs.
fn drawing(b: &mut String, net: &Network) {
    let shown = drawn(net);
    let index: HashMap<usize, usize> = shown.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let edges: Vec<(usize, usize, u64)> = net
        .edges
        .iter()
        .filter_map(|e| {
            let at = |id: u32| index.get(&(id as usize - 1)).copied();
            Some((at(e.source)?, at(e.target)?, u64::from(e.weight)))
        })
        .collect();
    let pairs: Vec<(usize, usize)> = edges.iter().map(|&(a, c, _)| (a, c)).collect();
    let pos = layout(shown.len(), &pairs, WIDTH, HEIGHT);
    let _ = write!(
        b,
        "<figure class=\"plot\"><svg id=\"network-drawing\" class=\"pannable\" \
         xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" width=\"{WIDTH}\" \
         height=\"{HEIGHT}\" role=\"img\" aria-label=\"the network of sites\">\
         <rect width=\"100%\" height=\"100%\" fill=\"#fbfbfb\"/><g class=\"view\">"
    );
    let most = edges.iter().map(|e| e.2).max().unwrap_or(1) as f64;
    for &(a, c, w) in &edges {
        let (x1, y1) = pos[a];
        let (x2, y2) = pos[c];
        let width = 0.4 + 2.0 * (w as f64).ln_1p() / most.ln_1p().max(1.0);
        let _ = write!(
            b,
            "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke=\"#8a8a8a\" \
             stroke-opacity=\"0.45\" stroke-width=\"{width:.2}\"/>"
        );
    }
    let named = named(net, &shown, &pos);
    let mut labels = String::new();
    for (i, &n) in shown.iter().enumerate() {
        let node = &net.nodes[n];
        let (x, y) = pos[i];
        let title = match node.set {
            Set::Target => format!(
                "{} (target): links to {} sites, linked by {} targets, {} pages",
                node.label, node.out_targets, node.inbound.targets, node.pages
            ),
            Set::Accompanying => format!(
                "{} (accompanying, {}): linked by {} targets, {} links",
                node.label, node.subset, node.inbound.targets, node.inbound.links
            ),
        };
        let _ = write!(
            b,
            "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{:.1}\" fill=\"{}\" stroke=\"#fff\" \
             stroke-width=\"0.8\"><title>{}</title></circle>",
            radius(node),
            colour(net, node),
            escape(&title)
        );
        if named.contains(&i) {
            // Written after every circle, so no circle covers a name.
            let _ = write!(
                labels,
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"#222\" \
                 paint-order=\"stroke\" stroke=\"#fbfbfb\" stroke-width=\"3\">{}</text>",
                x + radius(node) + 2.0,
                y + 4.0,
                escape(&short(&node.label))
            );
        }
    }
    b.push_str(&labels);
    b.push_str("</g></svg>");
    legend(b, net, net.nodes.len() - shown.len());
}

/// The drawing's caption: the colours, what the sizes show, how to move it, what is left out.
fn legend(b: &mut String, net: &Network, hidden: usize) {
    b.push_str("<figcaption>");
    let _ = write!(b, "<span style=\"color:{TARGET_COLOUR}\">●</span> targets");
    for s in &net.subsets {
        let probe = NodeRow {
            label: String::new(),
            set: Set::Accompanying,
            subset: s.name.clone(),
            inbound: Default::default(),
            out_targets: 0,
            out_links: 0,
            pages: 0,
            hosts: String::new(),
        };
        let noun = if s.name == "1" { "target" } else { "targets" };
        let _ = write!(
            b,
            " · <span style=\"color:{}\">●</span> linked by {} {noun}",
            colour(net, &probe),
            escape(&s.name)
        );
    }
    let _ = write!(
        b,
        ". Sizes: the sites a target links to and the targets linking to a site. Drag to move, \
         the mouse wheel zooms; names on hover{}.</figcaption></figure>",
        if hidden > 0 {
            format!(
                "; {} sites are left out: those linked by fewest targets, and those with no arc \
                 to a site drawn (network/ has them all)",
                group(hidden as u64)
            )
        } else {
            String::new()
        }
    );
}

/// A URL's host, or the label as it is.
fn short(label: &str) -> String {
    url::Url::parse(label)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_else(|| label.to_owned())
}

/// The targets' links to each other, as a heat map (the first [`MATRIX`] targets).
fn matrix(b: &mut String, net: &Network) {
    let n = net.targets.min(MATRIX);
    if n < 2 {
        return;
    }
    let mut cells: std::collections::BTreeMap<(usize, usize), u64> = Default::default();
    for e in &net.edges {
        let (s, t) = (e.source as usize, e.target as usize);
        if s <= n && t <= n {
            cells.insert((s - 1, t - 1), u64::from(e.weight));
        }
    }
    if cells.keys().all(|(s, t)| s == t) {
        // An empty matrix says nothing a reader can see (issue 68).
        b.push_str(
            "<h3>Targets linking targets</h3><p class=\"note\" id=\"network-matrix-none\">No \
             target links another.</p>",
        );
        return;
    }
    let most = cells.values().copied().max().unwrap_or(0);
    let _ = write!(
        b,
        "<h3>Targets linking targets</h3><p class=\"note\">Row: the linking site; column: the \
         site linked; darker: more links (hover for the figures){}.</p>",
        if net.targets > n {
            format!("; the first {n} of {} targets", net.targets)
        } else {
            String::new()
        }
    );
    let cell = 14.0;
    let label_w = 170.0;
    let size = label_w + cell * n as f64 + 4.0;
    // Room on the right for the last column names, which lean over it.
    let _ = write!(
        b,
        "<svg id=\"network-matrix\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0}\" \
         height=\"{size:.0}\" role=\"img\" aria-label=\"targets linking targets\">",
        size + 80.0
    );
    for i in 0..n {
        let name = escape(&short(&net.nodes[i].label));
        let y = label_w + cell * i as f64;
        let _ = write!(
            b,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"end\">{name}</text>\
             <text transform=\"translate({:.1},{:.1}) rotate(-60)\" font-size=\"10\">{name}</text>",
            label_w - 4.0,
            y + cell - 3.0,
            label_w + cell * i as f64 + cell - 3.0,
            label_w - 4.0
        );
    }
    for ((s, t), w) in &cells {
        let strength = (*w as f64).ln_1p() / (most as f64).ln_1p().max(1e-9);
        let _ = write!(
            b,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{cell}\" height=\"{cell}\" fill=\"#1f5fa8\" \
             fill-opacity=\"{:.2}\"><title>{} → {}: {} links</title></rect>",
            label_w + cell * *t as f64,
            label_w + cell * *s as f64,
            0.15 + 0.85 * strength,
            escape(&net.nodes[*s].label),
            escape(&net.nodes[*t].label),
            w
        );
    }
    b.push_str("</svg>");
}

//! `GraphFormat = bvgraph` (SPEC §17): each site graph also in WebGraph's BVGraph format,
//! read back here with the `webgraph` crate (as the WebGraph tools read it) and compared arc
//! by arc, weight by weight, with edges.csv; the other files are the same as without it.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::webgen::{self, WebSpec};
use dsi_bitstream::traits::BE;
use lender::Lender;
use webgraph::prelude::*;

#[test]
fn the_bvgraph_copy_holds_the_arcs_and_weights_of_edges_csv() {
    let web = common::TestWeb::new();
    webgen::install(
        &web,
        WebSpec {
            host: "a.test",
            pages: 300,
            seed: 7,
            delay: Duration::ZERO,
            slow: Vec::new(),
        },
    );
    // d.test answers its home page with a 404: a graph of no node.
    let hosts = [web.origin("a.test"), web.origin("d.test")];
    let with = common::crawl(&hosts, &[("GraphFormat", "bvgraph")]);
    let without = common::crawl(&hosts, &[]);
    let folder = format!("a.test_{}", web.port());
    let dir = with.results().join(&folder);
    assert_eq!(
        common::result_bytes(&dir),
        common::result_bytes(&without.results().join(&folder))
    );
    assert!(!without.results().join(&folder).join("graph.graph").exists());
    // edges.csv: (source, target) → weight, ids from 1.
    let (_, edges) = common::read_csv(&dir.join("edges.csv"));
    let want: BTreeMap<(usize, usize), u32> = edges
        .iter()
        .map(|r| {
            (
                (r[0].parse().unwrap(), r[1].parse().unwrap()),
                r[3].parse().unwrap(),
            )
        })
        .collect();
    let (_, nodes) = common::read_csv(&dir.join("nodes.csv"));
    assert!(
        want.len() > 300,
        "a graph worth compressing: {} arcs",
        want.len()
    );
    let graph = BvGraphSeq::with_basename(dir.join("graph"))
        .endianness::<BE>()
        .load()
        .unwrap();
    assert_eq!(graph.num_nodes(), nodes.len());
    let weights: Vec<u32> = std::fs::read_to_string(dir.join("graph.weights"))
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    let mut got = BTreeMap::new();
    let mut order = Vec::new();
    let mut iter = graph.iter();
    while let Some((node, successors)) = iter.next() {
        for s in successors {
            order.push((node + 1, s + 1));
        }
    }
    assert_eq!(order.len(), weights.len());
    for (arc, w) in order.iter().zip(&weights) {
        got.insert(*arc, *w);
    }
    assert_eq!(got, want);
    // BVGraph's order: by source, then target.
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted);
    let properties = std::fs::read_to_string(dir.join("graph.properties")).unwrap();
    assert!(
        properties.contains("graphclass=it.unimi.dsi.webgraph.BVGraph"),
        "{properties}"
    );
    assert!(properties.contains("endianness=big"), "{properties}");
    assert!(
        properties.contains(&format!("\narcs={}\n", want.len())),
        "{properties}"
    );
}

/// The graph of a site without a page is an empty BVGraph, not a failure.
#[test]
fn an_unreachable_site_has_an_empty_bvgraph() {
    let web = common::TestWeb::new();
    let c = common::crawl(&[web.origin("d.test")], &[("GraphFormat", "bvgraph")]);
    let dir = c.results().join(format!("d.test_{}", web.port()));
    let properties = std::fs::read_to_string(dir.join("graph.properties")).unwrap();
    assert!(properties.contains("\nnodes=0\n"), "{properties}");
    assert!(properties.contains("\narcs=0\n"), "{properties}");
    assert_eq!(
        std::fs::read_to_string(dir.join("graph.weights")).unwrap(),
        ""
    );
}

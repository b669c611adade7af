//! PageRank and harmonic centrality in nodes.csv and graph.gexf (SPEC §17), checked against
//! an independent computation from the crawl's own edges.csv: the Google matrix written out
//! whole and multiplied until it settles, and a breadth-first search from every page. On the
//! bundled demo site and on a generated site with repeated links (weights), pages without
//! links (dangling) and pages no link reaches back.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::path::Path;

use rccrawler::base::loopback::Resp;

/// Node `Id`s, 0-based, with each one's (PageRank, Harmonic) as written; and the arcs.
type Read = (Vec<(f64, f64)>, Vec<(usize, usize, f64)>);

fn read(folder: &Path) -> Read {
    let (header, nodes) = common::read_csv(&folder.join("nodes.csv"));
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (pr, hc) = (col("PageRank"), col("Harmonic"));
    let gexf = std::fs::read_to_string(folder.join("graph.gexf")).unwrap();
    let mut values = Vec::new();
    for (i, row) in nodes.iter().enumerate() {
        assert_eq!(row[0], (i + 1).to_string());
        // graph.gexf carries the same values, typed.
        let node = gexf
            .lines()
            .find(|l| l.contains(&format!(r#"<node id="{}""#, i + 1)))
            .unwrap();
        for (id, v) in [("pagerank", &row[pr]), ("harmonic", &row[hc])] {
            assert!(
                node.contains(&format!(r#"<attvalue for="{id}" value="{v}"/>"#)),
                "{id} {v}: {node}"
            );
        }
        values.push((row[pr].parse().unwrap(), row[hc].parse().unwrap()));
    }
    assert!(gexf.contains(r#"<attribute id="pagerank" title="PageRank" type="double"/>"#));
    let (_, edges) = common::read_csv(&folder.join("edges.csv"));
    let arcs = edges
        .iter()
        .map(|e| {
            let id = |s: &str| s.parse::<usize>().unwrap() - 1;
            (id(&e[0]), id(&e[1]), e[3].parse().unwrap())
        })
        .collect();
    (values, arcs)
}

fn check(folder: &Path) -> usize {
    let (values, arcs) = read(folder);
    let n = values.len();
    let (pr, hc) = (
        common::measures::pagerank(n, &arcs),
        common::measures::harmonic(n, &arcs),
    );
    common::measures::assert_close(&values, &pr, &hc);
    n
}

#[test]
fn the_demo_sites_measures_match_an_independent_computation() {
    let web = common::TestWeb::new();
    rccrawler::face::demo::site::install(&web.server, web.port());
    let host = rccrawler::face::demo::site::HOST;
    let crawled = common::crawl(
        &[web.origin(host)],
        &[("Resolve", &format!("{host}:127.0.0.1"))],
    );
    let n = check(&crawled.results().join(format!("{host}_{}", web.port())));
    assert!(n > 10, "{n} pages");
}

#[test]
fn a_generated_sites_measures_match_an_independent_computation() {
    let web = common::TestWeb::new();
    // 300 pages: page i links page i + 1 and up to four pages drawn from a fixed sequence,
    // some twice (an arc of weight 2); every seventh page links nothing (dangling), and the
    // home page links the page after each of those, so every page is reached.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let url = |i: u64| {
        if i == 0 {
            "/".to_string()
        } else {
            format!("/p{i}")
        }
    };
    for i in 0..300u64 {
        let mut links = String::new();
        if i % 7 != 3 {
            if i + 1 < 300 {
                links.push_str(&format!("<a href={}>next</a>", url(i + 1)));
            }
            for _ in 0..rnd() % 5 {
                let t = url(rnd() % 300);
                links.push_str(&format!("<a href={t}>x</a>"));
                if rnd() % 4 == 0 {
                    links.push_str(&format!("<a href={t}>again</a>"));
                }
            }
        }
        if i == 0 {
            for j in (4..300).step_by(7) {
                links.push_str(&format!("<a href={}>after</a>", url(j)));
            }
        }
        web.set(
            "a.test",
            &url(i),
            Resp::html(format!("<title>p{i}</title>{links}")),
        );
    }
    let crawled = common::crawl(&[format!("{};1000;10000;0", web.origin("a.test"))], &[]);
    let n = check(&crawled.results().join(format!("a.test_{}", web.port())));
    assert_eq!(n, 300);
}

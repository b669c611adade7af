//! One downloader and one parser vs many: the result files must be byte-identical, levels
//! included, whatever order concurrent downloads finish in (SPEC §2.10), over repeated runs.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::time::Duration;

use common::{TestWeb, crawl};

const PAGES: u64 = 400;
const SEED: u64 = 0x5eed_1234_abcd_ef01;

/// The generated web; two shallow pages answer slowly, so with many downloaders their
/// children are first reached through longer paths (some beyond the level cut) and must be
/// corrected when these pages finally arrive.
fn random_web() -> TestWeb {
    let web = TestWeb::new();
    common::webgen::install(
        &web,
        common::webgen::WebSpec {
            host: "a.test",
            pages: PAGES,
            seed: SEED,
            delay: Duration::ZERO,
            slow: vec![
                ("/p/0.html", Duration::from_millis(250)),
                ("/d/2.html", Duration::from_millis(120)),
            ],
        },
    );
    web
}

#[test]
fn one_thread_and_many_threads_write_identical_files() {
    let web = random_web();
    let site = format!("{};16;4;0", web.origin("a.test"));
    let folder = format!("a.test_{}", web.port());
    let reference = crawl(
        std::slice::from_ref(&site),
        &[
            ("DownloadingThreadsCount", "1"),
            ("ParsingThreadsCount", "1"),
        ],
    );
    let expected = common::result_bytes(&reference.results().join(&folder));
    let files = common::SiteFiles::read(&reference.results().join(&folder));
    files.assert_levels_are_bfs_depths();
    common::webgen::assert_matches_model(&files, &web.origin("a.test"), PAGES, SEED, 4);
    assert!(
        files.nodes.len() > 100,
        "the cut at level 4 still leaves a real graph: {}",
        files.nodes.len()
    );
    assert!(files.nodes.iter().any(|n| n.2 == 4) && !files.duplicates.is_empty());
    assert!(
        files.nodes.len() < PAGES as usize,
        "and the cut is real: {}",
        files.nodes.len()
    );
    for (downloaders, parsers) in [("16", "4"), ("8", "2"), ("16", "4"), ("3", "3")] {
        let run = crawl(
            std::slice::from_ref(&site),
            &[
                ("DownloadingThreadsCount", downloaders),
                ("ParsingThreadsCount", parsers),
            ],
        );
        let got = common::result_bytes(&run.results().join(&folder));
        common::webgen::assert_matches_model(
            &common::SiteFiles::read(&run.results().join(&folder)),
            &web.origin("a.test"),
            PAGES,
            SEED,
            4,
        );
        for ((name, want), (_, have)) in expected.iter().zip(&got) {
            assert!(
                want == have,
                "{name} differs with {downloaders} downloaders and {parsers} parsers"
            );
        }
    }
}

//! robots.txt parsing and matching, both flavours: never panics, whatever the bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rccrawler::robots::{RobotsFlavor, path_params_query};

fuzz_target!(|data: &[u8]| {
    // The last line is used as the URL to check, the rest as the robots.txt body.
    let split = data.iter().rposition(|&b| b == b'\n').unwrap_or(0);
    let (body, url) = data.split_at(split);
    let url = String::from_utf8_lossy(url);
    let path = path_params_query(&url);
    for flavor in [RobotsFlavor::Rfc9309, RobotsFlavor::OnlyDisallow] {
        let rules = flavor.parse(body, "rccrawler");
        let _ = rules.allowed(&path);
        let _ = rules.crawl_delay();
    }
});

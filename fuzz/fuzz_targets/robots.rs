//! robots.txt parsing and matching, both flavours: never panics, whatever the bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rccrawler::model::robots::{OnlyDisallowRules, Rfc9309Rules, RobotsParse, path_params_query};

fuzz_target!(|data: &[u8]| {
    // The last line is used as the URL to check, the rest as the robots.txt body.
    let split = data.iter().rposition(|&b| b == b'\n').unwrap_or(0);
    let (body, url) = data.split_at(split);
    let url = String::from_utf8_lossy(url);
    let path = path_params_query(&url);
    let parsers: [RobotsParse; 2] = [Rfc9309Rules::parse_shared, OnlyDisallowRules::parse_shared];
    for parse in parsers {
        let rules = parse(body, "rccrawler");
        let _ = rules.allowed(&path);
        let _ = rules.crawl_delay();
    }
});

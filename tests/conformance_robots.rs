//! robots.txt matching against the public vectors in `../shared/conformance/`:
//! Google's robots_test.cc (robots.jsonl), the RFC 9309 examples (robots_rfc9309.jsonl) and
//! the crawl-delay / path / user-agent records of robots_extra.jsonl.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use base64::Engine;
use common::conformance;
use rccrawler::model::robots::{
    Rfc9309Rules, RobotsRules, is_valid_product_token, path_params_query, product_token,
};
use std::time::Duration;

fn body_of(r: &serde_json::Value) -> Vec<u8> {
    if let Some(s) = r["robots_txt"].as_str() {
        return s.as_bytes().to_vec();
    }
    let b64 = r["robots_txt_base64"].as_str().expect("a body");
    base64::engine::general_purpose::STANDARD
        .decode(b64)
        .expect("base64")
}

fn check_allow_vectors(file: &str, expected_count: usize) {
    let Some(records) = conformance::records(file) else {
        return;
    };
    assert_eq!(records.len(), expected_count, "{file} changed size");
    let mut failures = Vec::new();
    for r in &records {
        let ua = r["user_agent"].as_str().expect("user_agent");
        let url = r["url"].as_str().expect("url");
        let expected = r["allowed"].as_bool().expect("allowed");
        // The matcher's contract (as Google's): it is handed the product token to match;
        // the crawler derives that token from its User-Agent (see crawl-delay test below).
        let rules = Rfc9309Rules::parse(&body_of(r), ua);
        let got = rules.allowed(&path_params_query(url));
        if got != expected {
            let short: String = url.chars().take(80).collect();
            failures.push(format!(
                "{} ua={ua:?} url={short:?}: expected {expected}",
                r["source"]
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {expected_count} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn robots_jsonl_all_145_google_vectors_pass() {
    check_allow_vectors("robots.jsonl", 145);
}

#[test]
fn robots_rfc9309_jsonl_all_30_vectors_pass() {
    check_allow_vectors("robots_rfc9309.jsonl", 30);
}

/// Crawl-delay records we do not follow, with the reason. Everything else must pass.
const CRAWL_DELAY_NOT_FOLLOWED: &[(&str, &str, &str)] = &[
    (
        "test_robot_starts_with_crawl_delay",
        "BobBot",
        "texting_robots applies a Crawl-delay placed before any User-agent line to every agent; \
         RFC 9309 §2.2 puts records outside a group out of force, so we ignore it",
    ),
    (
        "test_reppy_no_leading_user_agent",
        "agent",
        "same: rules and delays before the first User-agent line belong to no group (RFC 9309 §2.2)",
    ),
];

#[test]
fn robots_extra_crawl_delay_records_that_follow_rfc_practice_pass() {
    let Some(records) = conformance::records("robots_extra.jsonl") else {
        return;
    };
    let mut checked = 0;
    let mut skipped = 0;
    let mut failures = Vec::new();
    for r in records.iter().filter(|r| r["kind"] == "crawl_delay") {
        let source = r["source"].as_str().expect("source");
        let ua = r["user_agent"].as_str().expect("user_agent");
        if CRAWL_DELAY_NOT_FOLLOWED
            .iter()
            .any(|(test, agent, _)| source.ends_with(test) && *agent == ua)
        {
            skipped += 1;
            continue;
        }
        checked += 1;
        // As the crawler does: match the product token of our User-Agent string.
        let rules = Rfc9309Rules::parse(&body_of(r), product_token(ua));
        let expected = r["expected_crawl_delay_seconds"]
            .as_f64()
            .map(Duration::from_secs_f64);
        let got = rules.crawl_delay();
        let close = match (got, expected) {
            (Some(a), Some(b)) => a.abs_diff(b) < Duration::from_millis(1),
            (None, None) => true,
            _ => false,
        };
        if !close {
            failures.push(format!(
                "{source} ua={ua:?}: expected {expected:?}, got {got:?}"
            ));
        }
    }
    assert_eq!(
        skipped,
        CRAWL_DELAY_NOT_FOLLOWED.len(),
        "every exclusion must still exist"
    );
    assert_eq!(checked, 38);
    assert!(
        failures.is_empty(),
        "{} of {checked} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn robots_extra_path_params_query_records_pass() {
    let Some(records) = conformance::records("robots_extra.jsonl") else {
        return;
    };
    let mut n = 0;
    for r in records.iter().filter(|r| r["kind"] == "path_params_query") {
        let url = r["url"].as_str().expect("url");
        assert_eq!(
            path_params_query(url),
            r["expected"].as_str().expect("expected"),
            "{url}"
        );
        n += 1;
    }
    assert_eq!(n, 19);
}

#[test]
fn robots_extra_valid_user_agent_records_pass() {
    let Some(records) = conformance::records("robots_extra.jsonl") else {
        return;
    };
    let mut n = 0;
    for r in records.iter().filter(|r| r["kind"] == "valid_user_agent") {
        let ua = r["user_agent"].as_str().expect("user_agent");
        assert_eq!(
            is_valid_product_token(ua),
            r["expected"].as_bool().expect("expected"),
            "{ua:?}"
        );
        n += 1;
    }
    assert_eq!(n, 11);
}

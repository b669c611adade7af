//! URL normalization (SPEC §3) and reference resolution against the public vectors in
//! `../shared/conformance/` (normalize.jsonl, normalize_conflicting.jsonl, resolve.jsonl).
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use common::conformance;
use rccrawler::model::url_norm::{NormUrl, resolve};
use url::Url;

#[test]
fn normalize_jsonl_all_314_vectors_pass() {
    let Some(records) = conformance::records("normalize.jsonl") else {
        return;
    };
    assert_eq!(records.len(), 314, "normalize.jsonl changed size");
    let mut failures = Vec::new();
    for r in &records {
        let input = r["input"].as_str().expect("input");
        let expected = r["expected"].as_str();
        let got = NormUrl::parse(input).ok().map(|u| u.to_string());
        if got.as_deref() != expected {
            failures.push(format!(
                "{input:?}: expected {expected:?}, got {got:?} ({})",
                r["source"]
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of 314 failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// SPEC §3 drops `a=` (empty value) as well as `a`; the three w3lib vectors whose outcome
/// depends on that choice record the output for both choices. We must give the drop variant.
#[test]
fn normalize_conflicting_empty_value_vectors_follow_spec() {
    let Some(records) = conformance::records("normalize_conflicting.jsonl") else {
        return;
    };
    let chosen: Vec<_> = records
        .iter()
        .filter(|r| r["conflict_kind"] == "depends_on_empty_value_rule")
        .collect();
    assert_eq!(chosen.len(), 3);
    for r in chosen {
        let input = r["input"].as_str().expect("input");
        let want = r["rule_set_output_drop_empty_values"]
            .as_str()
            .or_else(|| r["rule_set_output"].as_str())
            .expect("an output");
        let got = NormUrl::parse(input).map(|u| u.to_string());
        assert_eq!(got.as_deref(), Ok(want), "{input}");
    }
}

/// The 331 conflicting vectors follow other conventions; for each we still assert what the
/// SPEC rule set gives (`rule_set_output_drop_empty_values` where SPEC's `a=` rule changes it,
/// else `rule_set_output`), so a change in our behaviour on them is noticed.
#[test]
fn normalize_conflicting_vectors_give_the_rule_set_output() {
    let Some(records) = conformance::records("normalize_conflicting.jsonl") else {
        return;
    };
    let mut checked = 0;
    let mut failures = Vec::new();
    for r in &records {
        if r["conflict_kind"] == "not_applicable"
            || r["conflict_kind"] == "depends_on_empty_value_rule"
        {
            continue;
        }
        let input = r["input"].as_str().expect("input");
        let want = r["rule_set_output_drop_empty_values"]
            .as_str()
            .or_else(|| r["rule_set_output"].as_str());
        let got = NormUrl::parse(input).ok().map(|u| u.to_string());
        checked += 1;
        if got.as_deref() != want {
            failures.push(format!("{input:?}: rule set {want:?}, got {got:?}"));
        }
    }
    assert!(checked > 200);
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Known differences from the RFC's strict resolution, each with its reason.
const RESOLVE_KNOWN: &[(&str, &str)] = &[(
    "http:g",
    "RFC 3986 §5.2.2 lets a non-strict parser treat a reference with the base's scheme as \
     relative; browsers (WHATWG) do, so the link a user follows goes to http://a/b/c/g, the \
     vector's expected_non_strict",
)];

#[test]
fn resolve_jsonl_all_42_vectors_pass() {
    let Some(records) = conformance::records("resolve.jsonl") else {
        return;
    };
    assert_eq!(records.len(), 42);
    let mut failures = Vec::new();
    for r in &records {
        let base = Url::parse(r["base"].as_str().expect("base")).expect("base parses");
        let reference = r["ref"].as_str().expect("ref");
        let expected = r["expected"].as_str().expect("expected");
        let got = resolve(&base, reference).expect("resolves").to_string();
        if let Some((_, _reason)) = RESOLVE_KNOWN.iter().find(|(k, _)| *k == reference) {
            assert_eq!(
                Some(got.as_str()),
                r["expected_non_strict"].as_str(),
                "{reference}"
            );
            continue;
        }
        // Equal as written, or equal once both are in normal form (WHATWG writes `http://g/`
        // for the RFC's `http://g`; they are the same resource).
        let same = got == expected
            || matches!((NormUrl::parse(&got), NormUrl::parse(expected)), (Ok(a), Ok(b)) if a == b);
        if !same {
            failures.push(format!("{reference:?}: expected {expected}, got {got}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

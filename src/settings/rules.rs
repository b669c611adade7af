//! Stage 3 of reading settings.ini: what is wrong or worth saying about keys together — keys
//! this engine does not know or does not need, and rules across values. Which components
//! exist and what they imply is the registry's (`Registry::resolve`).

use super::keys::{self, KEYS, ValueKind};
use super::{RawSettings, Settings, SettingsError, Warning};

/// Warnings about the keys written: unknown ones (with the nearest known key when the case
/// differs), and the paper's tuning keys this engine does not need.
pub(super) fn key_warnings(raw: &RawSettings) -> Vec<Warning> {
    let mut warnings = Vec::new();
    for (key, _) in raw.written() {
        match keys::find(key) {
            Some(def) if def.kind == ValueKind::PaperTuning => {
                warnings.push(Warning::note(format!(
                    "{key} is a tuning knob of the RCCrawler paper's engine; this engine does not need it (accepted, not used)"
                )));
            }
            Some(_) => {}
            None => {
                let hint = KEYS
                    .iter()
                    .find(|k| k.name.eq_ignore_ascii_case(key))
                    .map(|k| format!(" (did you mean {}? keys are case-sensitive)", k.name))
                    .unwrap_or_default();
                warnings.push(Warning::new(format!("unknown key {key} ignored{hint}")));
            }
        }
    }
    warnings
}

/// Rules across keys: errors for values that cannot work together, warnings for those that
/// probably are not meant.
pub(super) fn check(s: &Settings) -> Result<Vec<Warning>, SettingsError> {
    let mut warnings = Vec::new();
    if s.scope
        .topic
        .as_ref()
        .is_some_and(|t| t.keywords.is_empty())
    {
        return Err(SettingsError::BadValue {
            key: "TopicKeywords".to_owned(),
            value: String::new(),
            expected: "at least one keyword when TopicFilter = 1".to_owned(),
        });
    }
    if s.http.user_agent.trim().is_empty() {
        return Err(SettingsError::BadValue {
            key: "UserAgent".to_owned(),
            value: String::new(),
            expected: "must not be empty".to_owned(),
        });
    }
    if !crate::robots::is_valid_product_token(s.robots_agent()) {
        warnings.push(Warning::new(format!(
            "UserAgent {:?} does not start with a product token ([A-Za-z_-]+); robots.txt groups cannot name it",
            s.http.user_agent
        )));
    }
    if s.components.unloaders.is_empty() {
        warnings.push(Warning::new(
            "ResultUnloaders is empty: no results will be written",
        ));
    }
    Ok(warnings)
}

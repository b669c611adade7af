//! Stage 3 of reading settings.ini: what is wrong or worth saying about keys together — keys
//! this engine does not know (an error, with the nearest known key), sections and keys set
//! twice (errors), the paper's keys this engine does not need (notes), and rules across values.
//! Which components exist and what they imply is the registry's (`Registry::resolve`).

use super::{Location, RawSettings, Settings, SettingsError, Warning};
use crate::formats::setting_keys::{self as keys, KEYS, ValueKind};

/// The keys as written: sections, keys set twice and unknown keys are errors (the first found,
/// in line order); the paper's tuning keys are notes.
pub(super) fn check_keys(raw: &RawSettings) -> Result<Vec<Warning>, SettingsError> {
    let at = |line| Location {
        path: raw.path().to_owned(),
        line,
    };
    if let Some((name, line)) = raw.sections().first() {
        return Err(SettingsError::Section {
            at: at(Some(*line)),
            name: name.clone(),
        });
    }
    if let Some((key, lines)) = raw.duplicates().first() {
        return Err(SettingsError::Duplicate {
            at: at(lines.get(1).copied()),
            key: (*key).to_owned(),
            first: lines[0],
        });
    }
    let mut written: Vec<(&str, Option<usize>)> = raw.written().map(|(k, w)| (k, w.line)).collect();
    written.sort_by_key(|(_, line)| *line);
    let mut notes = Vec::new();
    for (key, line) in written {
        match keys::find(key) {
            // A crawl's record lists them all: nobody set them.
            Some(def) if def.kind == ValueKind::PaperTuning && !raw.is_recorded() => {
                notes.push(Warning::note(
                    at(line),
                    format!(
                        "{key} is a tuning knob of the RCCrawler paper's engine; this engine does not need it (accepted, not used)"
                    ),
                ));
            }
            Some(_) => {}
            None => {
                return Err(SettingsError::UnknownKey {
                    at: at(line),
                    key: key.to_owned(),
                    suggestion: nearest_key(key).map(str::to_owned),
                });
            }
        }
    }
    Ok(notes)
}

/// The known key nearest to `key`: the same but for case, or at most a third of its letters
/// away (edits, Levenshtein).
fn nearest_key(key: &str) -> Option<&'static str> {
    if let Some(k) = KEYS.iter().find(|k| k.name.eq_ignore_ascii_case(key)) {
        return Some(k.name);
    }
    let lower = key.to_ascii_lowercase();
    KEYS.iter()
        .map(|k| (edit_distance(&lower, &k.name.to_ascii_lowercase()), k.name))
        .filter(|(d, name)| *d <= (name.len().max(key.len()) / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, name)| name)
}

/// Levenshtein distance over bytes (keys are ASCII).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
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
            at: s.location("TopicKeywords"),
            key: "TopicKeywords".to_owned(),
            value: String::new(),
            expected: "at least one keyword when TopicFilter = 1".to_owned(),
        });
    }
    if s.http.user_agent.trim().is_empty() {
        return Err(SettingsError::BadValue {
            at: s.location("UserAgent"),
            key: "UserAgent".to_owned(),
            value: String::new(),
            expected: "must not be empty".to_owned(),
        });
    }
    if !crate::model::robots::is_valid_product_token(s.robots_agent()) {
        warnings.push(Warning::new(
            s.location("UserAgent"),
            format!(
                "UserAgent {:?} does not start with a product token ([A-Za-z_-]+); robots.txt groups cannot name it",
                s.http.user_agent
            ),
        ));
    }
    if s.components.unloaders.is_empty() {
        warnings.push(Warning::new(
            s.location("ResultUnloaders"),
            "ResultUnloaders is empty: no results will be written",
        ));
    }
    Ok(warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_key_is_suggested_and_a_far_one_is_not() {
        assert_eq!(nearest_key("PageBudgt"), Some("PageBudget"));
        assert_eq!(
            nearest_key("parsingthreadscount"),
            Some("ParsingThreadsCount")
        );
        assert_eq!(
            nearest_key("DownloadThreadsCount"),
            Some("DownloadingThreadsCount")
        );
        assert_eq!(nearest_key("Colour"), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}

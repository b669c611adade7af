//! Session and token parameters the fold rules know by name (`sid`, `PHPSESSID`,
//! `;jsessionid=`, CSRF tokens, …), and a URL without them: what two links to one page may
//! differ in (SPEC §14). Parameters a site shows to be its own session ids are learned in
//! [`super::session`].

use std::borrow::Cow;

/// Query parameter names that carry a session or a token.
pub(crate) fn is_session_param(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    matches!(
        n.as_str(),
        "sid"
            | "sessionid"
            | "session_id"
            | "phpsessid"
            | "jsessionid"
            | "cfid"
            | "cftoken"
            | "token"
            | "_token"
            | "authenticity_token"
            | "nonce"
    ) || n.starts_with("aspsessionid")
        || n.contains("csrf")
        || n.contains("xsrf")
}

/// `value` (a URL or anything) without its session and token parameters: a page whose links
/// carry the session a section was entered with (`?sid=…`, `;jsessionid=…` in every link) is
/// the page whose links carry none (issue 64, item 3), as two copies with two sessions are.
pub(crate) fn mask_session_params(value: &str) -> Cow<'_, str> {
    if !value.contains('?') && !value.contains(';') {
        return Cow::Borrowed(value);
    }
    let mut out = String::with_capacity(value.len());
    let (before_fragment, fragment) = match value.find('#') {
        Some(i) => value.split_at(i),
        None => (value, ""),
    };
    let (path, query) = match before_fragment.find('?') {
        Some(i) => (&before_fragment[..i], Some(&before_fragment[i + 1..])),
        None => (before_fragment, None),
    };
    let lower = path.to_ascii_lowercase();
    match lower.find(";jsessionid=") {
        Some(i) => {
            out.push_str(&path[..i]);
            // The id runs to the next `;` parameter, if any.
            if let Some(j) = path[i + 1..].find(';') {
                out.push_str(&path[i + 1 + j..]);
            }
        }
        None => out.push_str(path),
    }
    if let Some(q) = query {
        let mut first = true;
        for pair in q.split('&') {
            let key = pair.split_once('=').map_or(pair, |(k, _)| k);
            if pair.contains('=') && is_session_param(key.trim_start_matches("amp;")) {
                continue;
            }
            out.push(if first { '?' } else { '&' });
            first = false;
            out.push_str(pair);
        }
    }
    out.push_str(fragment);
    if out == value {
        Cow::Borrowed(value)
    } else {
        Cow::Owned(out)
    }
}

//! `Rfc9309RobotsTxt`: RFC 9309 matching as Google's reference implementation does it —
//! user-agent groups (merged when several match), longest match wins, Allow wins a tie, `*`
//! and a final `$`, percent-escapes compared in upper case, `…/index.html` allowing its
//! directory — plus `Crawl-delay`. Parsed once per site; queries do not allocate.

use std::time::Duration;

use super::lines::{Key, for_each_record};
use super::{MAX_CRAWL_DELAY, RobotsRules};

/// One Allow or Disallow rule with its pattern already escaped.
#[derive(Debug, Clone)]
struct Rule {
    allow: bool,
    pattern: Box<[u8]>,
    /// No `*` or `$`: the pattern matches the paths it starts. Known once: every link of a
    /// crawl is matched against every rule (issue 19).
    plain: bool,
}

impl Rule {
    fn new(allow: bool, pattern: Box<[u8]>) -> Self {
        let plain = !pattern.iter().any(|&b| b == b'*' || b == b'$');
        Rule {
            allow,
            pattern,
            plain,
        }
    }

    fn matches(&self, path: &[u8]) -> bool {
        if self.plain {
            path.starts_with(&self.pattern)
        } else {
            matches(path, &self.pattern)
        }
    }
}

/// The rules of one robots.txt that apply to one product token.
#[derive(Debug, Clone, Default)]
pub struct Rfc9309Rules {
    /// Rules of the groups naming our product token (merged).
    specific: Vec<Rule>,
    /// Rules of the `*` groups (merged); used only when no group names us.
    global: Vec<Rule>,
    /// Some group names our product token, so `*` groups are ignored entirely.
    named: bool,
    specific_delay: Option<f64>,
    global_delay: Option<f64>,
}

impl Rfc9309Rules {
    /// Parses `body` for the crawler whose product token is `agent` (e.g. `rccrawler`).
    pub fn parse(body: &[u8], agent: &str) -> Self {
        let mut rules = Rfc9309Rules::default();
        // Parser state, named as in robots.cc.
        let mut seen_global = false;
        let mut seen_specific = false;
        let mut seen_separator = false;
        // Whether our token / `*` is listed in the current group and has not got its
        // crawl-delay yet: each agent takes the first delay that follows it in its group.
        let mut delay_pending_specific = false;
        let mut delay_pending_global = false;
        for_each_record(body, |rec| match rec.key {
            Key::UserAgent => {
                if seen_separator {
                    // A user-agent line after rules starts a new group.
                    seen_global = false;
                    seen_specific = false;
                    seen_separator = false;
                    delay_pending_specific = false;
                    delay_pending_global = false;
                }
                let v = rec.value;
                if v.first() == Some(&b'*') && v.get(1).is_none_or(|&c| !is_token_byte(c)) {
                    seen_global = true;
                    delay_pending_global = true;
                } else if product_token_bytes(v).eq_ignore_ascii_case(agent.as_bytes()) {
                    seen_specific = true;
                    rules.named = true;
                    delay_pending_specific = true;
                }
            }
            Key::Allow | Key::Disallow => {
                if !(seen_global || seen_specific) {
                    return;
                }
                seen_separator = true;
                let allow = rec.key == Key::Allow;
                let pattern = escape_pattern(rec.value);
                let target = if seen_specific {
                    &mut rules.specific
                } else {
                    &mut rules.global
                };
                if allow && let Some(dir) = index_html_directory(&pattern) {
                    target.push(Rule::new(allow, dir));
                }
                target.push(Rule::new(allow, pattern.into_boxed_slice()));
            }
            Key::CrawlDelay => {
                // Assigned to the agents listed so far; does not end the group (RFC 9309
                // §2.2.4: other records must not interfere with rule assignment).
                let Some(secs) = parse_delay(rec.value) else {
                    return;
                };
                if seen_specific && delay_pending_specific {
                    rules.specific_delay =
                        Some(rules.specific_delay.map_or(secs, |d: f64| d.max(secs)));
                    delay_pending_specific = false;
                }
                if seen_global && delay_pending_global {
                    rules.global_delay =
                        Some(rules.global_delay.map_or(secs, |d: f64| d.max(secs)));
                    delay_pending_global = false;
                }
            }
            Key::Sitemap | Key::Unknown => {}
        });
        rules
    }

    fn decide(rules: &[Rule], path: &[u8]) -> Option<bool> {
        let (mut allow, mut disallow) = (0usize, 0usize);
        for rule in rules {
            // A pattern's priority is its length; an empty pattern matches with priority 0,
            // which counts as no match.
            let p = rule.pattern.len();
            let best = if rule.allow {
                &mut allow
            } else {
                &mut disallow
            };
            if p > *best && rule.matches(path) {
                *best = p;
            }
        }
        (allow > 0 || disallow > 0).then_some(disallow <= allow)
    }
}

impl RobotsRules for Rfc9309Rules {
    fn allowed(&self, path_and_query: &str) -> bool {
        let path = path_and_query.as_bytes();
        if let Some(decision) = Self::decide(&self.specific, path) {
            return decision;
        }
        if self.named {
            return true;
        }
        Self::decide(&self.global, path).unwrap_or(true)
    }

    fn crawl_delay(&self) -> Option<Duration> {
        let secs = if self.named {
            self.specific_delay
        } else {
            self.global_delay
        }?;
        Some(Duration::try_from_secs_f64(secs).map_or(MAX_CRAWL_DELAY, |d| d.min(MAX_CRAWL_DELAY)))
    }
}

/// Bytes allowed in a product token (RFC 9309 §2.2.1).
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'-' || b == b'_'
}

fn product_token_bytes(v: &[u8]) -> &[u8] {
    let end = v.iter().position(|&b| !is_token_byte(b)).unwrap_or(v.len());
    &v[..end]
}

/// The product token of a User-Agent string: its leading `[A-Za-z_-]` run
/// (`rccrawler/0.1 (+https://…)` → `rccrawler`). This is what robots.txt groups name.
pub fn product_token(user_agent: &str) -> &str {
    let end = user_agent
        .bytes()
        .position(|b| !is_token_byte(b))
        .unwrap_or(user_agent.len());
    &user_agent[..end]
}

/// Whether `ua` is a valid product token to obey (non-empty, `[A-Za-z_-]` only).
pub fn is_valid_product_token(ua: &str) -> bool {
    !ua.is_empty() && ua.bytes().all(is_token_byte)
}

/// Percent-encodes non-ASCII bytes and upper-cases existing `%xx` escapes (Google's
/// `MaybeEscapePattern`), so patterns compare with escaped URL paths.
pub fn escape_pattern(value: &[u8]) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = Vec::with_capacity(value.len());
    let mut i = 0;
    while i < value.len() {
        let b = value[i];
        if b == b'%'
            && i + 2 < value.len()
            && value[i + 1].is_ascii_hexdigit()
            && value[i + 2].is_ascii_hexdigit()
        {
            out.push(b'%');
            out.push(value[i + 1].to_ascii_uppercase());
            out.push(value[i + 2].to_ascii_uppercase());
            i += 3;
        } else if b >= 0x80 {
            out.extend_from_slice(&[b'%', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
            i += 1;
        } else {
            out.push(b);
            i += 1;
        }
    }
    out
}

/// Google treats `Allow: /dir/index.htm[l]` as also allowing `/dir/` exactly.
fn index_html_directory(pattern: &[u8]) -> Option<Box<[u8]>> {
    let slash = pattern.iter().rposition(|&b| b == b'/')?;
    pattern[slash..].starts_with(b"/index.htm").then(|| {
        let mut dir = pattern[..=slash].to_vec();
        dir.push(b'$');
        dir.into_boxed_slice()
    })
}

/// Pattern match with `*` (any run) and a final `$` (end of path); everything else is literal.
/// Keeps the set of reachable path positions, as robots.cc does, so it is linear in
/// pattern × path and cannot backtrack exponentially. Also for hosts.txt's `include=` and
/// `exclude=` patterns, written as robots.txt rules are.
pub fn matches(path: &[u8], pattern: &[u8]) -> bool {
    // Fast path for the common plain-prefix pattern.
    if !pattern.iter().any(|&b| b == b'*' || b == b'$') {
        return path.starts_with(pattern);
    }
    let mut pos: Vec<usize> = Vec::with_capacity(path.len() + 1);
    pos.push(0);
    for (pi, &pc) in pattern.iter().enumerate() {
        if pc == b'$' && pi + 1 == pattern.len() {
            return pos.last() == Some(&path.len());
        }
        if pc == b'*' {
            let first = pos[0];
            pos.clear();
            pos.extend(first..=path.len());
        } else {
            pos.retain_mut(|p| {
                if *p < path.len() && path[*p] == pc {
                    *p += 1;
                    true
                } else {
                    false
                }
            });
            if pos.is_empty() {
                return false;
            }
        }
    }
    true
}

/// Seconds from a crawl-delay value: a leading decimal number (`10`, `0.5`, `10<BR>`);
/// negative, non-finite or non-numeric values are ignored.
fn parse_delay(value: &[u8]) -> Option<f64> {
    let end = value
        .iter()
        .position(|&b| !(b.is_ascii_digit() || b == b'.'))
        .unwrap_or(value.len());
    let text = std::str::from_utf8(&value[..end]).ok()?;
    let secs: f64 = text.parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then_some(secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed(body: &str, agent: &str, path: &str) -> bool {
        Rfc9309Rules::parse(body.as_bytes(), agent).allowed(path)
    }

    #[test]
    fn longest_match_and_allow_wins_tie() {
        let body = "user-agent: *\ndisallow: /a\nallow: /a/b\ndisallow: /x\nallow: /x\n";
        assert!(!allowed(body, "bot", "/a/c"));
        assert!(allowed(body, "bot", "/a/b/c"));
        assert!(allowed(body, "bot", "/x/1"));
        assert!(allowed(body, "bot", "/"));
    }

    #[test]
    fn wildcards() {
        let body = "user-agent: *\ndisallow: /*.gif$\ndisallow: /p*q\n";
        assert!(!allowed(body, "bot", "/i/x.gif"));
        assert!(allowed(body, "bot", "/i/x.gif?v=1"));
        assert!(!allowed(body, "bot", "/p/zzz/q"));
        assert!(!matches(b"/aaaa", b"/*a*a*a*a*a$"));
    }

    #[test]
    fn specific_group_hides_global() {
        let body = "user-agent: *\ndisallow: /\n\nuser-agent: RcCrawler\ndisallow: /private\n";
        assert!(allowed(body, "rccrawler", "/public"));
        assert!(!allowed(body, "rccrawler", "/private/x"));
        assert!(!allowed(body, "other", "/public"));
    }

    #[test]
    fn crawl_delay_per_group() {
        let r = Rfc9309Rules::parse(b"user-agent: *\ncrawl-delay: 2.5\n", "bot");
        assert_eq!(r.crawl_delay(), Some(Duration::from_millis(2500)));
        let r = Rfc9309Rules::parse(
            b"user-agent: bot\ndisallow: /x\nuser-agent: *\ncrawl-delay: 9\n",
            "bot",
        );
        assert_eq!(r.crawl_delay(), None);
    }

    #[test]
    fn a_crawl_delay_past_an_hour_is_an_hour() {
        for v in [
            "7200",
            "10000000000000000000",
            "999999999999999999999999999",
        ] {
            let r =
                Rfc9309Rules::parse(format!("User-agent: *\nCrawl-delay: {v}\n").as_bytes(), "x");
            assert_eq!(r.crawl_delay(), Some(MAX_CRAWL_DELAY), "{v}");
        }
    }

    #[test]
    fn product_tokens() {
        assert_eq!(product_token("rccrawler/0.1 (+http://x)"), "rccrawler");
        assert!(is_valid_product_token("Foo_Bar-baz"));
        assert!(!is_valid_product_token("Foo/2"));
    }
}

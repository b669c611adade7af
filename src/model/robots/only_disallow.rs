//! `OnlyDisallowRobotsTxt`: the RCCrawler paper's robots.txt class. It reads only `Disallow`
//! lines of the group that names our product token (or of `*` when none does) and treats each
//! as a plain path prefix, as the 1994 robots exclusion standard did: no `Allow`, no wildcards.

use std::time::Duration;

use super::RobotsRules;
use super::lines::{Key, for_each_record};
use super::rfc9309::{Rfc9309Rules, escape_pattern, product_token};

/// Disallowed path prefixes for one product token.
#[derive(Debug, Clone, Default)]
pub struct OnlyDisallowRules {
    prefixes: Vec<Box<[u8]>>,
    delay: Option<Duration>,
}

impl OnlyDisallowRules {
    /// Parses `body` for the crawler whose product token is `agent`.
    pub fn parse(body: &[u8], agent: &str) -> Self {
        let mut specific: Vec<Box<[u8]>> = Vec::new();
        let mut global: Vec<Box<[u8]>> = Vec::new();
        let mut named = false;
        let (mut in_specific, mut in_global, mut after_rules) = (false, false, false);
        for_each_record(body, |rec| match rec.key {
            Key::UserAgent => {
                if after_rules {
                    in_specific = false;
                    in_global = false;
                    after_rules = false;
                }
                let value = String::from_utf8_lossy(rec.value);
                if value.trim_start().starts_with('*') {
                    in_global = true;
                } else if product_token(&value).eq_ignore_ascii_case(agent) {
                    in_specific = true;
                    named = true;
                }
            }
            Key::Allow | Key::Disallow => {
                after_rules = true;
                if rec.key == Key::Disallow && !rec.value.is_empty() {
                    let prefix = escape_pattern(rec.value).into_boxed_slice();
                    if in_specific {
                        specific.push(prefix);
                    } else if in_global {
                        global.push(prefix);
                    }
                }
            }
            _ => {}
        });
        // Crawl-delay is read with the RFC 9309 group rules: politeness is not the paper's topic.
        let delay = Rfc9309Rules::parse(body, agent).crawl_delay();
        OnlyDisallowRules {
            prefixes: if named { specific } else { global },
            delay,
        }
    }
}

impl RobotsRules for OnlyDisallowRules {
    fn allowed(&self, path_and_query: &str) -> bool {
        !self
            .prefixes
            .iter()
            .any(|p| path_and_query.as_bytes().starts_with(p))
    }

    fn crawl_delay(&self) -> Option<Duration> {
        self.delay
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_disallow_prefixes_count() {
        let body = b"User-agent: *\nDisallow: /private\nAllow: /private/ok\nDisallow: /*.gif\n";
        let r = OnlyDisallowRules::parse(body, "rccrawler");
        assert!(!r.allowed("/private/ok"), "Allow lines are ignored");
        assert!(r.allowed("/a.gif"), "wildcards are literal characters");
        assert!(r.allowed("/public"));
    }
}

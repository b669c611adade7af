//! What the crawl knows about one site's per-response parts (SPEC §14): its learned rules, and
//! which of its pages are fetched twice to learn them.
//!
//! A site is sampled only where it can pay: its home page is fetched twice when its body shows
//! signs of being generated per request ([`looks_dynamic`]: nonces, tokens, session ids, a
//! clock time), and only when the two copies differed is the first page fetched at each of the
//! next [`SAMPLED_LEVELS`] levels fetched twice too (another template, another box). A static
//! site costs nothing; a dynamic one at most `1 + SAMPLED_LEVELS` requests.

use std::sync::Arc;
use std::sync::atomic::{AtomicU16, Ordering};

use parking_lot::RwLock;

use super::rules::SiteRules;

/// Levels below the home page whose first page is sampled on a dynamic site.
pub const SAMPLED_LEVELS: u32 = 2;

/// Bits of [`SiteLearning::state`]: levels 0..=SAMPLED_LEVELS claimed, then these.
const DYNAMIC: u16 = 1 << 8;

/// One site's learning.
#[derive(Debug, Default)]
pub struct SiteLearning {
    rules: RwLock<Option<Arc<SiteRules>>>,
    /// Levels whose sample is taken (bit n: level n), and [`DYNAMIC`].
    state: AtomicU16,
}

impl SiteLearning {
    /// The site's rules, if it has learned any.
    pub fn rules(&self) -> Option<Arc<SiteRules>> {
        self.rules.read().clone()
    }

    /// Adds rules two copies of a page taught; whether any was new. Two copies that differed
    /// make the site dynamic: the next levels' first pages are sampled too.
    pub fn learned(&self, rules: &SiteRules, differed: bool) -> bool {
        if differed {
            self.state.fetch_or(DYNAMIC, Ordering::AcqRel);
        }
        if rules.is_empty() {
            return false;
        }
        let mut slot = self.rules.write();
        let mut merged = slot.as_deref().cloned().unwrap_or_default();
        let changed = merged.absorb(rules);
        if changed {
            *slot = Some(Arc::new(merged));
        }
        changed
    }

    /// Whether two copies of one of its pages differed: every page of the site is digested
    /// in full.
    pub fn is_dynamic(&self) -> bool {
        self.state.load(Ordering::Acquire) & DYNAMIC != 0
    }

    /// Rules saved with the crawl's state, back in place (a continued crawl digests its new
    /// pages as its first run did); the site counts as sampled and dynamic when it has any.
    pub fn restore(&self, rules: SiteRules) {
        if rules.is_empty() {
            return;
        }
        let all_levels = (1u16 << (SAMPLED_LEVELS + 1)) - 1;
        self.state.fetch_or(all_levels | DYNAMIC, Ordering::AcqRel);
        let mut slot = self.rules.write();
        let mut merged = slot.as_deref().cloned().unwrap_or_default();
        merged.absorb(&rules);
        *slot = Some(Arc::new(merged));
    }

    /// Whether the page at `level` just downloaded is to be fetched a second time (claims the
    /// level's sample when it is). `dynamic_signs` is asked only for the home page.
    pub fn wants_sample(&self, level: u32, dynamic_signs: impl FnOnce() -> bool) -> bool {
        if level > SAMPLED_LEVELS {
            return false;
        }
        let bit = 1u16 << level;
        let state = self.state.load(Ordering::Acquire);
        if state & bit != 0 {
            return false;
        }
        let eligible = if level == 0 {
            dynamic_signs()
        } else {
            state & DYNAMIC != 0
        };
        eligible && self.state.fetch_or(bit, Ordering::AcqRel) & bit == 0
    }
}

/// Whether a body shows signs of being generated for each request: a nonce, a CSRF token, a
/// hidden form field, a session id, a request id, a clock time (`12:34:56`).
pub fn looks_dynamic(body: &[u8]) -> bool {
    const SIGNS: [&[u8]; 10] = [
        b"nonce=",
        b"csrf",
        b"xsrf",
        b"type=\"hidden\"",
        b"type=hidden",
        b"type='hidden'",
        b"sessionid",
        b"sid=",
        b"request-id",
        b"requestid",
    ];
    // Read once per site (its home page): a lower-cased copy is affordable.
    let lower = body.to_ascii_lowercase();
    if SIGNS
        .iter()
        .any(|s| memchr::memmem::find(&lower, s).is_some())
    {
        return true;
    }
    // A clock time: two digits, a colon, two digits, a colon, two digits.
    body.windows(8).any(|w| {
        w[2] == b':' && w[5] == b':' && [0, 1, 3, 4, 6, 7].iter().all(|&i| w[i].is_ascii_digit())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_static_home_page_is_not_sampled_and_a_dynamic_site_samples_two_levels() {
        let site = SiteLearning::default();
        assert!(!site.wants_sample(0, || false));
        assert!(
            !site.wants_sample(1, || true),
            "not dynamic: no deeper samples"
        );
        let dynamic = SiteLearning::default();
        assert!(dynamic.wants_sample(0, || true));
        assert!(!dynamic.wants_sample(0, || true), "once per level");
        dynamic.learned(&SiteRules::default(), true);
        assert!(dynamic.wants_sample(1, || false));
        assert!(dynamic.wants_sample(2, || false));
        assert!(!dynamic.wants_sample(3, || true));
    }

    #[test]
    fn signs_of_a_generated_page() {
        assert!(looks_dynamic(b"<p>Generated at 12:04:59</p>"));
        assert!(looks_dynamic(b"<script nonce=abc>"));
        assert!(!looks_dynamic(
            b"<p>Opening hours 9:00-17:00, call 12:30</p>"
        ));
    }
}

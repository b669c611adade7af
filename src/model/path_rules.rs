//! Per-site control a study needs (issue 49): after the paper's four fields, a hosts.txt line
//! may carry `include=PATTERN`, `exclude=PATTERN` (each as often as needed) and `pages=N`:
//!
//! ```text
//! http://www.example.org;2;5;1000;include=/research/;include=/people/*.html;exclude=/people/old/;pages=2000
//! ```
//!
//! A pattern is written as a robots.txt rule is (RFC 9309): a path prefix, `*` any run of
//! characters, a final `$` the end; it is matched against a URL's path and query (`/a/b?c=d`).
//! With includes, only URLs matching one of them are fetched; URLs matching an exclude are
//! never fetched (an exclude wins over an include). The home page is always fetched: it is
//! where the crawl starts. A link left out is a row of bad_links.csv with reason `excluded`,
//! as robots.txt's are with `robots`. `pages=N` caps the site's pages as `MaxPagesPerSite`
//! does, for this line only.

use crate::model::robots::rfc9309::matches;

/// The bad-link reason of a URL a line's patterns leave out.
pub(crate) const EXCLUDED: &str = "excluded";

/// Largest `pages=` (as `MaxPagesPerSite`).
const MAX_PAGES: u32 = 100_000_000;

/// One line's rules beyond the paper's four fields.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineRules {
    include: Vec<Box<[u8]>>,
    exclude: Vec<Box<[u8]>>,
    /// `pages=`: this site's page cap, in place of `MaxPagesPerSite`.
    pub max_pages: Option<u32>,
}

/// A field after the paper's four that is not one of these rules.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// Not `key=value` with a known key.
    #[error(
        "{0:?} is not a field of a hosts.txt line: after protocol://host[:port];maxDownloadsAtTime;maxCrawlLevel;crawlDelay come include=PATTERN, exclude=PATTERN or pages=N"
    )]
    Unknown(String),
    /// A pattern that is not a path pattern.
    #[error(
        "{0:?}: a pattern is a path as robots.txt writes it, starting with / or * (/docs/, /*.html, /news/$)"
    )]
    BadPattern(String),
    /// `pages=` not a number in range.
    #[error("pages must be an integer from 1 to {MAX_PAGES}, got {0:?}")]
    BadPages(String),
    /// `pages=` twice.
    #[error("pages= is given twice")]
    PagesTwice,
}

impl LineRules {
    /// Adds the field `field` (after a line's four): `include=`, `exclude=` or `pages=`.
    pub fn add(&mut self, field: &str) -> Result<(), RuleError> {
        let Some((key, value)) = field.split_once('=') else {
            return Err(RuleError::Unknown(field.to_owned()));
        };
        let value = value.trim();
        match key.trim().to_ascii_lowercase().as_str() {
            "include" => self.include.push(pattern(value)?),
            "exclude" => self.exclude.push(pattern(value)?),
            "pages" => {
                if self.max_pages.is_some() {
                    return Err(RuleError::PagesTwice);
                }
                let n = value
                    .parse::<u32>()
                    .ok()
                    .filter(|n| (1..=MAX_PAGES).contains(n))
                    .ok_or_else(|| RuleError::BadPages(value.to_owned()))?;
                self.max_pages = Some(n);
            }
            _ => return Err(RuleError::Unknown(field.to_owned())),
        }
        Ok(())
    }

    /// The rules of a line with none (the paper's four fields): one value shared by every
    /// such line, not an allocation per site of a 100,000-site hosts.txt.
    pub fn none() -> std::sync::Arc<LineRules> {
        static NONE: std::sync::OnceLock<std::sync::Arc<LineRules>> = std::sync::OnceLock::new();
        std::sync::Arc::clone(NONE.get_or_init(Default::default))
    }

    /// The line's fields as hosts.txt writes them (`include=/docs/`, `exclude=…`, `pages=N`),
    /// includes first: what the crawl record lists of a site.
    pub fn fields(&self) -> Vec<String> {
        let text = |p: &[u8]| String::from_utf8_lossy(p).into_owned();
        let mut out: Vec<String> = self
            .include
            .iter()
            .map(|p| format!("include={}", text(p)))
            .collect();
        out.extend(self.exclude.iter().map(|p| format!("exclude={}", text(p))));
        out.extend(self.max_pages.map(|n| format!("pages={n}")));
        out
    }

    /// Whether the line restricts which URLs are fetched.
    pub fn restricts_paths(&self) -> bool {
        !self.include.is_empty() || !self.exclude.is_empty()
    }

    /// Whether a URL of the site with this path and query may be fetched.
    pub fn allows(&self, path_and_query: &str) -> bool {
        if !self.restricts_paths() || path_and_query == "/" {
            return true;
        }
        let p = path_and_query.as_bytes();
        if self.exclude.iter().any(|x| matches(p, x)) {
            return false;
        }
        self.include.is_empty() || self.include.iter().any(|i| matches(p, i))
    }
}

/// A pattern as written: it starts with `/` or `*`, and holds no space.
fn pattern(value: &str) -> Result<Box<[u8]>, RuleError> {
    let ok = (value.starts_with('/') || value.starts_with('*'))
        && !value.chars().any(|c| c.is_whitespace() || c.is_control());
    if !ok {
        return Err(RuleError::BadPattern(value.to_owned()));
    }
    Ok(value.as_bytes().into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(fields: &[&str]) -> LineRules {
        let mut r = LineRules::default();
        for f in fields {
            r.add(f).unwrap();
        }
        r
    }

    #[test]
    fn includes_narrow_excludes_win_and_the_home_page_is_always_fetched() {
        let r = rules(&[
            "include=/research/",
            "include=/people/*.html",
            "exclude=/research/old/",
        ]);
        assert!(r.restricts_paths());
        assert!(r.allows("/"));
        assert!(r.allows("/research/a"));
        assert!(r.allows("/research/?page=2"));
        assert!(!r.allows("/research/old/a"));
        assert!(r.allows("/people/ann.html"));
        assert!(r.allows("/people/x/ann.html?lang=en"), "* spans segments");
        assert!(!r.allows("/people/ann"));
        assert!(!r.allows("/news/1"));
        let only_out = rules(&["exclude=/*?print=", "exclude=/tmp$"]);
        assert!(only_out.allows("/a"));
        assert!(!only_out.allows("/a?print=1"));
        assert!(!only_out.allows("/tmp"));
        assert!(only_out.allows("/tmp/x"), "$ anchors the end");
        assert!(LineRules::default().allows("/anything"));
        assert!(!LineRules::default().restricts_paths());
    }

    #[test]
    fn pages_caps_and_bad_fields_are_named() {
        let r = rules(&["pages=2000", "Include = /a/"]);
        assert_eq!(r.max_pages, Some(2000));
        assert!(r.allows("/a/b") && !r.allows("/b"));
        let mut r = LineRules::default();
        assert_eq!(r.add("pages=0"), Err(RuleError::BadPages("0".to_owned())));
        assert_eq!(
            r.add("pages=many"),
            Err(RuleError::BadPages("many".to_owned()))
        );
        r.add("pages=5").unwrap();
        assert_eq!(r.add("pages=6"), Err(RuleError::PagesTwice));
        assert_eq!(
            r.add("include=docs/"),
            Err(RuleError::BadPattern("docs/".to_owned()))
        );
        assert_eq!(
            r.add("exclude=/a b"),
            Err(RuleError::BadPattern("/a b".to_owned()))
        );
        assert_eq!(
            r.add("levels=3"),
            Err(RuleError::Unknown("levels=3".to_owned()))
        );
        assert_eq!(r.add("7"), Err(RuleError::Unknown("7".to_owned())));
    }
}

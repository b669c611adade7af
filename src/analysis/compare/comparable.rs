//! Where two crawls cannot be compared: another `maxCrawlLevel`, URL filter, page budget,
//! duplicate rule or page limit (SPEC §16). Read from each folder's crawl record and
//! summary.csv state; said per site, and the comparison goes on with what it has.

use super::folder::Crawl;
use crate::analysis::report::SummaryRow;
use crate::formats::crawl_record::CrawlRecord;

/// Settings that decide which URLs become pages (the URL filter, in the wide sense).
const FILTER_KEYS: &[&str] = &[
    "UrlAnalyzingThread",
    "CommonDomainLabels",
    "KeyDomainSource",
    "TopicFilter",
    "TopicKeywords",
    "TopicBodyWeight",
    "TopicTitleWeight",
    "TopicGain",
    "TopicThreshold",
    "OtherSchemeLinks",
    "RobotsTxtClass",
    "FollowNofollow",
    "SitemapSeeds",
    "MaxUrlsPerSite",
    "MaxLinksPerPage",
    "MaxPathSegmentRepeats",
    "TrapLevels",
    "TrapPatternUrls",
    "MaxQueryParameters",
    "MaxUrlLength",
    "MaxPageBytes",
    "MetaRefreshMaxDelay",
];

/// Settings of the page budget.
const BUDGET_KEYS: &[&str] = &["PageBudget", "Scheduler"];

/// How sure the comparison of a site is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Verdict {
    /// Same settings and both crawls complete in the same way.
    Yes,
    /// A crawl's settings were not recorded (results of an older version).
    Unknown,
    /// The crawls differ in a way that changes the graph.
    No,
}

impl Verdict {
    /// As sites.csv writes it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Verdict::Yes => "yes",
            Verdict::Unknown => "unknown",
            Verdict::No => "no",
        }
    }
}

/// What keeps two crawls from being compared, per site.
#[derive(Debug, Clone, Default)]
pub(crate) struct Notes {
    /// Said of every site.
    pub(crate) global: Vec<String>,
    /// Whether a crawl's settings were not recorded.
    unknown: bool,
}

impl Notes {
    /// The differences of the settings every site shares.
    pub(crate) fn of(old: &Crawl, new: &Crawl) -> Notes {
        let mut notes = Notes::default();
        let (Some(a), Some(b)) = (&old.record, &new.record) else {
            notes.unknown = true;
            for c in [old, new].into_iter().filter(|c| c.record.is_none()) {
                notes.global.push(format!(
                    "settings of {} not recorded (results of an older rccrawler)",
                    c.name()
                ));
            }
            return notes;
        };
        for (what, keys) in [
            ("URL filter", FILTER_KEYS),
            ("budget", BUDGET_KEYS),
            ("duplicate rule", &["Duplicates"]),
            ("page limit", &["MaxPagesPerSite"]),
        ] {
            for key in keys {
                let (x, y) = (a.setting(key), b.setting(key));
                if x != y {
                    notes.global.push(format!("{what}: {key} {x} → {y}"));
                }
            }
        }
        notes
    }

    /// Every note on `site` (its rows in the two crawls), the shared ones first, and the
    /// verdict.
    pub(crate) fn site(
        &self,
        (old, new): (&Crawl, &Crawl),
        site: &str,
        (was, is): (Option<&SummaryRow>, Option<&SummaryRow>),
    ) -> (Verdict, Vec<String>) {
        let (was, is) = match (was, is) {
            (Some(w), Some(i)) => (w, i),
            (None, _) => return (Verdict::No, vec![format!("not in {}", old.name())]),
            (_, None) => return (Verdict::No, vec![format!("not in {}", new.name())]),
        };
        let mut notes = self.global.clone();
        if let (Some(a), Some(b)) = (&old.record, &new.record) {
            site_settings(site, a, b, &mut notes);
        }
        for state in ["page limit", "budget spent"] {
            if (was.state == state) != (is.state == state) {
                notes.push(format!("state: {} → {}", was.state, is.state));
            }
        }
        let verdict = if notes.len() > self.global.len() || (!self.unknown && !notes.is_empty()) {
            Verdict::No
        } else if self.unknown {
            Verdict::Unknown
        } else {
            Verdict::Yes
        };
        (verdict, notes)
    }
}

/// The differences of a site's own hosts.txt line.
fn site_settings(site: &str, a: &CrawlRecord, b: &CrawlRecord, notes: &mut Vec<String>) {
    let (Some(x), Some(y)) = (a.sites.get(site), b.sites.get(site)) else {
        return;
    };
    if x.max_level != y.max_level {
        notes.push(format!("maxCrawlLevel {} → {}", x.max_level, y.max_level));
    }
    // The line's fields of these kinds, as written (`(none)`: none).
    let fields = |s: &[String], keys: &[&str]| {
        let v: Vec<&str> = s
            .iter()
            .filter(|f| keys.iter().any(|k| f.starts_with(k)))
            .map(String::as_str)
            .collect();
        if v.is_empty() {
            "(none)".to_owned()
        } else {
            v.join(";")
        }
    };
    let paths = |s: &[String]| fields(s, &["include=", "exclude="]);
    if paths(&x.fields) != paths(&y.fields) {
        notes.push(format!(
            "URL filter: {} → {}",
            paths(&x.fields),
            paths(&y.fields)
        ));
    }
    let (p, q) = (
        fields(&x.fields, &["pages="]),
        fields(&y.fields, &["pages="]),
    );
    if p != q {
        notes.push(format!("page limit: {p} → {q}"));
    }
}

//! hosts.txt (SPEC §1): one site per line,
//! `protocol://host[:port];maxDownloadsAtTime;maxCrawlLevel;crawlDelay`, then optionally
//! `include=`, `exclude=` and `pages=` fields (see [`crate::model::path_rules`]).
//!
//! Read once by the application manager before anything starts. A bad line is an error that
//! names the file and the line, and nothing starts.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use thiserror::Error;
use url::Url;

use crate::model::path_rules::{LineRules, RuleError};
use crate::model::site::{Origin, SiteSpec};

/// Values for fields a line leaves out (from settings.ini).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SiteDefaults {
    /// Default `maxDownloadsAtTime`.
    pub max_downloads: u32,
    /// Default `maxCrawlLevel`.
    pub max_level: u32,
    /// Default `crawlDelay`.
    pub crawl_delay: Duration,
}

/// What is wrong with one line.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LineError {
    /// Not an http(s) URL of a site.
    #[error(
        "{0:?} is not a site address: write protocol://host[:port] with protocol http or https"
    )]
    BadSite(String),
    /// The host is not a host name.
    #[error("{why}{}", if text.contains(',') { "; the fields of a line are separated by ';', not ','" } else { "" })]
    BadHost {
        /// The address as written.
        text: String,
        /// What is wrong with its host.
        why: String,
    },
    /// The address names a page, not a site.
    #[error("{0:?} has a path, query or fragment: hosts.txt names sites (protocol://host[:port])")]
    NotASite(String),
    /// The address carries a user name or password.
    #[error(
        "{0:?} has a user name or password: hosts.txt names sites (protocol://host[:port]); rccrawler sends no credentials"
    )]
    UserInfo(String),
    /// The port is not one a server listens on.
    #[error("{text:?}: port {port} is out of range (1 to 65535)")]
    BadPort {
        /// The address as written.
        text: String,
        /// The port as written.
        port: String,
    },
    /// The line is not text (a binary file given as hosts.txt).
    #[error(
        "the line is not text (bytes that are not UTF-8, or control characters): is this file a hosts.txt?"
    )]
    NotText,
    /// A numeric field is not a non-negative integer in range.
    #[error("{field} must be an integer from {min} to {max}, got {value:?}")]
    BadNumber {
        /// Field name as in SPEC §1.
        field: &'static str,
        /// The text found.
        value: String,
        /// Smallest accepted.
        min: u64,
        /// Largest accepted.
        max: u64,
    },
    /// A field after the paper's four that is not an `include=`, `exclude=` or `pages=` one.
    #[error(transparent)]
    Rules(#[from] RuleError),
    /// The same site on two lines.
    #[error("{site} is already listed on line {first_line}")]
    Duplicate {
        /// The site.
        site: String,
        /// Where it first appeared.
        first_line: usize,
    },
}

/// hosts.txt could not be used.
#[derive(Debug, Error)]
pub enum HostsError {
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A line is invalid.
    #[error("{}:{line}: {kind}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        kind: LineError,
    },
}

/// Reads and validates hosts.txt.
pub fn load(path: &Path, defaults: SiteDefaults) -> Result<Vec<SiteSpec>, HostsError> {
    let bytes = std::fs::read(path).map_err(|source| HostsError::Io {
        path: path.to_owned(),
        source,
    })?;
    let text = String::from_utf8_lossy(&bytes);
    parse(&text, defaults).map_err(|(line, kind)| HostsError::Line {
        path: path.to_owned(),
        line,
        kind,
    })
}

/// Parses hosts.txt text; errors carry the 1-based line number.
pub fn parse(text: &str, defaults: SiteDefaults) -> Result<Vec<SiteSpec>, (usize, LineError)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut sites: Vec<SiteSpec> = Vec::new();
    // Each origin's line, to name a duplicate's first line: a lookup, not a scan of the lines
    // before (100,000 sites took 15 s to read with the scan; SPEC §11).
    let mut first_line: HashMap<Origin, usize> = HashMap::new();
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        // A binary file given as hosts.txt: its bytes are not echoed to the terminal.
        if line
            .chars()
            .any(|c| c == '\u{fffd}' || (c.is_control() && c != '\t'))
        {
            return Err((line_no, LineError::NotText));
        }
        let spec = parse_line(line, defaults).map_err(|e| (line_no, e))?;
        if let Some(&first) = first_line.get(&spec.origin) {
            return Err((
                line_no,
                LineError::Duplicate {
                    site: spec.origin.to_string(),
                    first_line: first,
                },
            ));
        }
        first_line.insert(spec.origin.clone(), line_no);
        sites.push(spec);
    }
    Ok(sites)
}

fn parse_line(line: &str, defaults: SiteDefaults) -> Result<SiteSpec, LineError> {
    let fields: Vec<&str> = line.split(';').map(str::trim).collect();
    let mut rules = LineRules::default();
    for field in fields.iter().skip(4).filter(|f| !f.is_empty()) {
        rules.add(field)?;
    }
    let origin = parse_site(fields[0])?;
    let number = |idx: usize,
                  field: &'static str,
                  min: u64,
                  max: u64,
                  default: u64|
     -> Result<u64, LineError> {
        match fields.get(idx).copied().filter(|f| !f.is_empty()) {
            None => Ok(default),
            Some(text) => text
                .parse::<u64>()
                .ok()
                .filter(|v| (min..=max).contains(v))
                .ok_or_else(|| LineError::BadNumber {
                    field,
                    value: text.to_owned(),
                    min,
                    max,
                }),
        }
    };
    let max_downloads = number(
        1,
        "maxDownloadsAtTime",
        1,
        1000,
        u64::from(defaults.max_downloads),
    )?;
    let max_level = number(2, "maxCrawlLevel", 0, 10_000, u64::from(defaults.max_level))?;
    let delay_ms = number(
        3,
        "crawlDelay",
        0,
        crate::model::robots::MAX_CRAWL_DELAY.as_secs() * 1000,
        defaults.crawl_delay.as_millis() as u64,
    )?;
    Ok(SiteSpec {
        origin,
        max_downloads: max_downloads as u32,
        max_level: max_level as u32,
        crawl_delay: Duration::from_millis(delay_ms),
        rules: if rules == LineRules::default() {
            LineRules::none()
        } else {
            std::sync::Arc::new(rules)
        },
    })
}

fn parse_site(text: &str) -> Result<Origin, LineError> {
    let bad = || LineError::BadSite(text.to_owned());
    if !text.contains("://") {
        return Err(bad());
    }
    // See: issue 49 — port 0 was crawled (and failed), 99999 got a vague message.
    if let Some(port) = written_port(text)
        && !port.parse::<u32>().is_ok_and(|p| (1..=65535).contains(&p))
    {
        return Err(LineError::BadPort {
            text: text.to_owned(),
            port: port.to_owned(),
        });
    }
    let url = Url::parse(text).map_err(|_| bad())?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(LineError::UserInfo(text.to_owned()));
    }
    let origin = Origin::of(&url).ok_or_else(bad)?;
    if let Err(why) = crate::model::site::check_host_name(origin.host()) {
        return Err(LineError::BadHost {
            text: text.to_owned(),
            why,
        });
    }
    let has_extra = url.path() != "/" || url.query().is_some() || url.fragment().is_some();
    if has_extra {
        return Err(LineError::NotASite(text.to_owned()));
    }
    Ok(origin)
}

/// The port an address writes, if it writes one (`http://host:8080/` -> `8080`).
fn written_port(text: &str) -> Option<&str> {
    let rest = text.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    // An IPv6 literal's colons are inside its brackets.
    let after_host = host_port.rsplit_once(']').map_or(host_port, |(_, p)| p);
    after_host.rsplit_once(':').map(|(_, p)| p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_user_info_and_binary_lines_are_named_for_what_they_are() {
        // See: issue 49.
        let err = |line: &str| parse(line, D).unwrap_err().1.to_string();
        assert!(err("http://alpha.test:0").contains("port 0 is out of range"));
        assert!(err("http://alpha.test:99999").contains("port 99999 is out of range"));
        assert!(err("http://user:pw@alpha.test").contains("user name or password"));
        assert!(err("http://[::1]:0").contains("port 0"));
        assert!(parse("http://[::1]:8080", D).is_ok());
        assert!(parse("http://alpha.test:65535", D).is_ok());
        let bin = "\u{7f}ELF\u{2}\u{1}\0\0\0";
        let e = err(bin);
        assert!(e.contains("not text") && !e.contains("ELF"), "{e}");
    }

    const D: SiteDefaults = SiteDefaults {
        max_downloads: 2,
        max_level: 100,
        crawl_delay: Duration::ZERO,
    };

    #[test]
    fn full_and_partial_lines() {
        let text = "\u{feff}# sites\r\nhttps://a.test;3;5;250\r\n\r\nhttp://B.test:8080;;2\nhttp://c.test/\n";
        let sites = parse(text, D).unwrap();
        assert_eq!(sites.len(), 3);
        assert_eq!(sites[0].origin.to_string(), "https://a.test");
        assert_eq!((sites[0].max_downloads, sites[0].max_level), (3, 5));
        assert_eq!(sites[0].crawl_delay, Duration::from_millis(250));
        assert_eq!(sites[1].origin.to_string(), "http://b.test:8080");
        assert_eq!((sites[1].max_downloads, sites[1].max_level), (2, 2));
        assert_eq!(sites[2].max_level, 100);
    }

    #[test]
    fn errors_name_the_line() {
        let err = |t: &str| parse(t, D).unwrap_err();
        assert_eq!(err("ftp://x.test").0, 1);
        assert!(matches!(
            err("\nhttp://x.test;0").1,
            LineError::BadNumber {
                field: "maxDownloadsAtTime",
                ..
            }
        ));
        assert!(matches!(
            err("http://x.test;1;-1").1,
            LineError::BadNumber {
                field: "maxCrawlLevel",
                ..
            }
        ));
        assert!(matches!(
            err("http://x.test;1;1;abc").1,
            LineError::BadNumber {
                field: "crawlDelay",
                ..
            }
        ));
        assert_eq!(
            err("http://x.test\n#\nhttp://X.test:80/"),
            (
                3,
                LineError::Duplicate {
                    site: "http://x.test".into(),
                    first_line: 1
                }
            )
        );
        assert!(matches!(
            err("http://x.test/page").1,
            LineError::NotASite(_)
        ));
        assert!(matches!(err("x.test").1, LineError::BadSite(_)));
        assert!(matches!(
            err("http://x.test;1;1;1;1").1,
            LineError::Rules(RuleError::Unknown(_))
        ));
        // See: issue 49 — per-site control: patterns and a page cap after the four fields,
        // the paper's lines unchanged.
        let ok = parse(
            "http://x.test;1;2;0;include=/docs/;exclude=/docs/old/;pages=50\nhttp://y.test;;;;\n",
            D,
        )
        .unwrap();
        assert_eq!(ok[0].rules.max_pages, Some(50));
        assert!(ok[0].rules.allows("/docs/a") && !ok[0].rules.allows("/docs/old/a"));
        assert_eq!(*ok[1].rules, LineRules::default());
        // Lines without rules share one value: no allocation per site.
        assert!(std::sync::Arc::ptr_eq(&ok[1].rules, &LineRules::none()));
        let e = parse("http://x.test\nhttp://z.test;1;1;0;include=docs", D).unwrap_err();
        assert_eq!(e.0, 2);
        assert!(e.1.to_string().contains("\"docs\""), "{}", e.1);
        // See: issue 17 — a line written with commas became a host named "alpha.test,2,1,0".
        let e = err("http://alpha.test,2,1,0").1.to_string();
        assert!(
            e.contains("\"alpha.test,2,1,0\" is not a host name")
                && e.contains("separated by ';', not ','"),
            "{e}"
        );
        assert!(matches!(err("http://a..test").1, LineError::BadHost { .. }));
        assert!(parse("http://10.0.0.1:8080\nhttp://[::1]\nhttp://my_host.lan", D).is_ok());
    }

    #[test]
    fn load_error_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hosts.txt");
        std::fs::write(&path, "http://ok.test\nmailto:me\n").unwrap();
        let e = load(&path, D).unwrap_err().to_string();
        assert!(e.contains("hosts.txt:2:"), "{e}");
    }
}

//! settings.ini (SPEC §1), read in three stages:
//!
//! 1. [`ini`] — the file becomes a [`RawSettings`] map of strings, with the line of each key;
//! 2. `values` — each key, as written or its default from the key table ([`crate::formats::setting_keys`]), becomes a
//!    typed value (an error names the key, the value and what is accepted);
//! 3. `rules` — rules across keys (a topic filter needs keywords, a user agent needs a
//!    product token…).
//!
//! The typed settings are grouped by who reads them (HTTP, logs, state, faults, sites, …);
//! threads only ever see `&Settings`. Component names (`DT0`, `BMICDM`, …) are kept as
//! written in [`ComponentNames`]: which names exist, and what choosing one implies, is the
//! component registry's business (`Registry::resolve`).

mod error;
pub mod ini;
pub mod record;
mod rules;
mod sections;
mod values;

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::num::{NonZeroU64, NonZeroUsize};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

pub use crate::formats::setting_keys::MAX_URL_LENGTH;

use crate::formats::setting_keys as keys;
pub use error::{Location, SettingsError, Warning};
pub use ini::RawSettings;
pub use sections::*;

/// A database URL with its password replaced, for messages (`DatabaseUrl` in a settings
/// error, the database's errors).
pub fn redact(url: &str) -> String {
    if let Some((scheme, rest)) = url.split_once("://")
        && let Some((auth, host)) = rest.split_once('@')
        && let Some((user, _)) = auth.split_once(':')
    {
        return format!("{scheme}://{user}:***@{host}");
    }
    url.split_whitespace()
        .map(|kv| {
            if kv.starts_with("password=") {
                "password=***"
            } else {
                kv
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

use crate::formats::hosts::SiteDefaults;
use crate::model::bandit::RewardKind;
use crate::model::sites::OtherScheme;
use crate::model::url_filter::key_domain::KeyDomainSource;
use crate::model::url_filter::topic::TopicSettings;
use values::{Values, list};

/// Validated settings, grouped by who reads them. Built once; shared read-only by every
/// thread.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The components, by name.
    pub components: ComponentNames,
    /// How many threads of each kind.
    pub threads: ThreadSettings,
    /// When the crawl stops by itself.
    pub stop: StopSettings,
    /// The saved crawl state.
    pub state: StateSettings,
    /// The result files.
    pub results: ResultSettings,
    /// The log files and the console.
    pub logs: LogSettings,
    /// Requests.
    pub http: HttpSettings,
    /// What is crawled of a site, and its defaults.
    pub sites: SiteRules,
    /// Retries, back-off and sites taken as down.
    pub faults: FaultSettings,
    /// `TimeQuantumSeconds`: the time slice of the `TimeQuantum` scheduler.
    pub time_quantum: Duration,
    /// The page budget and the budget rules' parameters.
    pub bandit: BanditSettings,
    /// The multi-host filters' parameters (SPEC §6).
    pub scope: ScopeSettings,
    /// Where `PgDM` keeps the crawl (SPEC §10).
    pub database: DatabaseSettings,
    /// `Render` and the browser's settings (SPEC §18).
    pub render: crate::crawl::render::RenderOptions,
    /// Keys settings.ini sets, with their values and lines as written (defaults are not in
    /// it). Shared by the copies of the settings (a `Resolve` line can be megabytes).
    written: Arc<BTreeMap<String, ini::Written>>,
    /// The file they came from.
    path: PathBuf,
}

impl Settings {
    /// Reads and validates a settings.ini file. Relative paths in it are taken relative to
    /// the file's folder.
    pub fn load(path: &Path) -> Result<(Settings, Vec<Warning>), SettingsError> {
        let bytes = std::fs::read(path).map_err(|source| SettingsError::Io {
            path: path.to_owned(),
            source,
        })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
            SettingsError::NotUtf8 {
                at: Location {
                    path: path.to_owned(),
                    line: Some(line),
                },
            }
        })?;
        let raw = RawSettings::from_ini(&text, path)?;
        if raw.is_recorded() {
            // A crawl record's relative paths are the crawl's own (`ResultFolder = results`):
            // from the folder it is run in, a repeated crawl writes there, not inside the
            // results folder that holds the record.
            let (settings, mut warnings) = Settings::from_raw(&raw, Path::new(""))?;
            warnings.insert(
                0,
                Warning::note(
                    Location {
                        path: path.to_owned(),
                        line: None,
                    },
                    "a crawl's record: its settings are the crawl's as it ran; relative paths \
                     start from the folder rccrawler runs in"
                        .to_owned(),
                ),
            );
            return Ok((settings, warnings));
        }
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Settings::from_raw(&raw, &base)
    }

    /// Validates raw settings; `base` is the folder relative paths start from.
    pub fn from_raw(
        raw: &RawSettings,
        base: &Path,
    ) -> Result<(Settings, Vec<Warning>), SettingsError> {
        let mut warnings = rules::check_keys(raw)?;
        let v = Values { raw, base };
        let settings = Settings {
            components: components(&v),
            threads: threads(&v)?,
            stop: StopSettings {
                timeout: v.seconds("TimeoutSeconds")?,
                stop_file: v.path("StopFile"),
            },
            state: StateSettings {
                save: v.flag("SaveState")?,
                folder: v.path("StateFolder"),
                checkpoint_interval: v.seconds("CheckpointSeconds")?,
            },
            results: ResultSettings {
                folder: v.path("ResultFolder"),
                save_duplicates: v.flag("SaveDuplicates")?,
                archive: v.choice("Archive")? == "warc",
                archive_file_bytes: v.int("ArchiveFileMB")? * 1_000_000,
                bvgraph: v.choice("GraphFormat")? == "bvgraph",
                external_link_context: v.small("ExternalLinkContext")?,
                network_by_host: v.choice("NetworkUnit")? == "host",
                network_subsets: subsets(&v)?,
                network_entities: match v.optional_path("NetworkEntities") {
                    Some(path) => Some(std::sync::Arc::new(
                        crate::analysis::network::Entities::load(&path)?,
                    )),
                    None => None,
                },
            },
            logs: LogSettings {
                common_log: v.path("CommonLogFile"),
                error_log: v.path("ErrorLogFile"),
                display_common_log: v.flag("DisplayCommonLog")?,
                display_error_log: v.flag("DisplayErrorLog")?,
                progress_interval: v.seconds("ProgressSeconds")?,
                status_address: v.socket_address("StatusAddress")?,
            },
            http: HttpSettings {
                user_agent: v
                    .text("UserAgent")
                    .replace("<version>", env!("CARGO_PKG_VERSION")),
                request_timeout: v.seconds("RequestTimeoutSeconds")?,
                connect_timeout: v.seconds("ConnectTimeoutSeconds")?,
                max_page_bytes: v.int("MaxPageBytes")?,
                resolve: parse_resolve(&v)?.into(),
                ca_file: v.optional_path("CaFile"),
                rebuild_from: None,
                recrawl: v.optional_path("Recrawl"),
                cookies: v.flag("Cookies")?,
            },
            sites: site_rules(&v)?,
            faults: FaultSettings {
                max_retries: v.small("MaxRetries")?,
                retry_base_delay: v.millis("RetryBaseDelayMs")?,
                max_retry_after: v.seconds("MaxRetryAfterSeconds")?,
                site_down_after: v.small("SiteDownAfterFailures")?,
            },
            time_quantum: v.seconds("TimeQuantumSeconds")?,
            bandit: bandit(&v)?,
            database: DatabaseSettings {
                url: database_url(&v)?,
                crawl: v.text("CrawlName").to_owned(),
                lease: v.seconds("LeaseSeconds")?,
                scopes_per_process: NonZeroUsize::new(v.small("ScopesPerProcess")?),
            },
            scope: scope(&v)?,
            render: crate::crawl::render::RenderOptions {
                mode: crate::crawl::render::RenderMode::parse(v.choice("Render")?)
                    .unwrap_or_default(),
                idle: v.millis("RenderIdleMillis")?,
                timeout: v.seconds("RenderTimeoutSeconds")?,
                tabs: v.small("RenderTabs")?,
                chromium: v.optional_path("ChromiumPath"),
            },
            written: Arc::new(normalized(raw)?),
            path: raw.path().to_owned(),
        };
        warnings.extend(rules::check(&settings)?);
        Ok((settings, warnings))
    }

    /// Settings with every default, paths relative to `base` (for tests and tools).
    pub fn defaults(base: &Path) -> Settings {
        Settings::from_raw(&RawSettings::default(), base)
            .expect("the defaults are valid")
            .0
    }

    /// The longest body any answer of the crawl may have: `MaxPageBytes`, or
    /// `MaxDocumentBytes` when documents are nodes and it is larger (SPEC §19).
    pub fn max_body_bytes(&self) -> u64 {
        let documents = &self.sites.documents;
        match documents.enabled {
            true => self.http.max_page_bytes.max(documents.max_bytes),
            false => self.http.max_page_bytes,
        }
    }

    /// The product token robots.txt groups are matched against.
    pub fn robots_agent(&self) -> &str {
        crate::model::robots::product_token(&self.http.user_agent)
    }

    /// Whether settings.ini sets `key` (rather than leaving it to its default).
    pub fn is_written(&self, key: &str) -> bool {
        self.written.contains_key(key)
    }

    /// The text of `key`: as written, else its default (empty for a key not in the table).
    pub fn text(&self, key: &str) -> &str {
        match self.written.get(key) {
            Some(w) => &w.value,
            // A yes/no default written `1` or `0` in the key table reads as the written
            // values do: `yes` or `no`.
            None => keys::find(key).map_or("", |k| match k.kind {
                keys::ValueKind::Flag => keys::normal_flag(k.default),
                _ => k.default,
            }),
        }
    }

    /// Where `key` is written (the file alone for a key left to its default).
    pub fn location(&self, key: &str) -> Location {
        Location {
            path: self.path.clone(),
            line: self.written.get(key).and_then(|w| w.line),
        }
    }

    /// The file the settings came from.
    pub fn file(&self) -> &Path {
        &self.path
    }

    /// Checks, before anything is fetched, that every folder the crawl writes into can be
    /// written (creating it): `ResultFolder`, `StateFolder` when state is saved, and the
    /// log files' folders. A crawl must not run for hours to fail at its first write.
    pub fn check_folders(&self) -> Result<(), SettingsError> {
        let mut folders = vec![("ResultFolder", self.results.folder.clone())];
        if self.state.save {
            folders.push(("StateFolder", self.state.folder.clone()));
        }
        for (key, file) in [
            ("CommonLogFile", &self.logs.common_log),
            ("ErrorLogFile", &self.logs.error_log),
        ] {
            if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
                folders.push((key, dir.to_path_buf()));
            }
        }
        for (key, dir) in folders {
            let tried = std::fs::create_dir_all(&dir)
                .and_then(|()| tempfile::NamedTempFile::new_in(&dir).map(drop));
            if let Err(source) = tried {
                return Err(SettingsError::Unwritable {
                    at: self.location(key),
                    key: key.to_owned(),
                    path: dir,
                    source,
                });
            }
        }
        Ok(())
    }

    /// Checks, before a crawl starts, that `StatusAddress` can be listened on: a port in use
    /// was a warning, and then a crawl without the page that was asked for (issue 49).
    /// Checked by listening and letting go; the page listens again when the crawl starts.
    pub fn check_status_address(&self) -> Result<(), SettingsError> {
        let Some(addr) = self.logs.status_address else {
            return Ok(());
        };
        match std::net::TcpListener::bind(addr) {
            Ok(listener) => {
                drop(listener);
                Ok(())
            }
            Err(source) => Err(SettingsError::StatusAddress {
                at: self.location("StatusAddress"),
                addr,
                source,
            }),
        }
    }
}

/// `DatabaseUrl`: empty, or what PostgreSQL takes (checked here, so that a wrong one is named
/// with its line before anything starts; its password is never shown).
fn database_url(v: &Values<'_>) -> Result<String, SettingsError> {
    let url = v.text("DatabaseUrl");
    if url.is_empty() {
        return Ok(String::new());
    }
    match <postgres::Config as std::str::FromStr>::from_str(url) {
        Ok(_) => Ok(url.to_owned()),
        Err(e) => Err(v.bad(
            "DatabaseUrl",
            &redact(url),
            format!("not a PostgreSQL URL ({e}); e.g. postgres://user:password@host:5432/database"),
        )),
    }
}

/// `NetworkSubsets`: lower bounds, at least 1, strictly ascending.
fn subsets(v: &Values<'_>) -> Result<Vec<u32>, SettingsError> {
    let text = v.text("NetworkSubsets");
    let bounds: Option<Vec<u32>> = text
        .split(',')
        .map(|b| b.trim().parse::<u32>().ok().filter(|&n| n >= 1))
        .collect();
    match bounds {
        Some(b) if !b.is_empty() && b.windows(2).all(|w| w[0] < w[1]) => Ok(b),
        _ => Err(v.bad(
            "NetworkSubsets",
            text,
            "whole numbers from 1 up, ascending, comma-separated (1,2,5,10)",
        )),
    }
}

fn components(v: &Values<'_>) -> ComponentNames {
    ComponentNames {
        manager: v.name("ApplicationManager"),
        data_manager: v.name("DataManager"),
        downloader: v.name("DownloadingThread"),
        parser: v.name("ParsingThread"),
        routine: v.name("RoutineThread"),
        url_filter: v.name("UrlAnalyzingThread"),
        robots: v.name("RobotsTxtClass"),
        finishers: v.names("ApplicationFinishers"),
        unloaders: v.names("ResultUnloaders"),
        scheduler: v.name("Scheduler"),
        renderer: v.name("Renderer"),
    }
}

fn threads(v: &Values<'_>) -> Result<ThreadSettings, SettingsError> {
    let budgeted = v.int("PageBudget")? > 0;
    let downloading = match NonZeroUsize::new(v.small("DownloadingThreadsCount")?) {
        None if budgeted => NonZeroUsize::new(BUDGET_DOWNLOADERS),
        n => n,
    };
    // A scope with a request in flight cannot be parked: room for the downloads' own.
    let scopes_in_memory = match NonZeroUsize::new(v.small("ScopesInMemory")?) {
        None if budgeted => NonZeroUsize::new(
            downloading
                .map_or(0, |d| d.get().saturating_mul(BUDGET_SCOPES_PER_DOWNLOAD))
                .max(BUDGET_SCOPES_IN_MEMORY_MIN),
        ),
        n => n,
    };
    Ok(ThreadSettings {
        parsing: v.nonzero("ParsingThreadsCount")?,
        downloading,
        active_scopes: NonZeroUsize::new(v.small("ActiveScopes")?),
        scopes_in_memory,
    })
}

fn site_rules(v: &Values<'_>) -> Result<SiteRules, SettingsError> {
    Ok(SiteRules {
        defaults: SiteDefaults {
            max_downloads: v.small("DefaultMaxDownloadsAtTime")?,
            max_level: v.small("DefaultMaxCrawlLevel")?,
            crawl_delay: v.millis("DefaultCrawlDelay")?,
        },
        max_url_length: v.small("MaxUrlLength")?,
        max_pages: v.small("MaxPagesPerSite")?,
        max_urls: v.small("MaxUrlsPerSite")?,
        max_links_per_page: v.small("MaxLinksPerPage")?,
        max_segment_repeats: v.small("MaxPathSegmentRepeats")?,
        max_query_parameters: v.small("MaxQueryParameters")?,
        trap_levels: v.small("TrapLevels")?,
        trap_pattern_urls: v.small("TrapPatternUrls")?,
        follow_nofollow: v.flag("FollowNofollow")?,
        sitemaps: v.flag("Sitemaps")?,
        sitemap_seeds: v.flag("SitemapSeeds")?,
        other_scheme_links: match v.choice("OtherSchemeLinks")? {
            "Ignore" => OtherScheme::Ignore,
            _ => OtherScheme::Internal,
        },
        meta_refresh_max_delay: v.small("MetaRefreshMaxDelay")?,
        duplicates: match v.choice("Duplicates")? {
            "exact" => crate::model::fold::Duplicates::Exact,
            _ => crate::model::fold::Duplicates::Fold,
        },
        documents: sections::DocumentSettings {
            enabled: v.flag("Documents")?,
            max_bytes: v.int("MaxDocumentBytes")?,
            page_text: v.flag("PageText")?,
            max_text_bytes: v.small("MaxTextBytes")?,
        },
    })
}

fn bandit(v: &Values<'_>) -> Result<BanditSettings, SettingsError> {
    Ok(BanditSettings {
        budget: NonZeroU64::new(v.int("PageBudget")?),
        reward: match v.choice("BanditReward")? {
            "AllExternal" => RewardKind::AllExternal,
            _ => RewardKind::NewExternal,
        },
        tuning: crate::model::bandit::Tuning {
            r2_step: v.small("R2Step")?,
            r3_initial: v.small("R3Initial")?,
            window: v.small("BanditWindow")?,
            discount: v.decimal("BanditDiscount")?,
            prior_pages: v.decimal("BanditPrior")?,
            exploration: v.decimal("BanditExploration")?,
            seed: v.int("BanditSeed")?,
        },
    })
}

fn scope(v: &Values<'_>) -> Result<ScopeSettings, SettingsError> {
    Ok(ScopeSettings {
        common_labels: list(v.text("CommonDomainLabels")),
        key_domain_source: match v.choice("KeyDomainSource")? {
            "PublicSuffix" => KeyDomainSource::PublicSuffix,
            _ => KeyDomainSource::Labels,
        },
        topic: if v.flag("TopicFilter")? {
            Some(TopicSettings {
                keywords: list(v.text("TopicKeywords")),
                body_weight: v.decimal("TopicBodyWeight")?,
                title_weight: v.decimal("TopicTitleWeight")?,
                gain: v.decimal("TopicGain")?,
                threshold: v.decimal("TopicThreshold")?,
            })
        } else {
            None
        },
    })
}

fn parse_resolve(v: &Values<'_>) -> Result<Vec<ResolveEntry>, SettingsError> {
    let text = v.text("Resolve");
    let bad = |item: &str| {
        v.bad(
            "Resolve",
            item,
            "comma-separated host:address or host:port:address entries",
        )
    };
    let mut out = Vec::new();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (host, rest) = item.split_once(':').ok_or_else(|| bad(item))?;
        let parse_addr = |s: &str| {
            s.trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<IpAddr>()
                .ok()
        };
        let (port, addr) = match parse_addr(rest) {
            Some(addr) => (None, addr),
            None => {
                let (port, addr) = rest.split_once(':').ok_or_else(|| bad(item))?;
                let port = port.parse::<u16>().map_err(|_| bad(item))?;
                (Some(port), parse_addr(addr).ok_or_else(|| bad(item))?)
            }
        };
        // `*.test`: every host under `test` (curl's wildcard, for a suffix): a benchmark's
        // million generated sites need one entry, not a million.
        let named = host.strip_prefix("*.").unwrap_or(host);
        let checked = match crate::model::site::check_host_name(named) {
            Ok(()) if named != host && named.parse::<IpAddr>().is_ok() => {
                Err(format!("{named:?} is an address, not a domain"))
            }
            checked => checked,
        };
        if let Err(why) = checked {
            return Err(v.bad(
                "Resolve",
                item,
                format!(
                    "{why} (one host name per entry, or `*.` and a domain for every host under it)"
                ),
            ));
        }
        out.push(ResolveEntry {
            host: host.to_ascii_lowercase(),
            port,
            addr,
        });
    }
    Ok(out)
}

/// The keys settings.ini sets, a yes/no value written as `yes` or `no` whichever of the
/// accepted spellings was used (so that crawl.ini, the archive's warcinfo and `compare` see one
/// spelling); a yes/no key with any other value is refused, naming the values it takes.
fn normalized(raw: &RawSettings) -> Result<BTreeMap<String, ini::Written>, SettingsError> {
    let mut out = BTreeMap::new();
    for (k, w) in raw.written() {
        let mut w = w.clone();
        if keys::find(k).is_some_and(|d| matches!(d.kind, keys::ValueKind::Flag)) {
            match keys::flag_value(&w.value) {
                Some(b) => w.value = if b { "yes" } else { "no" }.to_owned(),
                None => {
                    return Err(SettingsError::BadValue {
                        at: Location {
                            path: raw.path().to_owned(),
                            line: w.line,
                        },
                        key: k.to_owned(),
                        value: w.value.clone(),
                        expected: values::FLAG_VALUES.to_owned(),
                    });
                }
            }
        }
        out.insert(k.to_owned(), w);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<(Settings, Vec<Warning>), SettingsError> {
        let raw = RawSettings::from_ini(text, Path::new("settings.ini"))?;
        Settings::from_raw(&raw, Path::new("/base"))
    }

    #[test]
    fn pascal_case_keys_and_inline_comments() {
        let (s, w) = load("ParsingThreadsCount = 3 ; three parsers\nUrlAnalyzingThread = EmptyUAT          ; or KeyDomainUAT\n").unwrap();
        assert_eq!(s.threads.parsing.get(), 3);
        assert_eq!(s.components.url_filter, "EmptyUAT");
        assert!(w.is_empty(), "{w:?}");
    }

    #[test]
    fn a_latin_1_file_and_a_wrong_database_url_are_named_with_their_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.ini");
        std::fs::write(&path, b"TimeoutSeconds = 60\nUserAgent = caf\xe9\n").unwrap();
        let e = Settings::load(&path).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("{}:2: not UTF-8", path.display())),
            "{e}"
        );
        let e = load("\n\nDatabaseUrl = postgres://crawler:s3cret@db:notaport/crawl\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("settings.ini:3: DatabaseUrl = "), "{e}");
        assert!(
            !e.contains("s3cret") && e.contains("***"),
            "the password is never shown: {e}"
        );
        let (s, _) = load("DatabaseUrl = postgres://crawler:pw@127.0.0.1:5432/crawl\n").unwrap();
        assert_eq!(s.database.url, "postgres://crawler:pw@127.0.0.1:5432/crawl");
    }

    #[test]
    fn status_address_is_on_loopback_by_default_off_when_empty_and_must_be_an_address() {
        let (s, _) = load("").unwrap();
        assert_eq!(
            s.logs.status_address,
            Some("127.0.0.1:0".parse().unwrap()),
            "a page for every crawl, on a free loopback port"
        );
        let (s, _) = load("StatusAddress =\n").unwrap();
        assert_eq!(s.logs.status_address, None, "empty: off");
        let (s, _) = load("StatusAddress = 127.0.0.1:8765\n").unwrap();
        assert_eq!(
            s.logs.status_address,
            Some("127.0.0.1:8765".parse().unwrap())
        );
        let e = load("\nStatusAddress = localhost\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("settings.ini:2:") && e.contains("127.0.0.1:8765"),
            "{e}"
        );
    }

    #[test]
    fn quoted_values_as_in_the_paper() {
        let (s, _) =
            load("ApplicationFinishers = \"WorkIsDoneAF,TimeoutAF\"\nResultFolder = \"result\"\n")
                .unwrap();
        assert_eq!(s.components.finishers, ["WorkIsDoneAF", "TimeoutAF"]);
        assert_eq!(s.results.folder, PathBuf::from("/base/result"));
    }

    #[test]
    fn a_paper_key_is_a_note_naming_its_line() {
        let (_, w) = load("\nDownloadingThreadPDChunkSizeMultiplier = 5\n").unwrap();
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].is_note() && w[0].text.contains("DownloadingThreadPDChunkSizeMultiplier"));
        assert_eq!(
            w[0].to_string(),
            "note: settings.ini:2: DownloadingThreadPDChunkSizeMultiplier is a tuning knob of the RCCrawler paper's engine; this engine does not need it (accepted, not used)"
        );
    }

    // See: issue 69 — a budgeted crawl thaws a site at almost every fetch whatever the number
    // kept live, so its automatic number is smaller, with room for every download in flight.
    #[test]
    fn scopes_in_memory_is_automatic_by_the_budget_and_the_downloads() {
        let live = |text: &str| {
            load(text)
                .unwrap()
                .0
                .threads
                .scopes_in_memory
                .map(|n| n.get())
        };
        assert_eq!(live(""), None, "no budget: the data manager's own (256)");
        assert_eq!(live("PageBudget = 100\n"), Some(64));
        assert_eq!(
            live("PageBudget = 100\nDownloadingThreadsCount = 50\n"),
            Some(200)
        );
        assert_eq!(
            live("PageBudget = 100\nDownloadingThreadsCount = 2\n"),
            Some(64)
        );
        assert_eq!(live("PageBudget = 100\nScopesInMemory = 7\n"), Some(7));
        assert_eq!(live("ScopesInMemory = 9\n"), Some(9));
    }

    // See: issue 17 — a typo'd key was a warning, then an unbudgeted crawl; a [crawl] header
    // made every later key unknown; a key set twice silently took the last value.
    #[test]
    fn unknown_keys_sections_and_keys_set_twice_are_errors_naming_the_line() {
        let e = load("ParsingThreadsCount = 2\nPageBudgt = 100\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "settings.ini:2: unknown key PageBudgt (did you mean PageBudget?)"
        );
        let e = load("parsingthreadscount = 2\n").unwrap_err().to_string();
        assert!(e.contains("did you mean ParsingThreadsCount?"), "{e}");
        let e = load("NoSuch = 1\n").unwrap_err().to_string();
        assert_eq!(e, "settings.ini:1: unknown key NoSuch");
        let e = load("; c\n[crawl]\nPageBudget = 5\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("settings.ini:2: section header [crawl]"),
            "{e}"
        );
        let e = load("PageBudget = 5\nTimeoutSeconds = 9\nPageBudget = 6\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "settings.ini:3: PageBudget is set again (first on line 1); set each key once"
        );
    }

    #[test]
    fn value_errors_name_the_file_and_line() {
        let raw =
            RawSettings::from_ini("\nTimeoutSeconds = soon\n", Path::new("/p/s3.ini")).unwrap();
        let e = Settings::from_raw(&raw, Path::new("/p"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "/p/s3.ini:2: TimeoutSeconds = \"soon\": an integer from 1 to 31536000"
        );
    }

    #[test]
    fn the_papers_multi_line_quoted_list_reads_as_one_value() {
        // As the RCCrawler paper prints its settings.ini: a value broken over two lines.
        let (s, _) =
            load("ApplicationFinishers = \"WorkIsDoneAF,  \nTimeoutAF,StopFileAF\"  \n").unwrap();
        assert_eq!(
            s.components.finishers,
            ["WorkIsDoneAF", "TimeoutAF", "StopFileAF"]
        );
    }

    #[test]
    fn new_keys_of_the_real_web() {
        let (s, _) =
            load("OtherSchemeLinks = ignore\nCaFile = certs/ca.pem\nMetaRefreshMaxDelay = 0\n")
                .unwrap();
        assert_eq!(s.sites.other_scheme_links, OtherScheme::Ignore);
        assert_eq!(s.http.ca_file, Some(PathBuf::from("/base/certs/ca.pem")));
        assert_eq!(s.sites.meta_refresh_max_delay, 0);
        let (d, _) = load("").unwrap();
        assert_eq!(
            (d.sites.other_scheme_links, d.http.ca_file),
            (OtherScheme::Internal, None)
        );
        let e = load("OtherSchemeLinks = Maybe\n").unwrap_err().to_string();
        assert!(e.contains("one of Internal, Ignore"), "{e}");
    }

    #[test]
    fn invalid_values_name_the_key_and_range() {
        let e = load("ParsingThreadsCount = 0\n").unwrap_err().to_string();
        assert!(
            e.contains("ParsingThreadsCount") && e.contains("from 1 to 256"),
            "{e}"
        );
        let e = load("TimeoutSeconds = -5\n").unwrap_err().to_string();
        assert!(e.contains("TimeoutSeconds"), "{e}");
        let e = load("SaveDuplicates = maybe\n").unwrap_err().to_string();
        assert!(e.contains("SaveDuplicates"), "{e}");
    }

    #[test]
    fn resolve_entries() {
        let parse_resolve = |text: &str| {
            let mut raw = RawSettings::default();
            raw.set("Resolve", text);
            Settings::from_raw(&raw, Path::new("/")).map(|(s, _)| s.http.resolve)
        };
        let r = parse_resolve("a.test:127.0.0.1, B.test:8080:127.0.0.2,c.test:[::1]").unwrap();
        assert_eq!(
            r[0],
            ResolveEntry {
                host: "a.test".into(),
                port: None,
                addr: "127.0.0.1".parse().unwrap()
            }
        );
        assert_eq!(r[1].port, Some(8080));
        assert_eq!(r[1].host, "b.test");
        assert_eq!(r[2].addr, "::1".parse::<IpAddr>().unwrap());
        assert!(parse_resolve("nohost").is_err());
        // See: issue 17 — a wildcard was accepted, and every site was then unreachable; a
        // leading `*.` is now every host under a domain (the resolver's tests say how).
        let r = parse_resolve("*.Test:127.0.0.1").unwrap();
        assert_eq!(r[0].host, "*.test");
        for bad in [
            "*:127.0.0.1",
            "a.*.test:127.0.0.1",
            "*test:127.0.0.1",
            "*.:127.0.0.1",
            "*.127.0.0.2:127.0.0.1",
        ] {
            let e = parse_resolve(bad).unwrap_err().to_string();
            assert!(e.contains("`*.` and a domain"), "{bad}: {e}");
        }
    }

    #[test]
    fn user_agent_version_placeholder() {
        let (s, _) = load("").unwrap();
        assert_eq!(
            s.http.user_agent,
            format!("rccrawler/{}", env!("CARGO_PKG_VERSION"))
        );
        assert_eq!(s.robots_agent(), "rccrawler");
    }

    #[test]
    fn rendered_ini_loads_with_no_warnings_and_all_defaults() {
        let (s, w) = load(&keys::render_ini()).unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(s.threads.parsing.get(), 2);
    }
}

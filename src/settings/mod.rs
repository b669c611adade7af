//! settings.ini (SPEC §1) in two stages: the file becomes a [`RawSettings`] map of strings
//! (through the `config` crate's INI reader), then [`Settings::from_raw`] validates every key
//! against the key table into typed values. Threads only ever see `&Settings`.
//!
//! Component names (`DT0`, `BMICDM`, …) are kept as written in [`ComponentNames`]: which names
//! exist is the component registry's business, which checks them before
//! anything starts.

pub mod keys;

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::time::Duration;

use thiserror::Error;

use crate::bandit::{Params, RewardKind};
use crate::hosts::SiteDefaults;
use crate::sites::OtherScheme;
use crate::url_filter::key_domain::KeyDomainSource;
use crate::url_filter::topic::TopicSettings;
use keys::{KEYS, KeyDef, ValueKind};

/// settings.ini could not be used.
#[derive(Debug, Error)]
pub enum SettingsError {
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid INI.
    #[error("{}: {message}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// A component name is not known.
    #[error("{key} = {name}: unknown component; valid names: {}", valid.join(", "))]
    UnknownComponent {
        /// The key.
        key: String,
        /// The name given.
        name: String,
        /// Every valid name.
        valid: Vec<String>,
    },
    /// A value is out of range or of the wrong form.
    #[error("{key} = {value:?}: {expected}")]
    BadValue {
        /// The key.
        key: String,
        /// The value given.
        value: String,
        /// What is accepted.
        expected: String,
    },
}

/// The keys and values of settings.ini as written, before validation.
#[derive(Debug, Clone, Default)]
pub struct RawSettings {
    values: BTreeMap<String, String>,
}

impl RawSettings {
    /// Parses INI text. Keys keep their case; `; comments` after a value are dropped.
    pub fn from_ini(text: &str, path: &Path) -> Result<Self, SettingsError> {
        use config::Source;
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let file = config::File::from_str(text, config::FileFormat::Ini);
        let map = file.collect().map_err(|e| SettingsError::Syntax {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        let mut values = BTreeMap::new();
        for (key, value) in map {
            match value.clone().into_string() {
                Ok(s) => {
                    values.insert(key, s);
                }
                Err(_) => {
                    // A [section]: we use none, so its keys are unknown keys.
                    if let Ok(table) = value.into_table() {
                        for (k, v) in table {
                            values.insert(
                                format!("[{key}] {k}"),
                                v.into_string().unwrap_or_default(),
                            );
                        }
                    }
                }
            }
        }
        Ok(RawSettings { values })
    }

    /// Sets one key (tests and the demo use this to override the file).
    pub fn set(&mut self, key: &str, value: impl Into<String>) {
        self.values.insert(key.to_owned(), value.into());
    }

    /// The value written for `key`, if any.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(String::as_str)
    }
}

/// One `Resolve` entry: connections to `host` (on `port`, or any port) go to `addr`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolveEntry {
    /// Host name as it appears in URLs (lower case).
    pub host: String,
    /// Only for this port, if given.
    pub port: Option<u16>,
    /// The address to connect to.
    pub addr: IpAddr,
}

/// The component chosen for each component key of settings.ini, by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComponentNames {
    /// `ApplicationManager`.
    pub manager: String,
    /// `DataManager`.
    pub data_manager: String,
    /// `DownloadingThread`.
    pub downloader: String,
    /// `ParsingThread`.
    pub parser: String,
    /// `RoutineThread`.
    pub routine: String,
    /// `UrlAnalyzingThread`.
    pub url_filter: String,
    /// `RobotsTxtClass`.
    pub robots: String,
    /// `ApplicationFinishers`, in order, each once.
    pub finishers: Vec<String>,
    /// `ResultUnloaders`, in order, each once.
    pub unloaders: Vec<String>,
    /// `Scheduler`.
    pub scheduler: String,
}

/// Validated settings. Built once; shared read-only by every thread.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The components, by name.
    pub components: ComponentNames,
    /// `ParsingThreadsCount`.
    pub parsing_threads: NonZeroUsize,
    /// `DownloadingThreadsCount`.
    pub downloading_threads: NonZeroUsize,
    /// `TimeoutSeconds`.
    pub timeout: Duration,
    /// `SaveState`.
    pub save_state: bool,
    /// `CheckpointSeconds`.
    pub checkpoint_interval: Duration,
    /// `StopFile`, resolved.
    pub stop_file: PathBuf,
    /// `ResultFolder`, resolved.
    pub result_folder: PathBuf,
    /// `StateFolder`, resolved.
    pub state_folder: PathBuf,
    /// `CommonLogFile`, resolved.
    pub common_log: PathBuf,
    /// `ErrorLogFile`, resolved.
    pub error_log: PathBuf,
    /// `SaveDuplicates`.
    pub save_duplicates: bool,
    /// `UserAgent` with `<version>` replaced.
    pub user_agent: String,
    /// `RequestTimeoutSeconds`.
    pub request_timeout: Duration,
    /// `ConnectTimeoutSeconds`.
    pub connect_timeout: Duration,
    /// `MaxPageBytes`.
    pub max_page_bytes: u64,
    /// `Resolve`.
    pub resolve: Vec<ResolveEntry>,
    /// `DefaultMaxDownloadsAtTime`, `DefaultMaxCrawlLevel`, `DefaultCrawlDelay`.
    pub site_defaults: SiteDefaults,
    /// `MaxUrlLength`.
    pub max_url_length: usize,
    /// `ExternalLinkContext` (0: off).
    pub external_link_context: usize,
    /// `MaxPagesPerSite` (0: no limit).
    pub max_pages_per_site: u32,
    /// `MaxPathSegmentRepeats`.
    pub max_segment_repeats: u32,
    /// `MaxRetries`.
    pub max_retries: u32,
    /// `RetryBaseDelayMs`.
    pub retry_base_delay: Duration,
    /// `MaxRetryAfterSeconds`.
    pub max_retry_after: Duration,
    /// `SiteDownAfterFailures`.
    pub site_down_after: u32,
    /// `TimeQuantumSeconds`.
    pub time_quantum: Duration,
    /// `ProgressSeconds`.
    pub progress_interval: Duration,
    /// `CaFile`, resolved (`None`: empty).
    pub ca_file: Option<PathBuf>,
    /// `OtherSchemeLinks`.
    pub other_scheme_links: OtherScheme,
    /// `MetaRefreshMaxDelay`, seconds.
    pub meta_refresh_max_delay: u32,
    /// `DisplayCommonLog`.
    pub display_common_log: bool,
    /// `DisplayErrorLog`.
    pub display_error_log: bool,
    /// The page budget and the budget rules' parameters.
    pub bandit: BanditSettings,
    /// The multi-host filters' parameters (SPEC §6).
    pub scope: ScopeSettings,
    /// Where `PgDM` keeps the crawl (SPEC §10).
    pub database: DatabaseSettings,
}

/// `PgDM`'s settings (SPEC §10).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatabaseSettings {
    /// `DatabaseUrl`.
    pub url: String,
    /// `CrawlName`.
    pub crawl: String,
    /// `LeaseSeconds`.
    pub lease: Duration,
    /// `ScopesPerProcess`, resolved (0 became `DownloadingThreadsCount`).
    pub scopes_per_process: usize,
}

/// `KeyDomainUAT`'s parameters (SPEC §6).
#[derive(Debug, Clone, PartialEq)]
pub struct ScopeSettings {
    /// `CommonDomainLabels`.
    pub common_labels: Vec<String>,
    /// `KeyDomainSource`.
    pub key_domain_source: KeyDomainSource,
    /// The topic stage (`TopicFilter = 1`).
    pub topic: Option<TopicSettings>,
}

/// `PageBudget` and the budget rules' parameters (SPEC §5).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BanditSettings {
    /// `PageBudget` (0: none).
    pub budget: usize,
    /// `BanditReward`.
    pub reward: RewardKind,
    /// `R2Step`.
    pub r2_step: usize,
    /// `R3Initial`.
    pub r3_initial: usize,
    /// `BanditWindow` (0: N/K).
    pub window: usize,
    /// `BanditDiscount` (0: 1 − K/N).
    pub discount: f64,
    /// `BanditPrior`.
    pub prior_pages: f64,
    /// `BanditExploration`.
    pub exploration: f64,
    /// `BanditSeed`.
    pub seed: u64,
}

impl BanditSettings {
    /// The rules' parameters for `arms` sites.
    pub fn params(&self, arms: usize) -> Params {
        Params {
            arms,
            budget: self.budget,
            r2_step: self.r2_step,
            r3_initial: self.r3_initial,
            window: self.window,
            discount: self.discount,
            prior_pages: self.prior_pages,
            exploration: self.exploration,
            seed: self.seed,
        }
    }
}

/// Something about settings.ini worth saying that does not stop the crawl.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning(pub String);

impl Warning {
    /// A note rather than a warning: nothing is wrong (a key of the paper's settings.ini
    /// that this engine does not need).
    pub fn is_note(&self) -> bool {
        self.0.starts_with(NOTE)
    }
}

/// How notes start.
const NOTE: &str = "note: ";

/// The scheduler of a budgeted crawl whose settings.ini names none.
pub const DEFAULT_BUDGET_RULE: &str = "PooledUcb";

impl Settings {
    /// Reads and validates a settings.ini file. Relative paths in it are taken relative to
    /// the file's folder.
    pub fn load(path: &Path) -> Result<(Settings, Vec<Warning>), SettingsError> {
        let text = std::fs::read_to_string(path).map_err(|source| SettingsError::Io {
            path: path.to_owned(),
            source,
        })?;
        let raw = RawSettings::from_ini(&text, path)?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Settings::from_raw(&raw, &base)
    }

    /// Validates raw settings; `base` is the folder relative paths start from.
    pub fn from_raw(
        raw: &RawSettings,
        base: &Path,
    ) -> Result<(Settings, Vec<Warning>), SettingsError> {
        let mut warnings = Vec::new();
        for key in raw.values.keys() {
            if let Some(def) = keys::find(key)
                && def.kind == ValueKind::PaperTuning
            {
                warnings.push(Warning(format!(
                    "{NOTE}settings.ini: {key} is a tuning knob of the RCCrawler paper's engine; this engine does not need it (accepted, not used)"
                )));
            }
            if keys::find(key).is_none() {
                let hint = KEYS
                    .iter()
                    .find(|k| k.name.eq_ignore_ascii_case(key))
                    .map(|k| format!(" (did you mean {}? keys are case-sensitive)", k.name))
                    .unwrap_or_default();
                warnings.push(Warning(format!(
                    "settings.ini: unknown key {key} ignored{hint}"
                )));
            }
        }
        let v = Values { raw, base };
        let site_defaults = SiteDefaults {
            max_downloads: v.int("DefaultMaxDownloadsAtTime")? as u32,
            max_level: v.int("DefaultMaxCrawlLevel")? as u32,
            crawl_delay: Duration::from_millis(v.int("DefaultCrawlDelay")?),
        };
        let components = ComponentNames {
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
        };
        let mut components = components;
        let budgeted = v.int("PageBudget")? > 0;
        if budgeted && raw.get("Scheduler").is_none() {
            components.scheduler = DEFAULT_BUDGET_RULE.to_owned();
        }
        if budgeted && !components.finishers.iter().any(|f| f == "PageBudgetAF") {
            components.finishers.push("PageBudgetAF".to_owned());
            if raw.get("ApplicationFinishers").is_some() {
                warnings.push(Warning(format!(
                    "{NOTE}settings.ini: PageBudget is set, so PageBudgetAF is added to ApplicationFinishers"
                )));
            }
        }
        let settings = Settings {
            components,
            parsing_threads: v.nonzero("ParsingThreadsCount")?,
            downloading_threads: v.nonzero("DownloadingThreadsCount")?,
            timeout: Duration::from_secs(v.int("TimeoutSeconds")?),
            save_state: v.flag("SaveState")?,
            checkpoint_interval: Duration::from_secs(v.int("CheckpointSeconds")?),
            stop_file: v.path("StopFile"),
            result_folder: v.path("ResultFolder"),
            state_folder: v.path("StateFolder"),
            common_log: v.path("CommonLogFile"),
            error_log: v.path("ErrorLogFile"),
            save_duplicates: v.flag("SaveDuplicates")?,
            user_agent: v
                .text("UserAgent")
                .replace("<version>", env!("CARGO_PKG_VERSION")),
            request_timeout: Duration::from_secs(v.int("RequestTimeoutSeconds")?),
            connect_timeout: Duration::from_secs(v.int("ConnectTimeoutSeconds")?),
            max_page_bytes: v.int("MaxPageBytes")?,
            resolve: parse_resolve(v.text("Resolve"))?,
            site_defaults,
            max_url_length: v.int("MaxUrlLength")? as usize,
            external_link_context: v.int("ExternalLinkContext")? as usize,
            max_pages_per_site: v.int("MaxPagesPerSite")? as u32,
            max_segment_repeats: v.int("MaxPathSegmentRepeats")? as u32,
            max_retries: v.int("MaxRetries")? as u32,
            retry_base_delay: Duration::from_millis(v.int("RetryBaseDelayMs")?),
            max_retry_after: Duration::from_secs(v.int("MaxRetryAfterSeconds")?),
            site_down_after: v.int("SiteDownAfterFailures")? as u32,
            time_quantum: Duration::from_secs(v.int("TimeQuantumSeconds")?),
            progress_interval: Duration::from_secs(v.int("ProgressSeconds")?),
            ca_file: (!v.text("CaFile").is_empty()).then(|| v.path("CaFile")),
            other_scheme_links: match v.choice("OtherSchemeLinks")? {
                "Ignore" => OtherScheme::Ignore,
                _ => OtherScheme::Internal,
            },
            meta_refresh_max_delay: v.int("MetaRefreshMaxDelay")? as u32,
            display_common_log: v.flag("DisplayCommonLog")?,
            display_error_log: v.flag("DisplayErrorLog")?,
            bandit: BanditSettings {
                budget: v.int("PageBudget")? as usize,
                reward: match v.choice("BanditReward")? {
                    "AllExternal" => RewardKind::AllExternal,
                    _ => RewardKind::NewExternal,
                },
                r2_step: v.int("R2Step")? as usize,
                r3_initial: v.int("R3Initial")? as usize,
                window: v.int("BanditWindow")? as usize,
                discount: v.decimal("BanditDiscount")?,
                prior_pages: v.decimal("BanditPrior")?,
                exploration: v.decimal("BanditExploration")?,
                seed: v.int("BanditSeed")?,
            },
            database: DatabaseSettings {
                url: v.text("DatabaseUrl").trim().to_owned(),
                crawl: v.text("CrawlName").trim().to_owned(),
                lease: Duration::from_secs(v.int("LeaseSeconds")?),
                scopes_per_process: match v.int("ScopesPerProcess")? as usize {
                    0 => v.nonzero("DownloadingThreadsCount")?.get(),
                    n => n,
                },
            },
            scope: ScopeSettings {
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
            },
        };
        if settings
            .scope
            .topic
            .as_ref()
            .is_some_and(|t| t.keywords.is_empty())
        {
            return Err(bad(
                "TopicKeywords",
                "",
                "at least one keyword when TopicFilter = 1",
            ));
        }
        if settings.components.data_manager == "PgDM" {
            if settings.database.url.is_empty() {
                return Err(bad(
                    "DatabaseUrl",
                    "",
                    "a PostgreSQL URL when DataManager = PgDM",
                ));
            }
            if settings.database.crawl.is_empty() {
                return Err(bad("CrawlName", "", "a name when DataManager = PgDM"));
            }
        }
        if settings.scope.topic.is_some() && settings.components.url_filter != "KeyDomainUAT" {
            warnings.push(Warning(format!(
                "TopicFilter = 1 applies to UrlAnalyzingThread = KeyDomainUAT only (here {}): ignored",
                settings.components.url_filter
            )));
        }
        if settings.user_agent.trim().is_empty() {
            return Err(bad("UserAgent", "", "must not be empty"));
        }
        if !crate::robots::is_valid_product_token(crate::robots::product_token(
            &settings.user_agent,
        )) {
            warnings.push(Warning(format!(
                "settings.ini: UserAgent {:?} does not start with a product token ([A-Za-z_-]+); robots.txt groups cannot name it",
                settings.user_agent
            )));
        }
        if settings.components.unloaders.is_empty() {
            warnings.push(Warning(
                "settings.ini: ResultUnloaders is empty: no results will be written".into(),
            ));
        }
        Ok((settings, warnings))
    }

    /// Settings with every default, paths relative to `base` (for tests and tools).
    pub fn defaults(base: &Path) -> Settings {
        Settings::from_raw(&RawSettings::default(), base)
            .expect("the defaults are valid")
            .0
    }

    /// The product token robots.txt groups are matched against.
    pub fn robots_agent(&self) -> &str {
        crate::robots::product_token(&self.user_agent)
    }
}

fn bad(key: &str, value: &str, expected: &str) -> SettingsError {
    SettingsError::BadValue {
        key: key.to_owned(),
        value: value.to_owned(),
        expected: expected.to_owned(),
    }
}

/// Key lookup with defaults from the table.
struct Values<'a> {
    raw: &'a RawSettings,
    base: &'a Path,
}

impl Values<'_> {
    fn def(&self, key: &str) -> &'static KeyDef {
        keys::find(key).expect("every key read by Settings is in the key table")
    }

    fn text(&self, key: &str) -> &str {
        self.raw
            .get(key)
            .map(str::trim)
            .unwrap_or(self.def(key).default)
    }

    fn decimal(&self, key: &str) -> Result<f64, SettingsError> {
        let ValueKind::Decimal { min, max } = self.def(key).kind else {
            unreachable!("{key} is declared as a decimal key")
        };
        let text = self.text(key);
        text.parse::<f64>()
            .ok()
            .filter(|n| n.is_finite() && (min..=max).contains(n))
            .ok_or_else(|| bad(key, text, &format!("a number from {min} to {max}")))
    }

    /// One of the words a `Choice` key accepts (matched without regard to case).
    fn choice(&self, key: &str) -> Result<&'static str, SettingsError> {
        let ValueKind::Choice(words) = self.def(key).kind else {
            unreachable!("{key} is declared as a choice key")
        };
        let text = self.text(key);
        words
            .iter()
            .find(|w| w.eq_ignore_ascii_case(text))
            .copied()
            .ok_or_else(|| bad(key, text, &format!("one of {}", words.join(", "))))
    }

    /// A component name as written.
    fn name(&self, key: &str) -> String {
        self.text(key).to_owned()
    }

    /// A comma-separated list of component names: empty items dropped, each name once.
    fn names(&self, key: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for name in self
            .text(key)
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
        {
            if !out.iter().any(|o| o == name) {
                out.push(name.to_owned());
            }
        }
        out
    }

    fn int(&self, key: &str) -> Result<u64, SettingsError> {
        let ValueKind::Integer { min, max } = self.def(key).kind else {
            unreachable!("{key} is declared as an integer key")
        };
        let text = self.text(key);
        text.parse::<u64>()
            .ok()
            .filter(|n| (min..=max).contains(n))
            .ok_or_else(|| bad(key, text, &format!("an integer from {min} to {max}")))
    }

    fn nonzero(&self, key: &str) -> Result<NonZeroUsize, SettingsError> {
        let n = self.int(key)?;
        NonZeroUsize::new(n as usize).ok_or_else(|| bad(key, self.text(key), "at least 1"))
    }

    fn flag(&self, key: &str) -> Result<bool, SettingsError> {
        match self.text(key).to_ascii_lowercase().as_str() {
            "1" | "yes" | "true" | "on" => Ok(true),
            "0" | "no" | "false" | "off" => Ok(false),
            other => Err(bad(key, other, "1 or 0")),
        }
    }

    fn path(&self, key: &str) -> PathBuf {
        let p = PathBuf::from(self.text(key));
        if p.is_absolute() {
            p
        } else {
            self.base.join(p)
        }
    }
}

/// A comma-separated list: items trimmed, empty ones dropped.
fn list(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

fn parse_resolve(text: &str) -> Result<Vec<ResolveEntry>, SettingsError> {
    let expected = "comma-separated host:address or host:port:address entries";
    let mut out = Vec::new();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (host, rest) = item
            .split_once(':')
            .ok_or_else(|| bad("Resolve", item, expected))?;
        let parse_addr = |s: &str| {
            s.trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<IpAddr>()
                .ok()
        };
        let (port, addr) = match parse_addr(rest) {
            Some(addr) => (None, addr),
            None => {
                let (port, addr) = rest
                    .split_once(':')
                    .ok_or_else(|| bad("Resolve", item, expected))?;
                let port = port
                    .parse::<u16>()
                    .map_err(|_| bad("Resolve", item, expected))?;
                (
                    Some(port),
                    parse_addr(addr).ok_or_else(|| bad("Resolve", item, expected))?,
                )
            }
        };
        if host.is_empty() {
            return Err(bad("Resolve", item, expected));
        }
        out.push(ResolveEntry {
            host: host.to_ascii_lowercase(),
            port,
            addr,
        });
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
        assert_eq!(s.parsing_threads.get(), 3);
        assert_eq!(s.components.url_filter, "EmptyUAT");
        assert!(w.is_empty(), "{w:?}");
    }

    #[test]
    fn quoted_values_as_in_the_paper() {
        let (s, _) =
            load("ApplicationFinishers = \"WorkIsDoneAF,TimeoutAF\"\nResultFolder = \"result\"\n")
                .unwrap();
        assert_eq!(s.components.finishers, ["WorkIsDoneAF", "TimeoutAF"]);
        assert_eq!(s.result_folder, PathBuf::from("/base/result"));
    }

    #[test]
    fn unknown_key_is_a_warning_and_a_paper_key_a_note() {
        let (_, w) = load(
            "DownloadingThreadPDChunkSizeMultiplier = 5\nparsingthreadscount = 2\nNoSuch = 1\n",
        )
        .unwrap();
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(w[0].is_note() && w[0].0.contains("DownloadingThreadPDChunkSizeMultiplier"));
        assert!(
            !w[1].is_note() && w[1].0.contains("unknown key NoSuch"),
            "{w:?}"
        );
        assert!(w[2].0.contains("did you mean ParsingThreadsCount"), "{w:?}");
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
        assert_eq!(s.other_scheme_links, OtherScheme::Ignore);
        assert_eq!(s.ca_file, Some(PathBuf::from("/base/certs/ca.pem")));
        assert_eq!(s.meta_refresh_max_delay, 0);
        let (d, _) = load("").unwrap();
        assert_eq!(
            (d.other_scheme_links, d.ca_file),
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
    }

    #[test]
    fn user_agent_version_placeholder() {
        let (s, _) = load("").unwrap();
        assert_eq!(
            s.user_agent,
            format!("rccrawler/{}", env!("CARGO_PKG_VERSION"))
        );
        assert_eq!(s.robots_agent(), "rccrawler");
    }

    #[test]
    fn rendered_ini_loads_with_no_warnings_and_all_defaults() {
        let (s, w) = load(&keys::render_ini()).unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(s.parsing_threads.get(), 2);
    }
}

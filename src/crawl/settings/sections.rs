//! The typed settings, grouped by who reads them: threads, stopping, state, results, logs,
//! HTTP, site rules, faults, the database, scopes, the budget rule.

use std::net::IpAddr;
use std::num::{NonZeroU64, NonZeroUsize};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::analysis::network::{NetworkSpec, Subsets, TargetScopes, Unit};
use crate::formats::hosts::SiteDefaults;
use crate::model::bandit::{Params, RewardKind};
use crate::model::sites::OtherScheme;
use crate::model::url_filter::key_domain::KeyDomainSource;
use crate::model::url_filter::topic::TopicSettings;

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
    /// `Renderer`.
    pub renderer: String,
}

/// `ParsingThreadsCount`, `DownloadingThreadsCount`, `ActiveScopes`, `ScopesInMemory`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadSettings {
    /// `ParsingThreadsCount`.
    pub parsing: NonZeroUsize,
    /// `DownloadingThreadsCount`; `None`: automatic (SPEC §11).
    pub downloading: Option<NonZeroUsize>,
    /// `ActiveScopes`; `None`: automatic.
    pub active_scopes: Option<NonZeroUsize>,
    /// `ScopesInMemory`: open scopes kept live before idle ones are parked; `None`: automatic.
    pub scopes_in_memory: Option<NonZeroUsize>,
}

/// Downloader threads started at first when their number is automatic; more start while
/// every one is busy and a site could start a request.
pub const FIRST_DOWNLOADERS: usize = 8;

/// `DownloadingThreadsCount = 0` in a budgeted crawl: the budget rule learns from every
/// fetch, and each request in flight is a choice made without its reward (believed to pay
/// nothing meanwhile, `bandit::believer`). 16, from the tuning split of
/// `bench/yield_protocol.sh` replayed 8, 16 and 32 pages ahead of the rewards (`IN_FLIGHT`):
/// the default rule's worst tuning cell against the paper's rules was −0.036 at 8 and at 16
/// (−0.035 with every reward known) but −0.048 at 32 (35 cells of 48 within 0.01, against 41),
/// while 500 sites answering in 300 ms gave 1,033 pages in 40 s with 16, 362 with 8 and
/// 1,113 with 32 (see docs/budget.md, *The price is time*).
pub const BUDGET_DOWNLOADERS: usize = 16;

/// `ScopesInMemory = 0` in a budgeted crawl: live scopes per download in flight, and at least
/// [`BUDGET_SCOPES_IN_MEMORY_MIN`]. The budget rule spreads its fetches over every site, so
/// almost every fetch thaws a parked site whether 64 or 256 are kept live (4,000 sites: as
/// fast with 16, 64 or 256 on `bench/many_sites.sh`'s web), and each live one costs memory:
/// with `PageBudget = 60000` the peak was 45 MB with 256, 41 with 64 (unbudgeted 32 MB).
pub const BUDGET_SCOPES_PER_DOWNLOAD: usize = 4;

/// The least `ScopesInMemory = 0` gives a budgeted crawl.
pub const BUDGET_SCOPES_IN_MEMORY_MIN: usize = 64;

impl ThreadSettings {
    /// The most downloader threads: the setting, or the automatic cap (what the open-file
    /// limit allows, at most 4,096).
    pub fn max_downloaders(&self) -> usize {
        match self.downloading {
            Some(n) => n.get(),
            None => crate::base::fd_limits::downloader_cap(),
        }
    }

    /// Downloader threads started with the crawl.
    pub fn first_downloaders(&self) -> usize {
        match self.downloading {
            Some(n) => n.get(),
            None => FIRST_DOWNLOADERS.min(self.max_downloaders()),
        }
    }
}

/// The finishers' settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StopSettings {
    /// `TimeoutSeconds`.
    pub timeout: Duration,
    /// `StopFile`, resolved.
    pub stop_file: PathBuf,
}

/// The saved state's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateSettings {
    /// `SaveState`.
    pub save: bool,
    /// `StateFolder`, resolved.
    pub folder: PathBuf,
    /// `CheckpointSeconds`.
    pub checkpoint_interval: Duration,
}

/// The result files' settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultSettings {
    /// `ResultFolder`, resolved.
    pub folder: PathBuf,
    /// `SaveDuplicates`.
    pub save_duplicates: bool,
    /// `Archive = warc`: every exchange kept in WARC files (SPEC §15).
    pub archive: bool,
    /// `ArchiveFileMB`, in bytes.
    pub archive_file_bytes: u64,
    /// `GraphFormat = bvgraph`: each site graph also in WebGraph's BVGraph format.
    pub bvgraph: bool,
    /// `ExternalLinkContext` (0: off).
    pub external_link_context: usize,
    /// `NetworkUnit`: accompanying sites are hosts (`true`) or registrable domains.
    pub network_by_host: bool,
    /// `NetworkSubsets`: the lower bounds of the accompanying set's classes, ascending.
    pub network_subsets: Vec<u32>,
    /// `NetworkEntities`, read: the study's web entities (SPEC §20).
    pub network_entities: Option<std::sync::Arc<crate::analysis::network::Entities>>,
}

impl ResultSettings {
    /// The network of sites these settings ask for (`NetworkUnit`, `NetworkSubsets`), with
    /// the targets' `scopes`.
    pub fn network_spec(&self, scopes: TargetScopes) -> NetworkSpec {
        NetworkSpec {
            unit: if self.network_by_host {
                Unit::Host
            } else {
                Unit::Domain
            },
            subsets: Subsets::new(&self.network_subsets),
            scopes,
            entities: self.network_entities.clone(),
        }
    }
}

/// The log files' and the console's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogSettings {
    /// `CommonLogFile`, resolved.
    pub common_log: PathBuf,
    /// `ErrorLogFile`, resolved.
    pub error_log: PathBuf,
    /// `DisplayCommonLog`.
    pub display_common_log: bool,
    /// `DisplayErrorLog`.
    pub display_error_log: bool,
    /// `ProgressSeconds`.
    pub progress_interval: Duration,
    /// `StatusAddress` (`None`: no status page).
    pub status_address: Option<std::net::SocketAddr>,
}

/// The HTTP client's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpSettings {
    /// `UserAgent` with `<version>` replaced.
    pub user_agent: String,
    /// `RequestTimeoutSeconds`.
    pub request_timeout: Duration,
    /// `ConnectTimeoutSeconds`.
    pub connect_timeout: Duration,
    /// `MaxPageBytes`.
    pub max_page_bytes: u64,
    /// `Resolve`. Shared by the copies of the settings: a test web or a benchmark lists
    /// thousands of hosts, and each copy kept its own list (SPEC §11).
    pub resolve: Arc<[ResolveEntry]>,
    /// `CaFile`, resolved (`None`: empty).
    pub ca_file: Option<PathBuf>,
    /// `Recrawl`: the earlier archive a re-crawl's conditional requests come from.
    pub recrawl: Option<PathBuf>,
    /// `rccrawler rebuild`: the archive folder the answers come from (no request is sent;
    /// the `ArchiveDT` downloader reads it).
    pub rebuild_from: Option<PathBuf>,
    /// `Cookies`: each site keeps a cookie jar (SPEC §14).
    pub cookies: bool,
}

/// What is crawled of a site (SPEC §2, §9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SiteRules {
    /// `DefaultMaxDownloadsAtTime`, `DefaultMaxCrawlLevel`, `DefaultCrawlDelay`.
    pub defaults: SiteDefaults,
    /// `MaxUrlLength`.
    pub max_url_length: usize,
    /// `MaxPagesPerSite` (0: no limit).
    pub max_pages: u32,
    /// `MaxUrlsPerSite` (0: no limit).
    pub max_urls: u32,
    /// `MaxLinksPerPage`: distinct link targets read of one page (0: no limit).
    pub max_links_per_page: u32,
    /// `MaxPathSegmentRepeats`.
    pub max_segment_repeats: u32,
    /// `MaxQueryParameters` (0: no limit).
    pub max_query_parameters: u32,
    /// `TrapLevels` (0: off).
    pub trap_levels: u32,
    /// `TrapPatternUrls` (0: off).
    pub trap_pattern_urls: u32,
    /// `FollowNofollow`: links carrying `nofollow` (and pages saying `nofollow`) are followed.
    pub follow_nofollow: bool,
    /// `Sitemaps`: each site's sitemaps are read after its robots.txt (SPEC §17).
    pub sitemaps: bool,
    /// `SitemapSeeds`: the orphans the sitemaps list are fetched as nodes (reads sitemaps).
    pub sitemap_seeds: bool,
    /// `OtherSchemeLinks`.
    pub other_scheme_links: OtherScheme,
    /// `MetaRefreshMaxDelay`, seconds.
    pub meta_refresh_max_delay: u32,
    /// `Duplicates`: which pages are one node (SPEC §2.6, §14).
    pub duplicates: crate::model::fold::Duplicates,
    /// Documents and page text (SPEC §19).
    pub documents: DocumentSettings,
}

/// Documents as nodes and the text of every node (SPEC §19).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DocumentSettings {
    /// `Documents`: answers whose Content-Type is a document are nodes.
    pub enabled: bool,
    /// `MaxDocumentBytes`: a longer document is a bad link.
    pub max_bytes: u64,
    /// `PageText`: text.csv is written.
    pub page_text: bool,
    /// `MaxTextBytes`: a node's text is cut here.
    pub max_text_bytes: usize,
}

impl SiteRules {
    /// Whether sites' sitemaps are read (`Sitemaps` or `SitemapSeeds`).
    pub fn reads_sitemaps(&self) -> bool {
        self.sitemaps || self.sitemap_seeds
    }

    /// The limits of the URL rules (`MaxPathSegmentRepeats`, `MaxQueryParameters`).
    pub fn rule_limits(&self) -> crate::model::url_rules::RuleLimits {
        crate::model::url_rules::RuleLimits {
            max_segment_repeats: self.max_segment_repeats,
            max_query_parameters: self.max_query_parameters,
            documents: self.documents.enabled,
        }
    }
}

/// Retries and back-off (SPEC §9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultSettings {
    /// `MaxRetries`.
    pub max_retries: u32,
    /// `RetryBaseDelayMs`.
    pub retry_base_delay: Duration,
    /// `MaxRetryAfterSeconds`.
    pub max_retry_after: Duration,
    /// `SiteDownAfterFailures`.
    pub site_down_after: u32,
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
    /// `ScopesPerProcess`; `None` (0): the window of active scopes alone decides.
    pub scopes_per_process: Option<NonZeroUsize>,
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
    /// `PageBudget`: fetches over all sites (`None`: no budget).
    pub budget: Option<NonZeroU64>,
    /// `BanditReward`.
    pub reward: RewardKind,
    /// `R2Step`, `R3Initial`, `BanditWindow`, `BanditDiscount`, `BanditPrior`,
    /// `BanditExploration`, `BanditSeed`: every rule's [`Params`] carries them.
    pub tuning: crate::model::bandit::Tuning,
}

impl BanditSettings {
    /// The page budget's fetches, 0 when there is none (as the dispatcher's `Budget` and the
    /// database read it).
    pub fn pages(&self) -> u64 {
        self.budget.map_or(0, NonZeroU64::get)
    }

    /// Whether the crawl has a page budget (a budget rule chooses among every site).
    pub fn is_budgeted(&self) -> bool {
        self.budget.is_some()
    }

    /// The rules' parameters for `arms` sites.
    pub fn params(&self, arms: usize) -> Params {
        Params {
            arms,
            budget: usize::try_from(self.pages()).unwrap_or(usize::MAX),
            tuning: self.tuning,
        }
    }
}

//! THE key table of settings.ini: every key with its default and documentation. Loading,
//! unknown-key warnings, the shipped settings.ini and docs/settings.md's table all come from
//! here (tests keep the shipped file and the doc complete).

/// What kind of value a key takes (used for validation messages and docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ValueKind {
    /// One component name from the registry.
    Component,
    /// A comma-separated list of component names.
    ComponentList,
    /// An integer in `min..=max`.
    Integer {
        /// Smallest accepted value.
        min: u64,
        /// Largest accepted value.
        max: u64,
    },
    /// `0`/`1` (also `yes`/`no`, `true`/`false`, `on`/`off`).
    Flag,
    /// A file or folder, relative to settings.ini's folder unless absolute.
    Path,
    /// Free text.
    Text,
    /// `host:ip` pairs, comma-separated.
    ResolveList,
    /// One of a few words.
    Choice(&'static [&'static str]),
    /// A decimal number in `min..=max`.
    Decimal {
        /// Smallest accepted value.
        min: f64,
        /// Largest accepted value.
        max: f64,
    },
    /// A key of the RCCrawler paper's settings.ini that tunes its engine (chunk sizes, sleep
    /// times): accepted, with a note that this engine does not need it.
    PaperTuning,
}

/// One settings.ini key.
#[derive(Debug, Clone, Copy)]
pub struct KeyDef {
    /// The key as written in settings.ini (case-sensitive).
    pub name: &'static str,
    /// The value used when the key is absent.
    pub default: &'static str,
    /// What the value means.
    pub doc: &'static str,
    /// How the value is validated.
    pub kind: ValueKind,
    /// Section heading in the generated settings.ini.
    pub group: &'static str,
}

const fn int(min: u64, max: u64) -> ValueKind {
    ValueKind::Integer { min, max }
}

macro_rules! key {
    ($group:literal, $name:literal, $default:expr, $kind:expr, $doc:literal) => {
        KeyDef {
            name: $name,
            default: $default,
            doc: $doc,
            kind: $kind,
            group: $group,
        }
    };
}

/// `CommonDomainLabels`' default: the domain-name filter paper's list (www, com, cn, edu, org,
/// gov, net), then what real seeds need so that their key domain is the organisation's name:
/// second-level labels of country domains (ac.uk, co.jp, or.kr, spb.ru, com.au...), country
/// labels that appear before the top level (uk.com), and host prefixes (m., en., www2.).
pub const COMMON_DOMAIN_LABELS: &str = "www,com,cn,edu,org,gov,net,ac,co,or,ne,go,int,mil,info,biz,name,pro,ru,su,uk,us,de,fr,it,es,jp,kr,tw,hk,au,ca,in,br,ua,by,kz,eu,spb,msk,m,mobile,en,www1,www2,www3,web";

/// Every key, in the order the shipped settings.ini lists them.
pub const KEYS: &[KeyDef] = &[
    key!(
        "Components",
        "ApplicationManager",
        "TextFileAM",
        ValueKind::Component,
        "Runs the crawl: reads hosts.txt, starts the threads, unloads results."
    ),
    key!(
        "Components",
        "DataManager",
        "BMICDM",
        ValueKind::Component,
        "Holds pages, links and frontiers. BMICDM: in memory, saved in StateFolder (the paper's Boost multi-index container data manager, here over hash indexes). PgDM: the crawl lives in PostgreSQL (DatabaseUrl), shared by every rccrawler process that names the same CrawlName, on one machine or many."
    ),
    key!(
        "Components",
        "DownloadingThread",
        "DT1",
        ValueKind::Component,
        "Downloader implementation. DT1: one thread drives every request, http and https, over non-blocking keep-alive connections (a host name not looked up yet goes to blocking downloaders beside it). DT0: a blocking request per downloader thread (the earlier default; same requests, same results)."
    ),
    key!(
        "Components",
        "ParsingThread",
        "PT0",
        ValueKind::Component,
        "Parser implementation (HTML links, anchors, charset)."
    ),
    key!(
        "Components",
        "RoutineThread",
        "RT0",
        ValueKind::Component,
        "Logs, progress line and finisher checks."
    ),
    key!(
        "Components",
        "UrlAnalyzingThread",
        "EmptyUAT",
        ValueKind::Component,
        "Decides which links are in the crawl's scope. EmptyUAT: the seed site only. KeyDomainUAT: every host with a label equal to a key domain of the seed (the domain-name filter, SPEC 6), one graph per scope across its hosts. AllHostsUAT: every host (the paper's original crawler, bounded by maxCrawlLevel), all seeds in one scope."
    ),
    key!(
        "Components",
        "RobotsTxtClass",
        "Rfc9309RobotsTxt",
        ValueKind::Component,
        "robots.txt rules: Rfc9309RobotsTxt (RFC 9309, Allow/Disallow, * and $) or OnlyDisallowRobotsTxt (the paper's: Disallow prefixes only)."
    ),
    key!(
        "Components",
        "ApplicationFinishers",
        "WorkIsDoneAF,TimeoutAF,StopFileAF",
        ValueKind::ComponentList,
        "When to stop, comma-separated: WorkIsDoneAF (nothing left), TimeoutAF (TimeoutSeconds), StopFileAF (StopFile appears)."
    ),
    key!(
        "Components",
        "ResultUnloaders",
        "GephiSiteGraphRU,ReportRU",
        ValueKind::ComponentList,
        "How results are written, comma-separated. GephiSiteGraphRU: CSV for Gephi plus GEXF. TestRU (after GephiSiteGraphRU, refused otherwise): reads nodes.csv and edges.csv back and checks them (dense ids, arcs between nodes, true breadth-first levels) into test_report.txt; a failed check makes the exit code 1. ReportRU: at the end of each run, report.html from the results folder (sites table, cross-site statistics, plots; `rccrawler report` writes the same from any results folder)."
    ),
    key!(
        "Components",
        "Scheduler",
        "AllSites",
        ValueKind::Component,
        "Which site gets the next free download slot. AllSites: every site with work proceeds, round robin. Sequential: one site after another. TimeQuantum: each site in turn for TimeQuantumSeconds. Budget rules (with PageBudget, the default is DiscountedUcb): R1, R2, R3 (the BeeBot paper's), DiscountedUcb (UCB over each site's discounted yield, a memory of max(PageBudget/sites, sites) pages), SlidingWindowUcb, WinsorUcb, GuardedUcb (WinsorUcb, R2, R1 and R3 replayed on the crawl's own pages, the one ahead followed), PooledUcb, Thompson. Shipped commented out: without the line a crawl uses AllSites, and one with a PageBudget the default budget rule; a PageBudget with a scheduler that is not a budget rule is warned about."
    ),
    key!(
        "Budget",
        "PageBudget",
        "0",
        int(0, 1_000_000_000),
        "PageBudgetAF: stop after this many pages fetched over all sites (each fetched URL counts, whatever it turned out to be). 0: no budget. With a budget and no Scheduler line, the scheduler is DiscountedUcb, and PageBudgetAF is among the finishers."
    ),
    key!(
        "Budget",
        "BanditReward",
        "NewExternal",
        ValueKind::Choice(&["NewExternal", "AllExternal"]),
        "What a page pays the budget rules: NewExternal, the external links the crawl of its site had not seen before; AllExternal, all of its external links (the paper's X(i,j))."
    ),
    key!(
        "Budget",
        "R2Step",
        "10",
        int(1, 100_000),
        "R2's step n: pages given to a site at a time (also R2 within GuardedUcb)."
    ),
    key!(
        "Budget",
        "R3Initial",
        "10",
        int(1, 100_000),
        "R3's initial m: pages of every site before UCB1 chooses (also R3 within GuardedUcb)."
    ),
    key!(
        "Budget",
        "BanditWindow",
        "0",
        int(0, 100_000_000),
        "Pages each site's recent yield is measured over (WinsorUcb, also within GuardedUcb; PooledUcb, SlidingWindowUcb, Thompson). 0: one fair share, PageBudget / sites (100 without a budget)."
    ),
    key!(
        "Budget",
        "BanditDiscount",
        "0",
        ValueKind::Decimal {
            min: 0.0,
            max: 0.999999
        },
        "DiscountedUcb's decay per page fetched. 0: a memory of max(PageBudget / sites, sites) pages, 1 - 1/memory."
    ),
    key!(
        "Budget",
        "BanditPrior",
        "5",
        ValueKind::Decimal {
            min: 0.0,
            max: 1000.0
        },
        "WinsorUcb (also within GuardedUcb) and PooledUcb: pages paying the crawl's average yield that each site's estimate is pooled with (0: none)."
    ),
    key!(
        "Budget",
        "BanditExploration",
        "0",
        ValueKind::Decimal {
            min: 0.0,
            max: 100.0
        },
        "The UCB rules' exploration constant c (the bonus grows with c * ln t). 0: each rule's own, 0.3 for WinsorUcb (also within GuardedUcb), 1 for SlidingWindowUcb and DiscountedUcb, 0.2 for PooledUcb."
    ),
    key!(
        "Budget",
        "BanditSeed",
        "1",
        int(0, u64::MAX),
        "Thompson's seed: the same seed makes the same choices."
    ),
    key!(
        "Scope",
        "CommonDomainLabels",
        COMMON_DOMAIN_LABELS,
        ValueKind::Text,
        "KeyDomainUAT: labels that are never key domains (comma-separated). A seed's key domains are its host's other labels (www.sina.com.cn -> sina); its top-level label never is one. The paper's www, com, cn, edu, org, gov, net, plus second-level and country labels real seeds carry (ac, co, ru, uk, spb, ...) and host prefixes (m, en, www1, ...)."
    ),
    key!(
        "Scope",
        "KeyDomainSource",
        "Labels",
        ValueKind::Choice(&["Labels", "PublicSuffix"]),
        "KeyDomainUAT: Labels, a seed's host labels minus CommonDomainLabels (the paper's); PublicSuffix, the one label left of the host's public suffix (the Public Suffix List built in: www.spbu.spb.ru -> spbu, news.bbc.co.uk -> bbc)."
    ),
    key!(
        "Scope",
        "TopicFilter",
        "0",
        ValueKind::Flag,
        "KeyDomainUAT, the paper's second stage: 1 fetches a link that is out of scope and keeps the page (crawled as part of the scope) only if its topic score is above TopicThreshold; rejected pages are bad links with their score."
    ),
    key!(
        "Scope",
        "TopicKeywords",
        "",
        ValueKind::Text,
        "Topic keywords, comma-separated, any script: Chinese, Japanese, Korean and Thai keywords match anywhere in the text, others as whole words, case-insensitively."
    ),
    key!(
        "Scope",
        "TopicBodyWeight",
        "1",
        ValueKind::Decimal { min: 0.0, max: 1e6 },
        "Score for a keyword in the page's body text (the paper's ct.weight)."
    ),
    key!(
        "Scope",
        "TopicTitleWeight",
        "3",
        ValueKind::Decimal { min: 0.0, max: 1e6 },
        "Score for a keyword in the page's title (the paper's tl.weight)."
    ),
    key!(
        "Scope",
        "TopicGain",
        "0.2",
        ValueKind::Decimal { min: 0.0, max: 1e6 },
        "Gain d for several keywords: the score is multiplied by 1 + d * (keywords found - 1)."
    ),
    key!(
        "Scope",
        "TopicThreshold",
        "8",
        ValueKind::Decimal { min: 0.0, max: 1e9 },
        "A page out of scope is kept when its score is above this."
    ),
    key!(
        "Components",
        "TimeQuantumSeconds",
        "10",
        int(1, 86_400),
        "The time slice of the TimeQuantum scheduler."
    ),
    key!(
        "Threads",
        "ParsingThreadsCount",
        "2",
        int(1, 256),
        "Parser threads. Parsing is the CPU-heavy part: up to the number of cores."
    ),
    key!(
        "Threads",
        "DownloadingThreadsCount",
        "0",
        int(0, 4096),
        "Downloader threads: the most requests in flight over all sites at once. 0: automatic — as many as the sites' maxDownloadsAtTime and crawlDelay allow, started as needed, up to what the machine's open-file limit allows (at most 4,096); 16 with a PageBudget (the budget rule learns from every fetch)."
    ),
    key!(
        "Threads",
        "ActiveScopes",
        "0",
        int(0, 10_000_000),
        "Sites (scopes) crawled at once; each site leaves memory when it is finished and its results are written, and the next site of hosts.txt takes its place. 0: automatic — the window grows while downloads wait for a site to be ready. Every site at once with a PageBudget."
    ),
    key!(
        "Stopping",
        "TimeoutSeconds",
        "240000",
        int(1, 31_536_000),
        "TimeoutAF stops the crawl after this many seconds."
    ),
    key!(
        "Stopping",
        "StopFile",
        "stop.txt",
        ValueKind::Path,
        "StopFileAF stops the crawl when this file appears (a leftover one is removed at start, with a log line)."
    ),
    key!(
        "Stopping",
        "SaveState",
        "1",
        ValueKind::Flag,
        "1: save the crawl state in StateFolder so a stopped or killed crawl continues where it was (journal flushed every 100 ms, fsynced every second). 0: save nothing."
    ),
    key!(
        "Database",
        "DatabaseUrl",
        "",
        ValueKind::Text,
        "PgDM: the PostgreSQL server, as a URL (postgres://user:password@host:5432/database) or key=value pairs (host=/run/postgresql dbname=crawl)."
    ),
    key!(
        "Database",
        "CrawlName",
        "default",
        ValueKind::Text,
        "PgDM: which crawl of the database this process works on; one database holds several."
    ),
    key!(
        "Database",
        "LeaseSeconds",
        "30",
        int(2, 86_400),
        "PgDM: a process renews its claim on its scopes every third of this; a scope whose process stopped renewing (killed, cut off) is continued by another after this long, from its last journal record."
    ),
    key!(
        "Database",
        "ScopesPerProcess",
        "0",
        int(0, 1_000_000),
        "PgDM: scopes (sites) one process crawls at once at most; it takes more as its own finish. 0: as ActiveScopes. Not with a PageBudget: one process at a time crawls a budgeted crawl, with all its scopes."
    ),
    key!(
        "Stopping",
        "CheckpointSeconds",
        "60",
        int(1, 86_400),
        "How often the state journal is compacted into a snapshot (also done when the crawl stops)."
    ),
    key!(
        "Files",
        "ResultFolder",
        "results",
        ValueKind::Path,
        "Where results/<site>/... and results/summary.csv are written."
    ),
    key!(
        "Files",
        "NetworkUnit",
        "domain",
        ValueKind::Choice(&["domain", "host"]),
        "The network of sites (results/network/): what one accompanying site is. domain, a registrable domain by the Public Suffix List (lib.uni.edu and www.uni.edu are uni.edu; a host without one, an IP address or a dotless name, is its own); host, each host."
    ),
    key!(
        "Files",
        "NetworkSubsets",
        "1,2,5,10",
        ValueKind::Text,
        "The network of sites: the accompanying set split by how many targets link to a site, as the lower bounds of its classes (1,2,5,10: classes 1, 2-4, 5-9, 10+)."
    ),
    key!(
        "Files",
        "StateFolder",
        "state",
        ValueKind::Path,
        "Where the crawl state is kept so a stopped crawl can continue. A saved crawl that had finished is replaced by a fresh crawl."
    ),
    key!(
        "Files",
        "CommonLogFile",
        "logs/common_log.csv",
        ValueKind::Path,
        "One row per request: time, site, url, status, bytes, milliseconds, the cookies its answer set (SetCookie)."
    ),
    key!(
        "Files",
        "ErrorLogFile",
        "logs/error_log.csv",
        ValueKind::Path,
        "One row per problem: time, site, url, what happened."
    ),
    key!(
        "Output",
        "GraphFormat",
        "csv",
        ValueKind::Choice(&["csv", "bvgraph"]),
        "csv: each site graph as nodes.csv, edges.csv and graph.gexf. bvgraph: also in the WebGraph framework's BVGraph format (graph.graph, graph.offsets, graph.properties: big-endian, node i is nodes.csv's Id i + 1, readable by the Java WebGraph and the webgraph crate) with graph.weights, each arc's weight on a line in BVGraph's arc order (by source, then target) — a few bits per arc for very large graphs."
    ),
    key!(
        "Output",
        "Archive",
        "none",
        ValueKind::Choice(&["none", "warc"]),
        "warc: keep every request and answer of the crawl (pages, redirects, robots.txt, sitemaps, errors, the extra requests of the duplicate rules) in WARC 1.1 files in the results folder's archive/ folder, with a CDXJ index: evidence for a published graph, and the input of `rccrawler rebuild`. Costs disk: about a third of the bytes downloaded (each record gzipped; a body seen before is a revisit record of a few hundred bytes)."
    ),
    key!(
        "Output",
        "ArchiveFileMB",
        "1000",
        int(1, 100_000),
        "Archive = warc: a WARC file is closed (renamed from .warc.gz.open to .warc.gz) and the next one begun once it holds this many megabytes."
    ),
    key!(
        "Output",
        "Recrawl",
        "",
        ValueKind::Path,
        "An earlier crawl's archive folder (its results/archive, Archive = warc): this crawl asks for each page with If-None-Match / If-Modified-Since from the answer archived there, and a 304 Not Modified is that archived answer (its body is not sent again; the graph is what the same answers give). Empty: off."
    ),
    key!(
        "Output",
        "SaveDuplicates",
        "1",
        ValueKind::Flag,
        "1: write every alias URL of a page (same content or redirect) to duplicates.csv."
    ),
    key!(
        "HTTP",
        "UserAgent",
        "rccrawler/<version>",
        ValueKind::Text,
        "Sent with every request and matched against robots.txt groups by its first word (the product token). <version> is replaced by the program version. Add a contact: rccrawler/<version> (+mailto:you@example.org)."
    ),
    key!(
        "HTTP",
        "RequestTimeoutSeconds",
        "30",
        int(1, 3600),
        "Longest one request may take, headers and body; also bounds how long a stop waits for downloads."
    ),
    key!(
        "HTTP",
        "ConnectTimeoutSeconds",
        "10",
        int(1, 600),
        "Longest a TCP/TLS connection may take to open."
    ),
    key!(
        "HTTP",
        "MaxPageBytes",
        "10485760",
        int(1024, 1_073_741_824),
        "Largest page body read, after decompression; larger pages are bad links (too large)."
    ),
    key!(
        "HTTP",
        "Resolve",
        "",
        ValueKind::ResolveList,
        "Host names mapped to addresses, like curl --resolve: a.test:127.0.0.1,b.test:8080:127.0.0.1 (optional port)."
    ),
    key!(
        "HTTP",
        "Cookies",
        "yes",
        ValueKind::Flag,
        "yes: each site keeps a cookie jar (RFC 6265: domain, path, expiry, Secure; cookies set on redirects too), sends its cookies back on the site's requests and never to another site, and saves it with the crawl's state; the common log's SetCookie column names the cookies each answer set. Sites with a cookie wall or a session id written into every link until the cookie comes back need it. no: no cookies are kept or sent."
    ),
    key!(
        "HTTP",
        "CaFile",
        "",
        ValueKind::Path,
        "Extra root certificates (PEM) trusted for HTTPS on top of the built-in ones, like curl --cacert: for staging servers and tests. Empty: the built-in roots only."
    ),
    key!(
        "Sites",
        "OtherSchemeLinks",
        "Internal",
        ValueKind::Choice(&["Internal", "Ignore"]),
        "Links to a site's host under the other scheme (http <-> https). Internal: the other scheme on its default port is an alias of the site, its links are internal. Ignore: the RCCrawler paper's rule, such links are left out (neither arcs nor external links); the home page's redirects still make aliases."
    ),
    key!(
        "Sites",
        "Duplicates",
        "fold",
        ValueKind::Choice(&["fold", "exact"]),
        "Which pages are one node. fold: equal bytes, or equal once what changes per response (tokens, nonces, time stamps, shuffled blocks: learned per site from a page fetched twice), the page's own address, session ids and tracking parameters are set aside; print and AMP versions of a page's text; unknown paths answered with a 200 'not found' page are bad links (soft 404). exact: equal bytes only (the RCCrawler paper's rule)."
    ),
    key!(
        "Sites",
        "MetaRefreshMaxDelay",
        "10",
        int(0, 86_400),
        "A <meta http-equiv=refresh> to another URL within this many seconds is a redirect hop (its page is not a node; duplicates.csv reason \"meta refresh\"). A longer delay is ignored."
    ),
    key!(
        "Sites",
        "DefaultMaxDownloadsAtTime",
        "2",
        int(1, 1000),
        "maxDownloadsAtTime for hosts.txt lines that leave it out."
    ),
    key!(
        "Sites",
        "DefaultMaxCrawlLevel",
        "100",
        int(0, 10_000),
        "maxCrawlLevel for hosts.txt lines that leave it out."
    ),
    key!(
        "Sites",
        "DefaultCrawlDelay",
        "1000",
        int(0, 3_600_000),
        "crawlDelay in milliseconds for hosts.txt lines that leave it out: a second between two requests to one site, polite to a real server (as Hyphe and StormCrawler); a larger robots.txt Crawl-delay wins. Set 0 only for servers you own."
    ),
    key!(
        "Sites",
        "MaxPagesPerSite",
        "100000",
        int(0, 100_000_000),
        "Stop a site's crawl after this many pages (0: no limit), a bound on what a trap the other rules miss can cost; its state in summary.csv is then \"page limit\". The RCCrawler paper's largest site had 30,000 pages."
    ),
    key!(
        "Sites",
        "MaxUrlsPerSite",
        "1000000",
        int(0, 1_000_000_000),
        "Record at most this many distinct URLs of a site (0: no limit): links to further URLs are left out, and summary.csv's Reason says so. What bounds a site's memory where MaxPagesPerSite cannot: pages of hundreds of thousands of links each, or links that all answer 404 (about 100 bytes a URL)."
    ),
    key!(
        "Sites",
        "MaxLinksPerPage",
        "100000",
        int(0, 100_000_000),
        "Read at most this many distinct link targets of one page (0: no limit); its links to further ones are left out and the error log says how many. Each target costs the parser a URL while the page is parsed: pages of hundreds of thousands of links held hundreds of MB. The Rust documentation's largest page links 74,000 times."
    ),
    key!(
        "Sites",
        "MaxPathSegmentRepeats",
        "3",
        int(1, 1000),
        "A link whose path holds one segment more often than this (/a/a/a/a/…) is a bad link (repeating path): an endless URL space."
    ),
    key!(
        "Sites",
        "TrapLevels",
        "30",
        int(0, 10_000),
        "Trap detection for numbered URLs that never end (calendars, pages): URLs with digits that differ only in their numbers (/calendar/2024/05/, /calendar/2031/12/) are not fetched deeper than this many levels below the shallowest of them; summary.csv names the pattern cut. 0: off."
    ),
    key!(
        "Sites",
        "TrapPatternUrls",
        "1000",
        int(0, 100_000_000),
        "Trap detection for numbered URLs that branch (a calendar whose days link to the next day, month and year, a listing whose pages link every numbered sort and view): a pattern's URLs (as for TrapLevels) are not fetched once the pattern has more than this many URLs two levels up and its new URLs per level have stayed flat (within a tenth, six levels in a row, 16 or more a level), as a lattice does for ever and a real site, whose count grows, peaks and runs out, does not. An archive at one level is never cut; summary.csv names the pattern cut. 0: off."
    ),
    key!(
        "Sites",
        "FollowNofollow",
        "yes",
        ValueKind::Flag,
        "yes: a link carrying rel=nofollow, ugc or sponsored, and every link of a page whose robots directives (meta robots, X-Robots-Tag) say nofollow, is followed like any other: the graph is what the pages link, as in the RCCrawler paper. no: such links are not followed (as Nutch and crawler4j do): their targets are fetched only when a followed link reaches them, levels count followed links only, and a page only they reach is a bad link (nofollow). Either way every link is recorded: edges.csv's Nofollow, external_links.csv's Rel and nodes.csv's Robots say which."
    ),
    key!(
        "Sites",
        "Sitemaps",
        "no",
        ValueKind::Flag,
        "yes: right after a site's robots.txt, the sitemaps its Sitemap: lines name (else /sitemap.xml) are read, in the site's turns like any request — indexes followed, gzip undone, at most 50,000 URLs and 50 MB per file (the protocol's limits), 1,000 files and 1,000,000 pages per site; malformed ones are reported and read as far as they go. Each site folder gets sitemap.csv (Url,InGraph,Level,LastMod: whether each listed page is a node, and the depth at which links reach it, empty when none does), and summary.csv's SitemapUrls and Orphans count them. no: no request beyond robots.txt and the pages."
    ),
    key!(
        "Sites",
        "SitemapSeeds",
        "no",
        ValueKind::Flag,
        "yes (reads sitemaps as Sitemaps = yes does): once a site's links lead to nothing more, the pages its sitemaps list that no link reaches (orphans) are fetched too, in its turns, and written as nodes with an empty Level and Source = sitemap. A sitemap is not a link: they get no arc from it and no level, and their own links are recorded but not followed. Only orphans on the site, allowed by robots.txt and hosts.txt's include=/exclude=, and not refused by the URL rules (extension, MaxQueryParameters, MaxPathSegmentRepeats) are fetched."
    ),
    key!(
        "Sites",
        "MaxQueryParameters",
        "8",
        int(0, 1000),
        "A link whose query has more parameters than this is a bad link (too many query parameters): filters that multiply (faceted navigation). 0: no limit."
    ),
    key!(
        "Faults",
        "MaxRetries",
        "2",
        int(0, 20),
        "Retries of a URL after a timeout, a broken connection, a 5xx or a 429, with exponential back-off of the site; then it is a bad link."
    ),
    key!(
        "Faults",
        "RetryBaseDelayMs",
        "1000",
        int(0, 600_000),
        "Back-off before the first retry; it doubles with each retry. A Retry-After header (seconds or HTTP date) is used instead when given."
    ),
    key!(
        "Faults",
        "MaxRetryAfterSeconds",
        "120",
        int(0, 86_400),
        "Longest back-off before a retry: a Retry-After header that asks for more, or the doubling back-off grown past it, waits this long."
    ),
    key!(
        "Faults",
        "SiteDownAfterFailures",
        "10",
        int(1, 100_000),
        "After this many connection failures in a row a site is taken as down: it is not crawled further in this run, its queue is kept for the next, and summary.csv says \"down\"."
    ),
    key!(
        "Sites",
        "MaxUrlLength",
        "2048",
        int(64, super::MAX_URL_LENGTH as u64),
        "Internal links longer than this many bytes are bad links (url too long); external links are recorded whatever their length."
    ),
    key!(
        "Sites",
        "ExternalLinkContext",
        "0",
        int(0, 10_000),
        "Characters of the text around each external link (its paragraph, list item, cell...) kept in a Context column of external_links.csv. 0: off (and no Context column)."
    ),
    key!(
        "Console",
        "ProgressSeconds",
        "1",
        int(1, 3600),
        "Interval of the progress line."
    ),
    key!(
        "Console",
        "StatusAddress",
        "127.0.0.1:0",
        ValueKind::Text,
        "A live status page while the crawl runs, served at this address (the default, port 0 on loopback, picks a free port; the console prints the URL; e.g. 127.0.0.1:8765 for a fixed one), with /status.json for scripts, the time left per site, and the result files of finished sites. Empty: off. An address that cannot be listened on (a port in use) stops rccrawler before it starts (exit code 2). Read-only; keep it on loopback unless others should see it."
    ),
    key!(
        "Console",
        "DisplayCommonLog",
        "0",
        ValueKind::Flag,
        "1: also print every CommonLogFile row (each request) on the console, as the paper's crawler does."
    ),
    key!(
        "Console",
        "DisplayErrorLog",
        "0",
        ValueKind::Flag,
        "1: also print every ErrorLogFile row (each problem) on the console."
    ),
    key!(
        "Paper",
        "DownloadingThreadPDChunkSizeMultiplier",
        "5",
        ValueKind::PaperTuning,
        "The paper's engine handed URLs to its downloader in chunks; here a downloader takes one URL at a time from the dispatcher. Accepted and not used."
    ),
    key!(
        "Paper",
        "ParsingThreadPDChunkSize",
        "20",
        ValueKind::PaperTuning,
        "The paper's parsers took pages in chunks; here parsers take pages from a bounded channel as they come. Accepted and not used."
    ),
    key!(
        "Paper",
        "DownloadingThreadSleepTime",
        "1",
        ValueKind::PaperTuning,
        "The paper's downloaders polled and slept (ms); here they block until there is work. Accepted and not used."
    ),
    key!(
        "Paper",
        "ParsingThreadSleepTime",
        "1",
        ValueKind::PaperTuning,
        "The paper's parsers polled and slept (ms); here they block on their channel. Accepted and not used."
    ),
    key!(
        "Paper",
        "RoutineThreadSleepTime",
        "1000",
        ValueKind::PaperTuning,
        "The paper's routine thread slept between rounds (ms); here it ticks every 20 ms and prints progress every ProgressSeconds. Accepted and not used."
    ),
];

/// Looks a key up by its exact name.
pub fn find(name: &str) -> Option<&'static KeyDef> {
    KEYS.iter().find(|k| k.name == name)
}

/// Keys the shipped settings.ini lists commented out, with their defaults: the paper's tuning
/// keys, listed for reference only (set, they print a note), and `Scheduler`, whose default
/// depends on `PageBudget` (a shipped `Scheduler = AllSites` made every budgeted crawl of
/// that file round robin; issue 20).
pub fn listed_commented(k: &KeyDef) -> bool {
    k.kind == ValueKind::PaperTuning || k.name == "Scheduler"
}

/// The shipped settings.ini, generated from the table: every key with its default (the
/// paper's tuning keys commented out).
pub fn render_ini() -> String {
    let mut out = String::from(
        "; rccrawler settings. Every key is listed with its default value; delete a line to use\n\
         ; the default. Comments start with ';' or '#' (also after a value, preceded by a space).\n\
         ; Relative paths are relative to this file's folder. A backslash is an escape\n\
         ; character here: write Windows paths with '/'.\n",
    );
    let mut group = "";
    for k in KEYS {
        if k.group != group {
            group = k.group;
            out.push_str(&format!("\n; ---- {group} ----\n"));
        }
        for line in wrap(k.doc, 88) {
            out.push_str("; ");
            out.push_str(&line);
            out.push('\n');
        }
        let comment = if listed_commented(k) { "; " } else { "" };
        out.push_str(&format!("{comment}{} = {}\n", k.name, k.default));
    }
    out
}

/// docs/settings.md's key table (Markdown).
pub fn render_markdown_table() -> String {
    let mut out = String::from("| key | default | meaning |\n|---|---|---|\n");
    for k in KEYS {
        let default = if k.default.is_empty() {
            "(empty)"
        } else {
            k.default
        };
        out.push_str(&format!(
            "| `{}` | `{}` | {} |\n",
            k.name,
            default,
            k.doc.replace('|', "\\|")
        ));
    }
    out
}

fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let last = lines.last_mut().expect("never empty");
        if !last.is_empty() && last.len() + 1 + word.len() > width {
            lines.push(word.to_owned());
        } else {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(word);
        }
    }
    lines
}

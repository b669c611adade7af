//! settings.ini's keys, first half: the components, the budget, scopes, threads, stopping and
//! the database (the order the shipped settings.ini lists them).

use super::{KeyDef, ValueKind, int};
use crate::formats::setting_keys::COMMON_DOMAIN_LABELS;

/// The first keys of the table.
pub(super) const KEYS: &[KeyDef] = &[
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
        "Renderer",
        "ChromiumRenderer",
        ValueKind::Component,
        "The browser that renders pages when Render is auto or all (SPEC 18). ChromiumRenderer: the system's Chromium (Debian's chromium package) over the DevTools protocol, found on PATH or at ChromiumPath."
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
        "Threads",
        "ScopesInMemory",
        "0",
        int(0, 10_000_000),
        "Open sites (scopes) kept live in memory; beyond them, the sites used least recently with nothing in flight are parked — their records compressed into an unnamed temporary file in TMPDIR (in memory if none can be written) — and thawed, exactly as they were, when next used. A budgeted crawl keeps every site open; a window of sites rarely has more than this many. 0: automatic — 256; with a PageBudget 4 a download in flight, at least 64 (its rule spreads the fetches over every site: almost every fetch thaws one, however many are kept)."
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
        "Rendering",
        "Render",
        "no",
        ValueKind::Choice(&["no", "auto", "all"]),
        "Pages whose links scripts build (SPEC 18). no: the HTML the server sends, as the paper reads it; sites whose home page looks script-built (an empty application root, a noscript asking for JavaScript, many script bytes and few links) are named on the console and in summary.csv's Reason. all: every page is loaded in headless Chromium and its links read from the rendered DOM. auto: a page with scripts is rendered as a sample of its site's URL shape (2 pages a shape, 12 a site with no difference); a shape whose rendered links differ from the raw ones is rendered from then on, pages that look script-built always; a page with no script never. The browser's requests go through the site's turns, robots.txt and the common log and count in Fetched; images, fonts, media, style sheets and trackers are not fetched. nodes.csv gets Rendered, edges.csv and external_links.csv ScriptOnly, summary.csv Rendered and ScriptOnlyArcs."
    ),
    key!(
        "Rendering",
        "RenderIdleMillis",
        "500",
        int(50, 60_000),
        "A rendered page is read once it has loaded and made no request for this long (ms)."
    ),
    key!(
        "Rendering",
        "RenderTimeoutSeconds",
        "15",
        int(1, 600),
        "A rendered page is read at this time whatever it still does (a page that polls for ever); a page whose scripts never yield is interrupted, and kept as the server sent it if it cannot be read."
    ),
    key!(
        "Rendering",
        "RenderTabs",
        "2",
        int(1, 64),
        "Pages rendered at once (browser tabs). Each holds a parsing thread while it renders."
    ),
    key!(
        "Rendering",
        "ChromiumPath",
        "",
        ValueKind::Path,
        "The browser to run for Render = auto or all. Empty: chromium, chromium-browser or google-chrome on PATH; none there stops the crawl before it starts (exit 2)."
    ),
    key!(
        "Documents",
        "Documents",
        "no",
        ValueKind::Flag,
        "Documents as nodes (SPEC 19). yes: an answer whose Content-Type is a document (PDF, Word, Excel, PowerPoint, OpenDocument, RTF) is a node of the site graph whatever its URL's extension, with its type in nodes.csv's Type (html for pages); a PDF's link annotations are its links, other documents are leaves; documents count as pages for MaxPagesPerSite and PageBudget. no: a URL with a document's extension is a bad link without a request, and an answer that is not HTML is a bad link."
    ),
    key!(
        "Documents",
        "MaxDocumentBytes",
        "52428800",
        int(1024, 1_073_741_823),
        "Largest document read (Documents = yes); a larger one is a bad link whose reason names this limit."
    ),
    key!(
        "Documents",
        "PageText",
        "no",
        ValueKind::Flag,
        "yes: each site folder gets text.csv (Id,Words,Text), the text of every node a person reads outside navigation, headers, footers and forms (the text digest's words), whitespace collapsed; a PDF's text where it can be read."
    ),
    key!(
        "Documents",
        "MaxTextBytes",
        "100000",
        int(100, 100_000_000),
        "A node's text in text.csv is cut at this many bytes (on a word boundary) and then ends with ' […]'; Words counts all its words."
    ),
];

//! settings.ini's keys, second half: files, output, HTTP, sites, faults, the console and the
//! paper's tuning keys.

use super::{KeyDef, MAX_URL_LENGTH, ValueKind, int};

/// The last keys of the table.
pub(super) const KEYS: &[KeyDef] = &[
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
        "NetworkEntities",
        "",
        ValueKind::Path,
        "The network of sites in the study's own units (SPEC 20, Hyphe's web entities): a file of 'NAME: PREFIX [PREFIX ...]' lines, a prefix being host (with its sub-hosts), =host (exactly) or host/path/ (the URLs under that path); the longest prefix wins, what none matches falls back to NetworkUnit. network/nodes.csv's Label is then the entity's name. Empty: NetworkUnit alone. A bad file stops the crawl before it starts (FILE:LINE)."
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
        "One row per request, written as it ends: the time it started (UTC, to the millisecond), site, url, status, bytes, milliseconds, the cookies its answer set (SetCookie)."
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
        "Host names mapped to addresses, like curl --resolve: a.test:127.0.0.1,b.test:8080:127.0.0.1 (optional port); *.test:127.0.0.1 maps every host under test (a host's own entry comes first)."
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
        int(64, MAX_URL_LENGTH as u64),
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

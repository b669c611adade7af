//! What every worker thread shares for the length of one crawl. Owned by the application
//! manager; threads borrow it inside `thread::scope`, so nothing here is global. Only the
//! engine and the application manager see it: a component gets its environment (`env.rs`),
//! a routine a [`CrawlView`](crate::crawl::live::CrawlView).

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Instant;

use crossbeam_channel::Sender;

use crate::base::ids::ScopeId;
use crate::base::stop::Stop;
use crate::crawl::data::coord::Coordinator;
use crate::crawl::data::{DataManager, OpenScopeError};
use crate::crawl::live::ScopeCounts;
use crate::crawl::schedule::Dispatcher;
use crate::crawl::settings::Settings;
use crate::model::robots::RobotsParse;
use crate::model::sites::Sites;
use crate::model::url_filter::UrlFilter;

/// The crawl's shared parts.
#[derive(Debug)]
pub(crate) struct Context {
    /// Validated settings.
    pub(crate) settings: Settings,
    /// What the settings tell a parser (the parsers see these, not the settings).
    pub(crate) parse_options: crate::crawl::parse::ParseOptions,
    /// What the settings tell a downloader while it fetches.
    pub(crate) fetch_options: crate::crawl::fetch::FetchOptions,
    /// Sites and their robots rules.
    pub(crate) sites: Sites,
    /// The scopes' data.
    pub(crate) dm: Arc<dyn DataManager>,
    /// How the crawl is shared with other processes.
    pub(crate) coordinator: Arc<dyn Coordinator>,
    /// Politeness and site choice.
    pub(crate) dispatcher: Arc<Dispatcher>,
    /// The stop broadcast.
    pub(crate) stop: Arc<Stop>,
    /// Page bodies held at once (downloaded, not yet parsed).
    pub(crate) bodies: Arc<crate::base::bodies::BodyBudget>,
    /// Scope decisions for links (`UrlAnalyzingThread`).
    pub(crate) filter: Box<dyn UrlFilter>,
    /// How robots.txt is read (`RobotsTxtClass`).
    pub(crate) robots: RobotsParse,
    /// When this run started.
    pub(crate) started: Instant,
    /// Opens scopes while the crawl runs: the window of active scopes (SPEC §11), and those a
    /// store shared by several processes hands out; `None` for a crawl whose scopes are all
    /// opened first.
    pub(crate) feeder: Option<Box<dyn ScopeFeeder>>,
    /// Told of scopes whose work in this run may be over (their results can be written and
    /// their data released); `None` when scopes are kept until the end.
    pub(crate) settled: Option<Sender<ScopeId>>,
    /// The network of sites' totals as sites are written, for the live status page (`None`
    /// without one).
    pub(crate) network: Option<crate::analysis::network::live::LiveNetwork>,
    /// The crawl's archive (`Archive = warc`).
    pub(crate) archive: Option<Arc<crate::formats::warc::Recorder>>,
    /// The earlier archive of a re-crawl (`Recrawl`).
    pub(crate) recrawl: Option<Arc<crate::formats::warc::archived::ArchivedWeb>>,
    /// Problems reported so far, counted as the workers send them (`Log`).
    pub(crate) problems: Arc<AtomicU64>,
    /// Rendering (`Render = auto` or `all`, SPEC §18).
    pub(crate) render: Option<crate::crawl::engine::render::Rendering>,
    /// Where the parsers put the nodes' texts (`PageText = yes`, SPEC §19).
    pub(crate) text_spool: Option<crate::crawl::data::text_spool::TextSpool>,
}

impl Context {
    /// The problem counter each worker's `Log` adds to.
    pub(crate) fn problems(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.problems)
    }

    /// The work left: URLs queued or in flight in this process's scopes, scopes other
    /// processes (or nobody yet) must still crawl, and scopes this process will still open.
    /// Zero means the crawl's work is done (`WorkIsDoneAF`); every routine asks with it.
    pub(crate) fn pending(&self) -> usize {
        self.dm.pending()
            + self.coordinator.outstanding()
            + self.feeder.as_ref().map_or(0, |f| f.waiting())
    }

    /// Scope `scope` may have settled: the one who writes settled scopes looks at it.
    pub(crate) fn maybe_settled(&self, scope: ScopeId) {
        if let Some(tx) = &self.settled {
            let _ = tx.try_send(scope);
        }
    }
}

/// Opens more scopes while the crawl runs: as the window of active scopes has room and grows
/// (SPEC §11), and those a shared crawl gives this process (scopes other processes gave back
/// or left behind). The engine's tick calls it (`engine/tick.rs`).
pub(crate) trait ScopeFeeder: Send + Sync + std::fmt::Debug {
    /// Opens what there is to open now; each new scope with its name (for the progress line).
    fn feed(&self, ctx: &Context) -> Result<Vec<(ScopeId, String)>, OpenScopeError>;

    /// Scopes this process will still open (their work is not done).
    fn waiting(&self) -> usize {
        self.counts().waiting
    }

    /// How many scopes are crawled, written and waiting (for the progress line).
    fn counts(&self) -> ScopeCounts;
}

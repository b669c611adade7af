//! What every worker thread shares for the length of one crawl. Owned by the application
//! manager; threads borrow it inside `thread::scope`, so nothing here is global.

use std::sync::Arc;
use std::time::Instant;

use crossbeam_channel::Sender;

use crate::data::coord::Coordinator;
use crate::data::{DataManager, OpenScopeError};
use crate::ids::ScopeId;
use crate::robots::RobotsParse;
use crate::schedule::Dispatcher;
use crate::settings::Settings;
use crate::sites::Sites;
use crate::stop::Stop;
use crate::url_filter::UrlFilter;

/// The crawl's shared parts.
#[derive(Debug)]
pub struct Context {
    /// Validated settings.
    pub settings: Settings,
    /// Sites and their robots rules.
    pub sites: Sites,
    /// The scopes' data.
    pub dm: Arc<dyn DataManager>,
    /// How the crawl is shared with other processes.
    pub coordinator: Arc<dyn Coordinator>,
    /// Politeness and site choice.
    pub dispatcher: Arc<Dispatcher>,
    /// The stop broadcast.
    pub stop: Arc<Stop>,
    /// Page bodies held at once (downloaded, not yet parsed).
    pub bodies: Arc<crate::bodies::BodyBudget>,
    /// Scope decisions for links (`UrlAnalyzingThread`).
    pub filter: Box<dyn UrlFilter>,
    /// How robots.txt is read (`RobotsTxtClass`).
    pub robots: RobotsParse,
    /// When this run started.
    pub started: Instant,
    /// Opens scopes while the crawl runs: the window of active scopes (SPEC §11), and those a
    /// store shared by several processes hands out; `None` for a crawl whose scopes are all
    /// opened first.
    pub feeder: Option<Box<dyn ScopeFeeder>>,
    /// Told of scopes whose work in this run may be over (their results can be written and
    /// their data released); `None` when scopes are kept until the end.
    pub settled: Option<Sender<ScopeId>>,
    /// The network of sites' totals as sites are written, for the live status page (`None`
    /// without one).
    pub network: Option<crate::network::live::LiveNetwork>,
}

impl Context {
    /// The work left: URLs queued or in flight in this process's scopes, scopes other
    /// processes (or nobody yet) must still crawl, and scopes this process will still open.
    /// Zero means the crawl's work is done (`WorkIsDoneAF`); every routine asks with it.
    pub fn pending(&self) -> usize {
        self.dm.pending()
            + self.coordinator.outstanding()
            + self.feeder.as_ref().map_or(0, |f| f.waiting())
    }

    /// Scope `scope` may have settled: the one who writes settled scopes looks at it.
    pub fn maybe_settled(&self, scope: ScopeId) {
        if let Some(tx) = &self.settled {
            let _ = tx.try_send(scope);
        }
    }
}

/// Opens more scopes while the crawl runs: as the window of active scopes has room and grows
/// (SPEC §11), and those a shared crawl gives this process (scopes other processes gave back
/// or left behind). The engine's tick calls it (`engine/tick.rs`).
pub trait ScopeFeeder: Send + Sync + std::fmt::Debug {
    /// Opens what there is to open now; each new scope with its name (for the progress line).
    fn feed(&self, ctx: &Context) -> Result<Vec<(ScopeId, String)>, OpenScopeError>;

    /// Scopes this process will still open (their work is not done).
    fn waiting(&self) -> usize {
        self.counts().waiting
    }

    /// How many scopes are crawled, written and waiting (for the progress line).
    fn counts(&self) -> ScopeCounts;
}

/// Where the scopes of a crawl are (SPEC §11).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScopeCounts {
    /// Opened and in memory.
    pub live: usize,
    /// Written and released in this run.
    pub written: usize,
    /// Not opened yet.
    pub waiting: usize,
}

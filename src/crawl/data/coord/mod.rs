//! Sharing one crawl between processes (SPEC §10): which process crawls which scope, when a
//! process's crawl is over, and the page budget across processes — the [`Coordinator`] trait,
//! with [`Solo`] for a crawl of one process (`BMICDM`) and `PgCoordinator` for processes that
//! share a PostgreSQL database (`PgDM`).
//!
//! What every coordinator guarantees:
//! - a scope is claimed by at most one process at a time ([`Coordinator::claim`]), so
//!   politeness per site holds across processes;
//! - [`Coordinator::outstanding`] counts the scopes other processes (or nobody yet) must still
//!   crawl: while it is not zero, this process's work is not done;
//! - after [`Coordinator::hand_back`], nothing this process held is held any more but the
//!   finished scopes whose files the end of the run is writing: they stay its own until
//!   recorded as written, so that no other process writes them a second time meanwhile.

use std::fmt::Debug;

use thiserror::Error;

use crate::model::site::Origin;

/// Fetches of a shared budget granted to this process: the coordinator's answer to
/// [`Coordinator::share_budget`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetGrant {
    /// This many more; more may be granted later.
    More(u64),
    /// This many more, and no more will ever be granted (the crawl's budget is spent or
    /// reserved by nobody else).
    Last(u64),
}

/// A scope this process may crawl: its seed origin and, from a coordinator that shares the
/// crawl, a token only that coordinator's store reads (where it keeps the scope).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeClaim {
    /// The first seed of the scope.
    pub origin: Origin,
    token: Option<ClaimToken>,
}

/// What a shared store needs to find a claimed scope again; opaque to everyone else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClaimToken(pub(crate) i64);

impl ScopeClaim {
    /// A claim of a crawl of one process, which holds every scope.
    pub fn solo(origin: Origin) -> Self {
        ScopeClaim {
            origin,
            token: None,
        }
    }

    /// A claim granted by a coordinator that shares the crawl, with its store's token.
    pub fn shared(origin: Origin, token: ClaimToken) -> Self {
        ScopeClaim {
            origin,
            token: Some(token),
        }
    }

    /// The store's token (`None` for a crawl of one process).
    pub fn token(&self) -> Option<ClaimToken> {
        self.token
    }
}

/// Sharing the crawl failed.
#[derive(Debug, Error)]
pub enum CoordError {
    /// Other processes crawl this crawl with another hosts.txt.
    #[error(
        "crawl {crawl:?} is being crawled by other processes ({live} scopes held) with a different \
         hosts.txt: give every process the same hosts.txt, or edit it while none runs"
    )]
    Refused {
        /// `CrawlName`.
        crawl: String,
        /// Scopes held under a live lease.
        live: i64,
    },
    /// The crawl's saved scopes were written by an rccrawler of another state format.
    #[error(
        "crawl {crawl:?} was saved in state format {found}; this rccrawler reads format {}. \
         Finish that crawl with the matching rccrawler, or give this one another CrawlName",
        crate::base::storage::FORMAT_VERSION
    )]
    OtherFormat {
        /// `CrawlName`.
        crawl: String,
        /// The format its scopes were saved in.
        found: i32,
    },
    /// The backend that shares the crawl (a database) failed.
    #[error(transparent)]
    Backend(#[from] crate::crawl::data::BackendError),
}

/// How a crawl is shared between processes (see the module docs for what every coordinator
/// guarantees).
pub trait Coordinator: Send + Sync + Debug {
    /// Before any scope is claimed: the seed origin of every scope of hosts.txt (a shared
    /// crawl checks them against what the others crawl, and adds new ones).
    fn register_seeds(&self, _seeds: &[Origin]) -> Result<(), CoordError> {
        Ok(())
    }

    /// Claims the scope whose first seed is `origin` for this process: `None` when another
    /// process holds it or it is done.
    fn claim(&self, origin: &Origin) -> Result<Option<ScopeClaim>, CoordError> {
        Ok(Some(ScopeClaim::solo(origin.clone())))
    }

    /// While the crawl runs (about once a second): seed origins of up to `room` scopes this
    /// process may claim now besides those it claimed (scopes other processes gave back or
    /// left behind). Empty for a crawl of one process.
    fn more_seeds(&self, _room: usize) -> Result<Vec<Origin>, CoordError> {
        Ok(Vec::new())
    }

    /// Scopes of the crawl not done and not held here: others crawl them or nobody yet.
    fn outstanding(&self) -> usize {
        0
    }

    /// How many scopes with work this process holds at once at most (`None`: every one).
    fn scopes_per_process(&self) -> Option<usize> {
        None
    }

    /// The crawl was finished before this process registered its seeds (no scope had work).
    fn found_finished(&self) -> bool {
        false
    }

    /// The crawl ends for this process, after its last save: what it holds goes back (others
    /// may take unfinished scopes at once).
    fn hand_back(&self) -> Result<(), CoordError> {
        Ok(())
    }

    /// Whether `PageBudget` is the whole crawl's, shared with other processes and granted
    /// with [`Self::share_budget`] (else this process has it all).
    fn shares_budget(&self) -> bool {
        false
    }

    /// Reserves up to `want` more fetches of the crawl's budget of `total` for this process.
    fn share_budget(&self, _total: u64, want: u64) -> Result<BudgetGrant, CoordError> {
        Ok(BudgetGrant::More(want))
    }
}

/// A crawl of one process: it holds every scope, and the budget is its own.
#[derive(Debug, Clone, Copy, Default)]
pub struct Solo;

impl Coordinator for Solo {}

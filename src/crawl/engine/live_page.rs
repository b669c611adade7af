//! The live status page (`StatusAddress`, SPEC §12), the engine's whatever `RoutineThread`
//! runs: bound before the first request, renewed twice a second by the engine's tick and once
//! more when the stop is requested (it then says `stopping`), served until every thread of
//! the crawl has ended. `rccrawler status` finds it through the marker file in `ResultFolder`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::Context;
use crate::base::ids::ScopeId;
use crate::crawl::live::status_page::{self, LIVE_MARKER, StatusPage};
use crate::crawl::live::tally::OpenedScopes;

/// How often the snapshot is renewed.
const PUBLISH_EVERY: Duration = Duration::from_millis(500);

/// The page of a running crawl.
#[derive(Debug)]
pub(super) struct LivePage {
    page: StatusPage,
    marker: PathBuf,
}

impl LivePage {
    /// Binds the page settings.ini asks for (`None` without `StatusAddress`, or when the
    /// address cannot be bound: the crawl goes on, and says so) and publishes its first
    /// snapshot: a page asked for before the first tick says what the crawl is.
    pub(super) fn open(ctx: &Context, scopes: &[(ScopeId, String)]) -> Option<Self> {
        let addr = ctx.settings.logs.status_address?;
        let page = match StatusPage::bind(addr, &ctx.settings.results.folder) {
            Ok(page) => page.hiding_private(&ctx.settings),
            Err(e) => {
                eprintln!("warning: cannot serve the status page on {addr}: {e}");
                return None;
            }
        };
        eprintln!(
            "status page: {} (and {}status.json)",
            page.url(),
            page.url()
        );
        // Where `rccrawler status` finds the running crawl: nothing is lost without it.
        let marker = ctx.settings.results.folder.join(LIVE_MARKER);
        let _ = std::fs::write(&marker, page.url());
        let mut opened = OpenedScopes::new(ctx, scopes);
        page.publish_snapshot(status_page::snapshot(ctx, &mut opened));
        Some(LivePage { page, marker })
    }

    /// Answers requests until [`Self::close`].
    pub(super) fn serve(&self) {
        self.page.serve();
    }

    /// Stops serving; the marker goes.
    fn close(&self) {
        self.page.stop();
        let _ = std::fs::remove_file(&self.marker);
    }
}

/// Closes the page (if any) when dropped: once every thread of the crawl has ended, or when
/// starting them failed.
pub(super) struct Closing<'a>(pub(super) Option<&'a LivePage>);

impl Drop for Closing<'_> {
    fn drop(&mut self) {
        if let Some(page) = self.0 {
            page.close();
        }
    }
}

/// What the engine's tick keeps to renew the page: the scopes opened in this run, and when it
/// last published.
pub(super) struct Publisher<'a> {
    page: &'a LivePage,
    scopes: OpenedScopes,
    last: Instant,
}

impl<'a> Publisher<'a> {
    /// For `page`, the crawl having opened `scopes` first.
    pub(super) fn new(page: &'a LivePage, ctx: &Context, scopes: &[(ScopeId, String)]) -> Self {
        Publisher {
            page,
            scopes: OpenedScopes::new(ctx, scopes),
            last: Instant::now(),
        }
    }

    /// Scopes opened since.
    pub(super) fn opened(&mut self, ctx: &Context, more: &[(ScopeId, String)]) {
        self.scopes.extend(ctx, more.iter().cloned());
    }

    /// Publishes a new snapshot if [`PUBLISH_EVERY`] has passed, or at once when `now` is set.
    pub(super) fn publish(&mut self, ctx: &Context, now: bool) {
        if now || self.last.elapsed() >= PUBLISH_EVERY {
            self.last = Instant::now();
            self.page
                .page
                .publish_snapshot(status_page::snapshot(ctx, &mut self.scopes));
        }
    }
}

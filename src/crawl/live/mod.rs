//! Watching a running crawl: what it shows of itself ([`CrawlView`]), its scopes added up
//! ([`tally`]), and the live status page ([`status_page`], SPEC §12) the engine publishes
//! whatever routine runs, its connections served by [`serve`].

mod serve;
pub mod status_page;
pub(crate) mod tally;
mod view;

pub use view::{CrawlView, NetworkTotals, ScopeCounts};

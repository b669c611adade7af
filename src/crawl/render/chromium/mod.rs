//! The `ChromiumRenderer`: the system's Chromium (Debian's `chromium`) driven over the
//! DevTools protocol on a pipe ([`pipe`]), started on the first page to render ([`process`]),
//! with at most `RenderTabs` pages open at once ([`tab`]). A browser that dies is started
//! again and the page tried once more; the crawl goes on.
//!
//! Why no crate for the protocol: `headless_chrome` downloads the protocol's definition from
//! GitHub while it builds unless a non-default feature is set (its build fails on a machine
//! with no network but the registries, as CI's) and adds 138 packages and over a minute to a
//! build issue 69 asks to shorten; `chromiumoxide` and `chromey` need an async runtime this
//! crawler does not have and compile a generated protocol of the whole DevTools surface. Both
//! talk over a WebSocket on a TCP port, where Chromium's `--remote-debugging-pipe` (what
//! Puppeteer and Playwright use) needs no port at all; the dozen commands used here are JSON
//! through serde_json, already a dependency.

mod pipe;
pub mod process;
mod tab;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender};
use parking_lot::Mutex;

use super::{RenderError, RenderJob, RenderOptions, RenderedDom, Renderer, Resources};
use process::Browser;
use tab::Tab;

/// What went wrong on the DevTools connection.
#[derive(Debug, thiserror::Error)]
pub enum CdpError {
    /// The browser cannot be found.
    #[error("{0}")]
    Missing(String),
    /// Starting it or talking to it failed.
    #[error("{0}")]
    Io(#[source] std::io::Error),
    /// The connection ended: the browser exited or was killed.
    #[error("the browser closed")]
    Closed,
    /// A command got no answer in time.
    #[error("no answer to {0} in time")]
    Timeout(String),
    /// The browser refused a command.
    #[error("{0}")]
    Refused(String),
    /// A message the protocol does not allow.
    #[error("protocol: {0}")]
    Protocol(String),
    /// The page's renderer crashed.
    #[error("the page crashed")]
    Crashed,
}

/// How long a browser may take to start and open a tab.
const START: Duration = Duration::from_secs(30);

/// Pages a tab renders before it is closed and another opened: a page's renderer keeps what
/// its scripts allocated (a tab of the Rust documentation held 1.7 GB after a thousand pages).
pub const RECYCLE_AFTER: u32 = 50;

/// The renderer over one Chromium process.
#[derive(Debug)]
pub struct ChromiumRenderer {
    options: RenderOptions,
    program: Mutex<Option<PathBuf>>,
    browser: Mutex<Option<Arc<Browser>>>,
    /// Tabs free for the next page, of the browser now running.
    idle: Mutex<Vec<Tab>>,
    /// One token per tab: a page takes one to render.
    slots: (Sender<()>, Receiver<()>),
}

impl ChromiumRenderer {
    /// A renderer that starts its browser on the first page.
    pub fn new(options: RenderOptions) -> Self {
        let tabs = options.tabs.max(1);
        let slots = crossbeam_channel::bounded(tabs);
        for _ in 0..tabs {
            let _ = slots.0.send(());
        }
        ChromiumRenderer {
            options,
            program: Mutex::new(None),
            browser: Mutex::new(None),
            idle: Mutex::new(Vec::new()),
            slots,
        }
    }

    /// The running browser, started if there is none or it died.
    fn browser(&self) -> Result<Arc<Browser>, RenderError> {
        let mut slot = self.browser.lock();
        if let Some(b) = slot.as_ref().filter(|b| !b.pipe.is_dead()) {
            return Ok(Arc::clone(b));
        }
        // The dead browser's tabs go with it.
        self.idle.lock().clear();
        let program = self.program()?;
        let started = Browser::launch(&program).map_err(|e| RenderError::Browser(e.to_string()))?;
        let started = Arc::new(started);
        *slot = Some(Arc::clone(&started));
        Ok(started)
    }

    fn program(&self) -> Result<PathBuf, RenderError> {
        let mut program = self.program.lock();
        if let Some(p) = program.as_ref() {
            return Ok(p.clone());
        }
        let found = process::find(self.options.chromium.as_deref())
            .map_err(|e| RenderError::Missing(e.to_string()))?;
        *program = Some(found.clone());
        Ok(found)
    }

    /// The browser's process id, once it runs (for the fault tests).
    pub fn browser_pid(&self) -> Option<u32> {
        self.browser.lock().as_ref().map(|b| b.pid())
    }

    fn render_once(
        &self,
        job: &RenderJob<'_>,
        resources: &dyn Resources,
    ) -> Result<RenderedDom, (CdpError, bool)> {
        let browser = self
            .browser()
            .map_err(|e| (CdpError::Missing(e.to_string()), false))?;
        let reused = {
            let mut idle = self.idle.lock();
            idle.iter()
                .position(|t| t.of(&browser))
                .map(|i| idle.swap_remove(i))
        };
        let mut tab = match reused {
            Some(t) => t,
            None => Tab::open(&browser, START).map_err(|e| (e, browser.pipe.is_dead()))?,
        };
        match tab.render(job, resources, &self.options) {
            Ok(dom) => {
                tab.pages += 1;
                if tab.pages >= RECYCLE_AFTER {
                    tab.close();
                } else {
                    self.idle.lock().push(tab);
                }
                Ok(dom)
            }
            Err(e) => {
                tab.close();
                Err((e, browser.pipe.is_dead()))
            }
        }
    }
}

impl Renderer for ChromiumRenderer {
    fn check(&self) -> Result<(), RenderError> {
        self.program().map(|_| ())
    }

    fn render(
        &self,
        job: &RenderJob<'_>,
        resources: &dyn Resources,
    ) -> Result<RenderedDom, RenderError> {
        let _slot = Slot::take(&self.slots);
        let mut last = None;
        // A browser that died under this page (killed, out of memory) is started again and
        // the page loaded once more.
        for _ in 0..2 {
            match self.render_once(job, resources) {
                Ok(dom) => return Ok(dom),
                Err((e, true)) => last = Some(e),
                Err((CdpError::Missing(e), _)) => return Err(RenderError::Missing(e)),
                Err((CdpError::Timeout(_), false)) => {
                    return Err(RenderError::Unresponsive(self.options.timeout));
                }
                Err((e, false)) => return Err(RenderError::Browser(e.to_string())),
            }
        }
        Err(RenderError::Browser(
            last.map_or_else(|| "died".to_owned(), |e| e.to_string()),
        ))
    }
}

/// A tab's token, given back when the page is done.
struct Slot<'a>(&'a (Sender<()>, Receiver<()>));

impl<'a> Slot<'a> {
    fn take(slots: &'a (Sender<()>, Receiver<()>)) -> Self {
        let _ = slots.1.recv();
        Slot(slots)
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let _ = self.0.0.send(());
    }
}

#[cfg(test)]
mod tests;

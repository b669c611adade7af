//! One tab: a page target with its own flat session, its `Fetch` interception on for every
//! request, dialogs and popups disarmed. A page is rendered by navigating the tab to it and
//! serving its events until its network is idle, then reading its DOM; the tab goes back to
//! `about:blank` and waits for the next page.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, select};
use serde_json::{Value, json};

use super::CdpError;
use super::pipe::{Answer, answer_of};
use super::process::Browser;
use crate::crawl::render::resources::{self, Decision};
use crate::crawl::render::{RenderJob, RenderOptions, RenderedDom, Resource, Resources};

/// How long one command of the tab's own (not a page load) may take.
const COMMAND: Duration = Duration::from_secs(10);

/// Read the DOM: how long before the page's scripts are interrupted.
const READ: Duration = Duration::from_secs(3);

/// Run before any script of every page: dialogs answer at once (an `alert` would hold the
/// page's scripts, and the DOM's reading, until someone clicks), `print` does nothing, and
/// `window.open` opens nothing (a popup is not the page).
const DISARM: &str = "(() => {\
  window.alert = () => undefined;\
  window.confirm = () => false;\
  window.prompt = () => null;\
  window.print = () => undefined;\
  window.open = () => null;\
})();";

/// The DOM as the page shows it, and what its relative links resolve against — read after one
/// more turn of the page's timers: on a busy machine a timer due long ago (a link added 150 ms
/// after load) may not have run yet when the idle time has passed by the clock, and a timer
/// set now runs after every timer already due.
const READ_DOM: &str = "new Promise(done => setTimeout(done, 0)).then(() => \
  JSON.stringify({html: document.documentElement ? \
  document.documentElement.outerHTML : '', base: document.baseURI}))";

/// An open tab of one browser.
#[derive(Debug)]
pub(super) struct Tab {
    /// Pages rendered in it so far (a tab is closed after [`super::RECYCLE_AFTER`]).
    pub(super) pages: u32,
    browser: Arc<Browser>,
    context: String,
    target: String,
    session: String,
    events: Receiver<Value>,
}

impl Tab {
    /// Opens a tab on `browser`.
    pub(super) fn open(browser: &Arc<Browser>, timeout: Duration) -> Result<Self, CdpError> {
        let pipe = &browser.pipe;
        // A browser context of its own: tabs never share a renderer process, so a tab closed
        // (after RECYCLE_AFTER pages) gives its memory back.
        let context = pipe.call(None, "Target.createBrowserContext", json!({}), timeout)?;
        let context = text(&context, "browserContextId")?;
        let created = pipe.call(
            None,
            "Target.createTarget",
            json!({"url": "about:blank", "browserContextId": context}),
            timeout,
        )?;
        let target = text(&created, "targetId")?;
        let attached = pipe.call(
            None,
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
            timeout,
        )?;
        let session = text(&attached, "sessionId")?;
        let events = pipe.events(&session);
        let tab = Tab {
            pages: 0,
            browser: Arc::clone(browser),
            context,
            target,
            session,
            events,
        };
        for (method, params) in [
            ("Page.enable", json!({})),
            ("Inspector.enable", json!({})),
            (
                "Emulation.setFocusEmulationEnabled",
                json!({"enabled": true}),
            ),
            (
                "Page.addScriptToEvaluateOnNewDocument",
                json!({"source": DISARM}),
            ),
            ("Fetch.enable", json!({"patterns": [{"urlPattern": "*"}]})),
        ] {
            tab.call(method, params, timeout)?;
        }
        Ok(tab)
    }

    /// Whether the tab is one of `browser`'s.
    pub(super) fn of(&self, browser: &Arc<Browser>) -> bool {
        Arc::ptr_eq(&self.browser, browser)
    }

    fn send(&self, method: &str, params: Value) -> Result<Receiver<Answer>, CdpError> {
        self.browser.pipe.send(Some(&self.session), method, params)
    }

    fn call(&self, method: &str, params: Value, timeout: Duration) -> Result<Value, CdpError> {
        self.browser
            .pipe
            .call(Some(&self.session), method, params, timeout)
    }

    /// Closes the tab and its browser context (a tab whose page misbehaved is not used
    /// again).
    pub(super) fn close(self) {
        // Disposing of the tab's browser context closes the tab and ends its renderer.
        let _ = self.browser.pipe.send(
            None,
            "Target.disposeBrowserContext",
            json!({"browserContextId": self.context}),
        );
        self.browser.pipe.forget(&self.session);
    }

    /// Loads `job` and reads its DOM (see the module's comment).
    pub(super) fn render(
        &mut self,
        job: &RenderJob<'_>,
        resources: &dyn Resources,
        options: &RenderOptions,
    ) -> Result<RenderedDom, CdpError> {
        // Whatever the last page left (its `about:blank`'s load event, a late request) is
        // not this page's.
        for event in self.events.try_iter() {
            if event["method"] == "Fetch.requestPaused" {
                let id = event["params"]["requestId"].as_str().unwrap_or_default();
                self.fail(id, "Aborted")?;
            }
        }
        let started = Instant::now();
        let mut load = Load {
            job,
            resources,
            main_served: false,
            loaded: false,
            last_activity: started,
            navigations: Vec::new(),
            requests: 0,
        };
        let navigated = self.send("Page.navigate", json!({"url": job.url.as_str()}))?;
        let deadline = started + options.timeout;
        let mut navigation = Some(navigated);
        let timed_out = loop {
            let now = Instant::now();
            if now >= deadline {
                break true;
            }
            let idle_at = load.last_activity + options.idle;
            if load.loaded && now >= idle_at {
                break false;
            }
            let wake = if load.loaded {
                idle_at.min(deadline)
            } else {
                deadline
            };
            let never = crossbeam_channel::never();
            let answer = navigation.as_ref().unwrap_or(&never);
            select! {
                recv(self.events) -> event => {
                    let event = event.map_err(|_| CdpError::Closed)?;
                    self.serve(&mut load, &event)?;
                }
                recv(answer) -> got => {
                    navigation = None;
                    let result = answer_of("Page.navigate", got.map_err(|_| {
                        crossbeam_channel::RecvTimeoutError::Disconnected
                    }))?;
                    if let Some(error) = result.get("errorText").and_then(Value::as_str)
                        && !error.is_empty()
                    {
                        return Err(CdpError::Refused(format!("navigation: {error}")));
                    }
                }
                default(wake.saturating_duration_since(now)) => {}
            }
        };
        let (html, base) = self.read_dom()?;
        self.reset();
        Ok(RenderedDom {
            html: with_navigations(html, &load.navigations),
            base,
            timed_out,
            requests: load.requests,
        })
    }

    /// Serves one event of the page being loaded.
    fn serve(&self, load: &mut Load<'_>, event: &Value) -> Result<(), CdpError> {
        let params = &event["params"];
        match event["method"].as_str().unwrap_or_default() {
            "Fetch.requestPaused" => {
                self.answer_request(load, params)?;
                load.last_activity = Instant::now();
            }
            "Page.loadEventFired" => {
                load.loaded = true;
                load.last_activity = Instant::now();
            }
            "Page.javascriptDialogOpening" => {
                // DISARM answers dialogs before they open; one that still opens (a
                // `beforeunload`) is dismissed.
                let _ = self.send("Page.handleJavaScriptDialog", json!({"accept": false}))?;
            }
            "Inspector.targetCrashed" => return Err(CdpError::Crashed),
            _ => {}
        }
        Ok(())
    }

    /// Answers one paused request: the page's own document from the crawl's copy, a later
    /// navigation of the page refused (and kept as a link), what may build the DOM fetched
    /// by the crawl, the rest refused.
    fn answer_request(&self, load: &mut Load<'_>, params: &Value) -> Result<(), CdpError> {
        let id = params["requestId"].as_str().unwrap_or_default();
        let url = params["request"]["url"].as_str().unwrap_or_default();
        let kind = params["resourceType"].as_str().unwrap_or_default();
        let main_frame = params["frameId"].as_str() == Some(self.target.as_str());
        let answer = if kind == "Document" && main_frame {
            if load.main_served {
                load.navigations.push(url.to_owned());
                None
            } else {
                load.main_served = true;
                Some((
                    200,
                    vec![("Content-Type".to_owned(), load.job.content_type.to_owned())],
                    load.job.body,
                ))
            }
        } else {
            None
        };
        if let Some((status, headers, body)) = answer {
            return self.fulfil(id, status, &headers, body);
        }
        if kind == "Document" && main_frame {
            return self.fail(id, "Aborted");
        }
        match resources::decide(url, kind) {
            Decision::Block => self.fail(id, "BlockedByClient"),
            Decision::Fetch(url, kind) => match load.resources.fetch(&url, kind) {
                Resource::Answer {
                    status,
                    headers,
                    body,
                } => {
                    load.requests += 1;
                    self.fulfil(id, status, &headers, &body)
                }
                Resource::Kept { headers, body } => self.fulfil(id, 200, &headers, &body),
                Resource::Failed => {
                    load.requests += 1;
                    self.fail(id, "Failed")
                }
                Resource::Refused => self.fail(id, "BlockedByClient"),
            },
        }
    }

    fn fulfil(
        &self,
        id: &str,
        status: u16,
        headers: &[(String, String)],
        body: &[u8],
    ) -> Result<(), CdpError> {
        let headers: Vec<Value> = headers
            .iter()
            .map(|(name, value)| json!({"name": name, "value": value}))
            .collect();
        let params = json!({
            "requestId": id,
            "responseCode": status,
            "responseHeaders": headers,
            "body": data_encoding::BASE64.encode(body),
        });
        // Not waited for: the answer says nothing the page's loading needs.
        self.send("Fetch.fulfillRequest", params).map(drop)
    }

    fn fail(&self, id: &str, reason: &str) -> Result<(), CdpError> {
        self.send(
            "Fetch.failRequest",
            json!({"requestId": id, "errorReason": reason}),
        )
        .map(drop)
    }

    /// The DOM and base URL; a page whose scripts hold the browser (a loop) is interrupted
    /// once and read again.
    fn read_dom(&self) -> Result<(String, String), CdpError> {
        let params = json!({"expression": READ_DOM, "returnByValue": true, "awaitPromise": true});
        let read = match self.call("Runtime.evaluate", params.clone(), READ) {
            Err(CdpError::Timeout(_)) => {
                let _ = self.send("Runtime.terminateExecution", json!({}))?;
                self.call("Runtime.evaluate", params, READ)?
            }
            other => other?,
        };
        let value = read["result"]["value"].as_str().unwrap_or_default();
        let parsed: Value =
            serde_json::from_str(value).map_err(|e| CdpError::Protocol(e.to_string()))?;
        Ok((
            parsed["html"].as_str().unwrap_or_default().to_owned(),
            parsed["base"].as_str().unwrap_or_default().to_owned(),
        ))
    }

    /// Leaves the page for `about:blank`, refusing what it still asks for, so that its
    /// timers and requests end with it.
    fn reset(&self) {
        let Ok(answer) = self.send("Page.navigate", json!({"url": "about:blank"})) else {
            return;
        };
        // Done once `about:blank` has loaded: its load event must not end the next page's
        // wait.
        let until = Instant::now() + COMMAND;
        let never = crossbeam_channel::never();
        let mut answer = Some(answer);
        loop {
            select! {
                recv(answer.as_ref().unwrap_or(&never)) -> _ => answer = None,
                recv(self.events) -> event => {
                    let Ok(event) = event else { return };
                    match event["method"].as_str().unwrap_or_default() {
                        "Fetch.requestPaused" => {
                            let id = event["params"]["requestId"].as_str().unwrap_or_default();
                            let _ = self.fail(id, "Aborted");
                        }
                        "Page.loadEventFired" => return,
                        _ => {}
                    }
                }
                default(until.saturating_duration_since(Instant::now())) => return,
            }
        }
    }
}

/// A page being loaded.
struct Load<'a> {
    job: &'a RenderJob<'a>,
    resources: &'a dyn Resources,
    main_served: bool,
    loaded: bool,
    last_activity: Instant,
    navigations: Vec<String>,
    requests: u32,
}

/// A string field of a command's result.
fn text(result: &Value, field: &str) -> Result<String, CdpError> {
    result[field]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| CdpError::Protocol(format!("no {field} in {result}")))
}

/// The DOM with the addresses the page tried to go to (`location = …` in a script) as links
/// at its end: a script's redirect leads a visitor there as a link does.
fn with_navigations(mut html: String, navigations: &[String]) -> String {
    for url in navigations {
        html.push_str("<a href=\"");
        for c in url.chars() {
            match c {
                '&' => html.push_str("&amp;"),
                '"' => html.push_str("&quot;"),
                '<' => html.push_str("&lt;"),
                c => html.push(c),
            }
        }
        html.push_str("\"></a>");
    }
    html
}

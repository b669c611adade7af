//! `rccrawler demo`: serves the bundled demo site on 127.0.0.1 and crawls it with the shipped
//! settings.ini, so the first command of the README works on a machine with no network.
//! Everything it writes goes to a `demo/` folder beside settings.ini (results, state, logs):
//! a demo run in a crawl's folder never touches that crawl's files.

pub mod site;

use std::path::Path;

use crossbeam_channel::Receiver;

use crate::base::loopback::Server;
use crate::crawl::settings::{ResolveEntry, Settings};
use crate::face::cli::{self, Exit};
use crate::face::registry::Registry;
use crate::model::site::{Origin, SiteSpec};

/// The port tried first, so repeated demos write to the same results folder.
pub const PREFERRED_PORT: u16 = 18421;

/// The delay between two requests to the demo site.
pub const DEMO_DELAY: std::time::Duration = std::time::Duration::from_millis(10);

/// Runs the demo.
pub fn run(settings_path: &Path, ctrl_c: Receiver<()>) -> Exit {
    let registry = Registry::builtin();
    let mut settings = if settings_path.exists() {
        match cli::load_settings(settings_path, &registry) {
            Ok(s) => s,
            Err(code) => return code,
        }
    } else {
        eprintln!(
            "{} not found: using the default settings",
            settings_path.display()
        );
        Settings::defaults(Path::new("."))
    };
    let server = match Server::start_on(PREFERRED_PORT).or_else(|_| Server::start()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: cannot start the demo server on 127.0.0.1: {e}");
            return Exit::Failure;
        }
    };
    let port = server.port();
    site::install(&server, port);
    let mut resolve = settings.http.resolve.to_vec();
    resolve.push(ResolveEntry {
        host: site::HOST.into(),
        port: None,
        addr: [127, 0, 0, 1].into(),
    });
    settings.http.resolve = resolve.into();
    // Its own folder: results, state and logs of a real crawl beside it are left alone.
    let base = settings
        .file()
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let demo = base.join("demo");
    let under_demo = |p: &Path| demo.join(p.strip_prefix(&base).unwrap_or(p));
    settings.results.folder = under_demo(&settings.results.folder);
    settings.state.folder = under_demo(&settings.state.folder);
    settings.logs.common_log = under_demo(&settings.logs.common_log);
    settings.logs.error_log = under_demo(&settings.logs.error_log);
    let url = url::Url::parse(&format!("http://{}:{port}/", site::HOST)).expect("a valid demo URL");
    let origin = Origin::of(&url).expect("the demo URL has an origin");
    println!("demo site: {url} (served on 127.0.0.1:{port})");
    // The demo site is served by this very process: a short delay shows the politeness
    // machinery without making the demo slow (real sites get DefaultCrawlDelay).
    let spec = SiteSpec {
        origin: origin.clone(),
        max_downloads: settings.sites.defaults.max_downloads,
        max_level: settings.sites.defaults.max_level,
        crawl_delay: DEMO_DELAY,
        rules: Default::default(),
    };
    println!(
        "writing into {} (results, state, logs), {} ms between requests",
        demo.display(),
        DEMO_DELAY.as_millis()
    );
    let results = settings.results.folder.join(origin.folder_name());
    forget_old_demos(&demo);
    let exit = cli::run(&registry, &settings, &[spec], ctrl_c);
    println!(
        "open {}/nodes.csv and edges.csv in Gephi (Data Laboratory > Import Spreadsheet), or graph.gexf",
        results.display()
    );
    exit
}

/// A fresh crawl moves the last crawl's results aside (`results.old-<time>`, beside
/// `results`); in the demo's own folder only the one this run makes is worth keeping: the
/// earlier ones go, so that running the demo again and again does not pile them up.
fn forget_old_demos(demo: &Path) {
    let Ok(entries) = std::fs::read_dir(demo) else {
        return;
    };
    let mut old: Vec<std::path::PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.is_dir()
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("results.old-"))
        })
        .collect();
    old.sort();
    for p in old {
        let _ = std::fs::remove_dir_all(p);
    }
}

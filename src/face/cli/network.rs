//! `rccrawler network [RESULTS_DIR] [--prospects K] [--entities FILE]`: the network of sites
//! of a results folder (SPEC §13; in the study's web entities, SPEC §20), written into its
//! `network/` folder, as a crawl writes it at its end.

use std::path::{Path, PathBuf};

use super::{Exit, hosts_path, load_settings};
use crate::analysis::network::{self, NetworkError, NetworkSpec, TargetScopes};
use crate::crawl::settings::Settings;
use crate::face::registry::Registry;
use crate::formats::hosts;

/// Builds the network of `results` (or settings.ini's `ResultFolder`): settings.ini and
/// hosts.txt, when they exist, say how (`NetworkUnit`, `NetworkSubsets`, the URL filter's
/// scopes).
pub fn network(
    settings_path: &Path,
    named_hosts: Option<&Path>,
    results: Option<&Path>,
    (prospects, entities): (Option<u32>, Option<&Path>),
) -> Exit {
    let registry = Registry::builtin();
    let settings = if settings_path.exists() {
        match load_settings(settings_path, &registry) {
            Ok(s) => s,
            Err(code) => return code,
        }
    } else {
        Settings::defaults(Path::new("."))
    };
    let folder: PathBuf =
        results.map_or_else(|| settings.results.folder.clone(), Path::to_path_buf);
    let mut spec = match spec(&registry, &settings, settings_path, named_hosts) {
        Ok(spec) => spec,
        Err(code) => return code,
    };
    if let Some(path) = entities {
        match network::Entities::load(path) {
            Ok(e) => spec.entities = Some(std::sync::Arc::new(e)),
            Err(e) => {
                eprintln!("error: {e}");
                return Exit::BadInput;
            }
        }
    }
    if !folder.join("summary.csv").is_file() {
        eprintln!(
            "error: {}: no summary.csv: not a results folder of rccrawler",
            folder.display()
        );
        return Exit::BadInput;
    }
    match network::build(&folder, &spec, prospects) {
        Ok(net) => {
            let accompanying = net.nodes.len() - net.targets;
            let what = if spec.entities.is_some() {
                "targets and entities with pages"
            } else {
                "targets"
            };
            println!(
                "network of {} {what} and {accompanying} accompanying sites, {} arcs: {}",
                net.targets,
                net.arcs,
                folder.join(network::NETWORK_DIR).display()
            );
            if let Some(k) = prospects {
                let n = net.prospects(k).count();
                println!("{n} accompanying sites linked by at least {k} targets: prospects.txt");
            }
            Exit::Ok
        }
        Err(e @ NetworkError::Input { .. }) => {
            eprintln!("error: {e}");
            Exit::BadInput
        }
        Err(e) => {
            eprintln!("error: {e}");
            Exit::Failure
        }
    }
}

/// The network settings.ini and hosts.txt ask for: without hosts.txt each target's scope is
/// its listed site.
pub(super) fn spec(
    registry: &Registry,
    settings: &Settings,
    settings_path: &Path,
    named_hosts: Option<&Path>,
) -> Result<NetworkSpec, Exit> {
    let path = hosts_path(settings_path, named_hosts);
    let scopes = if path.exists() {
        let sites = hosts::load(&path, settings.sites.defaults).map_err(|e| {
            eprintln!("error: {e}");
            Exit::BadInput
        })?;
        registry.target_scopes(settings, &sites).map_err(|e| {
            eprintln!("error: {}: {e}", settings_path.display());
            Exit::BadInput
        })?
    } else {
        TargetScopes::default()
    };
    Ok(settings.results.network_spec(scopes))
}

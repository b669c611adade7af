//! `rccrawler replay`: every budget rule on recorded yields, against the exact oracle.

use std::path::Path;

use super::{Exit, ReplayArgs};
use crate::base::storage::write_atomic;
use crate::crawl::settings::Settings;
use crate::face::registry::Registry;
use crate::model::bandit::replay::NamedRule;
use crate::model::bandit::replay::{Column, compare, load, write_csv, write_table};

/// Runs the replay and prints the table (and writes the CSV).
pub fn replay(args: &ReplayArgs) -> Exit {
    let settings = if args.settings.exists() {
        match Settings::load(&args.settings) {
            Ok((s, _)) => s,
            Err(e) => {
                eprintln!("error: {e}");
                return Exit::BadInput;
            }
        }
    } else {
        Settings::defaults(Path::new("."))
    };
    let column = if args.all_links {
        Column::ExternalLinks
    } else {
        Column::Reward
    };
    let seqs = match load(&args.input, column) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::BadInput;
        }
    };
    let params = settings.bandit.params(seqs.len());
    let registry = Registry::builtin();
    let all = registry.replay_rules();
    let mut rules: Vec<NamedRule<'_>> = Vec::new();
    if args.rules.is_empty() {
        rules.extend(all.iter().map(|(name, make)| (*name, &**make as _)));
    }
    for wanted in &args.rules {
        match all.iter().find(|(name, _)| name == wanted) {
            Some((name, make)) => rules.push((*name, &**make as _)),
            None => {
                let valid: Vec<&str> = all.iter().map(|(n, _)| *n).collect();
                eprintln!(
                    "error: --rules: unknown rule {wanted}; valid: {}",
                    valid.join(", ")
                );
                return Exit::BadInput;
            }
        }
    }
    let rounds = compare(&seqs, &args.budgets, &rules, &params, args.in_flight);
    let mut out = std::io::stdout().lock();
    match write_table(&mut out, &seqs, &rounds, registry.default_budget_rule()) {
        Ok(()) => {}
        // `| head`: whoever reads has what they wanted; the CSV is still written.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Failure;
        }
    }
    if let Some(path) = &args.csv
        && let Err(e) = write_atomic(path, |w| write_csv(w, &rounds))
    {
        eprintln!("error: cannot write {}: {e}", path.display());
        return Exit::Failure;
    }
    Exit::Ok
}

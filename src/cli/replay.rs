//! `rccrawler replay`: every budget rule on recorded yields, against the exact oracle.

use std::path::Path;

use super::{Exit, ReplayArgs};
use crate::bandit::replay::{Column, compare, load, write_csv, write_table};
use crate::bandit::{BASELINES, RULES, policy};
use crate::settings::Settings;
use crate::storage::write_atomic;

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
    let all: Vec<&str> = RULES.iter().chain(BASELINES).copied().collect();
    let rules: Vec<&str> = if args.rules.is_empty() {
        all.clone()
    } else {
        args.rules.iter().map(String::as_str).collect()
    };
    if let Some(bad) = rules.iter().find(|r| policy(r, &params).is_none()) {
        eprintln!(
            "error: --rules: unknown rule {bad}; valid: {}",
            all.join(", ")
        );
        return Exit::BadInput;
    }
    let rounds = compare(&seqs, &args.budgets, &rules, &params);
    let mut out = std::io::stdout().lock();
    if let Err(e) = write_table(&mut out, &seqs, &rounds) {
        eprintln!("error: {e}");
        return Exit::Failure;
    }
    if let Some(path) = &args.csv
        && let Err(e) = write_atomic(path, |w| write_csv(w, &rounds))
    {
        eprintln!("error: cannot write {}: {e}", path.display());
        return Exit::Failure;
    }
    Exit::Ok
}

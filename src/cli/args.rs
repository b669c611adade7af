//! The command line's words: `rccrawler [crawl options]`, `demo`, `replay`, `status`,
//! `export`, parsed with
//! lexopt (strict: an unknown option or a stray word is an error, exit code 2).

use std::ffi::OsString;
use std::path::PathBuf;

/// Usage text.
pub const USAGE: &str = "\
usage: rccrawler [--settings FILE] [--hosts FILE]   crawl the sites of hosts.txt
       rccrawler demo [--settings FILE]             serve the bundled demo site on 127.0.0.1 and crawl it
       rccrawler replay RESULTS|CSV [--budget N,N,...] [--rules R,R,...] [--reward new|all]
                        [--csv FILE] [--settings FILE]
                                                    compare the budget rules on recorded yields
       rccrawler status [--settings FILE]           every scope of a PgDM crawl: state, owner, pages, queue
       rccrawler export [--settings FILE] [--to DIR] [ORIGIN ...]
                                                    write a PgDM crawl's results (all scopes, or those named)
       rccrawler --help | --version

settings.ini is read from the current folder unless named; hosts.txt from settings.ini's folder.
Exit codes: 0 finished or stopped, 1 runtime failure, 2 bad input (nothing started),
3 nothing crawled (no site listed, or no page of any site recorded).
Stop a crawl with Ctrl+C or by creating the StopFile (stop.txt); run again to continue.
replay reads a results folder (each site's yield.csv) or one CSV Site,Page,Reward; the
rules' parameters (R2Step, R3Initial, BanditWindow, ...) come from settings.ini.";

/// What to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Crawl hosts.txt.
    Crawl {
        /// settings.ini.
        settings: PathBuf,
        /// hosts.txt (`None`: the one beside settings.ini).
        hosts: Option<PathBuf>,
    },
    /// The demo.
    Demo {
        /// settings.ini.
        settings: PathBuf,
    },
    /// Compare the budget rules on recorded sequences.
    Replay(ReplayArgs),
    /// Print the state of a crawl kept in a database.
    Status {
        /// settings.ini (its `DatabaseUrl` and `CrawlName`).
        settings: PathBuf,
    },
    /// Write the results of a crawl kept in a database.
    Export {
        /// settings.ini (its `DatabaseUrl`, `CrawlName`, unloaders and `ResultFolder`).
        settings: PathBuf,
        /// Where to write instead of `ResultFolder`.
        to: Option<PathBuf>,
        /// Seed origins of the scopes to write (empty: all).
        scopes: Vec<String>,
    },
    /// Print usage.
    Help,
    /// Print the version.
    Version,
}

/// `rccrawler replay`'s arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayArgs {
    /// A results folder or a CSV `Site,Page,Reward`.
    pub input: PathBuf,
    /// Budgets N.
    pub budgets: Vec<usize>,
    /// Rules (empty: all of them).
    pub rules: Vec<String>,
    /// Use the `ExternalLinks` column (every external link) instead of `Reward`.
    pub all_links: bool,
    /// Also write the runs as CSV here.
    pub csv: Option<PathBuf>,
    /// settings.ini with the rules' parameters.
    pub settings: PathBuf,
}

/// Parses arguments (without the program name).
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Command, String> {
    use lexopt::prelude::*;
    let mut p = lexopt::Parser::from_args(args);
    let mut settings = PathBuf::from("settings.ini");
    let mut hosts: Option<PathBuf> = None;
    let mut command: Option<String> = None;
    let mut input: Option<PathBuf> = None;
    let mut budgets = vec![500, 2000, 10_000];
    let mut rules = Vec::new();
    let mut all_links = false;
    let mut csv = None;
    let mut to = None;
    let mut scopes = Vec::new();
    let text = |e: lexopt::Error| e.to_string();
    let list = |v: OsString| -> Result<Vec<String>, String> {
        Ok(v.to_string_lossy()
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect())
    };
    while let Some(arg) = p.next().map_err(text)? {
        match arg {
            Short('h') | Long("help") => return Ok(Command::Help),
            Short('V') | Long("version") => return Ok(Command::Version),
            Long("settings") => settings = p.value().map_err(text)?.into(),
            Long("hosts") if command.is_none() => hosts = Some(p.value().map_err(text)?.into()),
            Long("budget") if command.as_deref() == Some("replay") => {
                budgets = list(p.value().map_err(text)?)?
                    .iter()
                    .map(|b| {
                        b.parse::<usize>().ok().filter(|&n| n > 0).ok_or_else(|| {
                            format!("--budget: {b:?} is not a number of pages above 0")
                        })
                    })
                    .collect::<Result<_, _>>()?;
            }
            Long("rules") if command.as_deref() == Some("replay") => {
                rules = list(p.value().map_err(text)?)?
            }
            Long("reward") if command.as_deref() == Some("replay") => {
                all_links = match p.value().map_err(text)?.to_string_lossy().as_ref() {
                    "new" => false,
                    "all" => true,
                    other => return Err(format!("--reward: {other:?}: use new or all")),
                };
            }
            Long("csv") if command.as_deref() == Some("replay") => {
                csv = Some(p.value().map_err(text)?.into())
            }
            Long("to") if command.as_deref() == Some("export") => {
                to = Some(p.value().map_err(text)?.into())
            }
            Value(v) if command.as_deref() == Some("export") => {
                scopes.push(v.to_string_lossy().trim_end_matches('/').to_owned());
            }
            Value(v) if command.is_none() => {
                let word = v.to_string_lossy().into_owned();
                if !matches!(word.as_str(), "demo" | "replay" | "status" | "export") {
                    return Err(format!("unexpected argument {word:?}"));
                }
                command = Some(word);
            }
            Value(v) if command.as_deref() == Some("replay") && input.is_none() => {
                input = Some(v.into());
            }
            other => return Err(other.unexpected().to_string()),
        }
    }
    Ok(match command.as_deref() {
        Some("demo") => Command::Demo { settings },
        Some("status") => Command::Status { settings },
        Some("export") => Command::Export {
            settings,
            to,
            scopes,
        },
        Some("replay") => Command::Replay(ReplayArgs {
            input: input.ok_or("replay needs a results folder or a CSV file")?,
            budgets,
            rules,
            all_links,
            csv,
            settings,
        }),
        _ => Command::Crawl { settings, hosts },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Command, String> {
        parse(args.iter().map(OsString::from))
    }

    #[test]
    fn arguments() {
        assert_eq!(
            p(&[]).unwrap(),
            Command::Crawl {
                settings: "settings.ini".into(),
                hosts: None
            }
        );
        assert_eq!(
            p(&["--hosts", "h.txt", "--settings", "s.ini"]).unwrap(),
            Command::Crawl {
                settings: "s.ini".into(),
                hosts: Some("h.txt".into())
            }
        );
        assert_eq!(
            p(&["demo"]).unwrap(),
            Command::Demo {
                settings: "settings.ini".into()
            }
        );
        assert_eq!(p(&["--version"]).unwrap(), Command::Version);
        assert!(p(&["--hosts"]).is_err());
        assert!(p(&["crawl"]).is_err());
        assert_eq!(
            p(&[
                "replay", "results", "--budget", "500,2000", "--csv", "t.csv"
            ])
            .unwrap(),
            Command::Replay(ReplayArgs {
                input: "results".into(),
                budgets: vec![500, 2000],
                rules: Vec::new(),
                all_links: false,
                csv: Some("t.csv".into()),
                settings: "settings.ini".into(),
            })
        );
        assert_eq!(
            p(&["export", "--to", "out", "http://a.test/", "http://b.test"]).unwrap(),
            Command::Export {
                settings: "settings.ini".into(),
                to: Some("out".into()),
                scopes: vec!["http://a.test".into(), "http://b.test".into()],
            }
        );
        assert_eq!(
            p(&["status"]).unwrap(),
            Command::Status {
                settings: "settings.ini".into()
            }
        );
        assert!(p(&["status", "x"]).is_err());
        assert!(p(&["replay"]).is_err(), "replay needs an input");
        assert!(p(&["replay", "r", "--budget", "lots"]).is_err());
        // See: issue 20 — a budget of 0 pages was accepted.
        assert!(p(&["replay", "r", "--budget", "500,0"]).is_err());
        assert!(
            p(&["--budget", "5"]).is_err(),
            "replay's options are replay's"
        );
    }
}

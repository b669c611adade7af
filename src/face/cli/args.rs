//! The command line's words: `rccrawler [crawl options]`, `demo`, `replay`, `report`,
//! `network`, `status`, `compare`, `export`, parsed with clap's derive API: every subcommand
//! has its own help with its defaults and formats (`rccrawler replay --help`,
//! `rccrawler help export`), and an unknown option or a stray word is an error (exit code 2).

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

/// What the help of the whole program ends with.
const AFTER_HELP: &str = "\
settings.ini is read from the current folder unless named; hosts.txt from settings.ini's folder.
Exit codes: 0 finished or stopped, 1 runtime failure, 2 bad input (nothing started),
3 nothing crawled (no site listed, or no page of any site recorded).
Stop a crawl with Ctrl+C or by creating the StopFile (stop.txt); run again to continue.
`rccrawler help SUBCOMMAND` (or `rccrawler SUBCOMMAND --help`) says more about each.";

/// Crawls the sites of hosts.txt into their web graphs (pages, internal links, levels) and
/// every external link; without a subcommand, crawls.
#[derive(Debug, Parser)]
#[command(name = "rccrawler", version, after_help = AFTER_HELP)]
#[command(args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Sub>,
    /// settings.ini to read (every subcommand takes it too) [default: settings.ini; for
    /// rebuild: the settings the archive recorded]
    #[arg(long, global = true, value_name = "FILE")]
    settings: Option<PathBuf>,
    /// hosts.txt to crawl [default: the hosts.txt beside settings.ini]
    #[arg(long, global = true, value_name = "FILE")]
    hosts: Option<PathBuf>,
    /// Crawl, then keep the status page up over the ended crawl until Ctrl+C (at the address
    /// the crawl's page had; StatusAddress, or a free loopback port when it is empty).
    #[arg(long)]
    serve: bool,
}

#[derive(Debug, Subcommand)]
enum Sub {
    /// Serves the bundled demo site on 127.0.0.1 and crawls it with settings.ini, into demo/.
    Demo,
    /// Compares the budget rules on recorded yields, against the exact oracle.
    ///
    /// Reads a results folder (each site's yield.csv) or one CSV file with the columns
    /// Site,Page,Reward (Level optional), pages in each site's breadth-first order. Prints, per
    /// budget N, each rule's SR(N) (the external links collected with N pages), its ratio to
    /// the oracle's, and the pages it gave each site. The rules' parameters (R2Step, R3Initial,
    /// BanditWindow, BanditPrior, ...) come from settings.ini when it exists.
    Replay(ReplayCli),
    /// Writes report.html into a results folder: sites table, cross-site statistics, plots.
    ///
    /// Reads summary.csv and each site's files (also a folder written by `rccrawler export`)
    /// and writes RESULTS_DIR/report.html, one self-contained page that opens offline. The
    /// crawl's PageBudget and Scheduler come from settings.ini when it exists.
    Report {
        /// The results folder [default: settings.ini's ResultFolder, or results]
        #[arg(value_name = "RESULTS_DIR")]
        results: Option<PathBuf>,
    },
    /// Writes the network of sites of a results folder into RESULTS_DIR/network/.
    ///
    /// The targets (summary.csv's sites), the accompanying sites they link to (by registrable
    /// domain, or by host with NetworkUnit = host) split into subsets by how many targets
    /// link to each (NetworkSubsets), and the arcs between them, from each site's
    /// external_links.csv: nodes.csv, edges.csv, subsets.csv, graph.gexf. Which hosts a
    /// target's scope takes in comes from settings.ini's URL filter and hosts.txt when they
    /// exist (else each target is its listed site).
    Network {
        /// The results folder [default: settings.ini's ResultFolder, or results]
        #[arg(value_name = "RESULTS_DIR")]
        results: Option<PathBuf>,
        /// Also write network/prospects.txt: the accompanying sites linked by at least K
        /// targets, as hosts.txt lines (the next round of a snowball study).
        #[arg(long, value_name = "K", value_parser = targets_above_zero)]
        prospects: Option<u32>,
        /// The study's web entities: a file of `NAME: PREFIX [PREFIX ...]` lines (PREFIX: host,
        /// =host or host/path/) [default: settings.ini's NetworkEntities]
        #[arg(long, value_name = "FILE")]
        entities: Option<PathBuf>,
    },
    /// Prints the state of the crawl settings.ini names. A crawl of one process (BMICDM):
    /// while it runs, what its live page says (totals, the sites being crawled, time left);
    /// once it ended, its summary.csv. A PgDM crawl: every scope, its state, owner, pages and
    /// queue, from the database.
    ///
    /// With --serve, serves a status page instead, until Ctrl+C: of an ended crawl, its
    /// finished sites with links to their files; of a PgDM crawl, every process's sites.
    Status {
        /// Serve the status page at ADDR [default: settings.ini's StatusAddress (a free
        /// loopback port), or 127.0.0.1:8765 when it is empty]
        #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "")]
        serve: Option<String>,
    },
    /// Compares two or more crawls of the same sites (results folders, oldest first) into DIR.
    ///
    /// Says first where the crawls cannot be compared (maxCrawlLevel, URL filter, budget,
    /// duplicate rule, page limits: read from each folder's crawl.ini and hosts.txt), per site,
    /// and compares the rest. Writes DIR/sites.csv (per site: pages, arcs, external and bad
    /// links in each crawl and the change; pages added, removed, changed, renamed, moved),
    /// pages.csv (Site,Url,Change,OldLevel,NewLevel,OldHash,NewHash), renamed.csv, arcs.csv,
    /// external.csv, network/ (sites.csv, arcs.csv) when the crawls have a network of sites, a
    /// dynamic graph.gexf per site and for the network (Gephi's timeline plays the change), and
    /// report.html. With more than two crawls DIR compares the first with the last and
    /// DIR/steps/I-J/ each crawl with the next. Nothing is written into the compared folders.
    Compare {
        /// Results folders, oldest first (two or more).
        #[arg(value_name = "RESULTS_DIR", num_args = 2.., required = true)]
        results: Vec<PathBuf>,
        /// Where to write the comparison.
        #[arg(long, value_name = "DIR", required = true)]
        out: PathBuf,
    },
    /// Derives a crawl's results from its WARC archive alone (Archive = warc), without the
    /// network: with the settings and sites the archive recorded, results equal to the
    /// crawl's; with --settings FILE or --hosts FILE, the results those would have given on the
    /// same answers. A URL the archive lacks is a bad link "not in the archive", never fetched.
    /// Writes DIR/results (and DIR/state, DIR/logs while it runs). A crawl shared by several
    /// processes (PgDM) is rebuilt from all their archive folders at once.
    Rebuild {
        /// The archive folder (a crawl's results/archive), or several (one per process).
        #[arg(value_name = "ARCHIVE_DIR", num_args = 1.., required = true)]
        archive: Vec<PathBuf>,
        /// Where to write (empty, or an earlier rebuild's folder, which is replaced).
        #[arg(long, value_name = "DIR", default_value = "rebuilt")]
        out: PathBuf,
    },
    /// Writes a saved crawl's results (all scopes, or those named) as a crawl would: from the
    /// state folder (BMICDM) or the database (PgDM), as settings.ini's DataManager keeps it.
    Export {
        /// Where to write [default: settings.ini's ResultFolder]
        #[arg(long, value_name = "DIR")]
        to: Option<PathBuf>,
        /// Seed origins of the scopes to write, e.g. `http://www.example.edu` (all if none).
        #[arg(value_name = "ORIGIN")]
        scopes: Vec<String>,
    },
}

/// `rccrawler replay`'s options, as clap reads them.
#[derive(Debug, clap::Args)]
struct ReplayCli {
    /// A results folder or a CSV file Site,Page,Reward.
    #[arg(value_name = "RESULTS|CSV")]
    input: PathBuf,
    /// Budgets N, in pages, comma-separated.
    #[arg(long = "budget", value_name = "N,N,...", value_delimiter = ',',
          default_value = "500,2000,10000", value_parser = pages_above_zero)]
    budgets: Vec<usize>,
    /// Rules to replay, comma-separated (R1, R2, R3, WinsorUcb, ...) [default: all]
    #[arg(long, value_name = "R,R,...", value_delimiter = ',')]
    rules: Vec<String>,
    /// What a page pays: new external links (yield.csv's Reward) or all of them
    /// (ExternalLinks).
    #[arg(long, value_enum, default_value = "new")]
    reward: Reward,
    /// Also write the runs as CSV (Budget,Rule,Reward,Oracle,Ratio) to FILE.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Choose as a crawl with D downloaders does: each choice made before the rewards of
    /// the D − 1 pages chosen before it are known (believed to pay nothing meanwhile). 1:
    /// every reward known, as the paper's rules assume.
    #[arg(long = "in-flight", value_name = "D", default_value = "1", value_parser = pages_above_zero)]
    in_flight: usize,
}

/// `--reward`.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Reward {
    /// External links the crawl of that site had not seen before.
    New,
    /// Every external link on the page.
    All,
}

fn targets_above_zero(s: &str) -> Result<u32, String> {
    s.trim()
        .parse::<u32>()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("{s:?} is not a number of targets above 0"))
}

fn pages_above_zero(s: &str) -> Result<usize, String> {
    s.trim()
        .parse::<usize>()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("{s:?} is not a number of pages above 0"))
}

/// Why the arguments give no command to run.
#[derive(Debug)]
pub struct ArgsError(clap::Error);

impl std::fmt::Display for ArgsError {
    /// clap's message: what is wrong, the usage line, and where to read more.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0.render())
    }
}

impl std::error::Error for ArgsError {}

/// Parses arguments (without the program name).
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Command, ArgsError> {
    let argv = std::iter::once(OsString::from("rccrawler")).chain(args);
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(e) => {
            return match e.kind() {
                clap::error::ErrorKind::DisplayHelp
                | clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    Ok(Command::Help(e.render().to_string()))
                }
                clap::error::ErrorKind::DisplayVersion => Ok(Command::Version),
                _ => Err(ArgsError(e)),
            };
        }
    };
    // Only rebuild tells a settings file named from none (its default is the archive's own).
    let named_settings = cli.settings.clone();
    let settings = cli
        .settings
        .unwrap_or_else(|| PathBuf::from("settings.ini"));
    Ok(match cli.command {
        Some(Sub::Rebuild { archive, out }) => Command::Rebuild(RebuildArgs {
            archive,
            out,
            settings: named_settings,
            hosts: cli.hosts,
        }),
        None => Command::Crawl {
            settings,
            hosts: cli.hosts,
            serve: cli.serve,
        },
        Some(Sub::Demo) => Command::Demo { settings },
        Some(Sub::Status { serve }) => Command::Status { settings, serve },
        Some(Sub::Report { results }) => Command::Report { settings, results },
        Some(Sub::Network {
            results,
            prospects,
            entities,
        }) => Command::Network {
            settings,
            hosts: cli.hosts,
            results,
            prospects,
            entities,
        },
        Some(Sub::Compare { results, out }) => Command::Compare { results, out },
        Some(Sub::Export { to, scopes }) => Command::Export {
            settings,
            to,
            scopes: scopes
                .into_iter()
                .map(|s| s.trim_end_matches('/').to_owned())
                .collect(),
        },
        Some(Sub::Replay(r)) => Command::Replay(ReplayArgs {
            input: r.input,
            budgets: r.budgets,
            rules: r
                .rules
                .into_iter()
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect(),
            all_links: matches!(r.reward, Reward::All),
            csv: r.csv,
            in_flight: r.in_flight,
            settings,
        }),
    })
}

/// `rccrawler rebuild`'s arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RebuildArgs {
    /// The archive folders (one, or one per process of a shared crawl).
    pub archive: Vec<PathBuf>,
    /// `--out DIR`.
    pub out: PathBuf,
    /// `--settings FILE` (`None`: the archive's own).
    pub settings: Option<PathBuf>,
    /// `--hosts FILE` (`None`: the archive's own).
    pub hosts: Option<PathBuf>,
}

/// What to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Crawl hosts.txt.
    Crawl {
        /// settings.ini.
        settings: PathBuf,
        /// hosts.txt (`None`: the one beside settings.ini).
        hosts: Option<PathBuf>,
        /// `--serve`: the status page stays up after the crawl, until Ctrl+C.
        serve: bool,
    },
    /// The demo.
    Demo {
        /// settings.ini.
        settings: PathBuf,
    },
    /// Compare the budget rules on recorded sequences.
    Replay(ReplayArgs),
    /// Write report.html into a results folder.
    Report {
        /// settings.ini (its `ResultFolder`, `PageBudget` and `Scheduler`), if it exists.
        settings: PathBuf,
        /// The results folder (`None`: settings.ini's `ResultFolder`).
        results: Option<PathBuf>,
    },
    /// Write the network of sites of a results folder.
    Network {
        /// settings.ini (its `ResultFolder`, URL filter, `NetworkUnit`, `NetworkSubsets`), if
        /// it exists.
        settings: PathBuf,
        /// hosts.txt (`None`: the one beside settings.ini), if it exists.
        hosts: Option<PathBuf>,
        /// The results folder (`None`: settings.ini's `ResultFolder`).
        results: Option<PathBuf>,
        /// `--prospects K`.
        prospects: Option<u32>,
        /// `--entities FILE` (`None`: settings.ini's `NetworkEntities`).
        entities: Option<PathBuf>,
    },
    /// Print the state of a crawl (running or ended, one process or shared), or serve its
    /// status page.
    Status {
        /// settings.ini (its `DataManager`, `ResultFolder`, `DatabaseUrl` and `CrawlName`).
        settings: PathBuf,
        /// `--serve [ADDR]`: the address (empty: `StatusAddress` or the default).
        serve: Option<String>,
    },
    /// Rebuild a crawl's results from its archive.
    Rebuild(RebuildArgs),
    /// Compare crawls of the same sites.
    Compare {
        /// Results folders, oldest first.
        results: Vec<PathBuf>,
        /// `--out DIR`.
        out: PathBuf,
    },
    /// Write the results of a saved crawl (state folder or database).
    Export {
        /// settings.ini (its `DatabaseUrl`, `CrawlName`, unloaders and `ResultFolder`).
        settings: PathBuf,
        /// Where to write instead of `ResultFolder`.
        to: Option<PathBuf>,
        /// Seed origins of the scopes to write (empty: all).
        scopes: Vec<String>,
    },
    /// Print this help text (of the program or of a subcommand).
    Help(String),
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
    /// Choices made this many pulls ahead of their rewards (a crawl's downloaders).
    pub in_flight: usize,
    /// settings.ini with the rules' parameters.
    pub settings: PathBuf,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Command, String> {
        parse(args.iter().map(OsString::from)).map_err(|e| e.to_string())
    }

    #[test]
    fn arguments() {
        assert_eq!(
            p(&[]).unwrap(),
            Command::Crawl {
                settings: "settings.ini".into(),
                hosts: None,
                serve: false
            }
        );
        assert_eq!(
            p(&["--hosts", "h.txt", "--settings", "s.ini"]).unwrap(),
            Command::Crawl {
                settings: "s.ini".into(),
                hosts: Some("h.txt".into()),
                serve: false
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
                in_flight: 1,
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
                settings: "settings.ini".into(),
                serve: None,
            }
        );
        // --serve with no address: settings.ini's StatusAddress (an empty value here).
        assert_eq!(
            p(&["status", "--serve"]).unwrap(),
            Command::Status {
                settings: "settings.ini".into(),
                serve: Some(String::new()),
            }
        );
        assert_eq!(
            p(&["status", "--serve", "127.0.0.1:9"]).unwrap(),
            Command::Status {
                settings: "settings.ini".into(),
                serve: Some("127.0.0.1:9".into()),
            }
        );
        assert_eq!(
            p(&["report"]).unwrap(),
            Command::Report {
                settings: "settings.ini".into(),
                results: None,
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
        assert!(
            p(&["--hosts", "h.txt", "demo"]).is_err(),
            "--hosts is the crawl's"
        );
        assert_eq!(
            p(&[
                "replay",
                "r",
                "--settings",
                "s.ini",
                "--reward",
                "all",
                "--rules",
                "R1, R2",
                "--in-flight",
                "8"
            ])
            .unwrap(),
            Command::Replay(ReplayArgs {
                input: "r".into(),
                budgets: vec![500, 2000, 10_000],
                rules: vec!["R1".into(), "R2".into()],
                all_links: true,
                csv: None,
                in_flight: 8,
                settings: "s.ini".into(),
            })
        );
        // See: issue 21 — per-subcommand help, with defaults and formats.
        for args in [&["replay", "--help"][..], &["help", "replay"]] {
            let Ok(Command::Help(text)) = p(args) else {
                panic!("{args:?}: no help");
            };
            assert!(text.contains("Usage: rccrawler replay"), "{text}");
            assert!(text.contains("[default: 500,2000,10000]"), "{text}");
            assert!(text.contains("Site,Page,Reward"), "{text}");
        }
        assert_eq!(
            p(&["compare", "a", "b", "c", "--out", "d"]).unwrap(),
            Command::Compare {
                results: vec!["a".into(), "b".into(), "c".into()],
                out: "d".into(),
            }
        );
        assert!(
            p(&["compare", "a", "--out", "d"]).is_err(),
            "two folders or more"
        );
        assert!(p(&["compare", "a", "b"]).is_err(), "--out is required");
        let Ok(Command::Help(text)) = p(&["help", "export"]) else {
            panic!("help export");
        };
        assert!(
            text.contains("--to <DIR>") && text.contains("ORIGIN"),
            "{text}"
        );
        let Err(e) = p(&["--frobnicate"]) else {
            panic!("an unknown option is an error");
        };
        assert!(e.contains("--frobnicate") && e.contains("Usage:"), "{e}");
    }
}

//! Rules run offline on recorded reward sequences (`rccrawler replay`): every rule gets the
//! same sequences and budget, pulls one page at a time (a crawl with one downloader), and is
//! compared with the exact oracle — the paper's Table 2 shape.
//!
//! Sequences come from a results folder (each site's `yield.csv`, sites in `summary.csv`
//! order so that ties break as in the live crawl) or from one CSV `Site,Page,Reward` (other
//! columns are ignored), sites in order of first appearance.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::believer::Believer;
use super::oracle::oracle;
use super::{Params, Policy};

/// One site's pulls in breadth-first order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sequence {
    /// The site's name (its folder, or the CSV's `Site`).
    pub site: String,
    /// The reward of each page.
    pub rewards: Vec<f64>,
}

/// Sequences could not be read.
#[derive(Debug, Error)]
pub enum ReplayError {
    /// A file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A file is not what it should be.
    #[error("{}: {why}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
}

/// Which column is the reward.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// `Reward` (the crawl's `BanditReward`).
    Reward,
    /// `ExternalLinks` (every external link: the paper's X(i, j)).
    ExternalLinks,
}

/// Reads sequences from a results folder or a CSV file.
pub fn load(path: &Path, column: Column) -> Result<Vec<Sequence>, ReplayError> {
    if path.is_dir() {
        load_results(path, column)
    } else {
        load_csv(path)
    }
}

fn format(path: &Path, why: impl Into<String>) -> ReplayError {
    ReplayError::Format {
        path: path.to_owned(),
        why: why.into(),
    }
}

fn reader(path: &Path) -> Result<(csv::Reader<std::fs::File>, Vec<String>), ReplayError> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_path(path)
        .map_err(|e| format(path, e.to_string()))?;
    let header = rdr
        .headers()
        .map_err(|e| format(path, e.to_string()))?
        .iter()
        .map(str::to_owned)
        .collect();
    Ok((rdr, header))
}

fn column_of(path: &Path, header: &[String], name: &str) -> Result<usize, ReplayError> {
    header
        .iter()
        .position(|h| h == name)
        .ok_or_else(|| format(path, format!("no {name} column (header {header:?})")))
}

fn number(path: &Path, line: usize, text: &str) -> Result<f64, ReplayError> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| {
            format(
                path,
                format!("line {line}: {text:?} is not a reward (a number >= 0)"),
            )
        })
}

fn load_results(dir: &Path, column: Column) -> Result<Vec<Sequence>, ReplayError> {
    let summary = dir.join("summary.csv");
    let folders: Vec<String> = if summary.exists() {
        let (mut rdr, header) = reader(&summary)?;
        let at = column_of(&summary, &header, "Folder")?;
        rdr.records()
            .filter_map(Result::ok)
            .filter_map(|r| r.get(at).map(str::to_owned))
            .collect()
    } else {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map_err(|source| ReplayError::Io {
                path: dir.to_owned(),
                source,
            })?
            .filter_map(Result::ok)
            .filter(|e| e.path().join("yield.csv").exists())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let mut seqs = Vec::new();
    for folder in folders {
        let path = dir.join(&folder).join("yield.csv");
        if !path.exists() {
            continue;
        }
        let (mut rdr, header) = reader(&path)?;
        let value = match column {
            Column::Reward => column_of(&path, &header, "Reward")?,
            Column::ExternalLinks => column_of(&path, &header, "ExternalLinks")?,
        };
        let mut seq = Sequence {
            site: folder,
            ..Sequence::default()
        };
        for (i, r) in rdr.records().enumerate() {
            let r = r.map_err(|e| format(&path, e.to_string()))?;
            seq.rewards
                .push(number(&path, i + 2, r.get(value).unwrap_or(""))?);
        }
        seqs.push(seq);
    }
    if seqs.is_empty() {
        return Err(format(dir, "no site folder with a yield.csv"));
    }
    Ok(seqs)
}

fn load_csv(path: &Path) -> Result<Vec<Sequence>, ReplayError> {
    let (mut rdr, header) = reader(path)?;
    // summary.csv has Site and Reward columns too, one row a site: read as pages it made a
    // table that meant nothing (issue 49).
    if header.iter().any(|h| h == "Folder") && !header.iter().any(|h| h == "Page") {
        let folder = path.parent().unwrap_or(Path::new("."));
        return Err(format(
            path,
            format!(
                "a results folder's summary.csv, one row a site, not pages: give the folder ({}) to replay its sites' yield.csv",
                folder.display()
            ),
        ));
    }
    let site = column_of(path, &header, "Site")?;
    column_of(path, &header, "Page")?;
    let reward = column_of(path, &header, "Reward")?;
    let mut seqs: Vec<Sequence> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for (i, r) in rdr.records().enumerate() {
        let r = r.map_err(|e| format(path, e.to_string()))?;
        let name = r.get(site).unwrap_or("");
        let value = number(path, i + 2, r.get(reward).unwrap_or(""))?;
        let k = match at.get(name) {
            Some(&k) => k,
            None => {
                at.insert(name.to_owned(), seqs.len());
                seqs.push(Sequence {
                    site: name.to_owned(),
                    ..Sequence::default()
                });
                seqs.len() - 1
            }
        };
        seqs[k].rewards.push(value);
    }
    if seqs.is_empty() {
        return Err(format(path, "no rows"));
    }
    Ok(seqs)
}

/// What one rule did with one budget.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The rule.
    pub rule: String,
    /// The budget N.
    pub budget: usize,
    /// SR(N): the total reward collected.
    pub reward: f64,
    /// Pages each site got.
    pub pages: Vec<usize>,
    /// The sites chosen, pull by pull.
    pub choices: Vec<usize>,
}

/// Every rule's run with one budget, and the best any rule could have done.
#[derive(Debug, Clone, PartialEq)]
pub struct Round {
    /// The budget N.
    pub budget: usize,
    /// The oracle's total for N.
    pub oracle: f64,
    /// The oracle's pages per site.
    pub oracle_pages: Vec<usize>,
    /// The rules' runs, in the order asked for.
    pub runs: Vec<Run>,
}

impl Round {
    /// SR(N) of `run` over the oracle's total (1 when the oracle is 0).
    pub fn ratio(&self, run: &Run) -> f64 {
        if self.oracle > 0.0 {
            run.reward / self.oracle
        } else {
            1.0
        }
    }
}

/// A rule by name, and how to make it for given parameters.
pub type NamedRule<'a> = (&'a str, &'a dyn Fn(&Params) -> Box<dyn Policy>);

/// Runs rule `rule` (made by `make`) over `seqs` with `budget` pages, one page per decision.
pub fn simulate(rule: NamedRule<'_>, seqs: &[Sequence], budget: usize, params: &Params) -> Run {
    simulate_in_flight(rule, seqs, budget, params, 1)
}

/// [`simulate`] as a crawl with `in_flight` downloaders chooses: each choice is made before
/// the rewards of the `in_flight − 1` pulls chosen before it are known, and those are
/// believed to pay nothing meanwhile ([`Believer`]); rewards come in the order the pulls were
/// chosen. With 1, [`simulate`].
pub fn simulate_in_flight(
    (rule, make): NamedRule<'_>,
    seqs: &[Sequence],
    budget: usize,
    params: &Params,
    in_flight: usize,
) -> Run {
    let params = Params {
        arms: seqs.len(),
        budget,
        ..*params
    };
    let mut p = make(&params);
    let mut believer = Believer::default();
    let mut under_way = std::collections::VecDeque::with_capacity(in_flight);
    let mut taken = vec![0usize; seqs.len()];
    let mut reward = 0.0;
    let mut choices = Vec::with_capacity(budget);
    let mut arms = Vec::with_capacity(seqs.len());
    for _ in 0..budget {
        while under_way.len() >= in_flight.max(1) {
            let Some((arm, r)) = under_way.pop_front() else {
                break;
            };
            believer.settled(arm);
            p.update(arm, r);
        }
        arms.clear();
        arms.extend(
            seqs.iter()
                .enumerate()
                .filter(|(i, s)| taken[*i] < s.rewards.len())
                .map(|(i, _)| i),
        );
        if arms.is_empty() {
            break;
        }
        let proposed = believer.select(&*p, &arms);
        // A rule may only choose among the arms offered.
        let i = if arms.contains(&proposed) {
            proposed
        } else {
            arms[0]
        };
        p.chosen(i);
        believer.started(i);
        let r = seqs[i].rewards[taken[i]];
        taken[i] += 1;
        reward += r;
        choices.push(i);
        under_way.push_back((i, r));
    }
    Run {
        rule: rule.to_owned(),
        budget,
        reward,
        pages: taken,
        choices,
    }
}

/// Every rule at every budget, each budget's oracle computed once.
pub fn compare(
    seqs: &[Sequence],
    budgets: &[usize],
    rules: &[NamedRule<'_>],
    params: &Params,
    in_flight: usize,
) -> Vec<Round> {
    let rewards: Vec<Vec<f64>> = seqs.iter().map(|s| s.rewards.clone()).collect();
    budgets
        .iter()
        .map(|&n| {
            let (oracle, oracle_pages) = oracle(&rewards, n);
            Round {
                budget: n,
                oracle,
                oracle_pages,
                runs: rules
                    .iter()
                    .map(|&rule| simulate_in_flight(rule, seqs, n, params, in_flight))
                    .collect(),
            }
        })
        .collect()
}

/// The Table 2 of the paper, for the console: per budget, every rule's SR(N), its ratio to
/// the oracle and the pages it gave each site, and the oracle's own split last. With 24
/// sites or fewer the sites are columns, numbered, their whole names listed above; the rule
/// a budgeted crawl runs when settings.ini names none is marked `(default)`.
pub fn write_table(
    w: &mut dyn Write,
    seqs: &[Sequence],
    rounds: &[Round],
    default_rule: Option<&str>,
) -> std::io::Result<()> {
    let pages: usize = seqs.iter().map(|s| s.rewards.len()).sum();
    let total: f64 = seqs.iter().map(|s| s.rewards.iter().sum::<f64>()).sum();
    writeln!(
        w,
        "{}, {}, {total} reward in all",
        crate::base::words::count(seqs.len() as u64, "site"),
        crate::base::words::count(pages as u64, "page")
    )?;
    writeln!(
        w,
        "SR(N): the reward a rule collects when it may fetch N pages in all (the sum of the\n\
         rewards of the pages it chose); ratio: its SR(N) over the oracle's, the most any split\n\
         of N pages between the sites collects, knowing every page's reward in advance."
    )?;
    let per_site = seqs.len() <= 24;
    if per_site {
        writeln!(w, "sites (columns: the pages each rule gave them):")?;
        for (i, s) in seqs.iter().enumerate() {
            writeln!(w, "  #{:<3} {} ({} pages)", i + 1, s.site, s.rewards.len())?;
        }
    }
    let width = rounds
        .iter()
        .flat_map(|r| &r.runs)
        .map(|r| label(&r.rule, default_rule).len())
        .max()
        .unwrap_or(0)
        .max("oracle".len());
    for round in rounds {
        writeln!(w, "\nN = {} (oracle {})", round.budget, round.oracle)?;
        if round.budget >= pages {
            writeln!(
                w,
                "warning: N = {} covers all {pages} recorded pages: every rule fetches them all \
                 (ratio 1.000); a budget below {pages} tells the rules apart",
                round.budget
            )?;
        }
        write!(w, "{:<width$} {:>10} {:>7}", "rule", "SR(N)", "ratio")?;
        if per_site {
            for i in 0..seqs.len() {
                write!(w, " {:>6}", format!("#{}", i + 1))?;
            }
        } else {
            write!(w, "  pages of the sites that got most")?;
        }
        writeln!(w)?;
        let rows = round
            .runs
            .iter()
            .map(|r| {
                (
                    label(&r.rule, default_rule),
                    r.reward,
                    round.ratio(r),
                    &r.pages,
                )
            })
            .chain([("oracle".to_owned(), round.oracle, 1.0, &round.oracle_pages)]);
        for (rule, reward, ratio, split) in rows {
            write!(w, "{rule:<width$} {reward:>10} {ratio:>7.3}")?;
            if per_site {
                for p in split {
                    write!(w, " {p:>6}")?;
                }
            } else {
                let mut top: Vec<(usize, usize)> = split.iter().copied().enumerate().collect();
                top.sort_by_key(|&(i, p)| (std::cmp::Reverse(p), i));
                for (i, p) in top.iter().take(6).filter(|(_, p)| *p > 0) {
                    write!(w, "  {}:{p}", seqs[*i].site)?;
                }
            }
            writeln!(w)?;
        }
    }
    Ok(())
}

/// A rule's name in the table, marked if it is the default.
fn label(rule: &str, default_rule: Option<&str>) -> String {
    if default_rule == Some(rule) {
        format!("{rule} (default)")
    } else {
        rule.to_owned()
    }
}

/// The runs as CSV: `Budget,Rule,Reward,Oracle,Ratio`, one row per budget and rule.
pub fn write_csv(w: &mut dyn Write, rounds: &[Round]) -> std::io::Result<()> {
    writeln!(w, "Budget,Rule,Reward,Oracle,Ratio")?;
    for round in rounds {
        for r in &round.runs {
            writeln!(
                w,
                "{},{},{},{},{:.6}",
                round.budget,
                r.rule,
                r.reward,
                round.oracle,
                round.ratio(r)
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> Params {
        Params {
            arms: 0,
            budget: 0,
            tuning: crate::model::bandit::Tuning {
                r2_step: 2,
                r3_initial: 1,
                window: 0,
                discount: 0.0,
                prior_pages: 5.0,
                exploration: 1.0,
                seed: 1,
            },
        }
    }

    #[test]
    fn csv_input_keeps_site_order_and_rejects_bad_rewards() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("seq.csv");
        std::fs::write(&p, "Site,Page,Reward\nb,1,0\na,1,2\nb,2,5\n").unwrap();
        let seqs = load(&p, Column::Reward).unwrap();
        assert_eq!(seqs[0].site, "b");
        assert_eq!(seqs[0].rewards, vec![0.0, 5.0]);
        std::fs::write(&p, "Site,Page,Reward\nb,1,-1\n").unwrap();
        assert!(
            load(&p, Column::Reward)
                .unwrap_err()
                .to_string()
                .contains("line 2")
        );
        // A results folder's summary.csv has Site and Reward columns, one row a site.
        let summary = dir.path().join("summary.csv");
        std::fs::write(
            &summary,
            "Site,Folder,Pages,Reward\n\"http://a.test\",a.test,3,7\n",
        )
        .unwrap();
        let e = load(&summary, Column::Reward).unwrap_err().to_string();
        assert!(e.contains("summary.csv, one row a site"), "{e}");
        // Without a Page column, rows are not pages.
        std::fs::write(&p, "Site,Reward\nb,1\n").unwrap();
        let e = load(&p, Column::Reward).unwrap_err().to_string();
        assert!(e.contains("no Page column"), "{e}");
    }

    #[test]
    fn runs_compare_with_the_oracle() {
        let seqs = vec![
            Sequence {
                site: "a".into(),
                rewards: vec![0.0, 0.0, 9.0],
            },
            Sequence {
                site: "b".into(),
                rewards: vec![1.0, 1.0, 1.0],
            },
        ];
        let round_robin = |_: &Params| -> Box<dyn Policy> {
            Box::new(crate::model::bandit::baseline::RoundRobinPolicy::default())
        };
        let sequential = |_: &Params| -> Box<dyn Policy> {
            Box::new(crate::model::bandit::baseline::SequentialPolicy)
        };
        let rules: [NamedRule<'_>; 2] = [("AllSites", &round_robin), ("Sequential", &sequential)];
        let rounds = compare(&seqs, &[3, 6], &rules, &params(), 1);
        assert_eq!(rounds.len(), 2);
        let (three, six) = (&rounds[0], &rounds[1]);
        assert_eq!(
            (three.runs[0].reward, three.oracle),
            (1.0, 9.0),
            "round robin: a0 b0 a1"
        );
        assert_eq!(three.oracle_pages, vec![3, 0]);
        assert_eq!(three.runs[1].reward, 9.0, "sequential takes site a first");
        assert!(six.runs.iter().all(|r| six.ratio(r) == 1.0));
        let mut out = Vec::new();
        write_csv(&mut out, &rounds).unwrap();
        assert!(
            String::from_utf8(out)
                .unwrap()
                .starts_with("Budget,Rule,Reward,Oracle,Ratio\n3,AllSites,1,9,0.111111\n")
        );
    }

    /// As a crawl with D downloaders chooses: rewards come D − 1 choices late. The first
    /// looks go to different sites (each pull under way believed paid), and with D = 1 the
    /// choices are the replay's.
    #[test]
    fn with_pulls_in_flight_the_rule_chooses_ahead_of_its_rewards() {
        let seqs: Vec<Sequence> = [[5.0, 5.0, 5.0, 5.0], [1.0, 0.0, 0.0, 0.0], [0.0; 4]]
            .iter()
            .zip(["a", "b", "c"])
            .map(|(r, site)| Sequence {
                site: site.into(),
                rewards: r.to_vec(),
            })
            .collect();
        let winsor = |_: &Params| -> Box<dyn Policy> {
            Box::new(crate::model::bandit::winsor::WinsorUcb::new(3, 4, 5.0, 0.3))
        };
        let rule: NamedRule<'_> = ("WinsorUcb", &winsor);
        let one = simulate(rule, &seqs, 8, &params());
        assert_eq!(simulate_in_flight(rule, &seqs, 8, &params(), 1), one);
        let three = simulate_in_flight(rule, &seqs, 8, &params(), 3);
        assert_eq!(three.choices[..3], [0, 1, 2], "{:?}", three.choices);
        assert_eq!(three.pages.iter().sum::<usize>(), 8);
        assert!(three.pages[0] >= 3, "site a pays most: {:?}", three.pages);
    }
}

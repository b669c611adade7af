//! Component names → components. The paper's names (`TextFileAM`, `BMICDM`, `DT0`, …) are
//! configuration strings and live only here; the rest of the code uses Rust names.

use crate::robots::RobotsFlavor;

use super::SettingsError;

/// `ApplicationManager`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ManagerKind {
    /// `TextFileAM`: reads hosts.txt and settings.ini, runs one crawl.
    TextFile,
}

/// `DataManager`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataManagerKind {
    /// `BMICDM`: in-memory multi-index data manager.
    InMemory,
}

/// `DownloadingThread`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DownloaderKind {
    /// `DT0`: blocking HTTP/1.1 downloaders (ureq), our own redirect handling.
    Dt0,
}

/// `ParsingThread`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParserKind {
    /// `PT0`: HTML link extraction with anchors, charset decoding.
    Pt0,
}

/// `RoutineThread`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoutineKind {
    /// `RT0`: log files, progress line, finishers.
    Rt0,
}

/// `UrlAnalyzingThread`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlFilterKind {
    /// `EmptyUAT`: a crawl's scope is its seed site.
    Empty,
}

/// One of `ApplicationFinishers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinisherKind {
    /// `WorkIsDoneAF`.
    WorkIsDone,
    /// `TimeoutAF`.
    Timeout,
    /// `StopFileAF`.
    StopFile,
}

/// One of `ResultUnloaders`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnloaderKind {
    /// `GephiSiteGraphRU`.
    GephiSiteGraph,
}

/// `Scheduler`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchedulerKind {
    /// `AllSites`: every site with work proceeds, round robin.
    AllSites,
    /// `Sequential`: one site after another.
    Sequential,
    /// `TimeQuantum`: each site in turn for `TimeQuantumSeconds`.
    TimeQuantum,
}

/// Name tables, one per component key.
pub(crate) const MANAGERS: &[(&str, ManagerKind)] = &[("TextFileAM", ManagerKind::TextFile)];
pub(crate) const DATA_MANAGERS: &[(&str, DataManagerKind)] =
    &[("BMICDM", DataManagerKind::InMemory)];
pub(crate) const DOWNLOADERS: &[(&str, DownloaderKind)] = &[("DT0", DownloaderKind::Dt0)];
pub(crate) const PARSERS: &[(&str, ParserKind)] = &[("PT0", ParserKind::Pt0)];
pub(crate) const ROUTINES: &[(&str, RoutineKind)] = &[("RT0", RoutineKind::Rt0)];
pub(crate) const URL_FILTERS: &[(&str, UrlFilterKind)] = &[("EmptyUAT", UrlFilterKind::Empty)];
pub(crate) const ROBOTS: &[(&str, RobotsFlavor)] = &[
    ("Rfc9309RobotsTxt", RobotsFlavor::Rfc9309),
    ("OnlyDisallowRobotsTxt", RobotsFlavor::OnlyDisallow),
];
pub(crate) const FINISHERS: &[(&str, FinisherKind)] = &[
    ("WorkIsDoneAF", FinisherKind::WorkIsDone),
    ("TimeoutAF", FinisherKind::Timeout),
    ("StopFileAF", FinisherKind::StopFile),
];
pub(crate) const UNLOADERS: &[(&str, UnloaderKind)] =
    &[("GephiSiteGraphRU", UnloaderKind::GephiSiteGraph)];
pub(crate) const SCHEDULERS: &[(&str, SchedulerKind)] = &[
    ("AllSites", SchedulerKind::AllSites),
    ("Sequential", SchedulerKind::Sequential),
    ("TimeQuantum", SchedulerKind::TimeQuantum),
];

/// Looks `name` up for `key`; an unknown name is an error listing the valid ones.
pub(crate) fn lookup<T: Copy>(
    key: &str,
    name: &str,
    table: &[(&str, T)],
) -> Result<T, SettingsError> {
    table
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| *v)
        .ok_or_else(|| SettingsError::UnknownComponent {
            key: key.to_owned(),
            name: name.to_owned(),
            valid: table.iter().map(|(n, _)| (*n).to_owned()).collect(),
        })
}

/// Looks up a comma-separated list; empty items are ignored, duplicates kept once.
pub(crate) fn lookup_list<T: Copy + PartialEq>(
    key: &str,
    names: &str,
    table: &[(&str, T)],
) -> Result<Vec<T>, SettingsError> {
    let mut out = Vec::new();
    for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let v = lookup(key, name, table)?;
        if !out.contains(&v) {
            out.push(v);
        }
    }
    Ok(out)
}

/// The valid names of a component key, for documentation.
pub fn names_for(key: &str) -> Vec<&'static str> {
    fn names<T>(t: &[(&'static str, T)]) -> Vec<&'static str> {
        t.iter().map(|(n, _)| *n).collect()
    }
    match key {
        "ApplicationManager" => names(MANAGERS),
        "DataManager" => names(DATA_MANAGERS),
        "DownloadingThread" => names(DOWNLOADERS),
        "ParsingThread" => names(PARSERS),
        "RoutineThread" => names(ROUTINES),
        "UrlAnalyzingThread" => names(URL_FILTERS),
        "RobotsTxtClass" => names(ROBOTS),
        "ApplicationFinishers" => names(FINISHERS),
        "ResultUnloaders" => names(UNLOADERS),
        "Scheduler" => names(SCHEDULERS),
        _ => Vec::new(),
    }
}

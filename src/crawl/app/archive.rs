//! The crawl's WARC archive (`Archive = warc`, SPEC §15) from the application manager's side:
//! opened in the results folder's `archive/` folder once the crawl has claimed the folder (a
//! crawl that continues appends to its own archive, cutting a tail a kill left torn; a fresh
//! crawl's folder moved the old archive aside with the old results), closed at the end of the
//! run — the open file finished and the folder's CDXJ index written — with its size said.
//!
//! One folder per crawl, not per site: a crawl of 100,000 sites would hold 100,000 open files,
//! and per-file overhead (a `warcinfo` record each) would outweigh most sites' few pages. The
//! index finds any site's records.

use std::path::PathBuf;
use std::sync::Arc;

use super::AppError;
use crate::base::stop::Stop;
use crate::crawl::routine::LogFiles;
use crate::crawl::settings::Settings;
use crate::formats::warc::Recorder;
use crate::formats::warc::archived::ArchivedWeb;
use crate::model::site::SiteSpec;

use crate::formats::warc::ARCHIVE_FOLDER;

/// The archive folder of a crawl with `settings`.
pub(crate) fn folder(settings: &Settings) -> PathBuf {
    settings.results.folder.join(ARCHIVE_FOLDER)
}

/// Opens the crawl's archive, if it keeps one.
pub(super) fn open(
    settings: &Settings,
    sites: &[SiteSpec],
    stop: &Arc<Stop>,
    logs: &mut LogFiles,
) -> Result<Option<Arc<Recorder>>, AppError> {
    if !settings.results.archive {
        return Ok(None);
    }
    let folder = folder(settings);
    let mut info = crate::crawl::settings::record::warcinfo_fields(settings, sites);
    if let Some(earlier) = &settings.http.recrawl {
        // Its 304s' bodies are there: a rebuild of this archive reads them from it.
        let earlier = std::path::absolute(earlier).unwrap_or_else(|_| earlier.clone());
        info.push(("recrawl-of".to_owned(), earlier.display().to_string()));
    }
    let recorder = Recorder::open(
        &folder,
        settings.results.archive_file_bytes,
        info,
        Arc::clone(stop),
    )
    .map_err(|source| AppError::Archive { folder, source })?;
    damage(recorder.problems(), logs);
    Ok(Some(Arc::new(recorder)))
}

/// Says what an archive's files held damaged (passed over: every intact record was read), on
/// the console and in the error log.
fn damage(problems: &[String], logs: &mut LogFiles) {
    for p in problems {
        eprintln!("warning: archive: {p}");
        let _ = logs.problem("", "", &format!("archive: {p}"));
    }
    let _ = logs.flush();
}

/// Opens the earlier archive a re-crawl (`Recrawl`) sends its conditional requests from.
pub(super) fn open_recrawl(
    settings: &Settings,
    logs: &mut LogFiles,
) -> Result<Option<Arc<ArchivedWeb>>, AppError> {
    let Some(folder) = &settings.http.recrawl else {
        return Ok(None);
    };
    let archived = ArchivedWeb::open(folder).map_err(|source| AppError::Recrawl {
        folder: folder.clone(),
        source,
    })?;
    archived.limit_bodies(settings.max_body_bytes());
    damage(archived.problems(), logs);
    eprintln!(
        "re-crawl: {} URLs with an archived answer in {}",
        archived.url_count(),
        folder.display()
    );
    Ok(Some(Arc::new(archived)))
}

/// What a re-crawl took from its earlier archive.
pub(super) fn report_recrawl(recrawl: Option<&ArchivedWeb>) {
    if let Some(r) = recrawl {
        eprintln!(
            "re-crawl: {} answers were 304 Not Modified (their bodies taken from {})",
            r.not_modified(),
            r.folder().display()
        );
    }
}

/// Closes the archive (finishes its open file, writes its index) and says what this run
/// added to it.
pub(super) fn close(settings: &Settings, archive: Option<&Recorder>) -> Result<(), AppError> {
    let Some(archive) = archive else {
        return Ok(());
    };
    let folder = folder(settings);
    archive.close().map_err(|source| AppError::Archive {
        folder: folder.clone(),
        source,
    })?;
    let (answers, bytes) = archive.counts();
    eprintln!(
        "archive: {answers} answers archived by this run, {:.1} MB, in {}",
        bytes as f64 / 1e6,
        folder.display()
    );
    Ok(())
}

//! An archive read back as the crawl's answers (`rccrawler rebuild`, SPEC §15): every answer
//! and failure of every file of the folder, by URL, in the order they were received (their
//! `WARC-Date`, to the microsecond). A URL asked for again gets its next answer — a page's
//! second copy, a retry after a 503 — and, past its last, the last one again, so that a
//! rebuilt crawl meets what the crawl met. A `revisit` is answered with the body of the
//! record it names (by payload digest).
//!
//! A re-crawl (`Recrawl = ARCHIVE`) reads it too: each URL's last whole `200` answer, its
//! validators (`ETag`, `Last-Modified`) to send, and the answer itself when the server says
//! `304 Not Modified`. An archive written by a re-crawl names the archive it re-crawled
//! (`recrawl-of` in its `warcinfo`): the bodies its `revisit` records of 304s stand for are
//! read from there.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use hashbrown::HashMap;
use parking_lot::Mutex;

use super::read::{Member, Past, RawRecord, scan};
use super::record::{SERVER_NOT_MODIFIED, head_len};

/// Where a record is.
#[derive(Debug, Clone, Copy)]
struct Loc {
    file: u32,
    offset: u64,
    len: u64,
}

/// One thing the crawl met at a URL.
#[derive(Debug, Clone)]
enum Met {
    /// An answer (a `response` or `revisit` record).
    Answer(Loc),
    /// No answer: the failure's kind and detail.
    Failed(String, String),
}

/// An archived answer, as a rebuild gives it.
#[derive(Debug, Clone)]
pub enum Answer {
    /// An HTTP answer.
    Response {
        /// The status line and header lines, with the empty line that ends them.
        head: Vec<u8>,
        /// The body as the crawler read it; empty when it was not read.
        body: Vec<u8>,
        /// The failure that cut the body (kind, detail), when reading it failed.
        error: Option<(String, String)>,
    },
    /// No answer came: the failure (kind, detail).
    Failed(String, String),
}

/// What a re-crawl sends for a URL: the validators of its last whole answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Validators {
    /// `ETag`, for `If-None-Match`.
    pub etag: Option<String>,
    /// `Last-Modified`, for `If-Modified-Since`.
    pub last_modified: Option<String>,
}

/// The archived answer a `304 Not Modified` stands for, as the new archive names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotModified {
    /// Its `WARC-Date`.
    pub date: String,
    /// Its payload digest.
    pub digest: String,
}

/// A URL's last whole `200` answer, for a re-crawl.
#[derive(Debug, Clone)]
struct Latest {
    loc: Loc,
    validators: Validators,
    refers: NotModified,
}

/// An archived answer a `304` stands for.
#[derive(Debug, Clone)]
pub struct Unchanged {
    /// Its status line and header lines, with the empty line.
    pub head: Vec<u8>,
    /// Its body.
    pub body: Vec<u8>,
    /// What the new archive's `revisit` record names.
    pub refers: NotModified,
}

/// An archive folder, indexed for a rebuild or a re-crawl.
#[derive(Debug)]
pub struct ArchivedWeb {
    folder: PathBuf,
    files: Vec<PathBuf>,
    /// What each URL met, in order.
    urls: HashMap<String, Vec<Met>>,
    /// The first `response` record of each payload digest (what a `revisit` refers to).
    payloads: HashMap<String, Loc>,
    /// The first file's `warcinfo` fields.
    info: Vec<(String, String)>,
    /// How many times each URL was asked for.
    given: Mutex<HashMap<String, usize>>,
    missing: AtomicU64,
    /// Each URL's last whole `200` answer (a re-crawl's validators and 304s).
    latest: HashMap<String, Latest>,
    /// `304` answers taken from here so far.
    not_modified: AtomicU64,
    /// The longest body answered (see [`ArchivedWeb::limit_bodies`]).
    max_body: AtomicU64,
    /// Damaged spans passed over and files with nothing readable, in words.
    problems: Vec<String>,
    /// Each URL's last `conversion` record: the DOM a browser rendered of it (SPEC §18).
    conversions: HashMap<String, Loc>,
}

/// What a scan of archive folders collects.
#[derive(Default)]
struct Scanned {
    files: Vec<PathBuf>,
    dated: Vec<(String, String, Met)>,
    payloads: HashMap<String, Loc>,
    info: Vec<(String, String)>,
    latest: HashMap<String, Latest>,
    problems: Vec<String>,
    /// Each URL's last `conversion` record, with its date.
    conversions: HashMap<String, (String, Loc)>,
}

/// The archive files of `folder`, finished and open, in order.
fn archive_files(folder: &Path) -> io::Result<Vec<PathBuf>> {
    let mut names: Vec<String> = std::fs::read_dir(folder)?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".warc.gz") || n.ends_with(".warc.gz.open"))
        .collect();
    names.sort();
    Ok(names.into_iter().map(|n| folder.join(n)).collect())
}

impl ArchivedWeb {
    /// Reads every record of archive folder `folder` (a torn tail is left out), and the
    /// payloads of the archives it re-crawled.
    pub fn open(folder: &Path) -> io::Result<ArchivedWeb> {
        ArchivedWeb::open_all(&[folder.to_owned()])
    }

    /// [`Self::open`] of several archive folders as one: the archives of the processes that
    /// shared a crawl (`PgDM`), each its own. The settings and sites are the first's.
    pub fn open_all(folders: &[PathBuf]) -> io::Result<ArchivedWeb> {
        let mut s = Scanned::default();
        let mut infos = Vec::new();
        for folder in folders {
            let before = s.files.len();
            scan_folder(folder, &mut s, true)?;
            if s.files.len() == before {
                return Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    format!("no WARC file in {}", folder.display()),
                ));
            }
            infos.push(std::mem::take(&mut s.info));
        }
        s.info = infos.first().cloned().unwrap_or_default();
        for (info, folder) in infos.iter().zip(folders) {
            s = with_recrawled(s, info, folder)?;
        }
        // By date; records of the same date keep their order in the files.
        s.dated.sort_by(|a, b| a.0.cmp(&b.0));
        let mut urls: HashMap<String, Vec<Met>> = HashMap::new();
        for (_, url, met) in s.dated {
            urls.entry(url).or_default().push(met);
        }
        let folder = folders.first().cloned().unwrap_or_default();
        Ok(ArchivedWeb {
            folder: std::path::absolute(&folder).unwrap_or(folder),
            files: s.files,
            urls,
            payloads: s.payloads,
            info: s.info,
            given: Mutex::new(HashMap::new()),
            missing: AtomicU64::new(0),
            latest: s.latest,
            not_modified: AtomicU64::new(0),
            max_body: AtomicU64::new(DEFAULT_MAX_BODY),
            problems: s.problems,
            conversions: s
                .conversions
                .into_iter()
                .map(|(url, (_, loc))| (url, loc))
                .collect(),
        })
    }

    /// The DOM a browser rendered of `url` and the requests it made for it, from its last
    /// `conversion` record (SPEC §18); `None` when the page was not rendered.
    pub fn conversion(&self, url: &str) -> io::Result<Option<(Vec<u8>, u32)>> {
        let Some(loc) = self.conversions.get(url) else {
            return Ok(None);
        };
        let (record, _) = self.read(*loc)?;
        let requests = record
            .field(super::writer::RENDER_REQUESTS)
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        Ok(Some((record.block.to_vec(), requests)))
    }

    /// The validators to send for `url` in a re-crawl: those of its last whole `200` answer,
    /// when it had any.
    pub fn validators(&self, url: &str) -> Option<&Validators> {
        self.latest.get(url).map(|l| &l.validators)
    }

    /// The last whole `200` answer to `url`, which a `304 Not Modified` stands for; `None`
    /// when there is none.
    pub fn unchanged(&self, url: &str) -> io::Result<Option<Unchanged>> {
        let Some(latest) = self.latest.get(url) else {
            return Ok(None);
        };
        let Answer::Response { head, body, .. } = self.answer(latest.loc)? else {
            return Ok(None);
        };
        self.not_modified.fetch_add(1, Ordering::Relaxed);
        Ok(Some(Unchanged {
            head,
            body,
            refers: latest.refers.clone(),
        }))
    }

    /// `304` answers a re-crawl took from here.
    pub fn not_modified(&self) -> u64 {
        self.not_modified.load(Ordering::Relaxed)
    }

    /// The archive folder, absolute.
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// Every folder its records are read from: the archive folders opened and those they
    /// re-crawled, in the order read.
    pub fn folders(&self) -> Vec<&Path> {
        let mut folders: Vec<&Path> = Vec::new();
        for f in &self.files {
            if let Some(parent) = f.parent()
                && !folders.contains(&parent)
            {
                folders.push(parent);
            }
        }
        folders
    }

    /// Damaged spans of its files passed over (every intact record was read), and files
    /// with nothing readable, in words: for the console and the error log.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// The first file's `warcinfo` fields (the crawl's `setting:` and `host:` lines).
    pub fn info(&self) -> &[(String, String)] {
        &self.info
    }

    /// URLs in the archive.
    pub fn url_count(&self) -> usize {
        self.urls.len()
    }

    /// Requests for URLs the archive lacks so far.
    pub fn missing(&self) -> u64 {
        self.missing.load(Ordering::Relaxed)
    }

    /// What the crawl met at `url` the next time it is asked for; `None` when the archive has
    /// nothing for it.
    pub fn next(&self, url: &str) -> io::Result<Option<Answer>> {
        let Some(met) = self.urls.get(url) else {
            self.missing.fetch_add(1, Ordering::Relaxed);
            return Ok(None);
        };
        let i = {
            let mut given = self.given.lock();
            let n = given.entry_ref(url).or_insert(0);
            let i = (*n).min(met.len() - 1);
            *n += 1;
            i
        };
        match &met[i] {
            Met::Failed(kind, detail) => Ok(Some(Answer::Failed(kind.clone(), detail.clone()))),
            Met::Answer(loc) => self.answer(*loc).map(Some),
        }
    }

    fn answer(&self, loc: Loc) -> io::Result<Answer> {
        let (record, mut cut) = self.read(loc)?;
        let head = head_len(&record.block);
        let mut body = record.block[head..].to_vec();
        let mut head = record.block[..head].to_vec();
        if record.field("WARC-Type") == Some("revisit")
            && let Some(first) = record
                .field("WARC-Payload-Digest")
                .and_then(|d| self.payloads.get(d))
        {
            let (first, first_cut) = self.read(*first)?;
            cut = first_cut;
            let first_head = head_len(&first.block);
            body = first.block[first_head..].to_vec();
            // A 304 stands for the answer it refers to, head and body.
            if record.field("WARC-Profile") == Some(SERVER_NOT_MODIFIED) {
                head = first.block[..first_head].to_vec();
            }
        }
        let mut error = record.field("Rccrawler-Error").map(|k| {
            (
                k.to_owned(),
                record
                    .field("Rccrawler-Error-Detail")
                    .unwrap_or("")
                    .to_owned(),
            )
        });
        let max = self.max_body.load(Ordering::Relaxed);
        if cut || body.len() as u64 > max {
            // Longer than this run reads: cut where a crawl would have cut it.
            body.truncate(usize::try_from(max).unwrap_or(usize::MAX));
            error = Some(("too-large".to_owned(), max.to_string()));
        }
        Ok(Answer::Response { head, body, error })
    }

    /// Reads the record at `loc`, inflating at most what the largest body read allows (and
    /// room for its heads); `true` when the record was longer and is cut.
    fn read(&self, loc: Loc) -> io::Result<(RawRecord<'static>, bool)> {
        let path = &self.files[loc.file as usize];
        let mut f = File::open(path)?;
        f.seek(SeekFrom::Start(loc.offset))?;
        let mut gz = io::BufReader::with_capacity(1 << 16, f.take(loc.len));
        let keep = self
            .max_body
            .load(Ordering::Relaxed)
            .saturating_add(HEAD_ROOM);
        let keep = usize::try_from(keep).unwrap_or(usize::MAX);
        let mut raw = Vec::new();
        let member = super::read::gunzip_member(&mut gz, &mut raw, keep, Past::Stop)?;
        let cut = match member {
            Member::Whole { len } => len > raw.len() as u64,
            Member::Cut => true,
            Member::Broken => false,
        };
        super::read::record_of(&raw, member)
            .map(|r| (r.into_owned(), cut))
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("no whole record at {} of {}", loc.offset, path.display()),
                )
            })
    }

    /// Reads bodies of at most `max_page_bytes` (the run's `MaxPageBytes`): a longer archived
    /// body is cut there and answered as `too large`, as a crawl with that limit would have
    /// read it — an archive record that inflates to gigabytes costs that much memory, no more.
    pub fn limit_bodies(&self, max_page_bytes: u64) {
        self.max_body.store(max_page_bytes, Ordering::Relaxed);
    }
}

/// `MaxPageBytes`' default: the longest body answered until told otherwise.
const DEFAULT_MAX_BODY: u64 = 10 << 20;

/// Room for a record's WARC head and HTTP head beside its body.
const HEAD_ROOM: u64 = 128 * 1024;

/// `s` with the payloads of the archives `info` says were re-crawled (and theirs, up to 16
/// deep): the bodies a re-crawl's 304s stand for.
fn with_recrawled(mut s: Scanned, info: &[(String, String)], folder: &Path) -> io::Result<Scanned> {
    let mut earlier = recrawl_of(info, folder)?;
    for _ in 0..16 {
        let Some(path) = earlier.take() else {
            break;
        };
        let mut older = Scanned {
            files: std::mem::take(&mut s.files),
            payloads: std::mem::take(&mut s.payloads),
            ..Scanned::default()
        };
        scan_folder(&path, &mut older, false)?;
        earlier = recrawl_of(&older.info, &path)?;
        s.files = older.files;
        s.payloads = older.payloads;
        s.problems.extend(older.problems);
    }
    Ok(s)
}

/// Scans the files of archive folder `folder` into `s`: everything (`all`), or the payloads
/// and `warcinfo` alone (an archive a re-crawl refers to).
fn scan_folder(folder: &Path, s: &mut Scanned, all: bool) -> io::Result<()> {
    let mut info = Vec::new();
    for path in archive_files(folder)? {
        let file = u32::try_from(s.files.len()).unwrap_or(u32::MAX);
        s.files.push(path.clone());
        let mut records = 0u64;
        let end = scan(&path, |offset, len, r| {
            records += 1;
            let loc = Loc { file, offset, len };
            if r.field("WARC-Type") == Some("warcinfo") {
                if info.is_empty() {
                    info = fields(&r.block);
                }
            } else if all {
                visit(r, loc, s);
            } else {
                add_payload(r, loc, &mut s.payloads);
            }
        })?;
        s.problems.extend(end.problems(&path));
        if records == 0 && end.len > 0 {
            s.problems.push(format!(
                "{}: no whole record in its {} bytes: nothing of it is used",
                path.display(),
                end.len
            ));
        } else if end.whole < end.len && !path.to_string_lossy().ends_with(".open") {
            // A finished file ends with a whole record: its torn end is damage too.
            s.problems.push(format!(
                "{}: {} bytes at its end (offset {}) hold no whole record: skipped",
                path.display(),
                end.len - end.whole,
                end.whole
            ));
        }
    }
    s.info = info;
    Ok(())
}

/// The archive an archive's `warcinfo` says it re-crawled: written as an absolute path by the
/// re-crawl (the earlier archive is anywhere), so only an absolute path with no `.` or `..` in
/// it is followed — and only read, never written (`rebuild` keeps its output apart from it).
fn recrawl_of(info: &[(String, String)], folder: &Path) -> io::Result<Option<PathBuf>> {
    let Some((_, v)) = info.iter().find(|(n, _)| n == "recrawl-of") else {
        return Ok(None);
    };
    let path = PathBuf::from(v);
    let plain = path.is_absolute()
        && path
            .components()
            .all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
    if !plain {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{}: warcinfo recrawl-of {v:?} is not the absolute path of an archive folder",
                folder.display()
            ),
        ));
    }
    Ok(Some(path))
}

/// A whole `response` record is where its payload digest's body is.
fn add_payload(r: &RawRecord<'_>, loc: Loc, payloads: &mut HashMap<String, Loc>) {
    if r.field("WARC-Type") == Some("response")
        && r.field("WARC-Truncated").is_none()
        && let Some(d) = r.field("WARC-Payload-Digest")
    {
        payloads.entry(d.to_owned()).or_insert(loc);
    }
}

/// A whole `200` answer's validators, if it is one.
fn latest_of(r: &RawRecord<'_>) -> Option<Validators> {
    if r.field("WARC-Truncated").is_some() {
        return None;
    }
    let head = String::from_utf8_lossy(&r.block[..head_len(&r.block)]).into_owned();
    let mut lines = head.lines();
    let status = lines.next()?.split_whitespace().nth(1)?;
    let not_modified = r.field("WARC-Profile") == Some(SERVER_NOT_MODIFIED);
    if status != "200" && !(status == "304" && not_modified) {
        return None;
    }
    let mut v = Validators::default();
    for (name, value) in lines.filter_map(|l| l.split_once(':')) {
        let value = Some(value.trim().to_owned());
        match name.trim().to_ascii_lowercase().as_str() {
            "etag" => v.etag = value,
            "last-modified" => v.last_modified = value,
            _ => {}
        }
    }
    Some(v)
}

/// Files record `r` (at `loc`) among what its URL met, the payloads and the last answers.
fn visit(r: &RawRecord<'_>, loc: Loc, s: &mut Scanned) {
    let kind = r.field("WARC-Type").unwrap_or("");
    let (Some(url), Some(date)) = (r.field("WARC-Target-URI"), r.field("WARC-Date")) else {
        return;
    };
    let met = match kind {
        "response" | "revisit" => {
            add_payload(r, loc, &mut s.payloads);
            if let (Some(validators), Some(digest)) = (latest_of(r), r.field("WARC-Payload-Digest"))
            {
                let newer = s
                    .latest
                    .get(url)
                    .is_none_or(|l| l.refers.date.as_str() <= date);
                if newer {
                    let refers = NotModified {
                        date: date.to_owned(),
                        digest: digest.to_owned(),
                    };
                    s.latest.insert(
                        url.to_owned(),
                        Latest {
                            loc,
                            validators,
                            refers,
                        },
                    );
                }
            }
            Met::Answer(loc)
        }
        "conversion" => {
            let newer = s
                .conversions
                .get(url)
                .is_none_or(|(d, _)| d.as_str() <= date);
            if newer {
                s.conversions.insert(url.to_owned(), (date.to_owned(), loc));
            }
            return;
        }
        "metadata" => {
            let f = fields(&r.block);
            let get = |name: &str| f.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
            let Some(kind) = get("fetch-error") else {
                return;
            };
            Met::Failed(kind, get("detail").unwrap_or_default())
        }
        _ => return,
    };
    s.dated.push((date.to_owned(), url.to_owned(), met));
}

/// The `name: value` lines of an `application/warc-fields` block.
fn fields(block: &[u8]) -> Vec<(String, String)> {
    String::from_utf8_lossy(block)
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim_start().to_owned()))
        .collect()
}

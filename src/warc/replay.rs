//! An archive read back as the crawl's answers (`rccrawler rebuild`, SPEC §15): every answer
//! and failure of every file of the folder, by URL, in the order they were received (their
//! `WARC-Date`, to the microsecond). A URL asked for again gets its next answer — a page's
//! second copy, a retry after a 503 — and, past its last, the last one again, so that a
//! replayed crawl meets what the crawl met. A `revisit` is answered with the body of the
//! record it names (by payload digest).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use hashbrown::HashMap;
use parking_lot::Mutex;

use super::read::{RawRecord, scan};
use super::record::head_len;

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

/// An archived answer, as a replay gives it.
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

/// An archive folder, indexed for replay.
#[derive(Debug)]
pub struct Replay {
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

impl Replay {
    /// Reads every record of archive folder `folder` (a torn tail is left out).
    pub fn open(folder: &Path) -> io::Result<Replay> {
        let files = archive_files(folder)?;
        if files.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("no WARC file in {}", folder.display()),
            ));
        }
        let mut dated: Vec<(String, String, Met)> = Vec::new();
        let mut payloads = HashMap::new();
        let mut info = Vec::new();
        for (i, path) in files.iter().enumerate() {
            let file = u32::try_from(i).unwrap_or(u32::MAX);
            scan(path, |offset, len, r| {
                let loc = Loc { file, offset, len };
                visit(r, loc, &mut dated, &mut payloads, &mut info);
            })?;
        }
        // By date; records of the same date keep their order in the files.
        dated.sort_by(|a, b| a.0.cmp(&b.0));
        let mut urls: HashMap<String, Vec<Met>> = HashMap::new();
        for (_, url, met) in dated {
            urls.entry(url).or_default().push(met);
        }
        Ok(Replay {
            folder: std::path::absolute(folder).unwrap_or_else(|_| folder.to_owned()),
            files,
            urls,
            payloads,
            info,
            given: Mutex::new(HashMap::new()),
            missing: AtomicU64::new(0),
        })
    }

    /// The archive folder, absolute.
    pub fn folder(&self) -> &Path {
        &self.folder
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
        let record = self.read(loc)?;
        let head = head_len(&record.block);
        let mut body = record.block[head..].to_vec();
        if record.field("WARC-Type") == Some("revisit")
            && let Some(first) = record
                .field("WARC-Payload-Digest")
                .and_then(|d| self.payloads.get(d))
        {
            let first = self.read(*first)?;
            body = first.block[head_len(&first.block)..].to_vec();
        }
        let error = record.field("Rccrawler-Error").map(|k| {
            (
                k.to_owned(),
                record
                    .field("Rccrawler-Error-Detail")
                    .unwrap_or("")
                    .to_owned(),
            )
        });
        Ok(Answer::Response {
            head: record.block[..head].to_vec(),
            body,
            error,
        })
    }

    fn read(&self, loc: Loc) -> io::Result<RawRecord> {
        let path = &self.files[loc.file as usize];
        let mut f = File::open(path)?;
        f.seek(SeekFrom::Start(loc.offset))?;
        let mut gz = Vec::with_capacity(usize::try_from(loc.len).unwrap_or(0));
        f.take(loc.len).read_to_end(&mut gz)?;
        let mut raw = Vec::new();
        flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut raw)?;
        RawRecord::parse(&raw).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("no whole record at {} of {}", loc.offset, path.display()),
            )
        })
    }
}

/// Files record `r` (at `loc`) among what its URL met, the payloads and the `warcinfo`.
fn visit(
    r: &RawRecord,
    loc: Loc,
    dated: &mut Vec<(String, String, Met)>,
    payloads: &mut HashMap<String, Loc>,
    info: &mut Vec<(String, String)>,
) {
    let kind = r.field("WARC-Type").unwrap_or("");
    if kind == "warcinfo" {
        if info.is_empty() {
            *info = fields(&r.block);
        }
        return;
    }
    let (Some(url), Some(date)) = (r.field("WARC-Target-URI"), r.field("WARC-Date")) else {
        return;
    };
    let met = match kind {
        "response" | "revisit" => {
            if kind == "response"
                && r.field("WARC-Truncated").is_none()
                && let Some(d) = r.field("WARC-Payload-Digest")
            {
                payloads.entry(d.to_owned()).or_insert(loc);
            }
            Met::Answer(loc)
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
    dated.push((date.to_owned(), url.to_owned(), met));
}

/// The `name: value` lines of an `application/warc-fields` block.
fn fields(block: &[u8]) -> Vec<(String, String)> {
    String::from_utf8_lossy(block)
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim_start().to_owned()))
        .collect()
}

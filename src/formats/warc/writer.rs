//! The archive being written: WARC files in one folder, each opened as `NAME.warc.gz.open`
//! with a `warcinfo` record first, records appended as exchanges arrive (whole gzip members,
//! one `write` each), renamed to `NAME.warc.gz` once past the size limit or at the end. A file
//! left open by a killed process is cut back to its last whole record and continued.
//!
//! A response whose payload equals one already archived (the same SHA-1) is written as a
//! `revisit` record: its head only, naming the first.

use std::fs::{File, OpenOptions};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use hashbrown::HashMap;
use parking_lot::Mutex;

use super::cdxj::{self, Entry, UNSORTED_FILE};
pub use super::record::PageFacts;
use super::record::{
    IDENTICAL_PAYLOAD, Ids, Record, RecordType, SERVER_NOT_MODIFIED, digest_bytes, digest_string,
    metadata_block, warc_date, with_members,
};
use super::sha1_pair;
use super::side::{self, SideWriter};

/// The suffix of a file being written.
const OPEN: &str = ".open";
/// The suffix of a finished file.
const WARC_GZ: &str = ".warc.gz";

/// A `conversion` record's field: the requests the browser made for the page (SPEC §18).
pub const RENDER_REQUESTS: &str = "Rccrawler-Render-Requests";

/// What every file's `warcinfo` says besides the software and format: `(name, value)` lines
/// (the crawl's settings, its sites).
pub type WarcInfo = Vec<(String, String)>;

/// One HTTP exchange: what was sent and what came back.
#[derive(Debug, Clone, Copy)]
pub struct Exchange<'a> {
    /// The URL requested.
    pub url: &'a str,
    /// When the request was sent.
    pub date: SystemTime,
    /// The request as sent (head, and body if any).
    pub request: &'a [u8],
    /// The response's status line and header lines, through the empty line.
    pub head: &'a [u8],
    /// Its body (empty when it was not read).
    pub body: &'a [u8],
    /// Why the record lacks the body, or part of it (`WARC-Truncated`: `length`, `time`,
    /// `disconnect`, `unspecified`); `None` when it is whole.
    pub truncated: Option<&'static str>,
    /// The failure that cut the body, as the crawler named it (kind, detail): kept in
    /// `Rccrawler-Error` so that a rebuild fails the same way.
    pub error: Option<(&'a str, &'a str)>,
    /// A `304 Not Modified` to a re-crawl's conditional request: the date and payload digest
    /// of the earlier archive's answer it stands for (a `revisit` record names them).
    pub not_modified: Option<(&'a str, &'a str)>,
}

/// How a file is being written.
#[derive(Debug)]
struct OpenFile {
    path: PathBuf,
    file: File,
    len: u64,
}

/// Where a record is: the file (its place in [`State::files`]) and the offset in it.
#[derive(Debug, Clone, Copy)]
struct Loc {
    file: u32,
    offset: u64,
}

#[derive(Debug, Default)]
struct State {
    file: Option<OpenFile>,
    /// The next file's number.
    seq: u32,
    /// The finished names of the folder's files, the open one last: what a [`Loc`] names.
    files: Vec<String>,
    /// The first record of each payload's SHA-1 (its URI and date are read back from it when
    /// a revisit names it: 40 bytes a payload, not the 250 its strings took).
    seen: HashMap<[u8; 20], Loc>,
    /// Bytes appended by this process.
    written: u64,
    /// The open file's side index: a line per response and revisit, as they are written.
    side: Option<SideWriter>,
}

/// What opening an archive folder found damaged, in words (see [`Archive::problems`]).
#[derive(Debug, Default)]
struct Damage(Vec<String>);

/// A response or revisit among the members being appended: where it starts in them, its
/// length, and its index line's contents.
struct Indexed<'a> {
    at: u64,
    len: u64,
    entry: Entry<'a>,
    /// The payload's SHA-1 when this is a whole response with a body: later equal payloads
    /// are revisits of it.
    first: Option<[u8; 20]>,
}

/// An archive folder being written.
#[derive(Debug)]
pub struct Archive {
    folder: PathBuf,
    prefix: String,
    max_file_bytes: u64,
    info: WarcInfo,
    ids: Ids,
    state: Mutex<State>,
    damage: Damage,
}

fn io_err(what: &str) -> io::Error {
    io::Error::other(what.to_owned())
}

impl Archive {
    /// Opens archive folder `folder` (created): a file a killed process left open is cut back
    /// to its last whole record and continued; the payloads of every file are read back — from
    /// a finished file's side index, else by scanning it (and its side index written) — so
    /// that a continued crawl's repeats are revisits.
    pub fn open(
        folder: &Path,
        prefix: &str,
        max_file_bytes: u64,
        info: WarcInfo,
    ) -> io::Result<Archive> {
        std::fs::create_dir_all(folder)?;
        let mut state = State::default();
        let mut damage = Vec::new();
        let mut names: Vec<String> = std::fs::read_dir(folder)?
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.starts_with(prefix) && (n.ends_with(WARC_GZ) || n.ends_with(OPEN)))
            .collect();
        names.sort();
        // An index left unsorted by an earlier version killed mid-crawl: the side indexes say it.
        let _ = std::fs::remove_file(folder.join(UNSORTED_FILE));
        for name in &names {
            let path = folder.join(name);
            let finished = name.trim_end_matches(OPEN);
            let file = u32::try_from(state.files.len()).map_err(|_| io_err("too many files"))?;
            state.files.push(finished.to_owned());
            if let Some(seq) = seq_of(name) {
                state.seq = state.seq.max(seq + 1);
            }
            let side_path = side::side_path(&folder.join(finished));
            if !name.ends_with(OPEN)
                && let Some(firsts) = side::read_firsts(&side_path, std::fs::metadata(&path)?.len())
            {
                for (digest, offset) in firsts {
                    state.seen.entry(digest).or_insert(Loc { file, offset });
                }
                continue;
            }
            let open = name.ends_with(OPEN);
            let mut side = match SideWriter::create(&side_path) {
                Ok(w) => Some(w),
                // A finished file's side index only spares the next opening a scan.
                Err(_) if !open => None,
                Err(e) => return Err(e),
            };
            let end = side::rescan(&path, finished, |digest, offset, cdxj| {
                if let Some(d) = digest.and_then(digest_bytes) {
                    state.seen.entry(d).or_insert(Loc { file, offset });
                }
                match side.as_mut().map(|w| w.line(offset, digest, cdxj)) {
                    Some(Err(e)) if open => Err(e),
                    Some(Err(_)) => {
                        side = None;
                        Ok(())
                    }
                    _ => Ok(()),
                }
            })?;
            damage.extend(end.problems(&path));
            if open {
                let file = OpenOptions::new().append(true).open(&path)?;
                // A torn tail (a kill mid-write) is cut: the file ends with a whole record.
                file.set_len(end.whole)?;
                file.sync_all()?;
                state.file = Some(OpenFile {
                    path,
                    file,
                    len: end.whole,
                });
                state.side = side;
            } else if let Some(w) = side {
                // Not ended, it is not read: the next opening scans the file again.
                let _ = w.finish(end.len);
            }
        }
        Ok(Archive {
            folder: folder.to_owned(),
            prefix: prefix.to_owned(),
            max_file_bytes,
            info,
            ids: Ids::default(),
            state: Mutex::new(state),
            damage: Damage(damage),
        })
    }

    /// The damaged spans its files held when it was opened, passed over (the records after
    /// them were read), in words.
    pub fn problems(&self) -> &[String] {
        &self.damage.0
    }

    /// Archives one exchange (and, for a page, its `metadata` record): `request`, then
    /// `response` (or `revisit`), then `metadata`, next to each other in one file. Returns
    /// the `response` (or `revisit`) record's id, which a later `metadata` record names.
    pub fn exchange(&self, ex: &Exchange<'_>, page: Option<&PageFacts<'_>>) -> io::Result<String> {
        let response_id = self.ids.next();
        // `first`: the payload's SHA-1 when this response is one later revisits may name;
        // `block_sha1`: the SHA-1 of the head and body, a response's block (not a revisit's).
        let (payload, earlier, profile, first, block_sha1) = match ex.not_modified {
            Some((date, digest)) => (
                digest.to_owned(),
                Some((ex.url.to_owned(), date.to_owned())),
                SERVER_NOT_MODIFIED,
                None,
                None,
            ),
            None => {
                let (block_sha1, sha1) = sha1_pair::block_and_payload(ex.head, ex.body);
                let whole = !ex.body.is_empty() && ex.truncated.is_none();
                let earlier = whole.then(|| self.earlier(&sha1)).flatten();
                let first = (whole && earlier.is_none()).then_some(sha1);
                let block_sha1 = earlier.is_none().then_some(block_sha1);
                (
                    digest_string(&sha1),
                    earlier,
                    IDENTICAL_PAYLOAD,
                    first,
                    block_sha1,
                )
            }
        };
        let request = Record {
            kind: RecordType::Request,
            id: self.ids.next(),
            date: ex.date,
            target_uri: Some(ex.url.to_owned()),
            content_type: "application/http;msgtype=request",
            fields: vec![("WARC-Concurrent-To", response_id.clone())],
            block: vec![ex.request],
        };
        let mut fields = vec![("WARC-Payload-Digest", payload.clone())];
        if let Some(why) = ex.truncated {
            fields.push(("WARC-Truncated", why.to_owned()));
        }
        if let Some((kind, detail)) = ex.error {
            fields.push(("Rccrawler-Error", one_line(kind)));
            fields.push(("Rccrawler-Error-Detail", one_line(detail)));
        }
        let (kind, block) = match &earlier {
            Some((uri, date)) => {
                fields.push(("WARC-Profile", profile.to_owned()));
                fields.push(("WARC-Refers-To-Target-URI", uri.clone()));
                fields.push(("WARC-Refers-To-Date", date.clone()));
                (RecordType::Revisit, vec![ex.head])
            }
            None => (RecordType::Response, vec![ex.head, ex.body]),
        };
        let response = Record {
            kind,
            id: response_id.clone(),
            date: ex.date,
            target_uri: Some(ex.url.to_owned()),
            content_type: "application/http;msgtype=response",
            fields,
            block,
        };
        with_members(|members| {
            request.gzip_into(members);
            let at = members.len() as u64;
            response.gzip_digested_into(block_sha1.as_ref(), members);
            let len = members.len() as u64 - at;
            if let Some(p) = page {
                let facts = metadata_block(p);
                self.metadata_record(ex.url, ex.date, &facts, &response_id)
                    .gzip_into(members);
            }
            let revisit = earlier.is_some();
            self.append_exchange(ex, (&payload, revisit, first), members, (at, len))
        })?;
        Ok(response_id)
    }

    /// Appends an exchange's `members`, its response (or revisit) at `at` (`len` bytes) in
    /// them, with its index line; a first payload is remembered for later revisits.
    fn append_exchange(
        &self,
        ex: &Exchange<'_>,
        (payload, revisit, first): (&str, bool, Option<[u8; 20]>),
        members: &[u8],
        (at, len): (u64, u64),
    ) -> io::Result<()> {
        let date = warc_date(ex.date);
        let (status, mime) = cdxj::status_and_mime(ex.head);
        let entry = Entry {
            url: ex.url,
            date: &date,
            mime: if revisit { "warc/revisit" } else { &mime },
            status: &status,
            digest: payload,
        };
        let mut st = self.state.lock();
        let indexed = Indexed {
            at,
            len,
            entry,
            first,
        };
        self.append(&mut st, members, Some(indexed))
    }

    /// The URI and date of the first response whose payload has SHA-1 `sha1`, read back
    /// from its record; `None` when there is none, or it cannot be read (a file removed or
    /// damaged since): the payload is archived again, whole, and the crawl goes on.
    fn earlier(&self, sha1: &[u8; 20]) -> Option<(String, String)> {
        let (loc, name) = {
            let st = self.state.lock();
            let loc = st.seen.get(sha1).copied()?;
            (
                loc,
                st.files.get(loc.file as usize).cloned().unwrap_or_default(),
            )
        };
        // The file may be renamed from `.open` to its finished name meanwhile.
        let finished = self.folder.join(&name);
        let open = self.folder.join(format!("{name}{OPEN}"));
        let head = super::read::head_at(&finished, loc.offset)
            .or_else(|_| super::read::head_at(&open, loc.offset))
            .ok()??;
        // A side index that lies (a file replaced since) names another record: not this one.
        if head.field("WARC-Payload-Digest").and_then(digest_bytes) != Some(*sha1) {
            return None;
        }
        Some((
            head.field("WARC-Target-URI")?.to_owned(),
            head.field("WARC-Date")?.to_owned(),
        ))
    }

    /// Archives a request that got no answer (a timeout, a refused or broken connection): its
    /// `request` record and a `metadata` record naming the failure (`fetch-error: KIND`,
    /// `detail: …`), so that a rebuild fails the same way.
    pub fn failure(
        &self,
        url: &str,
        date: SystemTime,
        request: &[u8],
        (kind, detail): (&str, &str),
    ) -> io::Result<()> {
        let id = self.ids.next();
        let request = Record {
            kind: RecordType::Request,
            id: self.ids.next(),
            date,
            target_uri: Some(url.to_owned()),
            content_type: "application/http;msgtype=request",
            fields: vec![("WARC-Concurrent-To", id.clone())],
            block: vec![request],
        };
        let block = format!(
            "fetch-error: {}\r\ndetail: {}\r\n",
            one_line(kind),
            one_line(detail)
        );
        let failure = Record {
            kind: RecordType::Metadata,
            id,
            date,
            target_uri: Some(url.to_owned()),
            content_type: "application/warc-fields",
            fields: Vec::new(),
            block: vec![block.as_bytes()],
        };
        with_members(|members| {
            request.gzip_into(members);
            failure.gzip_into(members);
            let mut st = self.state.lock();
            self.append(&mut st, members, None)
        })
    }

    /// Archives the `metadata` record of a page whose response was archived earlier as
    /// record `response_id` (the page's links are known once it is parsed).
    pub fn metadata(
        &self,
        url: &str,
        date: SystemTime,
        response_id: &str,
        page: &PageFacts<'_>,
    ) -> io::Result<()> {
        let facts = metadata_block(page);
        with_members(|member| {
            self.metadata_record(url, date, &facts, response_id)
                .gzip_into(member);
            let mut st = self.state.lock();
            self.append(&mut st, member, None)
        })
    }

    /// Archives the DOM a browser rendered of a page whose response was archived as record
    /// `response_id` (SPEC §18): a `conversion` record referring to it, `requests` the
    /// requests the browser made for it (what `rebuild` counts in `Fetched`).
    pub fn conversion(
        &self,
        url: &str,
        date: SystemTime,
        response_id: &str,
        (dom, requests): (&[u8], u32),
    ) -> io::Result<()> {
        let member = Record {
            kind: RecordType::Conversion,
            id: self.ids.next(),
            date,
            target_uri: Some(url.to_owned()),
            content_type: "text/html; charset=utf-8",
            fields: vec![
                ("WARC-Refers-To", response_id.to_owned()),
                (RENDER_REQUESTS, requests.to_string()),
            ],
            block: vec![dom],
        }
        .to_gzip();
        let mut st = self.state.lock();
        self.append(&mut st, &member, None)
    }

    fn metadata_record<'b>(
        &self,
        url: &str,
        date: SystemTime,
        block: &'b str,
        response_id: &str,
    ) -> Record<'b> {
        Record {
            kind: RecordType::Metadata,
            id: self.ids.next(),
            date,
            target_uri: Some(url.to_owned()),
            content_type: "application/warc-fields",
            fields: vec![("WARC-Concurrent-To", response_id.to_owned())],
            block: vec![block.as_bytes()],
        }
    }

    /// Appends whole members, opening the next file first when there is none or the current
    /// one is past the size limit; the index line of a response or revisit among them goes to
    /// `index.unsorted`.
    fn append(
        &self,
        st: &mut State,
        members: &[u8],
        indexed: Option<Indexed<'_>>,
    ) -> io::Result<()> {
        if st
            .file
            .as_ref()
            .is_some_and(|f| f.len > 0 && f.len + members.len() as u64 > self.max_file_bytes)
        {
            self.finish_file(st)?;
        }
        if st.file.is_none() {
            self.start_file(st)?;
        }
        let f = st.file.as_mut().ok_or_else(|| io_err("no archive file"))?;
        let start = f.len;
        f.file.write_all(members)?;
        f.len += members.len() as u64;
        st.written += members.len() as u64;
        if let Some(ix) = indexed {
            let name = f
                .path
                .file_name()
                .and_then(|n| n.to_str())
                .map_or("", |n| n.trim_end_matches(OPEN));
            let offset = start + ix.at;
            let line = ix.entry.line(name, offset, ix.len);
            if let Some(side) = st.side.as_mut() {
                side.line(offset, ix.first.map(|_| ix.entry.digest), &line)?;
            }
            if let Some(sha1) = ix.first {
                let file = u32::try_from(st.files.len().saturating_sub(1)).unwrap_or(u32::MAX);
                st.seen.entry(sha1).or_insert(Loc { file, offset });
            }
        }
        Ok(())
    }

    fn start_file(&self, st: &mut State) -> io::Result<()> {
        let stamp: String = warc_date(SystemTime::now())
            .chars()
            .filter(char::is_ascii_digit)
            .take(14)
            .collect();
        let finished = format!("{}-{stamp}-{:05}{WARC_GZ}", self.prefix, st.seq);
        let name = format!("{finished}{OPEN}");
        st.seq += 1;
        let path = self.folder.join(name);
        let mut file = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(&path)?;
        let mut block = format!(
            "software: rccrawler/{}\r\nformat: WARC File Format 1.1\r\nconformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n",
            env!("CARGO_PKG_VERSION")
        );
        for (name, value) in &self.info {
            block.push_str(&format!("{name}: {}\r\n", value.replace(['\r', '\n'], " ")));
        }
        let side = SideWriter::create(&side::side_path(&self.folder.join(&finished)))?;
        let info = Record {
            kind: RecordType::Warcinfo,
            id: self.ids.next(),
            date: SystemTime::now(),
            target_uri: None,
            content_type: "application/warc-fields",
            fields: vec![("WARC-Filename", finished.clone())],
            block: vec![block.as_bytes()],
        }
        .to_gzip();
        file.write_all(&info)?;
        st.written += info.len() as u64;
        st.files.push(finished);
        st.side = Some(side);
        st.file = Some(OpenFile {
            path,
            file,
            len: info.len() as u64,
        });
        Ok(())
    }

    /// Syncs the open file and renames it to its finished name.
    fn finish_file(&self, st: &mut State) -> io::Result<()> {
        if let Some(f) = st.file.take() {
            // The side index is ended first: a kill before the rename leaves the file `.open`,
            // scanned again.
            if let Some(side) = st.side.take() {
                side.finish(f.len)?;
            }
            f.file.sync_all()?;
            let done = PathBuf::from(f.path.to_string_lossy().trim_end_matches(OPEN).to_owned());
            std::fs::rename(&f.path, &done)?;
            crate::base::storage::atomic::sync_dir(&self.folder)?;
        }
        Ok(())
    }

    /// The archive's folder.
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// Bytes this process appended.
    pub fn written(&self) -> u64 {
        self.state.lock().written
    }

    /// Finishes the open file and writes the folder's index, sorted, from the lines written
    /// as records were.
    pub fn close(&self) -> io::Result<()> {
        let mut st = self.state.lock();
        self.finish_file(&mut st)?;
        cdxj::index_from_sides(&self.folder, &st.files)
    }
}

/// `text` on one line (a field value holds no line end).
fn one_line(text: &str) -> String {
    text.replace(['\r', '\n'], " ")
}

/// The number of archive file `name` (`PREFIX-STAMP-NNNNN.warc.gz[.open]`).
fn seq_of(name: &str) -> Option<u32> {
    let base = name.trim_end_matches(OPEN).trim_end_matches(WARC_GZ);
    base.rsplit('-').next()?.parse().ok()
}

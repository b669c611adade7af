//! The texts of a crawl's nodes on their way to text.csv (`PageText = yes`, SPEC §19). A
//! site's texts are megabytes (100 KB a node at most, by default): they are not kept in
//! memory with the graph nor journaled with it, but appended by the parsers to one file per
//! scope in the state folder (`StateFolder/text/`), before the page is recorded — so a page
//! the journal holds has its text on disk, whatever kills the crawl after — and read once,
//! when the site's files are written. A page fetched again after a kill appends its text
//! again; the last line of a URL counts.
//!
//! A line: `URL \t WORDS \t TEXT \n`. Neither a normalized URL nor a text (its whitespace
//! collapsed to single spaces) holds a tab or a line end.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use parking_lot::Mutex;

use crate::model::fold::page_text::PageText;

/// Where the scopes' texts go.
#[derive(Debug)]
pub struct TextSpool {
    folder: PathBuf,
    /// One writer at a time: two parsers' lines of one site never interleave; holds whether
    /// the folder was made (once, not at every page).
    write: Mutex<bool>,
    /// Each scope's seed origin, as its graph names it (asked of the data manager once).
    origins: dashmap::DashMap<crate::base::ids::ScopeId, std::sync::Arc<str>>,
}

impl TextSpool {
    /// The spool of the crawl whose state is in `state_folder`.
    pub fn new(state_folder: &Path) -> Self {
        TextSpool {
            folder: Self::folder_of(state_folder),
            write: Mutex::new(false),
            origins: dashmap::DashMap::new(),
        }
    }

    /// The seed origin of `scope`, from `ask` the first time.
    pub fn scope_origin(
        &self,
        scope: crate::base::ids::ScopeId,
        ask: impl FnOnce() -> crate::model::site::Origin,
    ) -> std::sync::Arc<str> {
        let entry = self
            .origins
            .entry(scope)
            .or_insert_with(|| ask().to_string().into());
        std::sync::Arc::clone(&entry)
    }

    /// The spool's folder in a state folder.
    pub fn folder_of(state_folder: &Path) -> PathBuf {
        state_folder.join("text")
    }

    /// The file of the scope seeded at `origin`.
    pub fn file_of(folder: &Path, origin: &str) -> PathBuf {
        let key = xxhash_rust::xxh3::xxh3_64(origin.as_bytes());
        folder.join(format!("{key:016x}.tsv"))
    }

    /// Appends `url`'s text to the file of the scope seeded at `origin`.
    pub fn append(&self, origin: &str, url: &str, text: &PageText) -> io::Result<()> {
        let mut line = Vec::with_capacity(url.len() + text.text.len() + 16);
        line.extend_from_slice(url.as_bytes());
        line.push(b'\t');
        line.extend_from_slice(itoa::Buffer::new().format(text.words).as_bytes());
        line.push(b'\t');
        // Defensive: what a parser hands over has no tab or line end, but a line must not break.
        line.extend(text.text.bytes().map(|b| {
            if b == b'\t' || b == b'\n' || b == b'\r' {
                b' '
            } else {
                b
            }
        }));
        line.push(b'\n');
        let mut created = self.write.lock();
        if !*created {
            std::fs::create_dir_all(&self.folder)?;
            *created = true;
        }
        let mut f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(Self::file_of(&self.folder, origin))?;
        f.write_all(&line)
    }
}

/// A node's text as the spool holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpooledText {
    /// Its words (also those past the cut).
    pub words: u32,
    /// Its text.
    pub text: String,
}

/// Reads a scope's spool file for the nodes `node_of` knows (a URL to its node's index):
/// per node, the last line of its own address, else the last of another of its addresses.
/// Keeps only each node's offset until it is asked for its text.
#[derive(Debug)]
pub struct SpoolReader {
    file: Option<BufReader<File>>,
    /// Per node: the offset of its line, and whether the line's URL is the node's own.
    at: Vec<Option<(u64, bool)>>,
}

impl SpoolReader {
    /// Indexes `path` for `nodes` nodes; `node_of` maps a URL to its node (index, and whether
    /// the URL is the node's label). A missing file gives no text.
    pub fn open(
        path: &Path,
        nodes: usize,
        node_of: impl Fn(&str) -> Option<(usize, bool)>,
    ) -> io::Result<Self> {
        let mut at = vec![None; nodes];
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(SpoolReader { file: None, at });
            }
            Err(e) => return Err(e),
        };
        let mut reader = BufReader::new(file);
        let mut offset = 0u64;
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = reader.read_until(b'\n', &mut line)?;
            if n == 0 {
                break;
            }
            // A last line cut by a kill has no line end: its page was not recorded either.
            if line.last() == Some(&b'\n') {
                let url = line.split(|&b| b == b'\t').next().unwrap_or(&[]);
                if let Some((node, own)) = std::str::from_utf8(url).ok().and_then(&node_of)
                    && let Some(slot) = at.get_mut(node)
                    && (own || !slot.is_some_and(|(_, o)| o))
                {
                    *slot = Some((offset, own));
                }
            }
            offset += n as u64;
        }
        Ok(SpoolReader {
            file: Some(reader),
            at,
        })
    }

    /// Node `node`'s text, if the spool has one.
    pub fn text(&mut self, node: usize) -> io::Result<Option<SpooledText>> {
        let (Some(file), Some(Some((offset, _)))) = (self.file.as_mut(), self.at.get(node)) else {
            return Ok(None);
        };
        file.seek(SeekFrom::Start(*offset))?;
        let mut line = Vec::new();
        file.read_until(b'\n', &mut line)?;
        let line = String::from_utf8_lossy(&line);
        let mut fields = line.trim_end_matches('\n').splitn(3, '\t');
        let (_url, words, text) = (fields.next(), fields.next(), fields.next());
        Ok(Some(SpooledText {
            words: words.and_then(|w| w.parse().ok()).unwrap_or(0),
            text: text.unwrap_or("").to_owned(),
        }))
    }
}

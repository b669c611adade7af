//! The two log files (CommonLogFile, ErrorLogFile), CSV with a header. Written only by the
//! routine thread, so they need no lock. Appended to, so a continued crawl keeps its history.

use std::fs::{File, OpenOptions};
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::base::utc::utc_timestamp;

/// Open log files.
#[derive(Debug)]
pub struct LogFiles {
    common: csv::Writer<BufWriter<File>>,
    errors: csv::Writer<BufWriter<File>>,
    paths: (PathBuf, PathBuf),
}

fn open(path: &Path, header: &[&str]) -> std::io::Result<csv::Writer<BufWriter<File>>> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    set_aside_if_other_columns(path, header)?;
    let file = OpenOptions::new().create(true).append(true).open(path)?;
    let empty = file.metadata()?.len() == 0;
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(BufWriter::new(file));
    if empty {
        w.write_record(header)?;
    }
    Ok(w)
}

/// A log file written by a version with other columns (the common log gained `SetCookie`)
/// is renamed `<name>.old-<unix time>.csv` so that no file mixes two layouts.
fn set_aside_if_other_columns(path: &Path, header: &[&str]) -> std::io::Result<()> {
    use std::io::BufRead;
    let Ok(file) = File::open(path) else {
        return Ok(());
    };
    let mut first = String::new();
    std::io::BufReader::new(file).read_line(&mut first)?;
    if first.is_empty() || first.trim_end() == header.join(",") {
        return Ok(());
    }
    let secs = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    let aside = path.with_file_name(format!("{}.old-{secs}.csv", stem.unwrap_or_default()));
    std::fs::rename(path, aside)
}

impl LogFiles {
    /// Opens (creating folders and headers as needed) both files.
    pub fn open(common: &Path, errors: &Path) -> std::io::Result<Self> {
        Ok(LogFiles {
            common: open(
                common,
                &[
                    "Time",
                    "Site",
                    "Url",
                    "Status",
                    "Bytes",
                    "Milliseconds",
                    "SetCookie",
                ],
            )?,
            errors: open(errors, &["Time", "Site", "Url", "Problem"])?,
            paths: (common.to_owned(), errors.to_owned()),
        })
    }

    /// One request, which started `at` and took `ms` milliseconds: its line's `Time` is its
    /// own start, not when the line is written (the routine writes on its tick).
    pub fn request(
        &mut self,
        site: &str,
        url: &str,
        status: u16,
        bytes: u64,
        (at, ms): (SystemTime, u128),
        set_cookie: &str,
    ) -> std::io::Result<()> {
        let t = utc_timestamp(at);
        self.common.write_record([
            t.as_str(),
            site,
            url,
            &status.to_string(),
            &bytes.to_string(),
            &ms.to_string(),
            set_cookie,
        ])?;
        Ok(())
    }

    /// One problem.
    pub fn problem(&mut self, site: &str, url: &str, what: &str) -> std::io::Result<()> {
        let t = utc_timestamp(SystemTime::now());
        self.errors.write_record([t.as_str(), site, url, what])?;
        Ok(())
    }

    /// Flushes both files.
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.common.flush()?;
        self.errors.flush()
    }

    /// The two paths.
    pub fn paths(&self) -> (&Path, &Path) {
        (&self.paths.0, &self.paths.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_get_one_header() {
        let dir = tempfile::tempdir().unwrap();
        let (c, e) = (dir.path().join("l/c.csv"), dir.path().join("l/e.csv"));
        for _ in 0..2 {
            let mut l = LogFiles::open(&c, &e).unwrap();
            l.request("s", "u", 200, 10, (SystemTime::now(), 5), "")
                .unwrap();
            l.request("s", "v", 302, 0, (SystemTime::now(), 5), "sid;wall")
                .unwrap();
            l.flush().unwrap();
        }
        let text = std::fs::read_to_string(&c).unwrap();
        assert_eq!(text.lines().count(), 5);
        assert!(text.starts_with("Time,Site,Url,Status,Bytes,Milliseconds,SetCookie\n"));
        assert!(
            text.lines()
                .nth(2)
                .unwrap()
                .ends_with(",s,v,302,0,5,sid;wall")
        );
    }

    #[test]
    fn a_log_of_other_columns_is_set_aside_not_mixed() {
        let dir = tempfile::tempdir().unwrap();
        let (c, e) = (dir.path().join("c.csv"), dir.path().join("e.csv"));
        let old = "Time,Site,Url,Status,Bytes,Milliseconds\nt,s,u,200,1,1\n";
        std::fs::write(&c, old).unwrap();
        let mut l = LogFiles::open(&c, &e).unwrap();
        l.request("s", "u", 200, 10, (SystemTime::now(), 5), "")
            .unwrap();
        l.flush().unwrap();
        assert_eq!(std::fs::read_to_string(&c).unwrap().lines().count(), 2);
        let aside: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.starts_with("c.old-"))
            .collect();
        assert_eq!(aside.len(), 1, "{aside:?}");
        let kept = std::fs::read_to_string(dir.path().join(&aside[0])).unwrap();
        assert_eq!(kept, old);
    }
}

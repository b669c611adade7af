//! The two log files (CommonLogFile, ErrorLogFile), CSV with a header. Written only by the
//! routine thread, so they need no lock. Appended to, so a continued crawl keeps its history.

use std::fs::{File, OpenOptions};
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

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

    /// One request.
    pub fn request(
        &mut self,
        site: &str,
        url: &str,
        status: u16,
        bytes: u64,
        ms: u128,
        set_cookie: &str,
    ) -> std::io::Result<()> {
        let t = utc_timestamp(SystemTime::now());
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

/// `2026-11-21T20:22:03.123Z`.
pub fn utc_timestamp(t: SystemTime) -> String {
    let d = t.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, day) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        d.subsec_millis()
    )
}

/// Days since 1970-01-01 → (year, month, day) in the proleptic Gregorian calendar
/// (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn timestamps() {
        assert_eq!(
            utc_timestamp(SystemTime::UNIX_EPOCH),
            "1970-01-01T00:00:00.000Z"
        );
        let t = SystemTime::UNIX_EPOCH + Duration::from_millis(1_795_292_523_456);
        assert_eq!(utc_timestamp(t), "2026-11-21T20:22:03.456Z");
        let leap = SystemTime::UNIX_EPOCH + Duration::from_secs(951_782_400); // 2000-02-29
        assert_eq!(&utc_timestamp(leap)[..10], "2000-02-29");
    }

    #[test]
    fn files_get_one_header() {
        let dir = tempfile::tempdir().unwrap();
        let (c, e) = (dir.path().join("l/c.csv"), dir.path().join("l/e.csv"));
        for _ in 0..2 {
            let mut l = LogFiles::open(&c, &e).unwrap();
            l.request("s", "u", 200, 10, 5, "").unwrap();
            l.request("s", "v", 302, 0, 5, "sid;wall").unwrap();
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
        l.request("s", "u", 200, 10, 5, "").unwrap();
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

//! The archive writer end to end: what a reader finds in the files it writes.

use std::time::{Duration, SystemTime};

use super::cdxj::INDEX_FILE;
use super::read::{RawRecord, scan};
use super::{Archive, Exchange, PageFacts};

fn response(body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn request(path: &str) -> Vec<u8> {
    format!("GET {path} HTTP/1.1\r\nHost: a.test\r\nUser-Agent: rccrawler\r\n\r\n").into_bytes()
}

fn exchange(archive: &Archive, url: &str, body: &str, links: &[String]) {
    let path = url.trim_start_matches("http://a.test");
    let (req, resp) = (request(path), response(body));
    let ex = Exchange {
        url,
        date: SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000),
        request: &req,
        head: &resp[..super::record::head_len(&resp)],
        body: &resp[super::record::head_len(&resp)..],
        truncated: None,
        error: None,
        not_modified: None,
    };
    let links: Vec<&str> = links.iter().map(String::as_str).collect();
    let facts = PageFacts {
        level: Some(1),
        outlinks: &links,
    };
    archive.exchange(&ex, Some(&facts)).unwrap();
}

/// Every record of every file of `dir` with `ext`: (file, type, target).
fn records(dir: &std::path::Path, ext: &str) -> Vec<(String, RawRecord<'static>)> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(ext))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for n in names {
        scan(&dir.join(&n), |_, _, r| {
            out.push((n.clone(), r.clone().into_owned()))
        })
        .unwrap();
    }
    out
}

#[test]
fn records_revisits_rotation_and_index() {
    let dir = tempfile::tempdir().unwrap();
    let info = vec![("rccrawler-setting".to_owned(), "Archive = warc".to_owned())];
    let a = Archive::open(dir.path(), "crawl", 1500, info.clone()).unwrap();
    let links = vec!["http://a.test/b".to_owned()];
    exchange(&a, "http://a.test/", "<a href=/b>b</a>", &links);
    exchange(&a, "http://a.test/b", "same body", &[]);
    exchange(&a, "http://a.test/c", "same body", &[]);
    a.close().unwrap();
    let all = records(dir.path(), ".warc.gz");
    let kinds: Vec<(&str, Option<&str>)> = all
        .iter()
        .map(|(_, r)| (r.field("WARC-Type").unwrap(), r.field("WARC-Target-URI")))
        .collect();
    // Files rotate past 1,500 bytes, each starting with its warcinfo; an exchange is never split.
    let files: std::collections::BTreeSet<&str> = all.iter().map(|(f, _)| f.as_str()).collect();
    assert!(files.len() >= 2, "{files:?}");
    for f in &files {
        let first = all.iter().find(|(n, _)| n == f).unwrap();
        assert_eq!(first.1.field("WARC-Type"), Some("warcinfo"));
        assert!(
            String::from_utf8_lossy(&first.1.block).contains("rccrawler-setting: Archive = warc")
        );
    }
    let wanted = [
        ("request", Some("http://a.test/")),
        ("response", Some("http://a.test/")),
        ("metadata", Some("http://a.test/")),
        ("request", Some("http://a.test/b")),
        ("response", Some("http://a.test/b")),
        ("metadata", Some("http://a.test/b")),
        ("request", Some("http://a.test/c")),
        ("revisit", Some("http://a.test/c")),
        ("metadata", Some("http://a.test/c")),
    ];
    let got: Vec<_> = kinds
        .into_iter()
        .filter(|(k, _)| *k != "warcinfo")
        .collect();
    assert_eq!(got, wanted);
    let revisit = &all
        .iter()
        .find(|(_, r)| r.field("WARC-Type") == Some("revisit"))
        .unwrap()
        .1;
    assert_eq!(
        revisit.field("WARC-Refers-To-Target-URI"),
        Some("http://a.test/b")
    );
    assert!(
        revisit.block.ends_with(b"\r\n\r\n"),
        "a revisit keeps the head only"
    );
    let meta = &all
        .iter()
        .find(|(_, r)| r.field("WARC-Type") == Some("metadata"))
        .unwrap()
        .1;
    assert_eq!(&meta.block[..], b"level: 1\r\noutlink: http://a.test/b\r\n");
    // Every digest is the SHA-1 of what it names.
    for (_, r) in &all {
        assert_eq!(
            r.field("WARC-Block-Digest").unwrap(),
            super::record::sha1_digest(&r.block)
        );
    }
    let index = std::fs::read_to_string(dir.path().join(INDEX_FILE)).unwrap();
    let lines: Vec<&str> = index.lines().collect();
    assert_eq!(lines.len(), 3, "{index}");
    assert!(lines[0].starts_with("test,a)/ 20270115"), "{index}");
    assert!(
        lines[2].starts_with("test,a)/c ") && lines[2].contains("\"mime\": \"warc/revisit\""),
        "{index}"
    );
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines, sorted);
}

#[test]
fn a_torn_tail_is_cut_and_the_file_continued() {
    let dir = tempfile::tempdir().unwrap();
    let a = Archive::open(dir.path(), "crawl", 1 << 30, Vec::new()).unwrap();
    exchange(&a, "http://a.test/", "home", &[]);
    drop(a); // killed: the file stays .open
    let open: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".open"))
        .collect();
    assert_eq!(open.len(), 1);
    let whole = std::fs::metadata(&open[0]).unwrap().len();
    // Half a record more, as a kill mid-write leaves it.
    let torn = {
        let r = super::record::Record {
            kind: super::record::RecordType::Metadata,
            id: "<urn:uuid:x>".into(),
            date: SystemTime::UNIX_EPOCH,
            target_uri: None,
            content_type: "application/warc-fields",
            fields: Vec::new(),
            block: vec![&[b'x'; 5000][..]],
        }
        .to_gzip();
        r[..r.len() / 2].to_vec()
    };
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&open[0])
        .unwrap();
    std::io::Write::write_all(&mut f, &torn).unwrap();
    drop(f);
    let a = Archive::open(dir.path(), "crawl", 1 << 30, Vec::new()).unwrap();
    assert_eq!(
        std::fs::metadata(&open[0]).unwrap().len(),
        whole,
        "the torn tail is cut"
    );
    exchange(&a, "http://a.test/again", "home", &[]);
    a.close().unwrap();
    let all = records(dir.path(), ".warc.gz");
    let kinds: Vec<&str> = all
        .iter()
        .map(|(_, r)| r.field("WARC-Type").unwrap())
        .collect();
    // One file, continued; the repeated body (read back from the file) is a revisit.
    assert_eq!(
        kinds,
        [
            "warcinfo", "request", "response", "metadata", "request", "revisit", "metadata"
        ]
    );
}

/// The CDXJ lines a scan of every finished file of `dir` gives, sorted.
fn scanned_index(dir: &std::path::Path) -> Vec<String> {
    let mut lines: Vec<String> = records_with_offsets(dir)
        .into_iter()
        .filter_map(|(n, at, len, r)| super::cdxj::line(&r, &n, at, len))
        .collect();
    lines.sort();
    lines
}

fn records_with_offsets(dir: &std::path::Path) -> Vec<(String, u64, u64, RawRecord<'static>)> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".warc.gz"))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for n in names {
        scan(&dir.join(&n), |at, len, r| {
            out.push((n.clone(), at, len, r.clone().into_owned()))
        })
        .unwrap();
    }
    out
}

// See: issue 69 item 1 — a continued crawl's opening reads each finished file's side index,
// not the file: a revisit of a payload in an earlier file still names its first record, and
// the folder's index is the one a scan of every file gives.
#[test]
fn a_continued_archive_reads_finished_files_by_their_side_indexes() {
    let dir = tempfile::tempdir().unwrap();
    let a = Archive::open(dir.path(), "crawl", 1500, Vec::new()).unwrap();
    exchange(&a, "http://a.test/", "<a href=/b>b</a>", &[]);
    exchange(&a, "http://a.test/b", "first body", &[]);
    exchange(&a, "http://a.test/c", "another body", &[]);
    a.close().unwrap();
    let finished: Vec<std::path::PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".warc.gz"))
        .collect();
    assert!(finished.len() >= 2, "{finished:?}");
    for f in &finished {
        let side = super::side::side_path(f);
        let len = std::fs::metadata(f).unwrap().len();
        assert_eq!(super::side::each_line(&side, |_, _, _| {}), Some(len));
    }
    let index = std::fs::read_to_string(dir.path().join(INDEX_FILE)).unwrap();
    assert_eq!(index.lines().collect::<Vec<_>>(), scanned_index(dir.path()));
    // A byte of every finished file's first request flipped (its response follows it): a
    // scan would name the damage, the side index does not read the file.
    let requests = records_with_offsets(dir.path());
    for f in &finished {
        let name = f.file_name().unwrap().to_str().unwrap();
        let (_, at, _, _) = requests
            .iter()
            .find(|(n, _, _, r)| n == name && r.field("WARC-Type") == Some("request"))
            .unwrap();
        let mut bytes = std::fs::read(f).unwrap();
        bytes[*at as usize + 20] ^= 0x55;
        std::fs::write(f, bytes).unwrap();
    }
    let a = Archive::open(dir.path(), "crawl", 1500, Vec::new()).unwrap();
    assert_eq!(a.problems(), &[] as &[String], "read by side index");
    // The payload of /b, in the first file, comes again: a revisit naming /b.
    exchange(&a, "http://a.test/d", "first body", &[]);
    a.close().unwrap();
    let revisit = records_with_offsets(dir.path())
        .into_iter()
        .find(|(_, _, _, r)| r.field("WARC-Type") == Some("revisit"))
        .expect("a revisit")
        .3;
    assert_eq!(revisit.field("WARC-Target-URI"), Some("http://a.test/d"));
    assert_eq!(
        revisit.field("WARC-Refers-To-Target-URI"),
        Some("http://a.test/b")
    );
    // Without side indexes (an archive of an earlier version) the files are scanned: the
    // damage is named, and side indexes are written for the next opening.
    for f in &finished {
        std::fs::remove_file(super::side::side_path(f)).unwrap();
    }
    let a = Archive::open(dir.path(), "crawl", 1500, Vec::new()).unwrap();
    assert_eq!(a.problems().len(), finished.len(), "{:?}", a.problems());
    drop(a);
    for f in &finished {
        assert!(super::side::side_path(f).exists());
    }
    let a = Archive::open(dir.path(), "crawl", 1500, Vec::new()).unwrap();
    assert_eq!(a.problems(), &[] as &[String]);
}

// See: issue 69 item 1 — the folder's index is sorted in bounded memory; a file killed while
// it was written has its side index rewritten from a scan.
#[test]
fn the_index_of_a_killed_and_continued_archive_is_the_scanned_one() {
    let dir = tempfile::tempdir().unwrap();
    let a = Archive::open(dir.path(), "crawl", 4000, Vec::new()).unwrap();
    for i in 0..12 {
        exchange(
            &a,
            &format!("http://a.test/p{i}"),
            &format!("page {i}"),
            &[],
        );
    }
    drop(a); // killed: the open file's side index is not ended
    let a = Archive::open(dir.path(), "crawl", 4000, Vec::new()).unwrap();
    for i in 12..20 {
        exchange(
            &a,
            &format!("http://a.test/p{i}"),
            &format!("page {}", i % 15),
            &[],
        );
    }
    a.close().unwrap();
    let index = std::fs::read_to_string(dir.path().join(INDEX_FILE)).unwrap();
    let lines: Vec<&str> = index.lines().collect();
    assert_eq!(lines.len(), 20, "{index}");
    assert_eq!(lines, scanned_index(dir.path()));
    // /p15 … /p19 repeat /p0 … /p4: revisits.
    assert_eq!(index.matches("warc/revisit").count(), 5, "{index}");
    assert!(!dir.path().join(super::cdxj::UNSORTED_FILE).exists());
}

// See: issue 69 item 1, and the hostile probes of issue 63 — what is planted under a side
// index's name is never written through, never blocks, never names a record it does not hold.
#[cfg(unix)]
#[test]
fn side_indexes_planted_or_lying_are_not_trusted() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("archive");
    let a = Archive::open(&folder, "crawl", 1500, Vec::new()).unwrap();
    exchange(&a, "http://a.test/", "home", &[]);
    exchange(&a, "http://a.test/b", "first body", &[]);
    a.close().unwrap();
    let mut finished: Vec<std::path::PathBuf> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".warc.gz"))
        .collect();
    finished.sort();
    let (first, second) = (&finished[0], &finished[1]);
    let outside = dir.path().join("outside.txt");
    std::fs::write(&outside, "not the archive's").unwrap();
    // A link to a file outside the folder in place of the first file's side index, a pipe in
    // place of the second's.
    std::fs::remove_file(super::side::side_path(first)).unwrap();
    symlink(&outside, super::side::side_path(first)).unwrap();
    std::fs::remove_file(super::side::side_path(second)).unwrap();
    let fifo = std::ffi::CString::new(super::side::side_path(second).to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-ended path; mkfifo only creates a file.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    let a = Archive::open(&folder, "crawl", 1500, Vec::new()).unwrap();
    drop(a);
    assert_eq!(
        std::fs::read_to_string(&outside).unwrap(),
        "not the archive's"
    );
    for f in &finished {
        let side = super::side::side_path(f);
        assert!(std::fs::symlink_metadata(&side).unwrap().is_file());
        let len = std::fs::metadata(f).unwrap().len();
        assert_eq!(super::side::each_line(&side, |_, _, _| {}), Some(len));
    }
    // A side index that lies: it says the payload of "never archived" is at the first file's
    // response, ended with the file's true length. The record there holds another payload, so
    // the body is archived whole, not as a revisit of a record that is not it.
    let mut at = Vec::new();
    super::side::each_line(&super::side::side_path(first), |o, _, l| {
        at.push((o, l.to_owned()))
    });
    let liar = super::record::sha1_digest(b"never archived");
    let mut w = super::side::SideWriter::create(&super::side::side_path(first)).unwrap();
    w.line(at[0].0, Some(&liar), &at[0].1).unwrap();
    w.finish(std::fs::metadata(first).unwrap().len()).unwrap();
    // A line of two megabytes and no line end in the second's: not read, the file scanned.
    {
        use std::io::Write as _;
        let f = std::fs::File::create(super::side::side_path(second)).unwrap();
        let mut gz = flate2::write::GzEncoder::new(f, flate2::Compression::fast());
        gz.write_all(b"rccrawler-side 1\n").unwrap();
        gz.write_all(&vec![b'7'; 2 << 20]).unwrap();
        gz.finish().unwrap();
    }
    let a = Archive::open(&folder, "crawl", 1500, Vec::new()).unwrap();
    exchange(&a, "http://a.test/c", "never archived", &[]);
    exchange(&a, "http://a.test/d", "first body", &[]);
    a.close().unwrap();
    let all = records_with_offsets(&folder);
    let kind_of = |url: &str| {
        all.iter()
            .filter(|(_, _, _, r)| r.field("WARC-Target-URI") == Some(url))
            .filter_map(|(_, _, _, r)| r.field("WARC-Type").map(str::to_owned))
            .find(|k| k == "response" || k == "revisit")
    };
    assert_eq!(kind_of("http://a.test/c").as_deref(), Some("response"));
    // The second file's side index was rewritten from a scan: /b's payload is still found.
    assert_eq!(kind_of("http://a.test/d").as_deref(), Some("revisit"));
}

// See: issue 69 item 1 — the first record of a payload is read back when a repeat names it: a
// file removed since (by hand, or lost) makes the repeat a whole response, never a failure
// that stops the crawl, and the folder's index leaves the removed file out.
#[test]
fn a_repeat_of_a_payload_whose_file_is_gone_is_archived_whole() {
    let dir = tempfile::tempdir().unwrap();
    let a = Archive::open(dir.path(), "crawl", 1500, Vec::new()).unwrap();
    exchange(&a, "http://a.test/", "first body", &[]);
    exchange(&a, "http://a.test/b", "another body", &[]);
    a.close().unwrap();
    let mut finished: Vec<std::path::PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".warc.gz"))
        .collect();
    finished.sort();
    let a = Archive::open(dir.path(), "crawl", 1500, Vec::new()).unwrap();
    // Removed while the crawl runs: the table still names it.
    std::fs::remove_file(&finished[0]).unwrap();
    exchange(&a, "http://a.test/c", "first body", &[]);
    a.close().unwrap();
    let all = records_with_offsets(dir.path());
    let c = all
        .iter()
        .find(|(_, _, _, r)| {
            r.field("WARC-Target-URI") == Some("http://a.test/c")
                && r.field("WARC-Type") != Some("request")
                && r.field("WARC-Type") != Some("metadata")
        })
        .unwrap();
    assert_eq!(c.3.field("WARC-Type"), Some("response"));
    let index = std::fs::read_to_string(dir.path().join(INDEX_FILE)).unwrap();
    let gone = finished[0].file_name().unwrap().to_str().unwrap();
    assert!(!index.contains(gone), "{index}");
    assert_eq!(index.lines().collect::<Vec<_>>(), scanned_index(dir.path()));
}

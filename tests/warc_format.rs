//! WARC files as the web archives' own tools read them (SPEC §15): an archive written through
//! rccrawler's writer — rotated files, revisits, a file cut after a torn tail and continued —
//! passes `warcio check` (every record's block and payload digest verified), and `warcio
//! index` finds every record where rccrawler's CDXJ index says it is. warcio (the Python
//! library) is installed by .ci/run into a virtual environment it names in RCCRAWLER_WARCIO;
//! outside CI, a `warcio` on the PATH is used, or the check is left out with a message.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::path::Path;
use std::time::SystemTime;

use common::warcio;
use rccrawler::formats::warc::record::head_len;
use rccrawler::formats::warc::{Archive, Exchange, PageFacts};

fn write_archive(dir: &Path) {
    let info = vec![("hosts".to_owned(), "http://a.test;2;3;100".to_owned())];
    let a = Archive::open(dir, "crawl", 4000, info.clone()).unwrap();
    for i in 0..12u32 {
        let url = format!("http://a.test/p{i}");
        // Every third body repeats the first: revisits.
        let body = if i % 3 == 0 {
            "<p>repeated</p>".to_owned()
        } else {
            format!("<p>page {i} {}</p>", "x".repeat(300 * i as usize))
        };
        let response = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let request = format!("GET /p{i} HTTP/1.1\r\nHost: a.test\r\n\r\n");
        let link = format!("http://a.test/p{}", i + 1);
        let links = [link.as_str()];
        a.exchange(
            &Exchange {
                url: &url,
                date: SystemTime::now(),
                request: request.as_bytes(),
                head: &response.as_bytes()[..head_len(response.as_bytes())],
                body: &response.as_bytes()[head_len(response.as_bytes())..],
                truncated: None,
                error: None,
                not_modified: None,
            },
            Some(&PageFacts {
                level: Some(i),
                outlinks: &links,
            }),
        )
        .unwrap();
        if i == 5 {
            // A process killed here: the next one continues the open file.
            drop(a);
            let a2 = Archive::open(dir, "crawl", 4000, info.clone()).unwrap();
            return continue_archive(a2, dir);
        }
    }
    a.close().unwrap();
}

fn continue_archive(a: Archive, _dir: &Path) {
    for i in 6..12u32 {
        let url = format!("http://a.test/q{i}");
        let body = if i % 2 == 0 {
            "<p>repeated</p>".to_owned()
        } else {
            format!("<p>q{i}</p>")
        };
        let response = format!("HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\n\r\n{body}");
        let request = format!("GET /q{i} HTTP/1.1\r\nHost: a.test\r\n\r\n");
        a.exchange(
            &Exchange {
                url: &url,
                date: SystemTime::now(),
                request: request.as_bytes(),
                head: &response.as_bytes()[..head_len(response.as_bytes())],
                body: &response.as_bytes()[head_len(response.as_bytes())..],
                truncated: None,
                error: None,
                not_modified: None,
            },
            None,
        )
        .unwrap();
    }
    a.close().unwrap();
}

#[test]
fn warcio_checks_the_archive_and_finds_every_record_where_the_index_says() {
    let dir = tempfile::tempdir().unwrap();
    write_archive(dir.path());
    let files = warcio::files(dir.path());
    assert!(files.len() >= 3, "rotated at 4,000 bytes: {files:?}");
    let index = std::fs::read_to_string(dir.path().join("index.cdxj")).unwrap();
    // 12 pages + 6 after the continue; responses and revisits only.
    assert_eq!(index.lines().count(), 12, "{index}");
    let Some(warcio) = warcio::program() else {
        return;
    };
    for f in &files {
        warcio::check(&warcio, dir.path(), f);
    }
    // warcio's own index: the same (file, offset, length) for every response and revisit.
    let mut theirs = Vec::new();
    for f in &files {
        let fields = "warc-type,warc-target-uri,offset,length";
        for v in warcio::index(&warcio, dir.path(), f, fields) {
            let kind = v["warc-type"].as_str().unwrap();
            if kind == "response" || kind == "revisit" {
                theirs.push((
                    f.clone(),
                    v["warc-target-uri"].as_str().unwrap().to_owned(),
                    v["offset"].as_str().unwrap().to_owned(),
                    v["length"].as_str().unwrap().to_owned(),
                ));
            }
        }
    }
    let mut ours: Vec<_> = index
        .lines()
        .map(|l| {
            let json: serde_json::Value = serde_json::from_str(&l[l.find('{').unwrap()..]).unwrap();
            (
                json["filename"].as_str().unwrap().to_owned(),
                json["url"].as_str().unwrap().to_owned(),
                json["offset"].as_str().unwrap().to_owned(),
                json["length"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    ours.sort();
    theirs.sort();
    assert_eq!(ours, theirs);
}

//! The parse-only bound of the benchmark (`bench/run.sh`): the same pages, already in memory,
//! decoded, their links extracted, resolved and normalized on all the given threads, with no
//! graph and no I/O. With `cached`, links are normalized through the parser threads' href
//! cache as in the crawler; without, every link is resolved and normalized from scratch.
//!
//! usage: parse_only SITE_DIR BASE_URL THREADS [cached]   → prints "seconds pages links bytes"

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use rccrawler::parse::href_cache::{self, HrefCache};
use rccrawler::parse::{charset, links};
use rccrawler::url_norm;

fn html_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        if p.is_dir() {
            html_files(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "html") {
            out.push(p);
        }
    }
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    anyhow::ensure!(
        args.len() == 4 || (args.len() == 5 && args[4] == "cached"),
        "usage: parse_only SITE_DIR BASE_URL THREADS [cached]"
    );
    let cached = args.len() == 5;
    let root = PathBuf::from(&args[1]);
    let base = url::Url::parse(&args[2])?;
    let threads: usize = args[3].parse()?;
    let mut files = Vec::new();
    html_files(&root, &mut files)?;
    // Everything in memory first: only parsing is timed.
    let pages: Vec<(url::Url, Vec<u8>)> = files
        .iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&root)
                .expect("under the root")
                .to_string_lossy()
                .replace('\\', "/");
            Ok((base.join(&rel)?, std::fs::read(p)?))
        })
        .collect::<anyhow::Result<_>>()?;
    let bytes: usize = pages.iter().map(|p| p.1.len()).sum();
    let next = AtomicUsize::new(0);
    let found = AtomicUsize::new(0);
    let started = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let mut n = 0;
                let mut cache = HrefCache::new(2048, href_cache::DEFAULT_ENTRIES);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((url, body)) = pages.get(i) else {
                        break;
                    };
                    let (text, _) = charset::decode(body, Some("text/html"), None);
                    let extracted = links::extract(&text);
                    let _hash = xxhash_rust::xxh3::xxh3_128(body);
                    for l in extracted.links() {
                        let normalized = if cached {
                            cache.normalize(url, l.href)
                        } else {
                            url_norm::normalize_with_limit(url, l.href, 2048)
                        };
                        if normalized.is_ok() {
                            n += 1;
                        }
                    }
                }
                found.fetch_add(n, Ordering::Relaxed);
                if cached {
                    let (hits, misses) = cache.stats();
                    eprintln!("href cache: {hits} hits, {misses} misses");
                }
            });
        }
    });
    println!(
        "{:.3} {} {} {}",
        started.elapsed().as_secs_f64(),
        pages.len(),
        found.load(Ordering::Relaxed),
        bytes
    );
    Ok(())
}

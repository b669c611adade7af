//! The parse-only bound of the benchmark (`bench/run.sh`): the same pages, already in memory,
//! decoded, their links extracted, resolved and normalized on all the given threads, with no
//! graph and no I/O. With `cached`, links are normalized through the parser threads' href
//! cache as in the crawler; without, every link is resolved and normalized from scratch.
//! With a URL list (the benchmark passes the URLs the crawl requested), only the files those
//! URLs name are parsed — the pages the crawl parsed; without one, every `.html` file under
//! SITE_DIR (a folder can hold pages no link reaches: the Rust documentation has 17,000 of
//! them, which the bound would otherwise parse on top of the crawl's 31,564).
//!
//! usage: parse_only SITE_DIR BASE_URL THREADS [cached|fresh] [URL_LIST]
//!        → prints "seconds pages links bytes"

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use rccrawler::crawl::parse::href_cache::{self, HrefCache};
use rccrawler::crawl::parse::{charset, links};
use rccrawler::model::url_norm;

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

/// The `.html` files under `root` that the URLs of `list` (one a line) name below `base`, each
/// once: a path ending in `/` names its folder's `index.html`; robots.txt, redirects to
/// folders and anything outside `base` name no page.
fn listed_files(root: &Path, base: &url::Url, list: &str, out: &mut Vec<PathBuf>) {
    let mut seen = std::collections::HashSet::new();
    for line in list.lines() {
        let Some(rel) = line.trim().strip_prefix(base.as_str()) else {
            continue;
        };
        let rel = rel.split(['?', '#']).next().unwrap_or_default();
        // File names hold the characters a URL path escapes.
        let Ok(rel) = percent_encoding::percent_decode_str(rel).decode_utf8() else {
            continue;
        };
        let mut path = root.join(rel.as_ref());
        if rel.is_empty() || rel.ends_with('/') {
            path.push("index.html");
        }
        if path.extension().is_some_and(|x| x == "html")
            && path.is_file()
            && seen.insert(path.clone())
        {
            out.push(path);
        }
    }
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    anyhow::ensure!(
        (4..=6).contains(&args.len()) && args.get(4).is_none_or(|m| m == "cached" || m == "fresh"),
        "usage: parse_only SITE_DIR BASE_URL THREADS [cached|fresh] [URL_LIST]"
    );
    let cached = args.get(4).is_some_and(|m| m == "cached");
    let root = PathBuf::from(&args[1]);
    let base = url::Url::parse(&args[2])?;
    let threads: usize = args[3].parse()?;
    let mut files = Vec::new();
    match args.get(5) {
        Some(list) => listed_files(&root, &base, &std::fs::read_to_string(list)?, &mut files),
        None => html_files(&root, &mut files)?,
    }
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
                let mut cache = HrefCache::new(
                    2048,
                    href_cache::DEFAULT_ENTRIES,
                    // Not used: the bound normalizes links without the URL rules.
                    rccrawler::Settings::defaults(Path::new("."))
                        .sites
                        .rule_limits(),
                );
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

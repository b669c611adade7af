//! The cost of the fold digests (SPEC §14) beside link extraction, on one thread: every
//! `.html` file under SITE_DIR (up to LIMIT) in memory, extracted, then digested.
//!
//! usage: digest_only SITE_DIR [LIMIT] → prints "files bytes extract_seconds digest_seconds
//! gated_pages gated_seconds": the digests of every page, then only of the pages the parser
//! digests in full on a site not known to change per response (the rest cost a search).

use std::path::{Path, PathBuf};
use std::time::Instant;

use rccrawler::crawl::parse::links;
use rccrawler::model::fold::{SiteRules, digest};

fn html_files(dir: &Path, out: &mut Vec<PathBuf>, limit: usize) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        if out.len() >= limit {
            return Ok(());
        }
        let p = e?.path();
        if p.is_dir() {
            html_files(&p, out, limit)?;
        } else if p.extension().is_some_and(|x| x == "html") {
            out.push(p);
        }
    }
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(
        args.next()
            .ok_or_else(|| anyhow::anyhow!("usage: digest_only SITE_DIR [LIMIT]"))?,
    );
    let limit: usize = args.next().map_or(Ok(usize::MAX), |l| l.parse())?;
    let mut files = Vec::new();
    html_files(&dir, &mut files, limit)?;
    let pages: Vec<(String, url::Url)> = files
        .iter()
        .filter_map(|f| {
            let text = std::fs::read_to_string(f).ok()?;
            let rel = f.strip_prefix(&dir).ok()?.to_string_lossy().into_owned();
            Some((
                text,
                url::Url::parse(&format!("http://127.0.0.1/{rel}")).ok()?,
            ))
        })
        .collect();
    let bytes: usize = pages.iter().map(|(t, _)| t.len()).sum();
    let started = Instant::now();
    let mut extracted = links::Extracted::default();
    for (text, _) in &pages {
        links::extract_into(text, &mut extracted, links::Wanted::default());
    }
    let extract = started.elapsed().as_secs_f64();
    // The gate alone (extraction's results kept per page), then the digests it lets through.
    let mut gates = Vec::with_capacity(pages.len());
    let mut gate_s = 0.0;
    for (text, url) in &pages {
        links::extract_into(text, &mut extracted, links::Wanted::default());
        let started = Instant::now();
        let full = rccrawler::model::fold::needs_full_digest(
            text,
            url,
            extracted.per_request_signs,
            extracted.links().map(|l| l.href),
        );
        gate_s += started.elapsed().as_secs_f64();
        gates.push(full);
    }
    let started = Instant::now();
    let mut gated = 0;
    for ((text, url), full) in pages.iter().zip(&gates) {
        if *full {
            gated += 1;
            let _ = digest(text, url, &SiteRules::default());
        }
    }
    let gated_s = started.elapsed().as_secs_f64() + gate_s;
    let rules = SiteRules::default();
    let started = Instant::now();
    let mut x = 0u64;
    for (text, url) in &pages {
        x ^= digest(text, url, &rules).request;
    }
    let digest_s = started.elapsed().as_secs_f64();
    println!(
        "{} {bytes} {extract:.3} {digest_s:.3} {gated} {gated_s:.3} ({x:x})",
        pages.len()
    );
    Ok(())
}

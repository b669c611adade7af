//! The fetch-only bound of the benchmark (`bench/run.sh`): fetches every URL of a list with
//! the crawler's own HTTP client (same timeouts, keep-alive, decompression) at a given
//! concurrency, reading whole bodies, and does nothing else.
//!
//! usage: fetch_only URL_LIST THREADS   → prints "seconds requests bytes"

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use rccrawler::Settings;
use rccrawler::base::ids::SiteId;
use rccrawler::base::stop::Stop;
use rccrawler::crawl::fetch::HttpClient;
use rccrawler::crawl::fetch::Pacer;
use rccrawler::model::url_norm::NormUrl;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    anyhow::ensure!(args.len() == 3, "usage: fetch_only URL_LIST THREADS");
    let urls: Vec<NormUrl> = std::fs::read_to_string(&args[1])?
        .lines()
        .filter_map(|l| NormUrl::parse(l.trim()).ok())
        .collect();
    let threads: usize = args[2].parse()?;
    let client = HttpClient::new(&Settings::defaults(std::path::Path::new(".")))?;
    // A site without a delay: its turns never wait, as in a crawl of the same site.
    let pacer = Arc::new(Pacer::default());
    let stop = Stop::new();
    let next = AtomicUsize::new(0);
    let bytes = AtomicUsize::new(0);
    let started = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(url) = urls.get(i) else { break };
                    let Some(turn) = pacer.turn(&stop) else { break };
                    if let Ok(resp) =
                        client.get(SiteId(0), threads as u32, url, &turn, (None, None))
                        && let Ok(body) = resp.read_body(1 << 30)
                    {
                        bytes.fetch_add(body.len(), Ordering::Relaxed);
                    }
                }
            });
        }
    });
    println!(
        "{:.3} {} {}",
        started.elapsed().as_secs_f64(),
        urls.len(),
        bytes.load(Ordering::Relaxed)
    );
    Ok(())
}

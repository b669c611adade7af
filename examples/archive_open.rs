//! What a continued crawl's opening of its archive costs (issue 69 item 1): archive folder
//! FOLDER opened as the crawl opens it, with its side indexes, then with them set aside (as an
//! archive of an earlier version, every file scanned), ROUNDS times each, alternately.
//!
//! usage: archive_open FOLDER [ROUNDS] → prints "sides SECONDS" and "scan SECONDS" a round.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rccrawler::formats::warc::Archive;
use rccrawler::formats::warc::side::SIDE;

fn sides(folder: &Path) -> std::io::Result<Vec<PathBuf>> {
    Ok(std::fs::read_dir(folder)?
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.to_string_lossy().ends_with(SIDE))
        .collect())
}

fn timed_open(folder: &Path) -> anyhow::Result<f64> {
    let t = Instant::now();
    let archive = Archive::open(folder, "rccrawler", u64::MAX, Vec::new())?;
    let s = t.elapsed().as_secs_f64();
    drop(archive);
    Ok(s)
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let folder = PathBuf::from(
        args.next()
            .ok_or_else(|| anyhow::anyhow!("usage: archive_open FOLDER [ROUNDS]"))?,
    );
    let rounds: u32 = args.next().map_or(Ok(3), |r| r.parse())?;
    let aside = folder.join("sides-aside");
    for _ in 0..rounds {
        println!("sides {:.3}", timed_open(&folder)?);
        // Set aside, the files are scanned and their side indexes written again.
        std::fs::create_dir_all(&aside)?;
        for s in sides(&folder)? {
            std::fs::rename(&s, aside.join(s.file_name().unwrap_or_default()))?;
        }
        println!("scan {:.3}", timed_open(&folder)?);
        std::fs::remove_dir_all(&aside)?;
    }
    Ok(())
}

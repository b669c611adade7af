//! The allocator's one setting rccrawler changes: glibc's mmap threshold, held at 512 KiB.
//!
//! glibc serves a block above its mmap threshold (128 KiB at start) with its own `mmap`,
//! returned to the system when freed — but each time such a block is freed it raises the
//! threshold to that block's size (up to 32 MiB), after which big blocks come from the heap
//! and stay there when freed, between smaller live ones. A crawl of thousands of sites frees
//! every finished site's big vectors and maps, so the heap grew with the sites crawled, not
//! with the sites being crawled. Measured with `bench/many_sites.sh` on a held-out web
//! (SEED=29, TEMPLATES=20, two rounds each), peak RSS 500 → 4,000 sites: 30.6–31.0 →
//! 39.2–41.0 MB with glibc's moving threshold; held at 64 KiB 26.8 → 33.8–34.1 MB, at
//! 128 KiB 28.3–28.7 → 35.7 MB, at 512 KiB 28.8–29.9 → 36.4–36.7 MB; pages/s unchanged.
//! On the Rust documentation (pages up to megabytes, 7 alternating pairs of crawls, the
//! same binary with `MALLOC_MMAP_THRESHOLD_`) each mapped page body costs page faults:
//! median time 1.041× at 128 KiB, 1.024× at 512 KiB, for peak RSS 157 → 117–125 MB.

/// Holds glibc's mmap threshold at 512 KiB (a no-op elsewhere). Call once, first thing.
pub fn hold_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        const THRESHOLD: libc::c_int = 512 * 1024;
        // SAFETY: mallopt only sets an allocator parameter; it is called before any other
        // thread exists, and its failure (0) leaves glibc's default, which is correct too.
        let _ = unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, THRESHOLD) };
    }
}

/// Returns the heap's free memory to the system (glibc's `malloc_trim`; a no-op elsewhere): a
/// process that lives on after one large piece of work (a PDF reader after a large PDF) does
/// not keep that work's peak.
pub fn give_back_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: malloc_trim only releases free memory of the allocator's own heaps; it has
        // no precondition and its result (whether memory was released) does not matter.
        let _ = unsafe { libc::malloc_trim(0) };
    }
}

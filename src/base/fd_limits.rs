//! How many files the crawl may hold open: the soft limit on open files, raised to the hard
//! one (up to 16,384), shared between idle keep-alive connections and the downloaders'
//! connections in use. Read by settings (the automatic downloader cap) and by the connection
//! pools, so it lives below both.

/// Open files kept for everything but idle connections: connections in use, state and log
/// files, result files being written.
const OTHER_FILES: u64 = 256;

/// Idle keep-alive connections all pools together may hold. The soft limit on open files is
/// raised to the hard one first (up to 16,384; the usual soft default of 1,024 is too few for a
/// crawl of hundreds of sites), and idle connections get what the other files leave, at
/// most 4,096.
pub(crate) fn idle_connection_budget() -> usize {
    let soft = rlimit::increase_nofile_limit(16_384).unwrap_or(1024);
    (soft.saturating_sub(OTHER_FILES) / 2).clamp(64, 4096) as usize
}

/// The most downloader threads when their number is automatic: each may hold a connection
/// in use besides the idle ones, so the two share what the open-file limit leaves; at most
/// 4,096 (a thread's stack and a connection's buffers are about 100 KiB touched).
pub(crate) fn downloader_cap() -> usize {
    static CAP: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CAP.get_or_init(|| {
        let soft = rlimit::increase_nofile_limit(16_384).unwrap_or(1024);
        (soft.saturating_sub(OTHER_FILES) / 2).clamp(16, 4096) as usize
    })
}

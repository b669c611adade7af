//! Whether the machine's processors have time to spare: what decides whether more
//! downloaders or more open sites can make a crawl faster (SPEC §11). When the processors are
//! saturated the crawl is bound by the CPU, and more threads or sites would only add
//! contention and memory; when they idle while downloads wait, the crawl is bound by its
//! sites' answers or their politeness. The whole machine is measured, not this process: a
//! local server, or another program, takes the same processors.

/// Idle below this fraction of the processors' time: they are saturated.
pub(crate) const SATURATED_BELOW: f64 = 0.25;

/// Weight of the newest period in the smoothed idle fraction [`CpuIdle::spare`] decides on.
/// Its callers look every 100 ms, so it follows about the last half-second: one period of idle
/// processors among busy ones (a result file being synced, another program pausing) is not
/// time to spare. Deciding on single periods, a crawl of 4,000 fast sites grew from 8 to 15
/// downloaders in some runs and not in others, and its peak memory with them (issue 18).
const SMOOTHING: f64 = 0.2;

/// Reads the machine's processor time, to tell idle fractions between two reads.
#[derive(Debug, Default)]
pub(crate) struct CpuIdle {
    last: Option<Jiffies>,
    /// The idle fraction smoothed over the periods measured; `None` before the first.
    smoothed: Option<f64>,
}

#[derive(Debug, Clone, Copy)]
struct Jiffies {
    idle: u64,
    total: u64,
}

impl CpuIdle {
    /// Starts measuring now.
    pub(crate) fn new() -> Self {
        CpuIdle {
            last: read(),
            smoothed: None,
        }
    }

    /// The fraction of processor time idle since the last call (or since [`Self::new`]);
    /// `None` where the machine does not say (not Linux) or no time has passed.
    pub(crate) fn idle_fraction(&mut self) -> Option<f64> {
        let now = read()?;
        let last = self.last.replace(now)?;
        let total = now.total.checked_sub(last.total)?;
        let idle = now.idle.checked_sub(last.idle)?;
        (total > 0).then(|| idle as f64 / total as f64)
    }

    /// Whether the processors have had time to spare lately: the idle fraction of each period
    /// between calls, smoothed (starting from busy), at least [`SATURATED_BELOW`]. Unknown
    /// counts as yes: the other signals decide alone.
    pub(crate) fn spare(&mut self) -> bool {
        let f = self.idle_fraction();
        self.smooth(f)
    }

    /// Adds a period's idle fraction (if known) to the smoothed one; whether it is spare.
    fn smooth(&mut self, idle: Option<f64>) -> bool {
        if let Some(f) = idle {
            let s = self.smoothed.unwrap_or(0.0);
            self.smoothed = Some(s + SMOOTHING * (f - s));
        }
        self.smoothed.is_none_or(|s| s >= SATURATED_BELOW)
    }
}

/// The first line of /proc/stat: `cpu user nice system idle iowait irq softirq steal …`.
fn read() -> Option<Jiffies> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    parse(text.lines().next()?)
}

fn parse(line: &str) -> Option<Jiffies> {
    let mut fields = line.split_whitespace();
    if fields.next()? != "cpu" {
        return None;
    }
    let v: Vec<u64> = fields
        .take(8)
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    if v.len() < 5 {
        return None;
    }
    Some(Jiffies {
        idle: v[3] + v[4],
        total: v.iter().sum(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_is_idle_plus_iowait_over_every_field() {
        let a = parse("cpu  100 0 50 800 50 0 0 0 0 0").unwrap();
        let b = parse("cpu  350 0 100 900 50 0 0 0 0 0").unwrap();
        assert_eq!((a.idle, a.total), (850, 1000));
        let idle = (b.idle - a.idle) as f64 / (b.total - a.total) as f64;
        assert!((idle - 0.25).abs() < 1e-9, "{idle}");
        assert!(parse("intr 1 2 3").is_none());
    }

    #[test]
    fn one_idle_period_among_busy_ones_is_not_time_to_spare_but_a_lasting_one_is() {
        let mut cpu = CpuIdle::default();
        assert!(cpu.smooth(None), "unknown counts as spare");
        for _ in 0..20 {
            assert!(!cpu.smooth(Some(0.05)), "saturated");
        }
        assert!(!cpu.smooth(Some(1.0)), "one idle blip");
        assert!(!cpu.smooth(Some(0.05)));
        // Idle processors for good (downloads waiting on slow servers): spare within three
        // periods, and from the start (smoothing starts from busy) within two.
        let n = (1..=5)
            .find(|_| cpu.smooth(Some(1.0)))
            .expect("spare at last");
        assert!(n <= 3, "{n} periods");
        let mut fresh = CpuIdle::default();
        let n = (1..=5)
            .find(|_| fresh.smooth(Some(0.9)))
            .expect("spare at last");
        assert!(n <= 2, "{n} periods");
    }

    #[test]
    fn a_busy_loop_is_seen_on_this_machine() {
        let mut cpu = CpuIdle::new();
        if cpu.last.is_none() {
            return; // not Linux
        }
        // One core busy for 300 ms: at most the other cores idle (more load elsewhere only
        // lowers it), within the 10 ms ticks the kernel counts in.
        let cores = std::thread::available_parallelism().map_or(1, usize::from) as f64;
        let until = std::time::Instant::now() + std::time::Duration::from_millis(300);
        while std::time::Instant::now() < until {
            std::hint::black_box(0u64);
        }
        let f = cpu.idle_fraction().expect("time passed");
        assert!((0.0..=1.0 - 1.0 / cores + 0.15).contains(&f), "{f}");
    }
}

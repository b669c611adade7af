//! What is worth trying again, and when: timeouts and broken connections, 408, 429 and the
//! 5xx answers a busy or restarting server gives. The back-off doubles with each retry, or
//! follows the server's `Retry-After` (seconds or an HTTP date), capped by settings.

use std::time::{Duration, SystemTime};

/// A failure that may pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transient {
    /// What the server asked for (`Retry-After`), if anything.
    pub retry_after: Option<Duration>,
    /// The connection itself failed (refused, timeout, broken, no such host): counts towards
    /// declaring the site down.
    pub transport: bool,
    /// The server said it is overloaded (429, 503, or any `Retry-After`): the whole site
    /// backs off, not only this URL.
    pub overload: bool,
}

impl Transient {
    /// The connection failed (refused, timeout, broken, no such host).
    pub fn transport() -> Self {
        Transient {
            retry_after: None,
            transport: true,
            overload: false,
        }
    }

    /// A transient status (see [`is_transient_status`]) with its `Retry-After` header, if
    /// any, read at `now`: 429, 503 or any `Retry-After` say the server is overloaded.
    pub fn status(status: u16, retry_after: Option<&str>, now: SystemTime) -> Self {
        let retry_after = retry_after.and_then(|v| parse_retry_after(v, now));
        Transient {
            overload: status == 429 || status == 503 || retry_after.is_some(),
            retry_after,
            transport: false,
        }
    }
}

/// Whether a status is worth retrying.
pub fn is_transient_status(status: u16) -> bool {
    matches!(status, 408 | 429 | 500 | 502 | 503 | 504)
}

/// A `Retry-After` value: delay-seconds or an HTTP date.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let v = value.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = httpdate::parse_http_date(v).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// The wait before retry number `n` (1-based): `base` doubled with each retry, or the
/// server's `Retry-After`; never more than `cap` (`MaxRetryAfterSeconds`). Without the cap on
/// the doubling, `MaxRetries = 20` with the default base waited 18 hours before its last try.
pub fn back_off(n: u32, base: Duration, retry_after: Option<Duration>, cap: Duration) -> Duration {
    match retry_after {
        Some(d) => d,
        None => base.saturating_mul(1u32 << n.saturating_sub(1).min(16)),
    }
    .min(cap)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_forms() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        assert_eq!(
            parse_retry_after(" 120 ", now),
            Some(Duration::from_secs(120))
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:50:07 GMT", now),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:00:00 GMT", now),
            Some(Duration::ZERO),
            "a date in the past"
        );
        assert_eq!(parse_retry_after("soon", now), None);
    }

    #[test]
    fn what_a_status_or_a_broken_connection_says() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        let busy = Transient::status(503, None, now);
        assert!(busy.overload && !busy.transport && busy.retry_after.is_none());
        let timeout = Transient::status(504, None, now);
        assert!(!timeout.overload, "a gateway timeout alone is not overload");
        let asked = Transient::status(500, Some("7"), now);
        assert!(asked.overload);
        assert_eq!(asked.retry_after, Some(Duration::from_secs(7)));
        let t = Transient::transport();
        assert!(t.transport && !t.overload && t.retry_after.is_none());
    }

    #[test]
    fn exponential_back_off_and_cap() {
        let base = Duration::from_millis(100);
        let cap = Duration::from_secs(60);
        assert_eq!(back_off(1, base, None, cap), Duration::from_millis(100));
        assert_eq!(back_off(3, base, None, cap), Duration::from_millis(400));
        assert_eq!(back_off(1, base, Some(Duration::from_secs(600)), cap), cap);
        assert_eq!(
            back_off(12, base, None, cap),
            cap,
            "the doubling is capped too"
        );
    }

    // See: issue 44 — every wait that grows by itself has a stated bound.
    #[test]
    fn an_hour_of_retries_never_waits_past_the_cap() {
        let cap = Duration::from_secs(120);
        for base in [
            Duration::ZERO,
            Duration::from_secs(1),
            Duration::from_secs(600),
        ] {
            let mut last = Duration::ZERO;
            for n in 0..36_000u32 {
                let wait = back_off(n, base, None, cap);
                assert!(
                    wait <= cap && wait >= last.min(cap),
                    "{base:?} {n}: {wait:?}"
                );
                last = wait;
            }
        }
    }
}

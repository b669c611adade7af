//! Why a request failed ([`FetchError`]): the transport's failures as the walks and the bad
//! links name them, made from ureq's and the socket's errors, and as the archive records them
//! (SPEC §15) so that a rebuild fails the same way.

use thiserror::Error;

/// A transport-level failure. The `Display` text is the bad-link reason.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FetchError {
    /// Connect or overall request timeout.
    #[error("timeout")]
    Timeout,
    /// The host name did not resolve.
    #[error("host not found")]
    HostNotFound,
    /// Nobody listens there.
    #[error("connection refused")]
    Refused,
    /// The connection broke mid-way (reset, closed early, truncated body).
    #[error("connection broken ({0})")]
    Broken(String),
    /// The body passed `MaxPageBytes` (after decompression).
    #[error("too large (over {0} bytes)")]
    TooLarge(u64),
    /// The response was not valid HTTP or its compression was corrupt.
    #[error("bad response ({0})")]
    BadResponse(String),
    /// HTTPS could not be set up: the server's certificate is not trusted for this host.
    #[error("{0}")]
    Tls(String),
    /// The crawl is stopping: the request was abandoned (its URL is fetched again later).
    #[error("abandoned (the crawl is stopping)")]
    Abandoned,
    /// Anything else.
    #[error("fetch failed ({0})")]
    Other(String),
}

impl FetchError {
    /// Whether trying again later could help: timeouts, broken or refused connections, and
    /// a host not found (a resolver that failed for a moment looks the same).
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            FetchError::Timeout
                | FetchError::Broken(_)
                | FetchError::Refused
                | FetchError::HostNotFound
        )
    }
}

impl FetchError {
    /// The failure as the archive records it (SPEC §15): a kind and its detail.
    pub(crate) fn archived(&self) -> (&'static str, String) {
        match self {
            FetchError::Timeout => ("timeout", String::new()),
            FetchError::HostNotFound => ("host-not-found", String::new()),
            FetchError::Refused => ("refused", String::new()),
            FetchError::Broken(d) => ("broken", d.clone()),
            FetchError::TooLarge(n) => ("too-large", n.to_string()),
            FetchError::BadResponse(d) => ("bad-response", d.clone()),
            FetchError::Tls(d) => ("tls", d.clone()),
            FetchError::Abandoned => ("abandoned", String::new()),
            FetchError::Other(d) => ("other", d.clone()),
        }
    }

    /// The failure an archive recorded ([`Self::archived`]), for a rebuild.
    pub(crate) fn from_archived(kind: &str, detail: &str) -> FetchError {
        match kind {
            "timeout" => FetchError::Timeout,
            "host-not-found" => FetchError::HostNotFound,
            "refused" => FetchError::Refused,
            "broken" => FetchError::Broken(detail.to_owned()),
            "too-large" => FetchError::TooLarge(detail.parse().unwrap_or(0)),
            "bad-response" => FetchError::BadResponse(detail.to_owned()),
            "tls" => FetchError::Tls(detail.to_owned()),
            "abandoned" => FetchError::Abandoned,
            _ => FetchError::Other(detail.to_owned()),
        }
    }

    /// `WARC-Truncated` for a body this failure cut (WARC 1.1 §5.13).
    pub(crate) fn truncation(&self) -> &'static str {
        match self {
            FetchError::TooLarge(_) => "length",
            FetchError::Timeout => "time",
            FetchError::Broken(_) => "disconnect",
            _ => "unspecified",
        }
    }
}

/// A bad-link reason for a TLS failure that says what a user can act on.
pub(super) fn tls_reason(e: &rustls::Error) -> String {
    use rustls::CertificateError as C;
    match e {
        rustls::Error::InvalidCertificate(c) => match c {
            C::NotValidForName | C::NotValidForNameContext { .. } => {
                "certificate not valid for this host name".into()
            }
            C::Expired | C::ExpiredContext { .. } => "certificate expired".into(),
            C::NotValidYet | C::NotValidYetContext { .. } => "certificate not valid yet".into(),
            C::UnknownIssuer => {
                "certificate from an unknown issuer (a private CA? see CaFile)".into()
            }
            C::Revoked => "certificate revoked".into(),
            C::BadSignature => "certificate with a bad signature".into(),
            other => format!("certificate rejected ({other:?})"),
        },
        other => format!("TLS error ({other})"),
    }
}

impl From<ureq::Error> for FetchError {
    fn from(e: ureq::Error) -> Self {
        use std::io::ErrorKind;
        if let ureq::Error::Io(io) = &e {
            if let Some(tls) = io
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<rustls::Error>())
            {
                return FetchError::Tls(tls_reason(tls));
            }
            if io
                .get_ref()
                .is_some_and(|inner| inner.is::<super::paced::Abandoned>())
            {
                return FetchError::Abandoned;
            }
        }
        match e {
            ureq::Error::Rustls(tls) => FetchError::Tls(tls_reason(&tls)),
            ureq::Error::Tls(what) => FetchError::Tls(format!("TLS error ({what})")),
            ureq::Error::Timeout(_) => FetchError::Timeout,
            ureq::Error::HostNotFound => FetchError::HostNotFound,
            ureq::Error::ConnectionFailed => FetchError::Refused,
            ureq::Error::BodyExceedsLimit(n) => FetchError::TooLarge(n),
            ureq::Error::Io(io) => match io.kind() {
                ErrorKind::ConnectionRefused => FetchError::Refused,
                ErrorKind::TimedOut | ErrorKind::WouldBlock => FetchError::Timeout,
                ErrorKind::ConnectionReset
                | ErrorKind::ConnectionAborted
                | ErrorKind::UnexpectedEof
                | ErrorKind::BrokenPipe => FetchError::Broken(io.to_string()),
                ErrorKind::InvalidData => FetchError::BadResponse(io.to_string()),
                _ => FetchError::Other(io.to_string()),
            },
            ureq::Error::Protocol(p) => FetchError::BadResponse(p.to_string()),
            ureq::Error::Decompress(_, io) => {
                FetchError::BadResponse(format!("corrupt compressed body: {io}"))
            }
            ureq::Error::LargeResponseHeader(..) => {
                FetchError::BadResponse("response header too large".into())
            }
            ureq::Error::BadUri(u) => FetchError::Other(format!("bad uri {u}")),
            other => FetchError::Other(other.to_string()),
        }
    }
}

impl From<std::io::Error> for FetchError {
    fn from(e: std::io::Error) -> Self {
        ureq::Error::from(e).into()
    }
}

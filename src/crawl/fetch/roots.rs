//! Which certificate authorities HTTPS trusts: the built-in roots (Mozilla's, as rustls ships
//! them), plus the certificates of `CaFile` when it is set — like curl's `--cacert`, for a
//! staging server with its own CA, and for the tests' certificates.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use thiserror::Error;
use ureq::tls::{Certificate, PemItem, RootCerts, parse_pem};

use crate::crawl::settings::Location;

/// `CaFile` cannot be used.
#[derive(Debug, Error)]
pub enum CaFileError {
    /// It cannot be read.
    #[error("{at}: CaFile = {}: {source}", path.display())]
    Read {
        /// The setting's line.
        at: Location,
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// It is not PEM, or holds no certificate.
    #[error("{at}: CaFile = {}: {why}", path.display())]
    Content {
        /// The setting's line.
        at: Location,
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
}

/// The roots to trust: the built-in ones, or those plus `ca_file`'s (set at `at`).
pub(super) fn root_certs(ca_file: Option<&Path>, at: Location) -> Result<RootCerts, CaFileError> {
    let Some(path) = ca_file else {
        return Ok(RootCerts::WebPki);
    };
    let pem = std::fs::read(path).map_err(|source| CaFileError::Read {
        at: at.clone(),
        path: path.to_owned(),
        source,
    })?;
    let content = |why: String| CaFileError::Content {
        at: at.clone(),
        path: path.to_owned(),
        why,
    };
    let mut extra = Vec::new();
    for item in parse_pem(&pem) {
        match item.map_err(|e| content(e.to_string()))? {
            PemItem::Certificate(c) => extra.push(c),
            _ => continue,
        }
    }
    if extra.is_empty() {
        return Err(content(
            "no certificate in it (PEM BEGIN CERTIFICATE blocks)".into(),
        ));
    }
    let mut all: Vec<Certificate<'static>> = webpki_root_certs::TLS_SERVER_ROOT_CERTS
        .iter()
        .map(|der| Certificate::from_der(der.as_ref()).to_owned())
        .collect();
    all.extend(extra);
    Ok(RootCerts::Specific(Arc::new(all)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_roots_unless_a_file_adds_some() {
        let at = || Location {
            path: "s.ini".into(),
            line: Some(7),
        };
        assert!(matches!(root_certs(None, at()), Ok(RootCerts::WebPki)));
        let dir = tempfile::tempdir().unwrap();
        let missing = root_certs(Some(&dir.path().join("none.pem")), at()).unwrap_err();
        let text = missing.to_string();
        assert!(
            text.starts_with("s.ini:7: CaFile = ") && text.contains("none.pem"),
            "{text}"
        );
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "not a certificate").unwrap();
        let e = root_certs(Some(&empty), at()).unwrap_err();
        assert!(e.to_string().contains("no certificate"), "{e}");
    }
}

//! Certificates for the HTTPS tests, made in the test: a private CA (its PEM goes into
//! `CaFile`), and host certificates it signs — valid, for the wrong name, or expired.

use std::sync::Arc;

use rcgen::{
    BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose,
    date_time_ymd,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// A private certificate authority.
pub struct Pki {
    /// The CA certificate, PEM (what `CaFile` names).
    pub ca_pem: String,
    issuer: Issuer<'static, KeyPair>,
}

/// How a host certificate is wrong, if it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Validity {
    /// Valid now for the names given.
    Good,
    /// Expired last year.
    Expired,
}

impl Pki {
    /// A CA named `name` (two CAs need two names: a verifier looks issuers up by name).
    pub fn new(name: &str) -> Self {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
        params.distinguished_name.push(DnType::CommonName, name);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let key = KeyPair::generate().expect("a CA key");
        let cert = params.self_signed(&key).expect("the CA certificate");
        Pki {
            ca_pem: cert.pem(),
            issuer: Issuer::new(params, key),
        }
    }

    /// Writes the CA certificate into `dir/ca.pem`; returns the path.
    pub fn write_ca(&self, dir: &std::path::Path) -> std::path::PathBuf {
        let path = dir.join("ca.pem");
        std::fs::write(&path, &self.ca_pem).expect("ca.pem");
        path
    }

    /// A server configuration with a certificate for `names` signed by this CA.
    pub fn server(&self, names: &[&str], validity: Validity) -> Arc<rustls::ServerConfig> {
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let mut params = CertificateParams::new(names).expect("host params");
        if validity == Validity::Expired {
            params.not_before = date_time_ymd(2020, 1, 1);
            params.not_after = date_time_ymd(2021, 1, 1);
        }
        let key = KeyPair::generate().expect("a host key");
        let cert = params
            .signed_by(&key, &self.issuer)
            .expect("a host certificate");
        let chain = vec![CertificateDer::from(cert.der().to_vec())];
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .expect("a server configuration");
        Arc::new(config)
    }
}

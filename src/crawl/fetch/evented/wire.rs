//! What a connection's bytes go through: the socket itself for http, rustls for https (its
//! handshake driven by the same reads and writes as the request, without blocking).

use std::io::{self, ErrorKind, Read, Write};
use std::sync::Arc;

use mio::net::TcpStream;
use rustls::pki_types::ServerName;
use rustls::{ClientConfig, ClientConnection, RootCertStore};

use crate::crawl::fetch::FetchError;
use crate::crawl::fetch::fetch_error::tls_reason;

/// The TLS client configuration: the same roots as the blocking client (`CaFile` added to
/// the built-in ones), the same provider (ring).
pub(super) fn client_config(roots: &ureq::tls::RootCerts) -> Arc<ClientConfig> {
    let mut store = RootCertStore::empty();
    match roots {
        ureq::tls::RootCerts::Specific(certs) => {
            for c in certs.iter() {
                let _ = store.add(rustls::pki_types::CertificateDer::from(c.der()).into_owned());
            }
        }
        _ => {
            for der in webpki_root_certs::TLS_SERVER_ROOT_CERTS {
                let _ = store.add(der.clone());
            }
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(rustls::ALL_VERSIONS)
        .map(|b| b.with_root_certificates(store).with_no_client_auth());
    match config {
        Ok(c) => Arc::new(c),
        // ring supports every version rustls has: this does not happen.
        Err(_) => Arc::new(
            ClientConfig::builder()
                .with_root_certificates(RootCertStore::empty())
                .with_no_client_auth(),
        ),
    }
}

/// A TLS session for `host`.
pub(super) fn session(
    config: &Arc<ClientConfig>,
    host: &str,
) -> Result<Box<ClientConnection>, FetchError> {
    let name = ServerName::try_from(host.to_owned())
        .map_err(|_| FetchError::Tls("TLS error (not a valid server name)".into()))?;
    ClientConnection::new(Arc::clone(config), name)
        .map(Box::new)
        .map_err(|e| FetchError::Tls(tls_reason(&e)))
}

/// A TLS failure as the blocking client words it.
pub(super) fn tls_failure(e: &io::Error) -> Option<FetchError> {
    e.get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
        .map(|tls| FetchError::Tls(tls_reason(tls)))
}

/// Sends `out` (the request, plaintext): as far as the socket takes it. `Ok(true)` once all
/// of it has been handed to the kernel (for https: encrypted, after the handshake).
pub(super) fn write(
    stream: &mut TcpStream,
    tls: Option<&mut ClientConnection>,
    out: &[u8],
    pos: &mut usize,
) -> io::Result<bool> {
    let Some(tls) = tls else {
        while *pos < out.len() {
            match stream.write(&out[*pos..]) {
                Ok(0) => return Err(ErrorKind::WriteZero.into()),
                Ok(n) => *pos += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(false),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        return Ok(true);
    };
    if *pos < out.len() {
        // rustls keeps plaintext written before the handshake ends and sends it after.
        tls.writer().write_all(&out[*pos..])?;
        *pos = out.len();
    }
    let flushed = flush(stream, tls)?;
    Ok(flushed && !tls.is_handshaking())
}

/// Writes the TLS records waiting; `Ok(false)` when the socket takes no more now.
fn flush(stream: &mut TcpStream, tls: &mut ClientConnection) -> io::Result<bool> {
    while tls.wants_write() {
        match tls.write_tls(stream) {
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(false),
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// Reads what has arrived into `buf` (for https: decrypted; the handshake's records are
/// processed and answered on the way). `Ok(0)`: the server closed the connection;
/// `WouldBlock`: nothing more now.
pub(super) fn read(
    stream: &mut TcpStream,
    tls: Option<&mut ClientConnection>,
    buf: &mut [u8],
) -> io::Result<usize> {
    let Some(tls) = tls else {
        return stream.read(buf);
    };
    loop {
        match tls.reader().read(buf) {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
            // Closed without close_notify: as a closed socket.
            Err(e) if e.kind() == ErrorKind::UnexpectedEof => return Ok(0),
            Err(e) => return Err(e),
        }
        match tls.read_tls(stream) {
            Ok(0) => return Ok(0),
            Ok(_) => {
                tls.process_new_packets()
                    .map_err(|e| io::Error::new(ErrorKind::InvalidData, e))?;
                // Handshake answers, alerts.
                flush(stream, tls)?;
            }
            Err(e) => return Err(e),
        }
    }
}

/// Whether a kept connection is quiet: nothing has arrived on it since its last answer was
/// read (no stray bytes, no close). A server that answers one request behind, or sends an
/// answer nobody asked for, leaves bytes that the next request would take for its answer;
/// such a connection is closed, not reused. A non-blocking peek: nothing is consumed.
pub(super) fn quiet(stream: &TcpStream, tls: Option<&mut ClientConnection>) -> bool {
    if let Some(tls) = tls {
        match tls.process_new_packets() {
            Ok(state) if state.plaintext_bytes_to_read() == 0 && !state.peer_has_closed() => {}
            _ => return false,
        }
    }
    let mut byte = [0u8; 1];
    matches!(stream.peek(&mut byte), Err(e) if e.kind() == ErrorKind::WouldBlock)
}

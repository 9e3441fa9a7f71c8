//! One TLS client configuration for every connection HomeClaw opens: the model providers and
//! the Supervisor over HTTPS, Home Assistant over `wss://`, the MQTT broker over TLS. One
//! stack (rustls with ring), one root store (Mozilla's, from `webpki-roots`), so a certificate
//! is judged alike on every path and the build carries no second TLS implementation.
//!
//! Invariants:
//! - Every `reqwest` client is built from [`http_builder`]: reqwest is compiled without a crypto
//!   provider of its own (its default would be a second one, aws-lc), so a client built any
//!   other way panics at build time instead of silently using another stack.
//! - A user's own CA (a broker with a self-signed certificate) is added to the roots, never put
//!   in their place, and a file that holds no certificate is an error naming the file.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("cannot read the CA file {path}: {reason}")]
    CaFile { path: PathBuf, reason: String },
    #[error("the CA file {0} holds no PEM certificate")]
    NoCertificate(PathBuf),
    #[error("the TLS configuration was refused: {0}")]
    Config(String),
}

/// The configuration for servers with a publicly trusted certificate, built once.
pub fn client_config() -> Arc<rustls::ClientConfig> {
    static CONFIG: OnceLock<Arc<rustls::ClientConfig>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            // Only a provider without the default protocol versions fails here, and ring has
            // them; rustls's own builder (ring being the one provider built in) is the fallback.
            build(Vec::new()).unwrap_or_else(|_| {
                Arc::new(
                    rustls::ClientConfig::builder()
                        .with_root_certificates(mozilla_roots())
                        .with_no_client_auth(),
                )
            })
        })
        .clone()
}

/// As [`client_config`], also trusting the certificates in the PEM file `ca_file`.
pub fn client_config_with_ca(ca_file: &Path) -> Result<Arc<rustls::ClientConfig>, TlsError> {
    let read = CertificateDer::pem_file_iter(ca_file).map_err(|e| TlsError::CaFile {
        path: ca_file.to_owned(),
        reason: e.to_string(),
    })?;
    let certs = read
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| TlsError::CaFile {
            path: ca_file.to_owned(),
            reason: e.to_string(),
        })?;
    if certs.is_empty() {
        return Err(TlsError::NoCertificate(ca_file.to_owned()));
    }
    build(certs)
}

/// A `reqwest` client builder on the one TLS configuration.
pub fn http_builder() -> reqwest::ClientBuilder {
    reqwest::Client::builder().tls_backend_preconfigured((*client_config()).clone())
}

/// A `reqwest` client with no other setting than the one TLS configuration. A new one each
/// time: a client's pooled connections belong to the runtime that opened them.
pub fn http_client() -> reqwest::Client {
    http_builder()
        .build()
        .unwrap_or_else(|_| reqwest::Client::new())
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn mozilla_roots() -> rustls::RootCertStore {
    rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    }
}

fn build(extra: Vec<CertificateDer<'static>>) -> Result<Arc<rustls::ClientConfig>, TlsError> {
    let mut roots = mozilla_roots();
    for cert in extra {
        roots
            .add(cert)
            .map_err(|e| TlsError::Config(format!("a CA certificate was refused: {e}")))?;
    }
    let config = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsError::Config(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_client_shares_one_configuration_of_ring_and_mozillas_roots() {
        let config = client_config();
        assert!(Arc::ptr_eq(&config, &client_config()));
        // Building a client must not panic for want of a provider (reqwest has none of its own).
        let _ = http_client();
        let _ = http_builder().build().unwrap();
    }

    #[test]
    fn a_ca_file_without_a_certificate_is_named_in_the_error() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("ca.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let err = client_config_with_ca(&empty).unwrap_err().to_string();
        assert!(err.contains("ca.pem"), "{err}");
        let missing = dir.path().join("missing.pem");
        let err = client_config_with_ca(&missing).unwrap_err().to_string();
        assert!(err.contains("missing.pem"), "{err}");
    }
}

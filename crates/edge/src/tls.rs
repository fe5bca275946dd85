//! HTTPS: a certificate chain and its private key, given as PEM, made into the rustls configuration
//! the accept loop serves with. HTTP/2 and HTTP/1.1 are both offered by ALPN, HTTP/2 first. The
//! cryptography is rustls's `ring` provider (no C toolchain beyond `cc`, no cmake). The caller reads
//! the files, so that this crate reads none and an error can name the file it came from.

use std::sync::Arc;

use rustls::ServerConfig;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

/// Why a certificate and key cannot be served.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("the certificate is not valid PEM: {0}")]
    Certificate(rustls_pki_types::pem::Error),
    #[error("holds no PEM certificate (`-----BEGIN CERTIFICATE-----`)")]
    NoCertificate,
    #[error("the private key is not a PEM private key (PKCS#8, PKCS#1 or SEC1): {0}")]
    Key(rustls_pki_types::pem::Error),
    #[error("the certificate and key cannot be used together: {0}")]
    Rejected(rustls::Error),
}

/// A TLS server configuration: the certificate chain, its key, and the protocols offered by ALPN.
#[derive(Clone)]
pub struct TlsConfig(pub(crate) Arc<ServerConfig>);

impl std::fmt::Debug for TlsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsConfig").field("alpn", &["h2", "http/1.1"]).finish_non_exhaustive()
    }
}

impl TlsConfig {
    /// Builds the configuration from a PEM certificate chain (leaf first) and a PEM private key. The
    /// key must belong to the leaf certificate.
    pub fn from_pem(certificate_chain: &[u8], private_key: &[u8]) -> Result<Self, TlsError> {
        let chain = CertificateDer::pem_slice_iter(certificate_chain)
            .collect::<Result<Vec<_>, _>>()
            .map_err(TlsError::Certificate)?;
        if chain.is_empty() {
            return Err(TlsError::NoCertificate);
        }
        let key = PrivateKeyDer::from_pem_slice(private_key).map_err(TlsError::Key)?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(TlsError::Rejected)?
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .map_err(TlsError::Rejected)?;
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(Self(Arc::new(config)))
    }
}

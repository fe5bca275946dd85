//! How deliveries are made, as the binary (or a test) sets it: whether private addresses may be
//! reached, how long a delivery may take, and which certificates are trusted besides the web's roots.

use std::time::Duration;

use rustls::pki_types::CertificateDer;

/// The settings of endpoints and deliveries. `Config::default()` is what serves the public:
/// public addresses only, over `https`, 10 s per delivery, the web's roots alone.
#[derive(Debug, Clone)]
pub struct Config {
    /// Whether endpoints may be, or resolve to, addresses that are not public (loopback, private
    /// networks...), and may then use plain `http`: for tests and closed networks only.
    pub allow_private: bool,
    /// How long one delivery may take in all: resolving, connecting, TLS, the request and the
    /// answer read.
    pub timeout: Duration,
    /// Certificates trusted as roots besides Mozilla's (a test's own, a closed network's CA), DER.
    pub extra_roots: Vec<CertificateDer<'static>>,
}

impl Default for Config {
    fn default() -> Self {
        Self { allow_private: false, timeout: Duration::from_secs(10), extra_roots: Vec::new() }
    }
}

//! TLS to PostgreSQL, asked for as libpq asks for it: `sslmode`, `sslrootcert`, `sslcert` and
//! `sslkey` in the query of the accounts URL, with libpq's meaning of each, over rustls (the `ring`
//! provider, as everywhere in Tapster) through `tokio-postgres-rustls`.
//!
//! | `sslmode` | encrypted | the server's certificate |
//! |---|---|---|
//! | `disable` | never | - |
//! | `prefer` (the default) | if the server offers TLS; plain text otherwise, and after a failed handshake | not checked, unless `sslrootcert` is given: then as `verify-ca` |
//! | `require` | always | not checked, unless `sslrootcert` is given: then as `verify-ca` |
//! | `verify-ca` | always | signed by `sslrootcert` (the system's roots without it) |
//! | `verify-full` | always | as `verify-ca`, and made out to the host connected to |
//!
//! `sslrootcert=system` (the system's roots) asks for `verify-full`, as libpq 16 has it: it is the
//! default then, and a weaker mode is refused, since any publicly signed certificate would pass.
//!
//! `sslcert` and `sslkey` are a client certificate and its key, for a server that asks for one. A
//! handshake that fails is an error naming the host and why ([`failure`]); only `prefer` falls
//! back to plain text, as in libpq. The driver reads the rest of the URL; these parameters are taken
//! out of it first, since it knows neither the `verify-*` modes nor the files.

use std::future::Future;
use std::pin::Pin;
use std::str::FromStr;
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres::Client;
use tokio_postgres::config::SslMode as DriverMode;
use tokio_postgres_rustls::MakeRustlsConnect;

/// libpq's `sslmode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SslMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    fn parse(value: &str) -> Result<Self, String> {
        Ok(match value {
            "disable" => Self::Disable,
            "prefer" => Self::Prefer,
            "require" => Self::Require,
            "verify-ca" => Self::VerifyCa,
            "verify-full" => Self::VerifyFull,
            // libpq's `allow` tries plain text first, which a store of keys never wants.
            other => {
                return Err(format!(
                    "sslmode={other} is not one of disable, prefer, require, verify-ca, verify-full"
                ));
            }
        })
    }

    /// The driver's mode: it knows only whether TLS is off, tried or required.
    fn driver(self) -> DriverMode {
        match self {
            Self::Disable => DriverMode::Disable,
            Self::Prefer => DriverMode::Prefer,
            Self::Require | Self::VerifyCa | Self::VerifyFull => DriverMode::Require,
        }
    }
}

/// The TLS parameters of an accounts URL.
#[derive(Debug, Default, PartialEq, Eq)]
struct Parameters {
    mode: Option<SslMode>,
    root_cert: Option<String>,
    cert: Option<String>,
    key: Option<String>,
}

/// Splits `url` into the driver's configuration and the TLS parameters, which it would refuse.
fn split(url: &str) -> Result<(tokio_postgres::Config, Parameters), String> {
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let mut parameters = Parameters::default();
    let mut kept = Vec::new();
    for pair in query.split('&').filter(|pair| !pair.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let decoded = || {
            percent_encoding::percent_decode_str(value)
                .decode_utf8()
                .map(|value| value.into_owned())
                .map_err(|_| format!("the value of {name} is not UTF-8"))
        };
        match name {
            "sslmode" => parameters.mode = Some(SslMode::parse(&decoded()?)?),
            "sslrootcert" => parameters.root_cert = Some(decoded()?),
            "sslcert" => parameters.cert = Some(decoded()?),
            "sslkey" => parameters.key = Some(decoded()?),
            _ => kept.push(pair),
        }
    }
    let url = if kept.is_empty() { base.to_owned() } else { format!("{base}?{}", kept.join("&")) };
    // The driver's error says only that the URL is invalid; its source says what is wrong.
    let config =
        tokio_postgres::Config::from_str(&url).map_err(|error| match std::error::Error::source(&error) {
            Some(cause) => format!("{error}: {cause}"),
            None => error.to_string(),
        })?;
    Ok((config, parameters))
}

/// Connects each of the pool's connections as the URL's `sslmode` says.
pub(crate) struct Connector {
    mode: SslMode,
    tls: MakeRustlsConnect,
}

impl std::fmt::Debug for Connector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connector").field("mode", &self.mode).finish_non_exhaustive()
    }
}

/// The driver's configuration of the accounts URL `url`, and how to connect with it: `Err` says
/// what in the URL, or in the files it names, cannot be used.
pub(crate) fn connector(url: &str) -> Result<(tokio_postgres::Config, Connector), String> {
    let (mut config, parameters) = split(url)?;
    let system = parameters.root_cert.as_deref() == Some("system");
    let mode = match (parameters.mode, system) {
        (Some(mode), false) => mode,
        (None, false) => SslMode::Prefer,
        (None | Some(SslMode::VerifyFull), true) => SslMode::VerifyFull,
        (Some(_), true) => {
            return Err("sslrootcert=system needs sslmode=verify-full: with the system's roots, any \
                        publicly signed certificate would pass a weaker check"
                .into());
        }
    };
    config.ssl_mode(mode.driver());
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?;
    let roots = match (&parameters.root_cert, mode) {
        (Some(_), _) if system => Some(system_roots()?),
        (Some(path), _) => Some(roots_from(path)?),
        (None, SslMode::VerifyCa | SslMode::VerifyFull) => Some(system_roots()?),
        (None, _) => None,
    };
    let builder = match (mode, roots) {
        (SslMode::VerifyFull, Some(roots)) => builder.with_root_certificates(roots),
        (_, roots) => builder.dangerous().with_custom_certificate_verifier(Arc::new(NameUnchecked {
            roots: roots.map(Arc::new),
            provider,
        })),
    };
    let tls = match (&parameters.cert, &parameters.key) {
        (Some(cert), Some(key)) => {
            let chain = CertificateDer::pem_file_iter(cert)
                .and_then(Iterator::collect::<Result<Vec<_>, _>>)
                .map_err(|e| format!("sslcert={cert}: {e}"))?;
            let key = PrivateKeyDer::from_pem_file(key).map_err(|e| format!("sslkey={key}: {e}"))?;
            builder.with_client_auth_cert(chain, key).map_err(|e| format!("sslcert and sslkey: {e}"))?
        }
        (None, None) => builder.with_no_client_auth(),
        (Some(_), None) => return Err("sslcert needs sslkey, the key of the client certificate".into()),
        (None, Some(_)) => return Err("sslkey needs sslcert, the client certificate it belongs to".into()),
    };
    Ok((config, Connector { mode, tls: MakeRustlsConnect::new(tls) }))
}

fn roots_from(path: &str) -> Result<RootCertStore, String> {
    let mut roots = RootCertStore::empty();
    let certificates = CertificateDer::pem_file_iter(path)
        .and_then(Iterator::collect::<Result<Vec<_>, _>>)
        .map_err(|e| format!("sslrootcert={path}: {e}"))?;
    let (added, _) = roots.add_parsable_certificates(certificates);
    if added == 0 {
        return Err(format!("sslrootcert={path} holds no certificate that can be trusted"));
    }
    Ok(roots)
}

/// The operating system's trusted roots (on Debian, `/etc/ssl/certs`).
fn system_roots() -> Result<RootCertStore, String> {
    let found = rustls_native_certs::load_native_certs();
    let mut roots = RootCertStore::empty();
    let (added, _) = roots.add_parsable_certificates(found.certs);
    if added == 0 {
        let why = found.errors.first().map_or_else(|| "none are installed".to_owned(), ToString::to_string);
        return Err(format!("the system's trusted certificates cannot be read ({why}): give sslrootcert"));
    }
    Ok(roots)
}

impl deadpool_postgres::Connect for Connector {
    fn connect(
        &self,
        config: &tokio_postgres::Config,
    ) -> Pin<
        Box<
            dyn Future<Output = Result<(Client, tokio::task::JoinHandle<()>), tokio_postgres::Error>>
                + Send
                + '_,
        >,
    > {
        let config = config.clone();
        Box::pin(async move {
            let (client, connection) = match config.connect(self.tls.clone()).await {
                // libpq's `prefer`: a handshake that failed is tried again in plain text, not silently.
                Err(error)
                    if self.mode == SslMode::Prefer
                        && let Some(why) = failure(&error) =>
                {
                    tracing::warn!(
                        hosts = ?config.get_hosts(),
                        why,
                        "the TLS handshake with the accounts database failed: connecting in plain text, \
                         as sslmode=prefer allows (sslmode=require or verify-full would refuse)"
                    );
                    let mut plain = config;
                    plain.ssl_mode(DriverMode::Disable);
                    plain.connect(self.tls.clone()).await?
                }
                connected => connected?,
            };
            // The connection ends with an error only when the client sees it closed, which the pool
            // notices by itself.
            let task = tokio::spawn(async move {
                let _ = connection.await;
            });
            Ok((client, task))
        })
    }
}

/// Why a TLS handshake with PostgreSQL failed, when that is why `error` happened: the certificate's
/// fault in words that say what to check, or what the driver or TLS library said. (The driver tells
/// its TLS errors only by their text, and shows their cause only as their source; the tests against
/// a server that speaks only TLS, `tests/it/tls.rs`, hold that text to what is matched here.)
pub(crate) fn failure(error: &tokio_postgres::Error) -> Option<String> {
    if error.to_string() != "error performing TLS handshake" {
        return None;
    }
    let Some(cause) = std::error::Error::source(error) else { return Some("the handshake failed".into()) };
    let rustls =
        cause.downcast_ref::<std::io::Error>().and_then(|io| io.get_ref()?.downcast_ref::<rustls::Error>());
    Some(rustls.map_or_else(|| cause.to_string(), explain))
}

fn explain(error: &rustls::Error) -> String {
    use rustls::CertificateError as Why;
    let hint = match error {
        rustls::Error::InvalidCertificate(Why::UnknownIssuer | Why::BadSignature) => {
            ": its certificate is not signed by a CA of sslrootcert (or the system's roots)"
        }
        rustls::Error::InvalidCertificate(Why::NotValidForName | Why::NotValidForNameContext { .. }) => {
            ": its certificate is not made out to the host connected to (sslmode=verify-full checks that)"
        }
        rustls::Error::InvalidCertificate(Why::Expired | Why::ExpiredContext { .. }) => {
            ": its certificate has expired"
        }
        rustls::Error::InvalidCertificate(Why::NotValidYet | Why::NotValidYetContext { .. }) => {
            ": its certificate is not valid yet"
        }
        _ => "",
    };
    format!("{error}{hint}")
}

/// The server's certificate as libpq checks it short of `verify-full`: signed by a trusted CA
/// (`verify-ca`, and `prefer` or `require` with `sslrootcert`), or, without roots (`prefer` and
/// `require` alone), not at all; the name it is made out to never. The handshake's signatures are
/// always checked, so the connection is encrypted with whoever holds the certificate's key.
#[derive(Debug)]
struct NameUnchecked {
    roots: Option<Arc<RootCertStore>>,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for NameUnchecked {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if let Some(roots) = &self.roots {
            let certificate = rustls::server::ParsedCertificate::try_from(end_entity)?;
            rustls::client::verify_server_cert_signed_by_trust_anchor(
                &certificate,
                roots,
                intermediates,
                now,
                self.provider.signature_verification_algorithms.all,
            )?;
        }
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tls_parameters_are_taken_out_of_the_url_and_the_rest_is_kept() {
        let (config, parameters) = split(
            "postgres://tapster@db.internal:6432/accounts?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem\
             &application_name=x&sslcert=/c.pem&sslkey=/k.pem",
        )
        .unwrap();
        assert_eq!(
            parameters,
            Parameters {
                mode: Some(SslMode::VerifyFull),
                root_cert: Some("/etc/ca.pem".into()),
                cert: Some("/c.pem".into()),
                key: Some("/k.pem".into()),
            }
        );
        assert_eq!(config.get_application_name(), Some("x"));
        assert_eq!(config.get_dbname(), Some("accounts"));
        assert_eq!(config.get_ports(), [6432]);
    }

    /// (sslmode, the driver's mode, whether `prefer`'s fallback applies).
    #[test]
    fn each_mode_is_libpqs() {
        let cases = [
            ("disable", DriverMode::Disable),
            ("prefer", DriverMode::Prefer),
            ("require", DriverMode::Require),
            ("verify-ca", DriverMode::Require),
            ("verify-full", DriverMode::Require),
        ];
        for (mode, driver) in cases {
            let (config, connector) = connector(&format!("postgres://h/d?sslmode={mode}")).unwrap();
            assert_eq!(config.get_ssl_mode(), driver, "{mode}");
            assert_eq!(connector.mode, SslMode::parse(mode).unwrap());
        }
        // libpq's defaults: `prefer`, or with the system's roots `verify-full`.
        assert_eq!(connector("postgres://h/d").unwrap().1.mode, SslMode::Prefer);
        assert_eq!(connector("postgres://h/d?sslrootcert=system").unwrap().1.mode, SslMode::VerifyFull);
    }

    #[test]
    fn what_cannot_be_used_is_said() {
        let dir = tempfile::TempDir::new().unwrap();
        let not_pem = dir.path().join("not.pem");
        std::fs::write(&not_pem, "nothing").unwrap();
        let not_pem = not_pem.display().to_string();
        let cases = [
            ("sslmode=allow".to_owned(), "sslmode=allow is not one of"),
            ("sslmode=verify-full&sslrootcert=/no/such/ca.pem".to_owned(), "sslrootcert=/no/such/ca.pem"),
            (format!("sslmode=verify-ca&sslrootcert={not_pem}"), "holds no certificate"),
            ("sslcert=/c.pem".to_owned(), "sslcert needs sslkey"),
            ("sslkey=/k.pem".to_owned(), "sslkey needs sslcert"),
            ("sslmode=require&connect_timeout=soon".to_owned(), "connect_timeout"),
            ("sslmode=require&sslrootcert=system".to_owned(), "sslrootcert=system needs sslmode=verify-full"),
        ];
        for (query, said) in cases {
            let error = connector(&format!("postgres://h/d?{query}")).unwrap_err();
            assert!(error.contains(said), "{query}: {error}");
        }
    }
}

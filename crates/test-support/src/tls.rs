//! TLS for tests: a self-signed certificate for `localhost`, generated afresh (no key is checked
//! into the repository), and clients that trust it alone: a TLS connection on tokio offering the
//! protocols a test names by ALPN, and a blocking HTTPS `GET`; and a certificate authority of a
//! test's own ([`TestCa`]), which signs the certificates of the servers a test starts (PostgreSQL,
//! Redis) and of the clients they ask for one.

use std::io::{BufReader, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::pki_types::ServerName;
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};
use tokio_rustls::client::TlsStream;

use crate::http::{Answer, connect, get_request};

/// A self-signed certificate for `localhost` with its private key, as PEM.
#[derive(Debug, Clone)]
pub struct SelfSigned {
    pub cert_pem: String,
    pub key_pem: String,
    /// What a client trusts: this certificate and nothing else.
    roots: RootCertStore,
}

impl SelfSigned {
    pub fn localhost() -> Self {
        let generated =
            rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).expect("a certificate");
        let mut roots = RootCertStore::empty();
        roots.add(generated.cert.der().clone()).expect("the certificate as a root");
        Self { cert_pem: generated.cert.pem(), key_pem: generated.signing_key.serialize_pem(), roots }
    }

    /// Writes the certificate and the key into `dir` (`cert.pem`, `key.pem`); returns their paths.
    pub fn write_to(&self, dir: &Path) -> (PathBuf, PathBuf) {
        let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
        std::fs::write(&cert, &self.cert_pem).expect("writing cert.pem");
        std::fs::write(&key, &self.key_pem).expect("writing key.pem");
        (cert, key)
    }

    /// One TLS connection to `addr` as `localhost`, offering `alpn`; with the protocol the handshake
    /// chose (empty when none).
    pub async fn connect(
        &self,
        addr: SocketAddr,
        alpn: &[u8],
    ) -> (TlsStream<tokio::net::TcpStream>, Vec<u8>) {
        let connector = tokio_rustls::TlsConnector::from(self.client(alpn));
        let tcp = tokio::net::TcpStream::connect(addr).await.expect("a TCP connection");
        let stream = connector.connect(localhost(), tcp).await.expect("a TLS handshake");
        let chosen = stream.get_ref().1.alpn_protocol().unwrap_or_default().to_vec();
        (stream, chosen)
    }

    /// `GET target` with `headers` over HTTPS and HTTP/1.1 on a new blocking connection to `addr`.
    pub fn get(&self, addr: SocketAddr, target: &str, headers: &[(&str, &str)]) -> Answer {
        let connection = ClientConnection::new(self.client(b"http/1.1"), localhost()).expect("a TLS client");
        let mut tls = StreamOwned::new(connection, connect(addr));
        tls.write_all(get_request(target, "localhost", headers).as_bytes()).expect("sending the request");
        Answer::read(&mut BufReader::new(tls)).unwrap_or_else(|| panic!("no HTTP answer to GET {target}"))
    }

    /// A client configuration (ring, safe defaults) that trusts this certificate alone and offers `alpn`.
    fn client(&self, alpn: &[u8]) -> Arc<ClientConfig> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("the default protocol versions")
            .with_root_certificates(self.roots.clone())
            .with_no_client_auth();
        config.alpn_protocols = vec![alpn.to_vec()];
        Arc::new(config)
    }
}

fn localhost() -> ServerName<'static> {
    ServerName::try_from("localhost").expect("a server name")
}

/// A certificate authority made for one test, signing certificates for the names it is given.
pub struct TestCa {
    issuer: rcgen::CertifiedIssuer<'static, rcgen::KeyPair>,
}

impl std::fmt::Debug for TestCa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestCa").finish_non_exhaustive()
    }
}

/// A certificate a [`TestCa`] signed, and its private key, as PEM.
#[derive(Debug, Clone)]
pub struct Issued {
    pub cert_pem: String,
    pub key_pem: String,
}

impl TestCa {
    /// A new authority, its name in the certificate's common name.
    pub fn new(name: &str) -> Self {
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("CA parameters");
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params.distinguished_name.push(rcgen::DnType::CommonName, name);
        params.key_usages = vec![rcgen::KeyUsagePurpose::KeyCertSign, rcgen::KeyUsagePurpose::CrlSign];
        let key = rcgen::KeyPair::generate().expect("a CA key");
        Self { issuer: rcgen::CertifiedIssuer::self_signed(params, key).expect("a CA certificate") }
    }

    /// The authority's certificate, which a client trusts.
    pub fn cert_pem(&self) -> String {
        self.issuer.pem()
    }

    /// A certificate signed by this authority for `names` (host names, or IP addresses), which
    /// serves a server and a client alike; its common name is the first name.
    pub fn issue(&self, names: &[&str]) -> Issued {
        let names: Vec<String> = names.iter().map(|name| (*name).to_owned()).collect();
        let mut params = rcgen::CertificateParams::new(names.clone()).expect("certificate parameters");
        params.distinguished_name.push(rcgen::DnType::CommonName, names.first().cloned().unwrap_or_default());
        params.extended_key_usages =
            vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth, rcgen::ExtendedKeyUsagePurpose::ClientAuth];
        let key = rcgen::KeyPair::generate().expect("a key");
        let cert = params.signed_by(&key, &self.issuer).expect("a signed certificate");
        Issued { cert_pem: cert.pem(), key_pem: key.serialize_pem() }
    }
}

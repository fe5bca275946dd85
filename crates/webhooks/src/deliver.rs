//! One delivery: a `POST` of a JSON body to an endpoint, made so that a URL anyone may type cannot
//! reach our own network (server-side request forgery). The host is resolved at delivery, every
//! address it resolves to is judged (`address::is_public`), and the connection is made to an address
//! that was judged, by our own TCP connect, so that no second lookup can answer otherwise (DNS
//! rebinding). Then TLS (rustls with ring; the web's roots, and the `Config`'s extra ones) with the
//! endpoint's host as server name, and one HTTP/1.1 exchange on that connection alone: no pool, no
//! proxy, no redirect followed, the answer's body read to 4 KiB and the rest never waited for, the
//! whole within the `Config`'s timeout.
//!
//! What happened is an [`Outcome`], never a panic or a bare error: the caller records it for the
//! person whose endpoint it is.

use std::io;
use std::net::SocketAddr;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper::header::{self, HeaderName, HeaderValue};
use hyper_util::rt::TokioIo;
use rustls::pki_types::ServerName;
use rustls::{CertificateError, ClientConfig, RootCertStore};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_rustls::TlsConnector;

use crate::address::refusal;
use crate::endpoint::Target;
use crate::{Config, Endpoint, EndpointProblem, Error, Result};

/// The most of an answer's body that is read; the rest is not waited for.
pub const MAX_ANSWER_BYTES: usize = 4096;
/// The `User-Agent` of every delivery.
pub const USER_AGENT: &str = "Tapster-Webhooks/1";
/// The longest `Location` kept from a redirect, in characters.
const MAX_LOCATION_CHARS: usize = Endpoint::MAX_LENGTH;
/// The headers a delivery sets itself, or that would change how the exchange is framed.
const RESERVED: &[HeaderName] = &[
    header::HOST,
    header::CONTENT_LENGTH,
    header::CONTENT_TYPE,
    header::USER_AGENT,
    header::TRANSFER_ENCODING,
    header::CONNECTION,
    header::TE,
    header::UPGRADE,
    header::EXPECT,
];

/// What delivers webhooks under one `Config`: holds its TLS settings, built once.
#[derive(Clone)]
pub struct Client {
    config: Config,
    tls: TlsConnector,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("config", &self.config).finish_non_exhaustive()
    }
}

/// What one delivery came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    status: Option<u16>,
    location: Option<String>,
    duration: Duration,
    answer: String,
    failure: Option<Error>,
}

impl Outcome {
    /// Whether the endpoint answered `2xx`: the webhook was received. A body that was cut short
    /// afterwards (by the timeout, or a broken connection) does not change that.
    pub fn succeeded(&self) -> bool {
        self.failure.is_none()
    }

    /// The answer's status, when one came.
    pub fn status(&self) -> Option<u16> {
        self.status
    }

    /// A redirect's `Location` (not followed), at most 2000 characters.
    pub fn location(&self) -> Option<&str> {
        self.location.as_deref()
    }

    /// How long the delivery took, from its start to its outcome.
    pub fn duration(&self) -> Duration {
        self.duration
    }

    /// The first bytes of the answer's body (at most [`MAX_ANSWER_BYTES`]) as UTF-8, where bytes
    /// that are not UTF-8 are replaced.
    pub fn answer(&self) -> &str {
        &self.answer
    }

    /// Why the delivery failed, in words for a person (`Display`); `None` when it succeeded.
    pub fn failure(&self) -> Option<&Error> {
        self.failure.as_ref()
    }
}

/// What came back so far: kept through a timeout, so that the outcome says what did arrive.
#[derive(Debug, Default)]
struct Answer {
    status: Option<u16>,
    location: Option<String>,
    body: Vec<u8>,
}

impl Client {
    /// A client under `config`; fails only on an extra root certificate that cannot be trusted.
    pub fn new(config: Config) -> Result<Self> {
        let mut roots = RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
        for root in &config.extra_roots {
            roots.add(root.clone()).map_err(|e| Error::Root(e.to_string()))?;
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut tls = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("ring supports the default protocol versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
        tls.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Self { config, tls: TlsConnector::from(Arc::new(tls)) })
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// `POST`s `body` (JSON) to `endpoint` with `headers` (the signature's, or others the caller
    /// chose) besides `Host`, `User-Agent`, `Content-Type: application/json` and `Content-Length`,
    /// which it sets itself and refuses from `headers`.
    pub async fn deliver(&self, endpoint: &Endpoint, headers: &[(&str, &str)], body: &[u8]) -> Outcome {
        let started = Instant::now();
        let mut answer = Answer::default();
        let attempt = self.attempt(endpoint, headers, body, &mut answer);
        let result = tokio::time::timeout(self.config.timeout, attempt)
            .await
            .unwrap_or(Err(Error::TimedOut(self.config.timeout)));
        let failure = match answer.status {
            Some(200..=299) => None,
            Some(status) => Some(Error::Status { status, location: answer.location.clone() }),
            None => Some(result.err().unwrap_or_else(|| Error::Http("no answer".to_owned()))),
        };
        Outcome {
            status: answer.status,
            location: answer.location,
            duration: started.elapsed(),
            answer: excerpt(&answer.body),
            failure,
        }
    }

    async fn attempt(
        &self,
        endpoint: &Endpoint,
        headers: &[(&str, &str)],
        body: &[u8],
        answer: &mut Answer,
    ) -> Result<()> {
        let request = request(endpoint, headers, body)?;
        if !endpoint.is_https() && !self.config.allow_private {
            // Parsed under a config that allowed it; this one does not.
            return Err(Error::Endpoint(EndpointProblem::PlainHttp));
        }
        let addresses = self.resolve(endpoint).await?;
        let tcp = connect(&addresses).await?;
        if endpoint.is_https() {
            let name = server_name(endpoint.target())?;
            let tls = self.tls.connect(name, tcp).await.map_err(tls_failure)?;
            exchange(tls, request, answer).await
        } else {
            exchange(tcp, request, answer).await
        }
    }

    /// The endpoint's addresses, each judged; refused whole when any is not public (a name that
    /// also resolves to a private address is someone's way in, not a mistake to route around).
    async fn resolve(&self, endpoint: &Endpoint) -> Result<Vec<SocketAddr>> {
        let port = endpoint.port();
        let addresses: Vec<SocketAddr> = match endpoint.target() {
            Target::Address(address) => vec![SocketAddr::new(address, port)],
            Target::Name(name) => {
                let unresolved = |reason: String| Error::Unresolved { host: name.to_owned(), reason };
                tokio::net::lookup_host((name, port)).await.map_err(|e| unresolved(e.to_string()))?.collect()
            }
        };
        if addresses.is_empty() {
            let host = endpoint.authority();
            return Err(Error::Unresolved { host, reason: "it has no address".to_owned() });
        }
        if !self.config.allow_private {
            for address in &addresses {
                if let Some(block) = refusal(address.ip()) {
                    return Err(Error::NotPublic { address: address.ip(), block });
                }
            }
        }
        Ok(addresses)
    }
}

/// The request, with the caller's headers checked.
fn request(endpoint: &Endpoint, headers: &[(&str, &str)], body: &[u8]) -> Result<Request<Full<Bytes>>> {
    let mut request = Request::post(endpoint.path_and_query())
        .header(header::HOST, endpoint.authority())
        .header(header::USER_AGENT, USER_AGENT)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::copy_from_slice(body)))
        .map_err(|e| Error::Http(format!("the request cannot be written: {e}")))?;
    for &(name, value) in headers {
        let refused = || Error::Header(name.to_owned());
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| refused())?;
        if RESERVED.contains(&name) {
            return Err(refused());
        }
        let value = HeaderValue::from_str(value).map_err(|_| refused())?;
        request.headers_mut().append(name, value);
    }
    Ok(request)
}

/// A TCP connection to the first of `addresses` that takes one, in the order they resolved.
async fn connect(addresses: &[SocketAddr]) -> Result<TcpStream> {
    let mut failure = None;
    for &address in addresses {
        match TcpStream::connect(address).await {
            Ok(tcp) => {
                // The request is written whole at once; no reason to hold its last segment back.
                let _ = tcp.set_nodelay(true);
                return Ok(tcp);
            }
            Err(e) => failure = Some(Error::Connect { address, reason: io_reason(&e) }),
        }
    }
    Err(failure.expect("a resolved endpoint has an address"))
}

fn io_reason(error: &io::Error) -> String {
    match error.kind() {
        io::ErrorKind::ConnectionRefused => "connection refused".to_owned(),
        io::ErrorKind::ConnectionReset => "connection reset".to_owned(),
        io::ErrorKind::TimedOut => "the connection timed out".to_owned(),
        io::ErrorKind::HostUnreachable => "the host is unreachable".to_owned(),
        io::ErrorKind::NetworkUnreachable => "the network is unreachable".to_owned(),
        _ => error.to_string(),
    }
}

fn server_name(target: Target<'_>) -> Result<ServerName<'static>> {
    match target {
        Target::Address(address) => Ok(ServerName::IpAddress(address.into())),
        Target::Name(name) => ServerName::try_from(name.trim_end_matches('.').to_owned())
            .map_err(|_| Error::Tls(format!("{name} cannot be a TLS server name"))),
    }
}

/// A failed TLS handshake in a person's words.
fn tls_failure(error: io::Error) -> Error {
    let rustls = error.get_ref().and_then(|inner| inner.downcast_ref::<rustls::Error>());
    let reason = match rustls {
        Some(rustls::Error::InvalidCertificate(certificate)) => match certificate {
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                "certificate not valid for host".to_owned()
            }
            CertificateError::UnknownIssuer => "certificate not trusted (unknown issuer)".to_owned(),
            CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
                "certificate expired".to_owned()
            }
            CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
                "certificate not valid yet".to_owned()
            }
            CertificateError::Revoked => "certificate revoked".to_owned(),
            other => format!("certificate refused: {other:?}"),
        },
        Some(rustls::Error::AlertReceived(alert)) => format!("the server ended the handshake ({alert:?})"),
        Some(other) => other.to_string(),
        None if error.kind() == io::ErrorKind::UnexpectedEof => {
            "the connection closed during the handshake".to_owned()
        }
        None => io_reason(&error),
    };
    Error::Tls(reason)
}

/// The exchange on one connection: the request sent, the answer's head kept, its body read into
/// `answer` up to `MAX_ANSWER_BYTES`; then the connection is dropped, closing it.
async fn exchange<S>(stream: S, request: Request<Full<Bytes>>, answer: &mut Answer) -> Result<()>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(http_failure)?;
    let exchange = async {
        let response = sender.send_request(request).await.map_err(http_failure)?;
        answer.status = Some(response.status().as_u16());
        answer.location = response.headers().get(header::LOCATION).map(|location| {
            String::from_utf8_lossy(location.as_bytes()).chars().take(MAX_LOCATION_CHARS).collect()
        });
        let mut body = response.into_body();
        while answer.body.len() < MAX_ANSWER_BYTES {
            match body.frame().await {
                Some(Ok(frame)) => {
                    if let Some(data) = frame.data_ref() {
                        answer.body.extend_from_slice(data);
                    }
                }
                Some(Err(e)) => return Err(http_failure(e)),
                None => break,
            }
        }
        answer.body.truncate(MAX_ANSWER_BYTES);
        Ok(())
    };
    // The connection is driven here, not spawned, so that it ends with this delivery (and its
    // timeout) rather than living on in a task.
    let mut exchange = pin!(exchange);
    let mut connection = pin!(connection);
    tokio::select! {
        biased;
        done = &mut exchange => done,
        // The connection ended first (closed or broken): the exchange sees how and ends too.
        _ = &mut connection => exchange.await,
    }
}

/// A failed exchange in a person's words.
fn http_failure(error: hyper::Error) -> Error {
    let reason = if error.is_incomplete_message() || error.is_canceled() {
        "the connection closed before a whole answer".to_owned()
    } else if error.is_parse() {
        "the answer is not HTTP/1.1".to_owned()
    } else {
        match std::error::Error::source(&error).and_then(|s| s.downcast_ref::<io::Error>()) {
            Some(io) => io_reason(io),
            None => error.to_string(),
        }
    };
    Error::Http(reason)
}

/// An answer's first bytes as text: UTF-8 where they are, a character cut at the end left out.
fn excerpt(bytes: &[u8]) -> String {
    let end = match std::str::from_utf8(bytes) {
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        _ => bytes.len(),
    };
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_excerpt_leaves_out_a_character_cut_at_the_end() {
        assert_eq!(excerpt(b"ok"), "ok");
        assert_eq!(excerpt("caf\u{e9}".as_bytes()), "caf\u{e9}");
        assert_eq!(excerpt(&"caf\u{e9}".as_bytes()[..4]), "caf");
        assert_eq!(excerpt(b"a\xffb"), "a\u{fffd}b");
        assert_eq!(excerpt(b""), "");
    }

    #[test]
    fn the_callers_headers_are_checked() {
        let config = Config { allow_private: true, ..Config::default() };
        let endpoint = Endpoint::parse("http://127.0.0.1:8080/hook?x=1", &config).unwrap();
        let request = request(&endpoint, &[("webhook-id", "msg_1"), ("x-extra", "a")], b"{}").unwrap();
        assert_eq!(request.uri(), "/hook?x=1");
        let headers: Vec<(&str, &str)> =
            request.headers().iter().map(|(n, v)| (n.as_str(), v.to_str().unwrap())).collect();
        assert_eq!(
            headers,
            [
                ("host", "127.0.0.1:8080"),
                ("user-agent", USER_AGENT),
                ("content-type", "application/json"),
                ("webhook-id", "msg_1"),
                ("x-extra", "a"),
            ]
        );
        for (name, value) in [("Host", "evil"), ("content-length", "1"), ("bad name", "x"), ("x-ok", "a\nb")]
        {
            let refused = request_error(&endpoint, name, value);
            assert_eq!(refused, Error::Header(name.to_owned()), "{name}");
        }
    }

    fn request_error(endpoint: &Endpoint, name: &str, value: &str) -> Error {
        request(endpoint, &[(name, value)], b"{}").unwrap_err()
    }
}

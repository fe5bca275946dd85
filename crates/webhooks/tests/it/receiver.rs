//! A webhook receiver for the tests, on `127.0.0.1:0`: a raw tokio listener (plain, or TLS with a
//! certificate the test made) that reads each request whole, keeps it, and answers as the test
//! chose, including the ways a bad receiver answers (never, or without end). Raw rather than a
//! hyper server so that it can misbehave.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use rustls::ServerConfig;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// How the receiver answers every request.
#[derive(Debug, Clone)]
pub(crate) enum Reply {
    /// These bytes, then the connection closed.
    Bytes(Vec<u8>),
    /// Nothing, with the connection held open.
    Silent,
    /// These bytes, then nothing more, with the connection held open.
    Stall(Vec<u8>),
    /// A `200` announcing a gigabyte, written as fast as it is read until the client goes.
    Flood,
}

impl Reply {
    /// An answer with `status` (its line, e.g. `500 Internal Server Error`), `headers` and `body`.
    pub(crate) fn status(status: &str, headers: &[(&str, &str)], body: &str) -> Self {
        let mut text = format!("HTTP/1.1 {status}\r\ncontent-length: {}\r\n", body.len());
        for (name, value) in headers {
            text.push_str(&format!("{name}: {value}\r\n"));
        }
        text.push_str("connection: close\r\n\r\n");
        text.push_str(body);
        Self::Bytes(text.into_bytes())
    }
}

/// A request as received.
#[derive(Debug, Clone)]
pub(crate) struct Received {
    pub(crate) method: String,
    pub(crate) target: String,
    /// Names in lower case, in the order sent.
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
    /// The server name the client asked for in its TLS handshake.
    pub(crate) sni: Option<String>,
}

impl Received {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

#[derive(Debug)]
pub(crate) struct Receiver {
    pub(crate) addr: SocketAddr,
    requests: Arc<Mutex<Vec<Received>>>,
    connections: Arc<Mutex<usize>>,
    task: JoinHandle<()>,
}

impl Receiver {
    pub(crate) async fn start(reply: Reply) -> Self {
        Self::serve(reply, None).await
    }

    /// Over TLS only, with `certificate` for the names it was made for.
    pub(crate) async fn start_tls(reply: Reply, certificate: &rcgen::CertifiedKey<rcgen::KeyPair>) -> Self {
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(certificate.signing_key.serialize_der()));
        let chain: Vec<CertificateDer<'static>> = vec![certificate.cert.der().clone()];
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .unwrap();
        Self::serve(reply, Some(tokio_rustls::TlsAcceptor::from(Arc::new(config)))).await
    }

    async fn serve(reply: Reply, tls: Option<tokio_rustls::TlsAcceptor>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(Mutex::new(0));
        let (kept, counted) = (requests.clone(), connections.clone());
        let task = tokio::spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else { continue };
                *counted.lock().unwrap() += 1;
                let (reply, kept, tls) = (reply.clone(), kept.clone(), tls.clone());
                tokio::spawn(async move {
                    match tls {
                        None => answer(tcp, None, &reply, &kept).await,
                        Some(acceptor) => {
                            // A client that refuses our certificate ends the handshake: nothing to answer.
                            let Ok(stream) = acceptor.accept(tcp).await else { return };
                            let sni = stream.get_ref().1.server_name().map(str::to_owned);
                            answer(stream, sni, &reply, &kept).await;
                        }
                    }
                });
            }
        });
        Self { addr, requests, connections, task }
    }

    pub(crate) fn requests(&self) -> Vec<Received> {
        self.requests.lock().unwrap().clone()
    }

    /// How many connections were accepted.
    pub(crate) fn connections(&self) -> usize {
        *self.connections.lock().unwrap()
    }

    /// The receiver's URL with this path: `http://127.0.0.1:port/path`.
    pub(crate) fn url(&self, scheme: &str, path: &str) -> String {
        format!("{scheme}://{}{path}", self.addr)
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Reads one request from `stream`, keeps it, and replies.
async fn answer<S>(mut stream: S, sni: Option<String>, reply: &Reply, kept: &Mutex<Vec<Received>>)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let Some(received) = read_request(&mut stream, sni).await else { return };
    kept.lock().unwrap().push(received);
    match reply {
        Reply::Bytes(bytes) => {
            let _ = stream.write_all(bytes).await;
            let _ = stream.shutdown().await;
        }
        Reply::Silent => std::future::pending().await,
        Reply::Stall(bytes) => {
            let _ = stream.write_all(bytes).await;
            let _ = stream.flush().await;
            std::future::pending().await
        }
        Reply::Flood => {
            let head = b"HTTP/1.1 200 OK\r\ncontent-length: 1073741824\r\n\r\n";
            if stream.write_all(head).await.is_err() {
                return;
            }
            let chunk = vec![b'x'; 16 * 1024];
            while stream.write_all(&chunk).await.is_ok() {}
        }
    }
}

/// One HTTP/1.1 request, its body by `content-length`.
async fn read_request<S: AsyncRead + Unpin>(stream: &mut S, sni: Option<String>) -> Option<Received> {
    let mut bytes = Vec::new();
    let mut buffer = [0; 4096];
    let head_end = loop {
        if let Some(at) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        let read = stream.read(&mut buffer).await.ok().filter(|&n| n > 0)?;
        bytes.extend_from_slice(&buffer[..read]);
    };
    let head = String::from_utf8(bytes[..head_end].to_vec()).ok()?;
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let (method, target) = (request_line.next()?.to_owned(), request_line.next()?.to_owned());
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_lowercase(), value.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or(0);
    let mut body = bytes[head_end + 4..].to_vec();
    while body.len() < length {
        let read = stream.read(&mut buffer).await.ok().filter(|&n| n > 0)?;
        body.extend_from_slice(&buffer[..read]);
    }
    Some(Received { method, target, headers, body, sni })
}

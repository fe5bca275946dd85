//! The floor of bench/run: tapster's own stack with nothing of tapster between it and the answers.
//! One current-thread tokio runtime (bench/run pins it to the server's core, as it does tapster and
//! nginx), hyper 1's `http1::Builder` over a `TcpListener` (and, over TLS, rustls as tapster runs it
//! with `http2::Builder` when ALPN picks `h2`), and every answer held in memory whole: the status,
//! headers and body tapster sent for each scenario's request, captured by `bench/bench.py floor` and
//! read once at start. A request is matched by its target and whether it sends an `If-None-Match`
//! (the scenarios' `304`); the headers are copied into each answer, as tapster builds its own per
//! answer. Anything else is `404`.
//!
//! Usage: tapster-bench-floor ADDR ANSWERS.json [CERT.pem KEY.pem]

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{HeaderName, HeaderValue, IF_NONE_MATCH};
use hyper::server::conn::{http1, http2};
use hyper::service::service_fn;
use hyper::{HeaderMap, Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rustls::ServerConfig;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_rustls::TlsAcceptor;

/// One captured answer.
struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

/// The answers by request target and whether the request revalidates.
type Answers = HashMap<(String, bool), Answer>;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (addr, file, tls) = match args.as_slice() {
        [addr, file] => (addr, file, None),
        [addr, file, cert, key] => (addr, file, Some(acceptor(cert, key))),
        _ => {
            eprintln!("usage: tapster-bench-floor ADDR ANSWERS.json [CERT.pem KEY.pem]");
            std::process::exit(2);
        }
    };
    let answers = Arc::new(read(file));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_io().build().expect("a runtime");
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await.expect("binding the address");
        loop {
            let Ok((stream, _)) = listener.accept().await else { continue };
            let _ = stream.set_nodelay(true);
            let answers = Arc::clone(&answers);
            let tls = tls.clone();
            tokio::spawn(async move {
                match tls {
                    None => serve(stream, false, answers).await,
                    Some(tls) => {
                        let Ok(stream) = tls.accept(stream).await else { return };
                        let h2 = stream.get_ref().1.alpn_protocol() == Some(b"h2");
                        serve(stream, h2, answers).await;
                    }
                }
            });
        }
    });
}

/// Serves one connection with hyper's HTTP/2 or HTTP/1.1 builder.
async fn serve<I>(io: I, h2: bool, answers: Arc<Answers>)
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = service_fn(move |request| {
        let answer = answer(&answers, &request);
        async move { Ok::<_, Infallible>(answer) }
    });
    let io = TokioIo::new(io);
    let _ = if h2 {
        http2::Builder::new(TokioExecutor::new()).serve_connection(io, service).await
    } else {
        http1::Builder::new().serve_connection(io, service).await
    };
}

/// TLS as tapster serves it: rustls with ring, TLS 1.2 and 1.3, ALPN `h2` then `http/1.1`.
fn acceptor(cert: &str, key: &str) -> TlsAcceptor {
    let chain = CertificateDer::pem_file_iter(cert).expect(cert).collect::<Result<Vec<_>, _>>().expect(cert);
    let key = PrivateKeyDer::from_pem_file(key).expect(key);
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("protocol versions")
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .expect("the certificate and its key");
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    TlsAcceptor::from(Arc::new(config))
}

fn answer(answers: &Answers, request: &Request<Incoming>) -> Response<Full<Bytes>> {
    let target = request.uri().path_and_query().map_or("/", |target| target.as_str());
    let revalidates = request.headers().contains_key(IF_NONE_MATCH);
    match answers.get(&(target.to_owned(), revalidates)) {
        Some(answer) => {
            let mut response = Response::new(Full::new(answer.body.clone()));
            *response.status_mut() = answer.status;
            *response.headers_mut() = answer.headers.clone();
            response
        }
        None => {
            let mut response = Response::new(Full::new(Bytes::from_static(b"not a captured request\n")));
            *response.status_mut() = StatusCode::NOT_FOUND;
            response
        }
    }
}

/// The answers file: a JSON list of `{"target", "if_none_match", "status", "headers": [[name,
/// value]...], "body_file"}`, a body file's path relative to the answers file.
fn read(file: &str) -> Answers {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}"));
    let list: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
    let dir = std::path::Path::new(file).parent().unwrap_or(std::path::Path::new("."));
    list.iter()
        .map(|entry| {
            let target = entry["target"].as_str().expect("a target").to_owned();
            let revalidates = entry["if_none_match"].as_bool().unwrap_or(false);
            let status = StatusCode::from_u16(entry["status"].as_u64().expect("a status") as u16).expect("a status");
            let mut headers = HeaderMap::new();
            for pair in entry["headers"].as_array().expect("headers") {
                let name = HeaderName::from_bytes(pair[0].as_str().expect("a name").as_bytes()).expect("a name");
                let value = HeaderValue::from_str(pair[1].as_str().expect("a value")).expect("a value");
                headers.append(name, value);
            }
            let body_file = dir.join(entry["body_file"].as_str().expect("a body file"));
            let body = std::fs::read(&body_file).unwrap_or_else(|e| panic!("{}: {e}", body_file.display()));
            ((target, revalidates), Answer { status, headers, body: Bytes::from(body) })
        })
        .collect()
}

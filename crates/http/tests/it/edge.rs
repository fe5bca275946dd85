//! The edge of the server over real sockets: every limit exercised by a client that breaks it (slow
//! heads, idle connections, oversized heads, bodies, too many connections, requests past their time
//! budget), CORS, the calling address behind a trusted proxy, HTTPS with HTTP/2 and HTTP/1.1 by
//! ALPN, and graceful shutdown with a request in flight. Each test runs its own server with the
//! limits it needs; timing assertions only ever say that something did not happen too early.

use std::io::{BufReader, Write};
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::{Method, Request, Version};
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::Value;
use tapster_domain::AddressBlock;
use tapster_edge::{ClientIpHeader, ServeConfig, TlsConfig, TrustedProxies};
use tapster_http::{App, Credentials, Gate, Refusal, Verdict};
use tapster_test_support::http::{Answer, PATIENCE, closed_after, connect, exchange};
use tapster_test_support::tls::SelfSigned;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::{OneKey, key, request_with, server};

/// Refused by [`EdgeGate`] as a blocked address.
const BLOCKED: &str = "203.0.113.9";
/// Admitted by [`EdgeGate`] only after [`SLOW_FOR`]: a caller whose requests take long to decide.
const SLOW: &str = "198.51.100.7";
const SLOW_FOR: Duration = Duration::from_millis(1500);

/// The test key's gate, with one blocked address and one slow one.
#[derive(Debug, Default)]
struct EdgeGate {
    /// Slow requests that have entered the gate.
    slow_entered: Arc<AtomicUsize>,
    /// Which admits the rest.
    one_key: OneKey,
}

impl Gate for EdgeGate {
    fn admit(&self, peer: IpAddr, credentials: &Credentials, origin: Option<&str>) -> Verdict {
        if peer == ip(BLOCKED) {
            return Err(Refusal::BlockedAddress).into();
        }
        if peer == ip(SLOW) {
            self.slow_entered.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(SLOW_FOR);
        }
        self.one_key.admit(peer, credentials, origin)
    }
}

fn ip(address: &str) -> IpAddr {
    address.parse().unwrap()
}

/// A server of its own, on the small dataset.
struct EdgeServer {
    addr: SocketAddr,
    slow_entered: Arc<AtomicUsize>,
    stop: Option<oneshot::Sender<()>>,
    served: Option<JoinHandle<std::io::Result<()>>>,
    runtime: tokio::runtime::Runtime,
}

fn start(config: ServeConfig) -> EdgeServer {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap();
    let gate = EdgeGate::default();
    let slow_entered = Arc::clone(&gate.slow_entered);
    let app = Arc::new(App::new(server().app.store(), gate));
    let (stop, stopped) = oneshot::channel::<()>();
    let served = runtime.spawn(tapster_edge::serve(listener, app, config, async {
        let _ = stopped.await;
    }));
    EdgeServer { addr, slow_entered, stop: Some(stop), served: Some(served), runtime }
}

/// Trusts this machine's `X-Forwarded-For`, as from a proxy in front of the server.
fn behind_proxy() -> ServeConfig {
    let proxies = vec![AddressBlock::parse("127.0.0.1").unwrap()];
    let trusted = TrustedProxies { header: ClientIpHeader::XForwardedFor, proxies };
    ServeConfig { trusted_proxies: Some(trusted), ..Default::default() }
}

fn authorization() -> String {
    format!("Authorization: Bearer {}\r\n", key().expose())
}

/// Checks that `answer` is whole problem+json and returns it.
fn problem(answer: &Answer) -> Value {
    assert_eq!(answer.header("content-type"), "application/problem+json", "{answer:?}");
    let problem = answer.json();
    assert_eq!(problem["status"], answer.status, "{problem}");
    for field in ["type", "title", "detail", "instance"] {
        assert!(problem[field].as_str().is_some_and(|v| !v.is_empty()), "{field}: {problem}");
    }
    problem
}

/// `GET target` on a new connection, with `extra` header lines as written on the wire.
fn get(addr: SocketAddr, target: &str, extra: &str) -> Answer {
    exchange(addr, &format!("GET {target} HTTP/1.1\r\nHost: tapster\r\nConnection: close\r\n{extra}\r\n"), 1)
        .remove(0)
}

#[test]
fn a_client_that_sends_half_a_request_line_is_cut_off() {
    let server = start(ServeConfig {
        header_read_timeout: Duration::from_secs(1),
        keep_alive_idle: Duration::from_secs(120),
        ..Default::default()
    });
    let mut stream = connect(server.addr);
    stream.write_all(b"GET /heal").unwrap();
    let waited = closed_after(&mut stream);
    assert!(waited >= Duration::from_millis(900), "closed before the header timeout: {waited:?}");
    // The server still answers everyone else.
    assert_eq!(get(server.addr, "/healthz", "").status, 200);
}

#[test]
fn an_idle_keep_alive_connection_is_closed() {
    let server = start(ServeConfig {
        keep_alive_idle: Duration::from_secs(1),
        header_read_timeout: Duration::from_secs(120),
        ..Default::default()
    });
    let mut stream = connect(server.addr);
    stream.write_all(b"GET /healthz HTTP/1.1\r\nHost: tapster\r\n\r\n").unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    assert_eq!(Answer::read(&mut reader).unwrap().status, 200);
    // Kept alive: a second request on it is answered.
    stream.write_all(b"GET /healthz HTTP/1.1\r\nHost: tapster\r\n\r\n").unwrap();
    assert_eq!(Answer::read(&mut reader).unwrap().status, 200);
    let waited = closed_after(&mut stream);
    assert!(waited >= Duration::from_millis(900), "closed before the idle timeout: {waited:?}");

    // A connection that never sends a byte is idle too.
    let mut silent = connect(server.addr);
    closed_after(&mut silent);
}

#[test]
fn oversized_headers_get_431_problem_json() {
    let server = start(ServeConfig { max_header_bytes: 2048, ..Default::default() });
    let answer = get(server.addr, "/v1/versions", &format!("X-Filler: {}\r\n", "a".repeat(3000)));
    assert_eq!(answer.status, 431);
    let problem = problem(&answer);
    assert_eq!(problem["type"], "/errors/headers-too-large");
    assert!(problem["detail"].as_str().unwrap().contains("2048"), "{problem}");
    assert_eq!(answer.header("access-control-allow-origin"), "*");
    // Within the limit, the same request is answered.
    let answer =
        get(server.addr, "/v1/versions", &format!("{}X-Filler: {}\r\n", authorization(), "a".repeat(1000)));
    assert_eq!(answer.status, 200);
}

#[test]
fn a_long_uri_gets_414_problem_json() {
    let server = start(ServeConfig { max_uri_bytes: 512, ..Default::default() });
    // Checked before the key, so even an anonymous client learns what is wrong.
    let answer = get(server.addr, &format!("/v1/items?search={}", "x".repeat(600)), "");
    assert_eq!(answer.status, 414);
    let problem = problem(&answer);
    assert_eq!(problem["type"], "/errors/uri-too-long");
    assert_eq!(problem["instance"], "/v1/items");
    assert_eq!(get(server.addr, &format!("/healthz?{}", "x".repeat(600)), "").status, 414);
    assert_eq!(get(server.addr, "/healthz", "").status, 200);

    // Answered at the edge, and still counted.
    let metrics = get(server.addr, "/metrics", "");
    let text = String::from_utf8_lossy(&metrics.body);
    for series in [
        r#"tapster_http_requests_total{route="/v1/items",status="414"} 1"#,
        r#"tapster_http_requests_total{route="/healthz",status="414"} 1"#,
        r#"tapster_http_requests_total{route="/healthz",status="200"} 1"#,
    ] {
        assert!(text.lines().any(|line| line == series), "{series} missing from:\n{text}");
    }
}

#[test]
fn requests_with_a_body_are_refused() {
    let server = start(ServeConfig::default());
    let head = format!("Host: tapster\r\nConnection: close\r\n{}", authorization());
    let cases = [
        (format!("GET /v1/versions HTTP/1.1\r\n{head}Content-Length: 5\r\n\r\nhello"), 413),
        (
            format!(
                "GET /v1/versions HTTP/1.1\r\n{head}Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
            ),
            413,
        ),
        (format!("OPTIONS /v1/versions HTTP/1.1\r\n{head}Content-Length: 2\r\n\r\n{{}}"), 413),
        // Other methods keep their 405, body or not.
        (format!("POST /v1/versions HTTP/1.1\r\n{head}Content-Length: 5\r\n\r\nhello"), 405),
        // An empty body is no body.
        (format!("GET /v1/versions HTTP/1.1\r\n{head}Content-Length: 0\r\n\r\n"), 200),
    ];
    for (raw, status) in cases {
        let answer = exchange(server.addr, &raw, 1).remove(0);
        assert_eq!(answer.status, status, "{raw}");
        if status == 413 {
            let problem = problem(&answer);
            assert_eq!(problem["type"], "/errors/content-too-large");
            assert_eq!(problem["detail"], "this API only reads; requests must not carry a body");
        }
    }
}

#[test]
fn connections_over_the_maximum_get_503_and_are_closed() {
    let server = start(ServeConfig { max_connections: 2, ..Default::default() });
    let request = "GET /healthz HTTP/1.1\r\nHost: tapster\r\n\r\n";
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut stream = connect(server.addr);
        stream.write_all(request.as_bytes()).unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        assert_eq!(Answer::read(&mut reader).unwrap().status, 200);
        held.push(stream);
    }

    let mut third = connect(server.addr);
    third.write_all(request.as_bytes()).unwrap();
    let mut reader = BufReader::new(third.try_clone().unwrap());
    let answer = Answer::read(&mut reader).unwrap();
    assert_eq!(answer.status, 503);
    assert_eq!(answer.header("retry-after"), "1");
    assert_eq!(problem(&answer)["type"], "/errors/unavailable");
    assert!(Answer::read(&mut reader).is_none(), "the connection over the limit stays open");

    // Once a held connection closes, new ones are served again.
    drop(held.pop());
    let deadline = Instant::now() + PATIENCE;
    while get(server.addr, "/healthz", "").status != 200 {
        assert!(Instant::now() < deadline, "a freed connection slot was never reused");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_request_past_its_time_budget_gets_503() {
    let server = start(ServeConfig { request_budget: Duration::from_millis(300), ..behind_proxy() });
    // Two pipelined requests arrive together; the first takes longer than the budget to decide, so
    // the second has waited past its budget when its turn comes, and is not worked on.
    let auth = authorization();
    let raw = format!(
        "GET /v1/versions HTTP/1.1\r\nHost: tapster\r\nX-Forwarded-For: {SLOW}\r\n{auth}\r\n\
         GET /v1/versions HTTP/1.1\r\nHost: tapster\r\nConnection: close\r\n{auth}\r\n"
    );
    let answers = exchange(server.addr, &raw, 2);
    assert_eq!(answers[0].status, 200);
    assert_eq!(answers[1].status, 503);
    assert_eq!(answers[1].header("retry-after"), "1");
    let problem = problem(&answers[1]);
    assert_eq!(problem["type"], "/errors/unavailable");
    assert!(problem["detail"].as_str().unwrap().contains("time budget"), "{problem}");
    // A request that did not wait is served.
    assert_eq!(
        get(server.addr, "/v1/versions", &format!("{auth}X-Forwarded-For: 192.0.2.1\r\n")).status,
        200
    );
}

#[test]
fn preflights_need_no_key_and_every_answer_allows_any_origin() {
    let preflight_headers = [
        ("origin", "https://tools.example"),
        ("access-control-request-method", "GET"),
        ("access-control-request-headers", "authorization"),
    ];
    for path in ["/v1/items", "/v1/nothing-here", "/healthz"] {
        let answer = request_with(Method::OPTIONS, path, &preflight_headers);
        assert_eq!(answer.status, 204, "{path}");
        let header = |name: &str| answer.headers.get(name).map(|v| v.to_str().unwrap().to_owned());
        assert_eq!(header("access-control-allow-origin").as_deref(), Some("*"));
        assert_eq!(header("access-control-allow-methods").as_deref(), Some("GET, HEAD, OPTIONS"));
        assert_eq!(
            header("access-control-allow-headers").as_deref(),
            Some("Authorization, If-None-Match, Range, If-Range")
        );
        assert!(header("access-control-max-age").is_some_and(|age| age.parse::<u32>().unwrap() > 0));
        assert!(answer.body.is_empty());
    }

    let authorization = format!("Bearer {}", key().expose());
    let ok = request_with(Method::GET, "/v1/versions", &[("authorization", &authorization)]);
    let etag = ok.headers["etag"].to_str().unwrap().to_owned();
    let not_modified = request_with(
        Method::GET,
        "/v1/versions",
        &[("authorization", &authorization), ("if-none-match", &etag)],
    );
    let unauthorized = request_with(Method::GET, "/v1/versions", &[]);
    let not_allowed = request_with(Method::DELETE, "/v1/versions", &[("authorization", &authorization)]);
    for (answer, status) in [(ok, 200), (not_modified, 304), (unauthorized, 401), (not_allowed, 405)] {
        assert_eq!(answer.status.as_u16(), status);
        assert_eq!(answer.headers["access-control-allow-origin"], "*", "{status}");
        let exposed: Vec<&str> =
            answer.headers["access-control-expose-headers"].to_str().unwrap().split(", ").collect();
        let names =
            ["ETag", "RateLimit", "RateLimit-Policy", "Retry-After", "Content-Encoding", "Content-Range"];
        for name in names {
            assert!(exposed.contains(&name), "{status}: {exposed:?} lacks {name}");
        }
    }
}

#[test]
fn the_calling_address_comes_from_the_header_of_trusted_proxies_only() {
    let auth = authorization();
    let proxied = start(behind_proxy());
    let cases = [
        (format!("X-Forwarded-For: {BLOCKED}\r\n"), 403),
        (format!("X-Forwarded-For: {BLOCKED}, 127.0.0.1\r\n"), 403),
        // Whatever the client wrote left of the address the proxy saw is not believed.
        (format!("X-Forwarded-For: {BLOCKED}, 192.0.2.1\r\n"), 200),
        ("X-Forwarded-For: garbage, 192.0.2.1\r\n".to_owned(), 200),
        // Only the header the proxies write is read.
        (format!("Forwarded: for={BLOCKED}\r\nX-Real-IP: {BLOCKED}\r\nX-Forwarded-For: 192.0.2.1\r\n"), 200),
        // Where the caller's entry cannot be read, or there is none, the caller is unknown: `400`,
        // never the proxy's own address.
        (format!("X-Forwarded-For: {BLOCKED}, garbage\r\n"), 400),
        (format!("Forwarded: for={BLOCKED}\r\n"), 400),
        (String::new(), 400),
    ];
    for (forwarded, status) in &cases {
        let answer = get(proxied.addr, "/v1/versions", &format!("{auth}{forwarded}"));
        assert_eq!(answer.status, *status, "{forwarded}");
        if *status == 403 {
            assert!(problem(&answer)["detail"].as_str().unwrap().contains("address are blocked"));
        }
        if *status == 400 {
            let problem = problem(&answer);
            assert_eq!(problem["type"], "/errors/unknown-caller");
            assert!(problem["detail"].as_str().unwrap().contains("x-forwarded-for"), "{problem}");
        }
    }

    // The same headers from a peer that is not a trusted proxy are ignored.
    let direct = start(ServeConfig::default());
    for forwarded in [format!("X-Forwarded-For: {BLOCKED}\r\n"), format!("Forwarded: for={BLOCKED}\r\n")] {
        assert_eq!(
            get(direct.addr, "/v1/versions", &format!("{auth}{forwarded}")).status,
            200,
            "{forwarded}"
        );
    }
}

fn tls_server(config: ServeConfig) -> (EdgeServer, SelfSigned) {
    let certificate = SelfSigned::localhost();
    let tls = TlsConfig::from_pem(certificate.cert_pem.as_bytes(), certificate.key_pem.as_bytes()).unwrap();
    (start(ServeConfig { tls: Some(tls), ..config }), certificate)
}

/// Sends requests over one TLS connection, speaking whichever protocol ALPN chose.
enum TlsClient {
    H2(hyper::client::conn::http2::SendRequest<Empty<Bytes>>),
    H1(hyper::client::conn::http1::SendRequest<Empty<Bytes>>),
}

impl TlsClient {
    async fn open(addr: SocketAddr, certificate: &SelfSigned, alpn: &[u8]) -> Self {
        let (stream, chosen) = certificate.connect(addr, alpn).await;
        assert_eq!(chosen, alpn, "ALPN");
        let io = TokioIo::new(stream);
        if alpn == b"h2" {
            let (sender, connection) =
                hyper::client::conn::http2::handshake(TokioExecutor::new(), io).await.unwrap();
            tokio::spawn(connection);
            Self::H2(sender)
        } else {
            let (sender, connection) = hyper::client::conn::http1::handshake(io).await.unwrap();
            tokio::spawn(connection);
            Self::H1(sender)
        }
    }

    /// `GET path`, with the key when `keyed`: status, HTTP version and body.
    async fn get(&mut self, path: &str, keyed: bool) -> (u16, Version, Bytes) {
        let mut request = Request::get(format!("https://localhost{path}"));
        if keyed {
            request = request.header("authorization", format!("Bearer {}", key().expose()));
        }
        let request = request.body(Empty::new()).unwrap();
        let response = match self {
            Self::H2(sender) => sender.send_request(request).await.unwrap(),
            Self::H1(sender) => {
                sender.ready().await.unwrap();
                sender.send_request(request).await.unwrap()
            }
        };
        let (status, version) = (response.status().as_u16(), response.version());
        (status, version, response.into_body().collect().await.unwrap().to_bytes())
    }
}

fn client_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

#[test]
fn https_speaks_http2_and_http1_by_alpn() {
    let (server, certificate) = tls_server(ServeConfig::default());
    client_runtime().block_on(async {
        for (alpn, version) in [(&b"h2"[..], Version::HTTP_2), (&b"http/1.1"[..], Version::HTTP_11)] {
            let mut client = TlsClient::open(server.addr, &certificate, alpn).await;
            let (status, answered_in, _) = client.get("/healthz", false).await;
            assert_eq!((status, answered_in), (200, version));
            let (status, _, body) = client.get("/v1/versions", true).await;
            assert_eq!(status, 200);
            let versions: Value = serde_json::from_slice(&body).unwrap();
            assert!(versions["data"].as_array().is_some_and(|data| !data.is_empty()), "{versions}");
            let (status, _, _) = client.get("/v1/versions", false).await;
            assert_eq!(status, 401);
        }
    });
    // Plain HTTP on the HTTPS port gets no HTTP answer.
    let mut stream = connect(server.addr);
    stream.write_all(b"GET /healthz HTTP/1.1\r\nHost: tapster\r\n\r\n").unwrap();
    let mut reader = BufReader::new(stream);
    assert!(Answer::read(&mut reader).is_none());
}

#[test]
fn certificates_that_cannot_be_served_are_errors() {
    let SelfSigned { cert_pem: cert, key_pem: key, .. } = SelfSigned::localhost();
    let other_cert = SelfSigned::localhost().cert_pem;
    assert!(TlsConfig::from_pem(cert.as_bytes(), key.as_bytes()).is_ok());
    let cases: [(&str, &str, &str); 4] = [
        ("", &key, "no PEM certificate"),
        (&cert, "", "private key"),
        (&key, &key, "no PEM certificate"),
        (&other_cert, &key, "cannot be used together"),
    ];
    for (cert, key, expected) in cases {
        let error = TlsConfig::from_pem(cert.as_bytes(), key.as_bytes()).unwrap_err();
        assert!(error.to_string().contains(expected), "{error}");
    }
}

/// Starts a slow request, begins shutdown while it is in flight, and checks that it completes, that
/// `serve` returns, and that the port no longer accepts connections.
fn shutdown_with_a_request_in_flight(
    mut server: EdgeServer,
    in_flight: impl FnOnce(SocketAddr) -> u16 + Send + 'static,
) {
    let addr = server.addr;
    let request = std::thread::spawn(move || in_flight(addr));
    let deadline = Instant::now() + PATIENCE;
    while server.slow_entered.load(Ordering::SeqCst) == 0 {
        assert!(Instant::now() < deadline, "the slow request never arrived");
        std::thread::sleep(Duration::from_millis(10));
    }
    server.stop.take().unwrap().send(()).unwrap();
    assert_eq!(request.join().unwrap(), 200, "the request in flight did not complete");
    let served = server.served.take().unwrap();
    let result = server.runtime.block_on(async { tokio::time::timeout(PATIENCE, served).await });
    result.expect("serve did not return").unwrap().unwrap();
    assert!(TcpStream::connect(addr).is_err(), "a connection was accepted after shutdown");
}

#[test]
fn shutdown_lets_a_request_in_flight_finish_over_http1() {
    let server = start(behind_proxy());
    shutdown_with_a_request_in_flight(server, |addr| {
        get(addr, "/v1/versions", &format!("{}X-Forwarded-For: {SLOW}\r\n", authorization())).status
    });
}

#[test]
fn shutdown_lets_a_request_in_flight_finish_over_https_and_http2() {
    let (server, certificate) = tls_server(behind_proxy());
    shutdown_with_a_request_in_flight(server, move |addr| {
        client_runtime().block_on(async {
            let (stream, _) = certificate.connect(addr, b"h2").await;
            let (mut sender, connection) =
                hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
                    .await
                    .unwrap();
            tokio::spawn(connection);
            let request = Request::get("https://localhost/v1/versions")
                .header("authorization", format!("Bearer {}", key().expose()))
                .header("x-forwarded-for", SLOW)
                .body(Empty::<Bytes>::new())
                .unwrap();
            let response = sender.send_request(request).await.unwrap();
            let status = response.status().as_u16();
            response.into_body().collect().await.unwrap();
            status
        })
    });
}

//! Pages served beside the API: they get the paths they claim (never one under `/v1`) and the
//! calling address, read their own forms and render their own refusals, and get no CORS headers;
//! the API is untouched by them. They say who a browser is, and the API's own pages (`/docs`,
//! `/changelog`) wear the header of that visitor, cached by a cache no further than it should be.

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{COOKIE, HeaderMap, HeaderValue};
use hyper::{Request, Response, StatusCode};
use tapster_edge::{Answer, Body, BodyError, Refusal, ServeConfig, Service, read_body};
use tapster_http::{App, Pages, Visit, Visitor};
use tapster_site::Nav;
use tapster_store::Store;
use tapster_test_support::DataDir;

use crate::{OneKey, key};

/// The largest form the test pages read.
const MAX_FORM_BYTES: usize = 16 * 1024;

/// Pages that claim every path and answer with what they received; a refusal, or a body they could
/// not read, is rendered as its name. A browser that sends the cookie `session=<token>` is signed in,
/// with that token as its form token, and is given the cookie `seen=1`; one that sends `session=`
/// (a session that ended) is not, and is given the cookie cleared; both are known later, as a
/// lookup would find them. A browser without the cookie is known at once.
#[derive(Debug)]
struct Echo;

impl Service for Echo {
    fn call(self: Arc<Self>, request: Request<Incoming>, peer: IpAddr) -> Answer {
        Answer::Later(Box::pin(async move {
            let request = match read_body(request, MAX_FORM_BYTES, Duration::from_secs(10)).await {
                Ok(request) => request,
                Err(error @ BodyError::TooLarge { .. }) => {
                    return page(StatusCode::PAYLOAD_TOO_LARGE, format!("unread: {error:?}"));
                }
                Err(error) => return page(StatusCode::BAD_REQUEST, format!("unread: {error:?}")),
            };
            let body = format!(
                "{} {} from {peer}: {}",
                request.method(),
                request.uri().path(),
                String::from_utf8_lossy(request.body())
            );
            Response::new(Full::new(Bytes::from(body)))
        }))
    }

    fn refused(&self, _: &Request<Incoming>, _: IpAddr, refusal: Refusal) -> Response<Body> {
        page(StatusCode::SERVICE_UNAVAILABLE, format!("refused: {refusal:?}"))
    }
}

impl Pages for Echo {
    fn claims(&self, _path: &str) -> bool {
        true
    }

    fn visit(&self, headers: &HeaderMap, path: &str, _: IpAddr) -> Visitor {
        let token =
            headers.get(COOKIE).and_then(|c| c.to_str().ok()?.strip_prefix("session=").map(str::to_owned));
        let visit = match token {
            None => return Visitor::Now(Visit::SIGNED_OUT),
            Some(ended) if ended.is_empty() => {
                Visit { signed_in: None, set_cookie: vec![HeaderValue::from_static("session=; Max-Age=0")] }
            }
            Some(csrf) => Visit {
                signed_in: Some(Nav { current: path.to_owned(), signed_in: true, csrf }),
                set_cookie: vec![HeaderValue::from_static("seen=1")],
            },
        };
        Visitor::Later(Box::pin(std::future::ready(visit)))
    }
}

fn page(status: StatusCode, text: String) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(text)));
    *response.status_mut() = status;
    response
}

struct Running {
    addr: SocketAddr,
    _runtime: tokio::runtime::Runtime,
    _data_dir: DataDir,
}

fn server() -> &'static Running {
    static SERVER: OnceLock<Running> = OnceLock::new();
    SERVER.get_or_init(|| {
        let data_dir = DataDir::mini();
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let addr = listener.local_addr().unwrap();
        let app =
            Arc::new(App::new(Store::open(data_dir.path()).unwrap(), OneKey::default()).with_pages(Echo));
        runtime.spawn(tapster_edge::serve(listener, app, ServeConfig::default(), std::future::pending()));
        Running { addr, _runtime: runtime, _data_dir: data_dir }
    })
}

/// Sends `head` (request line and headers, without the blank line) and `body`; returns the whole
/// answer as text.
fn exchange(head: &str, body: &[u8]) -> String {
    let mut stream = TcpStream::connect(server().addr).unwrap();
    stream.write_all(format!("{head}\r\nConnection: close\r\n\r\n").as_bytes()).unwrap();
    // The server may answer (413) and close before the whole body is written.
    let _ = stream.write_all(body);
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
}

#[test]
fn a_page_gets_its_form_and_the_calling_address_and_no_cors_headers() {
    let answer = exchange("POST /account/keys HTTP/1.1\r\nHost: x\r\nContent-Length: 9", b"name=wiki");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.ends_with("POST /account/keys from 127.0.0.1: name=wiki"), "{answer}");
    assert!(!answer.to_ascii_lowercase().contains("access-control-allow-origin"), "{answer}");

    let chunked = exchange(
        "POST /signin HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked",
        b"5\r\nemail\r\n3\r\n=me\r\n0\r\n\r\n",
    );
    assert!(chunked.ends_with("POST /signin from 127.0.0.1: email=me"), "{chunked}");
}

/// The pages read their own forms: a body over their limit is theirs to refuse, declared or streamed.
#[test]
fn a_body_over_the_limit_is_refused_whether_declared_or_streamed() {
    let large = vec![b'a'; MAX_FORM_BYTES + 1];
    let declared =
        exchange(&format!("POST /signin HTTP/1.1\r\nHost: x\r\nContent-Length: {}", large.len()), &large);
    assert!(declared.starts_with("HTTP/1.1 413"), "{declared}");
    assert!(declared.contains("unread: TooLarge { limit: 16384 }"), "{declared}");

    let mut chunks = format!("{:x}\r\n", large.len()).into_bytes();
    chunks.extend_from_slice(&large);
    chunks.extend_from_slice(b"\r\n0\r\n\r\n");
    let streamed = exchange("POST /signin HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked", &chunks);
    assert!(streamed.starts_with("HTTP/1.1 413"), "{streamed}");
    assert!(streamed.contains("unread: TooLarge"), "{streamed}");
}

#[test]
fn the_api_keeps_its_paths_whatever_the_pages_claim() {
    let authorization = format!("Authorization: Bearer {}", key().expose());
    let api = exchange(&format!("GET /v1/versions HTTP/1.1\r\nHost: x\r\n{authorization}"), b"");
    assert!(api.starts_with("HTTP/1.1 200"), "{api}");
    assert!(api.contains("\"data\""), "{api}");
    let refused = exchange("POST /v1/versions HTTP/1.1\r\nHost: x\r\nContent-Length: 1", b"x");
    assert!(refused.contains("application/problem+json"), "{refused}");
    assert!(!refused.contains("from 127.0.0.1"), "{refused}");
    // So are its public routes.
    let health = exchange("GET /healthz HTTP/1.1\r\nHost: x", b"");
    assert!(health.starts_with("HTTP/1.1 200") && !health.contains("from 127.0.0.1"), "{health}");
}

#[test]
fn pages_are_counted_under_their_own_route_label() {
    exchange("GET / HTTP/1.1\r\nHost: x", b"");
    let metrics = exchange("GET /metrics HTTP/1.1\r\nHost: x", b"");
    // `/metrics` is the API's, though the pages claim every path.
    assert!(metrics.contains("tapster_http_requests_total{route=\"pages\",status=\"200\"}"), "{metrics}");
}

/// A request the edge refuses on one of the pages' paths is the pages' to render (and is counted
/// under their label); on one of the API's, the API's problem+json.
#[test]
fn the_edges_refusals_are_rendered_by_whoever_owns_the_path() {
    let long = "a".repeat(9 * 1024);
    let page = exchange(&format!("GET /signin?{long} HTTP/1.1\r\nHost: x"), b"");
    assert!(page.contains("refused: UriTooLong { length: "), "{page:.300}");
    let api = exchange(&format!("GET /v1/versions?{long} HTTP/1.1\r\nHost: x"), b"");
    assert!(api.starts_with("HTTP/1.1 414"), "{api:.300}");
    assert!(api.contains("/errors/uri-too-long"), "{api:.300}");
}

/// The value of header `name` in the raw `answer`, or empty.
fn header<'a>(answer: &'a str, name: &str) -> &'a str {
    let head = answer.split("\r\n\r\n").next().unwrap_or_default();
    head.lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(key, _)| key.eq_ignore_ascii_case(name))
        .map_or("", |(_, value)| value.trim())
}

/// `/docs` and `/changelog` show a visitor who is not signed in the way to sign in, and one who is
/// their keys and the sign-out button with their form token; every answer says it varies by the
/// cookie, a signed-in one is private, and each kind has its own entity tag, which revalidates only
/// that kind.
#[test]
fn the_apis_pages_wear_the_header_of_who_asks() {
    for path in ["/docs", "/changelog"] {
        let out = exchange(&format!("GET {path} HTTP/1.1\r\nHost: x"), b"");
        assert!(out.starts_with("HTTP/1.1 200"), "{out:.300}");
        assert_eq!(out.matches("<header class=\"top\">").count(), 1, "{path}: one header");
        assert!(out.contains(r#"<a href="/signin">Sign in</a>"#), "{path}");
        assert!(!out.contains("Your keys") && !out.contains("/signout"), "{path}");
        assert!(out.contains(&format!(r#"<a href="{path}" aria-current="page">"#)), "{path}");
        assert_eq!(header(&out, "vary"), "Cookie", "{path}");
        assert_eq!(header(&out, "cache-control"), "no-cache", "{path}");
        assert_eq!(header(&out, "set-cookie"), "", "{path}: a signed-out answer sets nothing");
        assert_eq!(header(&out, "access-control-allow-origin"), "", "{path}: a page is not the API's data");

        // The cookie of a session that ended is cleared with the signed-out page, which is then for
        // that browser alone.
        let ended = exchange(&format!("GET {path} HTTP/1.1\r\nHost: x\r\nCookie: session="), b"");
        assert!(ended.starts_with("HTTP/1.1 200"), "{ended:.300}");
        assert_eq!(ended.split("\r\n\r\n").nth(1), out.split("\r\n\r\n").nth(1), "{path}");
        assert_eq!(header(&ended, "etag"), header(&out, "etag"), "{path}");
        assert_eq!(header(&ended, "set-cookie"), "session=; Max-Age=0", "{path}");
        assert_eq!(header(&ended, "cache-control"), "private, no-cache", "{path}");

        let within = exchange(&format!("GET {path} HTTP/1.1\r\nHost: x\r\nCookie: session=tok3n"), b"");
        assert!(within.starts_with("HTTP/1.1 200"), "{within:.300}");
        assert!(within.contains(r#"<a href="/account">Your keys</a>"#), "{path}");
        assert!(within.contains(r#"<a href="/account/webhooks">Webhooks</a>"#), "{path}");
        assert!(within.contains(r#"<input type="hidden" name="csrf" value="tok3n">"#), "{path}");
        assert!(!within.contains(r#"href="/signin">Sign in<"#), "{path}");
        assert_eq!(header(&within, "vary"), "Cookie", "{path}");
        assert_eq!(header(&within, "cache-control"), "private, no-cache", "{path}");
        assert_eq!(header(&within, "set-cookie"), "seen=1", "{path}");
        assert_eq!(header(&within, "access-control-allow-origin"), "", "{path}");

        let (out_tag, within_tag) = (header(&out, "etag"), header(&within, "etag"));
        assert!(out_tag.starts_with('"') && within_tag.starts_with('"'), "{out_tag} {within_tag}");
        assert_ne!(out_tag, within_tag, "{path}: one tag for two answers");
        let held = exchange(
            &format!(
                "GET {path} HTTP/1.1\r\nHost: x\r\nCookie: session=tok3n\r\nIf-None-Match: {within_tag}"
            ),
            b"",
        );
        assert!(held.starts_with("HTTP/1.1 304"), "{held:.300}");
        assert_eq!(header(&held, "etag"), within_tag);
        let other = exchange(&format!("GET {path} HTTP/1.1\r\nHost: x\r\nIf-None-Match: {within_tag}"), b"");
        assert!(
            other.starts_with("HTTP/1.1 200"),
            "{path}: a signed-out visitor got the signed-in tag's 304"
        );
        let again = exchange(&format!("GET {path} HTTP/1.1\r\nHost: x\r\nIf-None-Match: {out_tag}"), b"");
        assert!(again.starts_with("HTTP/1.1 304"), "{again:.300}");
    }
    // The API's data stays open to every origin's tools beside them.
    let document = exchange("GET /openapi.json HTTP/1.1\r\nHost: x", b"");
    assert_eq!(header(&document, "access-control-allow-origin"), "*");
}

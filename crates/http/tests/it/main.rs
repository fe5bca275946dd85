//! Integration tests: the real server on `127.0.0.1:0`, over TCP, with a real HTTP client, on the
//! small hand-written dataset (`get`) and on the bundled dataset (`bundled_get`).

mod answers;
mod caching;
mod changelog;
mod changes;
mod edge;
mod errors;
mod exports;
mod hostile;
mod items;
mod key;
mod logs;
mod metrics;
mod openapi;
mod pages;
mod pictures;
mod prices;
mod progression;
mod recipes;
mod reference;
mod relations;
mod search;
mod versions;
mod wire;
mod world;

use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::{HeaderMap, Method, Request, StatusCode};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use tapster_domain::{ApiKey, Timestamp};
use tapster_http::{
    Admission, App, CallingKey, Credentials, Gate, Policies, Policy, PolicyState, Quota, Refusal, Verdict,
};
use tapster_store::Store;
use tapster_test_support::{DataDir, fixtures, mini};

/// The one key the test gate knows.
fn key() -> &'static ApiKey {
    static KEY: OnceLock<ApiKey> = OnceLock::new();
    KEY.get_or_init(|| {
        let mut n = 0u8;
        ApiKey::generate(move || {
            n = n.wrapping_add(101);
            n
        })
    })
}

/// A gate that knows one key and never runs out, though it counts its requests: the real one
/// (accounts, limits) is the server crate's and is tested there; this crate's tests are about routes,
/// envelopes and headers.
#[derive(Debug)]
struct OneKey {
    described: Arc<CallingKey>,
    requests: AtomicU64,
}

/// What the test gate says its key is called and when it expires (`2030-01-01T00:00:00Z`).
const KEY_NAME: &str = "integration tests";
const KEY_EXPIRES: i64 = 1_893_456_000;

impl Default for OneKey {
    fn default() -> Self {
        let described = CallingKey {
            prefix: key().display_prefix().to_owned(),
            name: KEY_NAME.to_owned(),
            expires_at: Some(Timestamp(KEY_EXPIRES)),
        };
        Self { described: Arc::new(described), requests: AtomicU64::new(0) }
    }
}

impl Gate for OneKey {
    fn admit(&self, _peer: std::net::IpAddr, credentials: &Credentials, _: Option<&str>) -> Verdict {
        let decided = match credentials {
            Credentials::Key(k) if k == key() => {
                let minute = Policy { name: "minute", quota: 100, window: 60 };
                Ok(Admission {
                    key: Arc::clone(&self.described),
                    quota: Quota::new(
                        Policies::new(&[minute]),
                        &[PolicyState { policy: minute, remaining: 99, reset: 60 }],
                    ),
                    requests_today: self.requests.fetch_add(1, Ordering::Relaxed) + 1,
                    allowed_origin: None,
                })
            }
            Credentials::Key(_) => Err(Refusal::UnknownKey),
            Credentials::Missing => Err(Refusal::MissingKey),
            Credentials::Malformed { detail } => Err(Refusal::MalformedKey { detail }),
        };
        decided.into()
    }
}

/// A running server, shared by every test of this binary; it lives as long as the process.
struct Server {
    addr: SocketAddr,
    app: Arc<App>,
    runtime: tokio::runtime::Runtime,
    client: Client<HttpConnector, Empty<Bytes>>,
}

/// The server on the small hand-written dataset, imported with its exports as the server imports.
fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    static DATA_DIR: OnceLock<DataDir> = OnceLock::new();
    let data_dir = DATA_DIR.get_or_init(|| DataDir::with_exports(&mini(), tapster_http::exports::exporter()));
    SERVER.get_or_init(|| start(data_dir.path(), tapster_http::DEFAULT_CACHE_BUDGET))
}

/// The server on the bundled dataset (three versions, 27 languages, real scale).
fn bundled() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| start(bundled_data_dir(), tapster_http::DEFAULT_CACHE_BUDGET))
}

/// A second server on the same bundled data, without a response cache: every answer rendered afresh.
fn bundled_uncached() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| start(bundled_data_dir(), 0))
}

/// The bundled dataset, imported once with its exports; it outlives the test process's servers.
fn bundled_data_dir() -> &'static Path {
    static DATA_DIR: OnceLock<DataDir> = OnceLock::new();
    DATA_DIR.get_or_init(|| DataDir::with_exports(&fixtures(), tapster_http::exports::exporter())).path()
}

fn start(data_dir: &Path, cache_budget: usize) -> Server {
    {
        let store = Store::open(data_dir).unwrap();
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let addr = listener.local_addr().unwrap();
        let app = Arc::new(App::new(store, OneKey::default()).with_cache_budget(cache_budget));
        let config = tapster_edge::ServeConfig { shutdown_grace: Duration::ZERO, ..Default::default() };
        runtime.spawn(tapster_edge::serve(listener, Arc::clone(&app), config, std::future::pending()));
        let client = Client::builder(TokioExecutor::new()).build_http();
        Server { addr, app, runtime, client }
    }
}

/// One answer: status, headers, and the body as bytes.
struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {:?}", self.body))
    }

    fn content_type(&self) -> &str {
        self.headers.get("content-type").map(|v| v.to_str().unwrap()).unwrap_or_default()
    }
}

fn request(method: Method, path: &str) -> Answer {
    let authorization = format!("Bearer {}", key().expose());
    request_with(method, path, &[("authorization", &authorization)])
}

fn request_with(method: Method, path: &str, headers: &[(&str, &str)]) -> Answer {
    send(server(), method, path, headers)
}

/// `GET` with the key, on the bundled dataset.
fn bundled_get(path: &str) -> Answer {
    let authorization = format!("Bearer {}", key().expose());
    send(bundled(), Method::GET, path, &[("authorization", &authorization)])
}

/// `GET` with the key and any further headers, on the bundled dataset, from the cached or the uncached server.
fn bundled_request(cached: bool, path: &str, headers: &[(&str, &str)]) -> Answer {
    let authorization = format!("Bearer {}", key().expose());
    let mut all = vec![("authorization", authorization.as_str())];
    all.extend_from_slice(headers);
    send(if cached { bundled() } else { bundled_uncached() }, Method::GET, path, &all)
}

fn send(server: &Server, method: Method, path: &str, headers: &[(&str, &str)]) -> Answer {
    let uri = format!("http://{}{path}", server.addr);
    server.runtime.block_on(async {
        let mut request = Request::builder().method(method).uri(uri);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request.body(Empty::new()).unwrap();
        let response = server.client.request(request).await.unwrap();
        let (parts, body) = response.into_parts();
        Answer {
            status: parts.status,
            headers: parts.headers,
            body: body.collect().await.unwrap().to_bytes(),
        }
    })
}

fn get(path: &str) -> Answer {
    request(Method::GET, path)
}

/// The records of a list answer.
fn data(body: &Value) -> &Vec<Value> {
    body["data"].as_array().unwrap_or_else(|| panic!("no list in {body}"))
}

/// Walks a list of the bundled dataset by its `next` links and returns every record, checking that
/// every page answers and agrees on `total`, and that `total` is what the walk found.
fn walk(first: &str) -> Vec<Value> {
    let mut records = Vec::new();
    let mut path = Some(first.to_owned());
    let mut total = None;
    while let Some(p) = path {
        let answer = bundled_get(&p);
        assert_eq!(answer.status.as_u16(), 200, "{p}: {:?}", answer.body);
        let body = answer.json();
        assert_eq!(
            *total.get_or_insert(body["pagination"]["total"].clone()),
            body["pagination"]["total"],
            "{p}"
        );
        records.extend(data(&body).iter().cloned());
        path = body["pagination"]["next"].as_str().map(str::to_owned);
    }
    assert_eq!(records.len() as u64, total.and_then(|t| t.as_u64()).unwrap_or_default(), "{first}");
    records
}

/// A property a record of a table-driven case must have.
type Holds = fn(&Value) -> bool;

/// For each of `targets` and each of `langs`: the answer in that language is a `200` in that language
/// whose `meta.lang_fallback` pointers each come once and each resolve to the same text as in the
/// English answer, which falls back nowhere. `fetch` asks one dataset's server. Every target must fall
/// back somewhere in each of `everywhere` (a non-empty part of `langs`), so that no target can pass by
/// having nothing to check.
fn assert_fallbacks_are_english(
    fetch: fn(&str) -> Answer,
    targets: &[String],
    langs: &[&str],
    everywhere: &[&str],
) {
    assert!(!targets.is_empty(), "no target to check");
    assert!(!everywhere.is_empty(), "no language is required to fall back");
    for lang in everywhere {
        assert!(langs.contains(lang), "{lang} must fall back but is not asked");
    }
    for target in targets {
        let in_lang = |lang: &str| {
            let asked = format!("{target}{}lang={lang}", if target.contains('?') { '&' } else { '?' });
            let answer = fetch(&asked);
            assert_eq!(answer.status.as_u16(), 200, "{asked}: {:?}", answer.body);
            let body = answer.json();
            assert_eq!(body["meta"]["lang"], lang, "{asked}");
            (asked, body)
        };
        let (_, english) = in_lang("en");
        assert_eq!(english["meta"]["lang_fallback"], serde_json::json!([]), "{target}");
        for lang in langs {
            let (asked, body) = in_lang(lang);
            let pointers = body["meta"]["lang_fallback"].as_array().unwrap_or_else(|| panic!("{asked}"));
            if everywhere.contains(lang) {
                assert!(!pointers.is_empty(), "{asked} falls back nowhere");
            }
            let mut seen = std::collections::BTreeSet::new();
            for p in pointers {
                let p = p.as_str().unwrap_or_else(|| panic!("{asked}: a pointer that is not text"));
                assert!(seen.insert(p), "{asked}: the pointer {p} came twice");
                assert!(pointer(&body, p).is_string(), "{asked}: {p} is not a text");
                assert_eq!(pointer(&body, p), pointer(&english, p), "{asked} {p}");
            }
        }
    }
}

/// Follows a JSON Pointer (RFC 6901) into `value`.
fn pointer<'a>(value: &'a Value, pointer: &str) -> &'a Value {
    value.pointer(pointer).unwrap_or_else(|| panic!("{pointer} does not resolve in {value}"))
}

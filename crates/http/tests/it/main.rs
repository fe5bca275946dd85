//! Integration tests: the real server on `127.0.0.1:0`, over TCP, with a real HTTP client, on the
//! store's small hand-written dataset.

mod errors;
mod versions;

use std::net::SocketAddr;
use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::{HeaderMap, Method, Request, StatusCode};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use tapster_http::App;
use tapster_store::Store;

/// A running server, shared by every test of this binary; it lives as long as the process.
struct Server {
    addr: SocketAddr,
    runtime: tokio::runtime::Runtime,
    client: Client<HttpConnector, Empty<Bytes>>,
}

fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| {
        let data_dir = tempfile::TempDir::new().unwrap().keep();
        let mini = Path::new(env!("CARGO_MANIFEST_DIR")).join("../store/tests/data/mini");
        tapster_store::import(&data_dir, &mini).unwrap();
        let store = Store::open(&data_dir).unwrap();
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let addr = listener.local_addr().unwrap();
        runtime.spawn(tapster_http::serve(listener, App::new(store), std::future::pending(), Duration::ZERO));
        let client = Client::builder(TokioExecutor::new()).build_http();
        Server { addr, runtime, client }
    })
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
    let server = server();
    let uri = format!("http://{}{path}", server.addr);
    server.runtime.block_on(async {
        let request = Request::builder().method(method).uri(uri).body(Empty::new()).unwrap();
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

/// Follows a JSON Pointer (RFC 6901) into `value`.
fn pointer<'a>(value: &'a Value, pointer: &str) -> &'a Value {
    value.pointer(pointer).unwrap_or_else(|| panic!("{pointer} does not resolve in {value}"))
}

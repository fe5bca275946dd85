//! The client against the real server: `tapster-server`'s service on the bundled data (imported with
//! its exports, as `serve` does) with real keys, on `127.0.0.1:0`. Every typed method is called, the
//! examples run, and the client's behaviours (revalidation, waiting out a `429`, problems as errors,
//! resuming a download) are checked against what the server does.

#[allow(dead_code, reason = "the examples' `main` is for the console; the tests call the rest")]
#[path = "../../examples/download_export.rs"]
mod download_export;
#[allow(dead_code, reason = "the examples' `main` is for the console; the tests call the rest")]
#[path = "../../examples/recipe_tree.rs"]
mod recipe_tree;
#[allow(dead_code, reason = "the examples' `main` is for the console; the tests call the rest")]
#[path = "../../examples/wiki_drinks.rs"]
mod wiki_drinks;

mod behaviour;
mod endpoints;
mod parameters;

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use tapster_client::Client;
use tapster_domain::Limits;
use tapster_server::{Admin, Service, Sharing};
use tempfile::TempDir;

/// The server every test of this binary calls, with the key its first start created. It runs on a
/// thread and runtime of its own, which the tests' runtimes cannot block, and lives as long as the
/// test process.
struct Server {
    base: String,
    key: String,
    data_dir: PathBuf,
}

fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| {
        let (started, ready) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            // Kept for the life of the process, as the server is.
            let dir = Box::leak(Box::new(TempDir::new().unwrap()));
            let runtime =
                tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
            runtime.block_on(async {
                let sharing = Sharing::none(dir.path());
                let fixtures = tapster_test_support::fixtures();
                let service =
                    Service::builder(dir.path(), &sharing).fixtures(Some(&fixtures)).open().await.unwrap();
                let key =
                    service.first_key().expect("a first key for an empty data dir").key.expose().to_owned();
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                let base = format!("http://{}", listener.local_addr().unwrap());
                started.send(Server { base, key, data_dir: dir.path().to_owned() }).unwrap();
                service.run(listener, tapster_edge::ServeConfig::default(), std::future::pending()).await
            })
        });
        ready.recv().expect("the test server did not start")
    })
}

/// A client of the test server with its first key.
fn client() -> Client {
    let server = server();
    Client::builder(&server.base, &server.key).build().unwrap()
}

/// A new key with `limits`, once the running server knows it.
async fn key_with(limits: Limits) -> String {
    let server = server();
    let admin = Admin::open(&server.data_dir).await.unwrap();
    let key = admin.create_key("limits@example.org", "tight", limits).await.unwrap().key.expose().to_owned();
    let probe = Client::builder(&server.base, &key).max_wait(Duration::ZERO).build().unwrap();
    for _ in 0..100 {
        if probe.key().await.is_ok() {
            return key;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the server did not take the new key within 5 s");
}

/// Asserts that `list` holds something and that `holds` is true of every element, naming the first
/// that fails: an `all` over an empty list is true, which would let a filter that finds nothing pass.
#[track_caller]
fn assert_all<T: std::fmt::Debug>(list: &[T], what: &str, holds: impl Fn(&T) -> bool) {
    assert!(!list.is_empty(), "no {what} to check");
    if let Some(broken) = list.iter().find(|element| !holds(element)) {
        panic!("not every one of the {} {what} holds: {broken:?}", list.len());
    }
}

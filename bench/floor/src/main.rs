//! The floor of bench/run: tapster's own stack with nothing of tapster between it and the answers.
//! One current-thread tokio runtime (bench/run pins it to the server's core, as it does tapster and
//! nginx), hyper 1's `http1::Builder` over a `TcpListener`, and every answer held in memory whole:
//! the status, headers and body tapster sent for each scenario's request, captured by
//! `bench/bench.py floor` and read once at start. A request is matched by its target and whether it
//! sends an `If-None-Match` (the scenarios' `304`); the headers are copied into each answer, as
//! tapster builds its own per answer. Anything else is `404`.
//!
//! Usage: tapster-bench-floor ADDR ANSWERS.json

use std::collections::HashMap;
use std::convert::Infallible;
use std::rc::Rc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{HeaderName, HeaderValue, IF_NONE_MATCH};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{HeaderMap, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;

/// One captured answer.
struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

/// The answers by request target and whether the request revalidates.
type Answers = HashMap<(String, bool), Answer>;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(addr), Some(file)) = (args.next(), args.next()) else {
        eprintln!("usage: tapster-bench-floor ADDR ANSWERS.json");
        std::process::exit(2);
    };
    let answers = Rc::new(read(&file));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_io().build().expect("a runtime");
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, async move {
        let listener = tokio::net::TcpListener::bind(&addr).await.expect("binding the address");
        loop {
            let Ok((stream, _)) = listener.accept().await else { continue };
            let _ = stream.set_nodelay(true);
            let answers = Rc::clone(&answers);
            tokio::task::spawn_local(async move {
                let service = service_fn(move |request| {
                    let answers = Rc::clone(&answers);
                    async move { Ok::<_, Infallible>(answer(&answers, &request)) }
                });
                let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
            });
        }
    });
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

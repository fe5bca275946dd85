//! `GET /metrics` over HTTP on a server of its own: a known set of requests moves exactly the
//! counters it should, and the answer is the Prometheus text format, line by line.

use std::collections::HashMap;

use hyper::{Method, StatusCode};
use tapster_domain::ApiKey;
use tapster_test_support::DataDir;

use crate::{Server, key, send, start};

/// Every sample of a scrape by series (name and labels as written), after checking each line's format.
fn scrape(server: &Server) -> HashMap<String, f64> {
    let answer = send(server, Method::GET, "/metrics", &[]);
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.content_type(), "text/plain; version=0.0.4; charset=utf-8");
    assert_eq!(answer.headers.get("cache-control").unwrap(), "no-store");
    let text = std::str::from_utf8(&answer.body).unwrap();
    assert!(text.ends_with('\n'), "the last line ends with a line feed");
    text.lines().filter(|line| !line.starts_with('#')).map(parse_sample).collect()
}

/// `name{label="value",...} number`, checked against the text format's grammar.
fn parse_sample(line: &str) -> (String, f64) {
    let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("no value: {line}"));
    let value: f64 = value.parse().unwrap_or_else(|_| panic!("not a number: {line}"));
    let (name, labels) = match series.split_once('{') {
        Some((name, labels)) => {
            (name, labels.strip_suffix('}').unwrap_or_else(|| panic!("unclosed: {line}")))
        }
        None => (series, ""),
    };
    let is_name = |s: &str, first_colon: bool| {
        let mut chars = s.chars();
        chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || (first_colon && c == ':'))
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || (first_colon && c == ':'))
    };
    assert!(is_name(name, true), "bad metric name: {line}");
    let mut rest = labels;
    while !rest.is_empty() {
        let (label, after) = rest.split_once("=\"").unwrap_or_else(|| panic!("bad label: {line}"));
        assert!(is_name(label, false), "bad label name: {line}");
        // The value runs to the first quote that is not escaped.
        let mut end = None;
        let mut escaped = false;
        for (i, c) in after.char_indices() {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => {
                    end = Some(i);
                    break;
                }
                _ => {}
            }
        }
        let end = end.unwrap_or_else(|| panic!("unterminated label value: {line}"));
        rest = &after[end + 1..];
        rest = rest.strip_prefix(',').unwrap_or(rest);
    }
    (series.to_owned(), value)
}

/// A request to send: method, path, headers, and the status it must get.
type Sent<'a> = (Method, &'a str, &'a [(&'a str, &'a str)], u16);

fn requests(route: &str, status: u16) -> String {
    format!("tapster_http_requests_total{{route=\"{route}\",status=\"{status}\"}}")
}

#[test]
fn each_request_moves_exactly_its_counters() {
    let data_dir = DataDir::mini();
    let server = start(data_dir.path(), 1 << 20);
    let bearer = format!("Bearer {}", key().expose());
    let with_key = [("authorization", bearer.as_str())];
    let stranger = format!("Bearer {}", ApiKey::generate(|| 7).expose());

    let before = scrape(&server);
    let sent: &[Sent<'_>] = &[
        (Method::GET, "/healthz", &[], 200),
        (Method::GET, "/v1/items/pale-ale", &with_key, 200),
        (Method::GET, "/v1/items/pale-ale", &with_key, 200),
        (Method::GET, "/v1/items/pale-ale", &[], 401),
        (Method::GET, "/v1/items/pale-ale", &[("authorization", stranger.as_str())], 401),
        (Method::GET, "/v1/items/no-such-item", &with_key, 404),
        (Method::GET, "/nowhere", &[], 404),
        (Method::POST, "/metrics", &[], 405),
        (Method::GET, "/metrics?verbose=1", &[], 422),
    ];
    for (method, path, headers, status) in sent {
        assert_eq!(send(&server, method.clone(), path, headers).status.as_u16(), *status, "{method} {path}");
    }
    let after = scrape(&server);

    let moved = |series: &str| after.get(series).unwrap_or(&0.0) - before.get(series).unwrap_or(&0.0);
    let expected = [
        (requests("/healthz", 200), 1.0),
        (requests("/v1/items/{key}", 200), 2.0),
        (requests("/v1/items/{key}", 401), 2.0),
        (requests("/v1/items/{key}", 404), 1.0),
        (requests("unmatched", 404), 1.0),
        // The first scrape, counted once it was answered; the second is not in its own answer.
        (requests("/metrics", 200), 1.0),
        (requests("/metrics", 405), 1.0),
        (requests("/metrics", 422), 1.0),
        ("tapster_response_cache_misses_total".to_owned(), 1.0),
        ("tapster_response_cache_hits_total".to_owned(), 1.0),
        ("tapster_http_auth_failures_total{reason=\"missing_key\"}".to_owned(), 1.0),
        ("tapster_http_auth_failures_total{reason=\"unknown_key\"}".to_owned(), 1.0),
        ("tapster_http_auth_failures_total{reason=\"malformed_key\"}".to_owned(), 0.0),
        ("tapster_http_rate_limited_total{limit=\"key\"}".to_owned(), 0.0),
        ("tapster_http_request_duration_seconds_count".to_owned(), sent.len() as f64 + 1.0),
        ("tapster_http_request_duration_seconds_bucket{le=\"+Inf\"}".to_owned(), sent.len() as f64 + 1.0),
    ];
    for (series, value) in &expected {
        assert_eq!(moved(series), *value, "{series}");
    }
    let total: f64 =
        after.keys().filter(|s| s.starts_with("tapster_http_requests_total")).map(|s| moved(s)).sum();
    assert_eq!(total, sent.len() as f64 + 1.0, "no other request series moved");
    assert!(moved("tapster_http_request_duration_seconds_sum") > 0.0);

    let versions = send(&server, Method::GET, "/healthz", &[]).json()["versions"].as_f64().unwrap();
    assert_eq!(after["tapster_game_versions"], versions);
}

/// With the metrics apart, `/metrics` is answered on the operators' port alone, which counts the
/// API's requests and answers nothing else; beside the API it is a path like any unknown one.
#[test]
fn metrics_apart_are_served_on_the_operators_port_only() {
    use std::sync::Arc;

    use tapster_http::App;
    use tapster_test_support::http::get;

    let data_dir = DataDir::mini();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let app = Arc::new(
        App::new(tapster_store::Store::open(data_dir.path()).unwrap(), crate::OneKey::default())
            .with_metrics_apart(),
    );
    let listen = || runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let (public, operators) = (listen(), listen());
    let (api, ops) = (public.local_addr().unwrap(), operators.local_addr().unwrap());
    let config =
        || tapster_edge::ServeConfig { shutdown_grace: std::time::Duration::ZERO, ..Default::default() };
    runtime.spawn(tapster_edge::serve(public, Arc::clone(&app), config(), std::future::pending()));
    runtime.spawn(tapster_edge::serve(
        operators,
        Arc::new(app.operators()),
        config(),
        std::future::pending(),
    ));

    let hidden = get(api, "/metrics", &[]);
    assert_eq!(hidden.status, 404);
    assert_eq!(hidden.header("content-type"), "application/problem+json");
    let bearer = format!("Bearer {}", key().expose());
    assert_eq!(get(api, "/v1/versions", &[("Authorization", &bearer)]).status, 200);

    let scraped = get(ops, "/metrics", &[]);
    assert_eq!(scraped.status, 200);
    assert_eq!(scraped.header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    assert_eq!(scraped.header("access-control-allow-origin"), "", "no CORS on the operators' port");
    let samples: HashMap<String, f64> =
        scraped.text().lines().filter(|line| !line.starts_with('#')).map(parse_sample).collect();
    assert_eq!(samples.get(&requests("/v1/versions", 200)), Some(&1.0), "the API's requests are counted");
    assert_eq!(samples.get(&requests("unmatched", 404)), Some(&1.0), "so is the public /metrics refused");

    // A load balancer's health check, which comes without a proxy's header, is answered here too.
    assert_eq!(get(ops, "/healthz", &[]).status, 200);
    for path in ["/v1/versions", "/openapi.json", "/"] {
        let answer = get(ops, path, &[("Authorization", &bearer)]);
        assert_eq!(answer.status, 404, "{path}");
        assert!(answer.json()["detail"].as_str().unwrap().contains("only /metrics and /healthz"), "{path}");
    }
}

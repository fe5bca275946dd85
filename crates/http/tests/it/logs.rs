//! The request log: one event per request with its route, status and the key's public prefix, and
//! nowhere the key itself or the query. Captured in-process with a JSON subscriber writing to a buffer.

use std::net::{IpAddr, Ipv4Addr};

use hyper::Request;
use serde_json::Value;
use tapster_domain::ApiKey;
use tapster_test_support::LogBuffer;

use crate::{key, server};

/// What one request writes to the log, answered by the shared server's app on this thread.
fn logged(path: &str, bearer: Option<&str>) -> String {
    let buffer = LogBuffer::default();
    let subscriber =
        tracing_subscriber::fmt().json().flatten_event(true).with_writer(buffer.clone()).finish();
    let mut request = Request::get(path);
    if let Some(key) = bearer {
        request = request.header("authorization", format!("Bearer {key}"));
    }
    let request = request.body(()).unwrap();
    let peer = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1));
    tracing::subscriber::with_default(subscriber, || {
        // tracing caches whether a callsite is wanted once, process-wide: a request the shared
        // server answered on another thread, with no subscriber, may have cached "never" for the
        // request event. Asked again now, the callsite sees this thread's subscriber.
        tracing::callsite::rebuild_interest_cache();
        tapster_test_support::ready(server().app.handle(&request, peer))
    });
    buffer.text()
}

/// The single request event in `out`.
fn request_event(out: &str) -> Value {
    let events: Vec<Value> = out
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|event| event["target"] == "tapster::request")
        .collect();
    assert_eq!(events.len(), 1, "{out}");
    events.into_iter().next().unwrap()
}

#[test]
fn a_request_line_carries_the_key_prefix_and_never_the_key() {
    let key = key().expose();
    let out = logged("/v1/items/pale-ale?lang=de&fields=id", Some(key));
    let event = request_event(&out);
    assert_eq!(event["level"], "INFO");
    assert_eq!(event["method"], "GET");
    assert_eq!(event["path"], "/v1/items/pale-ale");
    assert_eq!(event["route"], "/v1/items/{key}");
    assert_eq!(event["status"], 200);
    assert_eq!(event["key_prefix"], crate::key().display_prefix());
    assert_eq!(event["peer"], "192.0.2.1");
    assert!(event["duration_us"].is_u64(), "{event}");
    assert!(event["cached"].is_boolean(), "{event}");
    // Neither the key nor its secret part, nor the query, appears anywhere.
    let secret = &key[ApiKey::DISPLAY_LEN..];
    assert!(!out.contains(secret), "{out}");
    assert!(!out.contains("lang=de"), "{out}");

    // The second time, the answer comes from the cache.
    let again = request_event(&logged("/v1/items/pale-ale?lang=de&fields=id", Some(key)));
    assert_eq!(again["cached"], true);
}

#[test]
fn a_refused_key_leaves_no_prefix_and_no_trace_of_itself() {
    let stranger = ApiKey::generate(|| 9);
    let out = logged("/v1/versions", Some(stranger.expose()));
    let event = request_event(&out);
    assert_eq!(event["status"], 401);
    assert_eq!(event["route"], "/v1/versions");
    assert_eq!(event["key_prefix"], "");
    assert!(!out.contains(&stranger.expose()[4..]), "{out}");

    let event = request_event(&logged("/no/such/route", None));
    assert_eq!((event["status"].as_u64(), event["route"].as_str()), (Some(404), Some("unmatched")));
}

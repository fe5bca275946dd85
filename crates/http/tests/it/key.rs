//! `GET /v1/key`: what the gate admitted the request with, said back to the caller and never kept
//! by any cache.

use hyper::{Method, StatusCode};
use serde_json::json;

use crate::{KEY_NAME, get, key, request_with};

#[test]
fn the_calling_key_is_described_with_its_limits_and_usage() {
    let first = get("/v1/key");
    assert_eq!(first.status, StatusCode::OK);
    assert_eq!(first.headers["cache-control"], "no-store");
    assert_eq!(first.headers["ratelimit"], r#""minute";r=99;t=60"#);
    let body = first.json();
    let data = &body["data"];
    assert_eq!(data["name"], KEY_NAME);
    assert_eq!(data["prefix"], key().display_prefix());
    assert_eq!(data["expires_at"], "2030-01-01T00:00:00Z");
    assert_eq!(
        data["limits"],
        json!([{"policy": "minute", "quota": 100, "window_seconds": 60, "remaining": 99, "reset_seconds": 60}])
    );
    assert_eq!(body["meta"]["lang"], "en");
    let serialized = String::from_utf8(first.body.to_vec()).unwrap();
    assert!(!serialized.contains(key().expose()), "the answer never holds the key itself");

    // The test gate counts every request it admits: a second answer made from the first (by the
    // service's response cache) would say the same count.
    let second = get("/v1/key").json();
    let (before, after) =
        (data["requests_today"].as_u64().unwrap(), second["data"]["requests_today"].as_u64().unwrap());
    assert!(after > before, "requests_today went from {before} to {after}");
}

#[test]
fn the_key_endpoint_takes_a_key_and_no_parameters() {
    let anonymous = request_with(Method::GET, "/v1/key", &[]);
    assert_eq!(anonymous.status, StatusCode::UNAUTHORIZED);
    let asked = get("/v1/key?lang=de");
    assert_eq!(asked.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(asked.json()["errors"][0]["parameter"], "lang");
}

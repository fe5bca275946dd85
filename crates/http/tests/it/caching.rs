//! Keys at the gate, rate-limit headers on every `/v1` answer, and entity tags with conditional requests.

use hyper::{Method, StatusCode};

use crate::{get, key, request_with};

fn bearer() -> String {
    format!("Bearer {}", key().expose())
}

#[test]
fn v1_needs_a_key_and_says_how_to_send_it() {
    let cases: &[(&[(&str, &str)], &str)] = &[
        (&[], "Bearer realm=\"tapster\""),
        (&[("authorization", "Basic dXNlcjpwYXNz")], "Bearer realm=\"tapster\", error=\"invalid_token\""),
        (&[("authorization", "Bearer tap_0000")], "Bearer realm=\"tapster\", error=\"invalid_token\""),
    ];
    for (headers, challenge) in cases {
        let answer = request_with(Method::GET, "/v1/versions", headers);
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{headers:?}");
        assert_eq!(answer.json()["type"], "/errors/unauthorized");
        assert_eq!(answer.headers["www-authenticate"], *challenge);
    }
    // Unknown paths under /v1 are behind the gate too, so they reveal nothing without a key.
    assert_eq!(request_with(Method::GET, "/v1/nothing-here", &[]).status, StatusCode::UNAUTHORIZED);
    // Public routes need none.
    assert_eq!(request_with(Method::GET, "/healthz", &[]).status, StatusCode::OK);
}

#[test]
fn every_v1_answer_carries_rate_limit_and_vary_headers() {
    for path in ["/v1/versions", "/v1/languages?lang=xx", "/v1/nothing-here"] {
        let answer = get(path);
        assert_eq!(answer.headers["ratelimit-policy"], "\"minute\";q=100;w=60", "{path}");
        assert_eq!(answer.headers["ratelimit"], "\"minute\";r=99;t=60", "{path}");
        assert_eq!(answer.headers["vary"], "Authorization, Accept-Encoding", "{path}");
    }
    assert!(get("/healthz").headers.get("ratelimit").is_none());
}

#[test]
fn data_answers_carry_a_strong_etag_and_private_caching() {
    let answer = get("/v1/versions");
    let tag = answer.headers["etag"].to_str().unwrap();
    assert!(tag.starts_with('"') && tag.ends_with('"') && tag.len() == 34, "{tag}");
    assert_eq!(answer.headers["cache-control"], "private, max-age=300");
    // Another body, another tag; the same body, the same tag.
    assert_ne!(get("/v1/versions/v1.0.0.0.1").headers["etag"], answer.headers["etag"]);
    assert_eq!(get("/v1/versions").headers["etag"], answer.headers["etag"]);
    // Errors are not cacheable representations.
    assert!(get("/v1/languages?lang=xx").headers.get("etag").is_none());
}

#[test]
fn if_none_match_answers_304_without_a_body() {
    let full = get("/v1/languages?lang=de");
    let tag = full.headers["etag"].to_str().unwrap().to_owned();
    let weak = format!("W/{tag}");
    let listed = format!("\"nope\", {tag}");
    let auth = bearer();
    for condition in [tag.as_str(), weak.as_str(), listed.as_str(), "*"] {
        let answer = request_with(
            Method::GET,
            "/v1/languages?lang=de",
            &[("authorization", &auth), ("if-none-match", condition)],
        );
        assert_eq!(answer.status, StatusCode::NOT_MODIFIED, "{condition}");
        assert!(answer.body.is_empty());
        assert_eq!(answer.headers["etag"], full.headers["etag"]);
        assert_eq!(answer.headers["cache-control"], "private, max-age=300");
        assert!(answer.headers.get("ratelimit").is_some());
    }
    for condition in ["\"nope\"", "W/\"nope\"", "nope"] {
        let answer = request_with(
            Method::GET,
            "/v1/languages?lang=de",
            &[("authorization", &auth), ("if-none-match", condition)],
        );
        assert_eq!(answer.status, StatusCode::OK, "{condition}");
        assert_eq!(answer.body, full.body);
    }
    // The tag of one language's answer does not match another's.
    let answer = request_with(
        Method::GET,
        "/v1/languages?lang=ja",
        &[("authorization", &auth), ("if-none-match", &tag)],
    );
    assert_eq!(answer.status, StatusCode::OK);
}

//! Bad input: every refusal is a problem+json answer that names what was wrong.

use hyper::{Method, StatusCode};
use serde_json::Value;

use crate::{get, request};

/// A request, its expected status, problem type, and the parameter the problem must name (if any).
const CASES: &[(&str, u16, &str, Option<&str>)] = &[
    ("/v1/versions/nope", 422, "/errors/validation", Some("version")),
    ("/v1/versions/v1", 422, "/errors/validation", Some("version")),
    ("/v1/versions/v9.9.9.9.9", 404, "/errors/not-found", None),
    ("/v1/versions/v1.0", 404, "/errors/not-found", None),
    ("/v1/versions?lang=de", 422, "/errors/validation", Some("lang")),
    ("/v1/versions/latest?version=latest", 422, "/errors/validation", Some("version")),
    ("/v1/languages?lang=xx", 422, "/errors/validation", Some("lang")),
    ("/v1/languages?lang=pt", 422, "/errors/validation", Some("lang")),
    ("/v1/search?q=%20%20", 422, "/errors/validation", Some("q")),
    ("/v1/search?q=%E2%80%94%3F!", 422, "/errors/validation", Some("q")),
    ("/v1/languages?lang=", 422, "/errors/validation", Some("lang")),
    ("/v1/languages?lang=abcdefgh-abcdefgh", 422, "/errors/validation", Some("lang")),
    ("/v1/languages?version=v1", 422, "/errors/validation", Some("version")),
    ("/v1/languages?version=Latest", 422, "/errors/validation", Some("version")),
    ("/v1/languages?version=v1.111111111111111111111111111111", 422, "/errors/validation", Some("version")),
    // 32 characters is the longest version accepted, and well-formed: unknown, not invalid.
    ("/v1/languages?version=v1.11111111111111111111111111111", 404, "/errors/not-found", None),
    ("/v1/languages?version=v0.0.0.0.1", 404, "/errors/not-found", None),
    ("/v1/languages?lang=de&lang=fr", 422, "/errors/validation", Some("lang")),
    ("/v1/languages?langs=de", 422, "/errors/validation", Some("langs")),
    ("/v1/items-that-do-not-exist", 404, "/errors/not-found", None),
    ("/", 404, "/errors/not-found", None),
    ("/healthz?verbose=1", 422, "/errors/validation", Some("verbose")),
];

#[test]
fn bad_requests_are_refused_with_problem_json_naming_the_parameter() {
    for &(path, status, kind, parameter) in CASES {
        let answer = get(path);
        assert_eq!(answer.status.as_u16(), status, "{path}");
        assert_eq!(answer.content_type(), "application/problem+json", "{path}");
        let problem = answer.json();
        assert_eq!(problem["type"], kind, "{path}");
        assert_eq!(problem["status"], status, "{path}");
        assert!(problem["title"].as_str().is_some_and(|t| !t.is_empty()), "{path}");
        assert!(problem["detail"].as_str().is_some_and(|d| !d.is_empty()), "{path}");
        if let Some(parameter) = parameter {
            let named: Vec<&str> = problem["errors"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["parameter"].as_str().unwrap())
                .collect();
            assert_eq!(named, [parameter], "{path}: {problem}");
        } else {
            assert_eq!(problem.get("errors"), None, "{path}");
        }
    }
}

#[test]
fn details_say_what_to_do() {
    let problem = get("/v1/languages?lang=pt-PT").json();
    assert!(problem["errors"][0]["detail"].as_str().unwrap().contains("did you mean `pt-BR`?"), "{problem}");
    let problem = get("/v1/versions/v9.9.9.9.9").json();
    assert!(problem["detail"].as_str().unwrap().contains("v1.0.1.0.0, v1.0.0.0.1"), "{problem}");
    let problem = get("/v1/languages?lang=de&x=1&lang=fr").json();
    let errors: Vec<&Value> = problem["errors"].as_array().unwrap().iter().collect();
    assert_eq!(errors.len(), 2, "{problem}");
}

#[test]
fn only_reading_methods_are_allowed() {
    for method in [Method::POST, Method::PUT, Method::DELETE, Method::PATCH] {
        let answer = request(method.clone(), "/v1/versions");
        assert_eq!(answer.status, StatusCode::METHOD_NOT_ALLOWED, "{method}");
        assert_eq!(answer.headers.get("allow").unwrap(), "GET, HEAD");
        assert_eq!(answer.json()["type"], "/errors/method-not-allowed");
    }
}

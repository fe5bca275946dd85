//! The happy paths: versions, languages and health, in the envelope of the spec.

use hyper::{Method, StatusCode};
use serde_json::json;

use crate::{get, pointer, request};

#[test]
fn health_answers_once_data_is_loaded() {
    let answer = get("/healthz");
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(
        answer.json(),
        json!({"status": "ok", "latest": "v1.0.1.0.0", "versions": 2, "degraded": [], "generation": null})
    );
}

#[test]
fn versions_are_listed_newest_first_in_the_envelope() {
    let answer = get("/v1/versions");
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.content_type(), "application/json");
    let body = answer.json();
    assert_eq!(
        body["meta"],
        json!({"game_version": "v1.0.1.0.0", "build_id": 110, "lang": "en", "lang_fallback": []})
    );
    let names: Vec<_> =
        body["data"].as_array().unwrap().iter().map(|v| v["version"].as_str().unwrap()).collect();
    assert_eq!(names, ["v1.0.1.0.0", "v1.0.0.0.1"]);
    let latest = &body["data"][0];
    assert_eq!(latest["latest"], true);
    assert_eq!(latest["previous"], "v1.0.0.0.1");
    assert_eq!(latest["changes_since_previous"], json!({"added": 1, "removed": 1, "modified": 4}));
    assert_eq!(latest["counts"]["items"], 12);
    assert_eq!(latest["languages"], json!(["en", "de", "ja"]));
    assert_eq!(body["data"][1]["changes_since_previous"], json!(null));
}

#[test]
fn one_version_by_name_or_latest() {
    let cases = [
        ("/v1/versions/v1.0.0.0.1", "v1.0.0.0.1", 100),
        ("/v1/versions/latest", "v1.0.1.0.0", 110),
        ("/v1/versions/v1.0.1.0.0", "v1.0.1.0.0", 110),
    ];
    for (path, version, build) in cases {
        let body = get(path).json();
        assert_eq!(body["data"]["version"], version, "{path}");
        assert_eq!(body["data"]["build_id"], build, "{path}");
        assert_eq!(body["meta"]["game_version"], version, "{path}");
        assert_eq!(body["meta"]["build_id"], build, "{path}");
    }
}

#[test]
fn languages_are_named_in_the_requested_language_with_fallbacks_pointed_at() {
    let body = get("/v1/languages?lang=de").json();
    assert_eq!(body["meta"]["lang"], "de");
    assert_eq!(body["meta"]["game_version"], "v1.0.1.0.0");
    let codes: Vec<_> =
        body["data"].as_array().unwrap().iter().map(|l| l["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["en", "de", "ja"]);
    assert_eq!(body["data"][0]["name"], "Englisch");
    assert_eq!(body["data"][2]["native_name"], "日本語");
    assert_eq!(body["data"][1]["translated_texts"], 6);
    assert_eq!(body["data"][1]["total_texts"], 37);
    // Every pointer resolves, and to the English text.
    assert_eq!(body["meta"]["lang_fallback"], json!(["/data/2/name"]));
    let english = get("/v1/languages?lang=en").json();
    for p in body["meta"]["lang_fallback"].as_array().unwrap() {
        let p = p.as_str().unwrap();
        assert_eq!(pointer(&body, p), pointer(&english, p), "{p}");
    }
    assert_eq!(english["meta"]["lang_fallback"], json!([]));
}

#[test]
fn language_codes_are_read_whatever_their_case_and_answered_in_the_canonical_one() {
    for code in ["DE", "De", "dE"] {
        let body = get(&format!("/v1/languages?lang={code}")).json();
        assert_eq!(body["meta"]["lang"], "de", "{code}");
        assert_eq!(body["data"][0]["name"], "Englisch", "{code}");
    }
    let body = get("/v1/items?lang=JA&limit=1").json();
    assert_eq!(body["meta"]["lang"], "ja");
}

#[test]
fn languages_of_an_older_version() {
    let body = get("/v1/languages?version=v1.0.0.0.1&lang=ja").json();
    assert_eq!(body["meta"]["game_version"], "v1.0.0.0.1");
    assert_eq!(body["data"][2]["name"], "日本語");
    assert_eq!(body["meta"]["lang_fallback"], json!(["/data/0/name", "/data/1/name"]));
}

#[test]
fn head_answers_like_get_without_a_body() {
    let get = get("/v1/versions");
    let head = request(Method::HEAD, "/v1/versions");
    assert_eq!(head.status, StatusCode::OK);
    assert!(head.body.is_empty());
    assert_eq!(head.headers.get("content-length"), get.headers.get("content-length"));
}

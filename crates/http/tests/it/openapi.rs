//! The OpenAPI document against the routes and their real answers: the documented paths are the
//! routes the server answers and the routes the spec lists, and every real answer validates
//! against its documented schema (with the small JSON Schema validator at the end of this file).

use std::collections::BTreeSet;

use hyper::{Method, StatusCode};
use serde_json::{Value, json};
use tapster_wire::{ValueSet, WebhookEventType};

use crate::{Answer, bundled_get, get, request_with};

/// Every route docs/api.md names: the game data under `/v1`, the public routes, and `/changelog`,
/// the page the feed's links open. The document must list exactly these.
const EXPECTED: &[&str] = &[
    "/healthz",
    "/openapi.json",
    "/docs",
    "/changelog",
    "/changelog.rss",
    "/assets/{sha256}/{name}",
    "/v1/key",
    "/v1/exports",
    "/v1/exports/{version}/{lang}",
    "/v1/exports/{version}/icons",
    "/v1/versions",
    "/v1/versions/{version}",
    "/v1/versions/{version}/changes",
    "/v1/languages",
    "/v1/items",
    "/v1/items/{key}",
    "/v1/items/{key}/used-in",
    "/v1/items/{key}/sources",
    "/v1/items/{key}/price",
    "/v1/recipes",
    "/v1/recipes/{key}",
    "/v1/recipes/{key}/tree",
    "/v1/ingredient-groups/{key}",
    "/v1/crafters",
    "/v1/crops",
    "/v1/crops/{key}",
    "/v1/shops",
    "/v1/shops/{key}",
    "/v1/npcs",
    "/v1/fish",
    "/v1/search",
    "/v1/rankings/products",
    "/v1/quests",
    "/v1/quests/{key}",
    "/v1/perks",
    "/v1/perks/{key}",
    "/v1/spells",
    "/v1/spells/{key}",
    "/v1/talents",
    "/v1/talents/{key}",
    "/v1/reputation",
    "/v1/reputation/{key}",
    "/v1/missions",
    "/v1/missions/{key}",
    "/v1/letters",
    "/v1/letters/{key}",
];

/// A real key of the mini dataset for each resource, percent-encoded for a path.
const KEYS: &[(&str, &str)] = &[
    ("items", "pale-ale"),
    ("recipes", "pale-ale"),
    ("crops", "barley"),
    ("shops", "mill-store"),
    ("ingredient-groups", "any-hops"),
    ("quests", "quest.first-brew"),
    ("perks", "Perk_Brewing_1"),
    ("spells", "spell.warm-hearth"),
    ("talents", "Talent%20Brewing%2001"),
    ("reputation", "rep_01"),
    ("missions", "Mission%2001"),
    ("letters", "Odile%27s%20Welcome"),
];

/// Query parameters a route cannot answer without.
const REQUIRED_QUERY: &[(&str, &str)] = &[("/v1/search", "q=ale")];

fn document() -> Value {
    let answer = request_with(Method::GET, "/openapi.json", &[]);
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.content_type(), "application/json");
    answer.json()
}

/// A documented template made into a real path of the mini dataset.
fn instantiate(template: &str) -> String {
    if template == "/assets/{sha256}/{name}" {
        // A picture is asked for by the URL an answer gives.
        return get("/v1/items/barley").json()["data"]["icon_url"].as_str().unwrap().to_owned();
    }
    let resource = template.strip_prefix("/v1/").and_then(|rest| rest.split('/').next()).unwrap_or_default();
    let key = KEYS.iter().find(|(r, _)| *r == resource).map(|(_, k)| *k).unwrap_or("unknown-resource");
    let path = template.replace("{version}", "latest").replace("{lang}", "de").replace("{key}", key);
    match REQUIRED_QUERY.iter().find(|(t, _)| *t == template) {
        Some((_, query)) => format!("{path}?{query}"),
        None => path,
    }
}

fn paths(doc: &Value) -> BTreeSet<String> {
    doc["paths"].as_object().expect("paths").keys().cloned().collect()
}

#[test]
fn the_document_is_openapi_3_1_with_bearer_auth() {
    let doc = document();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1."), "{}", doc["openapi"]);
    assert_eq!(doc["info"]["version"], "0.1.0");
    assert_eq!(doc["info"]["title"], "Tapster");
    assert!(doc["info"]["description"].as_str().unwrap().contains("nofficial"));
    assert_eq!(doc["servers"][0]["url"], "/");
    assert_eq!(doc["info"]["license"]["identifier"], "MIT OR Apache-2.0");
    assert_eq!(doc["components"]["securitySchemes"]["bearerAuth"]["type"], "http");
    assert_eq!(doc["components"]["securitySchemes"]["bearerAuth"]["scheme"], "bearer");
    for (path, item) in doc["paths"].as_object().unwrap() {
        let op = &item["get"];
        assert_eq!(item.as_object().unwrap().len(), 1, "{path}: only GET");
        let security = if path.starts_with("/v1/") { json!([{"bearerAuth": []}]) } else { json!([]) };
        assert_eq!(op["security"], security, "{path}");
        assert!(op["operationId"].is_string() && op["summary"].is_string(), "{path}");
        if path.starts_with("/v1/") {
            assert_eq!(op["tags"][0], path.split('/').nth(2).unwrap(), "{path}");
            for status in ["200", "304", "401", "403", "422", "429"] {
                assert!(op["responses"][status].is_object(), "{path} documents {status}");
            }
            for header in ["ETag", "Cache-Control", "Vary", "RateLimit-Policy", "RateLimit"] {
                assert!(op["responses"]["200"]["headers"][header].is_object(), "{path}: {header}");
            }
        }
        // Every `{name}` of the template is a required path parameter, and nothing else is.
        let mut declared: Vec<&str> = op["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| resolve(&doc, p))
            .filter(|p| p["in"] == "path")
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        let mut templated: Vec<&str> =
            path.split('/').filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}'))).collect();
        declared.sort_unstable();
        templated.sort_unstable();
        assert_eq!(declared, templated, "{path}");
    }
    let ids: BTreeSet<&str> = doc["paths"]
        .as_object()
        .unwrap()
        .values()
        .map(|i| i["get"]["operationId"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), doc["paths"].as_object().unwrap().len(), "operation ids are unique");
    let retry = resolve(&doc, &doc["components"]["responses"]["429"]);
    assert!(retry["headers"]["Retry-After"].is_object());
    assert_eq!(resolve(&doc, &doc["components"]["schemas"]["Meta"])["required"][0], "game_version");
}

#[test]
fn the_documented_paths_are_the_specified_routes() {
    let documented = paths(&document());
    let expected: BTreeSet<String> = EXPECTED.iter().map(|p| (*p).to_owned()).collect();
    let undocumented: Vec<_> = expected.difference(&documented).collect();
    let unspecified: Vec<_> = documented.difference(&expected).collect();
    assert!(
        undocumented.is_empty() && unspecified.is_empty(),
        "expected but not served/documented: {undocumented:?}; documented but not expected: {unspecified:?}"
    );
}

#[test]
fn every_documented_path_is_served() {
    let doc = document();
    for template in paths(&doc) {
        let path = instantiate(&template);
        let answer = get(&path);
        assert_eq!(answer.status, StatusCode::OK, "{path}: {:?}", answer.body);
    }
    // And the server does not answer a path the document leaves out.
    assert_eq!(get("/v1/not-a-route").status, StatusCode::NOT_FOUND);
}

#[test]
fn real_answers_validate_against_their_documented_schemas() {
    let doc = document();
    let mut failures = Vec::new();
    for (template, item) in doc["paths"].as_object().unwrap() {
        let op = &item["get"];
        let takes_lang = op["parameters"].as_array().unwrap().iter().any(|p| {
            let p = resolve(&doc, p);
            p["name"] == "lang" && p["in"] == "query"
        });
        let base = instantiate(template);
        let mut paths = vec![base.clone()];
        if takes_lang {
            // Japanese has gaps in the mini dataset, so fallbacks appear too.
            let sep = if base.contains('?') { '&' } else { '?' };
            paths.push(format!("{base}{sep}lang=ja"));
        }
        for path in paths {
            let answer = get(&path);
            if answer.status != StatusCode::OK {
                failures.push(format!("{path}: status {}", answer.status));
                continue;
            }
            let content = &op["responses"]["200"]["content"];
            let Some((media, body)) = content.as_object().and_then(|c| c.iter().next()) else {
                failures.push(format!("{path}: no documented content"));
                continue;
            };
            assert!(answer.content_type().starts_with(media.as_str()), "{path}: {}", answer.content_type());
            if media != "application/json" {
                continue;
            }
            let errors = validate(&doc, &body["schema"], &answer.json());
            if !errors.is_empty() {
                failures.push(format!("{path}:\n  {}", errors.join("\n  ")));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_documented_query_parameter_is_accepted() {
    // The server refuses parameters it does not take (422), so a documented one it refuses shows here.
    let doc = document();
    let mut failures = Vec::new();
    for (template, item) in doc["paths"].as_object().unwrap() {
        let params = item["get"]["parameters"].as_array().unwrap().iter().map(|p| resolve(&doc, p));
        for param in params.filter(|p| p["in"] == "query") {
            let schema = &param["schema"];
            let set = resolve(&doc, schema);
            let value = match (&schema["default"], &set["enum"][0], set["type"].as_str()) {
                (Value::String(s), _, _) => s.clone(),
                (Value::Number(n), _, _) => n.to_string(),
                (_, Value::String(s), _) => s.clone(),
                (_, _, Some("boolean")) => "false".into(),
                (_, _, Some("integer")) => schema["minimum"].to_string(),
                _ => continue,
            };
            let base = instantiate(template);
            let sep = if base.contains('?') { '&' } else { '?' };
            let path = format!("{base}{sep}{}={value}", param["name"].as_str().unwrap());
            let answer = get(&path);
            if answer.status != StatusCode::OK {
                failures.push(format!("{path}: {} {:?}", answer.status, answer.body));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn problems_validate_against_the_problem_schema() {
    let doc = document();
    let problem = json!({"$ref": "#/components/schemas/Problem"});
    let cases = [
        ("/v1/items?limit=0", StatusCode::UNPROCESSABLE_ENTITY),
        ("/v1/items/no-such-item", StatusCode::NOT_FOUND),
        ("/v1/versions/v9.9", StatusCode::NOT_FOUND),
    ];
    for (path, status) in cases {
        let answer: Answer = get(path);
        assert_eq!(answer.status, status, "{path}");
        assert_eq!(answer.content_type(), "application/problem+json", "{path}");
        let errors = validate(&doc, &problem, &answer.json());
        assert!(errors.is_empty(), "{path}: {errors:?}");
    }
    let answer = get("/v1/items?limit=0");
    assert_eq!(answer.json()["errors"][0]["parameter"], "limit");
    let unauthorized = request_with(Method::GET, "/v1/items", &[]);
    assert_eq!(unauthorized.status, StatusCode::UNAUTHORIZED);
    assert!(validate(&doc, &problem, &unauthorized.json()).is_empty());
    // The documented 422 of an operation is that same schema.
    let documented = resolve(&doc, &doc["paths"]["/v1/items"]["get"]["responses"]["422"]);
    assert_eq!(documented["content"]["application/problem+json"]["schema"], problem);
}

/// On the bundled data, every operation but `/openapi.json`, the downloads and the pictures shows a real answer as its example, and
/// the example is valid against the documented schema.
#[test]
fn every_operation_has_an_example_that_its_schema_accepts() {
    let answer = bundled_get("/openapi.json");
    assert_eq!(answer.status, StatusCode::OK);
    let doc = answer.json();
    let mut failures = Vec::new();
    for (template, item) in doc["paths"].as_object().unwrap() {
        let content = item["get"]["responses"]["200"]["content"].as_object().unwrap();
        let (media, object) = content.iter().next().unwrap();
        match &object.get("examples").map(|examples| &examples["bundled"]["value"]) {
            // The document, and the page made of it, would hold themselves; an export is gzip bytes.
            None if ["/openapi.json", "/docs"].contains(&template.as_str())
                || ["application/gzip", "application/x-tar"].contains(&media.as_str())
                || media.starts_with("image/") => {}
            None => failures.push(format!("{template}: no example")),
            Some(_) if template == "/openapi.json" => failures.push(format!("{template} holds itself")),
            Some(example) if media == "application/json" => {
                let errors = validate(&doc, &object["schema"], example);
                if !errors.is_empty() {
                    failures.push(format!("{template}:\n  {}", errors.join("\n  ")));
                }
            }
            Some(example) => {
                if !example.as_str().is_some_and(|text| text.starts_with('<')) {
                    failures.push(format!("{template}: {media} example {example}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every path parameter of the served document has an example its schema accepts, and the examples
/// of an operation's parameters put together name what the bundled data answers with a `200` (not a
/// `404`), so that a console or a fuzzer starts from a real record: renaming one in the data fails here.
#[test]
fn path_parameter_examples_name_what_the_bundled_data_serves() {
    let doc = bundled_get("/openapi.json").json();
    let mut failures = Vec::new();
    let mut templated = 0;
    for (template, item) in doc["paths"].as_object().unwrap() {
        let parameters = item["get"]["parameters"].as_array().unwrap().iter().map(|p| resolve(&doc, p));
        let mut path = template.clone();
        for parameter in parameters.filter(|p| p["in"] == "path") {
            let name = parameter["name"].as_str().unwrap();
            let Some(example) = parameter["example"].as_str() else {
                failures.push(format!("{template}: `{name}` has no example"));
                continue;
            };
            let errors = validate(&doc, &parameter["schema"], &parameter["example"]);
            if !errors.is_empty() {
                failures.push(format!("{template}: the example of `{name}`: {}", errors.join("; ")));
            }
            let segment = percent_encoding::utf8_percent_encode(example, percent_encoding::NON_ALPHANUMERIC);
            path = path.replace(&format!("{{{name}}}"), &segment.to_string());
        }
        if path == *template {
            continue;
        }
        templated += 1;
        let answer = bundled_get(&path);
        if answer.status != StatusCode::OK {
            failures.push(format!("{template} as {path}: {} {:?}", answer.status, answer.body));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(templated, EXPECTED.iter().filter(|path| path.contains('{')).count());
}

/// A search text made only of separators is refused by design: the parameter says so, and its
/// pattern agrees with the server on texts in several scripts, each sent to it.
#[test]
fn the_search_text_pattern_agrees_with_the_server() {
    let doc = document();
    let q = doc["paths"]["/v1/search"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| resolve(&doc, p))
        .find(|p| p["name"] == "q")
        .unwrap();
    let description = q["description"].as_str().unwrap();
    assert!(description.contains("refused with `422`"), "{description}");
    let pattern = regex::Regex::new(q["schema"]["pattern"].as_str().unwrap()).unwrap();
    let cases = [
        // Letters and digits of several scripts, and symbols, are what search looks for.
        ("ale", true),
        ("-a-", true),
        ("Crème", true),
        ("пиво", true),
        ("ビール", true),
        ("小麦", true),
        ("ไทย", true),
        ("٣٤", true),
        ("€€", true),
        ("🍺🍺", true),
        // Separators of every kind, alone or together, leave nothing to look for.
        ("---", false),
        ("  ", false),
        ("\t\n", false),
        ("¿¡", false),
        ("«»", false),
        ("—–", false),
        ("・・", false),
        ("。、", false),
        // Full-width punctuation is punctuation once decomposed, and invisible characters and
        // combining marks with no letter to sit on are nothing.
        ("！？", false),
        ("\u{200B}\u{200B}", false),
        (" \u{0301}\u{0301}", false),
    ];
    for (text, accepted) in cases {
        assert_eq!(pattern.is_match(text), accepted, "the pattern on {text:?}");
        let query = form_urlencoded::byte_serialize(text.as_bytes()).collect::<String>();
        let answer = get(&format!("/v1/search?q={query}"));
        let status = if accepted { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
        assert_eq!(answer.status, status, "the server on {text:?}: {:?}", answer.body);
    }
}

/// The events sent to webhook receivers, in the document's `webhooks`: one `POST` per event type,
/// whose body is the wire type's component, with the Standard Webhooks headers and what answers mean.
#[test]
fn the_webhooks_are_documented_from_the_wire_types() {
    let doc = document();
    let webhooks = doc["webhooks"].as_object().expect("the document's webhooks");
    let names: Vec<&str> = webhooks.keys().map(String::as_str).collect();
    assert_eq!(names, ["version.published", "key.expiring", "webhook.test"]);
    assert_eq!(names, <WebhookEventType as ValueSet>::VALUES, "one webhook per event type");
    let bodies = [
        ("version.published", "VersionPublishedEvent"),
        ("key.expiring", "KeyExpiringEvent"),
        ("webhook.test", "TestEvent"),
    ];
    let mut ids = BTreeSet::new();
    for (name, component) in bodies {
        let item = &doc["webhooks"][name];
        assert_eq!(item.as_object().unwrap().len(), 1, "{name}: only POST");
        let op = &item["post"];
        assert!(ids.insert(op["operationId"].as_str().unwrap()), "{name}: a unique operation id");
        assert!(op["summary"].is_string() && op["description"].is_string(), "{name}");
        let body = &op["requestBody"]["content"]["application/json"]["schema"];
        assert_eq!(body["$ref"], format!("#/components/schemas/{component}"), "{name}");
        let schema = resolve(&doc, body);
        assert_eq!(schema["properties"]["type"]["const"], name, "{name}");
        let required: Vec<&str> =
            schema["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        assert_eq!(required, ["type", "schema_version", "timestamp", "data"], "{name}");

        let headers: Vec<&Value> =
            op["parameters"].as_array().unwrap().iter().map(|p| resolve(&doc, p)).collect();
        for header in ["webhook-id", "webhook-timestamp", "webhook-signature"] {
            let p =
                headers.iter().find(|p| p["name"] == header).unwrap_or_else(|| panic!("{name}: {header}"));
            assert_eq!(p["in"], "header", "{name}: {header}");
            assert_eq!(p["required"], true, "{name}: {header}");
            assert!(!p["description"].as_str().unwrap().is_empty(), "{name}: {header}");
        }
        let signature = headers.iter().find(|p| p["name"] == "webhook-signature").unwrap();
        let how = signature["description"].as_str().unwrap();
        for words in [
            "HMAC-SHA256",
            "whsec_",
            "`{webhook-id}.{webhook-timestamp}.{body}`",
            "base64",
            "`v1,`",
            "rotated",
        ] {
            assert!(how.contains(words), "the signature's description says {words:?}: {how}");
        }
        let delivered = op["responses"]["2XX"]["description"].as_str().unwrap();
        assert!(delivered.starts_with("Any 2xx: delivered"), "{delivered}");
        let retried = op["responses"]["default"]["description"].as_str().unwrap();
        assert!(retried.contains("24 hours") && retried.contains("3 days"), "{retried}");
    }
    assert!(doc["tags"].as_array().unwrap().iter().any(|t| t["name"] == "webhooks"));
}

/// Every `$ref` of the document, in `paths`, `webhooks` and the components alike, names something.
#[test]
fn every_reference_resolves() {
    fn walk(doc: &Value, value: &Value, at: &str, dangling: &mut Vec<String>) {
        match value {
            Value::Object(object) => {
                if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
                    let target = reference.strip_prefix('#').and_then(|pointer| doc.pointer(pointer));
                    if target.is_none() {
                        dangling.push(format!("{at}: {reference}"));
                    }
                }
                for (key, child) in object {
                    walk(doc, child, &format!("{at}/{key}"), dangling);
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    walk(doc, child, &format!("{at}/{i}"), dangling);
                }
            }
            _ => {}
        }
    }
    let doc = document();
    let mut dangling = Vec::new();
    walk(&doc, &doc, "", &mut dangling);
    assert!(dangling.is_empty(), "{dangling:#?}");
}

/// A payload the server would send, built from the wire types, is valid against the documented body
/// of its webhook; and one that lacks a member or names another event is not.
#[test]
fn webhook_payloads_validate_against_their_documented_bodies() {
    use tapster_wire::*;

    let doc = document();
    let body = |name: &str| {
        doc["webhooks"][name]["post"]["requestBody"]["content"]["application/json"]["schema"].clone()
    };
    let published = VersionPublishedEvent {
        kind: WebhookEventType::VersionPublished,
        schema_version: WEBHOOK_SCHEMA_VERSION,
        timestamp: "2025-03-14T09:30:00Z".into(),
        data: VersionPublished {
            version: "v1.2".into(),
            build_id: 14_210_051,
            released: "2025-03-13".into(),
            previous: Some("v1.1".into()),
            changes: Some(ChangeCounts { added: 12, removed: 1, modified: 30 }),
            highlights: vec![VersionChange {
                kind: ChangeType::Items,
                id: Some(1204),
                key: None,
                slug: Some("honey-mead".into()),
                name: "Honey Mead".into(),
                change: ChangeKind::Modified,
                fields: vec!["base_price".into()],
            }],
            links: VersionLinks {
                version: "https://api.example.com/v1/versions/v1.2".into(),
                changes: "https://api.example.com/v1/versions/v1.2/changes".into(),
                exports: "https://api.example.com/v1/exports".into(),
            },
        },
    };
    let first = VersionPublishedEvent {
        data: VersionPublished {
            previous: None,
            changes: None,
            highlights: vec![],
            ..published.data.clone()
        },
        ..published.clone()
    };
    let expiring = KeyExpiringEvent {
        kind: WebhookEventType::KeyExpiring,
        schema_version: WEBHOOK_SCHEMA_VERSION,
        timestamp: "2025-03-14T00:00:05Z".into(),
        data: KeyExpiring {
            key: ExpiringKey {
                name: "wiki bot".into(),
                prefix: "tap_Ab12Cd34".into(),
                expires_at: "2025-03-21T00:00:00Z".into(),
            },
            days_left: 7,
            links: KeyLinks { dashboard: "https://api.example.com/account".into() },
        },
    };
    let test = TestEvent {
        kind: WebhookEventType::Test,
        schema_version: WEBHOOK_SCHEMA_VERSION,
        timestamp: "2025-03-14T10:00:00Z".into(),
        data: TestData { endpoint: "Guild bot".into(), message: "A test event from Tapster.".into() },
    };
    let payloads = [
        ("version.published", serde_json::to_value(&published).unwrap()),
        ("version.published", serde_json::to_value(&first).unwrap()),
        ("key.expiring", serde_json::to_value(&expiring).unwrap()),
        ("webhook.test", serde_json::to_value(&test).unwrap()),
    ];
    for (name, payload) in &payloads {
        assert_eq!(validate(&doc, &body(name), payload), Vec::<String>::new(), "{name}: {payload}");
    }

    type Breakage = (&'static str, &'static str, fn(&mut Value));
    let breakages: [Breakage; 6] = [
        ("version.published", "links missing", |p| {
            p["data"].as_object_mut().unwrap().remove("links");
        }),
        ("version.published", "another event's type", |p| p["type"] = json!("webhook.test")),
        ("version.published", "11 highlights", |p| {
            let one = p["data"]["highlights"][0].clone();
            p["data"]["highlights"] = Value::Array(vec![one; 11]);
        }),
        ("key.expiring", "the key's prefix missing", |p| {
            p["data"]["key"].as_object_mut().unwrap().remove("prefix");
        }),
        ("key.expiring", "days_left a string", |p| p["data"]["days_left"] = json!("7")),
        ("webhook.test", "schema_version missing", |p| {
            p.as_object_mut().unwrap().remove("schema_version");
        }),
    ];
    for (name, what, breakage) in breakages {
        let mut bad = payloads.iter().find(|(n, _)| *n == name).unwrap().1.clone();
        breakage(&mut bad);
        assert!(!validate(&doc, &body(name), &bad).is_empty(), "{name}: {what} passed validation");
    }
}

#[test]
fn the_validator_refuses_wrong_bodies() {
    let doc = document();
    let schema = resolve(
        &doc,
        &doc["paths"]["/v1/items"]["get"]["responses"]["200"]["content"]["application/json"]["schema"],
    );
    let good = get("/v1/items?limit=2").json();
    assert_eq!(validate(&doc, schema, &good), Vec::<String>::new());
    type Breakage = (&'static str, fn(&mut Value));
    let breakages: [Breakage; 7] = [
        ("id as a string", |b| b["data"][0]["id"] = json!("7")),
        ("name a number", |b| b["data"][0]["name"] = json!(5)),
        ("meta.lang not a language", |b| b["meta"]["lang"] = json!("xx")),
        ("an extra envelope member", |b| b["extra"] = json!(1)),
        ("pagination missing", |b| {
            b.as_object_mut().unwrap().remove("pagination");
        }),
        ("next a number", |b| b["pagination"]["next"] = json!(3)),
        ("data an object", |b| b["data"] = json!({})),
    ];
    for (what, breakage) in breakages {
        let mut bad = good.clone();
        breakage(&mut bad);
        assert!(!validate(&doc, schema, &bad).is_empty(), "{what} passed validation");
    }
    // A record lacking a field is valid only as an answer with `fields` (the second alternative).
    let mut partial = good["data"].clone();
    partial[0].as_object_mut().unwrap().remove("name");
    let data = &schema["properties"]["data"];
    assert!(!validate(&doc, &data["anyOf"][0], &partial).is_empty());
    assert_eq!(validate(&doc, data, &partial), Vec::<String>::new());
    // The validator's own rules, one case each.
    let cases = [
        (json!({"type": ["string", "null"]}), json!(null), true),
        (json!({"type": ["string", "null"]}), json!(1), false),
        (json!({"type": "integer"}), json!(1.5), false),
        (json!({"type": "integer", "minimum": 0}), json!(-1), false),
        (json!({"type": "integer", "maximum": 3}), json!(3), true),
        (json!({"enum": ["a", "b"]}), json!("c"), false),
        (json!({"const": "a"}), json!("a"), true),
        (json!({"oneOf": [{"type": "string"}, {"const": "a"}]}), json!("a"), false),
        (json!({"anyOf": [{"type": "string"}, {"type": "null"}]}), json!(null), true),
        (json!({"allOf": [{"type": "integer"}, {"minimum": 2}]}), json!(1), false),
        (json!({"type": "object", "additionalProperties": {"type": "integer"}}), json!({"a": "x"}), false),
        (json!({"type": "array", "items": {"type": "string"}}), json!(["a", 1]), false),
        (json!({"type": "string", "minLength": 2}), json!("é"), false),
        (json!({"type": "string", "pattern": "^v\\d+$"}), json!("v12"), true),
        (json!({"type": "string", "pattern": "^v\\d+$"}), json!("v1.2"), false),
        (json!({"pattern": "^a$"}), json!(3), true),
        (json!({"not": {"type": "string"}}), json!("a"), false),
        (json!({"unknownKeyword": 1}), json!("a"), false),
        (json!(false), json!("a"), false),
        (json!(true), json!("a"), true),
    ];
    for (schema, value, valid) in cases {
        assert_eq!(validate(&doc, &schema, &value).is_empty(), valid, "{schema} on {value}");
    }
}

/// Follows a `$ref` (to a component) if `value` is one.
fn resolve<'a>(doc: &'a Value, value: &'a Value) -> &'a Value {
    match value["$ref"].as_str().and_then(|r| r.strip_prefix('#')) {
        Some(pointer) => doc.pointer(pointer).unwrap_or_else(|| panic!("dangling $ref {pointer}")),
        None => value,
    }
}

/// Validates `value` against `schema` (JSON Schema 2020-12, the part schemars and this document use):
/// every error found, with the JSON Pointer of where. Keywords that only annotate are ignored; any
/// other keyword it does not know is itself an error, so a schema it cannot check never passes
/// silently. A `pattern` is matched by the `regex` crate, which reads the RE2-style syntax the
/// document's patterns keep to (a unit test of the crate compiles each of them).
fn validate(doc: &Value, schema: &Value, value: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    check(doc, schema, value, "", &mut errors);
    errors
}

const ANNOTATIONS: &[&str] = &[
    // OpenAPI's hint for generators; `oneOf` beside it does the checking.
    "discriminator",
    "description",
    "title",
    "format",
    "default",
    "examples",
    "$schema",
    "deprecated",
    "readOnly",
    "writeOnly",
];

fn check(doc: &Value, schema: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
    let schema = match schema {
        Value::Bool(true) => return,
        Value::Bool(false) => return errors.push(format!("{at}: no value is allowed here")),
        Value::Object(schema) => schema,
        other => return errors.push(format!("{at}: the schema {other} is not a schema")),
    };
    let mut fail = |message: String| errors.push(format!("{at}: {message} (value {value})"));
    let mut nested = Vec::new();
    for (keyword, arg) in schema {
        match keyword.as_str() {
            "$ref" => match arg.as_str().and_then(|r| r.strip_prefix('#')).and_then(|p| doc.pointer(p)) {
                Some(target) => check(doc, target, value, at, &mut nested),
                None => fail(format!("dangling $ref {arg}")),
            },
            "type" => {
                let types: Vec<&str> = match arg {
                    Value::Array(types) => types.iter().filter_map(Value::as_str).collect(),
                    other => other.as_str().into_iter().collect(),
                };
                if !types.iter().any(|t| has_type(value, t)) {
                    fail(format!("is not of type {arg}"));
                }
            }
            "enum" => {
                if !arg.as_array().is_some_and(|allowed| allowed.contains(value)) {
                    fail(format!("is not one of {arg}"));
                }
            }
            "const" if arg != value => fail(format!("is not {arg}")),
            "const" => {}
            "minimum" if value.as_f64().zip(arg.as_f64()).is_some_and(|(v, m)| v < m) => {
                fail(format!("is below {arg}"))
            }
            "maximum" if value.as_f64().zip(arg.as_f64()).is_some_and(|(v, m)| v > m) => {
                fail(format!("is above {arg}"))
            }
            "minimum" | "maximum" => {}
            "minLength" | "maxLength" => {
                if let (Some(s), Some(bound)) = (value.as_str(), arg.as_u64()) {
                    let length = s.chars().count() as u64;
                    if (keyword == "minLength" && length < bound)
                        || (keyword == "maxLength" && length > bound)
                    {
                        fail(format!("has a length outside {keyword} {bound}"));
                    }
                }
            }
            "pattern" => match (value.as_str(), arg.as_str().map(regex::Regex::new)) {
                (Some(text), Some(Ok(pattern))) if !pattern.is_match(text) => {
                    fail(format!("does not match the pattern {arg}"))
                }
                (_, Some(Ok(_))) => {}
                _ => fail(format!("has a pattern that does not compile: {arg}")),
            },
            "minItems" | "maxItems" => {
                if let (Some(items), Some(bound)) = (value.as_array(), arg.as_u64()) {
                    let length = items.len() as u64;
                    if (keyword == "minItems" && length < bound) || (keyword == "maxItems" && length > bound)
                    {
                        fail(format!("has a length outside {keyword} {bound}"));
                    }
                }
            }
            "uniqueItems" if arg == true => {
                let items = value.as_array().map(Vec::as_slice).unwrap_or_default();
                if items.iter().enumerate().any(|(i, item)| items[..i].contains(item)) {
                    fail("has duplicate items".into());
                }
            }
            "uniqueItems" => {}
            "required" => {
                if let Some(object) = value.as_object() {
                    for name in arg.as_array().into_iter().flatten().filter_map(Value::as_str) {
                        if !object.contains_key(name) {
                            fail(format!("lacks the required member {name:?}"));
                        }
                    }
                }
            }
            "properties" => {
                if let (Some(object), Some(properties)) = (value.as_object(), arg.as_object()) {
                    for (name, member) in object {
                        if let Some(property) = properties.get(name) {
                            check(doc, property, member, &format!("{at}/{name}"), &mut nested);
                        }
                    }
                }
            }
            "additionalProperties" => {
                if let Some(object) = value.as_object() {
                    let known = schema.get("properties").and_then(Value::as_object);
                    for (name, member) in object {
                        if !known.is_some_and(|k| k.contains_key(name)) {
                            check(doc, arg, member, &format!("{at}/{name}"), &mut nested);
                        }
                    }
                }
            }
            "items" => {
                let skip = schema.get("prefixItems").and_then(Value::as_array).map_or(0, Vec::len);
                for (i, item) in value.as_array().into_iter().flatten().enumerate().skip(skip) {
                    check(doc, arg, item, &format!("{at}/{i}"), &mut nested);
                }
            }
            "prefixItems" => {
                for (i, (item, item_schema)) in value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .zip(arg.as_array().into_iter().flatten())
                    .enumerate()
                {
                    check(doc, item_schema, item, &format!("{at}/{i}"), &mut nested);
                }
            }
            "anyOf" | "oneOf" | "allOf" => {
                let branches = arg.as_array().map(Vec::as_slice).unwrap_or_default();
                let outcomes: Vec<Vec<String>> =
                    branches.iter().map(|b| validate_at(doc, b, value, at)).collect();
                let passed = outcomes.iter().filter(|o| o.is_empty()).count();
                let ok = match keyword.as_str() {
                    "anyOf" => passed >= 1,
                    "oneOf" => passed == 1,
                    _ => passed == branches.len(),
                };
                if !ok {
                    let reasons: Vec<String> = outcomes.into_iter().flatten().collect();
                    fail(format!(
                        "fails {keyword} ({passed} of {} branches pass): {}",
                        branches.len(),
                        reasons.join("; ")
                    ));
                }
            }
            "not" => {
                if validate_at(doc, arg, value, at).is_empty() {
                    fail(format!("matches the schema `not` forbids: {arg}"));
                }
            }
            known if ANNOTATIONS.contains(&known) => {}
            unknown => fail(format!("the validator does not know the keyword {unknown:?}")),
        }
    }
    errors.append(&mut nested);
}

fn validate_at(doc: &Value, schema: &Value, value: &Value, at: &str) -> Vec<String> {
    let mut errors = Vec::new();
    check(doc, schema, value, at, &mut errors);
    errors
}

fn has_type(value: &Value, name: &str) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "number" => value.is_number(),
        "integer" => value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => false,
    }
}

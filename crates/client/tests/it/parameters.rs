//! The client's query structs held to the server's endpoint table, through the OpenAPI document the
//! server writes from it (`/openapi.json`): every query parameter of every operation is a parameter
//! of the struct the client's method for it takes (as the client's own table, `ENDPOINTS`, pairs
//! them; its methods build their targets from that table), with the same name, the same bounds
//! (`minimum`, `maximum`, `minLength`, `maxLength`, the value set) and the same `required`, and the
//! struct has no other; but for the parameters the client leaves out on purpose ([`OMITTED`]). An
//! operation the client does not know fails here until it is given a method, or a reason in
//! [`UNTYPED`].

use std::collections::BTreeMap;
use std::net::SocketAddr;

use serde_json::Value;
use tapster_client::{Bounds, ENDPOINTS, Parameter};

use crate::server;

/// Parameters the client leaves out of every struct (docs/ARCHITECTURE.md, `crates/client`):
/// `fields` asks for partial records, which no typed answer holds.
const OMITTED: &[&str] = &["fields"];

/// Documented operations without a typed method, and why.
const UNTYPED: &[(&str, &str)] = &[
    ("/openapi.json", "the document itself, not an answer of the API"),
    ("/docs", "the reference as an HTML page"),
    ("/changelog", "the changes as an HTML page"),
    ("/changelog.rss", "the changes as an RSS feed"),
];

/// The progression types' paths (`documents_path` in the client), which [`ENDPOINTS`] writes as one
/// `{type}`.
const DOCUMENTS: &[&str] = &["quests", "perks", "spells", "talents", "reputation", "missions", "letters"];

/// Each operation the client calls, by its documented path, and the parameters of the query struct
/// its method takes (none for a method that takes no query): [`ENDPOINTS`], the table the client's
/// methods build their targets from, with `{type}` spelled out.
fn client_operations() -> BTreeMap<String, &'static [Parameter]> {
    let mut operations = BTreeMap::new();
    for endpoint in ENDPOINTS {
        let paths: Vec<String> = if endpoint.path.contains("{type}") {
            DOCUMENTS.iter().map(|kind| endpoint.path.replace("{type}", kind)).collect()
        } else {
            vec![endpoint.path.to_owned()]
        };
        for path in paths {
            let earlier = operations.insert(path, endpoint.parameters);
            assert!(earlier.is_none(), "{} is in ENDPOINTS twice", endpoint.path);
        }
    }
    operations
}

/// The server's document.
fn document() -> Value {
    let addr: SocketAddr = server().base.trim_start_matches("http://").parse().unwrap();
    let answer = tapster_test_support::http::get(addr, "/openapi.json", &[]);
    assert_eq!(answer.status, 200, "{}", answer.text());
    answer.json()
}

/// What `reference` (`#/components/...`) points to, or `value` itself when it is no reference.
fn resolve<'a>(doc: &'a Value, value: &'a Value) -> &'a Value {
    match value["$ref"].as_str() {
        Some(reference) => {
            let pointer =
                reference.strip_prefix('#').unwrap_or_else(|| panic!("not a local reference: {reference}"));
            doc.pointer(pointer).unwrap_or_else(|| panic!("{reference} does not resolve"))
        }
        None => value,
    }
}

/// A documented query parameter as the client's [`Parameter`] would say it.
fn as_client_says(doc: &Value, parameter: &Value) -> Parameter {
    let name = parameter["name"].as_str().expect("a parameter's name").to_owned();
    let schema = &parameter["schema"];
    let number = |key: &str| schema[key].as_i64();
    let length = |key: &str| schema[key].as_u64().map(|n| u32::try_from(n).unwrap());
    let bounds = if let Some(set) = schema["$ref"].as_str() {
        let set = set.strip_prefix("#/components/schemas/").unwrap_or_else(|| panic!("{name}: {set}"));
        assert!(resolve(doc, schema)["enum"].is_array(), "{name}: {set} is not a value set");
        Bounds::OneOf(Box::leak(set.to_owned().into_boxed_str()))
    } else {
        match schema["type"].as_str() {
            Some("integer") => Bounds::Integer {
                min: number("minimum").unwrap_or_else(|| panic!("{name} has no minimum")),
                max: number("maximum").unwrap_or_else(|| panic!("{name} has no maximum")),
            },
            Some("boolean") => Bounds::Bool,
            Some("string") => Bounds::Text {
                min_len: length("minLength").unwrap_or(0),
                max_len: length("maxLength").unwrap_or_else(|| panic!("{name} has no maxLength")),
            },
            other => panic!("{name}: a schema of type {other:?}"),
        }
    };
    let required = parameter["required"].as_bool().unwrap_or(false);
    Parameter { name: Box::leak(name.into_boxed_str()), bounds, required }
}

#[test]
fn every_query_struct_takes_the_documented_parameters_with_their_bounds() {
    let doc = document();
    let mut client = client_operations();
    let mut problems = Vec::new();
    let paths = doc["paths"].as_object().expect("the document's paths");
    assert!(paths.len() > 30, "{} documented paths", paths.len());
    for (path, item) in paths {
        let operation = &item["get"];
        assert!(operation.is_object(), "{path} has no GET operation");
        let documented: Vec<Parameter> = operation["parameters"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .map(|parameter| resolve(&doc, parameter))
            .filter(|parameter| parameter["in"] == "query")
            .map(|parameter| as_client_says(&doc, parameter))
            .filter(|parameter| !OMITTED.contains(&parameter.name))
            .collect();
        let Some(takes) = client.remove(path) else {
            if !UNTYPED.iter().any(|(untyped, _)| untyped == path) {
                problems.push(format!("{path}: documented, but the client has no method for it"));
            }
            continue;
        };
        for parameter in &documented {
            match takes.iter().find(|p| p.name == parameter.name) {
                None => problems.push(format!("{path}: the client does not take `{}`", parameter.name)),
                Some(own) if own != parameter => {
                    problems.push(format!("{path}: the client says {own:?}, the document {parameter:?}"));
                }
                Some(_) => {}
            }
        }
        for own in takes.iter().filter(|own| !documented.iter().any(|p| p.name == own.name)) {
            problems.push(format!("{path}: the client writes `{}`, which is not documented", own.name));
        }
    }
    problems
        .extend(client.keys().map(|path| format!("{path}: the client calls it, but it is not documented")));
    assert!(problems.is_empty(), "the client and the document differ:\n{}", problems.join("\n"));
}

//! The OpenAPI 3.1 document of the service, written from the endpoint table and the view types, so
//! that it describes exactly the routes, parameters and shapes the server has.

use std::sync::OnceLock;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value, json};
use tapster_domain::{Ident, MAX_KEY_LEN, ProgressionKey, RecordKey, VersionSelector};
use tapster_i18n::Language;

use crate::params::{MAX_OFFSET, Param, Rule};
use crate::routes::{Endpoint, PathRule, endpoints, path_rule};

/// The schema of a view type, registered in the document's components; endpoints name their `data`
/// shape with it (`data: schema::<Vec<ItemSummary>>`).
pub(crate) fn schema<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

/// The interface version, `info.version` of the document (spec 9.1).
pub(crate) const API_VERSION: &str = "0.1.0";

const DESCRIPTION: &str = "Read-only game data of an invented farming and tavern-management game: items, \
recipes, prices, crops, shops, fish and progression records, per game version and in 27 languages.\n\n\
**Unofficial**: this service is not affiliated with or endorsed by the game's publisher; the game data \
belongs to that publisher.\n\n\
Every `/v1` route needs an API key (`Authorization: Bearer <key>`). Successful answers are \
`{data, meta, pagination?}`; errors are `application/problem+json`. Texts missing in the requested \
language are served in English and listed, as JSON Pointers into the body, in `meta.lang_fallback`. \
The public routes `/healthz`, `/openapi.json` and `/changelog.rss` need no key. See docs/api.md.";

/// The document as JSON bytes, built once from the endpoint table.
pub(crate) fn document_bytes() -> &'static [u8] {
    static DOCUMENT: OnceLock<Vec<u8>> = OnceLock::new();
    // A tree of strings, numbers and maps always encodes.
    DOCUMENT.get_or_init(|| serde_json::to_vec(&document()).unwrap_or_default())
}

/// The whole document.
pub(crate) fn document() -> Value {
    let settings = SchemaSettings::draft2020_12().for_serialize().with(|s| {
        s.definitions_path = "/components/schemas/".into();
        s.meta_schema = None;
    });
    let mut generator = settings.into_generator();
    let mut paths = Map::new();
    let mut tags: Vec<&str> = Vec::new();
    let mut partials: Vec<String> = Vec::new();
    for endpoint in endpoints() {
        let tag = tag(endpoint.path);
        if !tags.contains(&tag) {
            tags.push(tag);
        }
        let op = operation(endpoint, &mut generator, &mut partials);
        paths.insert(endpoint.path.to_owned(), json!({ "get": op }));
    }
    let mut schemas = generator.take_definitions(true);
    for name in partials {
        if let Some(full) = schemas.get(&name) {
            let partial = partial_schema(&name, full);
            schemas.insert(partial_name(&name), partial);
        }
    }
    for (name, schema) in fixed_schemas() {
        schemas.entry(name).or_insert(schema);
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Tapster",
            "version": API_VERSION,
            "summary": "Unofficial read API for the game data of a tavern-management game",
            "description": DESCRIPTION,
        },
        "servers": [{ "url": "/" }],
        "tags": tags.iter().map(|t| json!({ "name": t })).collect::<Vec<_>>(),
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "bearerAuth": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "An API key (`tap_...`) sent as `Authorization: Bearer <key>`; the scheme name is matched case-insensitively.",
                },
            },
            "headers": headers(),
            "responses": problem_responses(),
        },
    })
}

/// The first path segment after `/v1` (`items` for `/v1/items/{key}`), or `service` for public routes.
fn tag(path: &str) -> &str {
    match path.strip_prefix("/v1/") {
        Some(rest) => rest.split('/').next().unwrap_or(rest),
        None => "service",
    }
}

/// `getItemsByKeyUsedIn` for `/v1/items/{key}/used-in`: unique, stable, and readable.
fn operation_id(path: &str) -> String {
    let mut id = String::from("get");
    for segment in path.split('/').filter(|s| !s.is_empty() && *s != "v1") {
        let (prefix, name) = match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            Some(name) => ("By", name),
            None => ("", segment),
        };
        id.push_str(prefix);
        for word in name.split(['-', '_', '.']).filter(|w| !w.is_empty()) {
            let mut chars = word.chars();
            if let Some(first) = chars.next() {
                id.extend(first.to_uppercase());
                id.push_str(chars.as_str());
            }
        }
    }
    id
}

/// `partials` collects the components whose `fields` form (see `partial_data`) the operation names.
fn operation(endpoint: &Endpoint, generator: &mut SchemaGenerator, partials: &mut Vec<String>) -> Value {
    let data = (endpoint.data)(generator).to_value();
    let public = !endpoint.path.starts_with("/v1/");
    let mut parameters: Vec<Value> = path_parameters(endpoint.path);
    parameters.extend(endpoint.params.iter().map(query_parameter));
    let mut op = json!({
        "operationId": operation_id(endpoint.path),
        "summary": endpoint.summary,
        "tags": [tag(endpoint.path)],
        "parameters": parameters,
    });
    if public {
        op["security"] = json!([]);
        let (media, schema) = if endpoint.path.ends_with(".rss") {
            ("application/rss+xml", json!({ "type": "string", "description": "An RSS 2.0 document." }))
        } else {
            ("application/json", data)
        };
        op["responses"] =
            json!({ "200": { "description": "OK", "content": { media: { "schema": schema } } } });
        return op;
    }
    op["security"] = json!([{ "bearerAuth": [] }]);
    let mut responses = Map::new();
    responses.insert(
        "200".into(),
        json!({
            "description": "OK",
            "headers": {
                "ETag": { "$ref": "#/components/headers/ETag" },
                "Cache-Control": { "$ref": "#/components/headers/Cache-Control" },
                "Vary": { "$ref": "#/components/headers/Vary" },
                "RateLimit-Policy": { "$ref": "#/components/headers/RateLimit-Policy" },
                "RateLimit": { "$ref": "#/components/headers/RateLimit" },
            },
            "content": { "application/json": { "schema": envelope(endpoint, data, partials) } },
        }),
    );
    responses.insert(
        "304".into(),
        json!({
            "description": "Not modified: the `If-None-Match` header named the current `ETag`. No body; counts toward the rate limits.",
            "headers": {
                "ETag": { "$ref": "#/components/headers/ETag" },
                "Cache-Control": { "$ref": "#/components/headers/Cache-Control" },
                "Vary": { "$ref": "#/components/headers/Vary" },
                "RateLimit-Policy": { "$ref": "#/components/headers/RateLimit-Policy" },
                "RateLimit": { "$ref": "#/components/headers/RateLimit" },
            },
        }),
    );
    let may_miss = endpoint.path.contains('{') || endpoint.params.iter().any(|p| p.name == "version");
    // 414, 431 and 503 come from the edge of the server, for any request.
    for status in ["401", "403", "404", "414", "422", "429", "431", "503"] {
        if status == "404" && !may_miss {
            continue;
        }
        responses.insert(status.into(), json!({ "$ref": format!("#/components/responses/{status}") }));
    }
    op["responses"] = Value::Object(responses);
    op
}

/// `{data, meta, pagination}`: `pagination` is always there on pages (`limit` and `offset`), never
/// on full lists and single records, and may be there when only `limit` is taken.
fn envelope(endpoint: &Endpoint, data: Value, partials: &mut Vec<String>) -> Value {
    let takes = |name: &str| endpoint.params.iter().any(|p| p.name == name);
    let data = match partial_data(&data) {
        Some((partial, name)) if takes("fields") => {
            if !partials.contains(&name) {
                partials.push(name);
            }
            json!({ "anyOf": [data, partial] })
        }
        _ => data,
    };
    let mut properties = Map::new();
    properties.insert("data".into(), data);
    properties.insert("meta".into(), json!({ "$ref": "#/components/schemas/Meta" }));
    let mut required = vec!["data", "meta"];
    if takes("limit") {
        properties.insert("pagination".into(), json!({ "$ref": "#/components/schemas/Pagination" }));
        if takes("offset") {
            required.push("pagination");
        }
    }
    let mut description = String::from("The envelope.");
    if takes("fields") {
        description.push_str(" With `fields`, records hold only the fields asked for.");
    }
    json!({
        "type": "object",
        "description": description,
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// The component a `fields` answer holds part of: `ItemSummaryFields` for `ItemSummary`.
fn partial_name(name: &str) -> String {
    format!("{name}Fields")
}

/// The `data` of an answer with `fields`: the same shape with the record (`{"$ref": ...}`, or the
/// `items` of a list of them) replaced by its partial form, and that record's component name.
fn partial_data(data: &Value) -> Option<(Value, String)> {
    const PREFIX: &str = "#/components/schemas/";
    let mut partial = data.clone();
    let reference = match partial.get_mut("items") {
        Some(items) => items.get_mut("$ref")?,
        None => partial.get_mut("$ref")?,
    };
    let name = reference.as_str()?.strip_prefix(PREFIX)?.to_owned();
    *reference = Value::String(format!("{PREFIX}{}", partial_name(&name)));
    Some((partial, name))
}

/// The record `full` with `fields`: the same members, none of them required.
fn partial_schema(name: &str, full: &Value) -> Value {
    let mut partial = full.clone();
    if let Some(object) = partial.as_object_mut() {
        object.remove("required");
        object.insert(
            "description".into(),
            json!(format!("A `{name}` holding only the top-level fields that `fields` asked for.")),
        );
    }
    partial
}

/// One parameter per `{name}` segment of a template.
fn path_parameters(path: &str) -> Vec<Value> {
    path.split('/')
        .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
        .map(|name| {
            let (schema, description) = match path_rule(path, name) {
                PathRule::Version => (
                    version_schema(),
                    "Game version: `latest` or a published version name such as `v0.6.4.2.1`. Unknown is `404`, malformed is `422`.",
                ),
                PathRule::ProgressionKey => (
                    json!({ "type": "string", "pattern": ProgressionKey::PATTERN, "maxLength": MAX_KEY_LEN }),
                    "The record's key as the game names it (percent-encode spaces and quotes).",
                ),
                PathRule::RecordKey => (
                    json!({ "type": "string", "pattern": RecordKey::PATTERN, "maxLength": MAX_KEY_LEN }),
                    "The record's integer id or its slug.",
                ),
            };
            json!({ "name": name, "in": "path", "required": true, "description": description, "schema": schema })
        })
        .collect()
}

fn version_schema() -> Value {
    json!({ "type": "string", "pattern": VersionSelector::PATTERN, "maxLength": 32 })
}

/// The alternation of `names` for a pattern (names are plain identifiers, nothing to escape but `.`).
fn alternation(names: &[&str]) -> String {
    names.iter().map(|n| n.replace('.', r"\.")).collect::<Vec<_>>().join("|")
}

/// The description, then the names a list parameter allows.
fn listed(description: &str, what: &str, names: &[&str]) -> String {
    let names = names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
    format!("{description} Comma-separated; the {what} are {names}.")
}

/// A query parameter and its schema, from its rule.
fn query_parameter(param: &Param) -> Value {
    let mut description = param.description.to_owned();
    let schema = match param.rule {
        Rule::Version => {
            let mut schema = version_schema();
            if param.name == "version" {
                schema["default"] = json!("latest");
            }
            schema
        }
        Rule::Lang => json!({
            "type": "string",
            "enum": Language::ALL.iter().map(|l| l.code()).collect::<Vec<_>>(),
            "default": Language::SOURCE.code(),
        }),
        Rule::Limit { default, max } => {
            json!({ "type": "integer", "minimum": 1, "maximum": max, "default": default })
        }
        Rule::Offset => json!({ "type": "integer", "minimum": 0, "maximum": MAX_OFFSET, "default": 0 }),
        Rule::Bool => json!({ "type": "boolean" }),
        Rule::Enum(values) => json!({ "type": "string", "enum": values }),
        Rule::Int { min, max } => json!({ "type": "integer", "minimum": min, "maximum": max }),
        Rule::Ident { max } => json!({ "type": "string", "pattern": Ident::PATTERN, "maxLength": max }),
        Rule::Key => json!({ "type": "string", "pattern": RecordKey::PATTERN, "maxLength": MAX_KEY_LEN }),
        Rule::Ids => json!({
            "type": "string",
            "pattern": r"^\s*-?[0-9]+\s*(,\s*-?[0-9]+\s*)*$",
            "maxLength": 2000,
        }),
        Rule::Fields(names) => {
            description = listed(&description, "fields", names);
            let one = alternation(names);
            json!({ "type": "string", "pattern": format!("^({one})(,({one}))*$"), "maxLength": 300 })
        }
        Rule::Expand(names) => {
            description = listed(&description, "relations", names);
            let one = alternation(names);
            json!({ "type": "string", "pattern": format!("^({one})(,({one}))*$"), "maxLength": 60 })
        }
        Rule::Sort(names) => {
            description = listed(
                &description,
                "sort keys (each at most once, optionally prefixed with `-` for descending)",
                names,
            );
            let one = alternation(names);
            // The lookahead refuses a key given twice (`name,-name`), as the server does.
            let repeated = format!("(?!(?:[^,]*,)*-?({one}),(?:[^,]*,)*-?\\1(?:,|$))");
            json!({
                "type": "string",
                "pattern": format!("^{repeated}-?({one})(,-?({one}))*$"),
                "maxLength": 60,
            })
        }
        Rule::Text { min, max, .. } => json!({ "type": "string", "minLength": min, "maxLength": max }),
    };
    json!({ "name": param.name, "in": "query", "required": param.rule.required(), "description": description, "schema": schema })
}

/// Response headers, referenced from every `/v1` operation.
fn headers() -> Value {
    json!({
        "ETag": {
            "description": "Strong entity tag of the body; send it back in `If-None-Match` to get `304` when nothing changed.",
            "schema": { "type": "string" },
        },
        "Cache-Control": {
            "description": "`private, max-age=300`: answers made with a key are for that client only.",
            "schema": { "type": "string" },
        },
        "Vary": {
            "description": "`Authorization, Accept-Encoding`.",
            "schema": { "type": "string" },
        },
        "RateLimit-Policy": {
            "description": "The key's quota policies (IETF RateLimit header fields draft), e.g. `\"burst\";q=60;w=12, \"minute\";q=300;w=60, \"day\";q=20000;w=86400`.",
            "schema": { "type": "string" },
        },
        "RateLimit": {
            "description": "The policy nearest to exhaustion, its remaining quota `r` and the seconds `t` until it refills, e.g. `\"burst\";r=42;t=1`.",
            "schema": { "type": "string" },
        },
        "Retry-After": {
            "description": "Whole seconds (at least 1) to wait before retrying.",
            "schema": { "type": "integer", "minimum": 1 },
        },
    })
}

/// The error answers, all `application/problem+json`.
fn problem_responses() -> Value {
    let problem = |description: &str| {
        json!({
            "description": description,
            "content": { "application/problem+json": { "schema": { "$ref": "#/components/schemas/Problem" } } },
        })
    };
    let mut limited = problem(
        "Rate limit reached (type `/errors/rate-limited`); wait `Retry-After` seconds. A refused request uses no quota.",
    );
    limited["headers"] = json!({
        "Retry-After": { "$ref": "#/components/headers/Retry-After" },
        "RateLimit-Policy": { "$ref": "#/components/headers/RateLimit-Policy" },
        "RateLimit": { "$ref": "#/components/headers/RateLimit" },
    });
    let mut unavailable = problem(
        "Too many open connections, or the request waited past its time budget (type `/errors/unavailable`); wait `Retry-After` seconds.",
    );
    unavailable["headers"] = json!({ "Retry-After": { "$ref": "#/components/headers/Retry-After" } });
    json!({
        "401": problem("No API key, or a malformed, unknown or revoked one (type `/errors/unauthorized`)."),
        "403": problem("The key, its account or the calling address is suspended (type `/errors/forbidden`)."),
        "404": problem("No such record or game version (type `/errors/not-found`); `detail` names what was asked and the version."),
        "422": problem("An invalid parameter (type `/errors/validation`): out of pattern, length or bounds, unknown, repeated, or an unknown value; `errors` names each."),
        "414": problem("The path and query are longer than the server accepts (type `/errors/uri-too-long`)."),
        "429": limited,
        "431": problem("The request's header fields are larger than the server accepts (type `/errors/headers-too-large`)."),
        "503": unavailable,
    })
}

/// The schemas written by hand: the envelope's `meta` and `pagination`, and the problem body.
fn fixed_schemas() -> Vec<(String, Value)> {
    vec![
        (
            "Meta".into(),
            json!({
                "type": "object",
                "description": "What produced the answer.",
                "properties": {
                    "game_version": { "type": "string", "description": "The concrete game version (never `latest`).", "pattern": tapster_domain::GameVersion::PATTERN },
                    "build_id": { "type": "integer", "description": "The build id of that game version." },
                    "lang": { "type": "string", "description": "The language requested and used.", "enum": Language::ALL.iter().map(|l| l.code()).collect::<Vec<_>>() },
                    "lang_fallback": {
                        "type": "array",
                        "description": "JSON Pointers (RFC 6901) into the body, in document order, to each text served in English because the requested language lacks it.",
                        "items": { "type": "string" },
                    },
                },
                "required": ["game_version", "build_id", "lang", "lang_fallback"],
                "additionalProperties": false,
            }),
        ),
        (
            "Pagination".into(),
            json!({
                "type": "object",
                "description": "Where the page sits in its list. Links are path and query, keep every other parameter, and are `null` at the ends.",
                "properties": {
                    "limit": { "type": "integer", "minimum": 1 },
                    "offset": { "type": "integer", "minimum": 0, "maximum": MAX_OFFSET },
                    "total": { "type": "integer", "minimum": 0, "description": "Records in the whole list." },
                    "next": { "type": ["string", "null"], "description": "The next page, or `null` on the last." },
                    "prev": { "type": ["string", "null"], "description": "The previous page, or `null` on the first." },
                },
                "required": ["limit", "offset", "total", "next", "prev"],
                "additionalProperties": false,
            }),
        ),
        (
            "Problem".into(),
            json!({
                "type": "object",
                "description": "An error (RFC 9457).",
                "properties": {
                    "type": {
                        "type": "string",
                        "enum": [
                            "/errors/unauthorized", "/errors/forbidden", "/errors/not-found", "/errors/method-not-allowed",
                            "/errors/validation", "/errors/rate-limited", "/errors/internal", "/errors/content-too-large",
                            "/errors/uri-too-long", "/errors/headers-too-large", "/errors/unavailable",
                        ],
                    },
                    "title": { "type": "string" },
                    "status": { "type": "integer" },
                    "detail": { "type": "string", "description": "What went wrong, for a human." },
                    "instance": { "type": "string", "description": "The path that was asked for." },
                    "errors": {
                        "type": "array",
                        "description": "On `422`: each invalid parameter.",
                        "items": { "$ref": "#/components/schemas/InvalidParameter" },
                    },
                },
                "required": ["type", "title", "status", "detail", "instance"],
                "additionalProperties": false,
            }),
        ),
        (
            "InvalidParameter".into(),
            json!({
                "type": "object",
                "properties": {
                    "parameter": { "type": "string", "description": "The parameter's name (`key` or `version` for a path parameter)." },
                    "detail": { "type": "string" },
                },
                "required": ["parameter", "detail"],
                "additionalProperties": false,
            }),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_ids_follow_the_path() {
        let cases = [
            ("/v1/items", "getItems"),
            ("/v1/items/{key}/used-in", "getItemsByKeyUsedIn"),
            ("/v1/versions/{version}/changes", "getVersionsByVersionChanges"),
            ("/v1/ingredient-groups/{key}", "getIngredientGroupsByKey"),
            ("/openapi.json", "getOpenapiJson"),
            ("/changelog.rss", "getChangelogRss"),
        ];
        for (path, id) in cases {
            assert_eq!(operation_id(path), id, "{path}");
        }
    }

    /// With `fields`, a record lacks the fields not asked for: the document allows that, and only there.
    #[test]
    fn answers_with_fields_are_documented_as_partial_records() {
        let doc = document();
        let mut seen = 0;
        for endpoint in endpoints() {
            let data = &doc["paths"][endpoint.path]["get"]["responses"]["200"]["content"]["application/json"]
                ["schema"]["properties"]["data"];
            if !endpoint.params.iter().any(|p| p.name == "fields") {
                assert!(data.get("anyOf").is_none(), "{}: {data}", endpoint.path);
                continue;
            }
            seen += 1;
            let partial = &data["anyOf"][1];
            let reference = partial["items"]["$ref"].as_str().or(partial["$ref"].as_str()).unwrap();
            let name = reference.strip_prefix("#/components/schemas/").unwrap();
            let partial = &doc["components"]["schemas"][name];
            let full = &doc["components"]["schemas"][name.strip_suffix("Fields").unwrap()];
            assert!(full["required"].as_array().is_some_and(|r| !r.is_empty()), "{name}");
            assert!(partial.get("required").is_none(), "{name}: {partial}");
            assert_eq!(partial["properties"], full["properties"], "{name}");
            assert_eq!(partial["additionalProperties"], full["additionalProperties"], "{name}");
        }
        assert_eq!(seen, 3);
    }

    #[test]
    fn operation_ids_are_unique() {
        let mut ids: Vec<String> = endpoints().map(|e| operation_id(e.path)).collect();
        let count = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), count);
    }
}

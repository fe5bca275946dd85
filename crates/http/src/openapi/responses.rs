//! The responses of the operations: the data answers with their headers, the error answers each
//! with the headers the server sends beside it, and the hand-written schemas of the envelope's
//! `meta` and `pagination` and of the problem body.

use serde_json::{Map, Value, json};

use crate::params::MAX_OFFSET;
use crate::routes::{Endpoint, PICTURE};

fn header(name: &str) -> Value {
    json!({ "$ref": format!("#/components/headers/{name}") })
}

/// The headers of every answer to a request that passed the key check.
const ADMITTED: [&str; 3] = ["Vary", "RateLimit-Policy", "RateLimit"];

fn headers_of(names: &[&str]) -> Value {
    Value::Object(names.iter().map(|name| ((*name).to_owned(), header(name))).collect())
}

/// `200` with `schema` as its body.
pub(super) fn data(schema: Value) -> Value {
    json!({
        "description": "OK",
        "headers": headers_of(&["ETag", "Cache-Control", "Vary", "Content-Language", "RateLimit-Policy", "RateLimit"]),
        "content": { "application/json": { "schema": schema } },
    })
}

/// A file a download answers: its media type, its name as `Content-Disposition` gives it, and what
/// its whole body is.
#[derive(Debug)]
pub(super) struct FileKind {
    media: &'static str,
    name: &'static str,
    whole: &'static str,
}

/// An export of one version in one language.
pub(super) const EXPORT_FILE: FileKind = FileKind {
    media: "application/gzip",
    name: "tapster-<version>-<lang>.ndjson.gz",
    whole: "The whole file: gzip-compressed NDJSON, one record per line (see docs/api.md, \"Bulk exports\"). Its `ETag` is its SHA-256 in hex, as `/v1/exports` lists it.",
};

/// A version's pictures.
pub(super) const ICONS_FILE: FileKind = FileKind {
    media: "application/x-tar",
    name: "tapster-<version>-icons.tar",
    whole: "The whole archive: `manifest.json` (a `PictureManifest`), then each picture at `assets/<the path its records name>` (see docs/api.md, \"Pictures\"). Its `ETag` is its SHA-256 in hex.",
};

/// `200`, `206` and `416` of a file download: its bytes, whole or the range asked for.
pub(super) fn file(kind: FileKind) -> [(&'static str, Value); 3] {
    let file_headers = |extra: &[(&str, &str)]| {
        let mut headers = Map::new();
        for name in ["ETag", "Cache-Control", "Vary", "RateLimit-Policy", "RateLimit"] {
            headers.insert(name.to_owned(), header(name));
        }
        headers.insert(
            "Accept-Ranges".to_owned(),
            json!({ "description": "`bytes`: a download can be resumed with `Range`.", "schema": { "type": "string" } }),
        );
        headers.insert(
            "Content-Disposition".to_owned(),
            json!({ "description": format!("`attachment` with the file's name, `{}`.", kind.name), "schema": { "type": "string" } }),
        );
        for (name, description) in extra {
            headers.insert(
                (*name).to_owned(),
                json!({ "description": description, "schema": { "type": "string" } }),
            );
        }
        Value::Object(headers)
    };
    // Bytes, not JSON: OpenAPI 3.1 describes a binary body by its media type alone, without a schema.
    let content = json!({ kind.media: {} });
    [
        (
            "200",
            json!({
                "description": kind.whole,
                "headers": file_headers(&[]),
                "content": content,
            }),
        ),
        (
            "206",
            json!({
                "description": "The part of the file one `Range` of bytes asked for (several ranges, or an `If-Range` that is not the current `ETag`, get the whole file).",
                "headers": file_headers(&[("Content-Range", "`bytes <first>-<last>/<size>`.")]),
                "content": content,
            }),
        ),
        (
            "416",
            problem(
                "The `Range` starts past the end of the file (type `/errors/range-not-satisfiable`); `Content-Range: bytes */<size>` gives its size.",
                &["Vary", "RateLimit-Policy", "RateLimit"],
            ),
        ),
    ]
}

/// The `200` and `304` of a picture: an image of the format asked for, public and cached forever.
pub(super) fn picture() -> [(&'static str, Value); 2] {
    let headers = || {
        json!({
            "ETag": { "description": "The SHA-256 of these bytes in hex, quoted: strong.", "schema": { "type": "string" } },
            "Cache-Control": { "description": "`public, max-age=31536000, immutable`: a URL names its picture's content, which never changes.", "schema": { "type": "string" } },
        })
    };
    [
        (
            "200",
            json!({
                "description": "The picture: `image/png`, or `image/webp` (lossless) with `format=webp`.",
                "headers": headers(),
                // Bytes, not JSON: OpenAPI 3.1 describes a binary body by its media type alone.
                "content": { "image/png": {}, "image/webp": {} },
            }),
        ),
        (
            "304",
            json!({
                "description": "Not modified: the `If-None-Match` header named the current `ETag`. No body.",
                "headers": headers(),
            }),
        ),
    ]
}

pub(super) fn not_modified() -> Value {
    json!({
        "description": "Not modified: the `If-None-Match` header named the current `ETag`. No body; counts toward the rate limits.",
        "headers": headers_of(&["ETag", "Cache-Control", "Vary", "RateLimit-Policy", "RateLimit"]),
    })
}

/// The error answers of an operation: references to `components/responses`, which describe them as
/// `/v1` sends them, except where a public route sends fewer headers (no key, no rate limit) and
/// they are written out. `400` (behind proxies), `405`, `413`, `414`, `431` and `503` come from the
/// edge of the server, for any request; the key's refusals only under `/v1`; `404` where a record, a
/// version or a picture is named;
/// `422` for any parameter the route does not take, so on every route.
pub(super) fn errors(endpoint: &Endpoint, keyed: bool) -> Vec<(&'static str, Value)> {
    let refer =
        |status: &'static str| (status, json!({ "$ref": format!("#/components/responses/{status}") }));
    if !keyed {
        let mut errors = vec![refer("400")];
        if endpoint.path == PICTURE {
            errors
                .push(("404", problem("No picture has this hash and name (type `/errors/not-found`).", &[])));
        }
        errors.extend([
            ("405", problem(METHOD_NOT_ALLOWED, &["Allow"])),
            refer("413"),
            refer("414"),
            ("422", problem(INVALID, &[])),
            refer("431"),
            refer("503"),
        ]);
        return errors;
    }
    let may_miss = endpoint.path.contains('{') || endpoint.params().iter().any(|p| p.name == "version");
    let mut statuses = vec!["400", "401", "403"];
    if may_miss {
        statuses.push("404");
    }
    statuses.extend(["405", "413", "414", "422", "429", "431", "503"]);
    statuses.into_iter().map(refer).collect()
}

const METHOD_NOT_ALLOWED: &str = "A method other than `GET` or `HEAD` (type `/errors/method-not-allowed`); `OPTIONS` is answered `204` for CORS preflights.";

const INVALID: &str = "An invalid parameter (type `/errors/validation`): out of pattern, length or bounds, unknown, repeated, or an unknown value; `errors` names each.";

/// A `problem+json` answer sent with `headers`.
fn problem(description: &str, headers: &[&str]) -> Value {
    let mut response = json!({
        "description": description,
        "content": { "application/problem+json": { "schema": { "$ref": "#/components/schemas/Problem" } } },
    });
    if !headers.is_empty() {
        response["headers"] = headers_of(headers);
    }
    response
}

/// `components/headers`.
pub(super) fn components_headers() -> Value {
    json!({
        "ETag": {
            "description": "Strong entity tag of the body; send it back in `If-None-Match` to get `304` when nothing changed.",
            "schema": { "type": "string" },
        },
        "Cache-Control": {
            "description": "`private` (answers made with a key are for that client only) and `max-age`: 300 seconds for answers about `latest`, 86400 for a version named by its number, whose data changes only if it is imported again.",
            "schema": { "type": "string" },
        },
        "Vary": {
            "description": "`Authorization, Accept-Encoding`.",
            "schema": { "type": "string" },
        },
        "Content-Language": {
            "description": "On answers that take `lang`, the languages of their texts: the language asked for, and `en` too when a text fell back to English (`de, en`), as `meta.lang_fallback` lists.",
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
        "WWW-Authenticate": {
            "description": "`Bearer realm=\"tapster\"`, with `error=\"invalid_token\"` when a key was sent but is not usable (RFC 6750).",
            "schema": { "type": "string" },
        },
        "Allow": {
            "description": "`GET, HEAD`: the methods every route takes.",
            "schema": { "type": "string" },
        },
    })
}

/// `components/responses`: the error answers, all `application/problem+json`.
pub(super) fn components_responses() -> Value {
    let mut responses = Map::new();
    let mut add = |status: &str, response: Value| responses.insert(status.to_owned(), response);
    add(
        "400",
        problem(
            "Only behind proxies: the request came through a trusted proxy whose header does not name its caller (type `/errors/unknown-caller`); the proxy's settings need mending.",
            &[],
        ),
    );
    add(
        "401",
        problem(
            "No API key, or a malformed, unknown, expired or revoked one (type `/errors/unauthorized`).",
            &["WWW-Authenticate", "Vary"],
        ),
    );
    add(
        "403",
        problem(
            "The key, its account or the calling address is suspended (type `/errors/forbidden`).",
            &["Vary"],
        ),
    );
    add(
        "404",
        problem(
            "No such record or game version (type `/errors/not-found`); `detail` names what was asked and the version.",
            &ADMITTED,
        ),
    );
    add("405", problem(METHOD_NOT_ALLOWED, &["Allow", "Vary", "RateLimit-Policy", "RateLimit"]));
    add(
        "413",
        problem("The request carried a body; no route takes one (type `/errors/content-too-large`).", &[]),
    );
    add(
        "414",
        problem("The path and query are longer than the server accepts (type `/errors/uri-too-long`).", &[]),
    );
    add("422", problem(INVALID, &ADMITTED));
    add(
        "429",
        problem(
            "Rate limit reached, or too many failed key checks from one address (type `/errors/rate-limited`); wait `Retry-After` seconds. A refused request uses no quota.",
            &["Retry-After", "Vary", "RateLimit-Policy", "RateLimit"],
        ),
    );
    add(
        "431",
        problem(
            "The request's header fields are larger than the server accepts (type `/errors/headers-too-large`).",
            &[],
        ),
    );
    add(
        "503",
        problem(
            "Too many open connections, or the request waited past its time budget (type `/errors/unavailable`); wait `Retry-After` seconds.",
            &["Retry-After"],
        ),
    );
    Value::Object(responses)
}

/// The schemas written by hand: the envelope's `meta` and `pagination`, and the problem body.
pub(super) fn fixed_schemas() -> Vec<(String, Value)> {
    vec![
        (
            "Meta".into(),
            json!({
                "type": "object",
                "description": "What produced the answer.",
                "properties": {
                    "game_version": { "type": "string", "description": "The concrete game version (never `latest`).", "pattern": tapster_domain::GameVersion::PATTERN },
                    "build_id": { "type": "integer", "description": "The build id of that game version." },
                    "lang": { "$ref": "#/components/schemas/Lang", "description": "The language requested and used." },
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
                "description": "Where the page sits in its list. Links are path and query and keep every other parameter of the request.",
                "properties": {
                    "limit": { "type": "integer", "minimum": 1 },
                    "offset": { "type": "integer", "minimum": 0, "maximum": MAX_OFFSET },
                    "total": { "type": "integer", "minimum": 0, "description": "Records in the whole list." },
                    "next": { "type": ["string", "null"], "description": "The next page, or `null` on the last." },
                    "prev": { "type": ["string", "null"], "description": "The previous page, or `null` on the first; past the end of the list, the last page." },
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
                            "/errors/unknown-caller",
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
                    "violated-policies": {
                        "type": "array",
                        "description": "On `429` for a rate limit: the policy used up (`burst`, `minute` or `day`), as in `RateLimit-Policy`.",
                        "items": { "$ref": "#/components/schemas/LimitPolicy" },
                        "minItems": 1,
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

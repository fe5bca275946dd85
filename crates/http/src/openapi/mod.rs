//! The OpenAPI 3.1 document of the service, written from the endpoint table and the wire types
//! (`tapster-wire`), so that it describes exactly the routes, parameters and shapes the server has.

mod parameters;
mod portable;
mod responses;
mod unions;
mod webhooks;

use schemars::SchemaGenerator;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use crate::routes::{DOWNLOAD, Endpoint, ICONS, PICTURE, documented};
use crate::schemas::SCHEMAS;
use crate::value_sets;

/// The interface version, `info.version` of the document (docs/api.md, "Routes").
pub(crate) const API_VERSION: &str = "0.1.0";

const DESCRIPTION: &str = "Read-only game data of an invented farming and tavern-management game: items, \
recipes, prices, crops, shops, fish and progression records, per game version and in 27 languages.\n\n\
**Unofficial**: this service is not affiliated with or endorsed by the game's publisher; the game data \
belongs to that publisher.\n\n\
Every `/v1` route needs an API key (`Authorization: Bearer <key>`). Successful answers are \
`{data, meta, pagination?}`; errors are `application/problem+json`. Texts missing in the requested \
language are served in English and listed, as JSON Pointers into the body, in `meta.lang_fallback`. \
The public routes `/healthz`, `/openapi.json`, `/changelog` and `/changelog.rss` need no key. See docs/api.md.";

/// The whole document, naming `origin` (`https://api.example.com`) as its server when it is known.
pub(crate) fn document(origin: Option<&str>) -> Value {
    let settings = SchemaSettings::draft2020_12().for_serialize().with(|s| {
        s.definitions_path = "/components/schemas/".into();
        s.meta_schema = None;
    });
    let mut generator = settings.into_generator();
    let mut paths = Map::new();
    let mut tags: Vec<&str> = Vec::new();
    let mut partials: Vec<String> = Vec::new();
    let mut envelopes = Map::new();
    for endpoint in documented() {
        let tag = tag(endpoint.path);
        if !tags.contains(&tag) {
            tags.push(tag);
        }
        let op = operation(endpoint, &mut generator, &mut partials, &mut envelopes);
        paths.insert(endpoint.path.to_owned(), json!({ "get": op }));
    }
    // The events sent to receivers: their bodies join the components like the answers' shapes.
    let webhooks = webhooks::webhooks(&mut generator);
    tags.push(webhooks::TAG);
    let mut schemas = generator.take_definitions(true);
    for name in partials {
        if let Some(full) = schemas.get(&name) {
            let partial = partial_schema(&name, full);
            schemas.insert(partial_name(&name), partial);
        }
    }
    schemas.extend(envelopes);
    for set in value_sets::ALL {
        schemas.entry(set.name).or_insert_with(|| set.schema().to_value());
    }
    for (name, schema) in responses::fixed_schemas() {
        schemas.entry(name).or_insert(schema);
    }
    let mut document = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Tapster",
            "version": API_VERSION,
            "summary": "Unofficial read API for the game data of a tavern-management game",
            "description": DESCRIPTION,
            // The service's own license; the game data it serves belongs to the game's publisher.
            "license": {
                "name": "MIT OR Apache-2.0 (the service and this document, not the game data)",
                "identifier": "MIT OR Apache-2.0",
            },
        },
        "servers": [match origin {
            Some(origin) => json!({ "url": origin, "description": "The server that serves this document." }),
            None => json!({
                "url": "/",
                "description": "The server that serves this document: a relative URL, resolved against the address `/openapi.json` was fetched from.",
            }),
        }],
        "tags": tags.iter().map(|t| json!({ "name": t, "description": tag_description(t) })).collect::<Vec<_>>(),
        "paths": paths,
        "webhooks": webhooks,
        "components": {
            "schemas": schemas,
            "parameters": parameters::components(),
            "securitySchemes": {
                "bearerAuth": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "An API key (`tap_...`) sent as `Authorization: Bearer <key>`; the scheme name is matched case-insensitively.",
                },
            },
            "headers": responses::components_headers(),
            "responses": responses::components_responses(),
        },
    });
    unions::discriminate(&mut document);
    portable::make_portable(&mut document);
    document
}

/// Gives the path parameters of the operation at `template` their values in `target` as examples,
/// where the endpoint table cannot name one: a picture is named by its hash, which the data decides.
pub(crate) fn add_path_examples(document: &mut Value, template: &'static str, target: &str) {
    let pointer = format!("/paths/{}/get", template.replace('~', "~0").replace('/', "~1"));
    if let Some(operation) = document.pointer_mut(&pointer) {
        parameters::add_path_examples(operation, template, target);
    }
}

/// Lists in an example are cut to this many entries, so that a list of stations with all their
/// recipes does not make the document ten times longer.
const EXAMPLE_LIST: usize = 3;

/// Shows `body`, the answer of the operation at `template` to `target`, as the example of its `200`:
/// parsed when it is JSON (its lists cut), a string otherwise.
pub(crate) fn add_example(document: &mut Value, template: &str, target: &str, body: &[u8]) {
    let pointer =
        format!("/paths/{}/get/responses/200/content", template.replace('~', "~0").replace('/', "~1"));
    let Some(content) = document.pointer_mut(&pointer).and_then(Value::as_object_mut) else {
        return;
    };
    for (media, object) in content.iter_mut() {
        let (value, cut) = if media == "application/json" {
            let Ok(mut value) = serde_json::from_slice::<Value>(body) else { continue };
            let cut = cut_lists(&mut value);
            (value, cut)
        } else {
            let Ok(text) = std::str::from_utf8(body) else { continue };
            (Value::String(text.to_owned()), false)
        };
        let mut summary = format!("GET {target} on the bundled game data");
        if cut {
            summary.push_str(&format!(", each list cut to {EXAMPLE_LIST} entries"));
        }
        object["examples"] = json!({ "bundled": { "summary": summary, "value": value } });
    }
}

/// Cuts every list under `value` to [`EXAMPLE_LIST`] entries; whether any was longer.
fn cut_lists(value: &mut Value) -> bool {
    match value {
        Value::Array(items) => {
            let cut = items.len() > EXAMPLE_LIST;
            items.truncate(EXAMPLE_LIST);
            items.iter_mut().fold(cut, |cut, item| cut_lists(item) | cut)
        }
        Value::Object(members) => members.values_mut().fold(false, |cut, member| cut_lists(member) | cut),
        _ => false,
    }
}

/// What the operations of a tag are about.
fn tag_description(tag: &str) -> &'static str {
    match tag {
        "service" => {
            "The service itself, without a key: health, this document, the feed of game versions, and the pictures records show."
        }
        "exports" => {
            "Whole datasets, one gzip-compressed NDJSON file per game version and language, instead of crawling the lists."
        }
        "key" => {
            "The API key a request is made with: its name, limits, what remains of each, and its expiry."
        }
        "versions" => "Published game versions and what each changed since an earlier one.",
        "languages" => "The languages of a game version and how much of it each translates.",
        "items" => {
            "Everything in the game's inventory, with the relations around an item: what it is used in, where it comes from, and its price."
        }
        "recipes" => {
            "How items are made: ingredients, stations, unlocks, and the whole ingredient tree down to raw items."
        }
        "rankings" => "Products the tavern sells, ranked by their price per serving.",
        "ingredient-groups" => "Groups of interchangeable items that a recipe accepts (\"any vegetable\").",
        "crafters" => "Crafting stations and the recipes they make.",
        "crops" => "What grows on the farm: seasons, days to grow, harvests.",
        "shops" => "Shops, their hours and their catalogues.",
        "npcs" => "The people who run the shops.",
        "fish" => "Fish: where and when they bite, on what bait, and how rare they are.",
        "quests" | "perks" | "spells" | "talents" | "reputation" | "missions" | "letters" => {
            "Progression records, named by their key; every type shares one shape with its own `attributes`."
        }
        "search" => "Items and recipes by name, in any of the languages.",
        webhooks::TAG => webhooks::TAG_DESCRIPTION,
        _ => "",
    }
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

/// `partials` collects the components whose `fields` form (see `partial_data`) the operation names;
/// `envelopes` the named envelopes of the answers.
fn operation(
    endpoint: &Endpoint,
    generator: &mut SchemaGenerator,
    partials: &mut Vec<String>,
    envelopes: &mut Map<String, Value>,
) -> Value {
    let data = (endpoint.data)(generator).to_value();
    let keyed = endpoint.path.starts_with("/v1/");
    let mut op = json!({
        "operationId": operation_id(endpoint.path),
        "summary": endpoint.summary,
        "tags": [tag(endpoint.path)],
        "parameters": parameters::of_operation(endpoint, keyed),
    });
    if let Some(target) = endpoint.example {
        parameters::add_path_examples(&mut op, endpoint.path, target);
    }
    let mut responses = Map::new();
    if keyed {
        op["security"] = json!([{ "bearerAuth": [] }]);
        if endpoint.path == DOWNLOAD || endpoint.path == ICONS {
            // A file, not an envelope.
            let file = if endpoint.path == ICONS { responses::ICONS_FILE } else { responses::EXPORT_FILE };
            responses.extend(responses::file(file).map(|(status, response)| (status.to_owned(), response)));
        } else {
            let envelope = envelope(endpoint, data, partials);
            let name = envelope_name(&envelope);
            let schema = match name {
                Some(name) if envelopes.get(&name).is_none_or(|known| *known == envelope) => {
                    envelopes.insert(name.clone(), envelope);
                    json!({ "$ref": format!("#/components/schemas/{name}") })
                }
                _ => envelope,
            };
            responses.insert("200".into(), responses::data(schema));
        }
        responses.insert("304".into(), responses::not_modified());
    } else if endpoint.path == PICTURE {
        op["security"] = json!([]);
        responses.extend(responses::picture().map(|(status, response)| (status.to_owned(), response)));
    } else {
        op["security"] = json!([]);
        let (media, schema) = match endpoint.path {
            "/changelog.rss" => {
                ("application/rss+xml", json!({ "type": "string", "description": "An RSS 2.0 document." }))
            }
            "/changelog" | "/docs" => {
                ("text/html", json!({ "type": "string", "description": "An HTML page." }))
            }
            _ => ("application/json", data),
        };
        responses
            .insert("200".into(), json!({ "description": "OK", "content": { media: { "schema": schema } } }));
    }
    for (status, response) in responses::errors(endpoint, keyed) {
        responses.insert(status.into(), response);
    }
    op["responses"] = Value::Object(responses);
    op
}

/// `{data, meta, pagination}`: `pagination` is there on pages (endpoints that take `limit` and
/// `offset`), never on full lists, single records and search, which takes only `limit`.
fn envelope(endpoint: &Endpoint, data: Value, partials: &mut Vec<String>) -> Value {
    let takes = |name: &str| endpoint.params().iter().any(|p| p.name == name);
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
    let paged = takes("offset");
    if paged {
        properties.insert("pagination".into(), json!({ "$ref": "#/components/schemas/Pagination" }));
        required.push("pagination");
    }
    let mut description = String::from(if paged { "A page of the list." } else { "The answer." });
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

/// The component name of an envelope, from the record it holds: `ItemSummaryPage` for a page of
/// `ItemSummary`, `CraftingStationList` for a whole list, `ItemDetailAnswer` for one record; `None` when its
/// `data` names no component.
fn envelope_name(envelope: &Value) -> Option<String> {
    let data = &envelope["properties"]["data"];
    let data = data.get("anyOf").and_then(|branches| branches.get(0)).unwrap_or(data);
    let name = |reference: &Value| reference["$ref"].as_str()?.strip_prefix(SCHEMAS).map(str::to_owned);
    let paged = envelope["properties"].get("pagination").is_some();
    match data.get("items") {
        Some(items) => Some(format!("{}{}", name(items)?, if paged { "Page" } else { "List" })),
        None => Some(format!("{}Answer", name(data)?)),
    }
}

/// The component a `fields` answer holds part of: `ItemSummaryFields` for `ItemSummary`.
fn partial_name(name: &str) -> String {
    format!("{name}Fields")
}

/// The `data` of an answer with `fields`: the same shape with the record (`{"$ref": ...}`, or the
/// `items` of a list of them) replaced by its partial form, and that record's component name.
fn partial_data(data: &Value) -> Option<(Value, String)> {
    let mut partial = data.clone();
    let reference = match partial.get_mut("items") {
        Some(items) => items.get_mut("$ref")?,
        None => partial.get_mut("$ref")?,
    };
    let name = reference.as_str()?.strip_prefix(SCHEMAS)?.to_owned();
    *reference = Value::String(format!("{SCHEMAS}{}", partial_name(&name)));
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

    /// The schema of the `200` body of `path`, its named envelope resolved.
    fn answer<'d>(doc: &'d Value, path: &str) -> &'d Value {
        let schema = &doc["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"];
        match schema["$ref"].as_str() {
            Some(reference) => &doc["components"]["schemas"][reference.strip_prefix(SCHEMAS).unwrap()],
            None => schema,
        }
    }

    /// Every schema object under `value`, with the JSON Pointer-ish path to it.
    fn walk<'v>(value: &'v Value, at: String, out: &mut Vec<(String, &'v Map<String, Value>)>) {
        match value {
            Value::Object(object) => {
                out.push((at.clone(), object));
                for (key, child) in object {
                    walk(child, format!("{at}/{key}"), out);
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    walk(child, format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
    }

    fn objects(doc: &Value) -> Vec<(String, &Map<String, Value>)> {
        let mut out = Vec::new();
        walk(doc, String::new(), &mut out);
        out
    }

    /// With `fields`, a record lacks the fields not asked for: the document allows that, and only there.
    #[test]
    fn answers_with_fields_are_documented_as_partial_records() {
        let doc = document(None);
        let mut seen = 0;
        for endpoint in documented().filter(|e| e.path.starts_with("/v1/")) {
            let data = &answer(&doc, endpoint.path)["properties"]["data"];
            if !endpoint.params().iter().any(|p| p.name == "fields") {
                assert!(data.get("anyOf").is_none(), "{}: {data}", endpoint.path);
                continue;
            }
            seen += 1;
            let partial = &data["anyOf"][1];
            let reference = partial["items"]["$ref"].as_str().or(partial["$ref"].as_str()).unwrap();
            let name = reference.strip_prefix(SCHEMAS).unwrap();
            let partial = &doc["components"]["schemas"][name];
            let full = &doc["components"]["schemas"][name.strip_suffix("Fields").unwrap()];
            assert!(full["required"].as_array().is_some_and(|r| !r.is_empty()), "{name}");
            assert!(partial.get("required").is_none(), "{name}: {partial}");
            assert_eq!(partial["properties"], full["properties"], "{name}");
            assert_eq!(partial["additionalProperties"], full["additionalProperties"], "{name}");
        }
        assert_eq!(seen, 3);
    }

    /// Every `/v1` answer is a named envelope, and `pagination` is there exactly on pages.
    #[test]
    fn every_answer_has_a_named_envelope_and_pages_have_pagination() {
        let doc = document(None);
        // A download answers a file, not an envelope.
        for endpoint in
            documented().filter(|e| e.path.starts_with("/v1/") && ![DOWNLOAD, ICONS].contains(&e.path))
        {
            let schema = &doc["paths"][endpoint.path]["get"]["responses"]["200"]["content"]["application/json"]
                ["schema"];
            assert!(schema["$ref"].is_string(), "{}: {schema}", endpoint.path);
            let envelope = answer(&doc, endpoint.path);
            let paged = endpoint.params().iter().any(|p| p.name == "offset");
            let required: Vec<&str> =
                envelope["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
            assert_eq!(required.contains(&"pagination"), paged, "{}", endpoint.path);
            assert_eq!(envelope["properties"].get("pagination").is_some(), paged, "{}", endpoint.path);
        }
    }

    /// Clients see two states per member, never three: a member that may hold no value is always
    /// there (`null`), and a member that may be left out (`expand`, `fields`) is never `null`.
    #[test]
    fn no_member_is_both_optional_and_nullable() {
        let doc = document(None);
        for (name, schema) in doc["components"]["schemas"].as_object().unwrap() {
            let Some(properties) = schema["properties"].as_object() else { continue };
            if name.ends_with("Fields") {
                continue;
            }
            let required: Vec<&str> = schema["required"]
                .as_array()
                .map_or(Vec::new(), |r| r.iter().filter_map(Value::as_str).collect());
            for (member, property) in properties {
                let nullable = property["type"].as_array().is_some_and(|t| t.contains(&json!("null")))
                    || property["anyOf"].as_array().is_some_and(|a| a.iter().any(|s| s["type"] == "null"));
                if nullable {
                    assert!(required.contains(&member.as_str()), "{name}.{member} is nullable but optional");
                }
            }
        }
    }

    /// Closed sets are `enum`s (a `oneOf` of `const`s defeats generators), each named once.
    #[test]
    fn closed_sets_are_named_enums() {
        let doc = document(None);
        for (at, object) in objects(&doc) {
            if let Some(branches) = object.get("oneOf").or(object.get("anyOf")).and_then(Value::as_array) {
                assert!(!branches.iter().all(|b| b.get("const").is_some()), "{at} is a union of constants");
            }
            // Outside the sets' own components, a list of languages or seasons is a reference.
            let a_component = at.starts_with("/components/schemas/") && at.matches('/').count() == 3;
            if let Some(values) = object.get("enum").and_then(Value::as_array)
                && !a_component
            {
                for set in value_sets::ALL {
                    let same = values.len() == set.values.len()
                        && values.iter().zip(set.values).all(|(a, b)| a == *b);
                    assert!(!same, "{at} copies the set {} instead of referring to it", set.name);
                }
            }
        }
        let schemas = &doc["components"]["schemas"];
        for set in value_sets::ALL {
            assert_eq!(schemas[set.name]["enum"], json!(set.values), "{}", set.name);
        }
    }

    /// Every format is one of the OpenAPI Format Registry's, and no bound is a storage width.
    #[test]
    fn formats_and_bounds_are_portable() {
        let doc = document(None);
        for (at, object) in objects(&doc) {
            if let Some(format) = object.get("format").and_then(Value::as_str) {
                assert!(["int32", "int64", "date", "date-time", "uri"].contains(&format), "{at}: {format}");
            }
            if let Some(max) = object.get("maximum").and_then(Value::as_u64) {
                assert!(![255, 65_535, u64::from(u32::MAX)].contains(&max), "{at}: maximum {max}");
            }
        }
    }

    /// Patterns compile under an RE2-style engine (Rust's `regex`, Go's, kin-openapi's): no
    /// lookaround, no backreference.
    #[test]
    fn every_pattern_is_portable() {
        let doc = document(None);
        let mut seen = 0;
        for (at, object) in objects(&doc) {
            if let Some(pattern) = object.get("pattern").and_then(Value::as_str) {
                seen += 1;
                if let Err(e) = regex::Regex::new(pattern) {
                    panic!("{at}: {pattern:?} does not compile: {e}");
                }
            }
        }
        assert!(seen > 10, "{seen} patterns");
    }

    /// The sort pattern says which keys there are and that each comes once, without a lookahead.
    #[test]
    fn sort_patterns_take_keys_and_directions() {
        let doc = document(None);
        let sort = doc["paths"]["/v1/items"]["get"]["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "sort")
            .unwrap();
        let pattern = regex::Regex::new(sort["schema"]["pattern"].as_str().unwrap()).unwrap();
        assert!(pattern.is_match("-price,name"));
        assert!(!pattern.is_match("colour"));
        assert!(!pattern.is_match("price,,name"));
        assert!(!pattern.is_match("name,-name"));
        assert!(sort["description"].as_str().unwrap().contains("each at most once"));
    }

    #[test]
    fn an_example_is_the_answer_with_its_lists_cut_and_says_so() {
        let mut doc = document(None);
        let body = br#"{"data": [1, 2, 3, 4, 5], "meta": {"lang_fallback": []}}"#;
        add_example(&mut doc, "/v1/items", "/v1/items?limit=5", body);
        let example = &doc["paths"]["/v1/items"]["get"]["responses"]["200"]["content"]["application/json"]["examples"]
            ["bundled"];
        assert_eq!(example["value"], json!({"data": [1, 2, 3], "meta": {"lang_fallback": []}}));
        assert_eq!(
            example["summary"],
            "GET /v1/items?limit=5 on the bundled game data, each list cut to 3 entries"
        );
        add_example(&mut doc, "/changelog.rss", "/changelog.rss", b"<rss/>");
        let example = &doc["paths"]["/changelog.rss"]["get"]["responses"]["200"]["content"]["application/rss+xml"]
            ["examples"]["bundled"];
        assert_eq!(example["value"], "<rss/>");
    }

    /// Every union of records a client must tell apart says by which member.
    #[test]
    fn unions_of_records_have_discriminators() {
        let doc = document(None);
        let schemas = &doc["components"]["schemas"];
        let cases = [("RecipeIngredient", "kind", 2), ("LetterTrigger", "kind", 3), ("TreeNode", "kind", 2)];
        for (name, member, branches) in cases {
            let union = &schemas[name];
            assert_eq!(union["discriminator"]["propertyName"], member, "{name}");
            let mapping = union["discriminator"]["mapping"].as_object().unwrap();
            assert_eq!(mapping.len(), branches, "{name}");
            for (value, reference) in mapping {
                let branch = &schemas[reference.as_str().unwrap().strip_prefix(SCHEMAS).unwrap()];
                assert_eq!(branch["properties"][member]["const"], *value, "{name}");
                assert!(branch.get("$ref").is_none(), "{name}: {branch}");
            }
        }
    }

    /// Each progression route answers its own kind, with `type` fixed to it.
    #[test]
    fn each_progression_detail_is_its_own_type() {
        let doc = document(None);
        let kinds = [
            ("quests", "Quest", "quest"),
            ("perks", "Perk", "perk"),
            ("spells", "Spell", "spell"),
            ("talents", "Talent", "talent"),
            ("reputation", "Reputation", "reputation"),
            ("missions", "Mission", "mission"),
            ("letters", "Letter", "letter"),
        ];
        for (segment, name, kind) in kinds {
            let data = &answer(&doc, &format!("/v1/{segment}/{{key}}"))["properties"]["data"];
            assert_eq!(data["$ref"], format!("{SCHEMAS}{name}DocumentDetail"), "{segment}");
            let detail = &doc["components"]["schemas"][format!("{name}DocumentDetail")];
            assert_eq!(detail["properties"]["type"]["const"], kind, "{segment}");
            assert_eq!(detail["properties"]["attributes"]["$ref"], format!("{SCHEMAS}{name}Attributes"));
            assert!(!detail["description"].as_str().unwrap().contains('`'), "{detail}");
        }
    }

    #[test]
    fn every_tag_is_described() {
        let doc = document(None);
        for tag in doc["tags"].as_array().unwrap() {
            assert!(!tag["description"].as_str().unwrap().is_empty(), "{tag}");
        }
    }

    #[test]
    fn operation_ids_are_unique() {
        let mut ids: Vec<String> = documented().map(|e| operation_id(e.path)).collect();
        let count = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), count);
    }
}

//! The parameters of the operations, from the endpoint table's declarations. The query parameters
//! most operations share (`version`, `lang`, `limit`, `offset`) and `If-None-Match` are components
//! that operations refer to, so a generated client names each once. Path parameters are written in
//! each operation, since each carries the operation's own example (a reference takes no `example`).

use std::sync::LazyLock;

use serde_json::{Map, Value, json};
use tapster_domain::{Ident, MAX_KEY_LEN, ProgressionKey, RecordKey, VersionSelector};
use tapster_i18n::Language;

use crate::params::{LANG, LIMIT, MAX_OFFSET, OFFSET, Param, Rule, VERSION};
use crate::routes::{DOWNLOAD, Endpoint, ICONS, PICTURE, PathRule, bind};
use crate::value_sets;

/// The query parameters that are components, under their own names.
const SHARED: [Param; 4] = [VERSION, LANG, LIMIT, OFFSET];

/// The component name of the `If-None-Match` request header.
const IF_NONE_MATCH: &str = "If-None-Match";

/// `components/parameters`.
pub(super) fn components() -> Value {
    let mut parameters = Map::new();
    for param in &SHARED {
        parameters.insert(param.name.to_owned(), query_parameter(param));
    }
    parameters.insert(
        IF_NONE_MATCH.to_owned(),
        json!({
            "name": "If-None-Match",
            "in": "header",
            "required": false,
            "description": "The `ETag` of an answer you hold: when it is still current the answer is `304` without a body (it still counts toward the rate limits).",
            "schema": { "type": "string" },
        }),
    );
    Value::Object(parameters)
}

/// The parameters of `endpoint`'s operation: references to components where they are shared, the
/// others written out.
pub(super) fn of_operation(endpoint: &Endpoint, keyed: bool) -> Vec<Value> {
    let mut parameters: Vec<Value> = endpoint
        .path
        .split('/')
        .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
        .map(|name| path_parameter(endpoint.path_rule(name)))
        .collect();
    for param in endpoint.params() {
        let shared = SHARED.contains(param);
        parameters.push(if shared { reference(param.name) } else { query_parameter(param) });
    }
    if keyed || endpoint.path == PICTURE {
        parameters.push(reference(IF_NONE_MATCH));
    }
    if endpoint.path == DOWNLOAD || endpoint.path == ICONS {
        parameters.push(json!({
            "name": "Range",
            "in": "header",
            "required": false,
            "description": "One range of bytes, `bytes=<first>-[<last>]` or `bytes=-<suffix length>`, to resume a download: the answer is `206` with those bytes.",
            "schema": { "type": "string" },
        }));
        parameters.push(json!({
            "name": "If-Range",
            "in": "header",
            "required": false,
            "description": "The `ETag` of the part you hold: the range is served only if the file is still that one, else the whole file.",
            "schema": { "type": "string" },
        }));
    }
    parameters
}

/// Gives each path parameter of `operation`, the operation of `template`, its value in the request
/// target `target` (percent-decoded) as its `example`; none when `target` is not a path of `template`.
pub(super) fn add_path_examples(operation: &mut Value, template: &'static str, target: &str) {
    let path = target.split_once('?').map_or(target, |(path, _)| path);
    let Some(bound) = bind(template, path) else { return };
    let Some(parameters) = operation["parameters"].as_array_mut() else { return };
    for (name, value) in bound.iter() {
        let found = parameters.iter_mut().find(|p| p["in"] == "path" && p["name"] == name);
        if let Some(parameter) = found {
            parameter["example"] = json!(value);
        }
    }
}

fn reference(component: &str) -> Value {
    json!({ "$ref": format!("#/components/parameters/{component}") })
}

/// A path parameter of `rule`.
fn path_parameter(rule: PathRule) -> Value {
    let (name, schema, description) = match rule {
        PathRule::Version => (
            "version",
            version_schema(),
            "Game version: `latest` or a published version name such as `v0.6.4.2.1`. Unknown is `404`, malformed is `422`.",
        ),
        PathRule::Lang => (
            "lang",
            value_sets::Lang::SET.reference(),
            "Language code (BCP 47), one of the game version's languages.",
        ),
        PathRule::ProgressionKey => (
            "key",
            json!({ "type": "string", "pattern": ProgressionKey::PATTERN, "maxLength": MAX_KEY_LEN }),
            "The record's key as the game names it (percent-encode spaces and quotes).",
        ),
        PathRule::RecordKey => (
            "key",
            json!({ "type": "string", "pattern": RecordKey::PATTERN, "maxLength": MAX_KEY_LEN }),
            "The record's integer id or its slug.",
        ),
        PathRule::PictureHash => (
            "sha256",
            json!({ "type": "string", "pattern": "^[0-9a-f]{64}$" }),
            "The SHA-256 of the picture's file, as a record's `icon_url` names it. Malformed is `422`.",
        ),
        PathRule::FileName => (
            "name",
            json!({ "type": "string", "minLength": 1 }),
            "The picture's file name, as a record's `icon_url` names it (`Pale%20Ale.png`); another name is `404`.",
        ),
    };
    json!({ "name": name, "in": "path", "required": true, "description": description, "schema": schema })
}

fn version_schema() -> Value {
    json!({ "type": "string", "pattern": VersionSelector::PATTERN, "maxLength": 32 })
}

/// The alternation of `names` for a pattern (names are plain identifiers, nothing to escape but `.`).
fn alternation(names: &[&str]) -> String {
    names.iter().map(|n| n.replace('.', r"\.")).collect::<Vec<_>>().join("|")
}

/// A pattern for `names` each at most once, in any order, each optionally after `-`:
/// `-?(id(,-?(name))?|name(,-?(id))?)` for two. Saying "at most once" without a lookahead (which
/// RE2-style validators such as Go's and Rust's `regex` refuse) takes every order; sort keys are
/// few, and past [`MAX_ORDERED_KEYS`] the pattern only says which keys there are (the server still
/// refuses a repeated one).
fn keys_once(names: &[&str]) -> String {
    if names.len() > MAX_ORDERED_KEYS {
        let one = alternation(names);
        return format!("-?({one})(,-?({one}))*");
    }
    let branches: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let name = alternation(&[name]);
            let rest: Vec<&str> =
                names.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, n)| *n).collect();
            if rest.is_empty() { name } else { format!("{name}(,{})?", keys_once(&rest)) }
        })
        .collect();
    format!("-?({})", branches.join("|"))
}

/// The most sort keys whose every order [`keys_once`] writes out (5 keys make a pattern of some 2 KB).
const MAX_ORDERED_KEYS: usize = 5;

/// The description, then the names a list parameter allows.
fn listed(description: &str, what: &str, names: &[&str]) -> String {
    let names = names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
    format!("{description} Comma-separated; the {what} are {names}.")
}

/// The pattern of a search text (`Rule::SearchText`): a character that search does not fold away,
/// the server's own rule (`tapster_search::fold` of the text is not empty), written out as the
/// characters that fold away alone. A text folds to nothing exactly when each of its characters does
/// (whitespace, punctuation, controls, invisible format characters, combining marks with no letter
/// before them, and what decomposes into those), so one character outside that class is enough.
///
/// Only the Basic Multilingual Plane is listed, as `\uXXXX` escapes, which ECMA-262 (with or without
/// its `u` flag: the dialect OpenAPI names), Python's `re` and Rust's `regex` read alike (Go's
/// `regexp` does not take them); no spelling those engines share exists past U+FFFF. So a text made only of the rarer planes' combining marks (Brahmi vowel signs,
/// musical notation) passes the pattern and is still refused. Worked out once per process, from the
/// plane's 63,488 characters.
static SEARCH_TEXT_PATTERN: LazyLock<String> = LazyLock::new(search_text_pattern);

fn search_text_pattern() -> String {
    let mut runs: Vec<(char, char)> = Vec::new();
    let mut buffer = [0; 4];
    for c in '\0'..='\u{FFFF}' {
        if !tapster_search::fold(c.encode_utf8(&mut buffer)).is_empty() {
            continue;
        }
        match runs.last_mut() {
            Some((_, last)) if u32::from(*last) + 1 == u32::from(c) => *last = c,
            _ => runs.push((c, c)),
        }
    }
    let escape = |c: char| format!("\\u{:04X}", u32::from(c));
    let mut class = String::new();
    for (first, last) in runs {
        class.push_str(&escape(first));
        if last != first {
            class.push('-');
            class.push_str(&escape(last));
        }
    }
    format!("[^{class}]")
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
        Rule::Lang => {
            let mut schema = value_sets::Lang::SET.reference();
            schema["default"] = json!(Language::SOURCE.code());
            schema
        }
        Rule::Limit { default, max } => {
            json!({ "type": "integer", "minimum": 1, "maximum": max, "default": default })
        }
        Rule::Offset => json!({ "type": "integer", "minimum": 0, "maximum": MAX_OFFSET, "default": 0 }),
        Rule::Bool => json!({ "type": "boolean" }),
        Rule::Enum(set) => set.reference(),
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
            json!({ "type": "string", "pattern": format!("^{}$", keys_once(names)), "maxLength": 60 })
        }
        Rule::SearchText { min, max, .. } => json!({
            "type": "string",
            "minLength": min,
            "maxLength": max,
            "pattern": SEARCH_TEXT_PATTERN.as_str(),
        }),
    };
    json!({ "name": param.name, "in": "query", "required": param.rule.required(), "description": description, "schema": schema })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Read by a regular expression engine, the search text's pattern says of every character of the
    /// plane it lists what the server's rule says: whether the character folds away.
    #[test]
    fn the_search_text_pattern_reads_as_the_servers_rule() {
        let pattern = regex::Regex::new(&SEARCH_TEXT_PATTERN).unwrap();
        let mut buffer = [0; 4];
        for c in '\0'..='\u{FFFF}' {
            let text = c.encode_utf8(&mut buffer);
            let folds_away = tapster_search::fold(text).is_empty();
            assert_eq!(pattern.is_match(text), !folds_away, "U+{:04X}", u32::from(c));
        }
        // Past that plane every character passes, a letter (Gothic) as a combining mark (Brahmi).
        assert!(pattern.is_match("\u{10330}") && pattern.is_match("\u{11038}"));
    }

    #[test]
    fn a_sort_pattern_takes_each_key_once_in_any_order() {
        let pattern = regex::Regex::new(&format!("^{}$", keys_once(&["id", "name", "price"]))).unwrap();
        for accepted in ["id", "-price", "-price,name", "name,id,-price", "price,-id,name"] {
            assert!(pattern.is_match(accepted), "{accepted}");
        }
        for refused in ["", "name,-name", "id,name,id", "price,,name", "colour", "-", "--id", "id,"] {
            assert!(!pattern.is_match(refused), "{refused}");
        }
        let many = ["a", "b", "c", "d", "e", "f"];
        let loose = regex::Regex::new(&format!("^{}$", keys_once(&many))).unwrap();
        assert!(loose.is_match("a,-f,b") && !loose.is_match("a,g"));
    }
}

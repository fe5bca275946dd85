//! Rewrites of the generated schemas into the forms that every client generator and validator reads
//! the same way. Derived schemas say the right thing in JSON Schema terms, but some of its spellings
//! trip generators: a closed set written as a `oneOf` of `const`s (openapi-python-client checks only
//! the first branch), and formats and bounds taken from Rust's storage types (`uint8`, `maximum: 255`)
//! rather than from what the data allows.

use serde_json::{Map, Value, json};

/// The formats the OpenAPI Format Registry defines for integers; the others are storage details.
const INTEGER_FORMATS: &[&str] = &["int32", "int64"];

/// Upper bounds that only say how wide a Rust integer is.
const STORAGE_MAXIMA: &[u64] = &[u8::MAX as u64, u16::MAX as u64, u32::MAX as u64, u64::MAX];

/// Applies every rewrite to every schema under `value`.
pub(super) fn make_portable(value: &mut Value) {
    match value {
        Value::Object(object) => {
            const_union_to_enum(object);
            portable_integer(object);
            object.values_mut().for_each(make_portable);
        }
        Value::Array(items) => items.iter_mut().for_each(make_portable),
        _ => {}
    }
}

/// `{"oneOf": [{"const": "a", "description": ...}, ...]}` becomes `{"type": "string", "enum": ["a", ...]}`,
/// with each value's description kept as a list in the schema's description.
fn const_union_to_enum(object: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = object.get("oneOf").or_else(|| object.get("anyOf")) else {
        return;
    };
    let values: Option<Vec<(&str, Option<&str>)>> = branches
        .iter()
        .map(|branch| {
            let value = branch.get("const")?.as_str()?;
            let keys_ok =
                branch.as_object()?.keys().all(|k| matches!(k.as_str(), "const" | "type" | "description"));
            keys_ok.then_some((value, branch.get("description").and_then(Value::as_str)))
        })
        .collect();
    let Some(values) = values.filter(|v| !v.is_empty()) else {
        return;
    };
    let mut description = object.get("description").and_then(Value::as_str).unwrap_or_default().to_owned();
    for (value, about) in &values {
        if let Some(about) = about {
            let about = about.split_whitespace().collect::<Vec<_>>().join(" ");
            description.push_str(&format!("\n- `{value}`: {about}"));
        }
    }
    let enumeration: Vec<Value> = values.iter().map(|(value, _)| json!(value)).collect();
    object.remove("oneOf");
    object.remove("anyOf");
    object.insert("type".into(), json!("string"));
    object.insert("enum".into(), Value::Array(enumeration));
    if !description.is_empty() {
        object.insert("description".into(), Value::String(description.trim_start().to_owned()));
    }
}

/// Drops formats outside the registry (`uint32` becomes a plain integer with `minimum: 0`, which it
/// already has) and maxima that are only a storage type's width.
fn portable_integer(object: &mut Map<String, Value>) {
    let is_integer = match object.get("type") {
        Some(Value::String(t)) => t == "integer",
        Some(Value::Array(types)) => types.iter().any(|t| t == "integer"),
        _ => false,
    };
    if !is_integer {
        return;
    }
    if object.get("format").and_then(Value::as_str).is_some_and(|f| !INTEGER_FORMATS.contains(&f)) {
        object.remove("format");
    }
    if object.get("maximum").and_then(Value::as_u64).is_some_and(|max| STORAGE_MAXIMA.contains(&max)) {
        object.remove("maximum");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_union_of_constants_becomes_an_enum_that_keeps_the_descriptions() {
        let mut schema = json!({
            "description": "How it matched.",
            "oneOf": [
                { "type": "string", "const": "whole", "description": "The whole\n   name." },
                { "type": "string", "const": "prefix" },
            ],
        });
        make_portable(&mut schema);
        assert_eq!(
            schema,
            json!({
                "description": "How it matched.\n- `whole`: The whole name.",
                "type": "string",
                "enum": ["whole", "prefix"],
            })
        );
    }

    #[test]
    fn unions_of_objects_stay_unions() {
        let mut schema = json!({ "oneOf": [
            { "type": "object", "properties": { "kind": { "const": "day" } } },
            { "type": "string", "const": "x" },
        ]});
        let before = schema.clone();
        make_portable(&mut schema);
        assert_eq!(schema, before);
    }

    #[test]
    fn integers_lose_storage_formats_and_widths_but_keep_real_bounds() {
        let mut schema = json!({ "properties": {
            "a": { "type": "integer", "format": "uint8", "minimum": 0, "maximum": 255 },
            "b": { "type": "integer", "format": "uint8", "minimum": 1, "maximum": 28 },
            "c": { "type": ["integer", "null"], "format": "int64" },
            "d": { "type": "integer", "format": "uint64", "minimum": 0 },
        }});
        make_portable(&mut schema);
        assert_eq!(
            schema,
            json!({ "properties": {
                "a": { "type": "integer", "minimum": 0 },
                "b": { "type": "integer", "minimum": 1, "maximum": 28 },
                "c": { "type": ["integer", "null"], "format": "int64" },
                "d": { "type": "integer", "minimum": 0 },
            }})
        );
    }
}

//! Unions that clients can narrow. A union whose every branch is an object with one string member
//! fixed to a different constant (`"kind": "day"`, `"kind": "quest"`) gets a `discriminator` naming
//! that member, and each branch becomes a named component (`DayLetterTrigger`), so that a generated
//! client has one type per branch and picks it by the member instead of by trial.

use serde_json::{Map, Value, json};

/// Names the branches of, and adds a discriminator to, every such union among `schemas`.
pub(super) fn discriminate(schemas: &mut Map<String, Value>) {
    let names: Vec<String> = schemas.keys().cloned().collect();
    for name in names {
        let Some(branches) = schemas[&name].get("oneOf").and_then(Value::as_array).cloned() else {
            continue;
        };
        let Some(tag) = common_tag(schemas, &branches) else { continue };
        let mut refs = Vec::new();
        let mut mapping = Map::new();
        for branch in branches {
            let value = tag_value(schemas, &branch, &tag).unwrap_or_default().to_owned();
            let reference = match branch.get("$ref") {
                Some(reference) => reference.clone(),
                None => {
                    let component = format!("{}{name}", pascal(&value));
                    schemas.insert(component.clone(), branch);
                    json!(format!("#/components/schemas/{component}"))
                }
            };
            mapping.insert(value, reference.clone());
            refs.push(json!({ "$ref": reference }));
        }
        let union = &mut schemas[&name];
        union["oneOf"] = Value::Array(refs);
        union["discriminator"] = json!({ "propertyName": tag, "mapping": mapping });
    }
}

/// The member every branch fixes to a different constant, if there is one.
fn common_tag(schemas: &Map<String, Value>, branches: &[Value]) -> Option<String> {
    let first = resolve(schemas, branches.first()?)?;
    let candidates = first.get("properties")?.as_object()?.iter().filter(|(_, p)| p.get("const").is_some());
    for (tag, _) in candidates {
        let values: Option<Vec<&str>> = branches.iter().map(|b| tag_value(schemas, b, tag)).collect();
        let Some(mut values) = values else { continue };
        let count = values.len();
        values.sort_unstable();
        values.dedup();
        if values.len() == count {
            return Some(tag.clone());
        }
    }
    None
}

/// The constant `branch` fixes `tag` to, when the branch requires it.
fn tag_value<'s>(schemas: &'s Map<String, Value>, branch: &'s Value, tag: &str) -> Option<&'s str> {
    let branch = resolve(schemas, branch)?;
    let required = branch.get("required")?.as_array()?.iter().any(|r| r == tag);
    required.then_some(())?;
    branch.get("properties")?.get(tag)?.get("const")?.as_str()
}

/// The schema a branch is: itself, or the component it refers to.
fn resolve<'s>(schemas: &'s Map<String, Value>, branch: &'s Value) -> Option<&'s Value> {
    match branch.get("$ref").and_then(Value::as_str) {
        Some(reference) => schemas.get(reference.strip_prefix("#/components/schemas/")?),
        None => Some(branch),
    }
}

/// `grand_reserve` as `GrandReserve`.
fn pascal(value: &str) -> String {
    value
        .split(['_', '-'])
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map(|c| c.to_uppercase().chain(chars).collect::<String>()).unwrap_or_default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_branches_are_named_and_referenced_ones_kept() {
        let mut schemas = json!({
            "Trigger": { "oneOf": [
                { "type": "object", "properties": { "kind": { "const": "day" }, "day": {} }, "required": ["kind", "day"] },
                { "$ref": "#/components/schemas/QuestTrigger" },
            ]},
            "QuestTrigger": { "type": "object", "properties": { "kind": { "const": "quest" } }, "required": ["kind"] },
            "Plain": { "oneOf": [{ "type": "string" }, { "type": "integer" }] },
        });
        let schemas = schemas.as_object_mut().unwrap();
        discriminate(schemas);
        assert_eq!(
            schemas["Trigger"],
            json!({
                "oneOf": [
                    { "$ref": "#/components/schemas/DayTrigger" },
                    { "$ref": "#/components/schemas/QuestTrigger" },
                ],
                "discriminator": { "propertyName": "kind", "mapping": {
                    "day": "#/components/schemas/DayTrigger",
                    "quest": "#/components/schemas/QuestTrigger",
                }},
            })
        );
        assert_eq!(schemas["DayTrigger"]["required"], json!(["kind", "day"]));
        assert!(schemas["Plain"].get("discriminator").is_none());
    }
}

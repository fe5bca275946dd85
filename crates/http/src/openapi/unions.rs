//! Unions that clients can narrow. A union whose every branch is an object with one string member
//! fixed to a different constant (`"kind": "day"`, `"kind": "quest"`) gets a `discriminator` naming
//! that member, and each branch becomes a named component (`DayLetterTrigger`), so that a generated
//! client has one type per branch and picks it by the member instead of by trial. A branch that
//! adds the member to another component (`{"$ref": ..., "properties": {"type": ...}}`, what a serde
//! internally tagged enum of structs derives) is written out whole, since generators read members
//! beside a `$ref` differently.

use serde_json::{Map, Value, json};

use crate::schemas::{SCHEMAS, branch_name};

/// Names the branches of, and adds a discriminator to, every such union among the schemas of
/// `document`. Afterwards, the components written out into branches, and the unions themselves
/// where only their branches are used (`/v1/quests/{key}` answers a `QuestDocumentDetail`), are
/// dropped when nothing in the document refers to them any more.
pub(super) fn discriminate(document: &mut Value) {
    let Some(schemas) = document.pointer_mut("/components/schemas").and_then(Value::as_object_mut) else {
        return;
    };
    let names: Vec<String> = schemas.keys().cloned().collect();
    // The components that may be left unused: the unions, and those written out into a branch.
    let mut replaced: Vec<String> = Vec::new();
    for name in names {
        // Branches that fix one member to different constants exclude each other, so `anyOf` (what an
        // untagged enum derives) is a `oneOf` too.
        let union = &schemas[&name];
        let Some(branches) = union.get("oneOf").or(union.get("anyOf")).and_then(Value::as_array).cloned()
        else {
            continue;
        };
        let Some(tag) = common_tag(schemas, &branches) else { continue };
        let mut refs = Vec::new();
        let mut mapping = Map::new();
        for branch in branches {
            let value = tag_value(schemas, &branch, &tag).unwrap_or_default().to_owned();
            let reference = match (branch.get("$ref"), branch.get("properties")) {
                (Some(reference), None) => reference.clone(),
                (reference, _) => {
                    replaced.extend(
                        reference.and_then(Value::as_str).and_then(component_name).map(str::to_owned),
                    );
                    let component = branch_name(&name, &value);
                    let whole = written_out(schemas, branch);
                    let clash = schemas.insert(component.clone(), whole);
                    assert!(clash.is_none(), "the branch {component} of {name} is named like another schema");
                    json!(format!("{SCHEMAS}{component}"))
                }
            };
            mapping.insert(value, reference.clone());
            refs.push(json!({ "$ref": reference }));
        }
        let Some(union) = schemas[&name].as_object_mut() else { continue };
        union.remove("anyOf");
        union.insert("oneOf".into(), Value::Array(refs));
        union.insert("discriminator".into(), json!({ "propertyName": tag, "mapping": mapping }));
        replaced.push(name);
    }
    drop_unreferenced(document, &replaced);
}

/// Removes the schemas of `names` that nothing in `document` refers to (a union's own mapping
/// refers to its branches, never to itself).
fn drop_unreferenced(document: &mut Value, names: &[String]) {
    let text = document.to_string();
    if let Some(schemas) = document.pointer_mut("/components/schemas").and_then(Value::as_object_mut) {
        for name in names {
            if !text.contains(&format!("\"{SCHEMAS}{name}\"")) {
                schemas.remove(name);
            }
        }
    }
}

fn component_name(reference: &str) -> Option<&str> {
    reference.strip_prefix(SCHEMAS)
}

/// `branch` with the members of the component its `$ref` names merged in after its own, and the
/// reference gone; `branch` itself when it names none.
fn written_out(schemas: &Map<String, Value>, mut branch: Value) -> Value {
    let target = branch.get("$ref").and_then(Value::as_str).and_then(component_name);
    let Some(target) = target.and_then(|name| schemas.get(name)).cloned() else {
        return branch;
    };
    let object = branch.as_object_mut().expect("a branch with a $ref is an object");
    object.remove("$ref");
    let properties = object.entry("properties").or_insert_with(|| json!({}));
    if let (Some(own), Some(theirs)) = (properties.as_object_mut(), target["properties"].as_object()) {
        for (member, schema) in theirs {
            own.entry(member.clone()).or_insert_with(|| schema.clone());
        }
    }
    let required = object.entry("required").or_insert_with(|| json!([]));
    if let (Some(own), Some(theirs)) = (required.as_array_mut(), target["required"].as_array()) {
        own.extend(theirs.iter().filter(|r| !own.contains(r)).cloned().collect::<Vec<_>>());
    }
    for member in ["description", "additionalProperties"] {
        if let Some(value) = target.get(member) {
            object.entry(member).or_insert_with(|| value.clone());
        }
    }
    branch
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

/// The schema whose members a branch states: the component it only refers to, or itself.
fn resolve<'s>(schemas: &'s Map<String, Value>, branch: &'s Value) -> Option<&'s Value> {
    match (branch.get("$ref").and_then(Value::as_str), branch.get("properties")) {
        (Some(reference), None) => schemas.get(component_name(reference)?),
        _ => Some(branch),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_branches_are_named_and_referenced_ones_kept() {
        let mut document = json!({ "paths": { "/t": { "$ref": "#/components/schemas/Trigger" } }, "components": { "schemas": {
            "Trigger": { "oneOf": [
                { "type": "object", "properties": { "kind": { "const": "day" }, "day": {} }, "required": ["kind", "day"] },
                { "$ref": "#/components/schemas/QuestTrigger" },
            ]},
            "QuestTrigger": { "type": "object", "properties": { "kind": { "const": "quest" } }, "required": ["kind"] },
            "Plain": { "oneOf": [{ "type": "string" }, { "type": "integer" }] },
        }}});
        discriminate(&mut document);
        let schemas = document["components"]["schemas"].as_object().unwrap();
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

    /// What serde's internally tagged enum of structs derives: the tag beside a `$ref`.
    #[test]
    fn a_tag_added_to_a_component_is_written_out_whole() {
        let mut document = json!({ "paths": { "/q": { "$ref": "#/components/schemas/QuestDetail" } }, "components": { "schemas": {
            "Detail": { "oneOf": [
                { "$ref": "#/components/schemas/QuestShape", "type": "object",
                  "properties": { "type": { "type": "string", "const": "quest" } }, "required": ["type"] },
                { "$ref": "#/components/schemas/PerkShape", "type": "object",
                  "properties": { "type": { "type": "string", "const": "perk" } }, "required": ["type"] },
            ]},
            "QuestShape": { "type": "object", "description": "A quest.", "additionalProperties": false,
                "properties": { "key": { "type": "string" } }, "required": ["key"] },
            "PerkShape": { "type": "object", "properties": { "tier": { "type": "integer" } }, "required": [] },
        }}});
        discriminate(&mut document);
        let schemas = document["components"]["schemas"].as_object().unwrap();
        assert_eq!(
            schemas["QuestDetail"],
            json!({
                "type": "object",
                "properties": { "type": { "type": "string", "const": "quest" }, "key": { "type": "string" } },
                "required": ["type", "key"],
                "description": "A quest.",
                "additionalProperties": false,
            })
        );
        assert_eq!(schemas["PerkDetail"]["required"], json!(["type"]));
        // The shapes were only there to be written out, and only a branch of the union is used.
        assert!(!schemas.contains_key("QuestShape") && !schemas.contains_key("PerkShape"));
        assert!(!schemas.contains_key("Detail"));
    }
}

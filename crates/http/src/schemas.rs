//! How the document names a shape: where its schemas are (`#/components/schemas/`), the schema of a
//! wire type that an endpoint's `data` is (`data: schema::<Vec<ItemSummary>>`), one branch of a
//! tagged union, and the shape of `/openapi.json` itself. The endpoint table names its shapes with
//! these, below the document that writes them out (`crate::openapi`).

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

/// Where a `$ref` finds the document's schemas.
pub(crate) const SCHEMAS: &str = "#/components/schemas/";

/// The schema of a wire type, registered in the document's components; endpoints name their `data`
/// shape with it (`data: schema::<Vec<ItemSummary>>`).
pub(crate) fn schema<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

/// The schema of the branch of the tagged union `U` whose tag is `tag`, under the name the document
/// gives that branch (see `unions`): a route that answers only one kind (`/v1/quests/{key}`) says so.
pub(crate) fn branch_of<U: JsonSchema>(generator: &mut SchemaGenerator, tag: &str) -> Schema {
    generator.subschema_for::<U>();
    json_schema!({ "$ref": format!("{SCHEMAS}{}", branch_name(&U::schema_name(), tag)) })
}

/// The shape of `/openapi.json` itself: an object whose members the OpenAPI 3.1 specification defines
/// (not the boolean schema `true`, which several generators cannot read).
pub(crate) fn document_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "description": "An OpenAPI 3.1 document (https://spec.openapis.org/oas/v3.1.0): this one.",
        "properties": {
            "openapi": { "type": "string", "description": "The OpenAPI version, `3.1.0`." },
            "info": { "type": "object", "description": "Title, version and description of the interface." },
            "paths": { "type": "object", "description": "Every operation, by path template." },
            "components": { "type": "object", "description": "Schemas, parameters, headers and responses that operations refer to." },
        },
        "required": ["openapi", "info", "paths"],
    })
}

/// The component name of the branch of `union` whose tag is `value`: `DayLetterTrigger` for the
/// `day` branch of `LetterTrigger`.
pub(crate) fn branch_name(union: &str, value: &str) -> String {
    format!("{}{union}", pascal(value))
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

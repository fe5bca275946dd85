//! The closed sets of values that parameters take and answers hold: a season, a language, an item
//! kind, a price level... Each set is one named schema of the OpenAPI document, which every parameter
//! and every response member of that set refers to, so that a generated client has one `Season` type
//! instead of one per use. A parameter checks its values against the same list.

use schemars::{Schema, json_schema};
use tapster_wire::ValueSet as WireSet;

use crate::schemas::SCHEMAS;

/// A closed set of string values and the name of its schema.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ValueSet {
    pub(crate) name: &'static str,
    pub(crate) description: &'static str,
    pub(crate) values: &'static [&'static str],
}

impl ValueSet {
    /// The `{"$ref": ...}` that names the set's schema.
    pub(crate) fn reference(&self) -> serde_json::Value {
        serde_json::json!({ "$ref": format!("{SCHEMAS}{}", self.name) })
    }

    /// The set's schema: a string `enum`.
    pub(crate) fn schema(&self) -> Schema {
        json_schema!({ "type": "string", "enum": self.values, "description": self.description.trim() })
    }
}

/// Names each set of the wire crate here, as a [`ValueSet`] for parameters: its name, description and
/// values are the wire type's, so that the parameters take exactly what the answers hold, and the
/// document has one schema for both.
macro_rules! value_sets {
    ($($name:ident),+ $(,)?) => {
        $(
            #[doc = concat!("The set of [`tapster_wire::", stringify!($name), "`].")]
            #[derive(Debug)]
            pub(crate) struct $name;

            impl $name {
                pub(crate) const SET: ValueSet = ValueSet {
                    name: <tapster_wire::$name as WireSet>::NAME,
                    description: <tapster_wire::$name as WireSet>::DESCRIPTION,
                    values: <tapster_wire::$name as WireSet>::VALUES,
                };
            }
        )+

        /// Every set, for the document's components.
        pub(crate) const ALL: &[&ValueSet] = &[$(&$name::SET),+];
    };
}

value_sets! {
    Lang, Season, Water, Bait, GatherMethod, ItemKind, FoodType, UnlockKind, ChangeType, ChangeKind,
    IngredientChoice, Aging, Quality, HitType, DocumentType, LimitPolicy, HealthStatus, PictureFormat,
    PictureSize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_names_are_unique_and_sets_are_not_empty() {
        let mut names: Vec<&str> = ALL.iter().map(|s| s.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ALL.len());
        assert!(ALL.iter().all(|s| !s.values.is_empty() && !s.description.trim().is_empty()));
    }
}

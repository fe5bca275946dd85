//! The closed sets of values that parameters take and answers hold: a season, a language, an item
//! kind, a price level... Each set is one named schema of the OpenAPI document, which every parameter
//! and every response member of that set refers to, so that a generated client has one `Season` type
//! instead of one per use. A parameter checks its values against the same list.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use crate::params::{FromParam, Param, Rule, Value};

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
        serde_json::json!({ "$ref": format!("#/components/schemas/{}", self.name) })
    }

    /// The set's schema: a string `enum`.
    pub(crate) fn schema(&self) -> Schema {
        json_schema!({ "type": "string", "enum": self.values, "description": self.description.trim() })
    }
}

/// Declares each set as a type whose JSON schema is the named set, for views to use
/// (`#[schemars(with = "value_sets::Season")]`), and as a [`ValueSet`] for parameters.
macro_rules! value_sets {
    ($($(#[doc = $doc:literal])+ $name:ident = $values:expr;)+) => {
        $(
            $(#[doc = $doc])+
            #[derive(Debug)]
            pub(crate) struct $name;

            impl $name {
                pub(crate) const SET: ValueSet =
                    ValueSet { name: stringify!($name), description: concat!($($doc),+), values: $values };
            }

            impl JsonSchema for $name {
                fn schema_name() -> Cow<'static, str> {
                    Cow::Borrowed(stringify!($name))
                }

                fn json_schema(_: &mut SchemaGenerator) -> Schema {
                    Self::SET.schema()
                }
            }
        )+

        /// Every set, for the document's components.
        pub(crate) const ALL: &[&ValueSet] = &[$(&$name::SET),+];
    };
}

value_sets! {
    /// A language code, as the game names its languages.
    Lang = tapster_i18n::Language::CODES;
    /// A season of the game's calendar.
    Season = tapster_domain::Season::NAMES;
    /// Where a fish lives.
    Water = tapster_domain::Water::NAMES;
    /// What a fish bites on.
    Bait = tapster_domain::Bait::NAMES;
    /// How an item is gathered in the world.
    GatherMethod = tapster_domain::GatherMethod::NAMES;
    /// What an item is, the coarsest way to browse the catalogue.
    ItemKind = tapster_domain::ItemKind::NAMES;
    /// How a tavern serves a product.
    FoodType = tapster_domain::FoodType::NAMES;
    /// How a recipe is unlocked: `default` (known from the start) or by the kind of progression record
    /// that unlocks it.
    UnlockKind = tapster_domain::Unlock::KINDS;
    /// A type of game record, plural as in the data files.
    ChangeType = &tapster_domain::RecordType::PLURALS;
    /// What happened to a record between two game versions.
    ChangeKind = tapster_domain::ChangeKind::NAMES;
    /// Which member fills each ingredient group, all the way down the recipe chain.
    IngredientChoice = tapster_pricing::IngredientChoice::NAMES;
    /// How long a product was aged in the cellar.
    Aging = tapster_pricing::Aging::NAMES;
    /// How well a product was made.
    Quality = tapster_pricing::Quality::NAMES;
    /// The kind of record a search hit is.
    HitType = &["item", "recipe"];
    /// The kind of a progression record, singular.
    DocumentType = &["quest", "perk", "spell", "talent", "reputation", "mission", "letter"];
}

/// Reads a parameter of each set that has a type as that type: `reads` ties the type to its set, so
/// that a field declared with another set is found by the tests of every endpoint; `absent` is the
/// value when the request leaves the parameter out (`None`: it must be given, or be an `Option`).
macro_rules! read_as_type {
    ($($ty:ty: $set:ident, $parse:expr, $absent:expr;)+) => {
        $(
            impl FromParam for $ty {
                fn reads(rule: Rule) -> bool {
                    rule == Rule::Enum(&$set::SET)
                }

                fn given(value: &Value, _: &Param) -> Option<Self> {
                    match value {
                        Value::Text(text) => ($parse)(text.as_str()),
                        _ => None,
                    }
                }

                fn absent(_: &Param) -> Option<Self> {
                    $absent
                }
            }
        )+
    };
}

read_as_type! {
    tapster_domain::Season: Season, |v| tapster_domain::Season::parse(v).ok(), None;
    tapster_domain::Water: Water, |v| tapster_domain::Water::parse(v).ok(), None;
    tapster_domain::Bait: Bait, |v| tapster_domain::Bait::parse(v).ok(), None;
    tapster_domain::ItemKind: ItemKind, |v| tapster_domain::ItemKind::parse(v).ok(), None;
    tapster_domain::FoodType: FoodType, |v| tapster_domain::FoodType::parse(v).ok(), None;
    tapster_domain::RecordType: ChangeType, tapster_domain::RecordType::parse, None;
    tapster_domain::ChangeKind: ChangeKind, |v| tapster_domain::ChangeKind::parse(v).ok(), None;
    tapster_pricing::IngredientChoice: IngredientChoice, tapster_pricing::IngredientChoice::parse, Some(Default::default());
    tapster_pricing::Aging: Aging, tapster_pricing::Aging::parse, Some(Default::default());
    tapster_pricing::Quality: Quality, tapster_pricing::Quality::parse, Some(Default::default());
    crate::views::search::HitType: HitType, crate::views::search::HitType::parse, None;
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

    /// The sets written here rather than taken from a type name what those types spell.
    #[test]
    fn written_sets_spell_what_their_types_spell() {
        use tapster_domain::RecordType;
        let progression: Vec<&str> =
            RecordType::ALL.into_iter().filter(|t| t.is_progression()).map(RecordType::singular).collect();
        assert_eq!(progression, DocumentType::SET.values);
        use crate::views::search::HitType as Hit;
        let hits: Vec<serde_json::Value> =
            [Hit::Item, Hit::Recipe].iter().map(|h| serde_json::to_value(h).unwrap()).collect();
        assert_eq!(hits, HitType::SET.values);
    }
}

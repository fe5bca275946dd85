//! The closed sets of values that parameters take and answers hold: a season, a language, an item
//! kind, a price level... Each set is one named schema of the OpenAPI document, which every parameter
//! and every response member of that set refers to, so that a generated client has one `Season` type
//! instead of one per use. A parameter checks its values against the same list.

use schemars::{Schema, json_schema};
use tapster_wire::ValueSet as WireSet;

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
    IngredientChoice, Aging, Quality, HitType, DocumentType, LimitPolicy, HealthStatus,
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
    crate::routes::SearchType: HitType, crate::routes::SearchType::parse, None;
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

    /// The wire crate spells each set as the domain and pricing crates (and the gate) do, value for
    /// value: the answers are made from those, and the parameters read into them. `HealthStatus` is
    /// written as its wire type.
    #[test]
    fn the_wire_sets_spell_what_the_domain_spells() {
        use tapster_domain::RecordType;
        let progression: Vec<&str> =
            RecordType::ALL.into_iter().filter(|t| t.is_progression()).map(RecordType::singular).collect();
        let hits: Vec<&str> = ["item", "recipe"]
            .into_iter()
            .filter(|value| crate::routes::SearchType::parse(value).is_some())
            .collect();
        let policies = crate::gate::Policy::for_limits(tapster_domain::Limits::DEFAULT).map(|p| p.name);
        let cases: [(&ValueSet, &[&str]); 16] = [
            (&Lang::SET, tapster_i18n::Language::CODES),
            (&Season::SET, tapster_domain::Season::NAMES),
            (&Water::SET, tapster_domain::Water::NAMES),
            (&Bait::SET, tapster_domain::Bait::NAMES),
            (&GatherMethod::SET, tapster_domain::GatherMethod::NAMES),
            (&ItemKind::SET, tapster_domain::ItemKind::NAMES),
            (&FoodType::SET, tapster_domain::FoodType::NAMES),
            (&UnlockKind::SET, tapster_domain::Unlock::KINDS),
            (&ChangeType::SET, &RecordType::PLURALS),
            (&ChangeKind::SET, tapster_domain::ChangeKind::NAMES),
            (&IngredientChoice::SET, tapster_pricing::IngredientChoice::NAMES),
            (&Aging::SET, tapster_pricing::Aging::NAMES),
            (&Quality::SET, tapster_pricing::Quality::NAMES),
            (&HitType::SET, &hits),
            (&DocumentType::SET, &progression),
            (&LimitPolicy::SET, &policies),
        ];
        for (set, domain) in cases {
            assert_eq!(set.values, domain, "{}", set.name);
        }
    }
}

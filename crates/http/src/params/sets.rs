//! The parameters whose values are one of a closed set (`crate::value_sets`) and which a handler
//! reads as a type of its own: a season as `tapster_domain::Season`, a search's `type` as
//! [`SearchType`]. Each type is tied to its set here, so that a field declared with another set is
//! found by the tests of every endpoint.

use tapster_domain::RecordType;

use super::{FromParam, Param, Rule, Value};
use crate::value_sets::{
    Aging, Bait, ChangeKind, ChangeType, FoodType, HitType, IngredientChoice, ItemKind, PictureFormat,
    PictureSize, Quality, Season, Water,
};

/// What the `type` parameter asks to search: one of the wire's `HitType`s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SearchType {
    Item,
    Recipe,
}

impl SearchType {
    /// The records of this kind.
    pub(crate) fn record_type(self) -> RecordType {
        match self {
            Self::Item => RecordType::Item,
            Self::Recipe => RecordType::Recipe,
        }
    }

    /// Parses the spelling of the wire's `HitType` (`item`, `recipe`).
    pub(crate) fn parse(value: &str) -> Option<Self> {
        match tapster_wire::HitType::parse(value) {
            tapster_wire::HitType::Item => Some(Self::Item),
            tapster_wire::HitType::Recipe => Some(Self::Recipe),
            _ => None,
        }
    }
}

/// The side of the square a picture is asked in (`size`): one of the store's sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PictureSide(pub(crate) u32);

impl PictureSide {
    /// Reads a value the set's rule has admitted (`32`, `64`, `128`): one of the store's sides.
    pub(crate) fn parse(value: &str) -> Option<Self> {
        value.parse().ok().filter(|side| tapster_store::PICTURE_SIDES.contains(side)).map(Self)
    }
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
    SearchType: HitType, SearchType::parse, None;
    tapster_store::PictureFormat: PictureFormat, tapster_store::PictureFormat::parse,
        Some(tapster_store::PictureFormat::Png);
    PictureSide: PictureSize, PictureSide::parse, Some(PictureSide(tapster_store::DEFAULT_PICTURE_SIDE));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value_sets::{DocumentType, GatherMethod, Lang, LimitPolicy, UnlockKind, ValueSet};

    /// The wire crate spells each set as the domain and pricing crates (and the gate) do, value for
    /// value: the answers are made from those, and the parameters read into them. `HealthStatus` is
    /// written as its wire type.
    #[test]
    fn the_wire_sets_spell_what_the_domain_spells() {
        use tapster_domain::RecordType;
        let progression: Vec<&str> =
            RecordType::ALL.into_iter().filter(|t| t.is_progression()).map(RecordType::singular).collect();
        let hits: Vec<&str> =
            ["item", "recipe"].into_iter().filter(|value| SearchType::parse(value).is_some()).collect();
        let policies = crate::gate::Policy::NAMES;
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
        let formats = tapster_store::PictureFormat::ALL.map(tapster_store::PictureFormat::as_str);
        assert_eq!(PictureFormat::SET.values, formats);
        let sides = tapster_store::PICTURE_SIDES.map(|side| side.to_string());
        assert_eq!(PictureSize::SET.values, sides);
    }
}

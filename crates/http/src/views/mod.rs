//! The JSON shapes of the resources, built from catalog records. Field names here are the public
//! interface; domain and store types are never serialized to clients directly. Every localized text
//! goes through the [`Localizer`], which notes where English stood in.

mod items;
mod meta;
pub(crate) mod prices;
pub(crate) mod progression;
pub(crate) mod recipes;
pub(crate) mod relations;
pub(crate) mod search;
pub(crate) mod world;

pub(crate) use items::{ITEM_DETAIL_FIELDS, ITEM_EXPANSIONS, ITEM_SUMMARY_FIELDS, ItemDetail, ItemSummary};
pub(crate) use meta::{Degraded, ExportView, GameVersionView, Health, KeyView, LanguageView};
use schemars::JsonSchema;
use serde::Serialize;
use tapster_domain::{
    Item, ItemAmount, ProgressionKey, RecordId, RecordType, ReputationMilestone, Season, TextKey,
};
use tapster_pricing::Copper;
use tapster_store::Catalog;

use crate::envelope::Localizer;

/// A price in copper (100 copper are a silver, 100 silver a gold), and as players read it.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Price {
    copper: u64,
    /// `<s>s <c>c` below one gold (10000 copper), `<g>g <s>s <c>c` from one gold up: 5 is `0s 5c`,
    /// 245 is `2s 45c`, 10000 is `1g 0s 0c`, 123456 is `12g 34s 56c`.
    #[schemars(regex(pattern = r"^([1-9][0-9]*g )?[0-9]{1,2}s [0-9]{1,2}c$"))]
    display: String,
}

impl Price {
    pub(crate) fn new(copper: u64) -> Self {
        Self { copper, display: Copper(copper).to_string() }
    }
}

/// Another record, named well enough that a client needs no second request: id, slug, localized name.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RecordRef {
    id: RecordId,
    slug: String,
    name: String,
}

impl RecordRef {
    /// `at` is the JSON Pointer of this object in the body.
    pub(crate) fn new(loc: &mut Localizer<'_>, id: RecordId, slug: &str, name: &TextKey, at: &str) -> Self {
        Self { id, slug: slug.to_owned(), name: loc.text(name, || format!("{at}/name")) }
    }

    pub(crate) fn item(loc: &mut Localizer<'_>, item: &Item, at: &str) -> Self {
        Self::new(loc, item.id, item.slug.as_str(), &item.name_key, at)
    }

    /// The item of `id`; import guarantees it exists, and a bare reference stands in otherwise.
    pub(crate) fn item_by_id(loc: &mut Localizer<'_>, id: RecordId, at: &str) -> Self {
        match loc.catalog.item_by_id(id) {
            Some(item) => Self::item(loc, item, at),
            None => Self::dangling(id),
        }
    }

    /// A reference to a record the catalog should hold but does not (import refuses such data).
    pub(crate) fn dangling(id: RecordId) -> Self {
        Self { id, slug: String::new(), name: String::new() }
    }
}

/// An amount of one item: a recipe's output, an objective, a reward, a letter's attachment.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ItemStack {
    /// The item.
    item: RecordRef,
    /// How many.
    amount: u32,
}

impl ItemStack {
    /// `at` is the JSON Pointer of this object in the body.
    pub(crate) fn new(loc: &mut Localizer<'_>, stack: &ItemAmount, at: &str) -> Self {
        Self { item: RecordRef::item_by_id(loc, stack.item, &format!("{at}/item")), amount: stack.amount }
    }

    /// Each of `stacks`, the list being at `at`.
    pub(crate) fn list(loc: &mut Localizer<'_>, stacks: &[ItemAmount], at: &str) -> Vec<Self> {
        stacks.iter().enumerate().map(|(i, stack)| Self::new(loc, stack, &format!("{at}/{i}"))).collect()
    }
}

/// A shopkeeper named in another record: id, slug, their name and their trade.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ShopkeeperRef {
    id: RecordId,
    slug: String,
    /// The person's name, localized.
    name: String,
    /// The trade they are known by ("Blacksmith"), localized.
    title: String,
}

impl ShopkeeperRef {
    /// The shopkeeper of `id`; `at` is the JSON Pointer of this object in the body.
    pub(crate) fn new(loc: &mut Localizer<'_>, id: RecordId, at: &str) -> Self {
        match loc.catalog.shopkeeper_by_id(id) {
            Some(keeper) => Self {
                id,
                slug: keeper.slug.to_string(),
                name: loc.text(&keeper.name_key, || format!("{at}/name")),
                title: loc.text(&keeper.title_key, || format!("{at}/title")),
            },
            None => Self { id, slug: String::new(), name: String::new(), title: String::new() },
        }
    }
}

/// Another progression record: its key (for `/v1/<type>/{key}`) and localized name.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ProgressionRef {
    key: String,
    name: String,
}

impl ProgressionRef {
    /// `at` is the JSON Pointer of this object in the body.
    pub(crate) fn new(loc: &mut Localizer<'_>, key: &ProgressionKey, name: &TextKey, at: &str) -> Self {
        Self { key: key.to_string(), name: loc.text(name, || format!("{at}/name")) }
    }
}

/// A reputation milestone: its key, localized name and the level it marks.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct MilestoneRef {
    key: String,
    name: String,
    /// The reputation level it marks.
    level: u32,
}

impl MilestoneRef {
    /// `at` is the JSON Pointer of this object in the body.
    pub(crate) fn new(loc: &mut Localizer<'_>, milestone: &ReputationMilestone, at: &str) -> Self {
        Self {
            key: milestone.key.to_string(),
            name: loc.text(&milestone.name_key, || format!("{at}/name")),
            level: milestone.level,
        }
    }
}

/// Seasons by name, in the data's order.
pub(crate) fn season_names(seasons: &[Season]) -> Vec<&'static str> {
    seasons.iter().map(|s| s.as_str()).collect()
}

/// The game version a record first appeared in (`record_key`: its id in decimal, or its key).
pub(crate) fn introduced(
    catalog: &Catalog,
    kind: RecordType,
    record_key: impl std::fmt::Display,
) -> Option<String> {
    catalog.introduced_in(kind, &record_key.to_string()).map(ToString::to_string)
}

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;

    use super::recipes::{RECIPE_SUMMARY_FIELDS, RecipeSummary};
    use super::*;

    /// The property names of a view's schema, in order.
    fn properties<T: JsonSchema>() -> Vec<String> {
        let schema = schemars::schema_for!(T);
        let properties = schema.get("properties").and_then(|p| p.as_object()).expect("an object schema");
        properties.keys().cloned().collect()
    }

    #[test]
    fn the_fields_lists_name_exactly_the_fields_of_the_views() {
        assert_eq!(ITEM_SUMMARY_FIELDS, properties::<ItemSummary>());
        assert_eq!(ITEM_DETAIL_FIELDS, properties::<ItemDetail>());
        assert_eq!(RECIPE_SUMMARY_FIELDS, properties::<RecipeSummary>());
    }
}

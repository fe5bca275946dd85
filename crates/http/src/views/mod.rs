//! The answers' records, built from catalog records: one function per shape, named after it
//! (`item_summary` makes a `tapster_wire::ItemSummary`). The shapes themselves are the wire crate's,
//! which clients read with; domain and store types are never serialized to clients directly. Every
//! localized text goes through the [`Localizer`], which notes where English stood in.

mod items;
mod meta;
pub(crate) mod prices;
pub(crate) mod progression;
pub(crate) mod recipes;
pub(crate) mod relations;
pub(crate) mod search;
pub(crate) mod world;

pub(crate) use items::*;
pub(crate) use meta::*;
pub(crate) use prices::*;
pub(crate) use progression::*;
pub(crate) use recipes::*;
pub(crate) use relations::*;
pub(crate) use search::*;
use tapster_domain::{
    Item, ItemAmount, ProgressionKey, RecordId, RecordType, ReputationMilestone, Season, TextKey,
};
use tapster_pricing::Copper;
use tapster_store::Catalog;
pub(crate) use world::*;

use tapster_wire::{self as wire, ItemStack, MilestoneRef, Price, ProgressionRef, RecordRef, ShopkeeperRef};

use crate::envelope::Localizer;

/// A price of `copper` as the answers show it.
pub(crate) fn price(copper: Copper) -> Price {
    price_of(copper.0)
}

/// A price in copper as the answers show it.
pub(crate) fn price_of(copper: u64) -> Price {
    Price { copper, display: Copper(copper).to_string() }
}

/// `at` is the JSON Pointer of this object in the body.
pub(crate) fn record_ref(
    loc: &mut Localizer<'_>,
    id: RecordId,
    slug: &str,
    name: &TextKey,
    at: &str,
) -> RecordRef {
    RecordRef { id, slug: slug.to_owned(), name: loc.text(name, || format!("{at}/name")) }
}

pub(crate) fn item_ref(loc: &mut Localizer<'_>, item: &Item, at: &str) -> RecordRef {
    record_ref(loc, item.id, item.slug.as_str(), &item.name_key, at)
}

/// The item of `id`; import guarantees it exists, and a bare reference stands in otherwise.
pub(crate) fn item_ref_by_id(loc: &mut Localizer<'_>, id: RecordId, at: &str) -> RecordRef {
    match loc.catalog.item_by_id(id) {
        Some(item) => item_ref(loc, item, at),
        None => dangling_ref(id),
    }
}

/// A reference to a record the catalog should hold but does not (import refuses such data).
pub(crate) fn dangling_ref(id: RecordId) -> RecordRef {
    RecordRef { id, slug: String::new(), name: String::new() }
}

/// `at` is the JSON Pointer of this object in the body.
pub(crate) fn item_stack(loc: &mut Localizer<'_>, stack: &ItemAmount, at: &str) -> ItemStack {
    ItemStack { item: item_ref_by_id(loc, stack.item, &format!("{at}/item")), amount: stack.amount }
}

/// Each of `stacks`, the list being at `at`.
pub(crate) fn item_stacks(loc: &mut Localizer<'_>, stacks: &[ItemAmount], at: &str) -> Vec<ItemStack> {
    stacks.iter().enumerate().map(|(i, stack)| item_stack(loc, stack, &format!("{at}/{i}"))).collect()
}

/// The shopkeeper of `id`; `at` is the JSON Pointer of this object in the body.
pub(crate) fn shopkeeper_ref(loc: &mut Localizer<'_>, id: RecordId, at: &str) -> ShopkeeperRef {
    match loc.catalog.shopkeeper_by_id(id) {
        Some(keeper) => ShopkeeperRef {
            id,
            slug: keeper.slug.to_string(),
            name: loc.text(&keeper.name_key, || format!("{at}/name")),
            title: loc.text(&keeper.title_key, || format!("{at}/title")),
        },
        None => ShopkeeperRef { id, slug: String::new(), name: String::new(), title: String::new() },
    }
}

/// `at` is the JSON Pointer of this object in the body.
pub(crate) fn progression_ref(
    loc: &mut Localizer<'_>,
    key: &ProgressionKey,
    name: &TextKey,
    at: &str,
) -> ProgressionRef {
    ProgressionRef { key: key.to_string(), name: loc.text(name, || format!("{at}/name")) }
}

/// `at` is the JSON Pointer of this object in the body.
pub(crate) fn milestone_ref(
    loc: &mut Localizer<'_>,
    milestone: &ReputationMilestone,
    at: &str,
) -> MilestoneRef {
    MilestoneRef {
        key: milestone.key.to_string(),
        name: loc.text(&milestone.name_key, || format!("{at}/name")),
        level: milestone.level,
    }
}

/// Seasons, in the data's order.
pub(crate) fn seasons(seasons: &[Season]) -> Vec<wire::Season> {
    seasons.iter().map(|s| wire::Season::parse(s.as_str())).collect()
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

    use tapster_wire::{ItemDetail, ItemSummary, RecipeSummary};

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

//! Items: the summary that lists show and the detail of one item, with its expandable relations.

use tapster_domain::{Item, RecordType};
use tapster_wire::{self as wire, ItemDetail, ItemSummary, ShopOffer};

use super::*;
use crate::envelope::Localizer;

/// The top-level fields of `ItemSummary`, followed by `$extra`: the detail is the summary and more.
macro_rules! item_fields {
    ($($extra:literal),*) => {
        &[
            "id",
            "slug",
            "name",
            "kind",
            "category",
            "tags",
            "ingredient_type",
            "food_type",
            "base_price",
            "buy_price",
            "sell_price",
            "servings",
            "stack_size",
            "can_be_sold",
            "can_be_aged",
            "unlisted",
            "icon",
            "icon_url",
            "fuel_value",
            "introduced_in",
            "price_per_serving",
            $($extra),*
        ]
    };
}

/// Top-level fields of `ItemSummary`, for `fields`.
pub(crate) const ITEM_SUMMARY_FIELDS: &[&str] = item_fields!();

/// Top-level fields of `ItemDetail`, for `fields`.
pub(crate) const ITEM_DETAIL_FIELDS: &[&str] = item_fields!("description", "recipes", "shops", "groups");

/// Relations `expand` can add to an item's detail.
pub(crate) const ITEM_EXPANSIONS: &[&str] = &["recipes", "shops", "groups"];

/// `at` is the JSON Pointer of this object in the body.
/// `at` is the JSON Pointer of this object in the body.
pub(crate) fn item_summary(loc: &mut Localizer<'_>, item: &Item, at: &str) -> ItemSummary {
    ItemSummary {
        id: item.id,
        slug: item.slug.to_string(),
        name: loc.text(&item.name_key, || format!("{at}/name")),
        kind: wire::ItemKind::parse(item.kind.as_str()),
        category: item.category.to_string(),
        tags: item.tags.iter().map(ToString::to_string).collect(),
        ingredient_type: item.ingredient_type.as_ref().map(ToString::to_string),
        food_type: item.food_type.map(|f| wire::FoodType::parse(f.as_str())),
        base_price: price_of(item.base_price),
        buy_price: price_of(item.buy_price_or_base()),
        sell_price: price_of(item.sell_price_or_base()),
        servings: item.servings,
        stack_size: item.stack_size,
        can_be_sold: item.can_be_sold,
        can_be_aged: item.can_be_aged,
        unlisted: item.unlisted,
        icon: item.icon.as_ref().map(ToString::to_string),
        icon_url: item.icon.as_ref().and_then(|path| loc.picture_url(path)),
        fuel_value: item.fuel_value,
        introduced_in: introduced(loc.catalog, RecordType::Item, item.id),
        price_per_serving: loc.catalog.price_per_serving(item).map(price_per_serving),
    }
}

pub(crate) fn item_detail(loc: &mut Localizer<'_>, item: &Item, expand: &[&str]) -> ItemDetail {
    let catalog = loc.catalog;
    let summary = item_summary(loc, item, "/data");
    let description = item.description_key.as_ref().map(|key| loc.text(key, || "/data/description".into()));
    let recipes = expand.contains(&"recipes").then(|| {
        let makers = catalog.data.recipes.iter().filter(|r| r.output.item == item.id);
        makers
            .enumerate()
            .map(|(i, r)| record_ref(loc, r.id, r.slug.as_str(), &r.name_key, &format!("/data/recipes/{i}")))
            .collect()
    });
    let shops = expand.contains(&"shops").then(|| {
        let offers =
            catalog.data.shops.iter().filter_map(|shop| {
                shop.catalogue.iter().find(|e| e.item == item.id).map(|entry| (shop, entry))
            });
        offers
            .enumerate()
            .map(|(i, (shop, entry))| ShopOffer {
                shop: record_ref(
                    loc,
                    shop.id,
                    shop.slug.as_str(),
                    &shop.name_key,
                    &format!("/data/shops/{i}/shop"),
                ),
                price: price_of(entry.price),
                seasons: seasons(&entry.seasons),
            })
            .collect()
    });
    let groups = expand.contains(&"groups").then(|| {
        let containing = catalog.data.ingredient_groups.iter().filter(|g| g.members.contains(&item.id));
        containing
            .enumerate()
            .map(|(i, g)| record_ref(loc, g.id, g.slug.as_str(), &g.name_key, &format!("/data/groups/{i}")))
            .collect()
    });
    ItemDetail { summary, description, recipes, shops, groups }
}

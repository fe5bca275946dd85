//! Items: the summary that lists show and the detail of one item, with its expandable relations.

use schemars::JsonSchema;
use serde::Serialize;
use tapster_domain::{Item, RecordType};

use super::prices::PricePerServing;
use super::{Price, RecordRef, introduced};
use crate::envelope::Localizer;
use crate::value_sets;

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

/// `ItemSummary`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ItemSummary {
    id: i64,
    slug: String,
    name: String,
    #[schemars(with = "value_sets::ItemKind")]
    kind: &'static str,
    category: String,
    tags: Vec<String>,
    ingredient_type: Option<String>,
    #[schemars(with = "Option<value_sets::FoodType>")]
    food_type: Option<&'static str>,
    /// The game's value of one unit.
    base_price: Price,
    /// What buying one unit costs (the base price where the game sets no other); a shop may ask
    /// its own price, which `/v1/items/{key}/sources` lists.
    buy_price: Price,
    /// What a merchant pays for one unit (the base price where the game sets no other).
    sell_price: Price,
    /// Servings one unit makes (a cask pours many); 1 for what is not served.
    servings: u32,
    /// Units one inventory slot holds; 1 for what does not stack.
    stack_size: u32,
    can_be_sold: bool,
    can_be_aged: bool,
    unlisted: bool,
    /// The game's own path to the item's icon among its assets (Tapster serves the path, not the
    /// image); `null` when the data names none.
    icon: Option<String>,
    /// Fuel units one unit gives when a station burns it; `null` for what does not burn.
    fuel_value: Option<u32>,
    /// The game version the item first appeared in.
    introduced_in: Option<String>,
    /// For a product the tavern sells (`can_be_sold` with a `food_type`), the price of one serving,
    /// neither aged nor refined, under each ingredient choice; `null` for every other item.
    price_per_serving: Option<PricePerServing>,
}

impl ItemSummary {
    /// `at` is the JSON Pointer of this object in the body.
    pub(crate) fn new(loc: &mut Localizer<'_>, item: &Item, at: &str) -> Self {
        Self {
            id: item.id,
            slug: item.slug.to_string(),
            name: loc.text(&item.name_key, || format!("{at}/name")),
            kind: item.kind.as_str(),
            category: item.category.to_string(),
            tags: item.tags.iter().map(ToString::to_string).collect(),
            ingredient_type: item.ingredient_type.as_ref().map(ToString::to_string),
            food_type: item.food_type.map(|f| f.as_str()),
            base_price: Price::new(item.base_price),
            buy_price: Price::new(item.buy_price_or_base()),
            sell_price: Price::new(item.sell_price_or_base()),
            servings: item.servings,
            stack_size: item.stack_size,
            can_be_sold: item.can_be_sold,
            can_be_aged: item.can_be_aged,
            unlisted: item.unlisted,
            icon: item.icon.as_ref().map(ToString::to_string),
            fuel_value: item.fuel_value,
            introduced_in: introduced(loc.catalog, RecordType::Item, item.id),
            price_per_serving: loc.catalog.price_per_serving(item).map(PricePerServing::new),
        }
    }
}

/// `ItemDetail`: the summary's fields, the description, and the relations asked for with `expand`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ItemDetail {
    #[serde(flatten)]
    summary: ItemSummary,
    description: Option<String>,
    /// Recipes that make it; only with `expand=recipes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<RecordRef>")]
    recipes: Option<Vec<RecordRef>>,
    /// Shops that sell it, with their price; only with `expand=shops`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<ShopOffer>")]
    shops: Option<Vec<ShopOffer>>,
    /// Ingredient groups it fills; only with `expand=groups`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<RecordRef>")]
    groups: Option<Vec<RecordRef>>,
}

/// A shop's offer of one item.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ShopOffer {
    shop: RecordRef,
    price: Price,
    /// Seasons it is on offer; empty for all year.
    #[schemars(with = "Vec<value_sets::Season>")]
    seasons: Vec<&'static str>,
}

impl ItemDetail {
    pub(crate) fn new(loc: &mut Localizer<'_>, item: &Item, expand: &[&str]) -> Self {
        let catalog = loc.catalog;
        let summary = ItemSummary::new(loc, item, "/data");
        let description =
            item.description_key.as_ref().map(|key| loc.text(key, || "/data/description".into()));
        let recipes = expand.contains(&"recipes").then(|| {
            let makers = catalog.data.recipes.iter().filter(|r| r.output.item == item.id);
            makers
                .enumerate()
                .map(|(i, r)| {
                    RecordRef::new(loc, r.id, r.slug.as_str(), &r.name_key, &format!("/data/recipes/{i}"))
                })
                .collect()
        });
        let shops = expand.contains(&"shops").then(|| {
            let offers = catalog.data.shops.iter().filter_map(|shop| {
                shop.catalogue.iter().find(|e| e.item == item.id).map(|entry| (shop, entry))
            });
            offers
                .enumerate()
                .map(|(i, (shop, entry))| ShopOffer {
                    shop: RecordRef::new(
                        loc,
                        shop.id,
                        shop.slug.as_str(),
                        &shop.name_key,
                        &format!("/data/shops/{i}/shop"),
                    ),
                    price: Price::new(entry.price),
                    seasons: entry.seasons.iter().map(|s| s.as_str()).collect(),
                })
                .collect()
        });
        let groups = expand.contains(&"groups").then(|| {
            let containing = catalog.data.ingredient_groups.iter().filter(|g| g.members.contains(&item.id));
            containing
                .enumerate()
                .map(|(i, g)| {
                    RecordRef::new(loc, g.id, g.slug.as_str(), &g.name_key, &format!("/data/groups/{i}"))
                })
                .collect()
        });
        Self { summary, description, recipes, shops, groups }
    }
}

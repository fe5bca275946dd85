//! Items: the summary that lists show, and the detail of one item with its expandable relations.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::*;

/// `ItemSummary`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ItemSummary {
    pub id: i64,
    pub slug: String,
    pub name: String,
    pub kind: ItemKind,
    pub category: String,
    pub tags: Vec<String>,
    pub ingredient_type: Option<String>,
    pub food_type: Option<FoodType>,
    /// The game's value of one unit.
    pub base_price: Price,
    /// What buying one unit costs (the base price where the game sets no other); a shop may ask
    /// its own price, which `/v1/items/{key}/sources` lists.
    pub buy_price: Price,
    /// What a merchant pays for one unit (the base price where the game sets no other).
    pub sell_price: Price,
    /// Servings one unit makes (a cask pours many); 1 for what is not served.
    pub servings: u32,
    /// Units one inventory slot holds; 1 for what does not stack.
    pub stack_size: u32,
    pub can_be_sold: bool,
    pub can_be_aged: bool,
    pub unlisted: bool,
    /// The game's own path to the item's icon among its assets; `null` when the data names none.
    pub icon: Option<String>,
    /// Where the icon is served: `/assets/{sha256}/{name}`, absolute in answers when the service knows
    /// its public address, relative to it otherwise and always in the bulk exports (built at import). Public (an `<img>` needs no key), cacheable forever, and
    /// `?size=32|64|128` and `?format=png|webp` ask for other sizes and formats; `null` when the
    /// item has no icon (or its data was imported before pictures were kept).
    pub icon_url: Option<String>,
    /// Fuel units one unit gives when a station burns it; `null` for what does not burn.
    pub fuel_value: Option<u32>,
    /// The game version the item first appeared in.
    pub introduced_in: Option<String>,
    /// For a product the tavern sells (`can_be_sold` with a `food_type`), the price of one serving,
    /// neither aged nor refined, under each ingredient choice; `null` for every other item.
    pub price_per_serving: Option<PricePerServing>,
}

/// `ItemDetail`: the summary's fields, the description, and the relations asked for with `expand`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ItemDetail {
    #[serde(flatten)]
    pub summary: ItemSummary,
    pub description: Option<String>,
    /// Recipes that make it; only with `expand=recipes`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<RecordRef>")]
    pub recipes: Option<Vec<RecordRef>>,
    /// Shops that sell it, with their price; only with `expand=shops`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<ShopOffer>")]
    pub shops: Option<Vec<ShopOffer>>,
    /// Ingredient groups it fills; only with `expand=groups`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<RecordRef>")]
    pub groups: Option<Vec<RecordRef>>,
}

/// A shop's offer of one item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ShopOffer {
    pub shop: RecordRef,
    pub price: Price,
    /// Seasons it is on offer; empty for all year.
    pub seasons: Vec<Season>,
}

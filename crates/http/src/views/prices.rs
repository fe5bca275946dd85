//! Prices and product rankings: the price of one serving of an item with the steps that made it, so
//! that a player can check the arithmetic, and the rows of a product ranking.

use schemars::JsonSchema;
use serde::Serialize;
use tapster_domain::{Input, Item};
use tapster_pricing::{Aging, Breakdown, Copper, IngredientCost, Quality};
use tapster_store::ServingPrices;

use super::{Price, RecordRef};
use crate::envelope::Localizer;
use crate::value_sets;

/// What one serving of a product costs, under each ingredient choice, neither aged nor refined.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct PricePerServing {
    /// Every ingredient group filled by its cheapest member, all the way down the recipe chain.
    cheapest: Price,
    /// Every ingredient group filled by its most expensive member.
    expensive: Price,
}

impl PricePerServing {
    pub(crate) fn new(prices: ServingPrices) -> Self {
        Self { cheapest: price(prices.cheapest), expensive: price(prices.expensive) }
    }
}

fn price(copper: Copper) -> Price {
    Price::new(copper.0)
}

/// `ItemPrice`: the price of one serving of an item, and how it was made.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ItemPrice {
    /// The item priced.
    item: RecordRef,
    /// The price of one serving.
    per_serving: Price,
    /// Which member filled each ingredient group.
    #[schemars(with = "value_sets::IngredientChoice")]
    ingredients: &'static str,
    /// How long the product was aged, and what that adds.
    aging: AgingModifier,
    /// How well the product was made, and what that adds.
    quality: QualityModifier,
    /// The steps from the base price to the unit value.
    breakdown: PriceBreakdown,
}

/// The level of aging asked for and the percentage it adds to the price.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct AgingModifier {
    #[schemars(with = "value_sets::Aging")]
    level: &'static str,
    /// What it adds to the price, in percent.
    percent: u64,
}

/// The level of quality asked for and the percentage it adds to the price.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct QualityModifier {
    #[schemars(with = "value_sets::Quality")]
    level: &'static str,
    /// What it adds to the price, in percent.
    percent: u64,
}

/// How the unit value was made: `unit_value = base + round(ingredient_total × ingredient_share_percent
/// / 100 / output_amount)`, and `per_serving = round(unit_value × (100 + aging%) × (100 + quality%) /
/// (servings × 10000))`, every division rounding half up.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct PriceBreakdown {
    /// The item's own base price.
    base: Price,
    /// The recipe that makes it (the lowest-id current one); `null` for an item no recipe makes.
    recipe: Option<RecordRef>,
    /// Units one craft makes (1 when no recipe makes it).
    output_amount: u32,
    /// What goes into one craft; empty when no recipe makes it.
    ingredients: Vec<IngredientPrice>,
    /// The sum of the ingredients' totals.
    ingredient_total: Price,
    /// The share of what goes in that the product adds to its base price, in percent.
    ingredient_share_percent: u64,
    /// The value of one unit.
    unit_value: Price,
    /// Servings one unit makes.
    servings: u32,
}

/// One ingredient of the craft, as priced.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct IngredientPrice {
    /// The item used: the ingredient itself, or the member the choice picked to fill the group.
    item: RecordRef,
    /// The ingredient group it fills; `null` when the recipe asks for this very item.
    group: Option<RecordRef>,
    /// How many go into one craft.
    amount: u32,
    /// The value of one unit of the item used, under the same choice.
    unit_value: Price,
    /// `amount × unit_value`.
    total: Price,
}

impl ItemPrice {
    /// The price of `item` at `/data`, from its breakdown.
    pub(crate) fn new(loc: &mut Localizer<'_>, item: &Item, b: &Breakdown) -> Self {
        let catalog = loc.catalog;
        let item_ref = RecordRef::item(loc, item, "/data/item");
        let recipe = b.recipe.map(|id| match catalog.recipe_by_id(id) {
            Some(r) => RecordRef::new(loc, r.id, r.slug.as_str(), &r.name_key, "/data/breakdown/recipe"),
            None => RecordRef::dangling(id),
        });
        let ingredients = b
            .ingredients
            .iter()
            .enumerate()
            .map(|(i, cost)| IngredientPrice::new(loc, cost, &format!("/data/breakdown/ingredients/{i}")))
            .collect();
        Self {
            item: item_ref,
            per_serving: price(b.per_serving),
            ingredients: b.choice.as_str(),
            aging: b.aging.into(),
            quality: b.quality.into(),
            breakdown: PriceBreakdown {
                base: price(b.base),
                recipe,
                output_amount: b.output_amount,
                ingredients,
                ingredient_total: price(b.ingredient_total),
                ingredient_share_percent: b.ingredient_share_percent,
                unit_value: price(b.unit_value),
                servings: b.servings,
            },
        }
    }
}

impl From<Aging> for AgingModifier {
    fn from(aging: Aging) -> Self {
        Self { level: aging.as_str(), percent: aging.percent() }
    }
}

impl From<Quality> for QualityModifier {
    fn from(quality: Quality) -> Self {
        Self { level: quality.as_str(), percent: quality.percent() }
    }
}

impl IngredientPrice {
    /// `at` is the JSON Pointer of this object in the body.
    fn new(loc: &mut Localizer<'_>, cost: &IngredientCost, at: &str) -> Self {
        let catalog = loc.catalog;
        let item = RecordRef::item_by_id(loc, cost.chosen, &format!("{at}/item"));
        let group = match cost.input {
            Input::Item(_) => None,
            Input::Group(id) => Some(match catalog.group_by_id(id) {
                Some(g) => RecordRef::new(loc, g.id, g.slug.as_str(), &g.name_key, &format!("{at}/group")),
                None => RecordRef::dangling(id),
            }),
        };
        Self {
            item,
            group,
            amount: cost.amount,
            unit_value: price(cost.unit_value),
            total: price(cost.total),
        }
    }
}

/// `RankingRow`: one product of a ranking.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RankingRow {
    /// 1 for the product worth most per serving.
    rank: u32,
    /// The product.
    item: RecordRef,
    /// The price of one serving, as `/v1/items/{key}/price` gives it for the same parameters.
    per_serving: Price,
}

impl RankingRow {
    /// The rows of a ranking page that starts `offset` rows into the ranking, best first, as the
    /// `data` array.
    pub(crate) fn list(loc: &mut Localizer<'_>, rows: &[(&Item, Copper)], offset: u32) -> Vec<Self> {
        rows.iter()
            .enumerate()
            .map(|(i, (item, per_serving))| Self {
                rank: offset + i as u32 + 1,
                item: RecordRef::item(loc, item, &format!("/data/{i}/item")),
                per_serving: price(*per_serving),
            })
            .collect()
    }
}

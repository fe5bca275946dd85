//! Prices: per serving, one item's price step by step, and the rankings of products.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::*;

/// What one serving of a product costs, under each ingredient choice, neither aged nor refined.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PricePerServing {
    /// Every ingredient group filled by its cheapest member, all the way down the recipe chain.
    pub cheapest: Price,
    /// Every ingredient group filled by its most expensive member.
    pub expensive: Price,
}

/// `ItemPrice`: the price of one serving of an item, and how it was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ItemPrice {
    /// The item priced.
    pub item: RecordRef,
    /// The price of one serving.
    pub per_serving: Price,
    /// Which member filled each ingredient group.
    pub ingredients: IngredientChoice,
    /// How long the product was aged, and what that adds.
    pub aging: AgingModifier,
    /// How well the product was made, and what that adds.
    pub quality: QualityModifier,
    /// The steps from the base price to the unit value.
    pub breakdown: PriceBreakdown,
}

/// The level of aging asked for and the percentage it adds to the price.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AgingModifier {
    pub level: Aging,
    /// What it adds to the price, in percent.
    pub percent: u64,
}

/// The level of quality asked for and the percentage it adds to the price.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QualityModifier {
    pub level: Quality,
    /// What it adds to the price, in percent.
    pub percent: u64,
}

/// How the unit value was made: `unit_value = base + round(ingredient_total × ingredient_share_percent
/// / 100 / output_amount)`, and `per_serving = round(unit_value × (100 + aging%) × (100 + quality%) /
/// (servings × 10000))`, every division rounding half up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PriceBreakdown {
    /// The item's own base price.
    pub base: Price,
    /// The recipe that makes it (the lowest-id current one); `null` for an item no recipe makes.
    pub recipe: Option<RecordRef>,
    /// Units one craft makes (1 when no recipe makes it).
    pub output_amount: u32,
    /// What goes into one craft; empty when no recipe makes it.
    pub ingredients: Vec<IngredientPrice>,
    /// The sum of the ingredients' totals.
    pub ingredient_total: Price,
    /// The share of what goes in that the product adds to its base price, in percent.
    pub ingredient_share_percent: u64,
    /// The value of one unit.
    pub unit_value: Price,
    /// Servings one unit makes.
    pub servings: u32,
}

/// One ingredient of the craft, as priced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IngredientPrice {
    /// The item used: the ingredient itself, or the member the choice picked to fill the group.
    pub item: RecordRef,
    /// The ingredient group it fills; `null` when the recipe asks for this very item.
    pub group: Option<RecordRef>,
    /// How many go into one craft.
    pub amount: u32,
    /// The value of one unit of the item used, under the same choice.
    pub unit_value: Price,
    /// `amount × unit_value`.
    pub total: Price,
}

/// `RankingRow`: one product of a ranking.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RankingRow {
    /// 1 for the product worth most per serving.
    pub rank: u32,
    /// The product.
    pub item: RecordRef,
    /// The price of one serving, as `/v1/items/{key}/price` gives it for the same parameters.
    pub per_serving: Price,
}

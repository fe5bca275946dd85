//! Prices and product rankings: the price of one serving of an item with the steps that made it, so
//! that a player can check the arithmetic, and the rows of a product ranking.

use tapster_domain::{Input, Item};
use tapster_pricing::{Aging, Breakdown, Copper, IngredientCost, Quality};
use tapster_store::ServingPrices;
use tapster_wire::{
    self as wire, AgingModifier, IngredientPrice, ItemPrice, PriceBreakdown, PricePerServing,
    QualityModifier, RankingRow,
};

use super::*;
use crate::envelope::Localizer;

/// The prices of one serving under each ingredient choice.
pub(crate) fn price_per_serving(prices: ServingPrices) -> PricePerServing {
    PricePerServing { cheapest: price(prices.cheapest), expensive: price(prices.expensive) }
}

/// The price of `item` at `/data`, from its breakdown.
pub(crate) fn item_price(loc: &mut Localizer<'_>, item: &Item, b: &Breakdown) -> ItemPrice {
    let catalog = loc.catalog;
    let item_ref = item_ref(loc, item, "/data/item");
    let recipe = b.recipe.map(|id| match catalog.recipe_by_id(id) {
        Some(r) => record_ref(loc, r.id, r.slug.as_str(), &r.name_key, "/data/breakdown/recipe"),
        None => dangling_ref(id),
    });
    let ingredients = b
        .ingredients
        .iter()
        .enumerate()
        .map(|(i, cost)| ingredient_price(loc, cost, &format!("/data/breakdown/ingredients/{i}")))
        .collect();
    ItemPrice {
        item: item_ref,
        per_serving: price(b.per_serving),
        ingredients: wire::IngredientChoice::parse(b.choice.as_str()),
        aging: aging_modifier(b.aging),
        quality: quality_modifier(b.quality),
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

pub(crate) fn aging_modifier(aging: Aging) -> AgingModifier {
    AgingModifier { level: wire::Aging::parse(aging.as_str()), percent: aging.percent() }
}

pub(crate) fn quality_modifier(quality: Quality) -> QualityModifier {
    QualityModifier { level: wire::Quality::parse(quality.as_str()), percent: quality.percent() }
}

/// `at` is the JSON Pointer of this object in the body.
pub(crate) fn ingredient_price(loc: &mut Localizer<'_>, cost: &IngredientCost, at: &str) -> IngredientPrice {
    let catalog = loc.catalog;
    let item = item_ref_by_id(loc, cost.chosen, &format!("{at}/item"));
    let group = match cost.input {
        Input::Item(_) => None,
        Input::Group(id) => Some(match catalog.group_by_id(id) {
            Some(g) => record_ref(loc, g.id, g.slug.as_str(), &g.name_key, &format!("{at}/group")),
            None => dangling_ref(id),
        }),
    };
    IngredientPrice {
        item,
        group,
        amount: cost.amount,
        unit_value: price(cost.unit_value),
        total: price(cost.total),
    }
}

/// The rows of a ranking page that starts `offset` rows into the ranking, best first, as the
/// `data` array.
pub(crate) fn ranking_rows(
    loc: &mut Localizer<'_>,
    rows: &[(&Item, Copper)],
    offset: u32,
) -> Vec<RankingRow> {
    rows.iter()
        .enumerate()
        .map(|(i, (item, per_serving))| RankingRow {
            rank: offset + i as u32 + 1,
            item: item_ref(loc, item, &format!("/data/{i}/item")),
            per_serving: price(*per_serving),
        })
        .collect()
}

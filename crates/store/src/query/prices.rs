//! Prices of items under the pricing rules, and product rankings.
//!
//! The arithmetic lives in `tapster_pricing` (computed once per version, in [`Catalog::prices`]);
//! this module decides which items are products and ranks them by their price per serving.

use tapster_domain::{FoodType, Item};
use tapster_pricing::{Aging, Breakdown, Copper, IngredientChoice, Quality};

use super::Window;
use crate::Catalog;

/// The price of one serving of a product under each ingredient choice, plain (aging `none`,
/// quality `common`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServingPrices {
    pub cheapest: Copper,
    pub expensive: Copper,
}

/// What a product ranking takes: which products, priced how, and how many rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RankingQuery {
    /// Only products served this way.
    pub food_type: Option<FoodType>,
    pub ingredients: IngredientChoice,
    /// Any level but `none` ranks only the products that can be aged.
    pub aging: Aging,
    pub quality: Quality,
    /// The rows to return.
    pub window: Window,
}

/// A page of a ranking: its rows (best first, each product with its price per serving) and how many
/// products the whole ranking holds.
#[derive(Debug)]
pub struct Ranking<'a> {
    pub rows: Vec<(&'a Item, Copper)>,
    pub total: u64,
}

/// Whether the tavern sells `item` as a product: it can be sold and has a food type.
pub(crate) fn is_product(item: &Item) -> bool {
    item.can_be_sold && item.food_type.is_some()
}

impl Catalog {
    /// The plain price of one serving of `item` under each choice; `None` unless it is a product.
    pub fn price_per_serving(&self, item: &Item) -> Option<ServingPrices> {
        if !is_product(item) {
            return None;
        }
        let plain = |choice| self.prices.per_serving(item.id, choice, Aging::None, Quality::Common).ok();
        Some(ServingPrices {
            cheapest: plain(IngredientChoice::Cheapest)?.per_serving,
            expensive: plain(IngredientChoice::Expensive)?.per_serving,
        })
    }

    /// The price of one serving of any item (a raw ingredient too), with every step that made it.
    /// Aging an item that cannot be aged is [`tapster_pricing::Error::CannotAge`].
    pub fn price(
        &self,
        item: &Item,
        ingredients: IngredientChoice,
        aging: Aging,
        quality: Quality,
    ) -> tapster_pricing::Result<Breakdown> {
        self.prices.per_serving(item.id, ingredients, aging, quality)
    }

    /// The listed products that `query` ranks, each with its price per serving: highest first,
    /// ties by id, the page `query.window` asks for.
    pub fn product_ranking(&self, query: &RankingQuery) -> Ranking<'_> {
        let mut rows: Vec<(&Item, Copper)> = self
            .data
            .items
            .iter()
            .filter(|item| is_product(item) && !item.unlisted)
            .filter(|item| query.food_type.is_none_or(|f| item.food_type == Some(f)))
            .filter_map(|item| {
                // Products that cannot take the aging asked for are left out (`CannotAge`).
                let price = self.prices.per_serving(item.id, query.ingredients, query.aging, query.quality);
                price.ok().map(|b| (item, b.per_serving))
            })
            .collect();
        rows.sort_by(|(a, pa), (b, pb)| pb.cmp(pa).then(a.id.cmp(&b.id)));
        let total = rows.len() as u64;
        let Window { limit, offset } = query.window;
        let rows = rows.into_iter().skip(offset as usize).take(limit as usize).collect();
        Ranking { rows, total }
    }
}

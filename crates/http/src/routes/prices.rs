//! `/v1/items/{key}/price` and `/v1/rankings/products`.

use tapster_domain::FoodType;
use tapster_pricing::{Aging, IngredientChoice, Quality};
use tapster_store::{Catalog, RankingQuery};

use super::{Ctx, Endpoint, KeyRule};
use crate::envelope::Localizer;
use crate::error::ApiError;
use crate::openapi::schema;
use crate::params::{LANG, OFFSET, Param, Query, Rule, VERSION};
use crate::response::Reply;
use crate::value_sets;
use crate::views::prices::{ItemPrice, RankingRow};

const INGREDIENTS: Param = Param {
    name: "ingredients",
    rule: Rule::Enum(&value_sets::IngredientChoice::SET),
    description: "Which member fills each ingredient group, all the way down the recipe chain: `cheapest` (the default) or `expensive`; ties go to the lower id.",
};

const QUALITY: Param = Param {
    name: "quality",
    rule: Rule::Enum(&value_sets::Quality::SET),
    description: "How well the product was made: `common` (the default, +0 %), `fine` (+15 %) or `superior` (+35 %).",
};

const PRICE_PARAMS: &[Param] = &[
    INGREDIENTS,
    Param {
        name: "aging",
        rule: Rule::Enum(&value_sets::Aging::SET),
        description: "How long the product was aged: `none` (the default, +0 %), `young` (+0 %), `aged` (+10 %), `reserve` (+20 %) or `grand_reserve` (+30 %). Aging an item that cannot be aged is a 422.",
    },
    QUALITY,
    VERSION,
    LANG,
];

const RANKING_PARAMS: &[Param] = &[
    Param {
        name: "aging",
        rule: Rule::Enum(&value_sets::Aging::SET),
        description: "How long the products were aged: `none` (the default, +0 %), `young` (+0 %), `aged` (+10 %), `reserve` (+20 %) or `grand_reserve` (+30 %). Any level but `none` ranks only the products that can be aged.",
    },
    Param {
        name: "food_type",
        rule: Rule::Enum(&value_sets::FoodType::SET),
        description: "Only products served this way.",
    },
    INGREDIENTS,
    QUALITY,
    Param {
        name: "limit",
        rule: Rule::Limit { default: 20, max: 100 },
        description: "Rows, 1 to 100 (default 20).",
    },
    OFFSET,
    VERSION,
    LANG,
];

pub(super) const ENDPOINTS: &[Endpoint] = &[
    Endpoint {
        path: "/v1/items/{key}/price",
        key: Some(KeyRule::Record),
        summary: "The price of one serving of an item (any item: a raw ingredient is worth its base price), with the steps that made it",
        example: Some("/v1/items/pale-ale/price?aging=aged"),
        params: PRICE_PARAMS,
        handler: price,
        data: schema::<ItemPrice>,
    },
    Endpoint {
        path: "/v1/rankings/products",
        key: None,
        summary: "The products the tavern sells (listed, sellable, with a food type), highest price per serving first, ties by id",
        example: Some("/v1/rankings/products?food_type=drink&limit=3"),
        params: RANKING_PARAMS,
        handler: ranking,
        data: schema::<Vec<RankingRow>>,
    },
];

/// The pricing choices of the query, each defaulting as documented.
fn choices(q: &Query) -> (IngredientChoice, Aging, Quality) {
    (
        q.text("ingredients").and_then(IngredientChoice::parse).unwrap_or_default(),
        q.text("aging").and_then(Aging::parse).unwrap_or_default(),
        q.text("quality").and_then(Quality::parse).unwrap_or_default(),
    )
}

/// `GET /v1/items/{key}/price`.
fn price(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let (catalog, item) = ctx.record("item", Catalog::item)?;
    let (ingredients, aging, quality) = choices(&ctx.query);
    let breakdown = catalog.price(item, ingredients, aging, quality).map_err(|e| match e {
        tapster_pricing::Error::CannotAge { .. } => ApiError::invalid(
            "aging",
            format!(
                "item {} ({}) cannot be aged; ask without `aging` or with `aging=none` (given {:?})",
                item.slug,
                item.id,
                aging.as_str()
            ),
        ),
        other => ApiError::Internal(Box::new(other)),
    })?;
    let mut loc = Localizer::new(catalog, ctx.query.lang());
    let view = ItemPrice::new(&mut loc, item, &breakdown);
    ctx.render(loc, view)
}

/// `GET /v1/rankings/products`.
fn ranking(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let catalog = ctx.catalog()?;
    let q = &ctx.query;
    let (ingredients, aging, quality) = choices(q);
    let query = RankingQuery {
        food_type: q.text("food_type").and_then(|f| FoodType::parse(f).ok()),
        ingredients,
        aging,
        quality,
        window: q.window(),
    };
    let ranking = catalog.product_ranking(&query);
    let mut loc = Localizer::new(catalog, q.lang());
    let data = RankingRow::list(&mut loc, &ranking.rows, q.offset());
    ctx.render_page(loc, data, ranking.total)
}

//! `/v1/items/{key}/price` and `/v1/rankings/products`.

use tapster_domain::{FoodType, VersionSelector};
use tapster_i18n::Language;
use tapster_pricing::{Aging, IngredientChoice, Quality};
use tapster_store::{Catalog, RankingQuery, Window};
use tapster_wire::{ItemPrice, RankingRow};

use super::{Ctx, Endpoint, Handle, KeyRule};
use crate::error::ApiError;
use crate::params::{LANG, Named, OFFSET, Param, Rule, VERSION, query_params};
use crate::response::Reply;
use crate::schemas::schema;
use crate::value_sets;
use crate::views;

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

query_params! {
    /// The query of `GET /v1/items/{key}/price`.
    struct PriceParams {
        ingredients: IngredientChoice = INGREDIENTS,
        aging: Named<Aging> = Param {
            name: "aging",
            rule: Rule::Enum(&value_sets::Aging::SET),
            description: "How long the product was aged: `none` (the default, +0 %), `young` (+0 %), `aged` (+10 %), `reserve` (+20 %) or `grand_reserve` (+30 %). Aging an item that cannot be aged is a 422.",
        },
        quality: Quality = QUALITY,
        version: VersionSelector = VERSION,
        lang: Language = LANG,
    }
}

query_params! {
    /// The query of `GET /v1/rankings/products`.
    struct RankingParams {
        aging: Aging = Param {
            name: "aging",
            rule: Rule::Enum(&value_sets::Aging::SET),
            description: "How long the products were aged: `none` (the default, +0 %), `young` (+0 %), `aged` (+10 %), `reserve` (+20 %) or `grand_reserve` (+30 %). Any level but `none` ranks only the products that can be aged.",
        },
        food_type: Option<FoodType> = Param {
            name: "food_type",
            rule: Rule::Enum(&value_sets::FoodType::SET),
            description: "Only products served this way.",
        },
        ingredients: IngredientChoice = INGREDIENTS,
        quality: Quality = QUALITY,
        limit: u32 = Param {
            name: "limit",
            rule: Rule::Limit { default: 20, max: 100 },
            description: "Rows, 1 to 100 (default 20).",
        },
        offset: u32 = OFFSET,
        version: VersionSelector = VERSION,
        lang: Language = LANG,
    }
}

pub(super) const ENDPOINTS: &[Endpoint] = &[
    Endpoint {
        path: "/v1/items/{key}/price",
        key: Some(KeyRule::Record),
        summary: "The price of one serving of an item (any item: a raw ingredient is worth its base price), with the steps that made it",
        example: Some("/v1/items/pale-ale/price?aging=aged"),
        handler: &Handle(price),
        data: schema::<ItemPrice>,
    },
    Endpoint {
        path: "/v1/rankings/products",
        key: None,
        summary: "The products the tavern sells (listed, sellable, with a food type), highest price per serving first, ties by id",
        example: Some("/v1/rankings/products?food_type=drink&limit=3"),
        handler: &Handle(ranking),
        data: schema::<Vec<RankingRow>>,
    },
];

/// `GET /v1/items/{key}/price`.
fn price(ctx: &Ctx<'_>, p: PriceParams) -> Result<Reply, ApiError> {
    let (catalog, item) = ctx.record("item", &p.version, Catalog::item)?;
    let aging = &p.aging;
    let breakdown = catalog.price(item, p.ingredients, aging.value, p.quality).map_err(|e| match e {
        tapster_pricing::Error::CannotAge { .. } => aging.invalid(format!(
            "item {} ({}) cannot be aged; ask without `aging` or with `aging=none` (given {:?})",
            item.slug,
            item.id,
            aging.value.as_str()
        )),
        other => ApiError::Internal(Box::new(other)),
    })?;
    let mut loc = ctx.localizer(catalog, p.lang);
    let view = views::item_price(&mut loc, item, &breakdown);
    ctx.render(loc, view, None)
}

/// `GET /v1/rankings/products`.
fn ranking(ctx: &Ctx<'_>, p: RankingParams) -> Result<Reply, ApiError> {
    let catalog = ctx.catalog(&p.version)?;
    let window = Window { limit: p.limit, offset: p.offset };
    let query = RankingQuery {
        food_type: p.food_type,
        ingredients: p.ingredients,
        aging: p.aging,
        quality: p.quality,
        window,
    };
    let ranking = catalog.product_ranking(&query);
    let mut loc = ctx.localizer(catalog, p.lang);
    let data = views::ranking_rows(&mut loc, &ranking.rows, p.offset);
    ctx.render_page(loc, data, None, window, ranking.total)
}

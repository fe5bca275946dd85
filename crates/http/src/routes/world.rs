//! Crops, shops, shopkeepers and fish (spec 4.5):
//! `/v1/crops`, `/v1/crops/{key}`, `/v1/shops`, `/v1/shops/{key}`, `/v1/npcs` and `/v1/fish`.

use tapster_domain::{Bait, Season, Water};
use tapster_store::{Catalog, CropFilter, CropOrder, FishFilter};

use super::{Ctx, Endpoint, KeyRule};
use crate::envelope::Localizer;
use crate::error::ApiError;
use crate::openapi::schema;
use crate::params::{LANG, LIMIT, OFFSET, Param, Rule, VERSION};
use crate::response::Reply;
use crate::value_sets;
use crate::views::world::{Crop, Fish, Npc, ShopDetail, ShopSummary};

const CROP_SORT_KEYS: &[&str] = &["id", "name", "days"];

const CROP_LIST_PARAMS: &[Param] = &[
    Param {
        name: "season",
        rule: Rule::Enum(&value_sets::Season::SET),
        description: "Only crops that grow in this season.",
    },
    Param {
        name: "reusable",
        rule: Rule::Bool,
        description: "Only crops that do (`true`) or do not (`false`) yield again after a harvest.",
    },
    Param {
        name: "sort",
        rule: Rule::Sort(CROP_SORT_KEYS),
        description: "Order: `id` (the default), `name` (in `lang`, ignoring case and accents), `days` (days to grow); ties break by id.",
    },
    VERSION,
    LANG,
    LIMIT,
    OFFSET,
];

const FISH_PARAMS: &[Param] = &[
    Param {
        name: "season",
        rule: Rule::Enum(&value_sets::Season::SET),
        description: "Only fish that bite in this season.",
    },
    Param {
        name: "water",
        rule: Rule::Enum(&value_sets::Water::SET),
        description: "Only fish that live in this water.",
    },
    Param {
        name: "bait",
        rule: Rule::Enum(&value_sets::Bait::SET),
        description: "Only fish that bite on this bait.",
    },
    Param {
        name: "rarity",
        rule: Rule::Int { min: 0, max: 10 },
        description: "Only fish of exactly this rarity, 0 (everywhere) to 10 (legendary).",
    },
    VERSION,
    LANG,
    LIMIT,
    OFFSET,
];

const VERSION_LANG: &[Param] = &[VERSION, LANG];

pub(super) const ENDPOINTS: &[Endpoint] = &[
    Endpoint {
        path: "/v1/crops",
        key: None,
        summary: "Crops, filtered by season and reusability, sorted and paged",
        example: Some("/v1/crops?season=spring&limit=2"),
        params: CROP_LIST_PARAMS,
        handler: crops,
        data: schema::<Vec<Crop>>,
    },
    Endpoint {
        path: "/v1/crops/{key}",
        key: Some(KeyRule::Record),
        summary: "One crop by id or slug",
        example: Some("/v1/crops/barley"),
        params: VERSION_LANG,
        handler: crop,
        data: schema::<Crop>,
    },
    Endpoint {
        path: "/v1/shops",
        key: None,
        summary: "Every shop, with its shopkeeper and hours, in the data's order",
        example: Some("/v1/shops"),
        params: VERSION_LANG,
        handler: shops,
        data: schema::<Vec<ShopSummary>>,
    },
    Endpoint {
        path: "/v1/shops/{key}",
        key: Some(KeyRule::Record),
        summary: "One shop by id or slug, with its catalogue",
        example: Some("/v1/shops/hollins-general-store"),
        params: VERSION_LANG,
        handler: shop,
        data: schema::<ShopDetail>,
    },
    Endpoint {
        path: "/v1/npcs",
        key: None,
        summary: "Every shopkeeper, with the shops they run, in the data's order",
        example: Some("/v1/npcs"),
        params: VERSION_LANG,
        handler: npcs,
        data: schema::<Vec<Npc>>,
    },
    Endpoint {
        path: "/v1/fish",
        key: None,
        summary: "Fish, filtered by season, water, bait and rarity, by id, paged",
        example: Some("/v1/fish?water=FreshWater&limit=2"),
        params: FISH_PARAMS,
        handler: fish,
        data: schema::<Vec<Fish>>,
    },
];

/// `GET /v1/crops`.
fn crops(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let catalog = ctx.catalog()?;
    let q = &ctx.query;
    let filter = CropFilter {
        season: q.text("season").and_then(|s| Season::parse(s).ok()),
        reusable: q.bool("reusable"),
    };
    let sort = q.sort_with(|name| match name {
        "name" => CropOrder::Name,
        "days" => CropOrder::Days,
        _ => CropOrder::Id,
    });
    let page = catalog.crops(filter, &sort, q.lang(), ctx.query.window());
    let mut loc = Localizer::new(catalog, q.lang());
    let data = loc.list(page.records.iter().copied(), Crop::new);
    ctx.render_page(loc, data, page.total)
}

/// `GET /v1/crops/{key}`.
fn crop(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let (catalog, crop) = ctx.record("crop", Catalog::crop)?;
    let mut loc = Localizer::new(catalog, ctx.query.lang());
    let view = Crop::new(&mut loc, crop, "/data");
    ctx.render(loc, view)
}

/// `GET /v1/shops`.
fn shops(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let catalog = ctx.catalog()?;
    let mut loc = Localizer::new(catalog, ctx.query.lang());
    let data = loc.list(catalog.data.shops.iter(), ShopSummary::new);
    ctx.render(loc, data)
}

/// `GET /v1/shops/{key}`.
fn shop(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let (catalog, shop) = ctx.record("shop", Catalog::shop)?;
    let mut loc = Localizer::new(catalog, ctx.query.lang());
    let view = ShopDetail::new(&mut loc, shop);
    ctx.render(loc, view)
}

/// `GET /v1/npcs`.
fn npcs(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let catalog = ctx.catalog()?;
    let mut loc = Localizer::new(catalog, ctx.query.lang());
    let data = loc.list(catalog.data.shopkeepers.iter(), Npc::new);
    ctx.render(loc, data)
}

/// `GET /v1/fish`.
fn fish(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let catalog = ctx.catalog()?;
    let q = &ctx.query;
    let filter = FishFilter {
        season: q.text("season").and_then(|s| Season::parse(s).ok()),
        water: q.text("water").and_then(|w| Water::parse(w).ok()),
        bait: q.text("bait").and_then(|b| Bait::parse(b).ok()),
        rarity: q.int("rarity").and_then(|r| u8::try_from(r).ok()),
    };
    let page = catalog.fish(filter, ctx.query.window());
    let mut loc = Localizer::new(catalog, q.lang());
    let data = loc.list(page.records.iter().copied(), Fish::new);
    ctx.render_page(loc, data, page.total)
}

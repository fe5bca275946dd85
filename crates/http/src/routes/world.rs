//! Crops, shops, shopkeepers and fish:
//! `/v1/crops`, `/v1/crops/{key}`, `/v1/shops`, `/v1/shops/{key}`, `/v1/npcs` and `/v1/fish`.

use tapster_domain::{Bait, Season, VersionSelector, Water};
use tapster_i18n::Language;
use tapster_store::{Catalog, CropFilter, CropOrder, FishFilter, Window};
use tapster_wire::{Crop, Fish, Npc, ShopDetail, ShopSummary};

use super::{Ctx, Endpoint, Handle, KeyRule};
use crate::error::ApiError;
use crate::params::{LANG, LIMIT, OFFSET, Param, Rule, SortKeys, VERSION, VersionLang, query_params};
use crate::response::Reply;
use crate::schemas::schema;
use crate::value_sets;
use crate::views;

const CROP_SORT_KEYS: &[&str] = &["id", "name", "days"];

query_params! {
    /// The query of `GET /v1/crops`.
    struct CropListParams {
        season: Option<Season> = Param {
            name: "season",
            rule: Rule::Enum(&value_sets::Season::SET),
            description: "Only crops that grow in this season.",
        },
        reusable: Option<bool> = Param {
            name: "reusable",
            rule: Rule::Bool,
            description: "Only crops that do (`true`) or do not (`false`) yield again after a harvest.",
        },
        sort: SortKeys = Param {
            name: "sort",
            rule: Rule::Sort(CROP_SORT_KEYS),
            description: "Order: `id` (the default), `name` (in `lang`, ignoring case and accents), `days` (days to grow); ties break by id.",
        },
        version: VersionSelector = VERSION,
        lang: Language = LANG,
        limit: u32 = LIMIT,
        offset: u32 = OFFSET,
    }
}

query_params! {
    /// The query of `GET /v1/fish`.
    struct FishParams {
        season: Option<Season> = Param {
            name: "season",
            rule: Rule::Enum(&value_sets::Season::SET),
            description: "Only fish that bite in this season.",
        },
        water: Option<Water> = Param {
            name: "water",
            rule: Rule::Enum(&value_sets::Water::SET),
            description: "Only fish that live in this water.",
        },
        bait: Option<Bait> = Param {
            name: "bait",
            rule: Rule::Enum(&value_sets::Bait::SET),
            description: "Only fish that bite on this bait.",
        },
        rarity: Option<u8> = Param {
            name: "rarity",
            rule: Rule::Int { min: 0, max: 10 },
            description: "Only fish of exactly this rarity, 0 (everywhere) to 10 (legendary).",
        },
        version: VersionSelector = VERSION,
        lang: Language = LANG,
        limit: u32 = LIMIT,
        offset: u32 = OFFSET,
    }
}

pub(super) const ENDPOINTS: &[Endpoint] = &[
    Endpoint {
        path: "/v1/crops",
        key: None,
        summary: "Crops, filtered by season and reusability, sorted and paged",
        example: Some("/v1/crops?season=spring&limit=2"),
        handler: &Handle(crops),
        data: schema::<Vec<Crop>>,
    },
    Endpoint {
        path: "/v1/crops/{key}",
        key: Some(KeyRule::Record),
        summary: "One crop by id or slug",
        example: Some("/v1/crops/barley"),
        handler: &Handle(crop),
        data: schema::<Crop>,
    },
    Endpoint {
        path: "/v1/shops",
        key: None,
        summary: "Every shop, with its shopkeeper and hours, in the data's order",
        example: Some("/v1/shops"),
        handler: &Handle(shops),
        data: schema::<Vec<ShopSummary>>,
    },
    Endpoint {
        path: "/v1/shops/{key}",
        key: Some(KeyRule::Record),
        summary: "One shop by id or slug, with its catalogue",
        example: Some("/v1/shops/hollins-general-store"),
        handler: &Handle(shop),
        data: schema::<ShopDetail>,
    },
    Endpoint {
        path: "/v1/npcs",
        key: None,
        summary: "Every shopkeeper, with the shops they run, in the data's order",
        example: Some("/v1/npcs"),
        handler: &Handle(npcs),
        data: schema::<Vec<Npc>>,
    },
    Endpoint {
        path: "/v1/fish",
        key: None,
        summary: "Fish, filtered by season, water, bait and rarity, by id, paged",
        example: Some("/v1/fish?water=FreshWater&limit=2"),
        handler: &Handle(fish),
        data: schema::<Vec<Fish>>,
    },
];

/// `GET /v1/crops`.
fn crops(ctx: &Ctx<'_>, p: CropListParams) -> Result<Reply, ApiError> {
    let catalog = ctx.catalog(&p.version)?;
    let filter = CropFilter { season: p.season, reusable: p.reusable };
    let sort = p.sort.to_store(|name| match name {
        "name" => CropOrder::Name,
        "days" => CropOrder::Days,
        _ => CropOrder::Id,
    });
    let window = Window { limit: p.limit, offset: p.offset };
    let page = catalog.crops(filter, &sort, p.lang, window);
    let mut loc = ctx.localizer(catalog, p.lang);
    let data = loc.list(page.records.iter().copied(), views::crop);
    ctx.render_page(loc, data, None, window, page.total)
}

/// `GET /v1/crops/{key}`.
fn crop(ctx: &Ctx<'_>, p: VersionLang) -> Result<Reply, ApiError> {
    let (catalog, crop) = ctx.record("crop", &p.version, Catalog::crop)?;
    let mut loc = ctx.localizer(catalog, p.lang);
    let view = views::crop(&mut loc, crop, "/data");
    ctx.render(loc, view, None)
}

/// `GET /v1/shops`.
fn shops(ctx: &Ctx<'_>, p: VersionLang) -> Result<Reply, ApiError> {
    let catalog = ctx.catalog(&p.version)?;
    let mut loc = ctx.localizer(catalog, p.lang);
    let data = loc.list(catalog.data.shops.iter(), views::shop_summary);
    ctx.render(loc, data, None)
}

/// `GET /v1/shops/{key}`.
fn shop(ctx: &Ctx<'_>, p: VersionLang) -> Result<Reply, ApiError> {
    let (catalog, shop) = ctx.record("shop", &p.version, Catalog::shop)?;
    let mut loc = ctx.localizer(catalog, p.lang);
    let view = views::shop_detail(&mut loc, shop);
    ctx.render(loc, view, None)
}

/// `GET /v1/npcs`.
fn npcs(ctx: &Ctx<'_>, p: VersionLang) -> Result<Reply, ApiError> {
    let catalog = ctx.catalog(&p.version)?;
    let mut loc = ctx.localizer(catalog, p.lang);
    let data = loc.list(catalog.data.shopkeepers.iter(), views::npc);
    ctx.render(loc, data, None)
}

/// `GET /v1/fish`.
fn fish(ctx: &Ctx<'_>, p: FishParams) -> Result<Reply, ApiError> {
    let catalog = ctx.catalog(&p.version)?;
    let filter = FishFilter { season: p.season, water: p.water, bait: p.bait, rarity: p.rarity };
    let window = Window { limit: p.limit, offset: p.offset };
    let page = catalog.fish(filter, window);
    let mut loc = ctx.localizer(catalog, p.lang);
    let data = loc.list(page.records.iter().copied(), views::fish);
    ctx.render_page(loc, data, None, window, page.total)
}

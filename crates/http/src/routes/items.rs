//! `/v1/items` and `/v1/items/{key}`.

use tapster_domain::ItemKind;
use tapster_store::{Catalog, ItemFilter, ItemOrder};

use super::{Ctx, Endpoint, KeyRule};
use crate::envelope::Localizer;
use crate::error::ApiError;
use crate::openapi::schema;
use crate::params::{LANG, LIMIT, OFFSET, Param, Rule, VERSION};
use crate::response::Reply;
use crate::value_sets;
use crate::views::{ITEM_DETAIL_FIELDS, ITEM_EXPANSIONS, ITEM_SUMMARY_FIELDS, ItemDetail, ItemSummary};

const ITEM_SORT_KEYS: &[&str] = &["id", "name", "price"];

const LIST_PARAMS: &[Param] = &[
    Param {
        name: "kind",
        rule: Rule::Enum(&value_sets::ItemKind::SET),
        description: "Only items of this kind.",
    },
    Param {
        name: "category",
        rule: Rule::Ident { max: 48 },
        description: "Only items of this category (the data defines them).",
    },
    Param { name: "tag", rule: Rule::Ident { max: 48 }, description: "Only items with this tag." },
    Param {
        name: "ingredient_type",
        rule: Rule::Ident { max: 48 },
        description: "Only items with this ingredient type.",
    },
    Param {
        name: "can_be_sold",
        rule: Rule::Bool,
        description: "Only items the tavern can (or cannot) sell.",
    },
    Param { name: "can_be_aged", rule: Rule::Bool, description: "Only items that can (or cannot) be aged." },
    Param { name: "shop", rule: Rule::Key, description: "Only items this shop (id or slug) sells." },
    Param {
        name: "ids",
        rule: Rule::Ids,
        description: "Only these ids, in this order unless `sort` is given; unknown ids are left out, and so are unlisted items unless `include_unlisted=true` (`/v1/items/{key}` serves any item).",
    },
    Param {
        name: "include_unlisted",
        rule: Rule::Bool,
        description: "Also items the game hides from its catalogue (default false).",
    },
    Param {
        name: "sort",
        rule: Rule::Sort(ITEM_SORT_KEYS),
        description: "Sort keys, `-` for descending; ties break by id.",
    },
    Param {
        name: "fields",
        rule: Rule::Fields(ITEM_SUMMARY_FIELDS),
        description: "Only these top-level fields.",
    },
    VERSION,
    LANG,
    LIMIT,
    OFFSET,
];

const DETAIL_PARAMS: &[Param] = &[
    Param {
        name: "expand",
        rule: Rule::Expand(ITEM_EXPANSIONS),
        description: "Relations to include: `recipes` that make it, `shops` that sell it, ingredient `groups` it fills.",
    },
    Param {
        name: "fields",
        rule: Rule::Fields(ITEM_DETAIL_FIELDS),
        description: "Only these top-level fields.",
    },
    VERSION,
    LANG,
];

pub(super) const ENDPOINTS: &[Endpoint] = &[
    Endpoint {
        path: "/v1/items",
        key: None,
        summary: "Items, filtered, sorted and paged",
        example: Some("/v1/items?kind=drink&sort=-price&limit=2"),
        params: LIST_PARAMS,
        handler: list,
        data: schema::<Vec<ItemSummary>>,
    },
    Endpoint {
        path: "/v1/items/{key}",
        key: Some(KeyRule::Record),
        summary: "One item by id or slug",
        example: Some("/v1/items/pale-ale?expand=recipes,shops,groups"),
        params: DETAIL_PARAMS,
        handler: detail,
        data: schema::<ItemDetail>,
    },
];

/// `GET /v1/items`.
fn list(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let catalog = ctx.catalog()?;
    let q = &ctx.query;
    let vocabulary = &catalog.vocabulary;
    let shop = match q.key("shop") {
        Some(key) => Some(
            catalog
                .shop(key)
                .ok_or_else(|| {
                    ApiError::invalid("shop", format!("there is no shop {key} in {}", catalog.info.name))
                })?
                .id,
        ),
        None => None,
    };
    let filter = ItemFilter {
        kind: q.text("kind").and_then(|k| ItemKind::parse(k).ok()),
        category: ctx.known("category", &vocabulary.categories)?,
        tag: ctx.known("tag", &vocabulary.tags)?,
        ingredient_type: ctx.known("ingredient_type", &vocabulary.ingredient_types)?,
        can_be_sold: q.bool("can_be_sold"),
        can_be_aged: q.bool("can_be_aged"),
        shop,
        ids: q.ids(),
        include_unlisted: q.bool("include_unlisted").unwrap_or(false),
    };
    let sort = q.sort_with(|name| match name {
        "name" => ItemOrder::Name,
        "price" => ItemOrder::Price,
        _ => ItemOrder::Id,
    });
    let page = catalog.items(&filter, &sort, q.lang(), q.window());
    let mut loc = Localizer::new(catalog, q.lang());
    let data = loc.list(page.records.iter().copied(), ItemSummary::new);
    ctx.render_page(loc, data, page.total)
}

/// `GET /v1/items/{key}`.
fn detail(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let (catalog, item) = ctx.record("item", Catalog::item)?;
    let mut loc = Localizer::new(catalog, ctx.query.lang());
    let detail = ItemDetail::new(&mut loc, item, ctx.query.names("expand").unwrap_or_default());
    ctx.render(loc, detail)
}

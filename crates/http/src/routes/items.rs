//! `/v1/items` and `/v1/items/{key}`.

use tapster_domain::ItemKind;
use tapster_store::{Catalog, ItemFilter, ItemOrder};

use super::Ctx;
use crate::envelope::Localizer;
use crate::error::ApiError;
use crate::params::{LANG, LIMIT, OFFSET, Param, Rule, VERSION};
use crate::response::Reply;
use crate::value_sets;
use crate::views::{ITEM_DETAIL_FIELDS, ITEM_EXPANSIONS, ITEM_SUMMARY_FIELDS, ItemDetail, ItemSummary};

pub(super) const ITEM_SORT_KEYS: &[&str] = &["id", "name", "price"];

pub(super) const LIST_PARAMS: &[Param] = &[
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

pub(super) const DETAIL_PARAMS: &[Param] = &[
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

/// `GET /v1/items`.
pub(super) fn list(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
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
        category: known(q.text("category"), "category", &vocabulary.categories)?,
        tag: known(q.text("tag"), "tag", &vocabulary.tags)?,
        ingredient_type: known(q.text("ingredient_type"), "ingredient_type", &vocabulary.ingredient_types)?,
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
pub(super) fn detail(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let (catalog, item) = ctx.record("item", Catalog::item)?;
    let mut loc = Localizer::new(catalog, ctx.query.lang());
    let detail = ItemDetail::new(&mut loc, item, ctx.query.names("expand").unwrap_or_default());
    ctx.render(loc, detail)
}

/// A data-defined value the version must know: an unknown one is a `422` listing those it knows.
pub(super) fn known<'a>(
    value: Option<&'a str>,
    parameter: &str,
    values: &std::collections::BTreeSet<String>,
) -> Result<Option<&'a str>, ApiError> {
    match value {
        Some(v) if !values.contains(v) => Err(ApiError::invalid(
            parameter,
            format!(
                "has no value {v:?} in this game version; the values are {}",
                values.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", ")
            ),
        )),
        other => Ok(other),
    }
}

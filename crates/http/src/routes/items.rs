//! `/v1/items` and `/v1/items/{key}`.

use tapster_domain::{Ident, ItemKind, RecordId, RecordKey, VersionSelector};
use tapster_i18n::Language;
use tapster_store::{Catalog, ItemFilter, ItemOrder, Window};
use tapster_wire::{ItemDetail, ItemSummary};

use super::{Ctx, Endpoint, Handle, KeyRule};
use crate::error::ApiError;
use crate::params::{LANG, LIMIT, Named, OFFSET, Param, Rule, SortKeys, VERSION, query_params};
use crate::response::Reply;
use crate::schemas::schema;
use crate::value_sets;
use crate::views::{self, ITEM_DETAIL_FIELDS, ITEM_EXPANSIONS, ITEM_SUMMARY_FIELDS};

const ITEM_SORT_KEYS: &[&str] = &["id", "name", "price"];

query_params! {
    /// The query of `GET /v1/items`.
    struct ListParams {
        kind: Option<ItemKind> = Param {
            name: "kind",
            rule: Rule::Enum(&value_sets::ItemKind::SET),
            description: "Only items of this kind.",
        },
        category: Option<Named<Ident>> = Param {
            name: "category",
            rule: Rule::Ident { max: 48 },
            description: "Only items of this category (the data defines them).",
        },
        tag: Option<Named<Ident>> =
            Param { name: "tag", rule: Rule::Ident { max: 48 }, description: "Only items with this tag." },
        ingredient_type: Option<Named<Ident>> = Param {
            name: "ingredient_type",
            rule: Rule::Ident { max: 48 },
            description: "Only items with this ingredient type.",
        },
        can_be_sold: Option<bool> = Param {
            name: "can_be_sold",
            rule: Rule::Bool,
            description: "Only items the tavern can (or cannot) sell.",
        },
        can_be_aged: Option<bool> = Param {
            name: "can_be_aged",
            rule: Rule::Bool,
            description: "Only items that can (or cannot) be aged.",
        },
        shop: Option<Named<RecordKey>> =
            Param { name: "shop", rule: Rule::Key, description: "Only items this shop (id or slug) sells." },
        ids: Option<Vec<RecordId>> = Param {
            name: "ids",
            rule: Rule::Ids,
            description: "Only these ids, in this order unless `sort` is given; unknown ids are left out, and so are unlisted items unless `include_unlisted=true` (`/v1/items/{key}` serves any item).",
        },
        include_unlisted: bool = Param {
            name: "include_unlisted",
            rule: Rule::Bool,
            description: "Also items the game hides from its catalogue (default false).",
        },
        sort: SortKeys = Param {
            name: "sort",
            rule: Rule::Sort(ITEM_SORT_KEYS),
            description: "Sort keys, `-` for descending; ties break by id.",
        },
        fields: Option<Vec<&'static str>> = Param {
            name: "fields",
            rule: Rule::Fields(ITEM_SUMMARY_FIELDS),
            description: "Only these top-level fields.",
        },
        version: VersionSelector = VERSION,
        lang: Language = LANG,
        limit: u32 = LIMIT,
        offset: u32 = OFFSET,
    }
}

query_params! {
    /// The query of `GET /v1/items/{key}`.
    struct DetailParams {
        expand: Option<Vec<&'static str>> = Param {
            name: "expand",
            rule: Rule::Expand(ITEM_EXPANSIONS),
            description: "Relations to include: `recipes` that make it, `shops` that sell it, ingredient `groups` it fills.",
        },
        fields: Option<Vec<&'static str>> = Param {
            name: "fields",
            rule: Rule::Fields(ITEM_DETAIL_FIELDS),
            description: "Only these top-level fields.",
        },
        version: VersionSelector = VERSION,
        lang: Language = LANG,
    }
}

pub(super) const ENDPOINTS: &[Endpoint] = &[
    Endpoint {
        path: "/v1/items",
        key: None,
        summary: "Items, filtered, sorted and paged",
        example: Some("/v1/items?kind=drink&sort=-price&limit=2"),
        handler: &Handle(list),
        data: schema::<Vec<ItemSummary>>,
    },
    Endpoint {
        path: "/v1/items/{key}",
        key: Some(KeyRule::Record),
        summary: "One item by id or slug",
        example: Some("/v1/items/pale-ale?expand=recipes,shops,groups"),
        handler: &Handle(detail),
        data: schema::<ItemDetail>,
    },
];

/// `GET /v1/items`.
fn list(ctx: &Ctx<'_>, p: ListParams) -> Result<Reply, ApiError> {
    let catalog = ctx.catalog(&p.version)?;
    let vocabulary = &catalog.vocabulary;
    let shop = match &p.shop {
        Some(shop) => Some(
            catalog
                .shop(&shop.value)
                .ok_or_else(|| {
                    shop.invalid(format!("there is no shop {} in {}", shop.value, catalog.info.name))
                })?
                .id,
        ),
        None => None,
    };
    let filter = ItemFilter {
        kind: p.kind,
        category: p.category.as_ref().map(|c| c.known_in(&vocabulary.categories)).transpose()?,
        tag: p.tag.as_ref().map(|t| t.known_in(&vocabulary.tags)).transpose()?,
        ingredient_type: p
            .ingredient_type
            .as_ref()
            .map(|t| t.known_in(&vocabulary.ingredient_types))
            .transpose()?,
        can_be_sold: p.can_be_sold,
        can_be_aged: p.can_be_aged,
        shop,
        ids: p.ids.as_deref(),
        include_unlisted: p.include_unlisted,
    };
    let sort = p.sort.to_store(|name| match name {
        "name" => ItemOrder::Name,
        "price" => ItemOrder::Price,
        _ => ItemOrder::Id,
    });
    let window = Window { limit: p.limit, offset: p.offset };
    let page = catalog.items(&filter, &sort, p.lang, window);
    let mut loc = ctx.localizer(catalog, p.lang);
    let data = loc.list(page.records.iter().copied(), views::item_summary);
    ctx.render_page(loc, data, p.fields.as_deref(), window, page.total)
}

/// `GET /v1/items/{key}`.
fn detail(ctx: &Ctx<'_>, p: DetailParams) -> Result<Reply, ApiError> {
    let (catalog, item) = ctx.record("item", &p.version, Catalog::item)?;
    let mut loc = ctx.localizer(catalog, p.lang);
    let detail = views::item_detail(&mut loc, item, p.expand.as_deref().unwrap_or_default());
    ctx.render(loc, detail, p.fields.as_deref())
}

//! `/v1/recipes`, `/v1/recipes/{key}`, `/v1/ingredient-groups/{key}` and `/v1/crafters`.

use tapster_domain::{Ident, ItemKind, RecordId, RecordKey, VersionSelector};
use tapster_i18n::Language;
use tapster_store::{Catalog, RecipeFilter, RecipeOrder, Window};
use tapster_wire::{CraftingStation, IngredientGroup, RecipeDetail, RecipeSummary};

use super::{Ctx, Endpoint, Handle, KeyRule};
use crate::error::ApiError;
use crate::params::{LANG, LIMIT, Named, OFFSET, Param, Rule, SortKeys, VERSION, VersionLang, query_params};
use crate::response::Reply;
use crate::schemas::schema;
use crate::value_sets;
use crate::views::{self, RECIPE_SUMMARY_FIELDS};

const RECIPE_SORT_KEYS: &[&str] = &["id", "name", "time"];

query_params! {
    /// The query of `GET /v1/recipes`.
    struct ListParams {
        group: Option<Named<Ident>> = Param {
            name: "group",
            rule: Rule::Ident { max: 48 },
            description: "Only recipes of this recipe group, the station's tab (`brewing`, `baking`; the data defines them).",
        },
        page_name: Option<Named<Ident>> = Param {
            name: "page_name",
            rule: Rule::Ident { max: 48 },
            description: "Only recipes printed on this recipe-book page (`ales`, `soups`; the data defines them).",
        },
        unlock: Option<&'static str> = Param {
            name: "unlock",
            rule: Rule::Enum(&value_sets::UnlockKind::SET),
            description: "Only recipes unlocked this way.",
        },
        output_kind: Option<ItemKind> = Param {
            name: "output_kind",
            rule: Rule::Enum(&value_sets::ItemKind::SET),
            description: "Only recipes whose output item is of this kind.",
        },
        crafter: Option<Named<RecordKey>> = Param {
            name: "crafter",
            rule: Rule::Key,
            description: "Only recipes made at this crafting station (id or slug).",
        },
        ids: Option<Vec<RecordId>> = Param {
            name: "ids",
            rule: Rule::Ids,
            description: "Only these ids, in this order unless `sort` is given; unknown ids are left out, and so are replaced recipes unless `include_replaced=true` (`/v1/recipes/{key}` serves any recipe).",
        },
        include_replaced: bool = Param {
            name: "include_replaced",
            rule: Rule::Bool,
            description: "Also recipes a newer recipe supersedes (default false).",
        },
        sort: SortKeys = Param {
            name: "sort",
            rule: Rule::Sort(RECIPE_SORT_KEYS),
            description: "Sort keys, `-` for descending: `id`, `name`, `time` (crafting minutes); ties break by id.",
        },
        fields: Option<Vec<&'static str>> = Param {
            name: "fields",
            rule: Rule::Fields(RECIPE_SUMMARY_FIELDS),
            description: "Only these top-level fields.",
        },
        version: VersionSelector = VERSION,
        lang: Language = LANG,
        limit: u32 = LIMIT,
        offset: u32 = OFFSET,
    }
}

pub(super) const ENDPOINTS: &[Endpoint] = &[
    Endpoint {
        path: "/v1/recipes",
        key: None,
        summary: "Recipes, filtered, sorted and paged; replaced recipes only on request",
        example: Some("/v1/recipes?group=brewing&limit=2"),
        handler: &Handle(list),
        data: schema::<Vec<RecipeSummary>>,
    },
    Endpoint {
        path: "/v1/recipes/{key}",
        key: Some(KeyRule::Record),
        summary: "One recipe by id or slug, with its ingredients",
        example: Some("/v1/recipes/pale-ale"),
        handler: &Handle(detail),
        data: schema::<RecipeDetail>,
    },
    Endpoint {
        path: "/v1/ingredient-groups/{key}",
        key: Some(KeyRule::Record),
        summary: "One ingredient group by id or slug, with its members",
        example: Some("/v1/ingredient-groups/any-grain"),
        handler: &Handle(group),
        data: schema::<IngredientGroup>,
    },
    Endpoint {
        path: "/v1/crafters",
        key: None,
        summary: "Every crafting station, with the current recipes it makes",
        example: Some("/v1/crafters"),
        handler: &Handle(crafters),
        data: schema::<Vec<CraftingStation>>,
    },
];

/// `GET /v1/recipes`.
fn list(ctx: &Ctx<'_>, p: ListParams) -> Result<Reply, ApiError> {
    let catalog = ctx.catalog(&p.version)?;
    let vocabulary = &catalog.vocabulary;
    let station = match &p.crafter {
        Some(crafter) => Some(
            catalog
                .station(&crafter.value)
                .ok_or_else(|| {
                    crafter.invalid(format!(
                        "there is no crafting station {} in {}",
                        crafter.value, catalog.info.name
                    ))
                })?
                .id,
        ),
        None => None,
    };
    let filter = RecipeFilter {
        group: p.group.as_ref().map(|g| g.known_in(&vocabulary.recipe_groups)).transpose()?,
        page_name: p.page_name.as_ref().map(|n| n.known_in(&vocabulary.page_names)).transpose()?,
        unlock: p.unlock,
        output_kind: p.output_kind,
        station,
        ids: p.ids.as_deref(),
        include_replaced: p.include_replaced,
    };
    let sort = p.sort.to_store(|name| match name {
        "name" => RecipeOrder::Name,
        "time" => RecipeOrder::Time,
        _ => RecipeOrder::Id,
    });
    let window = Window { limit: p.limit, offset: p.offset };
    let page = catalog.recipe_list(&filter, &sort, p.lang, window);
    let mut loc = ctx.localizer(catalog, p.lang);
    let data = loc.list(page.records.iter().copied(), views::recipe_summary);
    ctx.render_page(loc, data, p.fields.as_deref(), window, page.total)
}

/// `GET /v1/recipes/{key}`.
fn detail(ctx: &Ctx<'_>, p: VersionLang) -> Result<Reply, ApiError> {
    let (catalog, recipe) = ctx.record("recipe", &p.version, Catalog::recipe)?;
    let mut loc = ctx.localizer(catalog, p.lang);
    let detail = views::recipe_detail(&mut loc, recipe);
    ctx.render(loc, detail, None)
}

/// `GET /v1/ingredient-groups/{key}`.
fn group(ctx: &Ctx<'_>, p: VersionLang) -> Result<Reply, ApiError> {
    let (catalog, group) = ctx.record("ingredient group", &p.version, Catalog::group)?;
    let mut loc = ctx.localizer(catalog, p.lang);
    let view = views::ingredient_group(&mut loc, group);
    ctx.render(loc, view, None)
}

/// `GET /v1/crafters`.
fn crafters(ctx: &Ctx<'_>, p: VersionLang) -> Result<Reply, ApiError> {
    let catalog = ctx.catalog(&p.version)?;
    let mut loc = ctx.localizer(catalog, p.lang);
    let data = loc.list(catalog.data.crafting_stations.iter(), views::crafting_station);
    ctx.render(loc, data, None)
}

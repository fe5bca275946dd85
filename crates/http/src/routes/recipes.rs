//! `/v1/recipes`, `/v1/recipes/{key}`, `/v1/ingredient-groups/{key}` and `/v1/crafters`.

use tapster_domain::ItemKind;
use tapster_store::{Catalog, RecipeFilter, RecipeOrder};

use super::{Ctx, Endpoint, KeyRule};
use crate::envelope::Localizer;
use crate::error::ApiError;
use crate::openapi::schema;
use crate::params::{LANG, LIMIT, OFFSET, Param, Rule, VERSION};
use crate::response::Reply;
use crate::value_sets;
use crate::views::recipes::{
    CraftingStationView, IngredientGroupView, RECIPE_SUMMARY_FIELDS, RecipeDetail, RecipeSummary,
};

const RECIPE_SORT_KEYS: &[&str] = &["id", "name", "time"];

const LIST_PARAMS: &[Param] = &[
    Param {
        name: "group",
        rule: Rule::Ident { max: 48 },
        description: "Only recipes of this recipe group, the station's tab (`brewing`, `baking`; the data defines them).",
    },
    Param {
        name: "page_name",
        rule: Rule::Ident { max: 48 },
        description: "Only recipes printed on this recipe-book page (`ales`, `soups`; the data defines them).",
    },
    Param {
        name: "unlock",
        rule: Rule::Enum(&value_sets::UnlockKind::SET),
        description: "Only recipes unlocked this way.",
    },
    Param {
        name: "output_kind",
        rule: Rule::Enum(&value_sets::ItemKind::SET),
        description: "Only recipes whose output item is of this kind.",
    },
    Param {
        name: "crafter",
        rule: Rule::Key,
        description: "Only recipes made at this crafting station (id or slug).",
    },
    Param {
        name: "ids",
        rule: Rule::Ids,
        description: "Only these ids, in this order unless `sort` is given; unknown ids are left out, and so are replaced recipes unless `include_replaced=true` (`/v1/recipes/{key}` serves any recipe).",
    },
    Param {
        name: "include_replaced",
        rule: Rule::Bool,
        description: "Also recipes a newer recipe supersedes (default false).",
    },
    Param {
        name: "sort",
        rule: Rule::Sort(RECIPE_SORT_KEYS),
        description: "Sort keys, `-` for descending: `id`, `name`, `time` (crafting minutes); ties break by id.",
    },
    Param {
        name: "fields",
        rule: Rule::Fields(RECIPE_SUMMARY_FIELDS),
        description: "Only these top-level fields.",
    },
    VERSION,
    LANG,
    LIMIT,
    OFFSET,
];

const ONE_PARAMS: &[Param] = &[VERSION, LANG];

pub(super) const ENDPOINTS: &[Endpoint] = &[
    Endpoint {
        path: "/v1/recipes",
        key: None,
        summary: "Recipes, filtered, sorted and paged; replaced recipes only on request",
        example: Some("/v1/recipes?group=brewing&limit=2"),
        params: LIST_PARAMS,
        handler: list,
        data: schema::<Vec<RecipeSummary>>,
    },
    Endpoint {
        path: "/v1/recipes/{key}",
        key: Some(KeyRule::Record),
        summary: "One recipe by id or slug, with its ingredients",
        example: Some("/v1/recipes/pale-ale"),
        params: ONE_PARAMS,
        handler: detail,
        data: schema::<RecipeDetail>,
    },
    Endpoint {
        path: "/v1/ingredient-groups/{key}",
        key: Some(KeyRule::Record),
        summary: "One ingredient group by id or slug, with its members",
        example: Some("/v1/ingredient-groups/any-grain"),
        params: ONE_PARAMS,
        handler: group,
        data: schema::<IngredientGroupView>,
    },
    Endpoint {
        path: "/v1/crafters",
        key: None,
        summary: "Every crafting station, with the current recipes it makes",
        example: Some("/v1/crafters"),
        params: ONE_PARAMS,
        handler: crafters,
        data: schema::<Vec<CraftingStationView>>,
    },
];

/// `GET /v1/recipes`.
fn list(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let catalog = ctx.catalog()?;
    let q = &ctx.query;
    let vocabulary = &catalog.vocabulary;
    let station = match q.key("crafter") {
        Some(key) => Some(
            catalog
                .station(key)
                .ok_or_else(|| {
                    ApiError::invalid(
                        "crafter",
                        format!("there is no crafting station {key} in {}", catalog.info.name),
                    )
                })?
                .id,
        ),
        None => None,
    };
    let filter = RecipeFilter {
        group: ctx.known("group", &vocabulary.recipe_groups)?,
        page_name: ctx.known("page_name", &vocabulary.page_names)?,
        unlock: q.text("unlock"),
        output_kind: q.text("output_kind").and_then(|k| ItemKind::parse(k).ok()),
        station,
        ids: q.ids(),
        include_replaced: q.bool("include_replaced").unwrap_or(false),
    };
    let sort = q.sort_with(|name| match name {
        "name" => RecipeOrder::Name,
        "time" => RecipeOrder::Time,
        _ => RecipeOrder::Id,
    });
    let page = catalog.recipe_list(&filter, &sort, q.lang(), q.window());
    let mut loc = Localizer::new(catalog, q.lang());
    let data = loc.list(page.records.iter().copied(), RecipeSummary::new);
    ctx.render_page(loc, data, page.total)
}

/// `GET /v1/recipes/{key}`.
fn detail(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let (catalog, recipe) = ctx.record("recipe", Catalog::recipe)?;
    let mut loc = Localizer::new(catalog, ctx.query.lang());
    let detail = RecipeDetail::new(&mut loc, recipe);
    ctx.render(loc, detail)
}

/// `GET /v1/ingredient-groups/{key}`.
fn group(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let (catalog, group) = ctx.record("ingredient group", Catalog::group)?;
    let mut loc = Localizer::new(catalog, ctx.query.lang());
    let view = IngredientGroupView::new(&mut loc, group);
    ctx.render(loc, view)
}

/// `GET /v1/crafters`.
fn crafters(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let catalog = ctx.catalog()?;
    let mut loc = Localizer::new(catalog, ctx.query.lang());
    let data = loc.list(catalog.data.crafting_stations.iter(), CraftingStationView::new);
    ctx.render(loc, data)
}

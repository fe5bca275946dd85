//! Relations between records: ingredient trees, what an item is used in, where it comes from.
//! `/v1/recipes/{key}/tree`, `/v1/items/{key}/used-in` and `/v1/items/{key}/sources`.

use tapster_pricing::IngredientChoice;

use super::{Ctx, Endpoint, KeyRule};
use crate::envelope::Localizer;
use crate::error::ApiError;
use crate::openapi::schema;
use crate::params::{LANG, LIMIT, OFFSET, Param, Rule, VERSION};
use crate::response::Reply;
use crate::value_sets;
use crate::views::relations::{SourcesView, TreeItemNode, TreeNode, UsedIn};
use tapster_store::Catalog;

const TREE_PARAMS: &[Param] = &[
    Param {
        name: "ingredients",
        rule: Rule::Enum(&value_sets::IngredientChoice::SET),
        description: "Which member fills each ingredient group, all the way down: `cheapest` (the default, lowest value) or `expensive` (highest value); ties go to the lower id.",
    },
    VERSION,
    LANG,
];

const USED_IN_PARAMS: &[Param] = &[VERSION, LANG, LIMIT, OFFSET];

const SOURCES_PARAMS: &[Param] = &[VERSION, LANG];

pub(super) const ENDPOINTS: &[Endpoint] = &[
    Endpoint {
        path: "/v1/recipes/{key}/tree",
        key: Some(KeyRule::Record),
        summary: "The ingredient tree of one craft of a recipe, down to raw materials",
        example: Some("/v1/recipes/pale-ale/tree"),
        params: TREE_PARAMS,
        handler: tree,
        data: schema::<TreeNode>,
    },
    Endpoint {
        path: "/v1/items/{key}/used-in",
        key: Some(KeyRule::Record),
        summary: "The current recipes that take an item, by name or through an ingredient group",
        example: Some("/v1/items/barley/used-in?limit=2"),
        params: USED_IN_PARAMS,
        handler: used_in,
        data: schema::<Vec<UsedIn>>,
    },
    Endpoint {
        path: "/v1/items/{key}/sources",
        key: Some(KeyRule::Record),
        summary: "Everywhere an item comes from: shops, recipes, crops, fish, rewards and letters",
        example: Some("/v1/items/barley/sources"),
        params: SOURCES_PARAMS,
        handler: sources,
        data: schema::<SourcesView>,
    },
];

/// `GET /v1/recipes/{key}/tree`.
fn tree(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let (catalog, recipe) = ctx.record("recipe", Catalog::recipe)?;
    let choice = ctx.query.text("ingredients").and_then(IngredientChoice::parse).unwrap_or_default();
    let tree = catalog.ingredient_tree(recipe, choice);
    let mut loc = Localizer::new(catalog, ctx.query.lang());
    let view = TreeNode::Item(TreeItemNode::new(&mut loc, &tree, "/data"));
    ctx.render(loc, view)
}

/// `GET /v1/items/{key}/used-in`.
fn used_in(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let (catalog, item) = ctx.record("item", Catalog::item)?;
    let page = catalog.used_in(item.id, ctx.query.window());
    let mut loc = Localizer::new(catalog, ctx.query.lang());
    let data = loc.list(page.uses.iter(), UsedIn::new);
    ctx.render_page(loc, data, page.total)
}

/// `GET /v1/items/{key}/sources`.
fn sources(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let (catalog, item) = ctx.record("item", Catalog::item)?;
    let sources = catalog.sources(item.id);
    let mut loc = Localizer::new(catalog, ctx.query.lang());
    let view = SourcesView::new(&mut loc, item.id, &sources);
    ctx.render(loc, view)
}

//! Relations between records: ingredient trees, what an item is used in, where it comes from.
//! `/v1/recipes/{key}/tree`, `/v1/items/{key}/used-in` and `/v1/items/{key}/sources`.

use tapster_domain::VersionSelector;
use tapster_i18n::Language;
use tapster_pricing::IngredientChoice;
use tapster_store::{Catalog, Window};
use tapster_wire::{Sources, TreeNode, UsedIn};

use super::{Ctx, Endpoint, Handle, KeyRule};
use crate::error::ApiError;
use crate::params::{LANG, Param, Rule, VERSION, VersionLang, VersionLangPage, query_params};
use crate::response::Reply;
use crate::schemas::schema;
use crate::value_sets;
use crate::views;

query_params! {
    /// The query of `GET /v1/recipes/{key}/tree`.
    struct TreeParams {
        ingredients: IngredientChoice = Param {
            name: "ingredients",
            rule: Rule::Enum(&value_sets::IngredientChoice::SET),
            description: "Which member fills each ingredient group, all the way down: `cheapest` (the default, lowest value) or `expensive` (highest value); ties go to the lower id.",
        },
        version: VersionSelector = VERSION,
        lang: Language = LANG,
    }
}

pub(super) const ENDPOINTS: &[Endpoint] = &[
    Endpoint {
        path: "/v1/recipes/{key}/tree",
        key: Some(KeyRule::Record),
        summary: "The ingredient tree of one craft of a recipe, down to raw materials",
        example: Some("/v1/recipes/pale-ale/tree"),
        handler: &Handle(tree),
        data: schema::<TreeNode>,
    },
    Endpoint {
        path: "/v1/items/{key}/used-in",
        key: Some(KeyRule::Record),
        summary: "The current recipes that take an item, by name or through an ingredient group",
        example: Some("/v1/items/barley/used-in?limit=2"),
        handler: &Handle(used_in),
        data: schema::<Vec<UsedIn>>,
    },
    Endpoint {
        path: "/v1/items/{key}/sources",
        key: Some(KeyRule::Record),
        summary: "Everywhere an item comes from: shops, recipes, crops, fish, rewards and letters",
        example: Some("/v1/items/barley/sources"),
        handler: &Handle(sources),
        data: schema::<Sources>,
    },
];

/// `GET /v1/recipes/{key}/tree`.
fn tree(ctx: &Ctx<'_>, p: TreeParams) -> Result<Reply, ApiError> {
    let (catalog, recipe) = ctx.record("recipe", &p.version, Catalog::recipe)?;
    let tree = catalog.ingredient_tree(recipe, p.ingredients);
    let mut loc = ctx.localizer(catalog, p.lang);
    let view = TreeNode::Item(views::tree_item_node(&mut loc, &tree, "/data"));
    ctx.render(loc, view, None)
}

/// `GET /v1/items/{key}/used-in`.
fn used_in(ctx: &Ctx<'_>, p: VersionLangPage) -> Result<Reply, ApiError> {
    let (catalog, item) = ctx.record("item", &p.version, Catalog::item)?;
    let window = Window { limit: p.limit, offset: p.offset };
    let page = catalog.used_in(item.id, window);
    let mut loc = ctx.localizer(catalog, p.lang);
    let data = loc.list(page.uses.iter(), views::used_in);
    ctx.render_page(loc, data, None, window, page.total)
}

/// `GET /v1/items/{key}/sources`.
fn sources(ctx: &Ctx<'_>, p: VersionLang) -> Result<Reply, ApiError> {
    let (catalog, item) = ctx.record("item", &p.version, Catalog::item)?;
    let sources = catalog.sources(item.id);
    let mut loc = ctx.localizer(catalog, p.lang);
    let view = views::sources(&mut loc, item.id, &sources);
    ctx.render(loc, view, None)
}

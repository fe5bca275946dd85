//! Ingredient trees, used-in and sources as clients see them: every record named (id, slug, localized
//! name), values as price objects, seasons by name. Each list keeps the order the catalog gives it,
//! which the field's description states.

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;
use tapster_domain::{ItemId, RecordId};
use tapster_pricing::Copper;
use tapster_store::{ItemSources, ItemUse, TreeEntry, TreeGroup, TreeItem, UseVia};

use super::{ItemStack, MilestoneRef, Price, ProgressionRef, RecordRef, season_names};
use crate::envelope::Localizer;
use crate::value_sets;

/// `TreeNode`: one node of an ingredient tree, told apart by `kind`. An `item` node is an item and
/// how it is made; a `group` node is an ingredient group ("Any Malt") and the member that fills it.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
#[schemars(rename = "TreeNode")]
pub(crate) enum TreeNode {
    Item(TreeItemNode),
    Group(TreeGroupNode),
}

/// An item in an ingredient tree: how many units are needed, what one is worth, and the recipe and
/// crafts that make them, with what those crafts take.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct TreeItemNode {
    /// Always `item`.
    #[schemars(schema_with = "item_kind_schema")]
    kind: &'static str,
    /// The item.
    item: RecordRef,
    /// Units needed at this level: at the root, the units one craft of the recipe makes; below,
    /// the crafts of the parent item times the ingredient's amount per craft.
    amount: u64,
    /// The value of one unit under the requested ingredient choice.
    unit_value: Price,
    /// The recipe that makes it: at the root the requested recipe, below it the recipe the pricing
    /// rules use for the item (the lowest-id recipe not replaced); `null` for a raw material.
    recipe: Option<RecordRef>,
    /// Crafts of `recipe` needed for `amount`: `amount` divided by the units one craft makes,
    /// rounded up; `null` for a raw material.
    crafts: Option<u64>,
    /// `true` when `children` was left out although the item is crafted: it would repeat an item
    /// above it (a cycle), or the tree reached its limit of 32 levels or 5000 item nodes.
    truncated: bool,
    /// What the crafts take, in the recipe's order of ingredients; empty for a raw material.
    children: Vec<TreeNode>,
}

/// An ingredient group in an ingredient tree: its members and the one the ingredient choice picks.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct TreeGroupNode {
    /// Always `group`.
    #[schemars(schema_with = "group_kind_schema")]
    kind: &'static str,
    /// The group.
    group: RecordRef,
    /// Units needed, of any member: the crafts of the parent item times the amount per craft.
    amount: u64,
    /// Every member, in the group's order, with its unit value under the ingredient choice.
    members: Vec<TreeMember>,
    /// The member the choice picks (`cheapest`: lowest value; `expensive`: highest; ties to the lower
    /// id), as an `item` node of the same `amount`, expanded further; `null` for an empty group.
    chosen: Option<Box<TreeItemNode>>,
}

/// A member of an ingredient group in a tree.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct TreeMember {
    /// The member item.
    item: RecordRef,
    /// The value of one unit under the ingredient choice.
    unit_value: Price,
}

impl TreeItemNode {
    /// `at` is the JSON Pointer of this node in the body.
    pub(crate) fn new(loc: &mut Localizer<'_>, node: &TreeItem, at: &str) -> Self {
        let item = RecordRef::item_by_id(loc, node.item, &format!("{at}/item"));
        let recipe = node.recipe.map(|id| recipe_ref(loc, id, &format!("{at}/recipe")));
        let children = node
            .children
            .iter()
            .enumerate()
            .map(|(i, child)| {
                let at = format!("{at}/children/{i}");
                match child {
                    TreeEntry::Item(child) => TreeNode::Item(Self::new(loc, child, &at)),
                    TreeEntry::Group(group) => TreeNode::Group(TreeGroupNode::new(loc, group, &at)),
                }
            })
            .collect();
        Self {
            kind: "item",
            item,
            amount: node.amount,
            unit_value: price(node.unit_value),
            recipe,
            crafts: node.crafts,
            truncated: node.truncated,
            children,
        }
    }
}

impl TreeGroupNode {
    fn new(loc: &mut Localizer<'_>, node: &TreeGroup, at: &str) -> Self {
        let group = group_ref(loc, node.group, &format!("{at}/group"));
        let members = node
            .members
            .iter()
            .enumerate()
            .map(|(j, &(item, value))| TreeMember {
                item: RecordRef::item_by_id(loc, item, &format!("{at}/members/{j}/item")),
                unit_value: price(value),
            })
            .collect();
        let chosen =
            node.chosen.as_ref().map(|c| Box::new(TreeItemNode::new(loc, c, &format!("{at}/chosen"))));
        Self { kind: "group", group, amount: node.amount, members, chosen }
    }
}

/// `UsedIn`: a current recipe (one no newer recipe replaces) that takes an item, by name or through
/// an ingredient group the item belongs to.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct UsedIn {
    /// The recipe.
    recipe: RecordRef,
    /// What the recipe makes, and how many units one craft makes.
    output: ItemStack,
    /// Units one craft takes: of the item when `via` is `item`, of any members of `group` when
    /// `via` is `group`.
    amount: u32,
    /// `item` when the recipe names the item itself, `group` when it asks for a group the item fills.
    #[schemars(schema_with = "via_schema")]
    via: &'static str,
    /// The group the item fills for this recipe; `null` when `via` is `item`.
    group: Option<RecordRef>,
}

impl UsedIn {
    /// `at` is the JSON Pointer of this object in the body.
    pub(crate) fn new(loc: &mut Localizer<'_>, used: &ItemUse<'_>, at: &str) -> Self {
        let recipe = used.recipe;
        Self {
            recipe: RecordRef::new(
                loc,
                recipe.id,
                recipe.slug.as_str(),
                &recipe.name_key,
                &format!("{at}/recipe"),
            ),
            output: ItemStack::new(loc, &recipe.output, &format!("{at}/output")),
            amount: used.amount,
            via: match used.via {
                UseVia::Item => "item",
                UseVia::Group(_) => "group",
            },
            group: match used.via {
                UseVia::Item => None,
                UseVia::Group(group) => Some(group_ref(loc, group, &format!("{at}/group"))),
            },
        }
    }
}

/// `Sources`: everywhere an item comes from. Every list is present, empty when there is no such
/// source.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Sources")]
pub(crate) struct SourcesView {
    /// The item.
    item: RecordRef,
    /// Shops that sell it: by shop id (then the shop's catalogue order).
    shops: Vec<ShopSource>,
    /// Every recipe that makes it, replaced ones included and flagged: by recipe id.
    recipes: Vec<RecipeSource>,
    /// Crops whose harvest it is: by crop id.
    crops: Vec<CropSource>,
    /// Fish whose catch it is: by fish id.
    fish: Vec<FishSource>,
    /// Quests that reward it: by quest key, as `/v1/quests` lists them.
    quest_rewards: Vec<QuestReward>,
    /// Reputation milestones that reward it: by level.
    reputation_rewards: Vec<ReputationReward>,
    /// Missions that reward it: by mission key.
    mission_rewards: Vec<MissionReward>,
    /// Letters that come with it: by letter key.
    letter_attachments: Vec<LetterAttachment>,
    /// Where it is gathered in the world (foraged, mined, given by animals), in the game data's order.
    gathering: Vec<GatheringSource>,
}

/// A way of gathering the item in the world.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct GatheringSource {
    /// `foraging`, `mining` or `animal`.
    #[schemars(with = "value_sets::GatherMethod")]
    method: &'static str,
    /// Where, or from what, as the game data names it: a place (`old_mine`) or an animal (`hen`).
    from: String,
    /// The seasons it can be gathered in; empty for all year.
    #[schemars(with = "Vec<value_sets::Season>")]
    seasons: Vec<&'static str>,
}

/// A shop that sells the item.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ShopSource {
    /// The shop.
    shop: RecordRef,
    /// What the shop charges for one unit.
    price: Price,
    /// The seasons it is on offer; empty for all year.
    #[schemars(with = "Vec<value_sets::Season>")]
    seasons: Vec<&'static str>,
}

/// A recipe that makes the item.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RecipeSource {
    /// The recipe.
    recipe: RecordRef,
    /// Units one craft makes.
    amount: u32,
    /// Whether a newer recipe supersedes this one.
    replaced: bool,
}

/// A crop whose harvest is the item.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct CropSource {
    /// The crop.
    crop: RecordRef,
    /// The least one harvest yields.
    min: u32,
    /// The most one harvest yields.
    max: u32,
    /// The seasons it grows in.
    #[schemars(with = "Vec<value_sets::Season>")]
    seasons: Vec<&'static str>,
}

/// A fish whose catch is the item (its name is the item's name).
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct FishSource {
    /// The fish's id, as `/v1/fish` lists it.
    id: RecordId,
    /// Where it lives: `FreshWater`, `SaltWater` or `MineWater`.
    #[schemars(with = "value_sets::Water")]
    water: &'static str,
    /// What it bites on: `Meat`, `Larva`, `Worm`, `Seafood` or `Artificial`.
    #[schemars(with = "value_sets::Bait")]
    bait: &'static str,
    /// 0 (everywhere) to 10 (legendary).
    #[schemars(range(min = 0, max = 10))]
    rarity: u8,
    /// The seasons it bites in.
    #[schemars(with = "Vec<value_sets::Season>")]
    seasons: Vec<&'static str>,
}

/// A quest that rewards the item.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct QuestReward {
    quest: ProgressionRef,
    /// Units given.
    amount: u32,
}

/// A reputation milestone that rewards the item.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ReputationReward {
    milestone: MilestoneRef,
    /// Units given.
    amount: u32,
}

/// A mission that rewards the item.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct MissionReward {
    mission: ProgressionRef,
    /// Units given.
    amount: u32,
}

/// A letter that comes with the item.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct LetterAttachment {
    letter: ProgressionRef,
    /// Units attached.
    amount: u32,
}

impl SourcesView {
    pub(crate) fn new(loc: &mut Localizer<'_>, item: ItemId, sources: &ItemSources<'_>) -> Self {
        let item = RecordRef::item_by_id(loc, item, "/data/item");
        let shops = sources
            .shops
            .iter()
            .enumerate()
            .map(|(i, (shop, entry))| {
                let at = format!("/data/shops/{i}/shop");
                let shop = RecordRef::new(loc, shop.id, shop.slug.as_str(), &shop.name_key, &at);
                ShopSource { shop, price: Price::new(entry.price), seasons: season_names(&entry.seasons) }
            })
            .collect();
        let recipes = sources
            .recipes
            .iter()
            .enumerate()
            .map(|(i, r)| RecipeSource {
                recipe: RecordRef::new(
                    loc,
                    r.id,
                    r.slug.as_str(),
                    &r.name_key,
                    &format!("/data/recipes/{i}/recipe"),
                ),
                amount: r.output.amount,
                replaced: r.replaced_by.is_some(),
            })
            .collect();
        let crops = sources
            .crops
            .iter()
            .enumerate()
            .map(|(i, c)| CropSource {
                crop: RecordRef::new(
                    loc,
                    c.id,
                    c.slug.as_str(),
                    &c.name_key,
                    &format!("/data/crops/{i}/crop"),
                ),
                min: c.harvest.min,
                max: c.harvest.max,
                seasons: season_names(&c.seasons),
            })
            .collect();
        let fish = sources
            .fish
            .iter()
            .map(|f| FishSource {
                id: f.id,
                water: f.water.as_str(),
                bait: f.bait.as_str(),
                rarity: f.rarity.get(),
                seasons: season_names(&f.seasons),
            })
            .collect();
        let quest_rewards = sources
            .quests
            .iter()
            .enumerate()
            .map(|(i, (q, amount))| QuestReward {
                quest: ProgressionRef::new(
                    loc,
                    &q.key,
                    &q.name_key,
                    &format!("/data/quest_rewards/{i}/quest"),
                ),
                amount: *amount,
            })
            .collect();
        let reputation_rewards = sources
            .reputation
            .iter()
            .enumerate()
            .map(|(i, (m, amount))| ReputationReward {
                milestone: MilestoneRef::new(loc, m, &format!("/data/reputation_rewards/{i}/milestone")),
                amount: *amount,
            })
            .collect();
        let mission_rewards = sources
            .missions
            .iter()
            .enumerate()
            .map(|(i, (m, amount))| MissionReward {
                mission: ProgressionRef::new(
                    loc,
                    &m.key,
                    &m.name_key,
                    &format!("/data/mission_rewards/{i}/mission"),
                ),
                amount: *amount,
            })
            .collect();
        let letter_attachments = sources
            .letters
            .iter()
            .enumerate()
            .map(|(i, (l, amount))| LetterAttachment {
                letter: ProgressionRef::new(
                    loc,
                    &l.key,
                    &l.name_key,
                    &format!("/data/letter_attachments/{i}/letter"),
                ),
                amount: *amount,
            })
            .collect();
        let gathering = sources
            .gathering
            .iter()
            .map(|g| GatheringSource {
                method: g.method.as_str(),
                from: g.from.to_string(),
                seasons: season_names(&g.seasons),
            })
            .collect();
        Self {
            item,
            shops,
            recipes,
            crops,
            fish,
            quest_rewards,
            reputation_rewards,
            mission_rewards,
            letter_attachments,
            gathering,
        }
    }
}

fn recipe_ref(loc: &mut Localizer<'_>, id: RecordId, at: &str) -> RecordRef {
    match loc.catalog.recipe_by_id(id) {
        Some(recipe) => RecordRef::new(loc, recipe.id, recipe.slug.as_str(), &recipe.name_key, at),
        None => RecordRef::dangling(id),
    }
}

fn group_ref(loc: &mut Localizer<'_>, id: RecordId, at: &str) -> RecordRef {
    match loc.catalog.group_by_id(id) {
        Some(group) => RecordRef::new(loc, group.id, group.slug.as_str(), &group.name_key, at),
        None => RecordRef::dangling(id),
    }
}

fn price(value: Copper) -> Price {
    Price::new(value.0)
}

fn item_kind_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "string", "const": "item" })
}

fn group_kind_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "string", "const": "group" })
}

fn via_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "string", "enum": ["item", "group"] })
}

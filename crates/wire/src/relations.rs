//! The relations around an item: its ingredient tree, what uses it, and where it comes from.

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{Error as _, Unexpected};
use serde::{Deserialize, Deserializer, Serialize};

use crate::*;

/// `TreeNode`: one node of an ingredient tree, told apart by `kind`. An `item` node is an item and
/// how it is made; a `group` node is an ingredient group ("Any Malt") and the member that fills it.
///
/// Each node type reads only its own `kind`, so that a node of a kind this crate does not know is
/// read as `Unknown` rather than mistaken for one it knows, and a damaged node of a known kind is
/// an error rather than `Unknown`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(rename = "TreeNode")]
#[non_exhaustive]
pub enum TreeNode {
    Item(TreeItemNode),
    Group(TreeGroupNode),
    /// A node of a `kind` this crate does not know yet: a newer server's tree still reads, without
    /// this node's fields.
    #[schemars(skip)]
    Unknown {
        #[serde(deserialize_with = "unknown_kind")]
        kind: String,
    },
}

/// An item in an ingredient tree: how many units are needed, what one is worth, and the recipe and
/// crafts that make them, with what those crafts take.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TreeItemNode {
    /// Always `item`.
    #[schemars(schema_with = "item_kind_schema")]
    #[serde(deserialize_with = "item_kind")]
    pub kind: String,
    /// The item.
    pub item: RecordRef,
    /// Units needed at this level: at the root, the units one craft of the recipe makes; below,
    /// the crafts of the parent item times the ingredient's amount per craft.
    pub amount: u64,
    /// The value of one unit under the requested ingredient choice.
    pub unit_value: Price,
    /// The recipe that makes it: at the root the requested recipe, below it the recipe the pricing
    /// rules use for the item (the lowest-id recipe not replaced); `null` for a raw material.
    pub recipe: Option<RecordRef>,
    /// Crafts of `recipe` needed for `amount`: `amount` divided by the units one craft makes,
    /// rounded up; `null` for a raw material.
    pub crafts: Option<u64>,
    /// `true` when `children` was left out although the item is crafted: it would repeat an item
    /// above it (a cycle), or the tree reached its limit of 32 levels or 5000 item nodes.
    pub truncated: bool,
    /// What the crafts take, in the recipe's order of ingredients; empty for a raw material.
    pub children: Vec<TreeNode>,
}

/// An ingredient group in an ingredient tree: its members and the one the ingredient choice picks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TreeGroupNode {
    /// Always `group`.
    #[schemars(schema_with = "group_kind_schema")]
    #[serde(deserialize_with = "group_kind")]
    pub kind: String,
    /// The group.
    pub group: RecordRef,
    /// Units needed, of any member: the crafts of the parent item times the amount per craft.
    pub amount: u64,
    /// Every member, in the group's order, with its unit value under the ingredient choice.
    pub members: Vec<TreeMember>,
    /// The member the choice picks (`cheapest`: lowest value; `expensive`: highest; ties to the lower
    /// id), as an `item` node of the same `amount`, expanded further; `null` for an empty group.
    pub chosen: Option<Box<TreeItemNode>>,
}

/// A member of an ingredient group in a tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TreeMember {
    /// The member item.
    pub item: RecordRef,
    /// The value of one unit under the ingredient choice.
    pub unit_value: Price,
}

/// `UsedIn`: a current recipe (one no newer recipe replaces) that takes an item, by name or through
/// an ingredient group the item belongs to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UsedIn {
    /// The recipe.
    pub recipe: RecordRef,
    /// What the recipe makes, and how many units one craft makes.
    pub output: ItemStack,
    /// Units one craft takes: of the item when `via` is `item`, of any members of `group` when
    /// `via` is `group`.
    pub amount: u32,
    /// `item` when the recipe names the item itself, `group` when it asks for a group the item fills.
    #[schemars(schema_with = "via_schema")]
    pub via: String,
    /// The group the item fills for this recipe; `null` when `via` is `item`.
    pub group: Option<RecordRef>,
}

/// `Sources`: everywhere an item comes from. Every list is present, empty when there is no such
/// source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Sources {
    /// The item.
    pub item: RecordRef,
    /// Shops that sell it: by shop id (then the shop's catalogue order).
    pub shops: Vec<ShopSource>,
    /// Every recipe that makes it, replaced ones included and flagged: by recipe id.
    pub recipes: Vec<RecipeSource>,
    /// Crops whose harvest it is: by crop id.
    pub crops: Vec<CropSource>,
    /// Fish whose catch it is: by fish id.
    pub fish: Vec<FishSource>,
    /// Quests that reward it: by quest key, as `/v1/quests` lists them.
    pub quest_rewards: Vec<QuestReward>,
    /// Reputation milestones that reward it: by level.
    pub reputation_rewards: Vec<ReputationReward>,
    /// Missions that reward it: by mission key.
    pub mission_rewards: Vec<MissionReward>,
    /// Letters that come with it: by letter key.
    pub letter_attachments: Vec<LetterAttachment>,
    /// Where it is gathered in the world (foraged, mined, given by animals), in the game data's order.
    pub gathering: Vec<GatheringSource>,
}

/// A way of gathering the item in the world.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GatheringSource {
    /// `foraging`, `mining` or `animal`.
    pub method: GatherMethod,
    /// Where, or from what, as the game data names it: a place (`old_mine`) or an animal (`hen`).
    pub from: String,
    /// The seasons it can be gathered in; empty for all year.
    pub seasons: Vec<Season>,
}

/// A shop that sells the item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ShopSource {
    /// The shop.
    pub shop: RecordRef,
    /// What the shop charges for one unit.
    pub price: Price,
    /// The seasons it is on offer; empty for all year.
    pub seasons: Vec<Season>,
}

/// A recipe that makes the item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RecipeSource {
    /// The recipe.
    pub recipe: RecordRef,
    /// Units one craft makes.
    pub amount: u32,
    /// Whether a newer recipe supersedes this one.
    pub replaced: bool,
}

/// A crop whose harvest is the item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CropSource {
    /// The crop.
    pub crop: RecordRef,
    /// The least one harvest yields.
    pub min: u32,
    /// The most one harvest yields.
    pub max: u32,
    /// The seasons it grows in.
    pub seasons: Vec<Season>,
}

/// A fish whose catch is the item (its name is the item's name).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FishSource {
    /// The fish's id, as `/v1/fish` lists it.
    pub id: i64,
    /// Where it lives: `FreshWater`, `SaltWater` or `MineWater`.
    pub water: Water,
    /// What it bites on: `Meat`, `Larva`, `Worm`, `Seafood` or `Artificial`.
    pub bait: Bait,
    /// 0 (everywhere) to 10 (legendary).
    #[schemars(range(min = 0, max = 10))]
    pub rarity: u8,
    /// The seasons it bites in.
    pub seasons: Vec<Season>,
}

/// A quest that rewards the item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QuestReward {
    pub quest: ProgressionRef,
    /// Units given.
    pub amount: u32,
}

/// A reputation milestone that rewards the item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReputationReward {
    pub milestone: MilestoneRef,
    /// Units given.
    pub amount: u32,
}

/// A mission that rewards the item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MissionReward {
    pub mission: ProgressionRef,
    /// Units given.
    pub amount: u32,
}

/// A letter that comes with the item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LetterAttachment {
    pub letter: ProgressionRef,
    /// Units attached.
    pub amount: u32,
}

/// The `kind` of a tree node, which must be `expected`.
fn node_kind<'de, D: Deserializer<'de>>(deserializer: D, expected: &'static str) -> Result<String, D::Error> {
    let kind = String::deserialize(deserializer)?;
    if kind == expected { Ok(kind) } else { Err(D::Error::invalid_value(Unexpected::Str(&kind), &expected)) }
}

fn item_kind<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    node_kind(deserializer, "item")
}

fn group_kind<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    node_kind(deserializer, "group")
}

/// The `kind` of a node of [`TreeNode::Unknown`]: any but the ones this crate knows.
fn unknown_kind<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let kind = String::deserialize(deserializer)?;
    match kind.as_str() {
        "item" | "group" => {
            Err(D::Error::invalid_value(Unexpected::Str(&kind), &"a kind other than `item` and `group`"))
        }
        _ => Ok(kind),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: &str) -> Result<TreeNode, serde_json::Error> {
        serde_json::from_str(json)
    }

    #[test]
    fn each_node_is_read_by_its_kind_and_a_new_kind_is_kept_as_unknown() {
        let malt = r#"{"id": 3, "slug": "malt", "name": "Malt"}"#;
        let price = r#"{"copper": 5, "display": "0s 5c"}"#;
        let item = format!(
            r#"{{"kind": "item", "item": {malt}, "amount": 2, "unit_value": {price}, "recipe": null,
            "crafts": null, "truncated": false, "children": []}}"#
        );
        let group =
            format!(r#"{{"kind": "group", "group": {malt}, "amount": 2, "members": [], "chosen": {item}}}"#);
        let TreeNode::Item(node) = read(&item).unwrap() else { panic!("{item}") };
        assert_eq!((node.item.slug.as_str(), node.amount), ("malt", 2));
        let TreeNode::Group(node) = read(&group).unwrap() else { panic!("{group}") };
        assert_eq!(node.chosen.map(|chosen| chosen.item.id), Some(3));

        // A kind a newer server added, even with an item's fields: not mistaken for an item.
        let newer = item.replacen(r#""kind": "item""#, r#""kind": "currency""#, 1);
        assert_eq!(read(&newer).unwrap(), TreeNode::Unknown { kind: "currency".to_owned() });
        // A damaged node of a known kind is an error, not a node of an unknown kind.
        assert!(read(r#"{"kind": "item", "amount": 2}"#).is_err());
        assert!(read(&item.replacen(r#""kind": "item""#, r#""kind": "group""#, 1)).is_err());
    }
}

//! Ingredient trees, used-in and sources as clients see them: every record named (id, slug, localized
//! name), values as price objects, seasons by name. Each list keeps the order the catalog gives it,
//! which the wire type's field description states.

use tapster_domain::{ItemId, RecordId};
use tapster_store::{ItemSources, ItemUse, TreeEntry, TreeGroup, TreeItem, UseVia};
use tapster_wire::{
    self as wire, CropSource, FishSource, GatheringSource, LetterAttachment, MissionReward, QuestReward,
    RecipeSource, ReputationReward, ShopSource, Sources, TreeGroupNode, TreeItemNode, TreeMember, TreeNode,
    UsedIn,
};

use super::*;
use crate::envelope::Localizer;

/// `at` is the JSON Pointer of this node in the body.
pub(crate) fn tree_item_node(loc: &mut Localizer<'_>, node: &TreeItem, at: &str) -> TreeItemNode {
    let item = item_ref_by_id(loc, node.item, &format!("{at}/item"));
    let recipe = node.recipe.map(|id| recipe_ref(loc, id, &format!("{at}/recipe")));
    let children = node
        .children
        .iter()
        .enumerate()
        .map(|(i, child)| {
            let at = format!("{at}/children/{i}");
            match child {
                TreeEntry::Item(child) => TreeNode::Item(tree_item_node(loc, child, &at)),
                TreeEntry::Group(group) => TreeNode::Group(tree_group_node(loc, group, &at)),
            }
        })
        .collect();
    TreeItemNode {
        kind: "item".to_owned(),
        item,
        amount: node.amount,
        unit_value: price(node.unit_value),
        recipe,
        crafts: node.crafts,
        truncated: node.truncated,
        children,
    }
}

pub(crate) fn tree_group_node(loc: &mut Localizer<'_>, node: &TreeGroup, at: &str) -> TreeGroupNode {
    let group = group_ref(loc, node.group, &format!("{at}/group"));
    let members = node
        .members
        .iter()
        .enumerate()
        .map(|(j, &(item, value))| TreeMember {
            item: item_ref_by_id(loc, item, &format!("{at}/members/{j}/item")),
            unit_value: price(value),
        })
        .collect();
    let chosen = node.chosen.as_ref().map(|c| Box::new(tree_item_node(loc, c, &format!("{at}/chosen"))));
    TreeGroupNode { kind: "group".to_owned(), group, amount: node.amount, members, chosen }
}

/// `at` is the JSON Pointer of this object in the body.
pub(crate) fn used_in(loc: &mut Localizer<'_>, used: &ItemUse<'_>, at: &str) -> UsedIn {
    let recipe = used.recipe;
    UsedIn {
        recipe: record_ref(loc, recipe.id, recipe.slug.as_str(), &recipe.name_key, &format!("{at}/recipe")),
        output: item_stack(loc, &recipe.output, &format!("{at}/output")),
        amount: used.amount,
        via: match used.via {
            UseVia::Item => "item",
            UseVia::Group(_) => "group",
        }
        .to_owned(),
        group: match used.via {
            UseVia::Item => None,
            UseVia::Group(group) => Some(group_ref(loc, group, &format!("{at}/group"))),
        },
    }
}

pub(crate) fn sources(loc: &mut Localizer<'_>, item: ItemId, sources: &ItemSources<'_>) -> Sources {
    let item = item_ref_by_id(loc, item, "/data/item");
    let shops = sources
        .shops
        .iter()
        .enumerate()
        .map(|(i, (shop, entry))| {
            let at = format!("/data/shops/{i}/shop");
            let shop = record_ref(loc, shop.id, shop.slug.as_str(), &shop.name_key, &at);
            ShopSource { shop, price: price_of(entry.price), seasons: seasons(&entry.seasons) }
        })
        .collect();
    let recipes = sources
        .recipes
        .iter()
        .enumerate()
        .map(|(i, r)| RecipeSource {
            recipe: record_ref(loc, r.id, r.slug.as_str(), &r.name_key, &format!("/data/recipes/{i}/recipe")),
            amount: r.output.amount,
            replaced: r.replaced_by.is_some(),
        })
        .collect();
    let crops = sources
        .crops
        .iter()
        .enumerate()
        .map(|(i, c)| CropSource {
            crop: record_ref(loc, c.id, c.slug.as_str(), &c.name_key, &format!("/data/crops/{i}/crop")),
            min: c.harvest.min,
            max: c.harvest.max,
            seasons: seasons(&c.seasons),
        })
        .collect();
    let fish = sources
        .fish
        .iter()
        .map(|f| FishSource {
            id: f.id,
            water: wire::Water::parse(f.water.as_str()),
            bait: wire::Bait::parse(f.bait.as_str()),
            rarity: f.rarity.get(),
            seasons: seasons(&f.seasons),
        })
        .collect();
    let quest_rewards = sources
        .quests
        .iter()
        .enumerate()
        .map(|(i, (q, amount))| QuestReward {
            quest: progression_ref(loc, &q.key, &q.name_key, &format!("/data/quest_rewards/{i}/quest")),
            amount: *amount,
        })
        .collect();
    let reputation_rewards = sources
        .reputation
        .iter()
        .enumerate()
        .map(|(i, (m, amount))| ReputationReward {
            milestone: milestone_ref(loc, m, &format!("/data/reputation_rewards/{i}/milestone")),
            amount: *amount,
        })
        .collect();
    let mission_rewards = sources
        .missions
        .iter()
        .enumerate()
        .map(|(i, (m, amount))| MissionReward {
            mission: progression_ref(loc, &m.key, &m.name_key, &format!("/data/mission_rewards/{i}/mission")),
            amount: *amount,
        })
        .collect();
    let letter_attachments = sources
        .letters
        .iter()
        .enumerate()
        .map(|(i, (l, amount))| LetterAttachment {
            letter: progression_ref(
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
            method: wire::GatherMethod::parse(g.method.as_str()),
            from: g.from.to_string(),
            seasons: seasons(&g.seasons),
        })
        .collect();
    Sources {
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

fn recipe_ref(loc: &mut Localizer<'_>, id: RecordId, at: &str) -> RecordRef {
    match loc.catalog.recipe_by_id(id) {
        Some(recipe) => record_ref(loc, recipe.id, recipe.slug.as_str(), &recipe.name_key, at),
        None => dangling_ref(id),
    }
}

fn group_ref(loc: &mut Localizer<'_>, id: RecordId, at: &str) -> RecordRef {
    match loc.catalog.group_by_id(id) {
        Some(group) => record_ref(loc, group.id, group.slug.as_str(), &group.name_key, at),
        None => dangling_ref(id),
    }
}

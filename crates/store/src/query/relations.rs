//! Relations between records: the ingredient tree of a recipe down to raw materials, the recipes an
//! item goes into, and everywhere an item comes from (shops, recipes, crops, fish, rewards, letters).
//! Each list comes in a stable, documented order, so that answers and their pages never shift.

use tapster_domain::{
    CatalogueEntry, Crop, Fish, Gathering, Input, ItemId, Letter, Mission, Quest, Recipe, RecordId,
    ReputationMilestone, Shop,
};
use tapster_pricing::{Copper, IngredientChoice};

use super::{ProgressionSet, Window};
use crate::Catalog;

/// Item levels a tree goes down at most; a node that would go deeper is cut off (`truncated`).
pub const TREE_MAX_DEPTH: usize = 32;

/// Item nodes a tree holds at most; past this budget, nodes are cut off (`truncated`). The bundled
/// data's largest tree is far below it; it only stops a pathological dataset from blowing up.
pub const TREE_MAX_NODES: usize = 5_000;

/// One entry of an ingredient tree: an item, or an ingredient group filled by one of its members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreeEntry {
    Item(TreeItem),
    Group(TreeGroup),
}

/// An item of an ingredient tree, how many units are needed, and how they are made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeItem {
    pub item: ItemId,
    /// Units needed at this level: the crafts of the parent times the ingredient's amount.
    pub amount: u64,
    /// The value of one unit under the ingredient choice.
    pub unit_value: Copper,
    /// The recipe that makes it: the requested recipe at the root, below it the recipe the pricing
    /// rules use; `None` for a raw material.
    pub recipe: Option<RecordId>,
    /// Crafts of `recipe` needed for `amount` (rounded up); `None` without a recipe.
    pub crafts: Option<u64>,
    /// Whether the children were left out: the item repeats an ancestor (a cycle, which import
    /// forbids), or the tree reached [`TREE_MAX_DEPTH`] or [`TREE_MAX_NODES`].
    pub truncated: bool,
    /// What one batch of `crafts` takes, in the recipe's order; empty for a raw material.
    pub children: Vec<TreeEntry>,
}

/// An ingredient group in a tree: its members and the one the ingredient choice picks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeGroup {
    pub group: RecordId,
    /// Units needed, of any member.
    pub amount: u64,
    /// Every member with its unit value under the choice, in the group's order.
    pub members: Vec<(ItemId, Copper)>,
    /// The member the choice picks, expanded further; `None` for a group without members.
    pub chosen: Option<Box<TreeItem>>,
}

impl TreeItem {
    /// How many levels of items the tree has from this node down (1 for a leaf).
    pub fn depth(&self) -> usize {
        1 + self
            .children
            .iter()
            .map(|child| match child {
                TreeEntry::Item(item) => item.depth(),
                TreeEntry::Group(group) => group.chosen.as_ref().map_or(0, |c| c.depth()),
            })
            .max()
            .unwrap_or(0)
    }
}

/// How a recipe asks for an item: by name, or through an ingredient group it belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UseVia {
    Item,
    Group(RecordId),
}

/// A recipe that uses an item, and how much of it (or of the group) one craft takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemUse<'a> {
    pub recipe: &'a Recipe,
    pub amount: u32,
    pub via: UseVia,
}

/// One page of the recipes that use an item, and how many uses there are in all.
#[derive(Debug)]
pub struct ItemUsePage<'a> {
    pub uses: Vec<ItemUse<'a>>,
    pub total: u64,
}

/// Everywhere an item comes from. Each list is in the order its field says.
#[derive(Debug, Default)]
pub struct ItemSources<'a> {
    /// Shops selling it, with their catalogue entry: by shop id, then the catalogue's order.
    pub shops: Vec<(&'a Shop, &'a CatalogueEntry)>,
    /// Every recipe making it, replaced ones included: by recipe id.
    pub recipes: Vec<&'a Recipe>,
    /// Crops whose harvest it is: by crop id.
    pub crops: Vec<&'a Crop>,
    /// Fish whose catch it is: by fish id.
    pub fish: Vec<&'a Fish>,
    /// Quests rewarding it, with the units given: by quest key, as quest lists order them.
    pub quests: Vec<(&'a Quest, u32)>,
    /// Reputation milestones rewarding it: by level.
    pub reputation: Vec<(&'a ReputationMilestone, u32)>,
    /// Missions rewarding it: by mission key.
    pub missions: Vec<(&'a Mission, u32)>,
    /// Letters carrying it: by letter key.
    pub letters: Vec<(&'a Letter, u32)>,
    /// Where it is gathered in the world, in the item's own order.
    pub gathering: &'a [Gathering],
}

impl Catalog {
    /// The ingredient tree of one craft of `recipe` under `choice`: the root is the recipe's output
    /// (amount: the units one craft makes, 1 craft); below, each item is made by the recipe the
    /// pricing rules use for it, and a group by the member the choice picks.
    pub fn ingredient_tree(&self, recipe: &Recipe, choice: IngredientChoice) -> TreeItem {
        let mut builder = TreeBuilder { catalog: self, choice, path: Vec::new(), nodes: 0 };
        builder.item(recipe.output.item, u64::from(recipe.output.amount), Some(recipe))
    }

    /// A page of the recipes not replaced by a newer one that use `item`, by name or through an
    /// ingredient group: by recipe id, then uses by name before uses through a group, then in the
    /// recipe's order of ingredients.
    pub fn used_in(&self, item: ItemId, window: Window) -> ItemUsePage<'_> {
        let mut recipes: Vec<&Recipe> =
            self.data.recipes.iter().filter(|r| r.replaced_by.is_none()).collect();
        recipes.sort_by_key(|r| r.id);
        let mut uses = Vec::new();
        for recipe in recipes {
            let direct = recipe.ingredients.iter().filter(|i| i.input == Input::Item(item));
            uses.extend(direct.map(|i| ItemUse { recipe, amount: i.amount, via: UseVia::Item }));
            let grouped = recipe.ingredients.iter().filter_map(|i| match i.input {
                Input::Group(group) if self.group_by_id(group).is_some_and(|g| g.members.contains(&item)) => {
                    Some(ItemUse { recipe, amount: i.amount, via: UseVia::Group(group) })
                }
                _ => None,
            });
            uses.extend(grouped);
        }
        let total = uses.len() as u64;
        let uses = uses.into_iter().skip(window.offset as usize).take(window.limit as usize).collect();
        ItemUsePage { uses, total }
    }

    /// Everywhere `item` comes from.
    pub fn sources(&self, item: ItemId) -> ItemSources<'_> {
        let data = &self.data;
        let mut shops: Vec<(&Shop, &CatalogueEntry)> = data
            .shops
            .iter()
            .flat_map(|shop| shop.catalogue.iter().filter(|e| e.item == item).map(move |e| (shop, e)))
            .collect();
        shops.sort_by_key(|(shop, _)| shop.id);
        let mut recipes: Vec<&Recipe> = data.recipes.iter().filter(|r| r.output.item == item).collect();
        recipes.sort_by_key(|r| r.id);
        let mut crops: Vec<&Crop> = data.crops.iter().filter(|c| c.harvest.item == item).collect();
        crops.sort_by_key(|c| c.id);
        let mut fish: Vec<&Fish> = data.fish.iter().filter(|f| f.item == item).collect();
        fish.sort_by_key(|f| f.id);
        ItemSources {
            shops,
            recipes,
            crops,
            fish,
            quests: giving(&data.quests, item, |q| &q.rewards.items),
            reputation: giving(&data.reputation, item, |m| &m.rewards.items),
            missions: giving(&data.missions, item, |m| &m.rewards.items),
            letters: giving(&data.letters, item, |l| &l.attachments),
            gathering: self.item_by_id(item).map_or(&[], |record| &record.gathering),
        }
    }
}

/// The records of `records` whose stacks include `item`, with the units given (summed over stacks),
/// in the list order of their type.
fn giving<R: ProgressionSet>(
    records: &[R],
    item: ItemId,
    stacks: impl Fn(&R) -> &[tapster_domain::ItemAmount],
) -> Vec<(&R, u32)> {
    let mut found: Vec<(&R, u32)> = records
        .iter()
        .filter_map(|r| {
            let mut matching = stacks(r).iter().filter(|s| s.item == item).peekable();
            matching.peek()?;
            Some((r, matching.fold(0u32, |sum, s| sum.saturating_add(s.amount))))
        })
        .collect();
    found.sort_by(|(a, _), (b, _)| R::order(a, b));
    found
}

/// Builds a tree depth first, keeping the path of items above the current node and a node budget.
struct TreeBuilder<'a> {
    catalog: &'a Catalog,
    choice: IngredientChoice,
    path: Vec<ItemId>,
    nodes: usize,
}

impl TreeBuilder<'_> {
    /// The node of `amount` units of `item`, made by `recipe` (`None`: a raw material).
    fn item(&mut self, item: ItemId, amount: u64, recipe: Option<&Recipe>) -> TreeItem {
        self.nodes += 1;
        let catalog = self.catalog;
        let unit_value = match catalog.prices.unit_values(item) {
            Some(values) => values.get(self.choice),
            None => Copper(catalog.item_by_id(item).map_or(0, |i| i.base_price)),
        };
        let crafts = recipe.map(|r| amount.div_ceil(u64::from(r.output.amount.max(1))));
        let mut node = TreeItem {
            item,
            amount,
            unit_value,
            recipe: recipe.map(|r| r.id),
            crafts,
            truncated: false,
            children: Vec::new(),
        };
        let Some(recipe) = recipe else { return node };
        if self.path.contains(&item) || self.path.len() + 1 >= TREE_MAX_DEPTH || self.nodes >= TREE_MAX_NODES
        {
            node.truncated = true;
            return node;
        }
        let crafts = crafts.unwrap_or(1);
        self.path.push(item);
        node.children = recipe
            .ingredients
            .iter()
            .map(|ingredient| {
                let amount = crafts.saturating_mul(u64::from(ingredient.amount));
                match ingredient.input {
                    Input::Item(child) => TreeEntry::Item(self.made(child, amount)),
                    Input::Group(group) => TreeEntry::Group(self.group(group, amount)),
                }
            })
            .collect();
        self.path.pop();
        node
    }

    /// The node of `amount` units of `item`, made by the recipe the pricing rules use for it.
    fn made(&mut self, item: ItemId, amount: u64) -> TreeItem {
        let recipe = self.catalog.prices.recipe_of(item).and_then(|id| self.catalog.recipe_by_id(id));
        self.item(item, amount, recipe)
    }

    fn group(&mut self, group: RecordId, amount: u64) -> TreeGroup {
        let catalog = self.catalog;
        let choice = self.choice;
        let members = catalog.group_by_id(group).map(|g| g.members.as_slice()).unwrap_or_default();
        let members: Vec<(ItemId, Copper)> = members
            .iter()
            .map(|&m| {
                let value = match catalog.prices.unit_values(m) {
                    Some(values) => values.get(choice),
                    None => Copper(catalog.item_by_id(m).map_or(0, |i| i.base_price)),
                };
                (m, value)
            })
            .collect();
        let picked = catalog.prices.chosen_member(group, choice).or_else(|| pick(&members, choice));
        let chosen = picked.map(|m| Box::new(self.made(m, amount)));
        TreeGroup { group, amount, members, chosen }
    }
}

/// The member the choice picks, by the rule of the pricing crate (lowest or highest value, ties to
/// the lower id); only used should the price book not know the group.
fn pick(members: &[(ItemId, Copper)], choice: IngredientChoice) -> Option<ItemId> {
    let order = |a: &&(ItemId, Copper), b: &&(ItemId, Copper)| match choice {
        IngredientChoice::Cheapest => a.1.cmp(&b.1).then(a.0.cmp(&b.0)),
        IngredientChoice::Expensive => b.1.cmp(&a.1).then(a.0.cmp(&b.0)),
    };
    members.iter().min_by(|a, b| order(a, b)).map(|(id, _)| *id)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use tapster_domain::{GameData, Ingredient, ItemAmount, Slug};

    use super::*;
    use crate::VersionInfo;

    /// The latest version of the store's small dataset, with `edit` applied, as a catalog.
    fn mini(edit: impl FnOnce(&mut GameData)) -> Catalog {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/mini/v1.0.1.0.0");
        let mut data = crate::read_dataset(&dir).unwrap().remove(0).data;
        edit(&mut data);
        let manifest = &data.manifest;
        let info = VersionInfo {
            name: manifest.game_version.clone(),
            build_id: manifest.build_id,
            released: manifest.released,
            latest: true,
            previous: None,
            changes: None,
            counts: Default::default(),
            languages: Vec::new(),
        };
        Catalog::new(info, data, Default::default(), Default::default())
    }

    /// A recipe making `amount` of `output` from `ingredients`, otherwise like recipe 100.
    fn recipe(data: &GameData, id: RecordId, output: ItemId, ingredients: &[(ItemId, u32)]) -> Recipe {
        let mut recipe = data.recipes.iter().find(|r| r.id == 100).unwrap().clone();
        recipe.id = id;
        recipe.slug = Slug::parse(&format!("recipe-{id}")).unwrap();
        recipe.output = ItemAmount { item: output, amount: 1 };
        recipe.ingredients = ingredients
            .iter()
            .map(|&(item, amount)| Ingredient { input: Input::Item(item), amount })
            .collect();
        recipe
    }

    fn leaf(node: &TreeItem) -> &TreeItem {
        match node.children.first() {
            Some(TreeEntry::Item(child)) => leaf(child),
            _ => node,
        }
    }

    #[test]
    fn an_item_repeating_an_ancestor_is_cut_off() {
        // Barley made from pale malt, which is malted from barley: a cycle import would refuse.
        let catalog = mini(|data| {
            let cycle = recipe(data, 900, 10, &[(11, 1)]);
            data.recipes.push(cycle);
        });
        let malt = catalog.recipe_by_id(100).unwrap();
        let tree = catalog.ingredient_tree(malt, IngredientChoice::Cheapest);
        let barley = match &tree.children[..] {
            [TreeEntry::Item(barley)] => barley,
            other => panic!("{other:?}"),
        };
        assert_eq!((barley.item, barley.amount, barley.recipe, barley.truncated), (10, 2, Some(900), false));
        let again = match &barley.children[..] {
            [TreeEntry::Item(malt)] => malt,
            other => panic!("{other:?}"),
        };
        assert_eq!((again.item, again.amount, again.crafts), (11, 2, Some(2)));
        assert!(again.truncated && again.children.is_empty());
    }

    #[test]
    fn a_tree_stops_at_its_depth_limit() {
        // A chain of 40 recipes, each item made from one of the item before.
        let catalog = mini(|data| {
            let template = data.items.iter().find(|i| i.id == 10).unwrap().clone();
            for k in 0..40 {
                let mut item = template.clone();
                item.id = 10_000 + k;
                item.slug = Slug::parse(&format!("chain-{k}")).unwrap();
                data.items.push(item);
                if k > 0 {
                    let made = recipe(data, 20_000 + k, 10_000 + k, &[(10_000 + k - 1, 1)]);
                    data.recipes.push(made);
                }
            }
        });
        let top = catalog.recipe_by_id(20_039).unwrap();
        let tree = catalog.ingredient_tree(top, IngredientChoice::Expensive);
        assert_eq!(tree.depth(), TREE_MAX_DEPTH);
        let bottom = leaf(&tree);
        assert!(bottom.truncated && bottom.children.is_empty() && bottom.recipe.is_some());
        // A shallower chain is not cut.
        let short = catalog.recipe_by_id(20_010).unwrap();
        let tree = catalog.ingredient_tree(short, IngredientChoice::Cheapest);
        assert_eq!(tree.depth(), 11);
        assert!(!leaf(&tree).truncated && leaf(&tree).recipe.is_none());
    }

    #[test]
    fn used_in_lists_direct_uses_before_group_uses_of_one_recipe() {
        // A recipe asking for bright hops both by name and through "Any Hops".
        let catalog = mini(|data| {
            let mut both = recipe(data, 900, 16, &[(12, 3)]);
            both.ingredients.insert(0, Ingredient { input: Input::Group(200), amount: 1 });
            data.recipes.push(both);
        });
        let page = catalog.used_in(12, Window { limit: 50, offset: 0 });
        let uses: Vec<(RecordId, UseVia, u32)> =
            page.uses.iter().map(|u| (u.recipe.id, u.via, u.amount)).collect();
        assert_eq!(
            uses,
            [(101, UseVia::Group(200), 1), (900, UseVia::Item, 3), (900, UseVia::Group(200), 1)]
        );
        assert_eq!(page.total, 3);
        let second = catalog.used_in(12, Window { limit: 1, offset: 1 });
        assert_eq!((second.uses[0].recipe.id, second.total), (900, 3));
    }
}

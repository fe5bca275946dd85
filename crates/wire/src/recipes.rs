//! Recipes, ingredient groups and crafting stations.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::*;

/// `RecipeSummary`: what lists show of a recipe.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RecipeSummary {
    pub id: i64,
    pub slug: String,
    /// The recipe's name: that of the item it makes.
    pub name: String,
    /// The item made, and how many units one craft makes.
    pub output: ItemStack,
    /// The crafting station that makes it.
    pub station: RecordRef,
    /// Crafting time in game minutes.
    pub craft_minutes: u32,
    /// Fuel units one craft burns at its station; 0 where the station burns none.
    pub fuel: u32,
    /// Days the output spends in a cellar to reach each aging rank; `null` where the game has none.
    pub aging_days: Option<AgingDaysView>,
    /// Recipe group, the station's tab in the game (`brewing`, `baking`).
    pub group: String,
    /// Recipe-book page it is printed on (`ales`, `soups`).
    pub page_name: String,
    /// How the player learns it.
    pub unlock: RecipeUnlock,
    /// The newer recipe that supersedes this one; `null` when it is current.
    pub replaced_by: Option<RecordRef>,
    /// The game version the recipe first appeared in.
    pub introduced_in: Option<String>,
}

/// Days of cellar aging, counted from the craft, after which the output reaches each rank of the
/// `aging` parameter of `/v1/items/{key}/price` (`none` is the day it is made).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AgingDaysView {
    pub young: u32,
    pub aged: u32,
    pub reserve: u32,
    pub grand_reserve: u32,
}

/// How a recipe is unlocked, as lists show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RecipeUnlock {
    pub kind: UnlockKind,
    /// Key of the progression record that unlocks it; `null` for `default`.
    pub key: Option<String>,
}

/// `RecipeDetail`: the summary's fields, the ingredients, the unlocking record's name and the
/// recipes this one replaced.
///
/// Unlike `ItemDetail`, it does not flatten its summary: its `ingredients` stand between `output`
/// and `station`, and its `unlock` is a [`RecipeUnlockDetail`] (with the name) where the summary's is
/// a [`RecipeUnlock`], so a flattened summary would serve other JSON (members moved, and two
/// `unlock`s) than the API has always served.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RecipeDetail {
    pub id: i64,
    pub slug: String,
    /// The recipe's name: that of the item it makes.
    pub name: String,
    /// The item made, and how many units one craft makes.
    pub output: ItemStack,
    /// What one craft takes, in the game's order: a particular item, or any member of a group.
    pub ingredients: Vec<RecipeIngredient>,
    /// The crafting station that makes it.
    pub station: RecordRef,
    /// Crafting time in game minutes.
    pub craft_minutes: u32,
    /// Fuel units one craft burns at its station; 0 where the station burns none.
    pub fuel: u32,
    /// Days the output spends in a cellar to reach each aging rank; `null` where the game has none.
    pub aging_days: Option<AgingDaysView>,
    /// Recipe group, the station's tab in the game (`brewing`, `baking`).
    pub group: String,
    /// Recipe-book page it is printed on (`ales`, `soups`).
    pub page_name: String,
    /// How the player learns it, with the unlocking record's name.
    pub unlock: RecipeUnlockDetail,
    /// The newer recipe that supersedes this one; `null` when it is current.
    pub replaced_by: Option<RecordRef>,
    /// The older recipes this one supersedes, by id.
    pub replaces: Vec<RecordRef>,
    /// The game version the recipe first appeared in.
    pub introduced_in: Option<String>,
}

/// One ingredient of a recipe: `{"kind": "item", "item": {...}, "amount": n}` or
/// `{"kind": "group", "group": {...}, "amount": n}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RecipeIngredient {
    /// One particular item.
    Item {
        item: RecordRef,
        /// Units one craft takes.
        amount: u32,
    },
    /// Any member of an ingredient group.
    Group {
        group: IngredientGroupRef,
        /// Units one craft takes, of any members.
        amount: u32,
    },
    /// A `kind` this crate does not know yet: a newer server's answer still reads, without this
    /// record's fields.
    #[serde(other)]
    #[schemars(skip)]
    Unknown,
}

/// An ingredient group as a recipe names it, with its members.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IngredientGroupRef {
    pub id: i64,
    pub slug: String,
    pub name: String,
    /// The items that fill the group.
    pub members: Vec<RecordRef>,
}

/// How a recipe is unlocked, with the name of the record that unlocks it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RecipeUnlockDetail {
    pub kind: UnlockKind,
    /// Key of the progression record that unlocks it (`/v1/{kind}s/{key}`); `null` for `default`.
    pub key: Option<String>,
    /// That record's localized name; `null` for `default`.
    pub name: Option<String>,
}

/// `IngredientGroup`: a group such as "Any Malt", its members and how many recipes ask for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IngredientGroup {
    pub id: i64,
    pub slug: String,
    pub name: String,
    /// The items that fill the group, in the game's order.
    pub members: Vec<IngredientGroupMember>,
    /// How many recipes of this version ask for the group (replaced recipes included).
    pub used_by: u64,
    /// The game version the group first appeared in.
    pub introduced_in: Option<String>,
}

/// A member of an ingredient group, with the price that makes one member cheaper than another.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IngredientGroupMember {
    pub id: i64,
    pub slug: String,
    pub name: String,
    /// The game's value of one unit.
    pub base_price: Price,
}

/// `CraftingStation`: a station and the current recipes it makes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CraftingStation {
    pub id: i64,
    pub slug: String,
    pub name: String,
    pub description: Option<String>,
    /// The recipes made here that no newer recipe supersedes, by id.
    pub recipes: Vec<RecordRef>,
    /// How many entries `recipes` has.
    pub recipe_count: u64,
    /// The game version the station first appeared in.
    pub introduced_in: Option<String>,
}

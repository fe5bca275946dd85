//! Recipes, ingredient groups and crafting stations: the recipe summary that lists show, the detail of
//! one recipe with its ingredients, one ingredient group with its members, and the crafting stations.
//! Every reference carries id, slug and localized name, so no second request is needed.

use schemars::JsonSchema;
use serde::Serialize;
use tapster_domain::{
    AgingDays, CraftingStation, IngredientGroup, Input, Item, Recipe, RecordId, RecordType, Unlock,
};

use super::{ItemStack, Price, RecordRef, introduced};
use crate::envelope::Localizer;
use crate::value_sets;

/// Top-level fields of `RecipeSummary`, for `fields`.
pub(crate) const RECIPE_SUMMARY_FIELDS: &[&str] = &[
    "id",
    "slug",
    "name",
    "output",
    "station",
    "craft_minutes",
    "fuel",
    "aging_days",
    "group",
    "page_name",
    "unlock",
    "replaced_by",
    "introduced_in",
];

/// `RecipeSummary`: what lists show of a recipe.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RecipeSummary {
    id: RecordId,
    slug: String,
    /// The recipe's name: that of the item it makes.
    name: String,
    /// The item made, and how many units one craft makes.
    output: ItemStack,
    /// The crafting station that makes it.
    station: RecordRef,
    /// Crafting time in game minutes.
    craft_minutes: u32,
    /// Fuel units one craft burns at its station; 0 where the station burns none.
    fuel: u32,
    /// Days the output spends in a cellar to reach each aging rank; `null` where the game has none.
    aging_days: Option<AgingDaysView>,
    /// Recipe group, the station's tab in the game (`brewing`, `baking`).
    group: String,
    /// Recipe-book page it is printed on (`ales`, `soups`).
    page_name: String,
    /// How the player learns it.
    unlock: RecipeUnlock,
    /// The newer recipe that supersedes this one; `null` when it is current.
    replaced_by: Option<RecordRef>,
    /// The game version the recipe first appeared in.
    introduced_in: Option<String>,
}

/// Days of cellar aging, counted from the craft, after which the output reaches each rank of the
/// `aging` parameter of `/v1/items/{key}/price` (`none` is the day it is made).
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct AgingDaysView {
    young: u32,
    aged: u32,
    reserve: u32,
    grand_reserve: u32,
}

impl From<AgingDays> for AgingDaysView {
    fn from(days: AgingDays) -> Self {
        Self { young: days.young, aged: days.aged, reserve: days.reserve, grand_reserve: days.grand_reserve }
    }
}

/// How a recipe is unlocked, as lists show it.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RecipeUnlock {
    #[schemars(with = "value_sets::UnlockKind")]
    kind: &'static str,
    /// Key of the progression record that unlocks it; `null` for `default`.
    key: Option<String>,
}

impl RecipeUnlock {
    fn new(unlock: &Unlock) -> Self {
        Self { kind: unlock.kind(), key: unlock_key(unlock).map(str::to_owned) }
    }
}

fn unlock_key(unlock: &Unlock) -> Option<&str> {
    match unlock {
        Unlock::Default => None,
        Unlock::Reputation { key }
        | Unlock::Perk { key }
        | Unlock::Quest { key }
        | Unlock::Talent { key }
        | Unlock::Mission { key } => Some(key.as_str()),
    }
}

fn recipe_ref(loc: &mut Localizer<'_>, id: RecordId, at: &str) -> RecordRef {
    match loc.catalog.recipe_by_id(id) {
        Some(recipe) => RecordRef::new(loc, recipe.id, recipe.slug.as_str(), &recipe.name_key, at),
        None => RecordRef::dangling(id),
    }
}

fn station_ref(loc: &mut Localizer<'_>, id: RecordId, at: &str) -> RecordRef {
    match loc.catalog.station_by_id(id) {
        Some(station) => RecordRef::new(loc, station.id, station.slug.as_str(), &station.name_key, at),
        None => RecordRef::dangling(id),
    }
}

impl RecipeSummary {
    /// `at` is the JSON Pointer of this object in the body.
    pub(crate) fn new(loc: &mut Localizer<'_>, recipe: &Recipe, at: &str) -> Self {
        Self {
            id: recipe.id,
            slug: recipe.slug.to_string(),
            name: loc.text(&recipe.name_key, || format!("{at}/name")),
            output: ItemStack::new(loc, &recipe.output, &format!("{at}/output")),
            station: station_ref(loc, recipe.station, &format!("{at}/station")),
            craft_minutes: recipe.craft_minutes,
            fuel: recipe.fuel,
            aging_days: recipe.aging_days.map(AgingDaysView::from),
            group: recipe.group.to_string(),
            page_name: recipe.page_name.to_string(),
            unlock: RecipeUnlock::new(&recipe.unlock),
            replaced_by: recipe.replaced_by.map(|id| recipe_ref(loc, id, &format!("{at}/replaced_by"))),
            introduced_in: introduced(loc.catalog, RecordType::Recipe, recipe.id),
        }
    }
}

/// `RecipeDetail`: the summary's fields, the ingredients, the unlocking record's name and the
/// recipes this one replaced.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RecipeDetail {
    id: RecordId,
    slug: String,
    /// The recipe's name: that of the item it makes.
    name: String,
    /// The item made, and how many units one craft makes.
    output: ItemStack,
    /// What one craft takes, in the game's order: a particular item, or any member of a group.
    ingredients: Vec<RecipeIngredient>,
    /// The crafting station that makes it.
    station: RecordRef,
    /// Crafting time in game minutes.
    craft_minutes: u32,
    /// Fuel units one craft burns at its station; 0 where the station burns none.
    fuel: u32,
    /// Days the output spends in a cellar to reach each aging rank; `null` where the game has none.
    aging_days: Option<AgingDaysView>,
    /// Recipe group, the station's tab in the game (`brewing`, `baking`).
    group: String,
    /// Recipe-book page it is printed on (`ales`, `soups`).
    page_name: String,
    /// How the player learns it, with the unlocking record's name.
    unlock: RecipeUnlockDetail,
    /// The newer recipe that supersedes this one; `null` when it is current.
    replaced_by: Option<RecordRef>,
    /// The older recipes this one supersedes, by id.
    replaces: Vec<RecordRef>,
    /// The game version the recipe first appeared in.
    introduced_in: Option<String>,
}

/// One ingredient of a recipe: `{"kind": "item", "item": {...}, "amount": n}` or
/// `{"kind": "group", "group": {...}, "amount": n}`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum RecipeIngredient {
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
}

/// An ingredient group as a recipe names it, with its members.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct IngredientGroupRef {
    id: RecordId,
    slug: String,
    name: String,
    /// The items that fill the group.
    members: Vec<RecordRef>,
}

/// How a recipe is unlocked, with the name of the record that unlocks it.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RecipeUnlockDetail {
    #[schemars(with = "value_sets::UnlockKind")]
    kind: &'static str,
    /// Key of the progression record that unlocks it (`/v1/{kind}s/{key}`); `null` for `default`.
    key: Option<String>,
    /// That record's localized name; `null` for `default`.
    name: Option<String>,
}

impl RecipeDetail {
    pub(crate) fn new(loc: &mut Localizer<'_>, recipe: &Recipe) -> Self {
        let catalog = loc.catalog;
        let name = loc.text(&recipe.name_key, || "/data/name".into());
        let output = ItemStack::new(loc, &recipe.output, "/data/output");
        let ingredients = recipe
            .ingredients
            .iter()
            .enumerate()
            .map(|(i, ingredient)| {
                let at = format!("/data/ingredients/{i}");
                match ingredient.input {
                    Input::Item(id) => RecipeIngredient::Item {
                        item: RecordRef::item_by_id(loc, id, &format!("{at}/item")),
                        amount: ingredient.amount,
                    },
                    Input::Group(id) => RecipeIngredient::Group {
                        group: group_ref(loc, id, &format!("{at}/group")),
                        amount: ingredient.amount,
                    },
                }
            })
            .collect();
        let station = station_ref(loc, recipe.station, "/data/station");
        let unlock = RecipeUnlockDetail {
            kind: recipe.unlock.kind(),
            key: unlock_key(&recipe.unlock).map(str::to_owned),
            name: catalog
                .unlock_name_key(&recipe.unlock)
                .map(|key| loc.text(key, || "/data/unlock/name".into())),
        };
        let replaced_by = recipe.replaced_by.map(|id| recipe_ref(loc, id, "/data/replaced_by"));
        let replaces = catalog
            .recipes_replaced_by(recipe.id)
            .into_iter()
            .enumerate()
            .map(|(i, older)| {
                RecordRef::new(
                    loc,
                    older.id,
                    older.slug.as_str(),
                    &older.name_key,
                    &format!("/data/replaces/{i}"),
                )
            })
            .collect();
        Self {
            id: recipe.id,
            slug: recipe.slug.to_string(),
            name,
            output,
            ingredients,
            station,
            craft_minutes: recipe.craft_minutes,
            fuel: recipe.fuel,
            aging_days: recipe.aging_days.map(AgingDaysView::from),
            group: recipe.group.to_string(),
            page_name: recipe.page_name.to_string(),
            unlock,
            replaced_by,
            replaces,
            introduced_in: introduced(catalog, RecordType::Recipe, recipe.id),
        }
    }
}

fn group_ref(loc: &mut Localizer<'_>, id: RecordId, at: &str) -> IngredientGroupRef {
    let Some(group) = loc.catalog.group_by_id(id) else {
        return IngredientGroupRef { id, slug: String::new(), name: String::new(), members: Vec::new() };
    };
    IngredientGroupRef {
        id: group.id,
        slug: group.slug.to_string(),
        name: loc.text(&group.name_key, || format!("{at}/name")),
        members: group
            .members
            .iter()
            .enumerate()
            .map(|(j, member)| RecordRef::item_by_id(loc, *member, &format!("{at}/members/{j}")))
            .collect(),
    }
}

/// `IngredientGroup`: a group such as "Any Malt", its members and how many recipes ask for it.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "IngredientGroup")]
pub(crate) struct IngredientGroupView {
    id: RecordId,
    slug: String,
    name: String,
    /// The items that fill the group, in the game's order.
    members: Vec<IngredientGroupMember>,
    /// How many recipes of this version ask for the group (replaced recipes included).
    used_by: u64,
    /// The game version the group first appeared in.
    introduced_in: Option<String>,
}

/// A member of an ingredient group, with the price that makes one member cheaper than another.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct IngredientGroupMember {
    id: RecordId,
    slug: String,
    name: String,
    /// The game's value of one unit.
    base_price: Price,
}

impl IngredientGroupMember {
    fn new(loc: &mut Localizer<'_>, item: &Item, at: &str) -> Self {
        Self {
            id: item.id,
            slug: item.slug.to_string(),
            name: loc.text(&item.name_key, || format!("{at}/name")),
            base_price: Price::new(item.base_price),
        }
    }
}

impl IngredientGroupView {
    pub(crate) fn new(loc: &mut Localizer<'_>, group: &IngredientGroup) -> Self {
        let catalog = loc.catalog;
        let name = loc.text(&group.name_key, || "/data/name".into());
        let members = group
            .members
            .iter()
            .filter_map(|id| catalog.item_by_id(*id))
            .enumerate()
            .map(|(i, item)| IngredientGroupMember::new(loc, item, &format!("/data/members/{i}")))
            .collect();
        Self {
            id: group.id,
            slug: group.slug.to_string(),
            name,
            members,
            used_by: catalog.group_use_count(group.id),
            introduced_in: introduced(catalog, RecordType::IngredientGroup, group.id),
        }
    }
}

/// `CraftingStation`: a station and the current recipes it makes.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "CraftingStation")]
pub(crate) struct CraftingStationView {
    id: RecordId,
    slug: String,
    name: String,
    description: Option<String>,
    /// The recipes made here that no newer recipe supersedes, by id.
    recipes: Vec<RecordRef>,
    /// How many entries `recipes` has.
    recipe_count: u64,
    /// The game version the station first appeared in.
    introduced_in: Option<String>,
}

impl CraftingStationView {
    /// `at` is the JSON Pointer of this object in the body.
    pub(crate) fn new(loc: &mut Localizer<'_>, station: &CraftingStation, at: &str) -> Self {
        let catalog = loc.catalog;
        let name = loc.text(&station.name_key, || format!("{at}/name"));
        let description =
            station.description_key.as_ref().map(|key| loc.text(key, || format!("{at}/description")));
        let recipes: Vec<RecordRef> = catalog
            .station_active_recipes(station.id)
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                RecordRef::new(loc, r.id, r.slug.as_str(), &r.name_key, &format!("{at}/recipes/{i}"))
            })
            .collect();
        Self {
            id: station.id,
            slug: station.slug.to_string(),
            name,
            description,
            recipe_count: recipes.len() as u64,
            recipes,
            introduced_in: introduced(catalog, RecordType::CraftingStation, station.id),
        }
    }
}

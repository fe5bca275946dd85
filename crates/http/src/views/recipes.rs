//! Recipes, ingredient groups and crafting stations: the recipe summary that lists show, the detail of
//! one recipe with its ingredients, one ingredient group with its members, and the crafting stations.
//! Every reference carries id, slug and localized name, so no second request is needed.

use tapster_domain::{
    AgingDays, CraftingStation, IngredientGroup, Input, Item, Recipe, RecordId, RecordType, Unlock,
};
use tapster_wire::{
    self as wire, AgingDaysView, IngredientGroupMember, IngredientGroupRef, RecipeDetail, RecipeIngredient,
    RecipeSummary, RecipeUnlock, RecipeUnlockDetail,
};

use super::*;
use crate::envelope::Localizer;

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

pub(crate) fn aging_days(days: AgingDays) -> AgingDaysView {
    AgingDaysView {
        young: days.young,
        aged: days.aged,
        reserve: days.reserve,
        grand_reserve: days.grand_reserve,
    }
}

pub(crate) fn recipe_unlock(unlock: &Unlock) -> RecipeUnlock {
    RecipeUnlock { kind: wire::UnlockKind::parse(unlock.kind()), key: unlock_key(unlock).map(str::to_owned) }
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
        Some(recipe) => record_ref(loc, recipe.id, recipe.slug.as_str(), &recipe.name_key, at),
        None => dangling_ref(id),
    }
}

fn station_ref(loc: &mut Localizer<'_>, id: RecordId, at: &str) -> RecordRef {
    match loc.catalog.station_by_id(id) {
        Some(station) => record_ref(loc, station.id, station.slug.as_str(), &station.name_key, at),
        None => dangling_ref(id),
    }
}

/// `at` is the JSON Pointer of this object in the body.
pub(crate) fn recipe_summary(loc: &mut Localizer<'_>, recipe: &Recipe, at: &str) -> RecipeSummary {
    RecipeSummary {
        id: recipe.id,
        slug: recipe.slug.to_string(),
        name: loc.text(&recipe.name_key, || format!("{at}/name")),
        output: item_stack(loc, &recipe.output, &format!("{at}/output")),
        station: station_ref(loc, recipe.station, &format!("{at}/station")),
        craft_minutes: recipe.craft_minutes,
        fuel: recipe.fuel,
        aging_days: recipe.aging_days.map(aging_days),
        group: recipe.group.to_string(),
        page_name: recipe.page_name.to_string(),
        unlock: recipe_unlock(&recipe.unlock),
        replaced_by: recipe.replaced_by.map(|id| recipe_ref(loc, id, &format!("{at}/replaced_by"))),
        introduced_in: introduced(loc.catalog, RecordType::Recipe, recipe.id),
    }
}

pub(crate) fn recipe_detail(loc: &mut Localizer<'_>, recipe: &Recipe) -> RecipeDetail {
    let catalog = loc.catalog;
    let name = loc.text(&recipe.name_key, || "/data/name".into());
    let output = item_stack(loc, &recipe.output, "/data/output");
    let ingredients = recipe
        .ingredients
        .iter()
        .enumerate()
        .map(|(i, ingredient)| {
            let at = format!("/data/ingredients/{i}");
            match ingredient.input {
                Input::Item(id) => RecipeIngredient::Item {
                    item: item_ref_by_id(loc, id, &format!("{at}/item")),
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
        kind: wire::UnlockKind::parse(recipe.unlock.kind()),
        key: unlock_key(&recipe.unlock).map(str::to_owned),
        name: catalog.unlock_name_key(&recipe.unlock).map(|key| loc.text(key, || "/data/unlock/name".into())),
    };
    let replaced_by = recipe.replaced_by.map(|id| recipe_ref(loc, id, "/data/replaced_by"));
    let replaces = catalog
        .recipes_replaced_by(recipe.id)
        .into_iter()
        .enumerate()
        .map(|(i, older)| {
            record_ref(loc, older.id, older.slug.as_str(), &older.name_key, &format!("/data/replaces/{i}"))
        })
        .collect();
    RecipeDetail {
        id: recipe.id,
        slug: recipe.slug.to_string(),
        name,
        output,
        ingredients,
        station,
        craft_minutes: recipe.craft_minutes,
        fuel: recipe.fuel,
        aging_days: recipe.aging_days.map(aging_days),
        group: recipe.group.to_string(),
        page_name: recipe.page_name.to_string(),
        unlock,
        replaced_by,
        replaces,
        introduced_in: introduced(catalog, RecordType::Recipe, recipe.id),
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
            .map(|(j, member)| item_ref_by_id(loc, *member, &format!("{at}/members/{j}")))
            .collect(),
    }
}

pub(crate) fn group_member(loc: &mut Localizer<'_>, item: &Item, at: &str) -> IngredientGroupMember {
    IngredientGroupMember {
        id: item.id,
        slug: item.slug.to_string(),
        name: loc.text(&item.name_key, || format!("{at}/name")),
        base_price: price_of(item.base_price),
    }
}

/// One ingredient group, whole, at `/data`.
pub(crate) fn ingredient_group(loc: &mut Localizer<'_>, group: &IngredientGroup) -> wire::IngredientGroup {
    let catalog = loc.catalog;
    let name = loc.text(&group.name_key, || "/data/name".into());
    let members = group
        .members
        .iter()
        .filter_map(|id| catalog.item_by_id(*id))
        .enumerate()
        .map(|(i, item)| group_member(loc, item, &format!("/data/members/{i}")))
        .collect();
    wire::IngredientGroup {
        id: group.id,
        slug: group.slug.to_string(),
        name,
        members,
        used_by: catalog.group_use_count(group.id),
        introduced_in: introduced(catalog, RecordType::IngredientGroup, group.id),
    }
}

/// `at` is the JSON Pointer of this object in the body.
pub(crate) fn crafting_station(
    loc: &mut Localizer<'_>,
    station: &CraftingStation,
    at: &str,
) -> wire::CraftingStation {
    let catalog = loc.catalog;
    let name = loc.text(&station.name_key, || format!("{at}/name"));
    let description =
        station.description_key.as_ref().map(|key| loc.text(key, || format!("{at}/description")));
    let recipes: Vec<RecordRef> = catalog
        .station_active_recipes(station.id)
        .into_iter()
        .enumerate()
        .map(|(i, r)| record_ref(loc, r.id, r.slug.as_str(), &r.name_key, &format!("{at}/recipes/{i}")))
        .collect();
    wire::CraftingStation {
        id: station.id,
        slug: station.slug.to_string(),
        name,
        description,
        recipe_count: recipes.len() as u64,
        recipes,
        introduced_in: introduced(catalog, RecordType::CraftingStation, station.id),
    }
}

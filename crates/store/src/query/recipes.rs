//! Recipes, ingredient groups and crafting stations: the filters, sort orders and pages of recipe
//! lists, and the relations their details show (what a recipe replaced, who uses a group, what a station makes).

use tapster_domain::{Input, ItemKind, ProgressionRecord, Recipe, RecordId, TextKey, Unlock};
use tapster_i18n::Language;

use super::{Page, Sort, Window, chosen, page, sort_by};
use crate::Catalog;

/// What a list of recipes can be filtered by; every filter given must hold.
#[derive(Debug, Default)]
pub struct RecipeFilter<'a> {
    /// Recipe group (the station's tab): `brewing`, `baking`.
    pub group: Option<&'a str>,
    /// Recipe-book page: `ales`, `soups`.
    pub page_name: Option<&'a str>,
    /// How the recipe is unlocked, by kind (`default`, `perk`, ...).
    pub unlock: Option<&'a str>,
    /// The kind of the item the recipe makes.
    pub output_kind: Option<ItemKind>,
    /// Only recipes made at this crafting station.
    pub station: Option<RecordId>,
    /// Only these recipes, in this order unless a sort is given.
    pub ids: Option<&'a [RecordId]>,
    /// Also recipes superseded by a newer one.
    pub include_replaced: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecipeOrder {
    Id,
    /// By name in the requested language, ignoring case and accents.
    Name,
    /// By crafting time.
    Time,
}

impl Catalog {
    /// A page of the recipes that pass `filter`, in `sort` order (then by id).
    pub fn recipe_list(
        &self,
        filter: &RecipeFilter<'_>,
        sort: &[Sort<RecipeOrder>],
        lang: Language,
        window: Window,
    ) -> Page<'_, Recipe> {
        let passes = |recipe: &&Recipe| {
            (filter.include_replaced || recipe.replaced_by.is_none())
                && filter.group.is_none_or(|g| recipe.group.as_str() == g)
                && filter.page_name.is_none_or(|p| recipe.page_name.as_str() == p)
                && filter.unlock.is_none_or(|u| recipe.unlock.kind() == u)
                && filter.station.is_none_or(|s| recipe.station == s)
                && filter.output_kind.is_none_or(|kind| {
                    self.item_by_id(recipe.output.item).is_some_and(|item| item.kind == kind)
                })
        };
        let mut records = chosen(filter.ids, &self.data.recipes, |id| self.recipe_by_id(id), passes);
        if !sort.is_empty() {
            sort_by(
                &mut records,
                sort,
                |recipe| recipe.id,
                |key| key == RecipeOrder::Name,
                |recipe| self.name_rank(&recipe.name_key, lang),
                |key, a, b| match key {
                    RecipeOrder::Id => a.id.cmp(&b.id),
                    RecipeOrder::Name => std::cmp::Ordering::Equal, // ordered by name in `sort_by`
                    RecipeOrder::Time => a.craft_minutes.cmp(&b.craft_minutes),
                },
            );
        }
        page(records, window)
    }

    /// The recipes that `recipe` superseded (those whose `replaced_by` names it), by id.
    pub fn recipes_replaced_by(&self, recipe: RecordId) -> Vec<&Recipe> {
        let mut older: Vec<&Recipe> =
            self.data.recipes.iter().filter(|r| r.replaced_by == Some(recipe)).collect();
        older.sort_by_key(|r| r.id);
        older
    }

    /// How many recipes of the version (replaced ones included) ask for the ingredient group `group`.
    pub fn group_use_count(&self, group: RecordId) -> u64 {
        let uses = |recipe: &&Recipe| recipe.ingredients.iter().any(|i| i.input == Input::Group(group));
        self.data.recipes.iter().filter(uses).count() as u64
    }

    /// The recipes a crafting station makes that no newer recipe supersedes, by id.
    pub fn station_active_recipes(&self, station: RecordId) -> Vec<&Recipe> {
        let mut made: Vec<&Recipe> =
            self.data.recipes.iter().filter(|r| r.station == station && r.replaced_by.is_none()).collect();
        made.sort_by_key(|r| r.id);
        made
    }

    /// The name of the progression record that unlocks a recipe; `None` for `default` (or a key the
    /// version does not hold, which import refuses).
    pub fn unlock_name_key(&self, unlock: &Unlock) -> Option<&TextKey> {
        fn find<'a, R: ProgressionRecord>(
            records: &'a [R],
            key: &tapster_domain::ProgressionKey,
        ) -> Option<&'a TextKey> {
            records.iter().find(|r| r.key() == key).map(ProgressionRecord::name_key)
        }
        let data = &self.data;
        match unlock {
            Unlock::Default => None,
            Unlock::Reputation { key } => find(&data.reputation, key),
            Unlock::Perk { key } => find(&data.perks, key),
            Unlock::Quest { key } => find(&data.quests, key),
            Unlock::Talent { key } => find(&data.talents, key),
            Unlock::Mission { key } => find(&data.missions, key),
        }
    }
}

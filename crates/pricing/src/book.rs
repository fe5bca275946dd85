//! The value of every item of one game version, for each ingredient choice, computed once when the
//! version is loaded; and the breakdown of any item's price per serving, step by step.
//!
//! The rules (`docs/pricing.md`):
//! - An item that no recipe makes is worth its base price.
//! - A crafted item is made by its recipe: the lowest-id recipe that makes it and is not replaced.
//!   Its value is its base price plus half the value of what goes into one craft, divided by the
//!   number of units the craft makes.
//! - What goes in is each ingredient's amount times its value; an ingredient group is filled by its
//!   member of lowest value (`cheapest`) or of highest value (`expensive`), ties going to the lower
//!   id, and the same choice holds all the way down the chain.
//! - The price per serving is the value divided by the servings one unit makes, raised by the aging
//!   and quality percentages.
//! - Every division rounds half up, and only divisions round.

use std::collections::HashMap;

use tapster_domain::{GameData, Input, ItemId, RecordId};

use crate::{Aging, Copper, Error, IngredientChoice, Quality, Result};

/// Percent of the value of what goes into a craft that the product adds to its base price.
pub const INGREDIENT_SHARE_PERCENT: u64 = 50;

/// An item's value per unit under each ingredient choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnitValues {
    pub cheapest: Copper,
    pub expensive: Copper,
}

impl UnitValues {
    pub fn get(self, choice: IngredientChoice) -> Copper {
        match choice {
            IngredientChoice::Cheapest => self.cheapest,
            IngredientChoice::Expensive => self.expensive,
        }
    }
}

/// One ingredient of a craft as priced: what was asked, what filled it, and what it adds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngredientCost {
    pub input: Input,
    /// The item used: the ingredient itself, or the group member the choice picked.
    pub chosen: ItemId,
    pub amount: u32,
    pub unit_value: Copper,
    /// `amount` times `unit_value`.
    pub total: Copper,
}

/// How a price per serving was made, so that a player can check the arithmetic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breakdown {
    pub item: ItemId,
    pub choice: IngredientChoice,
    pub base: Copper,
    /// The recipe that makes the item, if any.
    pub recipe: Option<RecordId>,
    /// Units one craft makes (1 when no recipe).
    pub output_amount: u32,
    pub ingredients: Vec<IngredientCost>,
    /// The sum of the ingredients' totals.
    pub ingredient_total: Copper,
    pub ingredient_share_percent: u64,
    /// `base + round(ingredient_total × share% / output_amount)`.
    pub unit_value: Copper,
    pub servings: u32,
    pub aging: Aging,
    pub quality: Quality,
    /// `round(unit_value × (100 + aging%) × (100 + quality%) / (servings × 10000))`.
    pub per_serving: Copper,
}

#[derive(Debug, Clone)]
struct Facts {
    base_price: u64,
    servings: u32,
    can_be_aged: bool,
}

#[derive(Debug, Clone)]
struct Formula {
    recipe: RecordId,
    output_amount: u32,
    ingredients: Vec<(Input, u32)>,
}

/// The prices of one game version.
#[derive(Debug, Clone, Default)]
pub struct PriceBook {
    facts: HashMap<ItemId, Facts>,
    formulas: HashMap<ItemId, Formula>,
    groups: HashMap<RecordId, Vec<ItemId>>,
    values: HashMap<ItemId, UnitValues>,
}

impl PriceBook {
    /// Prices every item of `data`. The data is expected to be valid (no recipe cycle); should a
    /// cycle slip through, the items on it are worth their base price rather than looping.
    pub fn new(data: &GameData) -> Self {
        let facts = data
            .items
            .iter()
            .map(|i| {
                (
                    i.id,
                    Facts {
                        base_price: i.base_price,
                        servings: i.servings.max(1),
                        can_be_aged: i.can_be_aged,
                    },
                )
            })
            .collect();
        let mut formulas: HashMap<ItemId, Formula> = HashMap::new();
        for recipe in data.recipes.iter().filter(|r| r.replaced_by.is_none()) {
            let formula = Formula {
                recipe: recipe.id,
                output_amount: recipe.output.amount.max(1),
                ingredients: recipe.ingredients.iter().map(|i| (i.input, i.amount)).collect(),
            };
            formulas
                .entry(recipe.output.item)
                .and_modify(|held| {
                    if formula.recipe < held.recipe {
                        *held = formula.clone();
                    }
                })
                .or_insert(formula);
        }
        let groups = data.ingredient_groups.iter().map(|g| (g.id, g.members.clone())).collect();
        let mut book = Self { facts, formulas, groups, values: HashMap::new() };
        let mut ids: Vec<ItemId> = book.facts.keys().copied().collect();
        ids.sort_unstable();
        for choice in IngredientChoice::ALL {
            let mut memo = HashMap::new();
            for &id in &ids {
                book.value(id, *choice, &mut memo, &mut Vec::new());
            }
            for (id, value) in memo {
                let entry =
                    book.values.entry(id).or_insert(UnitValues { cheapest: Copper(0), expensive: Copper(0) });
                match choice {
                    IngredientChoice::Cheapest => entry.cheapest = value,
                    IngredientChoice::Expensive => entry.expensive = value,
                }
            }
        }
        book
    }

    /// An item's value per unit under each choice.
    pub fn unit_values(&self, item: ItemId) -> Option<UnitValues> {
        self.values.get(&item).copied()
    }

    /// The recipe that makes `item`, as the rules choose it.
    pub fn recipe_of(&self, item: ItemId) -> Option<RecordId> {
        self.formulas.get(&item).map(|f| f.recipe)
    }

    /// The member that fills `group` under `choice`: lowest or highest value, ties to the lower id.
    pub fn chosen_member(&self, group: RecordId, choice: IngredientChoice) -> Option<ItemId> {
        let members = self.groups.get(&group)?;
        let value = |id: &ItemId| self.values.get(id).map_or(Copper(0), |v| v.get(choice));
        match choice {
            IngredientChoice::Cheapest => members.iter().min_by_key(|id| (value(id), **id)).copied(),
            IngredientChoice::Expensive => {
                members.iter().max_by_key(|id| (value(id), std::cmp::Reverse(**id))).copied()
            }
        }
    }

    /// The price of one serving of `item`, with every step that made it.
    pub fn per_serving(
        &self,
        item: ItemId,
        choice: IngredientChoice,
        aging: Aging,
        quality: Quality,
    ) -> Result<Breakdown> {
        let facts = self.facts.get(&item).ok_or(Error::UnknownItem { item })?;
        if aging != Aging::None && !facts.can_be_aged {
            return Err(Error::CannotAge { item });
        }
        let formula = self.formulas.get(&item);
        let ingredients: Vec<IngredientCost> = formula
            .map(|f| {
                f.ingredients
                    .iter()
                    .map(|&(input, amount)| {
                        let chosen = match input {
                            Input::Item(id) => id,
                            Input::Group(group) => self.chosen_member(group, choice).unwrap_or_default(),
                        };
                        let unit_value = self.values.get(&chosen).map_or(Copper(0), |v| v.get(choice));
                        IngredientCost {
                            input,
                            chosen,
                            amount,
                            unit_value,
                            total: Copper(unit_value.0 * u64::from(amount)),
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        let ingredient_total = Copper(ingredients.iter().map(|i| i.total.0).sum());
        let output_amount = formula.map_or(1, |f| f.output_amount);
        let unit_value = self.values.get(&item).map_or(Copper(facts.base_price), |v| v.get(choice));
        let per_serving = serving_price(unit_value, facts.servings, aging, quality);
        Ok(Breakdown {
            item,
            choice,
            base: Copper(facts.base_price),
            recipe: formula.map(|f| f.recipe),
            output_amount,
            ingredients,
            ingredient_total,
            ingredient_share_percent: INGREDIENT_SHARE_PERCENT,
            unit_value,
            servings: facts.servings,
            aging,
            quality,
            per_serving,
        })
    }

    /// The value of `item` under `choice`, memoized; `path` holds the items being valued, so that a
    /// cycle (which validation forbids) ends at a base price instead of recursing forever.
    fn value(
        &self,
        item: ItemId,
        choice: IngredientChoice,
        memo: &mut HashMap<ItemId, Copper>,
        path: &mut Vec<ItemId>,
    ) -> Copper {
        if let Some(&value) = memo.get(&item) {
            return value;
        }
        let base = self.facts.get(&item).map_or(0, |f| f.base_price);
        if path.contains(&item) {
            return Copper(base);
        }
        let Some(formula) = self.formulas.get(&item) else {
            memo.insert(item, Copper(base));
            return Copper(base);
        };
        path.push(item);
        let mut total: u128 = 0;
        for &(input, amount) in &formula.ingredients {
            let value = match input {
                Input::Item(id) => self.value(id, choice, memo, path),
                Input::Group(group) => {
                    let members = self.groups.get(&group).map(Vec::as_slice).unwrap_or_default();
                    let values = members.iter().map(|&m| (self.value(m, choice, memo, path), m));
                    let picked = match choice {
                        IngredientChoice::Cheapest => values.min_by_key(|&(v, id)| (v, id)),
                        IngredientChoice::Expensive => {
                            values.max_by_key(|&(v, id)| (v, std::cmp::Reverse(id)))
                        }
                    };
                    picked.map_or(Copper(0), |(v, _)| v)
                }
            };
            total += u128::from(value.0) * u128::from(amount);
        }
        path.pop();
        let added = round_half_up(
            total * u128::from(INGREDIENT_SHARE_PERCENT),
            100 * u128::from(formula.output_amount),
        );
        let value = Copper(base.saturating_add(added));
        memo.insert(item, value);
        value
    }
}

/// One serving of an item worth `unit_value`, aged and made as said.
pub(crate) fn serving_price(unit_value: Copper, servings: u32, aging: Aging, quality: Quality) -> Copper {
    Copper(round_half_up(
        u128::from(unit_value.0) * u128::from(100 + aging.percent()) * u128::from(100 + quality.percent()),
        u128::from(servings.max(1)) * 10_000,
    ))
}

/// `numerator / denominator`, rounded half up: the one rounding rule of all prices.
pub(crate) fn round_half_up(numerator: u128, denominator: u128) -> u64 {
    let rounded = (2 * numerator + denominator) / (2 * denominator.max(1));
    u64::try_from(rounded).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests;

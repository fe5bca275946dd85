//! The pricing rules on a small brewing chain whose every price is worked out by hand in the comments.

use proptest::prelude::*;
use serde_json::json;
use tapster_domain::GameData;

use super::*;

const BARLEY: ItemId = 10;
const MALT: ItemId = 11;
const BRIGHT_HOPS: ItemId = 12;
const DUSK_HOPS: ItemId = 13;
const WORT: ItemId = 16;
const ALE: ItemId = 20;
const ANY_HOPS: RecordId = 200;

/// Barley -> malt -> wort (with any hops) -> ale, with the base prices given.
fn brewery(barley: u64, malt: u64, bright: u64, dusk: u64, wort: u64, ale: u64) -> GameData {
    let item = |id: ItemId, slug: &str, base: u64, servings: u32, aged: bool| {
        json!({"id": id, "slug": slug, "name_key": format!("item.{id}"), "kind": "ingredient", "category": "x",
               "base_price": base, "servings": servings, "can_be_aged": aged})
    };
    let recipe = |id: i64,
                  output: ItemId,
                  amount: u32,
                  ingredients: serde_json::Value,
                  replaced_by: Option<i64>| {
        json!({"id": id, "slug": format!("r{id}"), "name_key": "r", "station": 1, "output": {"item": output, "amount": amount},
               "ingredients": ingredients, "craft_minutes": 1, "group": "g", "page_name": "p",
               "unlock": {"kind": "default"}, "replaced_by": replaced_by})
    };
    let items = json!([
        item(BARLEY, "barley", barley, 1, false),
        item(MALT, "malt", malt, 1, false),
        item(BRIGHT_HOPS, "bright-hops", bright, 1, false),
        item(DUSK_HOPS, "dusk-hops", dusk, 1, false),
        item(14, "water", 1, 1, false),
        item(15, "yeast", 12, 1, false),
        item(WORT, "wort", wort, 1, false),
        item(ALE, "ale", ale, 10, true),
    ]);
    let recipes = json!([
        recipe(100, MALT, 1, json!([{"item": BARLEY, "amount": 2}]), None),
        recipe(
            101,
            WORT,
            1,
            json!([{"item": MALT, "amount": 3}, {"group": ANY_HOPS, "amount": 1}, {"item": 14, "amount": 2}]),
            None
        ),
        // An older formula, replaced: it never prices the ale.
        recipe(90, ALE, 1, json!([{"item": BARLEY, "amount": 50}]), Some(102)),
        recipe(102, ALE, 2, json!([{"item": WORT, "amount": 1}, {"item": 15, "amount": 1}]), None),
        // A second current recipe with a higher id: the lower id is the item's recipe.
        recipe(103, ALE, 1, json!([{"item": DUSK_HOPS, "amount": 9}]), None),
    ]);
    let mut data = GameData::new(
        serde_json::from_value(
            json!({"format": 1, "game_version": "v1.0.0.0.0", "build_id": 1, "released": "2026-01-01"}),
        )
        .unwrap(),
    );
    data.items = serde_json::from_value(items).unwrap();
    data.recipes = serde_json::from_value(recipes).unwrap();
    data.ingredient_groups = serde_json::from_value(
        json!([{"id": ANY_HOPS, "slug": "any-hops", "name_key": "g", "members": [BRIGHT_HOPS, DUSK_HOPS]}]),
    )
    .unwrap();
    data
}

#[test]
fn unit_values_grow_with_what_goes_in() {
    let book = PriceBook::new(&brewery(8, 20, 15, 40, 60, 150));
    let values = |id| book.unit_values(id).map(|v| (v.cheapest.0, v.expensive.0)).unwrap();
    let cases = [
        // Raw: its base price.
        (BARLEY, (8, 8)),
        // 20 + round(2 × 8 × 50% / 1) = 20 + 8.
        (MALT, (28, 28)),
        // Cheapest: 3 × 28 + 15 + 2 × 1 = 101; 60 + round(50.5) = 111 (half rounds up).
        // Expensive: 3 × 28 + 40 + 2 = 126; 60 + 63 = 123.
        (WORT, (111, 123)),
        // Recipe 102 (lowest current id), 2 ales a craft: cheapest (111 + 12) × 50% / 2 = 30.75 -> 31;
        // expensive (123 + 12) × 50% / 2 = 33.75 -> 34.
        (ALE, (181, 184)),
    ];
    for (item, expected) in cases {
        assert_eq!(values(item), expected, "item {item}");
    }
    assert_eq!(book.recipe_of(ALE), Some(102));
    assert_eq!(book.chosen_member(ANY_HOPS, IngredientChoice::Cheapest), Some(BRIGHT_HOPS));
    assert_eq!(book.chosen_member(ANY_HOPS, IngredientChoice::Expensive), Some(DUSK_HOPS));
}

#[test]
fn per_serving_applies_servings_aging_and_quality_once_each() {
    let book = PriceBook::new(&brewery(8, 20, 15, 40, 60, 150));
    let cases = [
        // 181 / 10 = 18.1 -> 18.
        (IngredientChoice::Cheapest, Aging::None, Quality::Common, 18),
        // Young adds nothing.
        (IngredientChoice::Cheapest, Aging::Young, Quality::Common, 18),
        // 181 × 130 × 135 / 100000 = 31.7655 -> 32.
        (IngredientChoice::Cheapest, Aging::GrandReserve, Quality::Superior, 32),
        // 184 × 110 × 115 / 100000 = 23.276 -> 23.
        (IngredientChoice::Expensive, Aging::Aged, Quality::Fine, 23),
        // 184 × 120 / 1000 = 22.08 -> 22.
        (IngredientChoice::Expensive, Aging::Reserve, Quality::Common, 22),
    ];
    for (choice, aging, quality, copper) in cases {
        let breakdown = book.per_serving(ALE, choice, aging, quality).unwrap();
        assert_eq!(breakdown.per_serving, Copper(copper), "{choice} {aging} {quality}");
    }
    let breakdown = book.per_serving(ALE, IngredientChoice::Expensive, Aging::None, Quality::Common).unwrap();
    assert_eq!(breakdown.recipe, Some(102));
    assert_eq!(breakdown.output_amount, 2);
    assert_eq!(breakdown.ingredient_total, Copper(135));
    assert_eq!(breakdown.unit_value, Copper(184));
    assert_eq!(breakdown.servings, 10);
    let wort = book.per_serving(WORT, IngredientChoice::Expensive, Aging::None, Quality::Common).unwrap();
    let group = &wort.ingredients[1];
    assert_eq!(
        (group.input, group.chosen, group.unit_value, group.total),
        (Input::Group(ANY_HOPS), DUSK_HOPS, Copper(40), Copper(40))
    );
}

#[test]
fn aging_what_cannot_age_is_refused() {
    let book = PriceBook::new(&brewery(8, 20, 15, 40, 60, 150));
    assert_eq!(
        book.per_serving(MALT, IngredientChoice::Cheapest, Aging::Aged, Quality::Common),
        Err(Error::CannotAge { item: MALT })
    );
    assert!(book.per_serving(MALT, IngredientChoice::Cheapest, Aging::None, Quality::Fine).is_ok());
    assert_eq!(
        book.per_serving(9_999, IngredientChoice::Cheapest, Aging::None, Quality::Common),
        Err(Error::UnknownItem { item: 9_999 })
    );
}

#[test]
fn rounding_is_half_up() {
    let cases = [(1, 2, 1), (3, 2, 2), (5, 2, 3), (1, 3, 0), (2, 3, 1), (0, 7, 0), (7, 7, 1)];
    for (n, d, expected) in cases {
        assert_eq!(round_half_up(n, d), expected, "{n}/{d}");
    }
}

proptest! {
    #[test]
    fn expensive_is_never_below_cheapest(barley in 0u64..10_000, malt in 0u64..10_000, bright in 0u64..10_000,
                                         dusk in 0u64..10_000, wort in 0u64..10_000, ale in 0u64..10_000) {
        let book = PriceBook::new(&brewery(barley, malt, bright, dusk, wort, ale));
        for item in [BARLEY, MALT, BRIGHT_HOPS, DUSK_HOPS, WORT, ALE] {
            let values = book.unit_values(item).unwrap();
            prop_assert!(values.expensive >= values.cheapest, "item {}", item);
        }
    }

    #[test]
    fn each_aging_and_quality_step_never_lowers_a_price(unit in 0u64..100_000_000, servings in 1u32..100) {
        for quality in Quality::ALL {
            let prices: Vec<Copper> = Aging::ALL.iter().map(|a| serving_price(Copper(unit), servings, *a, *quality)).collect();
            prop_assert!(prices.windows(2).all(|w| w[0] <= w[1]));
        }
        for aging in Aging::ALL {
            let prices: Vec<Copper> = Quality::ALL.iter().map(|q| serving_price(Copper(unit), servings, *aging, *q)).collect();
            prop_assert!(prices.windows(2).all(|w| w[0] <= w[1]));
        }
    }
}

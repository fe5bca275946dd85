//! Tests of `validate`, the rules that make one game version whole, on game data built in memory:
//! a small whole version passes, and each row of one table breaks it in one way and names every
//! problem `validate` must report for it (file, record, field and the telling part of the message),
//! so that each rule of `validate.rs` is checked here and not only through broken files on disk.

use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tapster_domain::{
    GameData, Input, Item, ItemAmount, ItemId, LetterTrigger, Problem, ProgressionKey, Recipe, RecordId,
    SOURCE_LANGUAGE, Season, Slug, TextKey, TextTable, Unlock, validate,
};

fn from<T: DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("the test data is in the data format")
}

/// One small version that breaks no rule, with a record of every type, a reference of every kind
/// (an unlock of three kinds, a letter trigger of each kind, a replacement, an ingredient group) and
/// its own text key for every record, so that each row below can break one thing alone.
fn whole() -> GameData {
    let mut data = GameData::new(from(json!({
        "format": 1, "game_version": "v1.0.0.0.1", "build_id": 100, "released": "2026-01-01"
    })));
    data.items = from(json!([
        {"id": 10, "slug": "barley", "name_key": "item.10.name", "description_key": "item.10.description",
         "kind": "ingredient", "category": "grain", "base_price": 8, "sell_price": 4, "stack_size": 99,
         "icon": "Sprites/Items/Barley.png",
         "gathering": [{"method": "foraging", "from": "meadow", "seasons": ["summer"]},
                       {"method": "foraging", "from": "riverbank"}]},
        {"id": 11, "slug": "pale-malt", "name_key": "item.11.name", "kind": "ingredient", "category": "malt",
         "base_price": 20},
        {"id": 12, "slug": "bright-hops", "name_key": "item.12.name", "kind": "ingredient",
         "category": "hops", "base_price": 15},
        {"id": 13, "slug": "dusk-hops", "name_key": "item.13.name", "kind": "ingredient", "category": "hops",
         "base_price": 40},
        {"id": 15, "slug": "ale-yeast", "name_key": "item.15.name", "kind": "ingredient", "category": "yeast",
         "base_price": 12},
        {"id": 16, "slug": "pale-wort", "name_key": "item.16.name", "kind": "ingredient", "category": "wort",
         "base_price": 60},
        {"id": 20, "slug": "pale-ale", "name_key": "item.20.name", "kind": "drink", "category": "ale",
         "food_type": "drink", "base_price": 150, "servings": 10, "can_be_aged": true},
        {"id": 30, "slug": "barley-seeds", "name_key": "item.30.name", "kind": "seed", "category": "seeds",
         "base_price": 5},
        {"id": 40, "slug": "river-trout", "name_key": "item.40.name", "kind": "fish", "category": "fish",
         "base_price": 30},
        {"id": 41, "slug": "eel", "name_key": "item.41.name", "kind": "fish", "category": "fish",
         "base_price": 45}
    ]));
    data.recipes = from(json!([
        {"id": 100, "slug": "pale-malt", "name_key": "recipe.100.name", "station": 1,
         "output": {"item": 11, "amount": 1}, "ingredients": [{"item": 10, "amount": 2}],
         "craft_minutes": 60, "group": "malting", "page_name": "malts", "unlock": {"kind": "default"}},
        {"id": 101, "slug": "pale-wort", "name_key": "recipe.101.name", "station": 2,
         "output": {"item": 16, "amount": 1},
         "ingredients": [{"item": 11, "amount": 3}, {"group": 200, "amount": 1}],
         "craft_minutes": 90, "group": "brewing", "page_name": "worts",
         "unlock": {"kind": "reputation", "key": "rep_01"}},
        {"id": 102, "slug": "pale-ale", "name_key": "recipe.102.name", "station": 2,
         "output": {"item": 20, "amount": 1},
         "ingredients": [{"item": 16, "amount": 1}, {"item": 15, "amount": 1}],
         "craft_minutes": 240, "group": "brewing", "page_name": "ales",
         "unlock": {"kind": "perk", "key": "Perk_Brewing_1"}, "replaced_by": 103},
        {"id": 103, "slug": "pale-ale-2", "name_key": "recipe.103.name", "station": 2,
         "output": {"item": 20, "amount": 2},
         "ingredients": [{"item": 16, "amount": 2}, {"item": 15, "amount": 1}],
         "craft_minutes": 200, "group": "brewing", "page_name": "ales",
         "unlock": {"kind": "mission", "key": "Mission 01"}, "fuel": 2,
         "aging_days": {"young": 3, "aged": 7, "reserve": 14, "grand_reserve": 28}}
    ]));
    data.ingredient_groups = from(json!([
        {"id": 200, "slug": "any-hops", "name_key": "group.200.name", "members": [12, 13]}
    ]));
    data.crafting_stations = from(json!([
        {"id": 1, "slug": "malting-floor", "name_key": "station.1.name"},
        {"id": 2, "slug": "brew-kettle", "name_key": "station.2.name",
         "description_key": "station.2.description"}
    ]));
    data.crops = from(json!([
        {"id": 300, "slug": "barley", "name_key": "crop.300.name", "seed": 30,
         "harvest": {"item": 10, "min": 1, "max": 3}, "seasons": ["spring", "summer"], "days_to_grow": 6,
         "reusable": false}
    ]));
    data.shops = from(json!([
        {"id": 400, "slug": "mill-store", "name_key": "shop.400.name", "shopkeeper": 500,
         "opens_at": 8, "closes_at": 18,
         "catalogue": [{"item": 30, "price": 7, "seasons": ["spring"]}, {"item": 15, "price": 14}]}
    ]));
    data.shopkeepers = from(json!([
        {"id": 500, "slug": "odile", "name_key": "npc.500.name", "title_key": "npc.500.title",
         "birthday": {"season": "autumn", "day": 12}}
    ]));
    data.fish = from(json!([
        {"id": 600, "item": 40, "seasons": ["spring", "autumn"], "water": "FreshWater", "bait": "Worm",
         "rarity": 2}
    ]));
    data.quests = from(json!([
        {"key": "quest.first-brew", "name_key": "quest.first-brew.name",
         "description_key": "quest.first-brew.description", "giver": 500,
         "objectives": [{"item": 20, "amount": 3}],
         "rewards": {"copper": 500, "reputation": 10, "items": [{"item": 20, "amount": 2}],
                     "recipes": [103]}},
        {"key": "quest.second-brew", "name_key": "quest.second-brew.name",
         "description_key": "quest.second-brew.description", "requires": ["quest.first-brew"],
         "objectives": [{"item": 16, "amount": 1}], "rewards": {}}
    ]));
    data.perks = from(json!([
        {"key": "Perk_Brewing_1", "name_key": "perk.brewing1.name",
         "description_key": "perk.brewing1.description", "tier": 1, "cost": 1},
        {"key": "Perk_Brewing_2", "name_key": "perk.brewing2.name",
         "description_key": "perk.brewing2.description", "tier": 2, "cost": 2, "requires": ["Perk_Brewing_1"]}
    ]));
    data.spells = from(json!([
        {"key": "spell.warm-hearth", "name_key": "spell.hearth.name",
         "description_key": "spell.hearth.description", "school": "hearth", "mana_cost": 10,
         "cooldown_seconds": 60}
    ]));
    data.talents = from(json!([
        {"key": "Talent Brewing 01", "name_key": "talent.brewing01.name",
         "description_key": "talent.brewing01.description", "tree": "brewing", "max_rank": 3},
        {"key": "Talent Brewing 02", "name_key": "talent.brewing02.name",
         "description_key": "talent.brewing02.description", "tree": "brewing", "max_rank": 1,
         "requires": ["Talent Brewing 01"]}
    ]));
    data.reputation = from(json!([
        {"key": "rep_01", "name_key": "rep.01.name", "description_key": "rep.01.description", "level": 1,
         "points": 0, "rewards": {}},
        {"key": "rep_02", "name_key": "rep.02.name", "description_key": "rep.02.description", "level": 2,
         "points": 100, "rewards": {"copper": 100, "items": [{"item": 11, "amount": 1}], "recipes": [101]}}
    ]));
    data.missions = from(json!([
        {"key": "Mission 01", "name_key": "mission.01.name", "description_key": "mission.01.description",
         "duration_days": 3, "min_reputation": 2,
         "rewards": {"copper": 250, "items": [{"item": 10, "amount": 5}], "recipes": [100]}}
    ]));
    data.letters = from(json!([
        {"key": "Odile's Welcome", "name_key": "letter.welcome.subject",
         "description_key": "letter.welcome.body", "sender": 500,
         "trigger": {"kind": "day", "season": "spring", "day": 2},
         "attachments": [{"item": 30, "amount": 5}]},
        {"key": "Brewer's Note", "name_key": "letter.note.subject", "description_key": "letter.note.body",
         "trigger": {"kind": "quest", "key": "quest.first-brew"}},
        {"key": "Fame at Last", "name_key": "letter.fame.subject", "description_key": "letter.fame.body",
         "trigger": {"kind": "reputation", "key": "rep_02"}}
    ]));
    let english: TextTable =
        data.text_keys().into_iter().map(|k| (k.clone(), format!("Text of {k}"))).collect();
    data.texts.insert(SOURCE_LANGUAGE.into(), english);
    data.texts.insert("de".into(), from(json!({"item.10.name": "Gerste", "item.20.name": ""})));
    data
}

fn item(data: &mut GameData, id: ItemId) -> &mut Item {
    data.items.iter_mut().find(|r| r.id == id).expect("the whole version has this item")
}

fn recipe(data: &mut GameData, id: RecordId) -> &mut Recipe {
    data.recipes.iter_mut().find(|r| r.id == id).expect("the whole version has this recipe")
}

fn slug(value: &str) -> Slug {
    Slug::parse(value).unwrap()
}

fn key(value: &str) -> ProgressionKey {
    ProgressionKey::parse(value).unwrap()
}

/// A text key that no table holds.
fn nowhere() -> TextKey {
    TextKey::parse("nowhere").unwrap()
}

fn english(data: &mut GameData) -> &mut TextTable {
    data.texts.get_mut(SOURCE_LANGUAGE).unwrap()
}

fn amount(item: ItemId, amount: u32) -> ItemAmount {
    ItemAmount { item, amount }
}

/// A problem a row expects, written `file | record | field | message`: the file, the record (`-` for a
/// problem of a whole file) and the field exactly, and a part of the message that only its rule writes.
type Want = &'static str;

/// A row of the table: what it breaks, how, and every problem that must be reported for it, in order.
type Row = (&'static str, fn(&mut GameData), &'static [Want]);

/// The four parts of a [`Want`]; a malformed one fails the test that holds it.
fn parts(want: Want) -> (&'static str, Option<&'static str>, &'static str, &'static str) {
    let parts: Vec<&str> = want.split(" | ").collect();
    let [file, record, field, message] = parts[..] else {
        panic!("{want:?} is not `file | record | field | message`")
    };
    assert!(!message.is_empty(), "{want:?} expects no message at all");
    (file, (record != "-").then_some(record), field, message)
}

#[test]
fn the_whole_version_has_no_problem() {
    let data = whole();
    let problems: Vec<String> = validate(&data).iter().map(Problem::to_string).collect();
    assert!(problems.is_empty(), "{problems:#?}");
    let files = [
        data.items.len(),
        data.recipes.len(),
        data.ingredient_groups.len(),
        data.crafting_stations.len(),
        data.crops.len(),
        data.shops.len(),
        data.shopkeepers.len(),
        data.fish.len(),
        data.quests.len(),
        data.perks.len(),
        data.spells.len(),
        data.talents.len(),
        data.reputation.len(),
        data.missions.len(),
        data.letters.len(),
    ];
    assert!(files.iter().all(|&n| n > 0), "every record file has a record to break: {files:?}");
}

const ROWS: &[Row] = &[
    // manifest.json and the English table
    (
        "a format of another generation",
        |d| d.manifest.format = 2,
        &["manifest.json | - | format | format 2 is not supported; this importer reads format 1"],
    ),
    (
        "no English table; the text keys are then not checked",
        |d| {
            d.texts.remove("en");
            item(d, 10).name_key = nowhere();
        },
        &["localization/en.json | - | (file) | the English table is required"],
    ),
    (
        "a key with an empty English text",
        |d| {
            english(d).insert(TextKey::parse("item.10.name").unwrap(), " ".into());
        },
        &[r#"items.json | id 10 (barley) | name_key | text key "item.10.name" has an empty English text"#],
    ),
    (
        "a translation that lacks keys",
        |d| {
            d.texts.get_mut("de").unwrap().clear();
        },
        &[],
    ),
    // items.json
    (
        "two items with one id",
        |d| {
            let mut r = item(d, 10).clone();
            r.slug = slug("barley-2");
            d.items.push(r);
        },
        &["items.json | id 10 (barley-2) | id | id 10 is used by an earlier record of this file"],
    ),
    (
        "two items with one slug",
        |d| {
            let mut r = item(d, 10).clone();
            r.id = 19;
            d.items.push(r);
        },
        &[r#"items.json | id 19 (barley) | slug | slug "barley" is used by an earlier record of this file"#],
    ),
    (
        "an item name missing in English",
        |d| item(d, 10).name_key = nowhere(),
        &["items.json | id 10 (barley) | name_key | \
           text key \"nowhere\" is missing from localization/en.json"],
    ),
    (
        "an item description missing in English",
        |d| item(d, 10).description_key = Some(nowhere()),
        &[r#"items.json | id 10 (barley) | description_key | "nowhere" is missing"#],
    ),
    (
        "an item of no servings",
        |d| item(d, 20).servings = 0,
        &["items.json | id 20 (pale-ale) | servings | must be at least 1"],
    ),
    (
        "an item that fits no slot",
        |d| item(d, 10).stack_size = 0,
        &["items.json | id 10 (barley) | stack_size | must be at least 1"],
    ),
    (
        "a fuel that gives nothing",
        |d| item(d, 11).fuel_value = Some(0),
        &["items.json | id 11 (pale-malt) | fuel_value | must be at least 1"],
    ),
    (
        "a place to gather an item listed twice, and a season twice",
        |d| {
            let gathering = &mut item(d, 10).gathering;
            gathering[1].from = gathering[0].from.clone();
            gathering[0].seasons.push(Season::Summer);
        },
        &[
            "items.json | id 10 (barley) | gathering[0].seasons | season `summer` is listed twice",
            "items.json | id 10 (barley) | gathering[1] | `foraging` from `meadow` is listed twice",
        ],
    ),
    (
        "aging ranks out of order, and one of no days",
        |d| {
            let aging = recipe(d, 103).aging_days.as_mut().unwrap();
            aging.young = 0;
            aging.reserve = 7;
        },
        &[
            "recipes.json | id 103 (pale-ale-2) | aging_days.young | must be at least 1",
            "recipes.json | id 103 (pale-ale-2) | aging_days.reserve | 7 days does not come after `aged` (7 days)",
        ],
    ),
    (
        "aging days for an output that cannot be aged",
        |d| item(d, 20).can_be_aged = false,
        &["recipes.json | id 103 (pale-ale-2) | aging_days | the output, item 20, cannot be aged"],
    ),
    // recipes.json
    (
        "two recipes with one id",
        |d| {
            let mut r = recipe(d, 100).clone();
            r.slug = slug("malt-2");
            d.recipes.push(r);
        },
        &["recipes.json | id 100 (malt-2) | id | id 100 is used by an earlier record of this file"],
    ),
    (
        "two recipes with one slug",
        |d| {
            let mut r = recipe(d, 100).clone();
            r.id = 109;
            d.recipes.push(r);
        },
        &[r#"recipes.json | id 109 (pale-malt) | slug | slug "pale-malt" is used by an earlier record"#],
    ),
    (
        "a recipe name missing in English",
        |d| recipe(d, 100).name_key = nowhere(),
        &[r#"recipes.json | id 100 (pale-malt) | name_key | "nowhere" is missing"#],
    ),
    (
        "a recipe at a station that does not exist",
        |d| recipe(d, 100).station = 9,
        &["recipes.json | id 100 (pale-malt) | station | no crafting station with id 9"],
    ),
    (
        "a recipe at a station named by an item's id",
        |d| recipe(d, 100).station = 10,
        &["recipes.json | id 100 (pale-malt) | station | no crafting station with id 10"],
    ),
    (
        "a recipe making an item that does not exist",
        |d| recipe(d, 100).output.item = 999,
        &["recipes.json | id 100 (pale-malt) | output.item | no item with id 999"],
    ),
    (
        "a recipe making none",
        |d| recipe(d, 100).output.amount = 0,
        &["recipes.json | id 100 (pale-malt) | output.amount | must be at least 1"],
    ),
    (
        "a recipe of no ingredients",
        |d| recipe(d, 100).ingredients.clear(),
        &["recipes.json | id 100 (pale-malt) | ingredients | a recipe needs at least one ingredient"],
    ),
    (
        "an ingredient item that does not exist",
        |d| recipe(d, 101).ingredients[0].input = Input::Item(999),
        &["recipes.json | id 101 (pale-wort) | ingredients[0].item | no item with id 999"],
    ),
    (
        "an ingredient item named by a group's id",
        |d| recipe(d, 101).ingredients[0].input = Input::Item(200),
        &["recipes.json | id 101 (pale-wort) | ingredients[0].item | no item with id 200"],
    ),
    (
        "an ingredient group that does not exist",
        |d| recipe(d, 101).ingredients[1].input = Input::Group(299),
        &["recipes.json | id 101 (pale-wort) | ingredients[1].group | no ingredient group with id 299"],
    ),
    (
        "an ingredient group named by an item's id",
        |d| recipe(d, 101).ingredients[1].input = Input::Group(12),
        &["recipes.json | id 101 (pale-wort) | ingredients[1].group | no ingredient group with id 12"],
    ),
    (
        "an ingredient of no amount",
        |d| recipe(d, 101).ingredients[1].amount = 0,
        &["recipes.json | id 101 (pale-wort) | ingredients[1].amount | must be at least 1"],
    ),
    (
        "a recipe made in no time",
        |d| recipe(d, 100).craft_minutes = 0,
        &["recipes.json | id 100 (pale-malt) | craft_minutes | must be at least 1"],
    ),
    (
        "unlocks by quest and talent resolve too",
        |d| {
            recipe(d, 100).unlock = Unlock::Quest { key: key("quest.first-brew") };
            recipe(d, 101).unlock = Unlock::Talent { key: key("Talent Brewing 02") };
        },
        &[],
    ),
    (
        "an unlock by a reputation that does not exist",
        |d| recipe(d, 100).unlock = Unlock::Reputation { key: key("nowhere") },
        &[r#"recipes.json | id 100 (pale-malt) | unlock.key | key "nowhere" in reputation.json"#],
    ),
    (
        "an unlock by a perk that does not exist",
        |d| recipe(d, 100).unlock = Unlock::Perk { key: key("nowhere") },
        &[r#"recipes.json | id 100 (pale-malt) | unlock.key | no record with key "nowhere" in perks.json"#],
    ),
    (
        "an unlock by a quest that does not exist",
        |d| recipe(d, 100).unlock = Unlock::Quest { key: key("nowhere") },
        &[r#"recipes.json | id 100 (pale-malt) | unlock.key | no record with key "nowhere" in quests.json"#],
    ),
    (
        "an unlock by a talent that does not exist",
        |d| recipe(d, 100).unlock = Unlock::Talent { key: key("nowhere") },
        &[r#"recipes.json | id 100 (pale-malt) | unlock.key | no record with key "nowhere" in talents.json"#],
    ),
    (
        "an unlock by a mission that does not exist",
        |d| recipe(d, 100).unlock = Unlock::Mission { key: key("nowhere") },
        &[r#"recipes.json | id 100 (pale-malt) | unlock.key | key "nowhere" in missions.json"#],
    ),
    (
        "an unlock by a perk named by a quest's key",
        |d| recipe(d, 100).unlock = Unlock::Perk { key: key("quest.first-brew") },
        &[r#"recipes.json | id 100 (pale-malt) | unlock.key | key "quest.first-brew" in perks.json"#],
    ),
    (
        "an unlock by a mission named by a spell's key",
        |d| recipe(d, 100).unlock = Unlock::Mission { key: key("spell.warm-hearth") },
        &[r#"recipes.json | id 100 (pale-malt) | unlock.key | key "spell.warm-hearth" in missions.json"#],
    ),
    (
        "a replacement that does not exist",
        |d| recipe(d, 102).replaced_by = Some(109),
        &["recipes.json | id 102 (pale-ale) | replaced_by | no recipe with id 109"],
    ),
    (
        "a recipe replacing itself, which is also a cycle of replacements",
        |d| recipe(d, 103).replaced_by = Some(103),
        &[
            "recipes.json | id 103 (pale-ale-2) | replaced_by | a recipe cannot replace itself",
            "recipes.json | id 103 (pale-ale-2) | replaced_by | the chain of replacements leads back",
        ],
    ),
    (
        "a replacement making another item",
        |d| recipe(d, 100).replaced_by = Some(102),
        &["recipes.json | id 100 (pale-malt) | replaced_by | makes item 20, not this recipe's output 11"],
    ),
    (
        "two recipes replacing each other",
        |d| recipe(d, 103).replaced_by = Some(102),
        &[
            "recipes.json | id 102 (pale-ale) | replaced_by | the chain of replacements leads back",
            "recipes.json | id 103 (pale-ale-2) | replaced_by | the chain of replacements leads back",
        ],
    ),
    (
        "a chain of replacements running into a cycle: only the recipes on it are reported",
        |d| {
            let mut third = recipe(d, 103).clone();
            (third.id, third.slug, third.replaced_by) = (104, slug("pale-ale-3"), Some(103));
            recipe(d, 103).replaced_by = Some(104);
            d.recipes.push(third);
        },
        &[
            "recipes.json | id 103 (pale-ale-2) | replaced_by | the chain of replacements leads back",
            "recipes.json | id 104 (pale-ale-3) | replaced_by | the chain of replacements leads back",
        ],
    ),
    // The recipe graph, reported after every file's own rules
    (
        "a recipe needing its own output",
        |d| recipe(d, 100).ingredients.push(from(json!({"item": 11, "amount": 1}))),
        &["recipes.json | id 100 (pale-malt) | ingredients | \
           the recipe graph has a cycle: \
           item 11 is needed to make itself (items 11 -> 11, through recipes [100])"],
    ),
    (
        "a recipe needing its own output through other recipes",
        |d| recipe(d, 100).ingredients.push(from(json!({"item": 20, "amount": 1}))),
        &["recipes.json | id 101 (pale-wort) | ingredients | \
           item 11 is needed to make itself (items 11 -> 20 -> 16 -> 11, through recipes [100, 102, 101])"],
    ),
    (
        "a recipe needing its own output through a group; each recipe closing the cycle is reported",
        |d| d.ingredient_groups[0].members.push(20),
        &[
            "recipes.json | id 102 (pale-ale) | ingredients | \
             item 16 is needed to make itself (items 16 -> 20 -> 16, through recipes [101, 102])",
            "recipes.json | id 103 (pale-ale-2) | ingredients | \
             item 16 is needed to make itself (items 16 -> 20 -> 16, through recipes [101, 103])",
        ],
    ),
    // ingredient_groups.json
    (
        "two groups with one id",
        |d| {
            let mut r = d.ingredient_groups[0].clone();
            r.slug = slug("hops-2");
            d.ingredient_groups.push(r);
        },
        &["ingredient_groups.json | id 200 (hops-2) | id | id 200 is used by an earlier record of this file"],
    ),
    (
        "two groups with one slug",
        |d| {
            let mut r = d.ingredient_groups[0].clone();
            r.id = 201;
            d.ingredient_groups.push(r);
        },
        &["ingredient_groups.json | id 201 (any-hops) | slug | \
           slug \"any-hops\" is used by an earlier record of this file"],
    ),
    (
        "a group name missing in English",
        |d| d.ingredient_groups[0].name_key = nowhere(),
        &[r#"ingredient_groups.json | id 200 (any-hops) | name_key | "nowhere" is missing"#],
    ),
    (
        "a group of no members",
        |d| d.ingredient_groups[0].members.clear(),
        &["ingredient_groups.json | id 200 (any-hops) | members | a group needs at least one member"],
    ),
    (
        "a group member that does not exist",
        |d| d.ingredient_groups[0].members.push(999),
        &["ingredient_groups.json | id 200 (any-hops) | members[2] | no item with id 999"],
    ),
    (
        "a group member listed twice",
        |d| d.ingredient_groups[0].members.push(12),
        &["ingredient_groups.json | id 200 (any-hops) | members | item 12 is listed twice"],
    ),
    // crafting_stations.json
    (
        "two stations with one id",
        |d| {
            let mut r = d.crafting_stations[0].clone();
            r.slug = slug("floor-2");
            d.crafting_stations.push(r);
        },
        &["crafting_stations.json | id 1 (floor-2) | id | id 1 is used by an earlier record of this file"],
    ),
    (
        "two stations with one slug",
        |d| {
            let mut r = d.crafting_stations[0].clone();
            r.id = 3;
            d.crafting_stations.push(r);
        },
        &["crafting_stations.json | id 3 (malting-floor) | slug | \
           slug \"malting-floor\" is used by an earlier record of this file"],
    ),
    (
        "a station name missing in English",
        |d| d.crafting_stations[0].name_key = nowhere(),
        &[r#"crafting_stations.json | id 1 (malting-floor) | name_key | "nowhere" is missing"#],
    ),
    (
        "a station description missing in English",
        |d| d.crafting_stations[1].description_key = Some(nowhere()),
        &[r#"crafting_stations.json | id 2 (brew-kettle) | description_key | "nowhere" is missing"#],
    ),
    // crops.json
    (
        "two crops with one id",
        |d| {
            let mut r = d.crops[0].clone();
            r.slug = slug("barley-2");
            d.crops.push(r);
        },
        &["crops.json | id 300 (barley-2) | id | id 300 is used by an earlier record of this file"],
    ),
    (
        "two crops with one slug",
        |d| {
            let mut r = d.crops[0].clone();
            r.id = 301;
            d.crops.push(r);
        },
        &[r#"crops.json | id 301 (barley) | slug | slug "barley" is used by an earlier record of this file"#],
    ),
    (
        "a crop name missing in English",
        |d| d.crops[0].name_key = nowhere(),
        &[r#"crops.json | id 300 (barley) | name_key | "nowhere" is missing"#],
    ),
    (
        "a seed that does not exist",
        |d| d.crops[0].seed = 999,
        &["crops.json | id 300 (barley) | seed | no item with id 999"],
    ),
    (
        "a seed that is not of kind seed",
        |d| d.crops[0].seed = 10,
        &["crops.json | id 300 (barley) | seed | item 10 is of kind `ingredient`, not `seed`"],
    ),
    (
        "a harvest of an item that does not exist",
        |d| d.crops[0].harvest.item = 999,
        &["crops.json | id 300 (barley) | harvest.item | no item with id 999"],
    ),
    (
        "a harvest of at least none",
        |d| d.crops[0].harvest.min = 0,
        &["crops.json | id 300 (barley) | harvest.min | must be at least 1"],
    ),
    (
        "a harvest whose most is below its least",
        |d| d.crops[0].harvest.max = 0,
        &["crops.json | id 300 (barley) | harvest.max | must be at least `harvest.min`"],
    ),
    (
        "a crop of no season",
        |d| d.crops[0].seasons.clear(),
        &["crops.json | id 300 (barley) | seasons | must name at least one season"],
    ),
    (
        "a crop season listed twice",
        |d| d.crops[0].seasons.push(Season::Spring),
        &["crops.json | id 300 (barley) | seasons | season `spring` is listed twice"],
    ),
    (
        "a crop grown in no days",
        |d| d.crops[0].days_to_grow = 0,
        &["crops.json | id 300 (barley) | days_to_grow | must be at least 1"],
    ),
    (
        "a reusable crop with its regrow days",
        |d| (d.crops[0].reusable, d.crops[0].regrow_days) = (true, Some(3)),
        &[],
    ),
    (
        "a reusable crop without regrow days",
        |d| d.crops[0].reusable = true,
        &["crops.json | id 300 (barley) | regrow_days | a reusable crop needs `regrow_days`"],
    ),
    (
        "regrow days of a crop that is not reusable",
        |d| d.crops[0].regrow_days = Some(3),
        &["crops.json | id 300 (barley) | regrow_days | only a reusable crop has `regrow_days`"],
    ),
    (
        "a reusable crop regrowing in no days",
        |d| (d.crops[0].reusable, d.crops[0].regrow_days) = (true, Some(0)),
        &["crops.json | id 300 (barley) | regrow_days | must be at least 1"],
    ),
    // shops.json
    (
        "two shops with one id",
        |d| {
            let mut r = d.shops[0].clone();
            r.slug = slug("store-2");
            d.shops.push(r);
        },
        &["shops.json | id 400 (store-2) | id | id 400 is used by an earlier record of this file"],
    ),
    (
        "two shops with one slug",
        |d| {
            let mut r = d.shops[0].clone();
            r.id = 401;
            d.shops.push(r);
        },
        &[r#"shops.json | id 401 (mill-store) | slug | slug "mill-store" is used by an earlier record"#],
    ),
    (
        "a shop name missing in English",
        |d| d.shops[0].name_key = nowhere(),
        &[r#"shops.json | id 400 (mill-store) | name_key | "nowhere" is missing"#],
    ),
    (
        "a shopkeeper that does not exist",
        |d| d.shops[0].shopkeeper = 999,
        &["shops.json | id 400 (mill-store) | shopkeeper | no shopkeeper with id 999"],
    ),
    (
        "a shopkeeper named by the shop's own id",
        |d| d.shops[0].shopkeeper = 400,
        &["shops.json | id 400 (mill-store) | shopkeeper | no shopkeeper with id 400"],
    ),
    ("a shop open all day", |d| (d.shops[0].opens_at, d.shops[0].closes_at) = (0, 24), &[]),
    (
        "a shop opening at hour 24, which no closing hour can follow",
        |d| d.shops[0].opens_at = 24,
        &[
            "shops.json | id 400 (mill-store) | opens_at | an hour from 0 to 23",
            "shops.json | id 400 (mill-store) | closes_at | an hour from 1 to 24, after `opens_at`",
        ],
    ),
    (
        "a shop closing at hour 0",
        |d| (d.shops[0].opens_at, d.shops[0].closes_at) = (0, 0),
        &["shops.json | id 400 (mill-store) | closes_at | an hour from 1 to 24, after `opens_at`"],
    ),
    (
        "a shop closing at hour 25",
        |d| d.shops[0].closes_at = 25,
        &["shops.json | id 400 (mill-store) | closes_at | an hour from 1 to 24, after `opens_at`"],
    ),
    (
        "a shop closing when it opens",
        |d| d.shops[0].closes_at = 8,
        &["shops.json | id 400 (mill-store) | closes_at | an hour from 1 to 24, after `opens_at`"],
    ),
    (
        "a shop selling an item that does not exist",
        |d| d.shops[0].catalogue[1].item = 999,
        &["shops.json | id 400 (mill-store) | catalogue[1].item | no item with id 999"],
    ),
    (
        "a shop selling an item twice",
        |d| d.shops[0].catalogue[1].item = 30,
        &["shops.json | id 400 (mill-store) | catalogue[1].item | item 30 is listed twice"],
    ),
    (
        "a shop giving an item away",
        |d| d.shops[0].catalogue[0].price = 0,
        &["shops.json | id 400 (mill-store) | catalogue[0].price | must be at least 1"],
    ),
    (
        "a catalogue season listed twice",
        |d| d.shops[0].catalogue[0].seasons.push(Season::Spring),
        &["shops.json | id 400 (mill-store) | catalogue[0].seasons | season `spring` is listed twice"],
    ),
    // shopkeepers.json
    (
        "two shopkeepers with one id",
        |d| {
            let mut r = d.shopkeepers[0].clone();
            r.slug = slug("odile-2");
            d.shopkeepers.push(r);
        },
        &["shopkeepers.json | id 500 (odile-2) | id | id 500 is used by an earlier record of this file"],
    ),
    (
        "two shopkeepers with one slug",
        |d| {
            let mut r = d.shopkeepers[0].clone();
            r.id = 501;
            d.shopkeepers.push(r);
        },
        &[r#"shopkeepers.json | id 501 (odile) | slug | slug "odile" is used by an earlier record"#],
    ),
    (
        "a shopkeeper name missing in English",
        |d| d.shopkeepers[0].name_key = nowhere(),
        &[r#"shopkeepers.json | id 500 (odile) | name_key | "nowhere" is missing"#],
    ),
    (
        "a shopkeeper title missing in English",
        |d| d.shopkeepers[0].title_key = nowhere(),
        &[r#"shopkeepers.json | id 500 (odile) | title_key | "nowhere" is missing"#],
    ),
    ("a birthday on the last day of a season", |d| d.shopkeepers[0].birthday.day = 28, &[]),
    (
        "a birthday on day 0",
        |d| d.shopkeepers[0].birthday.day = 0,
        &["shopkeepers.json | id 500 (odile) | birthday.day | a season has days 1 to 28"],
    ),
    (
        "a birthday on day 29",
        |d| d.shopkeepers[0].birthday.day = 29,
        &["shopkeepers.json | id 500 (odile) | birthday.day | a season has days 1 to 28"],
    ),
    // fish.json: records without a slug
    (
        "two fish with one id",
        |d| {
            let mut r = d.fish[0].clone();
            r.item = 41;
            d.fish.push(r);
        },
        &["fish.json | id 600 | id | id 600 is used by an earlier record of this file"],
    ),
    (
        "two fish of one item",
        |d| {
            let mut r = d.fish[0].clone();
            r.id = 601;
            d.fish.push(r);
        },
        &["fish.json | id 601 | item | item 40 already has a fish record"],
    ),
    (
        "a fish of an item that does not exist",
        |d| d.fish[0].item = 999,
        &["fish.json | id 600 | item | no item with id 999"],
    ),
    (
        "a fish of an item that is not of kind fish",
        |d| d.fish[0].item = 30,
        &["fish.json | id 600 | item | item 30 is of kind `seed`, not `fish`"],
    ),
    (
        "a fish of no season",
        |d| d.fish[0].seasons.clear(),
        &["fish.json | id 600 | seasons | must name at least one season"],
    ),
    (
        "a fish season listed twice",
        |d| d.fish[0].seasons.push(Season::Autumn),
        &["fish.json | id 600 | seasons | season `autumn` is listed twice"],
    ),
    // The keys and texts of the progression files
    (
        "two quests with one key",
        |d| {
            let r = d.quests[0].clone();
            d.quests.push(r);
        },
        &[r#"quests.json | key "quest.first-brew" | key | "quest.first-brew" is used by an earlier record"#],
    ),
    (
        "two perks with one key",
        |d| {
            let r = d.perks[0].clone();
            d.perks.push(r);
        },
        &[r#"perks.json | key "Perk_Brewing_1" | key | key "Perk_Brewing_1" is used by an earlier record"#],
    ),
    (
        "two spells with one key",
        |d| {
            let r = d.spells[0].clone();
            d.spells.push(r);
        },
        &[r#"spells.json | key "spell.warm-hearth" | key | is used by an earlier record of this file"#],
    ),
    (
        "two talents with one key",
        |d| {
            let r = d.talents[0].clone();
            d.talents.push(r);
        },
        &[r#"talents.json | key "Talent Brewing 01" | key | is used by an earlier record of this file"#],
    ),
    (
        "two milestones with one key, and so one level",
        |d| {
            let r = d.reputation[0].clone();
            d.reputation.push(r);
        },
        &[
            r#"reputation.json | key "rep_01" | key | key "rep_01" is used by an earlier record"#,
            r#"reputation.json | key "rep_01" | level | level 1 is used by an earlier milestone"#,
        ],
    ),
    (
        "two missions with one key",
        |d| {
            let r = d.missions[0].clone();
            d.missions.push(r);
        },
        &[r#"missions.json | key "Mission 01" | key | key "Mission 01" is used by an earlier record"#],
    ),
    (
        "two letters with one key",
        |d| {
            let r = d.letters[0].clone();
            d.letters.push(r);
        },
        &[r#"letters.json | key "Odile's Welcome" | key | is used by an earlier record of this file"#],
    ),
    (
        "a quest name missing in English",
        |d| d.quests[0].name_key = nowhere(),
        &[r#"quests.json | key "quest.first-brew" | name_key | "nowhere" is missing"#],
    ),
    (
        "a quest description missing in English",
        |d| d.quests[0].description_key = nowhere(),
        &[r#"quests.json | key "quest.first-brew" | description_key | "nowhere" is missing"#],
    ),
    (
        "a perk name missing in English",
        |d| d.perks[0].name_key = nowhere(),
        &[r#"perks.json | key "Perk_Brewing_1" | name_key | "nowhere" is missing"#],
    ),
    (
        "a perk description missing in English",
        |d| d.perks[0].description_key = nowhere(),
        &[r#"perks.json | key "Perk_Brewing_1" | description_key | "nowhere" is missing"#],
    ),
    (
        "a spell name missing in English",
        |d| d.spells[0].name_key = nowhere(),
        &[r#"spells.json | key "spell.warm-hearth" | name_key | "nowhere" is missing"#],
    ),
    (
        "a spell description missing in English",
        |d| d.spells[0].description_key = nowhere(),
        &[r#"spells.json | key "spell.warm-hearth" | description_key | "nowhere" is missing"#],
    ),
    (
        "a talent name missing in English",
        |d| d.talents[0].name_key = nowhere(),
        &[r#"talents.json | key "Talent Brewing 01" | name_key | "nowhere" is missing"#],
    ),
    (
        "a talent description missing in English",
        |d| d.talents[0].description_key = nowhere(),
        &[r#"talents.json | key "Talent Brewing 01" | description_key | "nowhere" is missing"#],
    ),
    (
        "a milestone name missing in English",
        |d| d.reputation[0].name_key = nowhere(),
        &[r#"reputation.json | key "rep_01" | name_key | "nowhere" is missing"#],
    ),
    (
        "a milestone description missing in English",
        |d| d.reputation[0].description_key = nowhere(),
        &[r#"reputation.json | key "rep_01" | description_key | "nowhere" is missing"#],
    ),
    (
        "a mission name missing in English",
        |d| d.missions[0].name_key = nowhere(),
        &[r#"missions.json | key "Mission 01" | name_key | "nowhere" is missing"#],
    ),
    (
        "a mission description missing in English",
        |d| d.missions[0].description_key = nowhere(),
        &[r#"missions.json | key "Mission 01" | description_key | "nowhere" is missing"#],
    ),
    (
        "a letter subject missing in English",
        |d| d.letters[0].name_key = nowhere(),
        &[r#"letters.json | key "Odile's Welcome" | name_key | "nowhere" is missing"#],
    ),
    (
        "a letter text missing in English",
        |d| d.letters[0].description_key = nowhere(),
        &[r#"letters.json | key "Odile's Welcome" | description_key | "nowhere" is missing"#],
    ),
    // quests.json
    (
        "a quest giver that does not exist",
        |d| d.quests[0].giver = Some(999),
        &[r#"quests.json | key "quest.first-brew" | giver | no shopkeeper with id 999"#],
    ),
    (
        "a quest requiring itself",
        |d| d.quests[1].requires.push(key("quest.second-brew")),
        &[r#"quests.json | key "quest.second-brew" | requires[1] | a record cannot require itself"#],
    ),
    (
        "a quest requiring a quest that does not exist",
        |d| d.quests[1].requires[0] = key("nowhere"),
        &[r#"quests.json | key "quest.second-brew" | requires[0] | key "nowhere" in quests.json"#],
    ),
    (
        "a quest requiring a perk",
        |d| d.quests[1].requires[0] = key("Perk_Brewing_1"),
        &[r#"quests.json | key "quest.second-brew" | requires[0] | key "Perk_Brewing_1" in quests.json"#],
    ),
    (
        "an objective item that does not exist",
        |d| d.quests[0].objectives[0].item = 999,
        &[r#"quests.json | key "quest.first-brew" | objectives[0].item | no item with id 999"#],
    ),
    (
        "an objective of no amount",
        |d| d.quests[0].objectives[0].amount = 0,
        &[r#"quests.json | key "quest.first-brew" | objectives[0].amount | must be at least 1"#],
    ),
    (
        "a quest rewarding an item that does not exist",
        |d| d.quests[0].rewards.items[0].item = 999,
        &[r#"quests.json | key "quest.first-brew" | rewards.items[0].item | no item with id 999"#],
    ),
    (
        "a quest rewarding none of an item",
        |d| d.quests[0].rewards.items[0].amount = 0,
        &[r#"quests.json | key "quest.first-brew" | rewards.items[0].amount | must be at least 1"#],
    ),
    (
        "a quest rewarding a recipe that does not exist",
        |d| d.quests[0].rewards.recipes.push(999),
        &[r#"quests.json | key "quest.first-brew" | rewards.recipes[1] | no recipe with id 999"#],
    ),
    (
        "a quest rewarding a recipe named by an item's id",
        |d| d.quests[0].rewards.recipes[0] = 20,
        &[r#"quests.json | key "quest.first-brew" | rewards.recipes[0] | no recipe with id 20"#],
    ),
    // perks.json
    (
        "a perk of tier 0",
        |d| d.perks[0].tier = 0,
        &[r#"perks.json | key "Perk_Brewing_1" | tier | a tier from 1 to 5"#],
    ),
    (
        "a perk of tier 6",
        |d| d.perks[0].tier = 6,
        &[r#"perks.json | key "Perk_Brewing_1" | tier | a tier from 1 to 5"#],
    ),
    ("a perk of tier 5", |d| d.perks[0].tier = 5, &[]),
    (
        "a perk that costs nothing",
        |d| d.perks[0].cost = 0,
        &[r#"perks.json | key "Perk_Brewing_1" | cost | must be at least 1"#],
    ),
    (
        "a perk requiring itself",
        |d| d.perks[1].requires[0] = key("Perk_Brewing_2"),
        &[r#"perks.json | key "Perk_Brewing_2" | requires[0] | a record cannot require itself"#],
    ),
    (
        "a perk requiring a talent",
        |d| d.perks[1].requires[0] = key("Talent Brewing 01"),
        &[r#"perks.json | key "Perk_Brewing_2" | requires[0] | key "Talent Brewing 01" in perks.json"#],
    ),
    // talents.json
    (
        "a talent of no rank",
        |d| d.talents[0].max_rank = 0,
        &[r#"talents.json | key "Talent Brewing 01" | max_rank | must be at least 1"#],
    ),
    (
        "a talent requiring itself",
        |d| d.talents[1].requires[0] = key("Talent Brewing 02"),
        &[r#"talents.json | key "Talent Brewing 02" | requires[0] | a record cannot require itself"#],
    ),
    (
        "a talent requiring a perk",
        |d| d.talents[1].requires[0] = key("Perk_Brewing_1"),
        &[r#"talents.json | key "Talent Brewing 02" | requires[0] | key "Perk_Brewing_1" in talents.json"#],
    ),
    // reputation.json
    ("milestones listed out of level order", |d| d.reputation.reverse(), &[]),
    (
        "a milestone of level 0",
        |d| d.reputation[0].level = 0,
        &[r#"reputation.json | key "rep_01" | level | must be at least 1"#],
    ),
    (
        "two milestones of one level",
        |d| d.reputation[0].level = 2,
        &[r#"reputation.json | key "rep_02" | level | level 2 is used by an earlier milestone"#],
    ),
    (
        "a higher level needing as many points",
        |d| d.reputation[1].points = 0,
        &[r#"reputation.json | key "rep_02" | points | level 2 needs more points than level 1 (0)"#],
    ),
    (
        "a repeated key on a higher level needing as many points: only that milestone is told",
        |d| {
            d.reputation[1].key = key("rep_01");
            d.reputation[1].points = 0;
        },
        &[
            r#"reputation.json | key "rep_01" | key | key "rep_01" is used by an earlier record"#,
            r#"reputation.json | key "rep_01" | points | level 2 needs more points than level 1 (0)"#,
            r#"letters.json | key "Fame at Last" | trigger.key | no record with key "rep_02" in reputation.json"#,
        ],
    ),
    (
        "a higher level, listed first, needing fewer points",
        |d| {
            d.reputation[0].points = 150;
            d.reputation.reverse();
        },
        &[r#"reputation.json | key "rep_02" | points | level 2 needs more points than level 1 (150)"#],
    ),
    (
        "a milestone rewarding an item that does not exist",
        |d| d.reputation[1].rewards.items[0].item = 999,
        &[r#"reputation.json | key "rep_02" | rewards.items[0].item | no item with id 999"#],
    ),
    (
        "a milestone rewarding a recipe that does not exist",
        |d| d.reputation[1].rewards.recipes[0] = 999,
        &[r#"reputation.json | key "rep_02" | rewards.recipes[0] | no recipe with id 999"#],
    ),
    // missions.json
    (
        "a mission of no days",
        |d| d.missions[0].duration_days = 0,
        &[r#"missions.json | key "Mission 01" | duration_days | must be at least 1"#],
    ),
    (
        "a mission needing a reputation level that does not exist",
        |d| d.missions[0].min_reputation = Some(9),
        &[r#"missions.json | key "Mission 01" | min_reputation | no reputation milestone has level 9"#],
    ),
    (
        "a mission rewarding none of an item",
        |d| d.missions[0].rewards.items[0].amount = 0,
        &[r#"missions.json | key "Mission 01" | rewards.items[0].amount | must be at least 1"#],
    ),
    (
        "a mission rewarding a recipe that does not exist",
        |d| d.missions[0].rewards.recipes[0] = 999,
        &[r#"missions.json | key "Mission 01" | rewards.recipes[0] | no recipe with id 999"#],
    ),
    // letters.json
    (
        "a letter sender that does not exist",
        |d| d.letters[0].sender = Some(999),
        &[r#"letters.json | key "Odile's Welcome" | sender | no shopkeeper with id 999"#],
    ),
    (
        "a letter arriving on day 0",
        |d| d.letters[0].trigger = LetterTrigger::Day { season: Season::Winter, day: 0 },
        &[r#"letters.json | key "Odile's Welcome" | trigger.day | a season has days 1 to 28"#],
    ),
    (
        "a letter arriving on day 29",
        |d| d.letters[0].trigger = LetterTrigger::Day { season: Season::Winter, day: 29 },
        &[r#"letters.json | key "Odile's Welcome" | trigger.day | a season has days 1 to 28"#],
    ),
    (
        "a letter after a quest that does not exist",
        |d| d.letters[1].trigger = LetterTrigger::Quest { key: key("nowhere") },
        &[r#"letters.json | key "Brewer's Note" | trigger.key | key "nowhere" in quests.json"#],
    ),
    (
        "a letter after a quest named by a milestone's key",
        |d| d.letters[1].trigger = LetterTrigger::Quest { key: key("rep_02") },
        &[r#"letters.json | key "Brewer's Note" | trigger.key | no record with key "rep_02" in quests.json"#],
    ),
    (
        "a letter at a reputation that does not exist",
        |d| d.letters[2].trigger = LetterTrigger::Reputation { key: key("nowhere") },
        &[r#"letters.json | key "Fame at Last" | trigger.key | key "nowhere" in reputation.json"#],
    ),
    (
        "a letter at a reputation named by a quest's key",
        |d| d.letters[2].trigger = LetterTrigger::Reputation { key: key("quest.first-brew") },
        &[r#"letters.json | key "Fame at Last" | trigger.key | key "quest.first-brew" in reputation.json"#],
    ),
    (
        "a letter attaching an item that does not exist",
        |d| d.letters[0].attachments[0].item = 999,
        &[r#"letters.json | key "Odile's Welcome" | attachments[0].item | no item with id 999"#],
    ),
    (
        "a letter attaching none of an item",
        |d| d.letters[0].attachments[0].amount = 0,
        &[r#"letters.json | key "Odile's Welcome" | attachments[0].amount | must be at least 1"#],
    ),
];

/// Whether `found` is exactly the problems `want` names, in the same order.
fn matches(want: &[Want], found: &[Problem]) -> bool {
    want.len() == found.len()
        && want.iter().zip(found).all(|(&want, problem)| {
            let (file, record, field, message) = parts(want);
            problem.file == file
                && problem.record.as_deref() == record
                && problem.field == field
                && problem.message.contains(message)
        })
}

/// `want` and `found` one problem a line, to read side by side when a row fails.
fn describe(want: &[Want], found: &[Problem]) -> String {
    let lines = |lines: Vec<String>| {
        if lines.is_empty() {
            "    (none)\n".to_owned()
        } else {
            lines.iter().map(|line| format!("    {line}\n")).collect()
        }
    };
    let want = lines(want.iter().map(|w| w.to_string()).collect());
    let found = lines(found.iter().map(Problem::to_string).collect());
    format!("  expected:\n{want}  found:\n{found}")
}

#[test]
fn each_broken_rule_is_reported_where_it_is_broken_and_nothing_else() {
    let mut names = std::collections::HashSet::new();
    let mut failures = Vec::new();
    for &(name, mutate, want) in ROWS {
        assert!(names.insert(name), "two rows are named {name:?}");
        let mut data = whole();
        mutate(&mut data);
        let found = validate(&data);
        if !matches(want, &found) {
            failures.push(format!("row {name:?}:\n{}", describe(want, &found)));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rows failed:\n{}",
        failures.len(),
        ROWS.len(),
        failures.join("\n")
    );
}

/// Problems in many files come back all of them, in the order of the data format's files and of
/// the records within a file; a recipe cycle, found over the whole recipe graph, after the other
/// problems of `recipes.json`.
#[test]
fn every_problem_is_reported_in_file_order() {
    let mut data = whole();
    data.manifest.format = 7;
    item(&mut data, 10).servings = 0;
    item(&mut data, 20).name_key = nowhere();
    recipe(&mut data, 100).station = 9;
    recipe(&mut data, 103).output.amount = 0;
    recipe(&mut data, 100).ingredients.push(from(json!({"item": 11, "amount": 1})));
    data.ingredient_groups[0].members.push(13);
    data.crafting_stations[1].description_key = Some(nowhere());
    data.crops[0].days_to_grow = 0;
    data.shops[0].catalogue[1].price = 0;
    data.shopkeepers[0].birthday.day = 30;
    data.fish[0].seasons.clear();
    data.quests[0].giver = Some(9);
    data.quests[1].name_key = nowhere();
    data.quests[1].objectives[0].amount = 0;
    data.perks[0].tier = 9;
    data.talents[1].max_rank = 0;
    data.reputation[1].rewards.recipes[0] = 9;
    data.missions[0].duration_days = 0;
    data.letters[0].sender = Some(9);
    data.letters[2].name_key = nowhere();
    data.letters[2].attachments.push(amount(9, 1));
    let want: &[Want] = &[
        "manifest.json | - | format | format 7 is not supported",
        "items.json | id 10 (barley) | servings | must be at least 1",
        r#"items.json | id 20 (pale-ale) | name_key | "nowhere" is missing"#,
        "recipes.json | id 100 (pale-malt) | station | no crafting station with id 9",
        "recipes.json | id 103 (pale-ale-2) | output.amount | must be at least 1",
        "recipes.json | id 100 (pale-malt) | ingredients | item 11 is needed to make itself",
        "ingredient_groups.json | id 200 (any-hops) | members | item 13 is listed twice",
        r#"crafting_stations.json | id 2 (brew-kettle) | description_key | "nowhere" is missing"#,
        "crops.json | id 300 (barley) | days_to_grow | must be at least 1",
        "shops.json | id 400 (mill-store) | catalogue[1].price | must be at least 1",
        "shopkeepers.json | id 500 (odile) | birthday.day | a season has days 1 to 28",
        "fish.json | id 600 | seasons | must name at least one season",
        r#"quests.json | key "quest.first-brew" | giver | no shopkeeper with id 9"#,
        r#"quests.json | key "quest.second-brew" | name_key | "nowhere" is missing"#,
        r#"quests.json | key "quest.second-brew" | objectives[0].amount | must be at least 1"#,
        r#"perks.json | key "Perk_Brewing_1" | tier | a tier from 1 to 5"#,
        r#"talents.json | key "Talent Brewing 02" | max_rank | must be at least 1"#,
        r#"reputation.json | key "rep_02" | rewards.recipes[0] | no recipe with id 9"#,
        r#"missions.json | key "Mission 01" | duration_days | must be at least 1"#,
        r#"letters.json | key "Odile's Welcome" | sender | no shopkeeper with id 9"#,
        r#"letters.json | key "Fame at Last" | name_key | "nowhere" is missing"#,
        r#"letters.json | key "Fame at Last" | attachments[0].item | no item with id 9"#,
    ];
    let found = validate(&data);
    assert!(matches(want, &found), "\n{}", describe(want, &found));
}

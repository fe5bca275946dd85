//! Ingredient trees, used-in and sources: exact answers on the small dataset, the arithmetic of a
//! tree checked node by node against the recipes on the bundled one, pages walked to the end,
//! fallbacks pointing at English texts, and every key and parameter error.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::{Answer, assert_fallbacks_are_english, bundled_get, data, get, pointer, walk};

/// The item nodes of a tree, each with its pointer, depth first in document order.
fn item_nodes<'a>(node: &'a Value, at: String, out: &mut Vec<(String, &'a Value)>) {
    match node["kind"].as_str() {
        Some("item") => {
            out.push((at.clone(), node));
            for (i, child) in node["children"].as_array().unwrap().iter().enumerate() {
                item_nodes(child, format!("{at}/children/{i}"), out);
            }
        }
        Some("group") => {
            if !node["chosen"].is_null() {
                item_nodes(&node["chosen"], format!("{at}/chosen"), out);
            }
        }
        other => panic!("{at} has kind {other:?}"),
    }
}

/// How many levels of items a tree has.
fn depth(node: &Value) -> usize {
    let node = if node["kind"] == "group" { &node["chosen"] } else { node };
    if node.is_null() {
        return 0;
    }
    1 + node["children"].as_array().unwrap().iter().map(depth).max().unwrap_or(0)
}

/// Checks every crafted node of `tree` against its recipe as `/v1/recipes/{id}` gives it: crafts
/// are the amount over the units one craft makes, rounded up, and each child's amount is the crafts
/// times the ingredient's amount, item for item and group for group.
fn check_arithmetic(tree: &Value, fetch: &dyn Fn(&str) -> Answer) {
    let mut nodes = Vec::new();
    item_nodes(tree, "/data".into(), &mut nodes);
    let mut recipes: BTreeMap<i64, Value> = BTreeMap::new();
    for (at, node) in nodes {
        if node["recipe"].is_null() {
            assert!(node["crafts"].is_null() && node["children"] == json!([]), "{at}: {node}");
            continue;
        }
        let id = node["recipe"]["id"].as_i64().unwrap();
        let recipe =
            recipes.entry(id).or_insert_with(|| fetch(&format!("/v1/recipes/{id}")).json()["data"].clone());
        assert_eq!(node["item"]["id"], recipe["output"]["item"]["id"], "{at}");
        let made = recipe["output"]["amount"].as_u64().unwrap();
        let amount = node["amount"].as_u64().unwrap();
        let crafts = node["crafts"].as_u64().unwrap();
        assert_eq!(crafts, amount.div_ceil(made), "{at}");
        if node["truncated"] == true {
            continue;
        }
        let ingredients = recipe["ingredients"].as_array().unwrap();
        let children = node["children"].as_array().unwrap();
        assert_eq!(children.len(), ingredients.len(), "{at}");
        for (i, (child, ingredient)) in children.iter().zip(ingredients).enumerate() {
            let per_craft = ingredient["amount"].as_u64().unwrap();
            assert_eq!(child["amount"].as_u64().unwrap(), crafts * per_craft, "{at}/children/{i}");
            if child["kind"] == "group" {
                assert_eq!(child["group"]["id"], ingredient["group"]["id"], "{at}/children/{i}");
                assert_eq!(child["chosen"]["amount"], child["amount"], "{at}/children/{i}");
            } else {
                assert_eq!(child["item"]["id"], ingredient["item"]["id"], "{at}/children/{i}");
            }
        }
    }
}

#[test]
fn the_tree_of_a_recipe_multiplies_amounts_down_to_raw_materials() {
    let body = get("/v1/recipes/pale-ale-2/tree?version=v1.0.0.0.1").json();
    let expected = json!({
        "kind": "item",
        "item": {"id": 20, "slug": "pale-ale", "name": "Pale Ale"},
        "amount": 2,
        "unit_value": {"copper": 209, "display": "2s 9c"},
        "recipe": {"id": 103, "slug": "pale-ale-2", "name": "Pale Ale"},
        "crafts": 1,
        "truncated": false,
        "children": [
            {
                "kind": "item",
                "item": {"id": 16, "slug": "pale-wort", "name": "Pale Wort"},
                "amount": 2,
                "unit_value": {"copper": 111, "display": "1s 11c"},
                "recipe": {"id": 101, "slug": "pale-wort", "name": "Pale Wort"},
                "crafts": 2,
                "truncated": false,
                "children": [
                    {
                        "kind": "item",
                        "item": {"id": 11, "slug": "pale-malt", "name": "Pale Malt"},
                        "amount": 6,
                        "unit_value": {"copper": 28, "display": "0s 28c"},
                        "recipe": {"id": 100, "slug": "pale-malt", "name": "Pale Malt"},
                        "crafts": 6,
                        "truncated": false,
                        "children": [{
                            "kind": "item",
                            "item": {"id": 10, "slug": "barley", "name": "Barley"},
                            "amount": 12,
                            "unit_value": {"copper": 8, "display": "0s 8c"},
                            "recipe": null,
                            "crafts": null,
                            "truncated": false,
                            "children": []
                        }]
                    },
                    {
                        "kind": "group",
                        "group": {"id": 200, "slug": "any-hops", "name": "Any Hops"},
                        "amount": 2,
                        "members": [
                            {
                                "item": {"id": 12, "slug": "bright-hops", "name": "Bright Hops"},
                                "unit_value": {"copper": 15, "display": "0s 15c"}
                            },
                            {
                                "item": {"id": 13, "slug": "dusk-hops", "name": "Dusk Hops"},
                                "unit_value": {"copper": 40, "display": "0s 40c"}
                            }
                        ],
                        "chosen": {
                            "kind": "item",
                            "item": {"id": 12, "slug": "bright-hops", "name": "Bright Hops"},
                            "amount": 2,
                            "unit_value": {"copper": 15, "display": "0s 15c"},
                            "recipe": null,
                            "crafts": null,
                            "truncated": false,
                            "children": []
                        }
                    },
                    {
                        "kind": "item",
                        "item": {"id": 14, "slug": "water", "name": "Water"},
                        "amount": 4,
                        "unit_value": {"copper": 1, "display": "0s 1c"},
                        "recipe": null,
                        "crafts": null,
                        "truncated": false,
                        "children": []
                    }
                ]
            },
            {
                "kind": "item",
                "item": {"id": 15, "slug": "ale-yeast", "name": "Ale Yeast"},
                "amount": 1,
                "unit_value": {"copper": 12, "display": "0s 12c"},
                "recipe": null,
                "crafts": null,
                "truncated": false,
                "children": []
            }
        ]
    });
    assert_eq!(body["data"], expected);
    assert_eq!(body["meta"]["game_version"], "v1.0.0.0.1");
    assert_eq!(depth(&body["data"]), 4);
    check_arithmetic(&body["data"], &get);
}

#[test]
fn the_ingredient_choice_picks_the_group_member_and_prices_the_tree() {
    let cheapest = get("/v1/recipes/pale-wort/tree?version=v1.0.0.0.1&ingredients=cheapest").json();
    let default = get("/v1/recipes/101/tree?version=v1.0.0.0.1").json();
    let expensive = get("/v1/recipes/pale-wort/tree?version=v1.0.0.0.1&ingredients=expensive").json();
    assert_eq!(cheapest, default);
    let hops = "/data/children/1/chosen/item/slug";
    assert_eq!(pointer(&cheapest, hops), "bright-hops");
    assert_eq!(pointer(&expensive, hops), "dusk-hops");
    assert_eq!(pointer(&cheapest, "/data/unit_value/copper"), 111);
    assert_eq!(pointer(&expensive, "/data/unit_value/copper"), 123);
    assert_eq!(pointer(&expensive, "/data/children/1/members/1/unit_value/copper"), 40);
}

#[test]
fn a_replaced_recipe_has_its_own_tree_and_the_latest_version_its_own_prices() {
    let old = get("/v1/recipes/pale-ale/tree").json();
    assert_eq!(old["meta"]["game_version"], "v1.0.1.0.0");
    assert_eq!(pointer(&old, "/data/recipe/slug"), "pale-ale");
    assert_eq!(pointer(&old, "/data/amount"), 1);
    assert_eq!(pointer(&old, "/data/children/0/amount"), 1);
    // Barley went from 8c to 9c in v1.0.1.0.0: its value and every value above it moved.
    assert_eq!(pointer(&old, "/data/children/0/children/0/children/0/unit_value/copper"), 9);
    assert_eq!(pointer(&old, "/data/children/0/children/0/unit_value/copper"), 29);
    check_arithmetic(&old["data"], &get);
}

#[test]
fn the_bundled_set_has_deep_trees_whose_arithmetic_holds() {
    for recipe in ["herb-liqueur", "cask-aged-barley-spirit", "spiced-stout", "anise-liqueur-2"] {
        for choice in ["cheapest", "expensive"] {
            let answer = bundled_get(&format!("/v1/recipes/{recipe}/tree?ingredients={choice}"));
            assert_eq!(answer.status.as_u16(), 200, "{recipe}");
            let body = answer.json();
            assert!(depth(&body["data"]) >= 4, "{recipe} {choice}: depth {}", depth(&body["data"]));
            let mut nodes = Vec::new();
            item_nodes(&body["data"], "/data".into(), &mut nodes);
            assert!(nodes.iter().all(|(_, n)| n["truncated"] == false), "{recipe}");
            check_arithmetic(&body["data"], &bundled_get);
        }
    }
    // Amounts multiply: 3 barley spirits per cask-aged one, each distilled from 2 of its wash.
    let cask = bundled_get("/v1/recipes/cask-aged-barley-spirit/tree").json();
    assert_eq!(pointer(&cask, "/data/children/0/item/slug"), "barley-spirit");
    assert_eq!(pointer(&cask, "/data/children/0/amount"), 3);
    assert_eq!(pointer(&cask, "/data/children/0/children/0/amount"), 6);
}

#[test]
fn cheapest_and_expensive_fill_a_group_with_different_members() {
    let cheapest = bundled_get("/v1/recipes/herb-liqueur/tree").json();
    let expensive = bundled_get("/v1/recipes/herb-liqueur/tree?ingredients=expensive").json();
    let spirit = "/data/children/0";
    assert_eq!(pointer(&cheapest, &format!("{spirit}/group/slug")), "any-spirit");
    let members = pointer(&cheapest, &format!("{spirit}/members")).as_array().unwrap();
    let values: Vec<u64> = members.iter().map(|m| m["unit_value"]["copper"].as_u64().unwrap()).collect();
    let chosen_low = pointer(&cheapest, &format!("{spirit}/chosen/unit_value/copper")).as_u64().unwrap();
    let chosen_high = pointer(&expensive, &format!("{spirit}/chosen/unit_value/copper")).as_u64().unwrap();
    assert_eq!(chosen_low, *values.iter().min().unwrap());
    let high_values: Vec<u64> = pointer(&expensive, &format!("{spirit}/members"))
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["unit_value"]["copper"].as_u64().unwrap())
        .collect();
    assert_eq!(chosen_high, *high_values.iter().max().unwrap());
    assert_ne!(
        pointer(&cheapest, &format!("{spirit}/chosen/item/id")),
        pointer(&expensive, &format!("{spirit}/chosen/item/id"))
    );
    assert!(
        pointer(&expensive, "/data/unit_value/copper").as_u64()
            > pointer(&cheapest, "/data/unit_value/copper").as_u64()
    );
}

#[test]
fn tree_errors() {
    let cases = [
        ("/v1/recipes/no-such-recipe/tree", 404),
        ("/v1/recipes/424242/tree", 404),
        ("/v1/recipes/pale_ale/tree", 422),
        ("/v1/recipes/pale-ale/tree?ingredients=Cheapest", 422),
        ("/v1/recipes/pale-ale/tree?ingredients=", 422),
        ("/v1/recipes/pale-ale/tree?ingredients=priciest", 422),
        ("/v1/recipes/pale-ale/tree?ingredients=cheapest&ingredients=expensive", 422),
        ("/v1/recipes/pale-ale/tree?limit=10", 422),
        ("/v1/recipes/pale-ale/tree?version=v9.9", 404),
        ("/v1/recipes/pale-ale/tree?version=nine", 422),
        ("/v1/recipes/pale-ale/tree?lang=xx", 422),
    ];
    for (path, status) in cases {
        let answer = get(path);
        assert_eq!(answer.status.as_u16(), status, "{path}: {:?}", answer.body);
    }
    let problem = get("/v1/recipes/no-such-recipe/tree").json();
    assert_eq!(problem["detail"], "there is no recipe no-such-recipe in v1.0.1.0.0");
    let problem = get("/v1/recipes/pale-ale/tree?ingredients=priciest").json();
    assert_eq!(problem["errors"][0]["parameter"], "ingredients");
}

#[test]
fn mini_tree_fallbacks_are_listed_in_document_order() {
    let body = get("/v1/recipes/pale-ale-2/tree?version=v1.0.0.0.1&lang=de").json();
    assert_eq!(
        body["meta"]["lang_fallback"],
        json!([
            "/data/children/0/item/name",
            "/data/children/0/recipe/name",
            "/data/children/0/children/1/members/0/item/name",
            "/data/children/0/children/1/members/1/item/name",
            "/data/children/0/children/1/chosen/item/name",
            "/data/children/0/children/2/item/name",
            "/data/children/1/item/name",
        ])
    );
    assert_eq!(pointer(&body, "/data/item/name"), "Helles Ale");
    assert_eq!(pointer(&body, "/data/children/0/children/1/group/name"), "Beliebiger Hopfen");
}

#[test]
fn fallback_pointers_resolve_to_the_english_text() {
    let targets = [
        "/v1/recipes/herb-liqueur/tree",
        "/v1/items/oak-plank/used-in?limit=100",
        "/v1/items/rye-malt/sources",
        "/v1/items/apple-brandy/sources",
        "/v1/items/copper-shovel/sources",
        "/v1/items/barley/sources",
    ];
    assert_fallbacks_are_english(bundled_get, &targets.map(String::from), &["th", "ca", "ja"], &["ca"]);
}

#[test]
fn used_in_says_whether_through_the_item_or_a_group() {
    let hops = get("/v1/items/bright-hops/used-in").json();
    assert_eq!(
        hops["data"],
        json!([{
            "recipe": {"id": 101, "slug": "pale-wort", "name": "Pale Wort"},
            "output": {"item": {"id": 16, "slug": "pale-wort", "name": "Pale Wort"}, "amount": 1},
            "amount": 1,
            "via": "group",
            "group": {"id": 200, "slug": "any-hops", "name": "Any Hops"}
        }])
    );
    assert_eq!(hops["pagination"]["total"], 1);
    // The replaced pale-ale recipe (102) takes wort too, but only current recipes count.
    let wort = get("/v1/items/16/used-in").json();
    assert_eq!(
        wort["data"],
        json!([{
            "recipe": {"id": 103, "slug": "pale-ale-2", "name": "Golden Pale Ale"},
            "output": {"item": {"id": 20, "slug": "pale-ale", "name": "Golden Pale Ale"}, "amount": 2},
            "amount": 2,
            "via": "item",
            "group": null
        }])
    );
    let cases: &[(&str, &[(i64, &str)])] = &[
        ("barley", &[(100, "item")]),
        ("pale-malt", &[(101, "item")]),
        ("dusk-hops", &[(101, "group")]),
        ("ale-yeast", &[(103, "item")]),
        ("pale-ale", &[]),
        ("debug-coin", &[]),
    ];
    for (item, expected) in cases {
        let body = get(&format!("/v1/items/{item}/used-in")).json();
        let uses: Vec<(i64, &str)> = data(&body)
            .iter()
            .map(|u| (u["recipe"]["id"].as_i64().unwrap(), u["via"].as_str().unwrap()))
            .collect();
        assert_eq!(uses, *expected, "{item}");
        assert_eq!(body["pagination"]["total"], expected.len(), "{item}");
    }
}

#[test]
fn used_in_on_the_bundled_set_walks_to_the_end_in_order() {
    // Brightleaf hops are only ever asked for through a hops group.
    let hops = walk("/v1/items/brightleaf-hops/used-in?limit=3");
    assert!(hops.len() >= 2, "{}", hops.len());
    assert!(hops.iter().all(|u| u["via"] == "group" && u["group"]["slug"].is_string()));
    // Oak planks are used both by name and through groups.
    let planks = walk("/v1/items/oak-plank/used-in?limit=7");
    let vias: BTreeSet<&str> = planks.iter().map(|u| u["via"].as_str().unwrap()).collect();
    assert_eq!(vias, BTreeSet::from(["group", "item"]));
    let order: Vec<(i64, bool, String)> = planks
        .iter()
        .map(|u| (u["recipe"]["id"].as_i64().unwrap(), u["via"] == "group", u["group"]["slug"].to_string()))
        .collect();
    assert!(
        order.windows(2).all(|w| (w[0].0, w[0].1) <= (w[1].0, w[1].1)),
        "not by recipe, then direct first"
    );
    let distinct: BTreeSet<&(i64, bool, String)> = order.iter().collect();
    assert_eq!(distinct.len(), order.len(), "a use came twice");
    for u in &planks {
        assert!(u["amount"].as_u64().unwrap() >= 1);
        assert_eq!(u["group"].is_null(), u["via"] == "item");
        // Every recipe listed is current.
        let recipe = bundled_get(&format!("/v1/recipes/{}", u["recipe"]["id"])).json();
        assert!(recipe["data"]["replaced_by"].is_null(), "{}", u["recipe"]);
        assert_eq!(recipe["data"]["output"], u["output"]);
    }
    // The version asked for gives that version's recipes.
    let old = bundled_get("/v1/items/oak-plank/used-in?version=v0.6.4.2.1&limit=1").json();
    assert_eq!(old["meta"]["game_version"], "v0.6.4.2.1");
    assert!(old["pagination"]["total"].as_u64().unwrap() >= 1);
}

#[test]
fn used_in_errors_and_bounds() {
    let cases = [
        ("/v1/items/no-such-item/used-in", 404),
        ("/v1/items/bright_hops/used-in", 422),
        ("/v1/items/bright-hops/used-in?limit=0", 422),
        ("/v1/items/bright-hops/used-in?limit=1", 200),
        ("/v1/items/bright-hops/used-in?limit=100", 200),
        ("/v1/items/bright-hops/used-in?limit=101", 422),
        ("/v1/items/bright-hops/used-in?offset=-1", 422),
        ("/v1/items/bright-hops/used-in?offset=10000", 200),
        ("/v1/items/bright-hops/used-in?offset=10001", 422),
        ("/v1/items/bright-hops/used-in?sort=id", 422),
        ("/v1/items/bright-hops/used-in?version=v1.0.0.0.1", 200),
        ("/v1/items/bright-hops/used-in?version=v2.0", 404),
    ];
    for (path, status) in cases {
        assert_eq!(get(path).status.as_u16(), status, "{path}");
    }
    let problem = get("/v1/items/no-such-item/used-in").json();
    assert_eq!(problem["detail"], "there is no item no-such-item in v1.0.1.0.0");
    let past_the_end = get("/v1/items/bright-hops/used-in?offset=5").json();
    assert_eq!(past_the_end["data"], json!([]));
    assert_eq!(past_the_end["pagination"]["total"], 1);
}

#[test]
fn sources_list_every_way_an_item_comes_from_on_the_mini_set() {
    let empty = json!({
        "shops": [], "recipes": [], "crops": [], "fish": [], "quest_rewards": [],
        "reputation_rewards": [], "mission_rewards": [], "letter_attachments": [], "gathering": []
    });
    let with = |item: Value, fields: Value| {
        let mut expected = empty.clone();
        expected["item"] = item;
        for (k, v) in fields.as_object().unwrap() {
            expected[k] = v.clone();
        }
        expected
    };
    let cases = [
        (
            "pale-ale",
            with(
                json!({"id": 20, "slug": "pale-ale", "name": "Golden Pale Ale"}),
                json!({
                    "recipes": [
                        {"recipe": {"id": 102, "slug": "pale-ale", "name": "Golden Pale Ale"}, "amount": 1, "replaced": true},
                        {"recipe": {"id": 103, "slug": "pale-ale-2", "name": "Golden Pale Ale"}, "amount": 2, "replaced": false}
                    ],
                    "quest_rewards": [{"quest": {"key": "quest.first-brew", "name": pointer(&get("/v1/quests/quest.first-brew").json(), "/data/name").clone()}, "amount": 2}]
                }),
            ),
        ),
        (
            "barley",
            with(
                json!({"id": 10, "slug": "barley", "name": "Barley"}),
                json!({
                    "crops": [{"crop": {"id": 300, "slug": "barley", "name": "Barley"}, "min": 1, "max": 3, "seasons": ["spring", "summer"]}],
                    "gathering": [{"method": "foraging", "from": "meadow", "seasons": ["summer"]}]
                }),
            ),
        ),
        (
            "barley-seeds",
            with(
                json!({"id": 30, "slug": "barley-seeds", "name": "Barley Seeds"}),
                json!({
                    "shops": [{"shop": {"id": 400, "slug": "mill-store", "name": pointer(&get("/v1/shops/mill-store").json(), "/data/name").clone()}, "price": {"copper": 7, "display": "0s 7c"}, "seasons": ["spring"]}],
                    "letter_attachments": [{"letter": {"key": "Odile's Welcome", "name": pointer(&get("/v1/letters?limit=1").json(), "/data/0/name").clone()}, "amount": 5}]
                }),
            ),
        ),
        (
            "river-trout",
            with(
                json!({"id": 40, "slug": "river-trout", "name": "River Trout"}),
                json!({"fish": [{"id": 600, "water": "FreshWater", "bait": "Worm", "rarity": 2, "seasons": ["spring", "autumn"]}]}),
            ),
        ),
        (
            "-1",
            with(
                json!({"id": -1, "slug": "debug-coin", "name": pointer(&get("/v1/items/-1").json(), "/data/name").clone()}),
                json!({}),
            ),
        ),
    ];
    for (item, expected) in cases {
        let answer = get(&format!("/v1/items/{item}/sources"));
        assert_eq!(answer.status.as_u16(), 200, "{item}");
        assert_eq!(answer.json()["data"], expected, "{item}");
    }
    let yeast = get("/v1/items/ale-yeast/sources").json();
    assert_eq!(pointer(&yeast, "/data/shops/0/price/copper"), 14);
    assert_eq!(pointer(&yeast, "/data/shops/0/seasons"), &json!([]));
}

#[test]
fn sources_on_the_bundled_set() {
    type Check = fn(&Value) -> bool;
    let cases: &[(&str, &str, Check)] = &[
        ("barley", "shops", |s| {
            s["shops"].as_array().unwrap().iter().any(|e| e["shop"]["slug"] == "old-mill-grain-exchange")
        }),
        ("barley", "crops", |s| {
            s["crops"][0]["crop"]["slug"] == "barley"
                && s["crops"][0]["min"] == 2
                && s["crops"][0]["max"] == 4
        }),
        ("rye-malt", "recipes", |s| {
            let recipes: Vec<(i64, bool)> = s["recipes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| (r["recipe"]["id"].as_i64().unwrap(), r["replaced"].as_bool().unwrap()))
                .collect();
            recipes == [(2004, true), (2019, false)]
        }),
        ("perch", "fish", |s| s["fish"][0]["id"] == 401 && s["fish"].as_array().unwrap().len() == 1),
        ("apple-brandy", "quest_rewards", |s| {
            s["quest_rewards"]
                .as_array()
                .unwrap()
                .iter()
                .any(|q| q["quest"]["key"] == "Daily.Wood" && q["amount"] == 3)
        }),
        ("bronze-shovel", "reputation_rewards", |s| {
            s["reputation_rewards"][0]["milestone"]["level"] == 5 && s["reputation_rewards"][0]["amount"] == 1
        }),
        ("roast-beef", "mission_rewards", |s| {
            s["mission_rewards"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m["mission"]["key"] == "Mission 01 - Salt Road" && m["amount"] == 2)
        }),
        ("stone-block", "letter_attachments", |s| {
            s["letter_attachments"]
                .as_array()
                .unwrap()
                .iter()
                .any(|l| l["letter"]["key"] == "Letter From The Guild" && l["amount"] == 2)
        }),
    ];
    for (item, list, holds) in cases {
        let answer = bundled_get(&format!("/v1/items/{item}/sources"));
        assert_eq!(answer.status.as_u16(), 200, "{item}");
        let sources = &answer.json()["data"];
        for field in [
            "shops",
            "recipes",
            "crops",
            "fish",
            "quest_rewards",
            "reputation_rewards",
            "mission_rewards",
            "letter_attachments",
        ] {
            assert!(sources[field].is_array(), "{item} {field}");
        }
        assert!(holds(sources), "{item} {list}: {}", sources[*list]);
    }
    // Every list is in its documented order.
    let planks = bundled_get("/v1/items/oak-plank/sources").json();
    let shop_ids: Vec<i64> = planks["data"]["shops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["shop"]["id"].as_i64().unwrap())
        .collect();
    assert!(shop_ids.windows(2).all(|w| w[0] <= w[1]), "{shop_ids:?}");
}

#[test]
fn sources_follow_the_version_asked_for() {
    // v0.7.0.0.1 added items; one of them has no record in v0.6.4.2.1.
    let latest = walk("/v1/items?limit=100&sort=id");
    let old_ids: BTreeSet<i64> =
        walk("/v1/items?limit=100&version=v0.6.4.2.1").iter().map(|r| r["id"].as_i64().unwrap()).collect();
    let added = latest.iter().find(|r| !old_ids.contains(&r["id"].as_i64().unwrap())).expect("an added item");
    let slug = added["slug"].as_str().unwrap();
    assert_eq!(bundled_get(&format!("/v1/items/{slug}/sources")).status.as_u16(), 200);
    let answer = bundled_get(&format!("/v1/items/{slug}/sources?version=v0.6.4.2.1"));
    assert_eq!(answer.status.as_u16(), 404, "{slug}");
    assert_eq!(answer.json()["detail"], format!("there is no item {slug} in v0.6.4.2.1"));
    let old = bundled_get("/v1/items/barley/sources?version=v0.6.4.2.1").json();
    assert_eq!(old["meta"]["game_version"], "v0.6.4.2.1");
}

#[test]
fn sources_errors() {
    for (path, status) in [
        ("/v1/items/no-such-item/sources", 404),
        ("/v1/items/424242/sources", 404),
        ("/v1/items/river_trout/sources", 422),
        ("/v1/items/river-trout/sources?limit=5", 422),
        ("/v1/items/river-trout/sources?lang=de", 200),
        ("/v1/items/river-trout/sources?version=v1.0.0.0.1", 200),
    ] {
        assert_eq!(get(path).status.as_u16(), status, "{path}");
    }
}

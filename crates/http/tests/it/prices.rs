//! Item prices, price_per_serving and product rankings.
//!
//! The expected prices are worked out by hand from `docs/pricing.md` on the small dataset
//! (`fixtures/mini`). Its latest version, v1.0.1.0.0, prices as follows (every
//! division rounds half up, `round(x)` below):
//!
//! - barley (10): no recipe, 9. bright-hops (12) 15, dusk-hops (13) 40, water (14) 1, ale-yeast (15) 12.
//! - pale-malt (11), recipe 100 (2 barley -> 1): `20 + round(2 × 9 × 50 / 100) = 20 + 9 = 29`.
//! - pale-wort (16), recipe 101 (3 pale-malt + 1 of "Any Hops" + 2 water -> 1):
//!   cheapest (bright-hops) `60 + round((87 + 15 + 2) × 50 / 100) = 60 + round(52) = 112`;
//!   expensive (dusk-hops) `60 + round((87 + 40 + 2) × 50 / 100) = 60 + round(64.5) = 125`.
//! - pale-ale (20), 10 servings, can be aged; recipe 103 (2 pale-wort + 1 ale-yeast -> 2), recipe
//!   102 being replaced: cheapest `150 + round((224 + 12) × 50 / 200) = 150 + round(59) = 209`;
//!   expensive `150 + round((250 + 12) × 50 / 200) = 150 + round(65.5) = 216`.
//!   One plain serving: cheapest `round(209 / 10) = round(20.9) = 21`, expensive `round(21.6) = 22`.
//!
//! The older v1.0.0.0.1 differs by barley, worth 8: pale-malt `20 + 8 = 28`; pale-wort cheapest
//! `60 + round((84 + 15 + 2) / 2) = 60 + round(50.5) = 111`, expensive `60 + round(126 / 2) = 123`;
//! pale-ale cheapest `150 + round((222 + 12) / 4) = 150 + round(58.5) = 209`, expensive
//! `150 + round((246 + 12) / 4) = 150 + round(64.5) = 215`, whose serving is `round(21.5) = 22`.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::{assert_fallbacks_are_english, bundled_get, data, get, pointer, walk};

/// The `copper` of a price object.
fn copper(price: &Value) -> u64 {
    price["copper"].as_u64().unwrap_or_else(|| panic!("not a price: {price}"))
}

/// The `data` of a `200` answer.
fn ok(answer: crate::Answer, path: &str) -> Value {
    assert_eq!(answer.status.as_u16(), 200, "{path}: {:?}", answer.body);
    answer.json()
}

#[test]
fn products_carry_their_plain_price_per_serving_and_other_items_null() {
    let cases: &[(&str, &str, Value)] = &[
        // 21 = round(20.9), 22 = round(21.6): see the module comment.
        (
            "/v1/items/pale-ale",
            "/data/price_per_serving",
            json!({"cheapest": {"copper": 21, "display": "0s 21c"}, "expensive": {"copper": 22, "display": "0s 22c"}}),
        ),
        (
            "/v1/items?ids=20",
            "/data/0/price_per_serving",
            json!({"cheapest": {"copper": 21, "display": "0s 21c"}, "expensive": {"copper": 22, "display": "0s 22c"}}),
        ),
        // In v1.0.0.0.1 the expensive serving is round(215 / 10) = round(21.5) = 22: half up.
        (
            "/v1/items/pale-ale?version=v1.0.0.0.1",
            "/data/price_per_serving",
            json!({"cheapest": {"copper": 21, "display": "0s 21c"}, "expensive": {"copper": 22, "display": "0s 22c"}}),
        ),
        // Not sellable products: an ingredient, a crafted intermediate, a tool, an unlisted item.
        ("/v1/items/barley", "/data/price_per_serving", Value::Null),
        ("/v1/items/pale-wort", "/data/price_per_serving", Value::Null),
        ("/v1/items/copper-kettle", "/data/price_per_serving", Value::Null),
        ("/v1/items/debug-coin", "/data/price_per_serving", Value::Null),
        // Kept by `fields` like any other field.
        (
            "/v1/items/pale-ale?fields=id,price_per_serving",
            "/data",
            json!({"id": 20, "price_per_serving": {"cheapest": {"copper": 21, "display": "0s 21c"}, "expensive": {"copper": 22, "display": "0s 22c"}}}),
        ),
    ];
    for (path, at, expected) in cases {
        let body = ok(get(path), path);
        assert_eq!(pointer(&body, at), expected, "{path} {at}");
    }
    let listed = get("/v1/items?fields=id,price_per_serving&sort=id&include_unlisted=true").json();
    let priced: Vec<i64> = data(&listed)
        .iter()
        .filter(|r| !r["price_per_serving"].is_null())
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    assert_eq!(priced, [20], "only pale ale is a product");
}

#[test]
fn prices_per_serving_match_the_hand_computed_ones() {
    // (query on /v1/items/{key}/price, copper, display); the arithmetic is in each comment.
    let cases: &[(&str, u64, &str)] = &[
        // A raw ingredient is worth its base price, one serving a unit.
        ("barley/price", 9, "0s 9c"),
        ("10/price?ingredients=expensive", 9, "0s 9c"),
        ("barley/price?version=v1.0.0.0.1", 8, "0s 8c"),
        // 20 + round(2 × 9 / 2) = 29.
        ("pale-malt/price", 29, "0s 29c"),
        // 60 + round(104 / 2) = 112; 60 + round(129 / 2) = 60 + round(64.5) = 125.
        ("pale-wort/price", 112, "1s 12c"),
        ("pale-wort/price?ingredients=expensive", 125, "1s 25c"),
        // v1.0.0.0.1: 60 + round(101 / 2) = 60 + round(50.5) = 111; 60 + round(126 / 2) = 123.
        ("pale-wort/price?version=v1.0.0.0.1", 111, "1s 11c"),
        ("pale-wort/price?version=v1.0.0.0.1&ingredients=expensive", 123, "1s 23c"),
        // Quality raises anything: round(112 × 115 / 100) = round(128.8) = 129, round(112 × 1.35) = round(151.2) = 151.
        ("pale-wort/price?quality=fine", 129, "1s 29c"),
        ("pale-wort/price?quality=superior", 151, "1s 51c"),
        ("pale-wort/price?aging=none&quality=common", 112, "1s 12c"),
        // Pale ale, unit value 209 (cheapest) or 216 (expensive), 10 servings.
        ("pale-ale/price", 21, "0s 21c"),                       // round(20.9)
        ("pale-ale/price?ingredients=expensive", 22, "0s 22c"), // round(21.6)
        ("pale-ale/price?aging=young", 21, "0s 21c"),           // +0 %: round(20.9)
        ("pale-ale/price?aging=aged", 23, "0s 23c"),            // round(209 × 110 / 1000) = round(22.99)
        ("pale-ale/price?aging=reserve", 25, "0s 25c"),         // round(25.08)
        ("pale-ale/price?aging=grand_reserve", 27, "0s 27c"),   // round(27.17)
        ("pale-ale/price?quality=fine", 24, "0s 24c"),          // round(209 × 115 / 1000) = round(24.035)
        ("pale-ale/price?quality=superior", 28, "0s 28c"),      // round(28.215)
        // round(209 × 130 × 135 / 100000) = round(36.6795) = 37.
        ("pale-ale/price?aging=grand_reserve&quality=superior", 37, "0s 37c"),
        // round(216 × 130 × 135 / 100000) = round(37.908) = 38.
        ("pale-ale/price?aging=grand_reserve&quality=superior&ingredients=expensive", 38, "0s 38c"),
        // round(216 × 110 × 115 / 100000) = round(27.324) = 27.
        ("pale-ale/price?aging=aged&quality=fine&ingredients=expensive", 27, "0s 27c"),
        // v1.0.0.0.1, expensive: round(215 / 10) = round(21.5) = 22, half up.
        ("pale-ale/price?version=v1.0.0.0.1&ingredients=expensive", 22, "0s 22c"),
        // v1.0.0.0.1, expensive, aged: round(215 × 110 / 1000) = round(23.65) = 24.
        ("pale-ale/price?version=v1.0.0.0.1&ingredients=expensive&aging=aged", 24, "0s 24c"),
    ];
    for (query, copper_expected, display) in cases {
        let path = format!("/v1/items/{query}");
        let body = ok(get(&path), &path);
        assert_eq!(
            body["data"]["per_serving"],
            json!({"copper": copper_expected, "display": display}),
            "{path}"
        );
    }
}

#[test]
fn the_answer_explains_each_step() {
    let body = ok(get("/v1/items/pale-wort/price?ingredients=expensive&quality=superior"), "pale-wort");
    assert_eq!(
        body["data"],
        json!({
            "item": {"id": 16, "slug": "pale-wort", "name": "Pale Wort"},
            // round(125 × 135 / 100) = round(168.75) = 169.
            "per_serving": {"copper": 169, "display": "1s 69c"},
            "ingredients": "expensive",
            "aging": {"level": "none", "percent": 0},
            "quality": {"level": "superior", "percent": 35},
            "breakdown": {
                "base": {"copper": 60, "display": "0s 60c"},
                "recipe": {"id": 101, "slug": "pale-wort", "name": "Pale Wort"},
                "output_amount": 1,
                "ingredients": [
                    {
                        "item": {"id": 11, "slug": "pale-malt", "name": "Pale Malt"},
                        "group": null,
                        "amount": 3,
                        "unit_value": {"copper": 29, "display": "0s 29c"},
                        "total": {"copper": 87, "display": "0s 87c"},
                    },
                    {
                        "item": {"id": 13, "slug": "dusk-hops", "name": "Dusk Hops"},
                        "group": {"id": 200, "slug": "any-hops", "name": "Any Hops"},
                        "amount": 1,
                        "unit_value": {"copper": 40, "display": "0s 40c"},
                        "total": {"copper": 40, "display": "0s 40c"},
                    },
                    {
                        "item": {"id": 14, "slug": "water", "name": "Water"},
                        "group": null,
                        "amount": 2,
                        "unit_value": {"copper": 1, "display": "0s 1c"},
                        "total": {"copper": 2, "display": "0s 2c"},
                    },
                ],
                // 87 + 40 + 2 = 129; 60 + round(129 × 50 / 100) = 60 + round(64.5) = 125.
                "ingredient_total": {"copper": 129, "display": "1s 29c"},
                "ingredient_share_percent": 50,
                "unit_value": {"copper": 125, "display": "1s 25c"},
                "servings": 1,
            },
        })
    );
    assert!(body.get("pagination").is_none());

    // The cheapest choice fills the group with bright hops, all the way down.
    let cheap = price_data("/v1/items/pale-wort/price");
    assert_eq!(cheap["ingredients"], "cheapest");
    assert_eq!(cheap["breakdown"]["ingredients"][1]["item"]["slug"], "bright-hops");
    assert_eq!(cheap["breakdown"]["ingredients"][1]["group"]["slug"], "any-hops");
    assert_eq!(copper(&cheap["breakdown"]["ingredient_total"]), 104);

    // Pale ale: recipe 103 (102 is replaced), two ales a craft, the worts priced by the same choice.
    let ale = price_data("/v1/items/pale-ale/price?ingredients=expensive&aging=grand_reserve");
    assert_eq!(
        ale["breakdown"]["recipe"],
        json!({"id": 103, "slug": "pale-ale-2", "name": "Golden Pale Ale"})
    );
    assert_eq!(ale["breakdown"]["output_amount"], 2);
    assert_eq!(ale["breakdown"]["servings"], 10);
    assert_eq!(copper(&ale["breakdown"]["ingredients"][0]["unit_value"]), 125);
    assert_eq!(copper(&ale["breakdown"]["ingredients"][0]["total"]), 250);
    assert_eq!(copper(&ale["breakdown"]["ingredient_total"]), 262);
    assert_eq!(copper(&ale["breakdown"]["unit_value"]), 216);
    assert_eq!(ale["aging"], json!({"level": "grand_reserve", "percent": 30}));
    // round(216 × 130 / 1000) = round(28.08) = 28.
    assert_eq!(copper(&ale["per_serving"]), 28);

    // An item no recipe makes: its base price, no recipe, nothing going in.
    let barley = price_data("/v1/items/barley/price");
    assert_eq!(
        barley["breakdown"],
        json!({
            "base": {"copper": 9, "display": "0s 9c"},
            "recipe": null,
            "output_amount": 1,
            "ingredients": [],
            "ingredient_total": {"copper": 0, "display": "0s 0c"},
            "ingredient_share_percent": 50,
            "unit_value": {"copper": 9, "display": "0s 9c"},
            "servings": 1,
        })
    );
}

/// The `data` of the `200` answer to `path` on the small dataset.
fn price_data(path: &str) -> Value {
    ok(get(path), path)["data"].clone()
}

#[test]
fn gold_amounts_are_shown_in_gold() {
    // Bundled v0.7.0.0.1, cask-aged barley spirit (base 9050, 60 servings): a craft takes 3 barley
    // spirits and an oak cask and makes 2. The cask: oak plank `14 + round(18 / 2 / 2) = 14 +
    // round(4.5) = 19`, oak stave `13 + round(2 × 19 / 2 / 3) = 13 + round(6.33) = 19`, iron ingot
    // `93 + round((2 × 28 + 14) / 2) = 128`, iron hoop `125 + round(128 / 2) = 189`, oak cask
    // `480 + round((6 × 19 + 2 × 189) / 2) = 480 + 246 = 726`.
    // Cheapest: of "Any Malt", oat malt `21 + round(2 × 5 / 2) = 26`; grain mash
    // `97 + round(3 × 26 / 2) = 136`; grain wash `155 + round((136 + 16) / 2) = 231`; barley spirit
    // `1430 + round(2 × 231 / 2) = 1661`; the spirit `9050 + round((3 × 1661 + 726) / 2 / 2) =
    // 9050 + round(1427.25) = 10477`, one serving `round(10477 / 60) = round(174.62) = 175`.
    // Expensive: honey malt from pale malt of the dearest grain (marsh rice, 10c):
    // `25 + round(2 × 10 / 2) = 35`, `100 + round((2 × 35 + 30) / 2) = 150`; grain mash
    // `97 + round(3 × 150 / 2) = 322`; grain wash `155 + round(338 / 2) = 324`; barley spirit
    // `1430 + 324 = 1754`; the spirit `9050 + round((3 × 1754 + 726) / 4) = 9050 + 1497 = 10547`, a
    // serving `round(175.78) = 176`.
    let cases: &[(&str, &str, u64, &str)] = &[
        ("", "/data/breakdown/base", 9050, "90s 50c"),
        ("", "/data/breakdown/unit_value", 10477, "1g 4s 77c"),
        ("", "/data/per_serving", 175, "1s 75c"),
        ("?ingredients=expensive", "/data/breakdown/unit_value", 10547, "1g 5s 47c"),
        ("?ingredients=expensive", "/data/per_serving", 176, "1s 76c"),
        // round(10477 × 130 × 135 / 600000) = round(306.45) = 306.
        ("?aging=grand_reserve&quality=superior", "/data/per_serving", 306, "3s 6c"),
    ];
    for (query, at, copper_expected, display) in cases {
        let path = format!("/v1/items/cask-aged-barley-spirit/price{query}");
        let body = ok(bundled_get(&path), &path);
        assert_eq!(
            pointer(&body, at),
            &json!({"copper": copper_expected, "display": display}),
            "{path} {at}"
        );
    }
    let item = ok(bundled_get("/v1/items/cask-aged-barley-spirit"), "cask-aged-barley-spirit");
    assert_eq!(copper(&item["data"]["price_per_serving"]["cheapest"]), 175);
    assert_eq!(copper(&item["data"]["price_per_serving"]["expensive"]), 176);
}

#[test]
fn aging_what_cannot_be_aged_is_refused() {
    for path in [
        "/v1/items/pale-wort/price?aging=aged",
        "/v1/items/pale-wort/price?aging=young",
        "/v1/items/barley/price?aging=grand_reserve&ingredients=expensive",
    ] {
        let answer = get(path);
        assert_eq!(answer.status.as_u16(), 422, "{path}");
        let problem = answer.json();
        assert_eq!(problem["type"], "/errors/validation", "{path}");
        assert_eq!(problem["errors"][0]["parameter"], "aging", "{path}");
        let detail = problem["errors"][0]["detail"].as_str().unwrap();
        assert!(detail.contains("cannot be aged"), "{path}: {detail}");
    }
    assert_eq!(get("/v1/items/pale-wort/price?aging=none").status.as_u16(), 200);
}

#[test]
fn bad_requests_for_a_price_are_refused() {
    let cases: &[(&str, u16, Option<&str>)] = &[
        ("/v1/items/no-such-item/price", 404, None),
        ("/v1/items/424242/price", 404, None),
        ("/v1/items/copper-kettle/price?version=v1.0.0.0.1", 404, None),
        ("/v1/items/pale-ale/price?version=v9.9.9.9.9", 404, None),
        ("/v1/items/honey_ale/price", 422, Some("key")),
        ("/v1/items/pale-ale/price?ingredients=cheap", 422, Some("ingredients")),
        ("/v1/items/pale-ale/price?ingredients=Expensive", 422, Some("ingredients")),
        ("/v1/items/pale-ale/price?aging=grand-reserve", 422, Some("aging")),
        ("/v1/items/pale-ale/price?aging=4", 422, Some("aging")),
        ("/v1/items/pale-ale/price?quality=legendary", 422, Some("quality")),
        ("/v1/items/pale-ale/price?quality=", 422, Some("quality")),
        ("/v1/items/pale-ale/price?quality=fine&quality=fine", 422, Some("quality")),
        ("/v1/items/pale-ale/price?limit=1", 422, Some("limit")),
        ("/v1/items/pale-ale/price?lang=xx", 422, Some("lang")),
    ];
    for (path, status, parameter) in cases {
        let answer = get(path);
        assert_eq!(answer.status.as_u16(), *status, "{path}: {:?}", answer.body);
        if let Some(parameter) = parameter {
            assert_eq!(answer.json()["errors"][0]["parameter"], *parameter, "{path}");
        }
    }
    let missing = get("/v1/items/no-such-item/price").json();
    assert!(missing["detail"].as_str().unwrap().contains("no-such-item"), "{missing}");
}

#[test]
fn fallback_pointers_resolve_to_the_english_text() {
    let targets = [
        "/v1/items/pale-wort/price?ingredients=expensive",
        "/v1/items/pale-ale/price",
        "/v1/rankings/products",
        "/v1/items/pale-ale",
    ];
    // The small dataset has no Thai texts, so every name falls back there; German and Japanese name
    // the ranked product, so the ranking falls back only in Thai.
    assert_fallbacks_are_english(get, &targets.map(String::from), &["de", "ja", "th"], &["th"]);
    // German names pale malt but not water, dusk hops or the wort, and names the hops group.
    let de = ok(get("/v1/items/pale-wort/price?ingredients=expensive&lang=de"), "de");
    assert_eq!(de["data"]["breakdown"]["ingredients"][0]["item"]["name"], "Helles Malz");
    assert_eq!(de["data"]["breakdown"]["ingredients"][1]["group"]["name"], "Beliebiger Hopfen");
    assert_eq!(
        de["meta"]["lang_fallback"],
        json!([
            "/data/item/name",
            "/data/breakdown/recipe/name",
            "/data/breakdown/ingredients/1/item/name",
            "/data/breakdown/ingredients/2/item/name",
        ])
    );
}

#[test]
fn the_small_ranking_by_hand() {
    let row = |copper: u64| json!([{"rank": 1, "item": {"id": 20, "slug": "pale-ale", "name": "Golden Pale Ale"}, "per_serving": {"copper": copper, "display": format!("0s {copper}c")}}]);
    // Pale ale is the one product of the small dataset: a drink that can be aged.
    let cases: &[(&str, Value)] = &[
        ("", row(21)),
        ("?ingredients=expensive", row(22)),
        ("?food_type=drink", row(21)),
        ("?food_type=food", json!([])),
        ("?food_type=dessert&aging=aged", json!([])),
        ("?aging=grand_reserve", row(27)),
        ("?aging=grand_reserve&quality=superior", row(37)),
        ("?aging=grand_reserve&quality=superior&ingredients=expensive&food_type=drink", row(38)),
        // v1.0.0.0.1 named it "Pale Ale"; round(215 / 10) = round(21.5) = 22.
        (
            "?version=v1.0.0.0.1&ingredients=expensive",
            json!([{"rank": 1, "item": {"id": 20, "slug": "pale-ale", "name": "Pale Ale"}, "per_serving": {"copper": 22, "display": "0s 22c"}}]),
        ),
        ("?limit=1", row(21)),
    ];
    for (query, expected) in cases {
        let path = format!("/v1/rankings/products{query}");
        let body = ok(get(&path), &path);
        assert_eq!(&body["data"], expected, "{path}");
        let total = expected.as_array().unwrap().len();
        assert_eq!(body["pagination"]["total"], total, "{path}");
    }
}

#[test]
fn ranking_parameters_are_checked() {
    let cases: &[(&str, u16, Option<&str>)] = &[
        ("limit=0", 422, Some("limit")),
        ("limit=1", 200, None),
        ("limit=100", 200, None),
        ("limit=101", 422, Some("limit")),
        ("limit=-1", 422, Some("limit")),
        ("limit=ten", 422, Some("limit")),
        ("offset=0", 200, None),
        ("offset=10000", 200, None),
        ("offset=10001", 422, Some("offset")),
        ("offset=-1", 422, Some("offset")),
        ("food_type=beverage", 422, Some("food_type")),
        ("food_type=Drink", 422, Some("food_type")),
        ("aging=old", 422, Some("aging")),
        ("quality=good", 422, Some("quality")),
        ("ingredients=all", 422, Some("ingredients")),
        ("sort=per_serving", 422, Some("sort")),
        ("food_type=drink&food_type=food", 422, Some("food_type")),
        ("version=v0.0.0.0.0", 404, None),
    ];
    for (query, status, parameter) in cases {
        let path = format!("/v1/rankings/products?{query}");
        let answer = get(&path);
        assert_eq!(answer.status.as_u16(), *status, "{path}: {:?}", answer.body);
        if let Some(parameter) = parameter {
            assert_eq!(answer.json()["errors"][0]["parameter"], *parameter, "{path}");
        }
    }
}

/// The summary of each item of `ids` (bundled dataset), by id.
fn summaries(ids: &[i64], version: &str) -> BTreeMap<i64, Value> {
    let mut found = BTreeMap::new();
    for chunk in ids.chunks(100) {
        let list: Vec<String> = chunk.iter().map(ToString::to_string).collect();
        let path =
            format!("/v1/items?ids={}&limit=100&include_unlisted=true&version={version}", list.join(","));
        for record in data(&ok(bundled_get(&path), &path)) {
            found.insert(record["id"].as_i64().unwrap(), record.clone());
        }
    }
    found
}

#[test]
fn rankings_are_ordered_filtered_and_agree_with_the_price_endpoint() {
    let cases: &[&str] = &[
        "limit=100",
        "limit=100&ingredients=expensive&food_type=drink",
        "limit=100&aging=grand_reserve&quality=superior",
        "limit=100&food_type=dessert&quality=fine",
        "limit=50&food_type=snack&aging=young&quality=fine",
        "limit=30&version=v0.6.4.2.1&ingredients=expensive",
    ];
    for query in cases {
        let path = format!("/v1/rankings/products?{query}");
        let body = ok(bundled_get(&path), &path);
        let rows = data(&body);
        let limit: usize = query.split('&').find_map(|p| p.strip_prefix("limit=")).unwrap().parse().unwrap();
        assert!(!rows.is_empty() && rows.len() <= limit, "{path}: {} rows", rows.len());
        if !query.contains("food_type=") && !query.contains("aging=") {
            assert_eq!(rows.len(), limit, "{path}: the bundled dataset has enough products");
        }
        let version = query.split('&').find_map(|p| p.strip_prefix("version=")).unwrap_or("v0.7.0.0.1");
        assert_eq!(body["meta"]["game_version"], version, "{path}");
        for (i, row) in rows.iter().enumerate() {
            assert_eq!(row["rank"], i + 1, "{path}");
        }
        for pair in rows.windows(2) {
            let (a, b) = (copper(&pair[0]["per_serving"]), copper(&pair[1]["per_serving"]));
            assert!(
                a > b || (a == b && pair[0]["item"]["id"].as_i64() < pair[1]["item"]["id"].as_i64()),
                "{path}"
            );
        }
        // Every row is a product the filters allow...
        let ids: Vec<i64> = rows.iter().map(|r| r["item"]["id"].as_i64().unwrap()).collect();
        let items = summaries(&ids, version);
        for id in &ids {
            let item = &items[id];
            assert_eq!(item["can_be_sold"], true, "{path} {id}");
            assert!(item["food_type"].is_string(), "{path} {id}");
            if let Some(food_type) = query.split('&').find_map(|p| p.strip_prefix("food_type=")) {
                assert_eq!(item["food_type"], food_type, "{path} {id}");
            }
            if query.contains("aging=") && !query.contains("aging=none") {
                assert_eq!(item["can_be_aged"], true, "{path} {id}");
            }
        }
        // ...priced exactly as the price endpoint prices it.
        let pricing: Vec<&str> =
            query.split('&').filter(|p| !p.starts_with("limit=") && !p.starts_with("food_type=")).collect();
        for row in rows {
            let price =
                format!("/v1/items/{}/price?{}", row["item"]["slug"].as_str().unwrap(), pricing.join("&"));
            let answer = ok(bundled_get(&price), &price);
            assert_eq!(answer["data"]["per_serving"], row["per_serving"], "{path} vs {price}");
            assert_eq!(answer["data"]["item"], row["item"], "{price}");
        }
    }
}

#[test]
fn the_default_ranking_is_twenty_plain_products_matching_their_item_records() {
    let body = ok(bundled_get("/v1/rankings/products"), "default");
    let rows = data(&body);
    assert_eq!(rows.len(), 20);
    let ids: Vec<i64> = rows.iter().map(|r| r["item"]["id"].as_i64().unwrap()).collect();
    let items = summaries(&ids, "latest");
    for row in rows {
        let item = &items[&row["item"]["id"].as_i64().unwrap()];
        assert_eq!(row["per_serving"], item["price_per_serving"]["cheapest"], "{row}");
        assert_eq!(row["item"]["name"], item["name"]);
    }
    // The top of the ranking: no listed product outside it is worth more per serving.
    let last = copper(&rows[19]["per_serving"]);
    let products = walk("/v1/items?limit=100&can_be_sold=true&fields=id,price_per_serving");
    let richer = products
        .iter()
        .filter(|p| !p["price_per_serving"].is_null())
        .filter(|p| copper(&p["price_per_serving"]["cheapest"]) > last)
        .count();
    assert!(richer < 20, "{richer} products are worth more than the 20th row");
}

/// The ranking is paged like every list: walking its pages gives the whole ranking once, each
/// row's `rank` counting on from the page before.
#[test]
fn the_ranking_pages_continue_its_ranks() {
    let whole = ok(bundled_get("/v1/rankings/products?limit=100"), "whole");
    let total = whole["pagination"]["total"].as_u64().unwrap() as usize;
    assert!(total > 30, "{total}");
    let mut rows: Vec<Value> = Vec::new();
    let mut next = Some("/v1/rankings/products?limit=7&food_type=drink".to_owned());
    while let Some(path) = next {
        let page = ok(bundled_get(&path), &path);
        rows.extend(data(&page).iter().cloned());
        next = page["pagination"]["next"].as_str().map(str::to_owned);
    }
    let drinks = ok(bundled_get("/v1/rankings/products?limit=100&food_type=drink"), "drinks");
    assert_eq!(rows.len() as u64, drinks["pagination"]["total"].as_u64().unwrap());
    assert_eq!(&Value::Array(rows[..100].to_vec()), &drinks["data"]);
    let ranks: Vec<u64> = rows.iter().map(|r| r["rank"].as_u64().unwrap()).collect();
    assert_eq!(ranks, (1..=rows.len() as u64).collect::<Vec<_>>());
}

#[test]
fn each_food_type_ranks_only_its_own() {
    let mut ranked = BTreeSet::new();
    for food_type in ["food", "drink", "dessert", "snack"] {
        let path = format!("/v1/rankings/products?food_type={food_type}&limit=100");
        let rows = data(&ok(bundled_get(&path), &path)).clone();
        assert!(!rows.is_empty(), "{path}");
        let ids: Vec<i64> = rows.iter().map(|r| r["item"]["id"].as_i64().unwrap()).collect();
        let items = summaries(&ids, "latest");
        assert!(ids.iter().all(|id| items[id]["food_type"] == food_type), "{path}");
        ranked.extend(ids);
    }
    // Each type's top 100 is drawn from the products; the overall top 100 is among them.
    let all = data(&ok(bundled_get("/v1/rankings/products?limit=100"), "all")).clone();
    for row in &all {
        assert!(ranked.contains(&row["item"]["id"].as_i64().unwrap()), "{row}");
    }
}

#[test]
fn the_expensive_choice_never_costs_less_for_any_product() {
    let records =
        walk("/v1/items?limit=100&include_unlisted=true&fields=id,can_be_sold,food_type,price_per_serving");
    let mut products = 0;
    for record in &records {
        let product = record["can_be_sold"] == true && record["food_type"].is_string();
        let prices = &record["price_per_serving"];
        assert_eq!(!prices.is_null(), product, "{record}");
        if product {
            products += 1;
            assert!(copper(&prices["expensive"]) >= copper(&prices["cheapest"]), "{record}");
        }
    }
    assert!(products > 300, "{products}");
}

#[test]
fn each_aging_and_quality_step_never_lowers_a_ranked_price() {
    // Snacks (30, 8 of them can be aged) rank whole; drinks and everything rank their top 100, so
    // each step compares the products both rankings hold.
    for scope in ["food_type=snack&", "food_type=drink&", ""] {
        let prices = |aging: &str, quality: &str| -> BTreeMap<i64, u64> {
            let path = format!(
                "/v1/rankings/products?{scope}limit=100&aging={aging}&quality={quality}&ingredients=expensive"
            );
            data(&ok(bundled_get(&path), &path))
                .iter()
                .map(|r| (r["item"]["id"].as_i64().unwrap(), copper(&r["per_serving"])))
                .collect()
        };
        let agings = ["none", "young", "aged", "reserve", "grand_reserve"];
        let qualities = ["common", "fine", "superior"];
        let table: Vec<Vec<BTreeMap<i64, u64>>> =
            agings.iter().map(|a| qualities.iter().map(|q| prices(a, q)).collect()).collect();
        let never_lower = |lower: &BTreeMap<i64, u64>, higher: &BTreeMap<i64, u64>, step: &str| {
            let shared = lower.keys().filter(|id| higher.contains_key(id)).count();
            assert!(shared > 0, "{scope} {step}: nothing to compare");
            for (id, price) in lower {
                if let Some(raised) = higher.get(id) {
                    assert!(raised >= price, "{scope} {step}: item {id} fell from {price} to {raised}");
                }
            }
        };
        for (a, row) in table.iter().enumerate() {
            for q in 1..qualities.len() {
                never_lower(
                    &row[q - 1],
                    &row[q],
                    &format!("{} {} -> {}", agings[a], qualities[q - 1], qualities[q]),
                );
            }
            if a > 0 {
                for (q, quality) in qualities.iter().enumerate() {
                    never_lower(
                        &table[a - 1][q],
                        &row[q],
                        &format!("{quality} {} -> {}", agings[a - 1], agings[a]),
                    );
                }
            }
        }
    }
}

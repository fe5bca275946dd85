//! Items: every filter narrowing correctly, sorting, `ids`, `fields`, `expand`, pages walked to the
//! end, fallbacks pointing at English texts, and item keys by id and slug.

use std::collections::BTreeSet;

use serde_json::json;

use crate::{Holds, assert_fallbacks_are_english, bundled_get, data, get, pointer, walk};

#[test]
fn walking_every_page_gives_each_listed_item_once() {
    let records = walk("/v1/items?limit=100&sort=name&lang=fr");
    let ids: BTreeSet<i64> = records.iter().map(|r| r["id"].as_i64().unwrap()).collect();
    assert_eq!(ids.len(), records.len(), "an item came twice");
    assert!(records.len() >= 1_100, "{}", records.len());
    assert!(records.iter().all(|r| r["unlisted"] == false));
    let with_unlisted = bundled_get("/v1/items?include_unlisted=true&limit=1").json();
    assert!(with_unlisted["pagination"]["total"].as_u64().unwrap() > records.len() as u64);
}

#[test]
fn each_filter_narrows_to_what_it_names() {
    let cases: &[(&str, Holds)] = &[
        ("kind=drink", |r| r["kind"] == "drink"),
        ("category=ale", |r| r["category"] == "ale"),
        ("tag=alcoholic", |r| r["tags"].as_array().unwrap().contains(&json!("alcoholic"))),
        ("ingredient_type=malt", |r| r["ingredient_type"] == "malt"),
        ("can_be_sold=true", |r| r["can_be_sold"] == true),
        ("can_be_sold=false", |r| r["can_be_sold"] == false),
        ("can_be_aged=true", |r| r["can_be_aged"] == true),
        ("kind=drink&can_be_aged=false", |r| r["kind"] == "drink" && r["can_be_aged"] == false),
    ];
    let all = bundled_get("/v1/items?limit=1").json()["pagination"]["total"].as_u64().unwrap();
    for (filter, holds) in cases {
        let records = walk(&format!("/v1/items?limit=100&{filter}"));
        assert!(!records.is_empty(), "{filter} matched nothing");
        assert!((records.len() as u64) < all, "{filter} narrowed nothing");
        assert!(records.iter().all(holds), "{filter}");
    }
}

#[test]
fn the_shop_filter_lists_what_the_shop_sells() {
    for shop in ["mill-store", "400"] {
        let body = get(&format!("/v1/items?shop={shop}&sort=id")).json();
        let ids: Vec<i64> = data(&body).iter().map(|r| r["id"].as_i64().unwrap()).collect();
        assert_eq!(ids, [15, 30], "{shop}");
    }
    let problem = get("/v1/items?shop=no-such-shop").json();
    assert_eq!(problem["errors"][0]["parameter"], "shop");
}

#[test]
fn unknown_data_values_are_refused_with_the_known_ones() {
    for (query, parameter) in [
        ("category=wine_gum", "category"),
        ("tag=purple", "tag"),
        ("ingredient_type=magic", "ingredient_type"),
        ("kind=Drink", "kind"),
    ] {
        let answer = bundled_get(&format!("/v1/items?{query}"));
        assert_eq!(answer.status.as_u16(), 422, "{query}");
        assert_eq!(answer.json()["errors"][0]["parameter"], parameter, "{query}");
    }
    let problem = bundled_get("/v1/items?category=wine_gum").json();
    assert!(problem["errors"][0]["detail"].as_str().unwrap().contains("`ale`"), "{problem}");
}

#[test]
fn sorting_is_stable_and_ties_break_by_id() {
    let by_price = walk("/v1/items?limit=100&sort=-price,name&kind=food");
    for pair in by_price.windows(2) {
        let (a, b) = (
            pair[0]["base_price"]["copper"].as_u64().unwrap(),
            pair[1]["base_price"]["copper"].as_u64().unwrap(),
        );
        assert!(a >= b, "{} before {}", pair[0]["id"], pair[1]["id"]);
    }
    let by_id = walk("/v1/items?limit=100&sort=id");
    assert!(by_id.windows(2).all(|p| p[0]["id"].as_i64() < p[1]["id"].as_i64()));
    let by_price_only = walk("/v1/items?limit=100&sort=price");
    for pair in by_price_only.windows(2) {
        if pair[0]["base_price"] == pair[1]["base_price"] {
            assert!(pair[0]["id"].as_i64() < pair[1]["id"].as_i64(), "tie not broken by id");
        }
    }
}

#[test]
fn ids_keep_their_order_and_leave_out_unknown_ones() {
    let body = get("/v1/items?ids=20,999,10,20").json();
    let ids: Vec<i64> = data(&body).iter().map(|r| r["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [20, 10]);
    assert_eq!(body["pagination"]["total"], 2);
}

#[test]
fn fields_keep_only_what_is_asked_and_the_fallbacks_inside_it() {
    let body = get("/v1/items?fields=id,name&lang=de&sort=id").json();
    for record in data(&body) {
        let keys: Vec<&String> = record.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["id", "name"]);
    }
    let without_name = get("/v1/items?fields=id&lang=de").json();
    assert_eq!(without_name["meta"]["lang_fallback"], json!([]));
    assert_eq!(get("/v1/items?fields=colour").status.as_u16(), 422);
}

#[test]
fn fallback_pointers_resolve_to_the_english_text() {
    let targets = ["/v1/items?limit=100&kind=food".to_owned()];
    assert_fallbacks_are_english(bundled_get, &targets, &["th", "ca", "de", "ja"], &["th", "ca"]);
}

#[test]
fn one_item_by_id_or_slug_with_its_relations() {
    let by_slug = get("/v1/items/pale-ale?expand=recipes,shops,groups").json();
    let by_id = get("/v1/items/20?expand=recipes,shops,groups").json();
    assert_eq!(by_slug, by_id);
    let item = &by_slug["data"];
    assert_eq!(item["name"], "Golden Pale Ale");
    assert_eq!(item["description"], "A crisp ale for thirsty travellers.");
    assert_eq!(item["base_price"], json!({"copper": 150, "display": "1s 50c"}));
    assert_eq!(item["introduced_in"], "v1.0.0.0.1");
    let recipes: Vec<&str> =
        item["recipes"].as_array().unwrap().iter().map(|r| r["slug"].as_str().unwrap()).collect();
    assert_eq!(recipes, ["pale-ale", "pale-ale-2"]);
    let hops = get("/v1/items/dusk-hops?expand=groups").json();
    assert_eq!(hops["data"]["groups"], json!([{"id": 200, "slug": "any-hops", "name": "Any Hops"}]));
    let yeast = get("/v1/items/ale-yeast?expand=shops").json();
    assert_eq!(yeast["data"]["shops"][0]["price"]["copper"], 14);
    // Without expand, relations are left out.
    assert!(get("/v1/items/pale-ale").json()["data"].get("recipes").is_none());
    // A negative id is an id.
    assert_eq!(get("/v1/items/-1").json()["data"]["slug"], "debug-coin");
}

#[test]
fn an_item_shows_its_trade_prices_stack_and_icon_with_their_defaults() {
    let fields = "buy_price,sell_price,servings,stack_size,icon,fuel_value";
    let cases = [
        // Both prices set apart from the base price, and a path with a space.
        (
            "pale-ale",
            json!({
                "buy_price": {"copper": 180, "display": "1s 80c"},
                "sell_price": {"copper": 150, "display": "1s 50c"},
                "servings": 10, "stack_size": 5, "icon": "Sprites/Items/Pale Ale.png", "fuel_value": null,
            }),
        ),
        (
            "barley",
            json!({
                "buy_price": {"copper": 9, "display": "0s 9c"},
                "sell_price": {"copper": 4, "display": "0s 4c"},
                "servings": 1, "stack_size": 99, "icon": "Sprites/Items/Barley.png", "fuel_value": null,
            }),
        ),
        // Nothing set: both prices are the base price, one to a slot, no icon.
        (
            "water",
            json!({
                "buy_price": {"copper": 1, "display": "0s 1c"},
                "sell_price": {"copper": 1, "display": "0s 1c"},
                "servings": 1, "stack_size": 1, "icon": null, "fuel_value": null,
            }),
        ),
    ];
    for (item, expected) in cases {
        assert_eq!(get(&format!("/v1/items/{item}?fields={fields}")).json()["data"], expected, "{item}");
    }
    // On the bundled data: what burns, and a merchant paying less than a shop asks.
    let log = bundled_get("/v1/items/oak-log").json();
    assert_eq!(log["data"]["fuel_value"], 6);
    let buy = pointer(&log, "/data/buy_price/copper").as_u64().unwrap();
    let sell = pointer(&log, "/data/sell_price/copper").as_u64().unwrap();
    assert!(sell < buy, "{buy} {sell}");
}

#[test]
fn item_keys_are_checked_before_any_lookup() {
    let cases = [
        ("/v1/items/no-such-item", 404),
        ("/v1/items/424242", 404),
        ("/v1/items/honey_ale", 422),
        ("/v1/items/%20", 422),
    ];
    for (path, status) in cases {
        let answer = get(path);
        assert_eq!(answer.status.as_u16(), status, "{path}");
    }
    let long = format!("/v1/items/{}", "a".repeat(121));
    assert_eq!(get(&long).status.as_u16(), 422);
    assert_eq!(get(&format!("/v1/items/{}", "a".repeat(120))).status.as_u16(), 404);
    assert_eq!(get("/v1/items/pale-ale?expand=everything").status.as_u16(), 422);
}

#[test]
fn limit_and_offset_bounds() {
    for (query, status) in [
        ("limit=0", 422),
        ("limit=1", 200),
        ("limit=100", 200),
        ("limit=101", 422),
        ("offset=-1", 422),
        ("offset=0", 200),
        ("offset=10000", 200),
        ("offset=10001", 422),
    ] {
        assert_eq!(get(&format!("/v1/items?{query}")).status.as_u16(), status, "{query}");
    }
}

#[test]
fn content_language_names_the_languages_of_the_texts() {
    let cases = [
        // Pale ale's German name, and nothing else asked for: German only.
        ("/v1/items/pale-ale?lang=de&fields=id,name", "de"),
        // Its description has no German text and falls back: German and English.
        ("/v1/items/pale-ale?lang=de", "de, en"),
        ("/v1/items?lang=de", "de, en"),
        ("/v1/items/pale-ale", "en"),
        // No text at all: the language asked for.
        ("/v1/items/pale-ale?lang=ja&fields=id", "ja"),
    ];
    for (path, languages) in cases {
        // The second answer comes from the answer cache, which keeps the header.
        for _ in 0..2 {
            let answer = get(path);
            assert_eq!(answer.headers["content-language"], languages, "{path}");
            let fell_back = !answer.json()["meta"]["lang_fallback"].as_array().unwrap().is_empty();
            assert_eq!(fell_back, languages.ends_with(", en"), "{path}");
        }
    }
    assert!(get("/v1/versions").headers.get("content-language").is_some());
    assert!(get("/openapi.json").headers.get("content-language").is_none());
}

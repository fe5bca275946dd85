//! World data: crops, shops, shopkeepers and fish. Exact records on the small dataset, every filter
//! narrowing on the bundled one, sort orders, bounds, pages walked to the end, fallbacks pointing at
//! English texts, and version selection.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::{Holds, assert_fallbacks_are_english, bundled_get, data, get, walk};

fn ids(records: &[Value]) -> Vec<i64> {
    records.iter().map(|r| r["id"].as_i64().unwrap()).collect()
}

fn barley() -> Value {
    json!({
        "id": 300,
        "slug": "barley",
        "name": "Barley",
        "seed": {"id": 30, "slug": "barley-seeds", "name": "Barley Seeds"},
        "harvest": {"item": {"id": 10, "slug": "barley", "name": "Barley"}, "min": 1, "max": 3},
        "seasons": ["spring", "summer"],
        "days_to_grow": 6,
        "reusable": false,
        "regrow_days": null,
        "sold_by": [{"shop": {"id": 400, "slug": "mill-store", "name": "Mill Store"}, "price": {"copper": 7, "display": "0s 7c"}}],
        "introduced_in": "v1.0.0.0.1",
    })
}

fn mill_store_summary() -> Value {
    json!({
        "id": 400,
        "slug": "mill-store",
        "name": "Mill Store",
        "shopkeeper": {"id": 500, "slug": "odile", "name": "Odile", "title": "Miller"},
        "opens_at": 8,
        "closes_at": 18,
        "catalogue_size": 2,
        "introduced_in": "v1.0.0.0.1",
    })
}

#[test]
fn each_record_comes_whole_on_the_small_dataset() {
    let mut mill_store = mill_store_summary();
    mill_store["catalogue"] = json!([
        {"item": {"id": 30, "slug": "barley-seeds", "name": "Barley Seeds"}, "price": {"copper": 7, "display": "0s 7c"}, "seasons": ["spring"]},
        {"item": {"id": 15, "slug": "ale-yeast", "name": "Ale Yeast"}, "price": {"copper": 14, "display": "0s 14c"}, "seasons": []},
    ]);
    let cases = [
        ("/v1/crops", json!([barley()])),
        ("/v1/crops/300", barley()),
        ("/v1/crops/barley", barley()),
        ("/v1/shops", json!([mill_store_summary()])),
        ("/v1/shops/400", mill_store.clone()),
        ("/v1/shops/mill-store", mill_store),
        (
            "/v1/npcs",
            json!([{
                "id": 500,
                "slug": "odile",
                "name": "Odile",
                "title": "Miller",
                "birthday": {"season": "autumn", "day": 12},
                "shops": [{"id": 400, "slug": "mill-store", "name": "Mill Store"}],
                "introduced_in": "v1.0.0.0.1",
            }]),
        ),
        (
            "/v1/fish",
            json!([{
                "id": 600,
                "name": "River Trout",
                "item": {"id": 40, "slug": "river-trout", "name": "River Trout"},
                "seasons": ["spring", "autumn"],
                "water": "FreshWater",
                "bait": "Worm",
                "rarity": 2,
                "base_price": get("/v1/items/40").json()["data"]["base_price"].clone(),
                "introduced_in": "v1.0.0.0.1",
            }]),
        ),
    ];
    for (path, expected) in cases {
        let answer = get(path);
        assert_eq!(answer.status.as_u16(), 200, "{path}");
        let body = answer.json();
        assert_eq!(body["data"], expected, "{path}");
        assert_eq!(body["meta"]["game_version"], "v1.0.1.0.0", "{path}");
        assert_eq!(body["meta"]["lang_fallback"], json!([]), "{path}");
    }
}

#[test]
fn paged_lists_carry_pagination_and_full_lists_do_not() {
    let cases = [
        ("/v1/crops", Some(json!({"limit": 50, "offset": 0, "total": 1, "next": null, "prev": null}))),
        ("/v1/fish?limit=1", Some(json!({"limit": 1, "offset": 0, "total": 1, "next": null, "prev": null}))),
        ("/v1/shops", None),
        ("/v1/npcs", None),
        ("/v1/crops/barley", None),
        ("/v1/shops/mill-store", None),
    ];
    for (path, pagination) in cases {
        let body = get(path).json();
        assert_eq!(body.get("pagination").cloned(), pagination, "{path}");
    }
}

#[test]
fn each_crop_filter_narrows_to_what_it_names() {
    let cases: &[(&str, Holds)] = &[
        ("season=spring", |r| r["seasons"].as_array().unwrap().contains(&json!("spring"))),
        ("season=winter", |r| r["seasons"].as_array().unwrap().contains(&json!("winter"))),
        ("reusable=true", |r| r["reusable"] == true && r["regrow_days"].as_u64().is_some_and(|d| d >= 1)),
        ("reusable=false", |r| r["reusable"] == false && r["regrow_days"].is_null()),
        ("season=summer&reusable=true", |r| {
            r["seasons"].as_array().unwrap().contains(&json!("summer")) && r["reusable"] == true
        }),
    ];
    let all = walk("/v1/crops?limit=100");
    for (filter, holds) in cases {
        let records = walk(&format!("/v1/crops?limit=100&{filter}"));
        assert!(!records.is_empty(), "{filter} matched nothing");
        assert!(records.len() < all.len(), "{filter} narrowed nothing");
        assert!(records.iter().all(holds), "{filter}");
        let expected = all.iter().filter(|r| holds(r)).count();
        assert_eq!(records.len(), expected, "{filter} left out a crop it names");
    }
}

#[test]
fn each_fish_filter_narrows_to_what_it_names() {
    let cases: &[(&str, Holds)] = &[
        ("season=winter", |r| r["seasons"].as_array().unwrap().contains(&json!("winter"))),
        ("water=FreshWater", |r| r["water"] == "FreshWater"),
        ("water=MineWater", |r| r["water"] == "MineWater"),
        ("bait=Larva", |r| r["bait"] == "Larva"),
        ("bait=Artificial", |r| r["bait"] == "Artificial"),
        ("rarity=0", |r| r["rarity"] == 0),
        ("rarity=10", |r| r["rarity"] == 10),
        ("water=SaltWater&bait=Seafood", |r| r["water"] == "SaltWater" && r["bait"] == "Seafood"),
    ];
    let all = walk("/v1/fish?limit=100");
    for (filter, holds) in cases {
        let records = walk(&format!("/v1/fish?limit=100&{filter}"));
        assert!(!records.is_empty(), "{filter} matched nothing");
        assert!(records.len() < all.len(), "{filter} narrowed nothing");
        assert!(records.iter().all(holds), "{filter}");
        assert_eq!(
            records.len(),
            all.iter().filter(|r| holds(r)).count(),
            "{filter} left out a fish it names"
        );
    }
}

#[test]
fn fish_are_named_and_priced_by_their_item() {
    let fish = walk("/v1/fish?limit=100&lang=de");
    let by_id = ids(&fish);
    assert!(by_id.windows(2).all(|p| p[0] < p[1]), "fish are listed by id");
    for record in fish.iter().take(5) {
        assert_eq!(record["name"], record["item"]["name"]);
        let item = bundled_get(&format!("/v1/items/{}?lang=de", record["item"]["id"])).json();
        assert_eq!(record["name"], item["data"]["name"]);
        assert_eq!(record["base_price"], item["data"]["base_price"]);
    }
}

#[test]
fn crops_sort_by_each_key_and_ties_break_by_id() {
    let by_id = ids(&walk("/v1/crops?limit=100"));
    assert!(by_id.windows(2).all(|p| p[0] < p[1]), "crops are listed by id unless sorted");
    assert_eq!(ids(&walk("/v1/crops?limit=100&sort=id")), by_id);
    let mut descending = by_id.clone();
    descending.reverse();
    assert_eq!(ids(&walk("/v1/crops?limit=100&sort=-id")), descending);

    let days = |r: &Value| r["days_to_grow"].as_u64().unwrap();
    /// A sort and how each pair of neighbouring `days_to_grow` values must compare.
    type Order = (&'static str, fn(u64, u64) -> bool);
    let cases: &[Order] = &[("sort=days", |a, b| a < b), ("sort=-days", |a, b| a > b)];
    for (sort, strictly_before) in cases {
        let records = walk(&format!("/v1/crops?limit=30&{sort}"));
        assert_eq!(records.len(), by_id.len(), "{sort}");
        for pair in records.windows(2) {
            let (a, b) = (days(&pair[0]), days(&pair[1]));
            assert!(
                strictly_before(a, b) || (a == b && pair[0]["id"].as_i64() < pair[1]["id"].as_i64()),
                "{sort}: {} before {}",
                pair[0]["id"],
                pair[1]["id"]
            );
        }
    }

    let by_name = walk("/v1/crops?limit=100&sort=name");
    for pair in by_name.windows(2) {
        let (a, b) = (
            pair[0]["name"].as_str().unwrap().to_lowercase(),
            pair[1]["name"].as_str().unwrap().to_lowercase(),
        );
        assert!(a <= b, "{a:?} before {b:?}");
    }
    let by_name_desc = walk("/v1/crops?limit=100&sort=-name,-id");
    let mut reversed = ids(&by_name);
    reversed.reverse();
    assert_eq!(ids(&by_name_desc), reversed);
}

#[test]
fn walking_every_page_gives_each_record_once() {
    for (first, expected) in [
        ("/v1/crops?limit=7&lang=fr", 102),
        ("/v1/crops?limit=9&sort=-days&season=summer", 55),
        ("/v1/fish?limit=8&lang=ja", 67),
    ] {
        let records = walk(first);
        let unique: BTreeSet<i64> = ids(&records).into_iter().collect();
        assert_eq!(unique.len(), records.len(), "{first}: a record came twice");
        assert_eq!(records.len(), expected, "{first}");
    }
    let last = bundled_get("/v1/fish?limit=10&offset=60").json();
    assert_eq!(data(&last).len(), 7);
    assert_eq!(last["pagination"]["next"], Value::Null);
    assert_eq!(last["pagination"]["prev"], "/v1/fish?limit=10&offset=50");
    let beyond = bundled_get("/v1/fish?offset=10000").json();
    assert_eq!(data(&beyond).len(), 0);
    // Past the end, `prev` leads back to the last page, where the records are.
    assert_eq!(beyond["pagination"]["prev"], "/v1/fish?limit=50&offset=50");
}

#[test]
fn parameters_outside_their_rules_are_refused_by_name() {
    let cases = [
        ("/v1/crops?season=Spring", "season"),
        ("/v1/crops?season=fall", "season"),
        ("/v1/crops?reusable=yes", "reusable"),
        ("/v1/crops?reusable=1", "reusable"),
        ("/v1/crops?sort=price", "sort"),
        ("/v1/crops?sort=days,-days", "sort"),
        ("/v1/crops?fields=id", "fields"),
        ("/v1/crops?ids=300", "ids"),
        ("/v1/crops?limit=0", "limit"),
        ("/v1/crops?limit=101", "limit"),
        ("/v1/crops?offset=-1", "offset"),
        ("/v1/crops?offset=10001", "offset"),
        ("/v1/crops?season=spring&season=summer", "season"),
        ("/v1/crops/barley?limit=1", "limit"),
        ("/v1/crops/barley?sort=id", "sort"),
        ("/v1/shops?limit=10", "limit"),
        ("/v1/shops?offset=1", "offset"),
        ("/v1/shops/mill-store?lang=xx", "lang"),
        ("/v1/npcs?sort=name", "sort"),
        ("/v1/npcs?version=v1", "version"),
        ("/v1/fish?season=Winter", "season"),
        ("/v1/fish?water=freshwater", "water"),
        ("/v1/fish?water=Lava", "water"),
        ("/v1/fish?bait=worm", "bait"),
        ("/v1/fish?rarity=-1", "rarity"),
        ("/v1/fish?rarity=11", "rarity"),
        ("/v1/fish?rarity=rare", "rarity"),
        ("/v1/fish?limit=0", "limit"),
        ("/v1/fish?limit=101", "limit"),
        ("/v1/fish?offset=-1", "offset"),
        ("/v1/fish?offset=10001", "offset"),
        ("/v1/fish?sort=id", "sort"),
    ];
    for (path, parameter) in cases {
        let answer = get(path);
        assert_eq!(answer.status.as_u16(), 422, "{path}");
        assert_eq!(answer.json()["errors"][0]["parameter"], parameter, "{path}");
    }
    let problem = get("/v1/fish?water=Lava").json();
    assert!(problem["errors"][0]["detail"].as_str().unwrap().contains("`MineWater`"), "{problem}");
    let inside = [
        "/v1/fish?rarity=0",
        "/v1/fish?rarity=10",
        "/v1/fish?limit=1",
        "/v1/fish?limit=100",
        "/v1/fish?offset=0",
        "/v1/fish?offset=10000",
        "/v1/crops?limit=1&offset=10000",
        "/v1/crops?limit=100",
        "/v1/crops?sort=-days,name,id",
    ];
    for path in inside {
        assert_eq!(get(path).status.as_u16(), 200, "{path}");
    }
}

#[test]
fn keys_are_checked_and_unknown_records_are_404() {
    let cases = [
        ("/v1/crops/no-such-crop", 404, "there is no crop no-such-crop in v1.0.1.0.0"),
        ("/v1/crops/424242", 404, "there is no crop 424242 in v1.0.1.0.0"),
        ("/v1/crops/400", 404, "there is no crop 400 in v1.0.1.0.0"),
        ("/v1/shops/no-such-shop", 404, "there is no shop no-such-shop in v1.0.1.0.0"),
        ("/v1/shops/-5", 404, "there is no shop -5 in v1.0.1.0.0"),
        ("/v1/shops/barley?version=v1.0.0.0.1", 404, "there is no shop barley in v1.0.0.0.1"),
        ("/v1/crops/barley?version=v9.9", 404, "no game version v9.9"),
        ("/v1/crops/bar_ley", 422, ""),
        ("/v1/crops/%20", 422, ""),
        ("/v1/shops/-", 422, ""),
        ("/v1/shops/mill%2Fstore", 422, ""),
    ];
    for (path, status, detail) in cases {
        let answer = get(path);
        assert_eq!(answer.status.as_u16(), status, "{path}");
        let problem = answer.json();
        assert!(problem["detail"].as_str().unwrap().contains(detail), "{path}: {problem}");
    }
    for area in ["crops", "shops"] {
        assert_eq!(get(&format!("/v1/{area}/{}", "a".repeat(121))).status.as_u16(), 422, "{area}");
        assert_eq!(get(&format!("/v1/{area}/{}", "a".repeat(120))).status.as_u16(), 404, "{area}");
    }
    for path in ["/v1/npcs/odile", "/v1/fish/600"] {
        assert_eq!(get(path).status.as_u16(), 404, "{path}");
    }
}

#[test]
fn fallback_pointers_resolve_to_the_english_text() {
    let targets = [
        "/v1/crops?limit=100",
        "/v1/crops?limit=100&offset=50&sort=-days",
        "/v1/crops/barley",
        "/v1/shops",
        "/v1/shops/sprout-and-sickle",
        "/v1/npcs",
        "/v1/fish?limit=100",
    ];
    assert_fallbacks_are_english(bundled_get, &targets.map(String::from), &["th", "ca", "de", "ja"], &["th"]);
}

#[test]
fn fallbacks_are_listed_in_document_order() {
    // `item.40.name` is empty in German: the fish's name and its item's name both stand in.
    let body = get("/v1/fish?lang=de").json();
    assert_eq!(body["meta"]["lang_fallback"], json!(["/data/0/name", "/data/0/item/name"]));
    assert_eq!(body["data"][0]["name"], "River Trout");
    let shop = get("/v1/shops/mill-store?lang=de").json();
    let pointers: Vec<&str> =
        shop["meta"]["lang_fallback"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
    assert_eq!(
        pointers,
        ["/data/name", "/data/shopkeeper/name", "/data/shopkeeper/title", "/data/catalogue/1/item/name"]
    );
    assert_eq!(shop["data"]["catalogue"][0]["item"]["name"], "Gerstensamen");
    let body = bundled_get("/v1/crops?lang=th&limit=100").json();
    let pointers: Vec<String> = body["meta"]["lang_fallback"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_owned())
        .collect();
    let mut sorted = pointers.clone();
    sorted.sort_by_key(|p| p.split('/').nth(2).and_then(|i| i.parse::<u64>().ok()));
    assert_eq!(pointers, sorted, "fallbacks follow the records' order");
}

#[test]
fn shops_and_shopkeepers_agree_with_each_other() {
    let shops = bundled_get("/v1/shops").json();
    let npcs = bundled_get("/v1/npcs").json();
    assert_eq!(data(&shops).len(), 19);
    assert_eq!(data(&npcs).len(), 19);
    for shop in data(&shops) {
        let detail = bundled_get(&format!("/v1/shops/{}", shop["slug"].as_str().unwrap())).json();
        let catalogue = detail["data"]["catalogue"].as_array().unwrap();
        assert_eq!(shop["catalogue_size"].as_u64().unwrap(), catalogue.len() as u64, "{}", shop["slug"]);
        for field in
            ["id", "slug", "name", "shopkeeper", "opens_at", "closes_at", "catalogue_size", "introduced_in"]
        {
            assert_eq!(shop[field], detail["data"][field], "{} {field}", shop["slug"]);
        }
        assert!(shop["opens_at"].as_u64() < shop["closes_at"].as_u64());
        let keeper = data(&npcs)
            .iter()
            .find(|n| n["id"] == shop["shopkeeper"]["id"])
            .expect("the shopkeeper is listed");
        assert_eq!(
            (&keeper["name"], &keeper["title"]),
            (&shop["shopkeeper"]["name"], &shop["shopkeeper"]["title"])
        );
        assert!(
            keeper["shops"].as_array().unwrap().iter().any(|s| s["id"] == shop["id"]),
            "{} runs {}",
            keeper["slug"],
            shop["slug"]
        );
    }
    for npc in data(&npcs) {
        let day = npc["birthday"]["day"].as_u64().unwrap();
        assert!((1..=28).contains(&day));
        assert!(
            ["spring", "summer", "autumn", "winter"].contains(&npc["birthday"]["season"].as_str().unwrap())
        );
    }
}

#[test]
fn crops_name_the_shops_that_sell_their_seed() {
    let crops = walk("/v1/crops?limit=100");
    for crop in crops.iter().step_by(10) {
        for offer in crop["sold_by"].as_array().unwrap() {
            let shop = bundled_get(&format!("/v1/shops/{}", offer["shop"]["id"])).json();
            let line = shop["data"]["catalogue"]
                .as_array()
                .unwrap()
                .iter()
                .find(|l| l["item"]["id"] == crop["seed"]["id"]);
            assert_eq!(line.map(|l| &l["price"]), Some(&offer["price"]), "{}", crop["slug"]);
        }
    }
    assert!(
        crops.iter().all(|c| !c["sold_by"].as_array().unwrap().is_empty()),
        "every bundled seed is sold somewhere"
    );
}

#[test]
fn version_selects_that_versions_records() {
    let old = "v0.6.4.2.1";
    let cases = [
        (format!("/v1/crops?version={old}&limit=1"), 98),
        (format!("/v1/fish?version={old}&limit=1"), 61),
        ("/v1/crops?version=v0.6.5.0.3&limit=1".to_owned(), 100),
        ("/v1/crops?limit=1".to_owned(), 102),
        ("/v1/fish?version=latest&limit=1".to_owned(), 67),
    ];
    for (path, total) in cases {
        let body = bundled_get(&path).json();
        assert_eq!(body["pagination"]["total"], total, "{path}");
    }
    let body = bundled_get(&format!("/v1/shops?version={old}")).json();
    assert_eq!(body["meta"]["game_version"], old);
    let sprout = data(&body).iter().find(|s| s["slug"] == "sprout-and-sickle").unwrap();
    assert_eq!(sprout["catalogue_size"], 63);
    assert_eq!(
        data(&bundled_get("/v1/shops").json()).iter().find(|s| s["slug"] == "sprout-and-sickle").unwrap()["catalogue_size"],
        66
    );

    assert_eq!(bundled_get(&format!("/v1/crops/329?version={old}")).status.as_u16(), 404);
    let introduced = [
        ("/v1/crops/329", "v0.7.0.0.1"),
        ("/v1/crops/326", "v0.6.5.0.3"),
        ("/v1/crops/barley", old),
        ("/v1/shops/10", old),
    ];
    for (path, version) in introduced {
        assert_eq!(bundled_get(path).json()["data"]["introduced_in"], version, "{path}");
    }
    let fish = walk("/v1/fish?limit=100");
    let newest: Vec<i64> = fish
        .iter()
        .filter(|f| f["introduced_in"] == "v0.7.0.0.1")
        .map(|f| f["id"].as_i64().unwrap())
        .collect();
    assert_eq!(newest, [481, 483, 484]);
    let npcs = bundled_get("/v1/npcs").json();
    assert!(data(&npcs).iter().all(|n| n["introduced_in"] == old));
}

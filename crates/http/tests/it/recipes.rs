//! Recipes, ingredient groups and crafting stations: each filter narrowing correctly, replaced recipes
//! hidden by default, sorting, `ids`, `fields`, pages walked to the end, details with their references
//! named, fallbacks pointing at English texts, keys by id and slug, and version selection.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::{assert_fallbacks_are_english, bundled_get, data, get, pointer, walk};

fn ids(body: &Value) -> Vec<i64> {
    data(body).iter().map(|r| r["id"].as_i64().unwrap()).collect()
}

#[test]
fn the_mini_list_filters_to_what_each_parameter_names() {
    // Mini data: 100 pale-malt (malting floor), 101 pale-wort (brew kettle), 102 pale-ale (perk,
    // replaced by 103), 103 pale-ale-2 (fermenting vat).
    let cases: &[(&str, &[i64])] = &[
        ("", &[100, 101, 103]),
        ("include_replaced=false", &[100, 101, 103]),
        ("include_replaced=true", &[100, 101, 102, 103]),
        ("group=brewing", &[101, 103]),
        ("group=malting", &[100]),
        ("page_name=ales", &[103]),
        ("page_name=ales&include_replaced=true", &[102, 103]),
        ("unlock=default", &[100, 101, 103]),
        ("unlock=perk", &[]),
        ("unlock=perk&include_replaced=true", &[102]),
        ("unlock=quest&include_replaced=true", &[]),
        ("output_kind=drink", &[103]),
        ("output_kind=ingredient", &[100, 101]),
        ("output_kind=food", &[]),
        ("crafter=fermenting-vat", &[103]),
        ("crafter=3&include_replaced=true", &[102, 103]),
        ("crafter=brew-kettle&group=brewing", &[101]),
        ("crafter=malting-floor&group=brewing", &[]),
        ("ids=103,999,100,103", &[103, 100]),
        ("ids=102", &[]),
        ("ids=102,100&include_replaced=true", &[102, 100]),
        ("ids=100,103&sort=-id", &[103, 100]),
        ("sort=-time", &[103, 101, 100]),
        ("sort=time", &[100, 101, 103]),
        ("sort=name", &[103, 100, 101]),
        ("sort=-name", &[101, 100, 103]),
        ("sort=-id", &[103, 101, 100]),
        ("include_replaced=true&sort=name", &[102, 103, 100, 101]),
        ("limit=2", &[100, 101]),
        ("limit=2&offset=2", &[103]),
        ("offset=3", &[]),
    ];
    for (query, expected) in cases {
        let answer = get(&format!("/v1/recipes?{query}"));
        assert_eq!(answer.status.as_u16(), 200, "{query}");
        let body = answer.json();
        assert_eq!(ids(&body), *expected, "{query}");
        if !query.contains("limit") && !query.contains("offset") {
            assert_eq!(body["pagination"]["total"], expected.len(), "{query}");
        }
    }
}

#[test]
fn a_summary_names_every_reference() {
    let body = get("/v1/recipes?include_replaced=true&ids=102").json();
    assert_eq!(
        body["data"][0],
        json!({
            "id": 102,
            "slug": "pale-ale",
            "name": "Golden Pale Ale",
            "output": {"item": {"id": 20, "slug": "pale-ale", "name": "Golden Pale Ale"}, "amount": 1},
            "station": {"id": 3, "slug": "fermenting-vat", "name": "Fermenting Vat"},
            "craft_minutes": 240,
            "fuel": 0,
            "aging_days": null,
            "group": "brewing",
            "page_name": "ales",
            "unlock": {"kind": "perk", "key": "Perk_Brewing_1"},
            "replaced_by": {"id": 103, "slug": "pale-ale-2", "name": "Golden Pale Ale"},
            "introduced_in": "v1.0.0.0.1",
        })
    );
    let current = get("/v1/recipes?ids=100").json();
    assert_eq!(current["data"][0]["unlock"], json!({"kind": "default", "key": null}));
    assert_eq!(current["data"][0]["replaced_by"], Value::Null);
    assert_eq!(current["meta"]["game_version"], "v1.0.1.0.0");
    assert_eq!(current["pagination"]["next"], Value::Null);
}

#[test]
fn bad_list_parameters_are_refused_by_name() {
    let long_ident = "a".repeat(49);
    let cases: Vec<(String, &str)> = vec![
        ("group=ales".into(), "group"),
        ("group=Brewing".into(), "group"),
        (format!("group={long_ident}"), "group"),
        ("page_name=soups".into(), "page_name"),
        (format!("page_name={long_ident}"), "page_name"),
        ("unlock=Perk".into(), "unlock"),
        ("unlock=letter".into(), "unlock"),
        ("output_kind=Drink".into(), "output_kind"),
        ("output_kind=potion".into(), "output_kind"),
        ("crafter=no-such-station".into(), "crafter"),
        ("crafter=999".into(), "crafter"),
        ("crafter=brew_kettle".into(), "crafter"),
        (format!("crafter={}", "a".repeat(121)), "crafter"),
        ("include_replaced=yes".into(), "include_replaced"),
        ("include_replaced=True".into(), "include_replaced"),
        ("ids=1,x".into(), "ids"),
        (format!("ids={}", "1,".repeat(1_000) + "1"), "ids"),
        ("sort=price".into(), "sort"),
        ("sort=time,-time".into(), "sort"),
        ("fields=ingredients".into(), "fields"),
        ("limit=0".into(), "limit"),
        ("limit=101".into(), "limit"),
        ("offset=-1".into(), "offset"),
        ("offset=10001".into(), "offset"),
        ("lang=xx".into(), "lang"),
        ("version=v1".into(), "version"),
        ("station=1".into(), "station"),
        ("group=brewing&group=malting".into(), "group"),
    ];
    for (query, parameter) in &cases {
        let answer = get(&format!("/v1/recipes?{query}"));
        assert_eq!(answer.status.as_u16(), 422, "{query}");
        assert_eq!(answer.content_type(), "application/problem+json", "{query}");
        assert_eq!(answer.json()["errors"][0]["parameter"], *parameter, "{query}");
    }
    // The other side of each bound is accepted.
    for query in
        ["limit=1", "limit=100", "offset=0", "offset=10000", "include_replaced=false", "unlock=mission"]
    {
        assert_eq!(get(&format!("/v1/recipes?{query}")).status.as_u16(), 200, "{query}");
    }
    // A well-formed 48-character group is checked against the data, not refused for its length.
    let unknown = get(&format!("/v1/recipes?group={}", "a".repeat(48))).json();
    let detail = unknown["errors"][0]["detail"].as_str().unwrap();
    assert!(detail.contains("`brewing`") && detail.contains("`malting`"), "{detail}");
    let pages = get("/v1/recipes?page_name=soups").json();
    assert!(pages["errors"][0]["detail"].as_str().unwrap().contains("`ales`"), "{pages}");
    let station = get("/v1/recipes?crafter=no-such-station").json();
    assert!(
        station["errors"][0]["detail"].as_str().unwrap().contains("no crafting station no-such-station"),
        "{station}"
    );
    let long_key = format!("/v1/recipes?crafter={}", "a".repeat(120));
    assert!(get(&long_key).json()["errors"][0]["detail"].as_str().unwrap().contains("no crafting station"));
}

#[test]
fn fields_keep_only_what_is_asked_and_the_fallbacks_inside_it() {
    let body = get("/v1/recipes?fields=id,name,station&lang=de").json();
    for record in data(&body) {
        let keys: Vec<&String> = record.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["id", "name", "station"]);
    }
    for p in body["meta"]["lang_fallback"].as_array().unwrap() {
        let field = p.as_str().unwrap().split('/').nth(3).unwrap();
        assert!(["name", "station"].contains(&field), "{p}");
    }
    let only_ids = get("/v1/recipes?fields=id&lang=de").json();
    assert_eq!(only_ids["meta"]["lang_fallback"], json!([]));
}

#[test]
fn one_recipe_by_id_or_slug_with_its_ingredients() {
    let by_slug = get("/v1/recipes/pale-wort").json();
    assert_eq!(by_slug, get("/v1/recipes/101").json());
    assert_eq!(
        by_slug["data"],
        json!({
            "id": 101,
            "slug": "pale-wort",
            "name": "Pale Wort",
            "output": {"item": {"id": 16, "slug": "pale-wort", "name": "Pale Wort"}, "amount": 1},
            "ingredients": [
                {"kind": "item", "item": {"id": 11, "slug": "pale-malt", "name": "Pale Malt"}, "amount": 3},
                {"kind": "group", "group": {"id": 200, "slug": "any-hops", "name": "Any Hops", "members": [
                    {"id": 12, "slug": "bright-hops", "name": "Bright Hops"},
                    {"id": 13, "slug": "dusk-hops", "name": "Dusk Hops"},
                ]}, "amount": 1},
                {"kind": "item", "item": {"id": 14, "slug": "water", "name": "Water"}, "amount": 2},
            ],
            "station": {"id": 2, "slug": "brew-kettle", "name": "Brew Kettle"},
            "craft_minutes": 90,
            "fuel": 2,
            "aging_days": null,
            "group": "brewing",
            "page_name": "worts",
            "unlock": {"kind": "default", "key": null, "name": null},
            "replaced_by": null,
            "replaces": [],
            "introduced_in": "v1.0.0.0.1",
        })
    );
    let replaced = get("/v1/recipes/pale-ale").json();
    assert_eq!(
        replaced["data"]["unlock"],
        json!({"kind": "perk", "key": "Perk_Brewing_1", "name": "Brewer's Patience I"})
    );
    assert_eq!(
        replaced["data"]["replaced_by"],
        json!({"id": 103, "slug": "pale-ale-2", "name": "Golden Pale Ale"})
    );
    let newer = get("/v1/recipes/103").json();
    assert_eq!(
        newer["data"]["replaces"],
        json!([{"id": 102, "slug": "pale-ale", "name": "Golden Pale Ale"}])
    );
    assert_eq!(newer["data"]["output"]["amount"], 2);
    assert_eq!(
        newer["data"]["aging_days"],
        json!({"young": 3, "aged": 7, "reserve": 14, "grand_reserve": 28})
    );
    assert_eq!(newer["data"]["fuel"], 0);
    // The detail takes no list parameters.
    for query in ["fields=id", "limit=1", "include_replaced=true"] {
        assert_eq!(get(&format!("/v1/recipes/103?{query}")).status.as_u16(), 422, "{query}");
    }
}

#[test]
fn one_ingredient_group_with_its_members_and_uses() {
    let by_slug = get("/v1/ingredient-groups/any-hops").json();
    assert_eq!(by_slug, get("/v1/ingredient-groups/200").json());
    assert_eq!(
        by_slug["data"],
        json!({
            "id": 200,
            "slug": "any-hops",
            "name": "Any Hops",
            "members": [
                {"id": 12, "slug": "bright-hops", "name": "Bright Hops", "base_price": {"copper": 15, "display": "0s 15c"}},
                {"id": 13, "slug": "dusk-hops", "name": "Dusk Hops", "base_price": {"copper": 40, "display": "0s 40c"}},
            ],
            "used_by": 1,
            "introduced_in": "v1.0.0.0.1",
        })
    );
    let german = get("/v1/ingredient-groups/any-hops?lang=de").json();
    assert_eq!(german["data"]["name"], "Beliebiger Hopfen");
    assert_eq!(german["meta"]["lang_fallback"], json!(["/data/members/0/name", "/data/members/1/name"]));
}

#[test]
fn every_crafting_station_with_its_current_recipes() {
    let body = get("/v1/crafters").json();
    assert!(body.get("pagination").is_none(), "a full list has no pagination");
    assert_eq!(
        body["data"],
        json!([
            {"id": 1, "slug": "malting-floor", "name": "Malting Floor", "description": null,
             "recipes": [{"id": 100, "slug": "pale-malt", "name": "Pale Malt"}], "recipe_count": 1, "introduced_in": "v1.0.0.0.1"},
            {"id": 2, "slug": "brew-kettle", "name": "Brew Kettle", "description": "Boils wort with hops.",
             "recipes": [{"id": 101, "slug": "pale-wort", "name": "Pale Wort"}], "recipe_count": 1, "introduced_in": "v1.0.0.0.1"},
            {"id": 3, "slug": "fermenting-vat", "name": "Fermenting Vat", "description": null,
             "recipes": [{"id": 103, "slug": "pale-ale-2", "name": "Golden Pale Ale"}], "recipe_count": 1, "introduced_in": "v1.0.0.0.1"},
        ])
    );
    for query in ["limit=10", "offset=0", "sort=id", "fields=id"] {
        assert_eq!(get(&format!("/v1/crafters?{query}")).status.as_u16(), 422, "{query}");
    }
}

#[test]
fn keys_are_checked_before_any_lookup() {
    let long = "a".repeat(121);
    let at_most = "a".repeat(120);
    let cases: Vec<(String, u16, &str)> = vec![
        ("/v1/recipes/no-such-recipe".into(), 404, "there is no recipe no-such-recipe in v1.0.1.0.0"),
        ("/v1/recipes/424242".into(), 404, "there is no recipe 424242 in v1.0.1.0.0"),
        ("/v1/recipes/-5".into(), 404, "there is no recipe -5"),
        ("/v1/recipes/pale_ale".into(), 422, "key"),
        ("/v1/recipes/%20".into(), 422, "key"),
        (format!("/v1/recipes/{long}"), 422, "key"),
        (format!("/v1/recipes/{at_most}"), 404, "there is no recipe"),
        ("/v1/recipes/pale-ale?version=v9.9.9.9.9".into(), 404, "v9.9.9.9.9"),
        (
            "/v1/ingredient-groups/no-such-group".into(),
            404,
            "there is no ingredient group no-such-group in v1.0.1.0.0",
        ),
        ("/v1/ingredient-groups/201".into(), 404, "there is no ingredient group 201"),
        ("/v1/ingredient-groups/any_hops".into(), 422, "key"),
        (format!("/v1/ingredient-groups/{long}"), 422, "key"),
        ("/v1/ingredient-groups/any-hops?lang=xx".into(), 422, "lang"),
        ("/v1/crafters?version=v9.9.9.9.9".into(), 404, "v9.9.9.9.9"),
        ("/v1/crafters?version=latest&lang=x".into(), 422, "lang"),
    ];
    for (path, status, names) in &cases {
        let answer = get(path);
        assert_eq!(answer.status.as_u16(), *status, "{path}");
        let problem = answer.json();
        if *status == 422 {
            assert_eq!(problem["errors"][0]["parameter"], *names, "{path}");
        } else {
            assert!(problem["detail"].as_str().unwrap().contains(names), "{path}: {problem}");
        }
    }
}

#[test]
fn fallback_pointers_resolve_to_the_english_text() {
    // Details: a recipe with a group ingredient and a keyed unlock, and a group.
    let recipes = walk("/v1/recipes?limit=100&include_replaced=true");
    let with_group = recipes.iter().find(|r| {
        r["unlock"]["key"].is_string()
            && r["id"].as_i64().is_some_and(|id| {
                let detail = bundled_get(&format!("/v1/recipes/{id}")).json();
                detail["data"]["ingredients"].as_array().unwrap().iter().any(|i| i.get("group").is_some())
            })
    });
    let recipe = with_group.expect("a keyed recipe with a group ingredient");
    let targets = [
        "/v1/recipes?limit=100&include_replaced=true&sort=-time".to_owned(), // name order differs by language
        "/v1/recipes?limit=100&offset=10&group=brewing&include_replaced=true".to_owned(),
        "/v1/crafters".to_owned(),
        format!("/v1/recipes/{}", recipe["id"]),
        "/v1/ingredient-groups/100".to_owned(),
    ];
    assert_fallbacks_are_english(bundled_get, &targets, &["th", "ca", "de", "ja"], &["th", "ca"]);
}

#[test]
fn walking_every_page_gives_each_recipe_once() {
    let current = walk("/v1/recipes?limit=100&sort=name&lang=fr");
    let ids: BTreeSet<i64> = current.iter().map(|r| r["id"].as_i64().unwrap()).collect();
    assert_eq!(ids.len(), current.len(), "a recipe came twice");
    assert_eq!(current.len(), 1002 - 210);
    assert!(current.iter().all(|r| r["replaced_by"].is_null()));
    let all = walk("/v1/recipes?limit=100&include_replaced=true&sort=-time");
    assert_eq!(all.len(), 1002);
    let all_ids: BTreeSet<i64> = all.iter().map(|r| r["id"].as_i64().unwrap()).collect();
    assert_eq!(all_ids.len(), 1002);
    assert!(all_ids.is_superset(&ids));
    for pair in all.windows(2) {
        let (a, b) = (pair[0]["craft_minutes"].as_u64().unwrap(), pair[1]["craft_minutes"].as_u64().unwrap());
        assert!(a >= b, "{} before {}", pair[0]["id"], pair[1]["id"]);
        if a == b {
            assert!(pair[0]["id"].as_i64() < pair[1]["id"].as_i64(), "tie not broken by id");
        }
    }
}

#[test]
fn each_filter_narrows_the_bundled_list() {
    let all = walk("/v1/recipes?limit=100");
    let page_name = all[0]["page_name"].as_str().unwrap().to_owned();
    let station = all[0]["station"]["slug"].as_str().unwrap().to_owned();
    type Case = (String, Box<dyn Fn(&Value) -> bool>);
    let cases: Vec<Case> = vec![
        ("group=brewing".into(), Box::new(|r| r["group"] == "brewing")),
        (format!("page_name={page_name}"), Box::new(move |r| r["page_name"] == page_name.as_str())),
        (
            "unlock=quest".into(),
            Box::new(|r| r["unlock"]["kind"] == "quest" && r["unlock"]["key"].is_string()),
        ),
        ("unlock=default".into(), Box::new(|r| r["unlock"] == json!({"kind": "default", "key": null}))),
        (
            "output_kind=drink".into(),
            Box::new(|r| r["output"]["item"]["id"].as_i64().is_some_and(|id| (3000..3700).contains(&id))),
        ),
        (format!("crafter={station}"), Box::new(move |r| r["station"]["slug"] == station.as_str())),
        (
            "group=brewing&unlock=default".into(),
            Box::new(|r| r["group"] == "brewing" && r["unlock"]["kind"] == "default"),
        ),
    ];
    for (filter, holds) in &cases {
        let records = walk(&format!("/v1/recipes?limit=100&{filter}"));
        assert!(!records.is_empty(), "{filter} matched nothing");
        assert!(records.len() < all.len(), "{filter} narrowed nothing");
        assert!(records.iter().all(holds), "{filter}");
    }
    // Every current recipe is made at exactly one station, and the stations list them all.
    let crafters = bundled_get("/v1/crafters").json();
    let stations = data(&crafters);
    assert_eq!(stations.len(), 18);
    let mut listed = 0;
    for station in stations {
        let recipes = station["recipes"].as_array().unwrap();
        assert_eq!(station["recipe_count"], recipes.len());
        let ids: Vec<i64> = recipes.iter().map(|r| r["id"].as_i64().unwrap()).collect();
        assert!(ids.windows(2).all(|p| p[0] < p[1]), "recipes of {} are not by id", station["slug"]);
        let filtered = walk(&format!("/v1/recipes?limit=100&sort=id&crafter={}", station["id"]));
        assert_eq!(
            filtered.iter().map(|r| r["id"].as_i64().unwrap()).collect::<Vec<_>>(),
            ids,
            "{}",
            station["slug"]
        );
        listed += recipes.len();
    }
    assert_eq!(listed, all.len());
}

#[test]
fn version_selection_gives_that_versions_records() {
    let old = bundled_get("/v1/recipes?version=v0.6.4.2.1&limit=1").json();
    assert_eq!(old["meta"]["game_version"], "v0.6.4.2.1");
    assert_eq!(old["pagination"]["total"], 909 - 170);
    assert_eq!(old["pagination"]["next"], "/v1/recipes?limit=1&offset=1&version=v0.6.4.2.1");
    let latest = bundled_get("/v1/recipes?limit=1").json();
    assert_eq!(latest["meta"]["game_version"], "v0.7.0.0.1");
    // A recipe new in the latest version is unknown to the old one.
    let all = walk("/v1/recipes?limit=100&include_replaced=true");
    let new = all.iter().find(|r| r["introduced_in"] == "v0.7.0.0.1").expect("a recipe new in v0.7.0.0.1");
    let slug = new["slug"].as_str().unwrap();
    assert_eq!(bundled_get(&format!("/v1/recipes/{slug}")).status.as_u16(), 200);
    let gone = bundled_get(&format!("/v1/recipes/{slug}?version=v0.6.4.2.1"));
    assert_eq!(gone.status.as_u16(), 404);
    assert!(
        gone.json()["detail"].as_str().unwrap().contains(&format!("there is no recipe {slug} in v0.6.4.2.1"))
    );
    let crafters = bundled_get("/v1/crafters?version=v0.6.4.2.1").json();
    assert_eq!(crafters["meta"]["game_version"], "v0.6.4.2.1");
    let listed: usize = data(&crafters).iter().map(|s| s["recipe_count"].as_u64().unwrap() as usize).sum();
    assert_eq!(listed, 909 - 170);
    // On the small set, the renamed pale ale carries its old name in the old version.
    let old_mini = get("/v1/recipes/pale-ale-2?version=v1.0.0.0.1").json();
    assert_eq!(old_mini["data"]["name"], "Pale Ale");
    assert_eq!(old_mini["meta"]["game_version"], "v1.0.0.0.1");
    assert_eq!(
        get("/v1/ingredient-groups/any-hops?version=v1.0.0.0.1").json()["meta"]["game_version"],
        "v1.0.0.0.1"
    );
}

#[test]
fn mini_fallbacks_are_listed_in_document_order() {
    // German lacks the names of pale wort, water, the hops, the malting floor and the vat.
    let body = get("/v1/recipes/pale-wort?lang=de").json();
    let english = get("/v1/recipes/pale-wort").json();
    let pointers: Vec<&str> =
        body["meta"]["lang_fallback"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
    assert_eq!(
        pointers,
        [
            "/data/name",
            "/data/output/item/name",
            "/data/ingredients/1/group/members/0/name",
            "/data/ingredients/1/group/members/1/name",
            "/data/ingredients/2/item/name",
        ]
    );
    for p in pointers {
        assert_eq!(pointer(&body, p), pointer(&english, p), "{p}");
    }
    assert_eq!(body["data"]["ingredients"][0]["item"]["name"], "Helles Malz");
    assert_eq!(body["data"]["station"]["name"], "Braukessel");
    let crafters = get("/v1/crafters?lang=de").json();
    assert_eq!(
        crafters["meta"]["lang_fallback"],
        json!(["/data/0/name", "/data/1/description", "/data/1/recipes/0/name", "/data/2/name",])
    );
}

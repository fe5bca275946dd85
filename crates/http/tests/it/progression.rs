//! Progression records: every list walked to the end in its default order against the fixture files,
//! each detail's attributes with their references named, keys percent-decoded, 422 and 404 bounds,
//! fallback pointers resolving to the English texts, and version selection.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::{assert_fallbacks_are_english, bundled_get, data, get, pointer, walk};

const SEGMENTS: &[&str] = &["quests", "perks", "spells", "talents", "reputation", "missions", "letters"];
const VERSIONS: &[&str] = &["v0.6.4.2.1", "v0.6.5.0.3", "v0.7.0.0.1"];

/// The records of one fixture file.
fn fixture(version: &str, segment: &str) -> Vec<Value> {
    let path = tapster_test_support::fixtures().join(version).join(format!("{segment}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The keys of a fixture file in the list's documented default order.
fn expected_order(version: &str, segment: &str) -> Vec<String> {
    let mut records = fixture(version, segment);
    let key = |r: &Value| r["key"].as_str().unwrap().to_owned();
    match segment {
        "reputation" => records.sort_by_key(|r| (r["level"].as_u64().unwrap(), key(r))),
        "perks" => records.sort_by_key(|r| (r["tier"].as_u64().unwrap(), key(r))),
        _ => records.sort_by_key(key),
    }
    records.iter().map(key).collect()
}

fn singular(segment: &str) -> &str {
    match segment {
        "reputation" => "reputation",
        other => other.strip_suffix('s').unwrap(),
    }
}

/// The last path segment of a key, percent-encoded.
fn encode(key: &str) -> String {
    key.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn every_list_walks_to_the_end_in_its_default_order() {
    for segment in SEGMENTS {
        let records = walk(&format!("/v1/{segment}?limit=7"));
        let keys: Vec<String> = records.iter().map(|r| r["key"].as_str().unwrap().to_owned()).collect();
        assert_eq!(keys.iter().collect::<BTreeSet<_>>().len(), keys.len(), "{segment}: a record came twice");
        assert_eq!(keys, expected_order("v0.7.0.0.1", segment), "{segment}");
        for record in &records {
            assert_eq!(record["type"], singular(segment), "{segment}");
            assert!(!record["name"].as_str().unwrap().is_empty(), "{record}");
            assert!(!record["summary"].as_str().unwrap().is_empty(), "{record}");
            assert!(record["introduced_in"].as_str().unwrap().starts_with('v'), "{record}");
        }
    }
}

#[test]
fn placeholders_and_markup_are_served_as_the_game_ships_them_in_every_language() {
    let english = bundled_get("/v1/talents/T_Brewing_Cooper").json();
    let description = english["data"]["description"].as_str().unwrap();
    assert!(description.ends_with("Each rank adds <b>{0}%</b> to the effect."), "{description}");
    for (lang, bonus) in
        [("de", "<b>{0} %</b>"), ("tr", "<b>%{0}</b>"), ("hu", "<b>{0}%-kal</b>"), ("ja", "<b>{0}%</b>")]
    {
        let body = bundled_get(&format!("/v1/talents/T_Brewing_Cooper?lang={lang}")).json();
        let description = body["data"]["description"].as_str().unwrap();
        assert!(description.contains(bonus), "{lang}: {description}");
        let fallbacks = body["meta"]["lang_fallback"].as_array().unwrap();
        assert!(!fallbacks.contains(&json!("/data/description")), "{lang}");
    }
}

#[test]
fn a_summary_is_the_first_sentence_of_the_description() {
    for segment in SEGMENTS {
        let list = bundled_get(&format!("/v1/{segment}?limit=3&lang=fr")).json();
        for record in data(&list) {
            let key = record["key"].as_str().unwrap();
            let detail = bundled_get(&format!("/v1/{segment}/{}?lang=fr", encode(key))).json();
            let description = detail["data"]["description"].as_str().unwrap();
            let summary = record["summary"].as_str().unwrap();
            assert!(description.starts_with(summary), "{segment}/{key}: {summary:?} / {description:?}");
            assert!(summary.ends_with(['.', '!', '?']) || summary == description, "{summary:?}");
            assert_eq!(detail["data"]["name"], record["name"]);
            assert_eq!(detail["data"]["introduced_in"], record["introduced_in"]);
        }
    }
}

#[test]
fn each_detail_renders_its_attributes_for_people() {
    let cases: &[(&str, &[(&str, Value)])] = &[
        (
            // Daily Bread asks the baker's bread of the baker.
            "/v1/quests/Daily.Bread",
            &[
                ("/data/type", json!("quest")),
                ("/data/key", json!("Daily.Bread")),
                ("/data/attributes/giver/id", json!(57)),
                ("/data/attributes/giver/slug", json!("maud-penhallow")),
                ("/data/attributes/giver/title", json!("Baker")),
                ("/data/attributes/requires/0/key", json!("MainQuest.04.Guests")),
                ("/data/attributes/objectives/0/item/id", json!(4426)),
                ("/data/attributes/objectives/0/item/slug", json!("flatbread")),
                ("/data/attributes/objectives/1/amount", json!(1)),
                ("/data/attributes/rewards/copper", json!({"copper": 1410, "display": "14s 10c"})),
                ("/data/attributes/rewards/reputation", json!(75)),
                ("/data/attributes/rewards/items/0/item/slug", json!("beech-long-table")),
                ("/data/attributes/rewards/items/0/amount", json!(3)),
                ("/data/attributes/rewards/recipes", json!([])),
            ],
        ),
        (
            "/v1/quests/Maud's%20Bread%20Run",
            &[
                ("/data/attributes/giver/slug", json!("maud-penhallow")),
                ("/data/attributes/requires", json!([])),
                ("/data/attributes/rewards/copper/copper", json!(625)),
                ("/data/attributes/rewards/recipes/0/id", json!(9046)),
                ("/data/attributes/rewards/recipes/0/slug", json!("cucumber-salad")),
            ],
        ),
        (
            "/v1/perks/CRAFT_CAREFUL_HANDS_2",
            &[
                ("/data/type", json!("perk")),
                ("/data/attributes/tier", json!(3)),
                ("/data/attributes/cost", json!(4)),
                ("/data/attributes/requires/0/key", json!("CRAFT_CAREFUL_HANDS_1")),
            ],
        ),
        (
            "/v1/spells/Spell.Bloom",
            &[
                ("/data/type", json!("spell")),
                ("/data/attributes", json!({"school": "growth", "mana_cost": 10, "cooldown_seconds": 0})),
            ],
        ),
        (
            "/v1/talents/T_Brewing_Cooper",
            &[
                ("/data/type", json!("talent")),
                ("/data/attributes/tree", json!("brewing")),
                ("/data/attributes/max_rank", json!(3)),
                ("/data/attributes/requires/0/key", json!("T_Brewing_Yeast")),
            ],
        ),
        (
            "/v1/reputation/Rep_Level_06",
            &[
                ("/data/type", json!("reputation")),
                ("/data/attributes/level", json!(6)),
                ("/data/attributes/points", json!(1050)),
                ("/data/attributes/rewards/copper/display", json!("3s 0c")),
                ("/data/attributes/rewards/recipes/0/id", json!(16205)),
                ("/data/attributes/rewards/recipes/0/slug", json!("beech-crate")),
            ],
        ),
        (
            "/v1/missions/Mission%2001%20-%20Salt%20Road",
            &[
                ("/data/type", json!("mission")),
                ("/data/key", json!("Mission 01 - Salt Road")),
                ("/data/attributes/duration_days", json!(3)),
                ("/data/attributes/min_reputation/level", json!(5)),
                ("/data/attributes/min_reputation/key", json!("Rep_Level_05")),
                ("/data/attributes/rewards/items/0/item/id", json!(6020)),
                ("/data/attributes/rewards/items/1/amount", json!(2)),
            ],
        ),
        (
            "/v1/letters/Letter%20From%20Home",
            &[
                ("/data/type", json!("letter")),
                ("/data/key", json!("Letter From Home")),
                ("/data/attributes/sender", json!(null)),
                ("/data/attributes/trigger", json!({"kind": "day", "season": "winter", "day": 20})),
                ("/data/attributes/attachments", json!([])),
            ],
        ),
        (
            "/v1/letters/Letter%20From%20The%20Guild",
            &[
                ("/data/attributes/sender", json!(null)),
                ("/data/attributes/trigger/kind", json!("reputation")),
                ("/data/attributes/trigger/key", json!("Rep_Level_19")),
                ("/data/attributes/attachments/0/item/slug", json!("stone-block")),
            ],
        ),
    ];
    for (path, expected) in cases {
        let answer = bundled_get(path);
        assert_eq!(answer.status, 200, "{path}: {:?}", answer.body);
        let body = answer.json();
        for (at, value) in *expected {
            assert_eq!(pointer(&body, at), value, "{path} {at}");
        }
        assert_eq!(body["meta"]["game_version"], "v0.7.0.0.1");
        assert!(body["data"]["description"].as_str().is_some_and(|d| !d.is_empty()), "{path}");
    }
}

#[test]
fn references_carry_the_names_their_own_endpoints_give() {
    // (detail, pointer of the reference's object, the referenced record's own endpoint)
    let cases = [
        ("/v1/quests/Daily.Bread", "/data/attributes/requires/0", "/v1/quests/MainQuest.04.Guests"),
        ("/v1/quests/Daily.Bread", "/data/attributes/objectives/0/item", "/v1/items/4426"),
        ("/v1/quests/Maud's%20Bread%20Run", "/data/attributes/rewards/recipes/0", "/v1/recipes/9046"),
        ("/v1/perks/CRAFT_CAREFUL_HANDS_2", "/data/attributes/requires/0", "/v1/perks/CRAFT_CAREFUL_HANDS_1"),
        ("/v1/talents/T_Brewing_Cooper", "/data/attributes/requires/0", "/v1/talents/T_Brewing_Yeast"),
        (
            "/v1/missions/Mission%2001%20-%20Salt%20Road",
            "/data/attributes/min_reputation",
            "/v1/reputation/Rep_Level_05",
        ),
        (
            "/v1/letters/Letter%20From%20The%20Guild",
            "/data/attributes/trigger",
            "/v1/reputation/Rep_Level_19",
        ),
    ];
    for lang in ["en", "de", "ja"] {
        for (detail, at, own) in cases {
            let body = bundled_get(&format!("{detail}?lang={lang}")).json();
            let referenced = bundled_get(&format!("{own}?lang={lang}")).json();
            let name = pointer(&body, &format!("{at}/name"));
            assert!(name.as_str().is_some_and(|n| !n.is_empty()), "{detail} {at}");
            assert_eq!(name, &referenced["data"]["name"], "{detail} {at} lang={lang}");
        }
    }
}

#[test]
fn the_giver_and_sender_carry_name_and_title() {
    let quest = bundled_get("/v1/quests/Daily.Bread?lang=de").json();
    let letter = bundled_get("/v1/letters/Maud's%20Letter?lang=de").json();
    for (body, at) in [(&quest, "/data/attributes/giver"), (&letter, "/data/attributes/sender")] {
        let npc = pointer(body, at);
        for field in ["name", "title"] {
            assert!(npc[field].as_str().is_some_and(|t| !t.is_empty()), "{at}: {npc}");
        }
    }
}

#[test]
fn keys_are_percent_decoded() {
    let body = get("/v1/letters/Odile%27s%20Welcome").json();
    assert_eq!(body["data"]["key"], "Odile's Welcome");
    assert_eq!(body["data"]["attributes"]["trigger"], json!({"kind": "day", "season": "spring", "day": 2}));
    assert_eq!(body["data"]["attributes"]["attachments"][0]["amount"], 5);
    let quest = get("/v1/quests/quest.first-brew").json();
    assert_eq!(quest["data"]["attributes"]["objectives"][0]["item"]["id"], 20);
}

#[test]
fn malformed_keys_are_422_and_unknown_ones_404() {
    let longest = "a".repeat(120);
    let too_long = "a".repeat(121);
    for segment in SEGMENTS {
        for (key, status) in [
            ("-starts-with-a-dash", 422),
            ("%2Fslash", 422),
            ("semi%3Bcolon", 422),
            ("%20leading-space", 422),
            (too_long.as_str(), 422),
            (longest.as_str(), 404),
            ("No%20Such%20Record", 404),
        ] {
            let answer = bundled_get(&format!("/v1/{segment}/{key}"));
            assert_eq!(answer.status, status, "{segment}/{key}: {:?}", answer.body);
            assert_eq!(answer.content_type(), "application/problem+json");
            let problem = answer.json();
            if status == 422 {
                assert_eq!(problem["errors"][0]["parameter"], "key", "{problem}");
            } else {
                let detail = problem["detail"].as_str().unwrap();
                assert!(detail.contains("v0.7.0.0.1"), "{detail}");
                assert!(
                    detail.contains(if key.starts_with('a') { key } else { "No Such Record" }),
                    "{detail}"
                );
            }
        }
    }
}

#[test]
fn a_record_of_another_type_is_not_found() {
    for path in ["/v1/perks/Daily.Bread", "/v1/quests/Spell.Bloom", "/v1/letters/Rep_Level_02"] {
        assert_eq!(bundled_get(path).status, 404, "{path}");
    }
}

#[test]
fn parameters_are_checked_on_both_sides_of_their_bounds() {
    let cases = [
        ("/v1/quests?limit=0", "limit"),
        ("/v1/quests?limit=101", "limit"),
        ("/v1/perks?offset=-1", "offset"),
        ("/v1/perks?offset=10001", "offset"),
        ("/v1/spells?version=v1", "version"),
        ("/v1/talents?lang=xx", "lang"),
        ("/v1/reputation?sort=level", "sort"),
        ("/v1/missions?fields=key", "fields"),
        ("/v1/letters?ids=1", "ids"),
        ("/v1/letters?lang=de&lang=fr", "lang"),
        ("/v1/quests/Daily.Bread?limit=5", "limit"),
        ("/v1/quests/Daily.Bread?offset=0", "offset"),
        ("/v1/letters/Letter%20From%20Home?lang=zz", "lang"),
    ];
    for (path, parameter) in cases {
        let answer = bundled_get(path);
        assert_eq!(answer.status, 422, "{path}");
        assert_eq!(answer.json()["errors"][0]["parameter"], parameter, "{path}");
    }
    for path in
        ["/v1/quests?limit=1", "/v1/quests?limit=100", "/v1/quests?offset=10000", "/v1/quests?offset=0"]
    {
        assert_eq!(bundled_get(path).status, 200, "{path}");
    }
    assert!(data(&bundled_get("/v1/quests?offset=10000").json()).is_empty());
}

#[test]
fn an_unknown_version_is_404() {
    for path in ["/v1/quests?version=v9.9", "/v1/quests/Daily.Bread?version=v0.1.2.3.4"] {
        let answer = bundled_get(path);
        assert_eq!(answer.status, 404, "{path}");
        assert!(answer.json()["detail"].as_str().unwrap().contains("v0.7.0.0.1"));
    }
}

#[test]
fn fallbacks_point_at_the_english_texts() {
    let mut targets: Vec<String> = SEGMENTS.iter().map(|s| format!("/v1/{s}?limit=100")).collect();
    targets.extend([
        "/v1/quests/Daily.Bread".to_owned(),
        "/v1/missions/Mission%2001%20-%20Salt%20Road".to_owned(),
        "/v1/letters/Letter%20From%20The%20Guild".to_owned(),
        "/v1/reputation/Rep_Level_02".to_owned(),
        "/v1/talents/T_Brewing_Cooper".to_owned(),
    ]);
    assert_fallbacks_are_english(bundled_get, &targets, &["th", "de", "ja"], &["th"]);
}

#[test]
fn fallbacks_are_in_document_order() {
    let body = bundled_get("/v1/missions/Mission%2001%20-%20Salt%20Road?lang=th").json();
    assert_eq!(
        body["meta"]["lang_fallback"],
        json!([
            "/data/name",
            "/data/description",
            "/data/attributes/min_reputation/name",
            "/data/attributes/rewards/items/0/item/name",
            "/data/attributes/rewards/items/1/item/name"
        ])
    );
}

#[test]
fn each_version_lists_its_own_records() {
    for version in VERSIONS {
        for segment in SEGMENTS {
            let body = bundled_get(&format!("/v1/{segment}?version={version}&limit=100")).json();
            assert_eq!(body["meta"]["game_version"], *version);
            let expected = expected_order(version, segment);
            assert_eq!(body["pagination"]["total"], expected.len(), "{segment} in {version}");
            let keys: Vec<&str> = data(&body).iter().map(|r| r["key"].as_str().unwrap()).collect();
            assert_eq!(keys, expected[..expected.len().min(100)], "{segment} in {version}");
        }
    }
}

#[test]
fn a_record_exists_only_from_the_version_that_introduced_it() {
    let latest = bundled_get("/v1/reputation/Rep_Level_51").json();
    assert_eq!(latest["data"]["introduced_in"], "v0.6.5.0.3");
    assert_eq!(bundled_get("/v1/reputation/Rep_Level_51?version=v0.6.5.0.3").status, 200);
    let before = bundled_get("/v1/reputation/Rep_Level_51?version=v0.6.4.2.1");
    assert_eq!(before.status, 404);
    assert!(before.json()["detail"].as_str().unwrap().contains("v0.6.4.2.1"));
}

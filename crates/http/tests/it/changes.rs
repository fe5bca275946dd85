//! Version changes: the default comparison with the version before, `from`, each filter narrowing,
//! names from the right version, pages walked to the end, 422 and 404 bounds, and fallbacks.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::{bundled_get, get, pointer, walk};

const V1: &str = "v0.6.4.2.1";
const V2: &str = "v0.6.5.0.3";
const V3: &str = "v0.7.0.0.1";

/// What names a change's record: its type and its id or key.
fn identity(change: &Value) -> (String, String) {
    let id = match (&change["id"], &change["key"]) {
        (Value::Number(id), Value::Null) => id.to_string(),
        (Value::Null, Value::String(key)) => key.clone(),
        _ => panic!("a change has exactly one of id and key: {change}"),
    };
    (change["type"].as_str().unwrap().to_owned(), id)
}

fn count(changes: &[Value], kind: &str) -> usize {
    changes.iter().filter(|c| c["change"] == kind).count()
}

#[test]
fn a_version_lists_its_changes_since_the_one_before() {
    let changes = walk(&format!("/v1/versions/{V2}/changes?limit=37"));
    let first = bundled_get(&format!("/v1/versions/{V2}/changes")).json();
    assert_eq!(first["meta"]["game_version"], V2);
    let identities: BTreeSet<_> = changes.iter().map(identity).collect();
    assert_eq!(identities.len(), changes.len(), "a change came twice");
    for kind in ["added", "removed", "modified"] {
        assert!(count(&changes, kind) > 0, "no {kind} record");
    }
    for change in &changes {
        let kind = change["type"].as_str().unwrap();
        assert!(change["name"].as_str().is_some_and(|n| !n.is_empty()), "{change}");
        let fields = change["fields"].as_array().unwrap();
        assert_eq!(fields.is_empty(), change["change"] != "modified", "{change}");
        let progression =
            ["quests", "perks", "spells", "talents", "reputation", "missions", "letters"].contains(&kind);
        assert_eq!(change["key"].is_string(), progression, "{change}");
        assert_eq!(change["slug"].is_string(), !progression && kind != "fish", "{change}");
    }
    // The same counts as the version's own summary.
    let version = bundled_get(&format!("/v1/versions/{V2}")).json();
    let summary = &version["data"]["changes_since_previous"];
    for kind in ["added", "removed", "modified"] {
        assert_eq!(summary[kind], count(&changes, kind), "{kind}");
    }
}

/// Whether a change passes a filter.
type Holds = fn(&Value) -> bool;

#[test]
fn each_filter_narrows_to_what_it_names() {
    let all = walk(&format!("/v1/versions/{V3}/changes?from={V1}&limit=100"));
    let cases: &[(&str, Holds)] = &[
        ("type=items", |c| c["type"] == "items"),
        ("type=recipes", |c| c["type"] == "recipes"),
        ("type=letters", |c| c["type"] == "letters"),
        ("type=reputation", |c| c["type"] == "reputation"),
        ("change=added", |c| c["change"] == "added"),
        ("change=removed", |c| c["change"] == "removed"),
        ("change=modified", |c| c["change"] == "modified"),
        ("type=items&change=modified", |c| c["type"] == "items" && c["change"] == "modified"),
    ];
    for (filter, holds) in cases {
        let some = walk(&format!("/v1/versions/{V3}/changes?from={V1}&limit=100&{filter}"));
        assert!(!some.is_empty(), "{filter} matched nothing");
        assert!(some.len() < all.len(), "{filter} narrowed nothing");
        assert!(some.iter().all(holds), "{filter}");
        let expected: Vec<&Value> = all.iter().filter(|c| holds(c)).collect();
        assert_eq!(some.iter().collect::<Vec<_>>(), expected, "{filter}");
    }
    let none = bundled_get(&format!("/v1/versions/{V2}/changes?type=shopkeepers")).json();
    assert_eq!(none["data"], json!([]));
    assert_eq!(none["pagination"]["total"], 0);
}

#[test]
fn from_compares_with_an_earlier_version() {
    let default = walk(&format!("/v1/versions/{V3}/changes?limit=100"));
    let explicit = walk(&format!("/v1/versions/{V3}/changes?limit=100&from={V2}"));
    let from_first = walk(&format!("/v1/versions/{V3}/changes?limit=100&from={V1}"));
    assert_eq!(default, explicit, "the default is the version right before");
    assert_ne!(default, from_first);
    assert!(!from_first.is_empty());
    let latest = walk(&format!("/v1/versions/latest/changes?limit=100&from={V1}"));
    assert_eq!(latest, from_first);
    let body = bundled_get(&format!("/v1/versions/latest/changes?from={V1}")).json();
    assert_eq!(body["meta"]["game_version"], V3);
    // A record added in V2 is a change from V1 but not from V2.
    let added_in_v2 = |c: &Value| c["type"] == "reputation" && c["key"] == "Rep_Level_51";
    assert!(from_first.iter().any(|c| added_in_v2(c) && c["change"] == "added"));
    assert!(!default.iter().any(added_in_v2));
}

#[test]
fn the_first_version_has_no_changes() {
    for path in
        [format!("/v1/versions/{V1}/changes"), format!("/v1/versions/{V1}/changes?type=items&lang=de")]
    {
        let answer = bundled_get(&path);
        assert_eq!(answer.status, 200, "{path}");
        let body = answer.json();
        assert_eq!(body["data"], json!([]));
        assert_eq!(body["pagination"]["total"], 0);
        assert_eq!(body["meta"]["game_version"], V1);
    }
}

#[test]
fn names_come_from_the_version_that_has_the_record() {
    let changes = walk(&format!("/v1/versions/{V2}/changes?limit=100&type=items"));
    let named = bundled_get(&format!("/v1/versions/{V2}/changes?type=items&limit=100&lang=fr")).json();
    let mut checked = BTreeMap::new();
    for change in changes.iter().filter(|c| c["change"] != "modified").take(12) {
        let id = change["id"].as_i64().unwrap();
        let version = if change["change"] == "removed" { V1 } else { V2 };
        let item = bundled_get(&format!("/v1/items/{id}?version={version}&lang=fr")).json();
        let row = named["data"].as_array().unwrap().iter().find(|c| c["id"] == id).unwrap();
        assert_eq!(row["name"], item["data"]["name"], "{change}");
        assert_eq!(row["slug"], item["data"]["slug"], "{change}");
        *checked.entry(change["change"].as_str().unwrap().to_owned()).or_insert(0) += 1;
    }
    assert!(checked.contains_key("added") && checked.contains_key("removed"), "{checked:?}");
    // A removed record is gone from the later version.
    let removed = changes.iter().find(|c| c["change"] == "removed").unwrap();
    assert_eq!(bundled_get(&format!("/v1/items/{}?version={V2}", removed["id"])).status, 404);
}

#[test]
fn modified_records_name_their_fields() {
    let modified = walk(&format!("/v1/versions/{V2}/changes?limit=100&change=modified"));
    assert!(!modified.is_empty());
    for change in &modified {
        let fields = change["fields"].as_array().unwrap();
        assert!(!fields.is_empty(), "{change}");
        assert!(fields.iter().all(|f| f.as_str().is_some_and(|f| !f.is_empty())), "{change}");
    }
}

#[test]
fn from_a_later_version_the_changes_run_in_reverse_and_from_the_same_none() {
    let forward = walk(&format!("/v1/versions/{V3}/changes?from={V1}&limit=100"));
    let backward = walk(&format!("/v1/versions/{V1}/changes?from={V3}&limit=100"));
    assert_eq!(forward.len(), backward.len());
    fn undone(change: &str) -> &str {
        match change {
            "added" => "removed",
            "removed" => "added",
            other => other,
        }
    }
    for (ahead, back) in forward.iter().zip(&backward) {
        assert_eq!(identity(ahead), identity(back));
        assert_eq!(back["change"], undone(ahead["change"].as_str().unwrap()), "{back}");
        assert_eq!(back["fields"], ahead["fields"]);
        // A record only one version has is named from it both ways; a modified one from the
        // version in the path (Paddy Rice forward, Marsh Rice back).
        if ahead["change"] != "modified" {
            assert_eq!(back["name"], ahead["name"], "{back}");
        }
    }
    assert!(count(&backward, "added") > 0 && count(&backward, "removed") > 0);
    let rice =
        |changes: &[Value]| changes.iter().find(|c| c["slug"] == "marsh-rice").unwrap()["name"].clone();
    assert_eq!((rice(&forward), rice(&backward)), (json!("Paddy Rice"), json!("Marsh Rice")));
    for path in
        [format!("/v1/versions/{V2}/changes?from={V2}"), "/v1/versions/latest/changes?from=latest".into()]
    {
        let body = bundled_get(&path).json();
        assert_eq!(
            (body["data"].clone(), body["pagination"]["total"].clone()),
            (json!([]), json!(0)),
            "{path}"
        );
    }
}

#[test]
fn parameters_are_checked() {
    let cases = [
        (format!("/v1/versions/{V2}/changes?from=0.6.4"), "from"),
        (format!("/v1/versions/{V2}/changes?from=v1"), "from"),
        (format!("/v1/versions/{V2}/changes?type=item"), "type"),
        (format!("/v1/versions/{V2}/changes?type=Items"), "type"),
        (format!("/v1/versions/{V2}/changes?change=changed"), "change"),
        (format!("/v1/versions/{V2}/changes?change=Added"), "change"),
        (format!("/v1/versions/{V2}/changes?version=latest"), "version"),
        (format!("/v1/versions/{V2}/changes?sort=name"), "sort"),
        (format!("/v1/versions/{V2}/changes?limit=0"), "limit"),
        (format!("/v1/versions/{V2}/changes?limit=101"), "limit"),
        (format!("/v1/versions/{V2}/changes?offset=-1"), "offset"),
        (format!("/v1/versions/{V2}/changes?offset=10001"), "offset"),
        (format!("/v1/versions/{V2}/changes?lang=xx"), "lang"),
        (format!("/v1/versions/{V2}/changes?from={V1}&from={V1}"), "from"),
        ("/v1/versions/0.6/changes".to_owned(), "version"),
    ];
    for (path, parameter) in cases {
        let answer = bundled_get(&path);
        assert_eq!(answer.status, 422, "{path}: {:?}", answer.body);
        assert_eq!(answer.json()["errors"][0]["parameter"], parameter, "{path}");
    }
    for path in [
        format!("/v1/versions/{V2}/changes?limit=1"),
        format!("/v1/versions/{V2}/changes?limit=100"),
        format!("/v1/versions/{V2}/changes?offset=10000"),
        format!("/v1/versions/{V2}/changes?lang=ja&type=fish&change=removed"),
    ] {
        assert_eq!(bundled_get(&path).status, 200, "{path}");
    }
}

#[test]
fn unknown_versions_are_404() {
    for (path, unknown) in [
        ("/v1/versions/v9.9/changes".to_owned(), "v9.9"),
        (format!("/v1/versions/{V2}/changes?from=v0.1.0"), "v0.1.0"),
        ("/v1/versions/v9.9/changes?from=v0.1.0".to_owned(), "v9.9"),
    ] {
        let answer = bundled_get(&path);
        assert_eq!(answer.status, 404, "{path}");
        let problem = answer.json();
        assert!(problem["detail"].as_str().unwrap().contains(unknown), "{path}: {problem}");
    }
}

#[test]
fn fallbacks_point_at_the_english_names() {
    // The lists differ by language (texts are compared in it), so names are matched by record.
    let path = format!("/v1/versions/{V3}/changes?from={V1}&limit=100");
    let english: BTreeMap<_, _> = walk(&path).iter().map(|c| (identity(c), c["name"].clone())).collect();
    let mut seen = 0;
    for lang in ["ja", "th", "de"] {
        for offset in [0, 100, 200] {
            let body = bundled_get(&format!("{path}&offset={offset}&lang={lang}")).json();
            assert_eq!(body["meta"]["lang"], lang);
            for p in body["meta"]["lang_fallback"].as_array().unwrap() {
                let p = p.as_str().unwrap();
                let row = pointer(&body, p.strip_suffix("/name").unwrap());
                if let Some(name) = english.get(&identity(row)) {
                    assert_eq!(pointer(&body, p), name, "{lang} {p}");
                    seen += 1;
                }
            }
        }
    }
    assert!(seen > 0);
}

#[test]
fn texts_are_compared_in_the_language_asked_for() {
    let fields = |lang: &str| -> BTreeMap<(String, String), BTreeSet<String>> {
        let path = format!("/v1/versions/{V2}/changes?type=items&change=modified&limit=100&lang={lang}");
        walk(&path)
            .iter()
            .map(|c| {
                let fields = c["fields"].as_array().unwrap().iter().map(|f| f.as_str().unwrap().to_owned());
                (identity(c), fields.collect())
            })
            .collect()
    };
    let texts: BTreeSet<String> = ["name".into(), "description".into()].into();
    let english = fields("en");
    for lang in ["ca", "de"] {
        let translated = fields(lang);
        // What is not a text changed for every reader alike.
        for (record, changed) in &english {
            let others: BTreeSet<_> = changed.difference(&texts).collect();
            let seen = translated.get(record).map(|f| f.iter().collect()).unwrap_or_default();
            assert!(others.is_subset(&seen), "{lang} {record:?}: {changed:?} against {seen:?}");
        }
        // The patch translated texts that V1 left in English: their items changed for this
        // language's readers alone, each now served in the language instead of in English.
        let gained: Vec<_> = translated.iter().filter(|(record, _)| !english.contains_key(*record)).collect();
        assert!(!gained.is_empty(), "{lang}");
        for ((_, id), changed) in gained {
            assert!(changed.is_subset(&texts), "{lang} {id}: {changed:?}");
            let fell_back = |version: &str| {
                let item = bundled_get(&format!("/v1/items/{id}?version={version}&lang={lang}")).json();
                let pointers = item["meta"]["lang_fallback"].as_array().unwrap().clone();
                changed.iter().filter(|f| pointers.contains(&json!(format!("/data/{f}")))).count()
            };
            assert!(fell_back(V1) > fell_back(V2), "{lang} {id}: {changed:?}");
        }
    }
}

#[test]
fn the_small_dataset_names_its_changes() {
    let body = get("/v1/versions/latest/changes?limit=100").json();
    assert_eq!(body["meta"]["game_version"], "v1.0.1.0.0");
    let changes = body["data"].as_array().unwrap();
    assert!(!changes.is_empty());
    assert!(changes.iter().all(|c| c["name"].is_string()), "{body}");
}

//! Search: every parameter bound, ranking, typos, the type filter, what is never found, and names in
//! several languages (kana, accents, scripts without spaces, English names found from another language).

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

use crate::{bundled_get, data, get, pointer};

/// `(type, id)` of each hit.
fn hits(body: &Value) -> Vec<(String, i64)> {
    data(body).iter().map(|h| (h["type"].as_str().unwrap().to_owned(), h["id"].as_i64().unwrap())).collect()
}

fn hit(kind: &str, id: i64) -> (String, i64) {
    (kind.to_owned(), id)
}

#[test]
fn every_parameter_bound_is_enforced() {
    let q64 = "é".repeat(64);
    let q65 = "é".repeat(65);
    let cases: &[(String, u16, Option<&str>)] = &[
        ("q=pa".into(), 200, None),
        (format!("q={q64}"), 200, None),
        ("q=p".into(), 422, Some("q")),
        (format!("q={q65}"), 422, Some("q")),
        ("".into(), 422, Some("q")),
        ("lang=de".into(), 422, Some("q")),
        ("q=pale&limit=1".into(), 200, None),
        ("q=pale&limit=50".into(), 200, None),
        ("q=pale&limit=0".into(), 422, Some("limit")),
        ("q=pale&limit=51".into(), 422, Some("limit")),
        ("q=pale&offset=0".into(), 422, Some("offset")),
        ("q=pale&type=item".into(), 200, None),
        ("q=pale&type=recipe".into(), 200, None),
        ("q=pale&type=shop".into(), 422, Some("type")),
        ("q=pale&type=Item".into(), 422, Some("type")),
        ("q=pale&q=ale".into(), 422, Some("q")),
        ("q=pale&lang=xx".into(), 422, Some("lang")),
        ("q=pale&version=v9.9.9.9.9".into(), 404, None),
    ];
    for (query, status, parameter) in cases {
        let answer = get(&format!("/v1/search?{query}"));
        assert_eq!(answer.status.as_u16(), *status, "{query}: {:?}", answer.body);
        if let Some(parameter) = parameter {
            assert_eq!(answer.json()["errors"][0]["parameter"], *parameter, "{query}");
        }
    }
}

#[test]
fn hits_rank_by_how_they_match_then_length_then_id() {
    // Prefix matches (`Pale Malt`, `Pale Wort`: 9 characters, items before recipes of the same name by
    // id), then word prefixes (`Golden Pale Ale`), and last `Ale Yeast`, one typo away (`pale` has four
    // letters); recipe 102 is replaced by 103 and left out.
    let body = get("/v1/search?q=PÂLE").json();
    assert_eq!(
        hits(&body),
        [
            hit("item", 11),
            hit("item", 16),
            hit("recipe", 100),
            hit("recipe", 101),
            hit("item", 20),
            hit("recipe", 103),
            hit("item", 15)
        ]
    );
    let first = &data(&body)[0];
    assert_eq!(first["slug"], "pale-malt");
    assert_eq!(first["name"], "Pale Malt");
    assert_eq!(first["matched"], serde_json::json!({"lang": "en", "text": "Pale Malt", "how": "prefix"}));
    assert_eq!(pointer(&body, "/data/4/matched/how"), "word_prefix");
    assert!(body.get("pagination").is_none(), "search answers one ranked list, not pages");

    /// A query, the hits it must give in order (type and id), and how the first one matched.
    type Case = (&'static str, &'static [(&'static str, i64)], &'static str);
    let cases: &[Case] = &[
        ("q=barley", &[("item", 10), ("item", 30)], "whole"),
        ("q=wort", &[("item", 16), ("recipe", 101)], "word_prefix"),
        // Inside `Barley`, then one typo from `ale`.
        ("q=arle", &[("item", 10), ("item", 30), ("item", 15), ("item", 20), ("recipe", 103)], "substring"),
        ("q=pale&type=item", &[("item", 11), ("item", 16), ("item", 20), ("item", 15)], "prefix"),
        ("q=pale&type=recipe", &[("recipe", 100), ("recipe", 101), ("recipe", 103)], "prefix"),
        ("q=pale&limit=2", &[("item", 11), ("item", 16)], "prefix"),
    ];
    for (query, expected, how) in cases {
        let body = get(&format!("/v1/search?{query}")).json();
        let expected: Vec<_> = expected.iter().map(|(k, id)| hit(k, *id)).collect();
        assert_eq!(hits(&body), expected, "{query}");
        assert_eq!(pointer(&body, "/data/0/matched/how"), how, "{query}");
    }
}

#[test]
fn words_forgive_typos_by_their_length_below_every_exact_match() {
    let cases: &[(&str, &[(&str, i64)])] = &[
        ("barly", &[("item", 10), ("item", 30)]),   // a letter left out
        ("barlley", &[("item", 10), ("item", 30)]), // a letter doubled
        ("bsrley", &[("item", 10), ("item", 30)]),  // a letter replaced
        ("balrey", &[("item", 10), ("item", 30)]),  // two neighbours swapped
        ("wrot", &[("item", 16), ("recipe", 101)]), // four letters: one typo
        ("bsr", &[]),                               // three: none
        ("golden pael ale", &[("item", 20), ("recipe", 103)]),
        ("goldn pael ale", &[("item", 20), ("recipe", 103)]), // one typo in each of two words
        ("goldn pale ael", &[]),                              // `ael` has three letters
    ];
    for (q, expected) in cases {
        let body = get(&format!("/v1/search?q={}", q.replace(' ', "+"))).json();
        let expected: Vec<_> = expected.iter().map(|(k, id)| hit(k, *id)).collect();
        assert_eq!(hits(&body), expected, "{q}");
        assert!(data(&body).iter().all(|h| h["matched"]["how"] == "typo"), "{q}");
    }
    // `bright` is exact for `Bright Hops`, `brighd` one typo away from it.
    let exact = get("/v1/search?q=bright").json();
    assert_eq!(pointer(&exact, "/data/0/matched/how"), "prefix");
    let typo = get("/v1/search?q=brighd").json();
    assert_eq!(hits(&typo), [hit("item", 12)]);
    assert_eq!(pointer(&typo, "/data/0/matched/how"), "typo");
}

#[test]
fn words_typed_joined_or_apart_are_found_and_said_to_be_found_in_words() {
    for (query, name) in [("paleale", "Pale Ale"), ("erbsen+suppe&lang=de", "Erbsensuppe")] {
        let body = bundled_get(&format!("/v1/search?q={query}")).json();
        assert_eq!(pointer(&body, "/data/0/matched/text"), name, "{query}");
        assert_eq!(pointer(&body, "/data/0/matched/how"), "words", "{query}");
    }
    // Typed with its space, the same name is matched whole.
    let body = bundled_get("/v1/search?q=pale+ale").json();
    assert_eq!(pointer(&body, "/data/0/matched/how"), "whole");
}

#[test]
fn unlisted_items_and_replaced_recipes_are_never_found() {
    assert!(data(&get("/v1/search?q=debug+coin").json()).is_empty());
    let golden = hits(&get("/v1/search?q=golden&type=recipe").json());
    assert_eq!(golden, [hit("recipe", 103)]);
    let rye = hits(&bundled_get("/v1/search?q=rye+malt&type=recipe&limit=50").json());
    assert!(rye.contains(&hit("recipe", 2019)) && !rye.contains(&hit("recipe", 2004)), "{rye:?}");
    assert!(data(&bundled_get("/v1/search?q=unused+lantern").json()).is_empty());
}

#[test]
fn names_are_found_in_each_language_and_in_english() {
    // (query, lang, slug expected among the hits, matched lang, matched text, name served)
    let cases = [
        ("ぶらいとりーふ", "ja", "brightleaf-hops", "ja", "ブライトリーフ・ホップ", "ブライトリーフ・ホップ"),
        ("ﾌﾞﾗｲﾄﾘｰﾌ", "ja", "brightleaf-hops", "ja", "ブライトリーフ・ホップ", "ブライトリーフ・ホップ"),
        ("とうもろこし", "ja", "corn", "ja", "トウモロコシ", "トウモロコシ"),
        ("farberwaid", "de", "woad", "de", "Färberwaid", "Färberwaid"),
        ("HAHNCHEN", "de", "chicken", "de", "Hähnchen", "Hähnchen"),
        ("ไบรต์", "th", "brightleaf-hops", "th", "ฮอปส์ไบรต์ลีฟ", "ฮอปส์ไบรต์ลีฟ"),
        ("โพด", "th", "corn", "th", "ข้าวโพด", "ข้าวโพด"),
        ("啤酒花", "zh-CN", "brightleaf-hops", "zh-CN", "亮叶啤酒花", "亮叶啤酒花"),
        ("叶啤", "zh-CN", "brightleaf-hops", "zh-CN", "亮叶啤酒花", "亮叶啤酒花"),
        ("mais", "fr", "corn", "fr", "Maïs", "Maïs"),
        ("corn", "fr", "corn", "en", "Corn", "Maïs"),
        ("lettuce", "fr", "lettuce", "en", "Lettuce", "Lettuce"),
        ("brightleaf", "ja", "brightleaf-hops", "en", "Brightleaf Hops", "ブライトリーフ・ホップ"),
        ("brightlef", "en", "brightleaf-hops", "en", "Brightleaf Hops", "Brightleaf Hops"),
    ];
    for (q, lang, slug, matched_lang, matched_text, name) in cases {
        let path = format!("/v1/search?q={q}&lang={lang}&type=item&limit=50");
        let answer = bundled_get(&path);
        assert_eq!(answer.status.as_u16(), 200, "{path}: {:?}", answer.body);
        let body = answer.json();
        let found = data(&body).iter().find(|h| h["slug"] == slug);
        let found = found.unwrap_or_else(|| panic!("{path}: no {slug} in {body}"));
        assert_eq!(found["matched"]["lang"], matched_lang, "{path}");
        assert_eq!(found["matched"]["text"], matched_text, "{path}");
        assert_eq!(found["name"], name, "{path}");
        assert_eq!(body["meta"]["lang"], lang, "{path}");
    }
}

#[test]
fn english_stand_ins_are_noted_and_point_at_english_names() {
    for (q, lang) in [("lettuce", "fr"), ("cherry", "fr"), ("chicken", "ja"), ("hops", "th")] {
        let body = bundled_get(&format!("/v1/search?q={q}&lang={lang}&limit=50")).json();
        let english = bundled_get(&format!("/v1/search?q={q}&lang=en&limit=50")).json();
        let english: HashMap<(String, i64), &Value> =
            hits(&english).into_iter().zip(data(&english).iter().map(|h| &h["name"])).collect();
        let fallbacks: Vec<&str> =
            body["meta"]["lang_fallback"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
        assert!(!fallbacks.is_empty(), "{q} {lang}: {body}");
        for p in &fallbacks {
            let i: usize = p.trim_start_matches("/data/").trim_end_matches("/name").parse().unwrap();
            let key = hits(&body)[i].clone();
            assert_eq!(Some(&pointer(&body, p)), english.get(&key), "{q} {lang} {p}");
        }
    }
}

#[test]
fn each_record_comes_once_and_the_default_limit_is_twenty() {
    for lang in ["en", "de", "ja", "fr"] {
        let body = bundled_get(&format!("/v1/search?q=al&lang={lang}&limit=50")).json();
        let all = hits(&body);
        let distinct: BTreeSet<_> = all.iter().cloned().collect();
        assert_eq!(distinct.len(), all.len(), "{lang}: a record came twice");
    }
    let body = bundled_get("/v1/search?q=al").json();
    assert_eq!(data(&body).len(), 20);
    let both: BTreeSet<String> =
        hits(&bundled_get("/v1/search?q=malt&limit=50").json()).into_iter().map(|h| h.0).collect();
    assert_eq!(both, BTreeSet::from(["item".to_owned(), "recipe".to_owned()]));
}

#[test]
fn a_version_can_be_chosen() {
    let body = bundled_get("/v1/search?q=barley&version=v0.6.4.2.1").json();
    assert_eq!(body["meta"]["game_version"], "v0.6.4.2.1");
    assert!(!data(&body).is_empty());
    let latest = bundled_get("/v1/search?q=barley").json();
    assert_eq!(latest["meta"]["game_version"], "v0.7.0.0.1");
}

#[test]
fn every_language_finds_its_own_names_whole_and_in_part() {
    let languages = bundled_get("/v1/languages").json();
    let codes: Vec<&str> =
        languages["data"].as_array().unwrap().iter().map(|l| l["code"].as_str().unwrap()).collect();
    assert_eq!(codes.len(), 27);
    for code in codes {
        // A drink whose name this language translates (not an English stand-in).
        let page = bundled_get(&format!("/v1/items?kind=drink&limit=100&lang={code}")).json();
        let fallbacks: Vec<&str> =
            page["meta"]["lang_fallback"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
        let (index, item) = page["data"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .find(|(i, _)| !fallbacks.contains(&format!("/data/{i}/name").as_str()))
            .unwrap_or_else(|| panic!("{code} translates no drink"));
        let name = item["name"].as_str().unwrap();
        let id = item["id"].as_i64().unwrap();
        let found = |q: &str| {
            let query: String = form_urlencoded::byte_serialize(q.as_bytes()).collect();
            let body = bundled_get(&format!("/v1/search?q={query}&lang={code}&type=item&limit=50")).json();
            body["data"].as_array().unwrap().iter().any(|h| h["id"] == id)
        };
        assert!(found(name), "{code}: {name:?} (#{index}) does not find itself");
        // The middle of the name, as a person half-remembering it would type it.
        let chars: Vec<char> = name.chars().collect();
        if chars.len() >= 6 {
            let part: String = chars[chars.len() / 3..chars.len() / 3 + 3].iter().collect();
            if part.trim().chars().count() >= 2 {
                assert!(found(part.trim()), "{code}: {:?} does not find {name:?}", part.trim());
            }
        }
    }
}

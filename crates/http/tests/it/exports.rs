//! Bulk exports on the bundled data: listed with their checksums, served whole or by byte range, and
//! holding exactly what the API answers, record by record, for the same version and language.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;

use hyper::{Method, StatusCode};
use serde_json::Value;
use sha2::{Digest, Sha256};
use tapster_domain::hex;

use crate::{bundled, bundled_get, bundled_request, data, get, key, send, walk};

/// The oldest bundled version (the smallest), in a language with gaps, so that fallbacks show.
const VERSION: &str = "v0.6.4.2.1";
const LANG: &str = "de";

/// The listing's entry of `version` in `lang`.
fn listed(version: &str, lang: &str) -> Value {
    let body = bundled_get("/v1/exports").json();
    data(&body).iter().find(|e| e["version"] == version && e["lang"] == lang).cloned().unwrap()
}

#[test]
fn every_version_is_listed_in_each_of_its_languages_newest_first() {
    let listing = bundled_get("/v1/exports").json();
    let exports = data(&listing);
    let versions = bundled_get("/v1/versions").json();
    let expected: Vec<(String, String)> = data(&versions)
        .iter()
        .flat_map(|v| {
            let name = v["version"].as_str().unwrap().to_owned();
            v["languages"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |l| (name.clone(), l.as_str().unwrap().to_owned()))
        })
        .collect();
    let got: Vec<(String, String)> = exports
        .iter()
        .map(|e| (e["version"].as_str().unwrap().to_owned(), e["lang"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(got, expected);
    for export in exports {
        let (version, lang) = (export["version"].as_str().unwrap(), export["lang"].as_str().unwrap());
        assert_eq!(export["url"], format!("/v1/exports/{version}/{lang}"));
        assert_eq!(export["file_name"], format!("tapster-{version}-{lang}.ndjson.gz"));
        assert!(export["size"].as_u64().unwrap() > 10_000, "{export}");
        assert!(export["records"].as_u64().unwrap() > 1_000, "{export}");
    }
}

#[test]
fn a_download_is_the_listed_file_with_its_checksum_as_tag() {
    let entry = listed(VERSION, LANG);
    let answer = bundled_get(entry["url"].as_str().unwrap());
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.content_type(), "application/gzip");
    assert_eq!(answer.headers["accept-ranges"], "bytes");
    assert_eq!(answer.headers["cache-control"], "private, max-age=86400");
    assert_eq!(
        answer.headers["content-disposition"],
        format!("attachment; filename=\"tapster-{VERSION}-{LANG}.ndjson.gz\"")
    );
    assert!(answer.headers.contains_key("ratelimit"), "a download is a request like any other");
    assert_eq!(answer.body.len() as u64, entry["size"].as_u64().unwrap());
    let sha256 = hex(&Sha256::digest(&answer.body));
    assert_eq!(sha256, entry["sha256"]);
    assert_eq!(answer.headers["etag"], format!("\"{sha256}\""));
    // Not compressed again for a client that takes gzip: the file is what the checksum is of.
    let zipped = bundled_request(true, entry["url"].as_str().unwrap(), &[("accept-encoding", "gzip")]);
    assert_eq!(zipped.headers.get("content-encoding"), None);
    assert_eq!(zipped.body, answer.body);
    // `latest` names the newest version's file, kept for as long as `latest` answers are.
    let latest = bundled_get(&format!("/v1/exports/latest/{LANG}"));
    let newest = listed(data(&bundled_get("/v1/versions").json())[0]["version"].as_str().unwrap(), LANG);
    assert_eq!(hex(&Sha256::digest(&latest.body)), newest["sha256"]);
    assert_eq!(latest.headers["cache-control"], "private, max-age=300");
}

#[test]
fn a_download_resumes_by_range_and_revalidates_by_tag() {
    let url = format!("/v1/exports/{VERSION}/{LANG}");
    let whole = bundled_get(&url);
    let (size, tag) = (whole.body.len(), whole.headers["etag"].to_str().unwrap().to_owned());
    let part = |headers: &[(&str, &str)]| bundled_request(true, &url, headers);

    let middle = part(&[("range", "bytes=100-199")]);
    assert_eq!(middle.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(middle.headers["content-range"], format!("bytes 100-199/{size}"));
    assert_eq!(middle.body, whole.body.slice(100..200));
    let rest = part(&[("range", &format!("bytes={}-", size - 1000)), ("if-range", &tag)]);
    assert_eq!(rest.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(rest.body, whole.body.slice(size - 1000..));
    let tail = part(&[("range", "bytes=-10")]);
    assert_eq!(tail.body, whole.body.slice(size - 10..));

    // A file changed since the part was fetched: all of it, not a part of the new one.
    let changed = part(&[("range", "bytes=0-9"), ("if-range", "\"0123\"")]);
    assert_eq!((changed.status, changed.body.len()), (StatusCode::OK, size));
    let past = part(&[("range", &format!("bytes={size}-"))]);
    assert_eq!(past.status, StatusCode::RANGE_NOT_SATISFIABLE);
    assert_eq!(past.headers["content-range"], format!("bytes */{size}"));
    assert_eq!(past.json()["type"], "/errors/range-not-satisfiable");
    let held = part(&[("if-none-match", &tag)]);
    assert_eq!(held.status, StatusCode::NOT_MODIFIED);
    assert!(held.body.is_empty());

    // `HEAD` tells the whole file's length and tag, whatever range it names (ranges are for `GET`).
    let authorization = format!("Bearer {}", key().expose());
    let head =
        send(bundled(), Method::HEAD, &url, &[("authorization", &authorization), ("range", "bytes=0-9")]);
    assert_eq!(head.status, StatusCode::OK);
    assert_eq!(head.headers["content-length"], size.to_string().as_str());
    assert_eq!(head.headers["etag"], tag.as_str());
    assert!(head.body.is_empty());
}

#[test]
fn what_is_not_exported_is_told_apart() {
    let unknown_version = bundled_get("/v1/exports/v9.9.9.9.9/de");
    assert_eq!(unknown_version.status, StatusCode::NOT_FOUND);
    let bad_lang = bundled_get("/v1/exports/latest/xx");
    assert_eq!(bad_lang.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(bad_lang.json()["errors"][0]["parameter"], "lang");
    // The small dataset has three languages: another is named with the ones it has.
    let missing = get("/v1/exports/latest/fr");
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert!(
        missing.json()["detail"].as_str().unwrap().contains("its languages are en, de, ja"),
        "{}",
        missing.json()
    );
}

/// The records of an export, by resource, in file order.
fn records(version: &str, lang: &str) -> BTreeMap<String, Vec<Value>> {
    let answer = bundled_get(&format!("/v1/exports/{version}/{lang}"));
    let mut text = String::new();
    flate2::read::GzDecoder::new(&answer.body[..]).read_to_string(&mut text).unwrap();
    let mut by_resource: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for line in text.lines() {
        let line: Value = serde_json::from_str(line).unwrap();
        by_resource.entry(line["resource"].as_str().unwrap().to_owned()).or_default().push(line);
    }
    by_resource
}

/// Every record of an export is what its own endpoint answers for the same version and language,
/// fallbacks included; every list of the API holds exactly the export's records; and the counts the
/// version states are the export's.
#[test]
fn an_export_holds_exactly_what_the_api_answers() {
    let exported = records(VERSION, LANG);
    let query = format!("version={VERSION}&lang={LANG}");
    let version = &exported["versions"][0];
    assert_eq!(exported["versions"].len(), 1);
    assert_eq!(version["data"], bundled_get(&format!("/v1/versions/{VERSION}")).json()["data"]);

    // Each record against its own endpoint, by id or key.
    let singles = [
        ("items", "id"),
        ("recipes", "id"),
        ("ingredient-groups", "id"),
        ("crops", "id"),
        ("shops", "id"),
        ("quests", "key"),
        ("perks", "key"),
        ("spells", "key"),
        ("talents", "key"),
        ("reputation", "key"),
        ("missions", "key"),
        ("letters", "key"),
    ];
    for (resource, name) in singles {
        for line in &exported[resource] {
            let key = match &line["data"][name] {
                Value::String(key) => key.replace(' ', "%20").replace('\'', "%27"),
                other => other.to_string(),
            };
            let answer = bundled_get(&format!("/v1/{resource}/{key}?{query}")).json();
            assert_eq!(line["data"], answer["data"], "{resource} {key}");
            let fallbacks: Vec<String> = line["lang_fallback"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| format!("/data{}", p.as_str().unwrap()))
                .collect();
            assert_eq!(serde_json::json!(fallbacks), answer["meta"]["lang_fallback"], "{resource} {key}");
        }
    }
    // Items carry their pictures' URLs, relative as an export is built at import.
    let urls = exported["items"].iter().filter_map(|line| line["data"]["icon_url"].as_str());
    assert!(urls.clone().count() > 1000 && urls.into_iter().all(|url| url.starts_with("/assets/")));
    // The lists of the API, walked whole: the same records (by identity where the list shows a
    // summary, whole where it shows the record as the export does).
    let identities = |resource: &str, name: &str| -> BTreeSet<String> {
        exported[resource].iter().map(|line| line["data"][name].to_string()).collect()
    };
    let listed = |records: Vec<Value>, name: &str| -> BTreeSet<String> {
        records.iter().map(|record| record[name].to_string()).collect()
    };
    let lists = [
        ("items", "/v1/items?include_unlisted=true&limit=100", "id"),
        ("recipes", "/v1/recipes?include_replaced=true&limit=100", "id"),
        ("crops", "/v1/crops?limit=100", "id"),
        ("quests", "/v1/quests?limit=100", "key"),
        ("perks", "/v1/perks?limit=100", "key"),
        ("letters", "/v1/letters?limit=100", "key"),
    ];
    for (resource, list, name) in lists {
        assert_eq!(identities(resource, name), listed(walk(&format!("{list}&{query}")), name), "{resource}");
    }
    let whole =
        |resource: &str| exported[resource].iter().map(|line| line["data"].clone()).collect::<Vec<_>>();
    assert_eq!(whole("fish"), walk(&format!("/v1/fish?limit=100&{query}")));
    for resource in ["crafters", "npcs"] {
        assert_eq!(
            whole(resource),
            *data(&bundled_get(&format!("/v1/{resource}?{query}")).json()),
            "{resource}"
        );
    }
    // The version's own counts, by the data format's type names.
    let counts = &version["data"]["counts"];
    let types = [
        ("items", "items"),
        ("recipes", "recipes"),
        ("ingredient-groups", "ingredient_groups"),
        ("crafters", "crafting_stations"),
        ("crops", "crops"),
        ("shops", "shops"),
        ("npcs", "shopkeepers"),
        ("fish", "fish"),
        ("quests", "quests"),
        ("perks", "perks"),
        ("spells", "spells"),
        ("talents", "talents"),
        ("reputation", "reputation"),
        ("missions", "missions"),
        ("letters", "letters"),
    ];
    for (resource, kind) in types {
        assert_eq!(exported[resource].len() as u64, counts[kind].as_u64().unwrap(), "{resource}");
    }
    assert_eq!(exported.len(), types.len() + 1, "{:?}", exported.keys());
    let fallbacks: usize =
        exported.values().flatten().map(|l| l["lang_fallback"].as_array().unwrap().len()).sum();
    assert!(fallbacks > 0, "German has gaps in {VERSION}, which the export points at");
}

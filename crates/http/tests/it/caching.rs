//! Keys at the gate, rate-limit headers on every `/v1` answer, and entity tags with conditional requests.

use hyper::{Method, StatusCode};
use tapster_test_support::{DataDir, fixtures};

use crate::{get, key, request_with};

fn bearer() -> String {
    format!("Bearer {}", key().expose())
}

#[test]
fn v1_needs_a_key_and_says_how_to_send_it() {
    let cases: &[(&[(&str, &str)], &str)] = &[
        (&[], "Bearer realm=\"tapster\""),
        (&[("authorization", "Basic dXNlcjpwYXNz")], "Bearer realm=\"tapster\", error=\"invalid_token\""),
        (&[("authorization", "Bearer tap_0000")], "Bearer realm=\"tapster\", error=\"invalid_token\""),
    ];
    for (headers, challenge) in cases {
        let answer = request_with(Method::GET, "/v1/versions", headers);
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{headers:?}");
        assert_eq!(answer.json()["type"], "/errors/unauthorized");
        assert_eq!(answer.headers["www-authenticate"], *challenge);
    }
    // Unknown paths under /v1 are behind the gate too, so they reveal nothing without a key.
    assert_eq!(request_with(Method::GET, "/v1/nothing-here", &[]).status, StatusCode::UNAUTHORIZED);
    // Public routes need none.
    assert_eq!(request_with(Method::GET, "/healthz", &[]).status, StatusCode::OK);
}

#[test]
fn every_v1_answer_carries_rate_limit_and_vary_headers() {
    for path in ["/v1/versions", "/v1/languages?lang=xx", "/v1/nothing-here"] {
        let answer = get(path);
        assert_eq!(answer.headers["ratelimit-policy"], "\"minute\";q=100;w=60", "{path}");
        assert_eq!(answer.headers["ratelimit"], "\"minute\";r=99;t=60", "{path}");
        assert_eq!(answer.headers["vary"], "Authorization, Accept-Encoding", "{path}");
    }
    assert!(get("/healthz").headers.get("ratelimit").is_none());
}

#[test]
fn data_answers_carry_a_strong_etag_and_private_caching() {
    let answer = get("/v1/versions");
    let tag = answer.headers["etag"].to_str().unwrap();
    assert!(tag.starts_with('"') && tag.ends_with('"') && tag.len() == 34, "{tag}");
    assert_eq!(answer.headers["cache-control"], "private, max-age=300");
    // Another body, another tag; the same body, the same tag.
    assert_ne!(get("/v1/versions/v1.0.0.0.1").headers["etag"], answer.headers["etag"]);
    assert_eq!(get("/v1/versions").headers["etag"], answer.headers["etag"]);
    // Errors are not cacheable representations.
    assert!(get("/v1/languages?lang=xx").headers.get("etag").is_none());
}

#[test]
fn answers_about_a_named_version_are_kept_longer_than_about_latest() {
    let day = "private, max-age=86400";
    let cases = [
        ("/v1/items/pale-ale", "private, max-age=300"),
        ("/v1/items/pale-ale?version=latest", "private, max-age=300"),
        ("/v1/versions/latest/changes", "private, max-age=300"),
        ("/v1/items/pale-ale?version=v1.0.0.0.1", day),
        ("/v1/items?version=v1.0.1.0.0&lang=de", day),
        ("/v1/versions/v1.0.1.0.0", day),
        ("/v1/versions/v1.0.1.0.0/changes", day),
    ];
    for (path, kept) in cases {
        // Rendered, then from the answer cache, then revalidated: the same every time.
        assert_eq!(get(path).headers["cache-control"], kept, "{path}");
        let answer = get(path);
        assert_eq!(answer.headers["cache-control"], kept, "{path}");
        let tag = answer.headers["etag"].to_str().unwrap().to_owned();
        let revalidated =
            request_with(Method::GET, path, &[("authorization", &bearer()), ("if-none-match", &tag)]);
        assert_eq!(
            (revalidated.status, &revalidated.headers["cache-control"]),
            (StatusCode::NOT_MODIFIED, &kept.parse().unwrap()),
            "{path}"
        );
    }
}

#[test]
fn if_none_match_answers_304_without_a_body() {
    let full = get("/v1/languages?lang=de");
    let tag = full.headers["etag"].to_str().unwrap().to_owned();
    let weak = format!("W/{tag}");
    let listed = format!("\"nope\", {tag}");
    let auth = bearer();
    for condition in [tag.as_str(), weak.as_str(), listed.as_str(), "*"] {
        let answer = request_with(
            Method::GET,
            "/v1/languages?lang=de",
            &[("authorization", &auth), ("if-none-match", condition)],
        );
        assert_eq!(answer.status, StatusCode::NOT_MODIFIED, "{condition}");
        assert!(answer.body.is_empty());
        assert_eq!(answer.headers["etag"], full.headers["etag"]);
        assert_eq!(answer.headers["cache-control"], "private, max-age=300");
        assert!(answer.headers.get("ratelimit").is_some());
    }
    for condition in ["\"nope\"", "W/\"nope\"", "nope"] {
        let answer = request_with(
            Method::GET,
            "/v1/languages?lang=de",
            &[("authorization", &auth), ("if-none-match", condition)],
        );
        assert_eq!(answer.status, StatusCode::OK, "{condition}");
        assert_eq!(answer.body, full.body);
    }
    // The tag of one language's answer does not match another's.
    let answer = request_with(
        Method::GET,
        "/v1/languages?lang=ja",
        &[("authorization", &auth), ("if-none-match", &tag)],
    );
    assert_eq!(answer.status, StatusCode::OK);
}

/// A broad sample of requests: every area, several languages, versions and parameter sets.
const SAMPLE: &[&str] = &[
    "/v1/versions",
    "/v1/versions/v0.6.4.2.1",
    "/v1/versions/latest/changes?limit=100&lang=de",
    "/v1/languages?lang=ja",
    "/v1/items?limit=100&lang=fr&sort=-price,name",
    "/v1/items?kind=drink&can_be_aged=true&version=v0.6.5.0.3&lang=ko",
    "/v1/items?ids=1000,3002,4104&fields=id,name,price_per_serving",
    "/v1/items/pale-ale?expand=recipes,shops,groups&lang=th",
    "/v1/items/pale-ale/price?ingredients=expensive&aging=grand_reserve&quality=superior&lang=es",
    "/v1/items/barley/used-in?lang=pl",
    "/v1/items/barley/sources?lang=zh-CN",
    "/v1/recipes?group=brewing&lang=de&limit=20",
    "/v1/recipes/pale-ale/tree?ingredients=expensive&lang=ru",
    "/v1/ingredient-groups/any-malt?lang=it",
    "/v1/crafters?lang=uk",
    "/v1/crops?season=winter&sort=name&lang=ja",
    "/v1/crops/barley?version=v0.6.4.2.1",
    "/v1/shops?lang=nl",
    "/v1/shops/hollins-general-store?lang=sv",
    "/v1/npcs?lang=el",
    "/v1/fish?water=MineWater&lang=vi",
    "/v1/quests?limit=10&lang=cs",
    "/v1/quests/Daily.Bread?lang=hu",
    "/v1/reputation?lang=bg",
    "/v1/letters?lang=ca",
    "/v1/search?q=ale&lang=fi",
    "/v1/search?q=びーる&lang=ja",
    "/v1/rankings/products?food_type=drink&aging=aged&limit=10&lang=nb",
];

#[test]
fn the_cache_never_changes_an_answer() {
    for path in SAMPLE {
        let fresh = crate::bundled_request(false, path, &[]);
        assert_eq!(fresh.status, StatusCode::OK, "{path}: {:?}", fresh.body);
        // The first request on the cached server renders and keeps; the second comes from the cache.
        for round in ["miss", "hit"] {
            let cached = crate::bundled_request(true, path, &[]);
            assert_eq!(cached.body, fresh.body, "{path} ({round})");
            assert_eq!(cached.headers["etag"], fresh.headers["etag"], "{path} ({round})");
            assert_eq!(cached.headers["content-type"], fresh.headers["content-type"], "{path} ({round})");
        }
    }
}

#[test]
fn equivalent_requests_share_one_answer_and_no_other_request_gets_it() {
    // Each group holds requests that differ only in the order or the encoding of their parameters:
    // one canonical request, one answer. Across groups the pagination links differ (they keep the
    // parameters given), so every variant must also match what the uncached server renders for it.
    let groups: &[&[&str]] = &[
        &["/v1/items?kind=food&limit=50", "/v1/items?limit=50&kind=food", "/v1/items?limit=50&kind=%66ood"],
        &["/v1/items?lang=en&kind=food&offset=0", "/v1/items?offset=0&kind=food&lang=en"],
        &["/v1/items?kind=food", "/v1/items?kind=f%6Fod"],
        &["/v1/items?kind=food&version=latest", "/v1/items?version=latest&kind=food"],
        &["/v1/items?version=v0.7.0.0.1&kind=food"],
    ];
    let mut tags = Vec::new();
    for group in groups {
        let first = crate::bundled_request(true, group[0], &[]);
        for path in *group {
            let cached = crate::bundled_request(true, path, &[]);
            let fresh = crate::bundled_request(false, path, &[]);
            assert_eq!(cached.body, fresh.body, "{path}: the cache changed the answer");
            assert_eq!(cached.headers["etag"], fresh.headers["etag"], "{path}");
            assert_eq!(cached.headers["etag"], first.headers["etag"], "{path} is not {}", group[0]);
        }
        tags.push(first.headers["etag"].clone());
    }
    // The links keep `lang=en` and `version=latest` when they are given, so those answers differ.
    assert_ne!(tags[0], tags[1]);
    assert_ne!(tags[3], tags[4]);
}

#[test]
fn gzip_is_served_to_clients_that_take_it_with_its_own_tag() {
    let path = "/v1/items?limit=100";
    for cached in [true, false] {
        let plain = crate::bundled_request(cached, path, &[]);
        let zipped = crate::bundled_request(cached, path, &[("accept-encoding", "gzip, br")]);
        assert!(plain.headers.get("content-encoding").is_none());
        assert_eq!(zipped.headers["content-encoding"], "gzip");
        assert_eq!(zipped.headers["vary"], "Authorization, Accept-Encoding");
        let mut decoded = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&zipped.body[..]), &mut decoded)
            .unwrap();
        assert_eq!(decoded, plain.body);
        assert_ne!(zipped.headers["etag"], plain.headers["etag"]);
        let tag = zipped.headers["etag"].to_str().unwrap().to_owned();
        let again =
            crate::bundled_request(cached, path, &[("accept-encoding", "gzip"), ("if-none-match", &tag)]);
        assert_eq!(again.status, StatusCode::NOT_MODIFIED);
        // Small bodies are not worth compressing.
        let small = crate::bundled_request(cached, "/v1/versions/latest", &[("accept-encoding", "gzip")]);
        assert!(small.headers.get("content-encoding").is_none());
    }
}

#[test]
fn new_game_data_replaces_every_cached_answer() {
    let data_dir = DataDir::empty();
    for version in ["v0.6.4.2.1", "v0.6.5.0.3"] {
        data_dir.import(&fixtures().join(version));
    }
    let server = crate::start(data_dir.path(), tapster_http::DEFAULT_CACHE_BUDGET);
    let authorization = bearer();
    let ask = |path: &str| crate::send(&server, Method::GET, path, &[("authorization", &authorization)]);
    // Twice each, so that the second answer comes from the cache.
    let before: Vec<_> = SAMPLE.iter().map(|path| (ask(path), ask(path))).collect();

    // Publish the bundled data, which adds v0.7.0.0.1 as the new `latest`.
    server.app.publish(tapster_store::Store::open(crate::bundled_data_dir()).unwrap());

    let (mut kept, mut changed) = (0, 0);
    for (path, (old, _)) in SAMPLE.iter().zip(&before) {
        let fresh = crate::bundled_request(false, path, &[]);
        for round in ["miss", "hit"] {
            let now = ask(path);
            assert_eq!(now.status, fresh.status, "{path} ({round})");
            assert_eq!(now.body, fresh.body, "{path} ({round}): a stale body");
            assert_eq!(now.headers.get("etag"), fresh.headers.get("etag"), "{path} ({round}): a stale tag");
        }
        // The tag moved exactly where the body did.
        let same_body = old.status == fresh.status && old.body == fresh.body;
        assert_eq!(old.headers.get("etag") == fresh.headers.get("etag"), same_body, "{path}");
        if same_body { kept += 1 } else { changed += 1 }
    }
    // The sample holds both kinds: answers pinned to an old version, and `latest` ones that moved.
    assert!(kept >= 2 && changed >= 10, "kept {kept}, changed {changed}");
}

#[test]
fn a_cached_answer_is_only_for_reads() {
    let authorization = bearer();
    let path = "/v1/items/pale-ale";
    for _ in 0..2 {
        assert_eq!(crate::bundled_request(true, path, &[]).status, StatusCode::OK);
    }
    for method in [Method::POST, Method::DELETE, Method::PUT] {
        let answer =
            crate::send(crate::bundled(), method.clone(), path, &[("authorization", &authorization)]);
        assert_eq!(answer.status, StatusCode::METHOD_NOT_ALLOWED, "{method}");
    }
}

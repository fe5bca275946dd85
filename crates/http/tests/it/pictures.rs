//! The pictures records show: every `icon_url` of the bundled data serves its picture, in every
//! size and format asked for, cacheable forever; a URL names one picture's content for good; and
//! no request for a picture reaches outside the store or fails on the server's side.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Cursor;
use std::sync::Arc;

use http_body_util::BodyExt;
use hyper::{Method, Request, StatusCode};
use sha2::{Digest, Sha256};
use tapster_http::App;
use tapster_store::Store;
use tapster_test_support::{DataDir, fixtures};

use crate::{Answer, OneKey, bundled, bundled_get, get, send, walk};

/// A picture of the bundled data asked for without a key, as an `<img>` asks.
fn fetch(path: &str, headers: &[(&str, &str)]) -> Answer {
    send(bundled(), Method::GET, path, headers)
}

fn png_size(bytes: &[u8]) -> (u32, u32) {
    let mut reader = png::Decoder::new(Cursor::new(bytes)).read_info().expect("a PNG");
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut buffer).expect("a whole PNG");
    (frame.width, frame.height)
}

fn webp_size(bytes: &[u8]) -> (u32, u32) {
    let mut decoder = image_webp::WebPDecoder::new(Cursor::new(bytes)).expect("a WebP");
    let mut buffer = vec![0; decoder.output_buffer_size().unwrap()];
    decoder.read_image(&mut buffer).expect("a whole WebP");
    decoder.dimensions()
}

/// The `icon_url` of every item (unlisted ones too) of every version of the bundled data, by version
/// and item id; the same in every language.
fn icon_urls() -> BTreeMap<(String, i64), String> {
    let versions = bundled_get("/v1/versions").json();
    let mut urls = BTreeMap::new();
    for version in versions["data"].as_array().unwrap() {
        let name = version["version"].as_str().unwrap();
        for lang in tapster_i18n::Language::CODES {
            let items =
                walk(&format!("/v1/items?version={name}&lang={lang}&include_unlisted=true&limit=100"));
            for item in items {
                let Some(url) = item["icon_url"].as_str() else {
                    assert!(item["icon"].is_null(), "{name} {}: an icon without its URL", item["slug"]);
                    continue;
                };
                let id = item["id"].as_i64().unwrap();
                let known = urls.entry((name.to_owned(), id)).or_insert_with(|| url.to_owned());
                assert_eq!(known, url, "{name} item {id} in {lang}");
            }
        }
    }
    assert!(urls.len() > 3000, "{} icons", urls.len());
    urls
}

#[test]
fn every_icon_url_serves_its_picture_and_one_picture_has_one_url() {
    let urls = icon_urls();
    let distinct: BTreeSet<&String> = urls.values().collect();
    for url in &distinct {
        assert!(url.starts_with("/assets/"), "relative without a public URL: {url}");
        let answer = fetch(url, &[]);
        assert_eq!(answer.status, StatusCode::OK, "{url}: {:?}", answer.body);
        assert_eq!(answer.content_type(), "image/png", "{url}");
        assert_eq!(png_size(&answer.body), (128, 128), "{url}");
        // The URL names the file's content: its hash is the SHA-256 of what was imported.
        let hash = url.split('/').nth(2).unwrap();
        assert_eq!(tapster_domain::hex(&Sha256::digest(&answer.body)), hash, "{url}");
    }

    // An item whose picture is the same file in two versions has the same URL in both, and a
    // repainted one (same path, other bytes) another URL.
    let (mut shared, mut repainted) = (0, 0);
    let versions = ["v0.6.4.2.1", "v0.6.5.0.3", "v0.7.0.0.1"];
    for pair in versions.windows(2) {
        let items = walk(&format!("/v1/items?version={}&include_unlisted=true&limit=100", pair[1]));
        for item in items.iter().filter(|item| item["icon"].is_string()) {
            let id = item["id"].as_i64().unwrap();
            let Some(older) = urls.get(&(pair[0].to_owned(), id)) else { continue };
            let newer = &urls[&(pair[1].to_owned(), id)];
            let icon = item["icon"].as_str().unwrap();
            let file = |version: &str| std::fs::read(fixtures().join(version).join("assets").join(icon)).ok();
            if file(pair[0]) == file(pair[1]) {
                assert_eq!(older, newer, "{icon} is the same file in {pair:?}");
                shared += 1;
            } else {
                assert_ne!(older, newer, "{icon} was repainted in {}", pair[1]);
                repainted += 1;
            }
        }
    }
    assert!(shared > 1000 && repainted > 3, "{shared} shared, {repainted} repainted");
}

#[test]
fn sizes_and_formats_are_served_as_asked() {
    let url = bundled_get("/v1/items/pale-ale").json()["data"]["icon_url"].as_str().unwrap().to_owned();
    for (query, media, side) in [
        ("", "image/png", 128),
        ("?size=32", "image/png", 32),
        ("?size=64", "image/png", 64),
        ("?size=128&format=png", "image/png", 128),
        ("?format=webp", "image/webp", 128),
        ("?size=32&format=webp", "image/webp", 32),
    ] {
        let answer = fetch(&format!("{url}{query}"), &[]);
        assert_eq!(answer.status, StatusCode::OK, "{query}");
        assert_eq!(answer.content_type(), media, "{query}");
        let size = if media == "image/webp" { webp_size(&answer.body) } else { png_size(&answer.body) };
        assert_eq!(size, (side, side), "{query}");
        assert_eq!(
            answer.headers["cache-control"], "public, max-age=31536000, immutable",
            "{query}: cacheable forever"
        );
        let tag = answer.headers["etag"].to_str().unwrap().to_owned();
        assert_eq!(tag, format!("\"{}\"", tapster_domain::hex(&Sha256::digest(&answer.body))), "{query}");
        assert!(answer.headers.get("ratelimit").is_none(), "{query}: no key, no limits of one");

        let again = fetch(&format!("{url}{query}"), &[("if-none-match", &tag)]);
        assert_eq!(again.status, StatusCode::NOT_MODIFIED, "{query}");
        assert!(again.body.is_empty());
        assert_eq!(again.headers["etag"], tag.as_str());

        let head = send(bundled(), Method::HEAD, &format!("{url}{query}"), &[]);
        assert_eq!(head.status, StatusCode::OK, "{query}");
        assert!(head.body.is_empty(), "{query}: HEAD has no body");
        assert_eq!(head.headers["content-length"], answer.body.len().to_string().as_str(), "{query}");
    }
    for query in ["?size=48", "?size=1000000000000", "?size=", "?format=gif", "?format=PNG", "?width=32"] {
        let answer = fetch(&format!("{url}{query}"), &[]);
        assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY, "{query}: {:?}", answer.body);
        assert_eq!(answer.content_type(), "application/problem+json", "{query}");
    }
}

#[test]
fn hostile_paths_find_nothing_and_never_fail() {
    let url = bundled_get("/v1/items/pale-ale").json()["data"]["icon_url"].as_str().unwrap().to_owned();
    let hash = url.split('/').nth(2).unwrap().to_owned();
    let other = bundled_get("/v1/items/barley").json()["data"]["icon"].as_str().unwrap().to_owned();
    let other_name = other.rsplit('/').next().unwrap();
    let cases = [
        format!("/assets/{hash}/../../../../etc/passwd"),
        format!("/assets/{hash}/%2e%2e"),
        format!("/assets/{hash}/%2e%2e%2f%2e%2e%2fgame.sqlite"),
        format!("/assets/{hash}/..%5c..%5cgame.sqlite"),
        format!("/assets/{hash}/pale_ale.png%00.png"),
        format!("/assets/{hash}\\pale_ale.png"),
        format!("/assets/{hash}/{other_name}"),
        format!("/assets/{hash}/"),
        format!("/assets/{hash}"),
        format!("/assets/{}/pale_ale.png", &hash[..63]),
        format!("/assets/{hash}0/pale_ale.png"),
        format!("/assets/{}/pale_ale.png", hash.to_uppercase()),
        format!("/assets/{}/pale_ale.png", "0".repeat(64)),
        "/assets/../game.sqlite".to_owned(),
        "/assets/%2e%2e/game.sqlite".to_owned(),
        "/assets".to_owned(),
        "/assets/".to_owned(),
        format!("/assets/{hash}/pale_ale.png?size=99999999999999999999999"),
    ];
    for path in cases {
        let answer = fetch(&path, &[]);
        assert!(
            [StatusCode::NOT_FOUND, StatusCode::UNPROCESSABLE_ENTITY].contains(&answer.status),
            "{path}: {} {:?}",
            answer.status,
            answer.body
        );
        assert_eq!(answer.content_type(), "application/problem+json", "{path}");
    }
    // Only reads: a picture is never written.
    let post = send(bundled(), Method::POST, &url, &[]);
    assert_eq!(post.status, StatusCode::METHOD_NOT_ALLOWED);
}

/// With a public URL, `icon_url` is absolute under it, as the feed's links are; and the small
/// dataset's icon, whose file name has a space, is escaped as one path segment.
#[test]
fn icon_urls_are_absolute_under_a_public_url_and_escaped() {
    let relative = get("/v1/items/pale-ale").json()["data"]["icon_url"].as_str().unwrap().to_owned();
    assert!(relative.starts_with("/assets/") && relative.ends_with("/Pale%20Ale.png"), "{relative}");

    let data_dir = DataDir::mini();
    let store = Store::open(data_dir.path()).unwrap();
    let app = Arc::new(App::new(store, OneKey::default()).with_public_url("https://tapster.example"));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let ask = |target: &str, key: bool| {
        let mut request = Request::get(target);
        if key {
            request = request.header("authorization", format!("Bearer {}", crate::key().expose()));
        }
        let request = request.body(()).unwrap();
        runtime.block_on(async {
            let response = app.handle(&request, "127.0.0.1".parse().unwrap()).await;
            let status = response.status();
            (status, response.into_body().collect().await.unwrap().to_bytes())
        })
    };
    let (status, body) = ask("/v1/items/pale-ale", true);
    assert_eq!(status, StatusCode::OK);
    let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
    let absolute = body["data"]["icon_url"].as_str().unwrap();
    assert_eq!(absolute, format!("https://tapster.example{relative}"));
    let (status, picture) = ask(&relative, false);
    assert_eq!(status, StatusCode::OK);
    assert_eq!(png_size(&picture), (128, 128));
}

/// A version's pictures in one archive that `tar` itself unpacks: the manifest first, then every
/// picture its items name at `assets/<path>`, byte for byte the file `icon_url` serves; built once.
#[test]
fn the_icons_archive_holds_every_picture_under_assets_with_a_manifest() {
    let answer = bundled_get("/v1/exports/v0.7.0.0.1/icons");
    assert_eq!(answer.status, StatusCode::OK, "{:?}", answer.body);
    assert_eq!(answer.content_type(), "application/x-tar");
    assert_eq!(
        answer.headers["content-disposition"],
        "attachment; filename=\"tapster-v0.7.0.0.1-icons.tar\""
    );
    let tag = answer.headers["etag"].to_str().unwrap();
    assert_eq!(tag, format!("\"{}\"", tapster_domain::hex(&Sha256::digest(&answer.body))));
    // The same bytes every time, so that a range resumes it.
    assert_eq!(bundled_get("/v1/exports/v0.7.0.0.1/icons").body, answer.body);
    let part = crate::bundled_request(true, "/v1/exports/v0.7.0.0.1/icons", &[("range", "bytes=1000-1999")]);
    assert_eq!(part.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(part.body, answer.body.slice(1000..2000));

    let folder = tempfile::TempDir::new().unwrap();
    let archive = folder.path().join("icons.tar");
    std::fs::write(&archive, &answer.body).unwrap();
    let listed = std::process::Command::new("tar").arg("-tf").arg(&archive).output().expect("tar runs");
    assert!(listed.status.success(), "{}", String::from_utf8_lossy(&listed.stderr));
    let listed = String::from_utf8(listed.stdout).unwrap();
    assert_eq!(listed.lines().next(), Some("manifest.json"));
    let unpacked = folder.path().join("out");
    std::fs::create_dir(&unpacked).unwrap();
    let status = std::process::Command::new("tar").arg("-xf").arg(&archive).arg("-C").arg(&unpacked).status();
    assert!(status.unwrap().success());

    let manifest: tapster_wire::PictureManifest =
        serde_json::from_slice(&std::fs::read(unpacked.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest.version, "v0.7.0.0.1");
    assert_eq!(listed.lines().count(), manifest.pictures.len() + 1);
    let items = walk("/v1/items?version=v0.7.0.0.1&include_unlisted=true&limit=100");
    let icons: BTreeSet<&str> = items.iter().filter_map(|item| item["icon"].as_str()).collect();
    assert_eq!(manifest.pictures.iter().map(|p| p.path.as_str()).collect::<BTreeSet<_>>(), icons);
    for picture in &manifest.pictures {
        let file = std::fs::read(unpacked.join("assets").join(&picture.path)).unwrap();
        assert_eq!(file.len() as u64, picture.size, "{}", picture.path);
        assert_eq!(tapster_domain::hex(&Sha256::digest(&file)), picture.sha256, "{}", picture.path);
        assert_eq!(file, std::fs::read(fixtures().join("v0.7.0.0.1/assets").join(&picture.path)).unwrap());
        assert!(picture.url.starts_with(&format!("/assets/{}/", picture.sha256)), "{}", picture.url);
        assert!(!picture.items.is_empty());
        for slug in &picture.items {
            let item = items.iter().find(|item| item["slug"] == slug.as_str()).unwrap();
            assert_eq!(item["icon"], picture.path.as_str());
            assert_eq!(item["icon_url"], picture.url.as_str());
        }
    }
    assert_eq!(
        fetch(&manifest.pictures[0].url, &[]).body,
        std::fs::read(unpacked.join("assets").join(&manifest.pictures[0].path)).unwrap()
    );

    // A key is needed, as for every export.
    assert_eq!(fetch("/v1/exports/v0.7.0.0.1/icons", &[]).status, StatusCode::UNAUTHORIZED);
    assert_eq!(bundled_get("/v1/exports/v9.9.9.9.9/icons").status, StatusCode::NOT_FOUND);
}
